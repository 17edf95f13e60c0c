"""Which part of an HTML page is its content: its ``<main>``, else its articles — unless
the page has headings of its own outside them.

Why apart from the page's reading (:mod:`.html`): it is one decision about the page's
shape, made once before a word is read, and it has failed in both directions — a blog's
index page read only its first article; Erlang's reference, whose functions are each an
``<article>`` beside the module's "Description", lost everything outside them.
"""

from __future__ import annotations

from typing import Any

from citewise.knowledge.loaders._html_blocks import HEADING_QUERY
from citewise.knowledge.loaders._html_chrome import is_boilerplate

__all__ = ["main_content"]

_OUTSIDE_STOPS = frozenset(("article", "header", "nav", "aside", "footer", "body", "html"))


def main_content(tree: Any, body: Any) -> list[Any]:
    """The page's main content: its ``<main>`` (or ``role="main"``); else, without one,
    every article of the page (a blog's or a news site's index page has several; the
    first alone lost the rest) — unless the page has headings of its own outside them:
    Erlang's reference sets each function in an ``<article>`` beside the module's
    "Description" (review, 2026-12-05: ets lost 7.6 kB). Empty: read the body."""
    main = tree.css_first("main") or tree.css_first('[role="main"]')
    if main is not None:
        return [main]
    articles = _outermost(tree.css("article"))
    if articles and body is not None and _headed_outside(body):
        return []
    return articles


def _headed_outside(body: Any) -> bool:
    """Whether a heading of ``body`` is in no article, no header, nav, aside or footer, and
    nothing the page hides or names as chrome (a hidden "Subscribe" dialog, a "Tags"
    widget)."""
    for heading in body.css(HEADING_QUERY):
        parent = heading.parent
        while parent is not None and parent.tag not in _OUTSIDE_STOPS \
                and not is_boilerplate(parent, True):
            parent = parent.parent
        if parent is None or parent.tag in ("body", "html"):
            return True
    return False


def _outermost(nodes: list[Any]) -> list[Any]:
    """``nodes`` less those inside another of them (an article nested in an article)."""
    out = []
    for node in nodes:
        parent = node.parent
        while parent is not None and parent.tag != "article":
            parent = parent.parent
        if parent is None:
            out.append(node)
    return out
