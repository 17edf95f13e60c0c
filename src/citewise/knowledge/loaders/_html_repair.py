"""A page's markup as its author meant it where an HTML parser reads it otherwise.

Why: XHTML's self-closed elements. ``<iframe …/>`` is an empty frame to an XML reader and
to its author, but HTML has no self-closing syntax for elements that are not void: a
parser (a browser's, lexbor's) reads ``<iframe/>`` as an open frame whose raw text runs
to the end of the page, and ``<a id="x"/>`` as a link open over what follows. ImageMagick's
manual (Debian's ``imagemagick-6-doc``, XHTML 1.1 in ``.html`` files) puts a sponsor
button's ``<iframe …/>`` in its navigation bar: 64 of its 66 pages read as no text at all
("no readable text in the page"), and an ``<a class="anchor" id="anatomy"/>`` in a heading
stayed open into the list below it, whose items lost their numbers (new-user review,
2026-12-06). Written ``<x …></x>``, every such element is empty, as meant.
"""

from __future__ import annotations

import re

__all__ = ["closed_empty"]

# A start tag that ends in "/>" and is not a void element's (those are empty anyway, in
# either case: Graphviz's ``<IMG … />``, shown as code in an ``<XMP>``, read "<IMG …></IMG>",
# review 2026-12-07). An
# unquoted attribute value may not end in the slash: ``<a href=/docs/>`` is a link to
# "/docs/", open, in HTML and XHTML alike.
_SELF_CLOSED = re.compile(
    r"<(?!(?i:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)[\s/>])"
    r"([A-Za-z][\w.:-]*)"
    r"((?:\s+[^\s<>/=\"']+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"'=`]++(?<!/)))?)*)"
    r"\s*/>")


def closed_empty(html: str) -> str:
    """``html`` with each self-closed element that is not void written with its end tag."""
    if "/>" not in html:
        return html
    return _SELF_CLOSED.sub(r"<\1\2></\1>", html)
