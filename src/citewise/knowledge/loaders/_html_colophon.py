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

__all__ = ["is_colophon"]

# What a page generator signs at the bottom of every page: texi2any's "This document was
# generated on … using texi2any." and the small print a manual sets after it ("Zsh
# version 5.9, released on May 14, 2022." was quoted as the answer to questions the zsh
# manual cannot answer: new-user review, 2026-12-04).
_COLOPHON = re.compile(
    r"(?i)^\s*(?:this (?:document|page|file|manual|site|website) was (?:automatically )?"
    r"(?:generated|created|produced)\b|generated (?:on|by)\b.{0,120}\b(?:by|using|with)\b)")
_SMALL_PRINT = frozenset(("font", "small"))


# A theme's note on which release the pages document, with a link to another: Celery's
# "This document describes the current stable version of Celery (5.2). For development
# docs, go here." above every page (indexed 40 times over in its review's fourteen pages,
# 2026-12-05), Read the Docs' "You are not reading the most recent version of this
# documentation."
_VERSION_NOTE = re.compile(
    r"(?i)^\s*(?:this (?:document|documentation|page|site|manual) (?:describes|documents|is "
    r"for|covers) (?:the |an? )?(?:current |latest |old |older |previous |development |"
    r"unreleased )*(?:stable )?(?:version|release)\b|you are (?:not )?(?:reading|viewing|"
    r"looking at) (?:the |an? )?(?:\w+ ){0,3}version of (?:this|the) documentation\b)")


def is_colophon(node: Any) -> bool:
    """A generator's signature, or small print (``<small>``, ``<font size="-1">``) that is
    the last thing in ``<body>``, or a theme's note on the release documented that links
    to another (:data:`_VERSION_NOTE`): page furniture, not the manual's content."""
    if node.tag not in ("p", "div", "font", "small", "address", "span"):
        return False
    text = (node.text(deep=True) or "").strip()
    if not text or len(text) > 300 or len(node.css("p")) > 1:
        return False  # paragraphs: a section's text ("This site was generated from …")
    if _COLOPHON.match(text) and not _text_after(node):
        return True  # not "This site was generated from AsciiDoc sources." over two more
    if _VERSION_NOTE.match(text) and node.css_first("a[href]") is not None:
        return True
    small = node.tag in _SMALL_PRINT and (
        node.tag == "small" or (node.attributes.get("size") or "").strip().startswith("-"))
    parent = node.parent
    return small and parent is not None and parent.tag == "body" and _last_content(node)


def _text_after(node: Any) -> bool:
    """Whether a block with text follows ``node`` or a block it is in, inside ``<body>``."""
    while node is not None and node.tag != "body":
        sib = node.next
        while sib is not None:
            if sib.tag in _TEXT_BLOCKS and (sib.text(deep=True) or "").strip():
                return True
            sib = sib.next
        node = node.parent
    return False


_TEXT_BLOCKS = frozenset(("p", "div", "ul", "ol", "dl", "table", "pre", "blockquote"))


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
