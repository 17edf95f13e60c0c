"""What an HTML page's head says of it: its language, description, author, date, keywords
and canonical address, as the metadata of the document.

Why apart from the text's extraction (:mod:`.html`): these come from ``<meta>`` and
``<link>`` elements, never from the text a reader reads, and no rule of the text's applies
to them.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["front_matter_title", "meta_content", "page_metadata"]


def meta_content(tree: Any, *names: str) -> str | None:
    """The first non-empty ``<meta name=…>`` (or ``property=…``) of ``names``."""
    for name in names:
        node = tree.css_first(f'meta[name="{name}"]') or tree.css_first(f'meta[property="{name}"]')
        if node is not None:
            value = (node.attributes.get("content") or "").strip()
            if value:
                return value
    return None


def page_metadata(tree: Any) -> dict[str, Any]:
    """The page's language, description, author, publication date, keywords and canonical
    address, those it states."""
    meta: dict[str, Any] = {}
    html_node = tree.css_first("html")
    if html_node is not None and html_node.attributes.get("lang"):
        meta["lang"] = html_node.attributes["lang"]
    for key, names in (
        ("description", ("description", "og:description")),
        ("author", ("author", "article:author")),
        ("published", ("article:published_time", "date", "dc.date")),
        ("keywords", ("keywords",)),
    ):
        value = meta_content(tree, *names)
        if value:
            meta[key] = value
    canonical = tree.css_first('link[rel="canonical"]')
    if canonical is not None and canonical.attributes.get("href"):
        meta["canonical_url"] = canonical.attributes["href"]
    return meta


# A page body that a site's template wraps, its title in a comment at its top: Go's
# documentation (``<!--{ "Title": "The Go Programming Language Specification", … }-->``).
_FRONT_MATTER = re.compile(r"\A\s*<!--(\{.{0,2000}?\})-->", re.S)


def front_matter_title(html: str) -> str | None:
    """The title a page's front matter gives it, when it has no ``<title>`` (Go's spec was
    titled "Introduction", its first heading, as were its memory model and its old spec:
    new-user review, 2026-12-05)."""
    m = _FRONT_MATTER.match(html)
    if m is None:
        return None
    try:
        value = json.loads(m.group(1))
    except ValueError:
        return None
    title = value.get("Title") if isinstance(value, dict) else None
    return " ".join(title.split()) or None if isinstance(title, str) else None
