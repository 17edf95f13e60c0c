"""Page furniture a generator or theme puts in the page's own flow: a generator's signature
("This document was generated on … using texi2any."), the small print after it, and a
theme's note on which release the pages document.

Apart from :mod:`._html_chrome` (navigation, banners, contents: chrome by its markup)
because these are told by their words and their place — the last thing on the page, a
note that links elsewhere — and a section that tells how its site was made is text.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["is_byline", "is_colophon"]

# What a page generator signs at the bottom of every page: texi2any's "This document was
# generated on … using texi2any." and the small print a manual sets after it ("Zsh
# version 5.9, released on May 14, 2022." was quoted as the answer to questions the zsh
# manual cannot answer: new-user review, 2026-12-04).
# Signed with a date or a tool ("on", "using", "by"): "This site was generated from
# AsciiDoc sources.", over how its theme was made, is a section's text (crmsh's "About").
_COLOPHON = re.compile(
    r"(?i)^\s*(?:this (?:document|page|file|manual|site|website) was (?:automatically )?"
    r"(?:generated|created|produced) (?:on|using|by|with)\b|generated (?:on|by)\b.{0,120}"
    r"\b(?:by|using|with)\b)")
_SMALL_PRINT = frozenset(("font", "small"))


# A theme's note on which release the pages document, with a link to another: Celery's
# "This document describes the current stable version of Celery (5.2). For development
# docs, go here." above every page (indexed 40 times over in its review's fourteen pages,
# 2026-12-05), Read the Docs' "You are not reading the most recent version of this
# documentation."
# A release named by which one it is, not by its number: "This manual documents version
# 9.1 of the GNU core utilities" is the text's.
_VERSION_NOTE = re.compile(
    r"(?i)^\s*(?:this (?:document|documentation|page|site|manual) (?:describes|documents|is "
    r"for|covers) (?:the |an? )?(?:current|latest|old|older|previous|development|unreleased|"
    r"stable|outdated)(?: \w+)? (?:version|release)\b|you are (?:not )?(?:reading|viewing|"
    r"looking at) (?:the |an? )?(?:\w+ ){0,3}version of (?:this|the) documentation\b)")


def is_colophon(node: Any) -> bool:
    """A generator's signature, or small print (``<small>``, ``<font size="-1">``) that is
    the last thing in ``<body>``, or a theme's note on the release documented that links
    to another (:data:`_VERSION_NOTE`): page furniture, not the manual's content."""
    if node.tag not in ("p", "div", "font", "small", "address", "span"):
        return False
    text = (node.text(deep=True) or "").strip()
    if not text or len(text) > _CHARS + _TITLE_CHARS:
        return False
    # Read the Docs sets its note in a warning box: the box goes, its "Warning" with it.
    title = node.css_first("p.admonition-title") if node.tag == "div" else None
    heading = (title.text(deep=True) or "").strip() if title is not None else ""
    if heading and text.startswith(heading):
        text = text[len(heading):].strip()
    if not text or len(text) > _CHARS or len(node.css("p")) > (2 if heading else 1):
        return False  # paragraphs: a section's text
    if _COLOPHON.match(text):
        return True
    if _VERSION_NOTE.match(text) and node.css_first("a[href]") is not None:
        return True
    small = node.tag in _SMALL_PRINT and (
        node.tag == "small" or (node.attributes.get("size") or "").strip().startswith("-"))
    parent = node.parent
    return small and parent is not None and parent.tag == "body" and _last_content(node)


_CHARS = 300  # longer is no signature nor note
_TITLE_CHARS = 40


def _last_content(node: Any) -> bool:
    """Nothing but whitespace and comments after ``node`` among its siblings."""
    sib = node.next
    while sib is not None:
        if sib.tag == "-text":
            if (sib.text_content or "").strip():
                return False
        elif sib.tag not in ("-comment", "script"):
            return False
        sib = sib.next
    return True


def is_byline(node: Any) -> bool:
    """Asciidoctor's byline under a page's title (``<div id="header"><h1>…</h1><div
    class="details">`` author, e-mail, version): who wrote it, no answer to a question
    about what it says — a passage of its own on each of WeeChat's guides, retrieved and
    quoted (review, 2026-12-06). A notice: kept, ranked below the text."""
    parent = node.parent
    return node.tag == "div" and "details" in (node.attributes.get("class") or "").split() \
        and parent is not None and (parent.attributes.get("id") or "") == "header"
