"""What an HTML page's head says of it: its language, description, author, date, keywords
and canonical address, as the metadata of the document.

Why apart from the text's extraction (:mod:`.html`): these come from ``<meta>`` and
``<link>`` elements, never from the text a reader reads, and no rule of the text's applies
to them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["meta_content", "page_metadata"]


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
