"""What a Word paragraph is, by its style and its links: a heading, a list item, a term, a
line of code, or a line of the document's own table of contents.

Apart from the loader (:mod:`.docx`) because Word and LibreOffice name the same things
differently and the loader only needs the answer. Found by a new user's review of the
Debian FAQ as 16 DOCX chapters (LibreOffice 7.4, 2026-12-07): each chapter's table of
contents was text (17 lines of question titles that matched every search for them), the
code paragraphs ("Preformatted Text", a paragraph a line) lost their spacing and read as
prose — "apt-get dist-upgrade -> apt full-upgrade" was quoted as the answer to how the two
differ —, LibreOffice's "List Heading" (an HTML ``<dt>``) counted as a list item, and the
real bullets (numbered paragraphs of "Body Text") did not.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

__all__ = ["Kind", "kind_of", "link_kinds", "numbered"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
# Word's and LibreOffice's table-of-contents entry styles ("TOC 1", "toc 2", "Contents 1")
# and the heading over them ("TOC Heading", "Contents Heading").
_CONTENTS = re.compile(r"^(?:toc|contents)(?:\s*\d+|\s+heading)$", re.IGNORECASE)
# Code as the editors style it: Word's "HTML Preformatted" and "Macro Text" ("macro"),
# LibreOffice's "Preformatted Text", pandoc's "Source Code", a house style's "Code". (Not
# Word's "Plain Text": a text file's paragraphs.)
_CODE = frozenset(("html preformatted", "preformatted text", "source code", "code",
                   "code block", "macro text", "macro"))
# LibreOffice's definition list: "List Heading" is a term (<dt>), "List Contents" its text.
_TERM = frozenset(("list heading", "definition term"))
_NOT_LIST = frozenset(("list contents", "list continue", "list continue 2", "list continue 3"))


class Kind(NamedTuple):
    """A paragraph style's meaning: its heading level, if any, and its role."""

    level: int | None
    role: str | None  # "heading", "list_item", "term", "code", "contents" or None


def kind_of(style_name: str) -> Kind:
    """What a paragraph of the style named ``style_name`` is."""
    name = " ".join(style_name.split()).lower()
    if name == "title":
        return Kind(0, "heading")
    if m := _HEADING.match(name):
        return Kind(int(m.group(1)), "heading")
    if _CONTENTS.match(name):
        return Kind(None, "contents")
    if name in _CODE:
        return Kind(None, "code")
    if name in _TERM:
        return Kind(None, "term")
    if name.startswith("list") and name not in _NOT_LIST:
        return Kind(None, "list_item")
    return Kind(None, None)


def numbered(p: Any) -> bool:
    """Whether paragraph ``p`` carries its own bullet or number (``w:numPr``, not ``w:numId``
    0, which switches a style's numbering off): a list item whatever its style."""
    ppr = p.find(f"{_W}pPr")
    num = ppr.find(f"{_W}numPr") if ppr is not None else None
    if num is None:
        return False
    ident = num.find(f"{_W}numId")
    return ident is None or ident.get(f"{_W}val") != "0"


# A contents line's page number after its leader dots or tab: "12", "iv".
_PAGE = re.compile(r"[\s.·…]*(?:\d+|(?=[ivxlcdm])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})"
                   r"(?:ix|iv|v?i{0,3}))?\s*", re.IGNORECASE)


def link_kinds(p: Any) -> tuple[str, str]:
    """What of paragraph ``p`` is linked, counting only links to a place in the document
    (``w:anchor``, a field's ``\\l``: contents, not web addresses), then any link: "page"
    when it shows a link and then a page number (a table of contents' line), "link" when
    half its text or more is linked — inside a ``w:hyperlink`` or shown by a ``HYPERLINK``
    field, as LibreOffice writes links (which ends the field before a code-font part: "6.8.
    What are all those directories inside dists/stable/main?") —, "" otherwise. One pass
    over the paragraph for both."""
    texts: dict[bool, tuple[list[str], list[str], list[str]]] = {
        internal: ([], [], []) for internal in (True, False)}  # (linked, styled, rest)
    fields: list[list[str]] = []  # each open field: [instruction, "shown" once separated]
    for node in p.iter(f"{_W}t", f"{_W}fldChar", f"{_W}instrText"):
        tag = node.tag
        if tag == f"{_W}fldChar":
            kind = node.get(f"{_W}fldCharType")
            if kind == "begin":
                fields.append(["", ""])
            elif kind == "separate" and fields:
                fields[-1][1] = "shown"
            elif kind == "end" and fields:
                fields.pop()
        elif tag == f"{_W}instrText":
            if fields:
                fields[-1][0] += node.text or ""
        else:
            styled = _link_styled(node)
            for internal, (linked, drawn, rest) in texts.items():
                bucket = linked if _in_link(node, fields, internal) else drawn if styled \
                    else rest
                bucket.append(node.text or "")
    inside, anywhere = (_verdict(*texts[internal]) for internal in (True, False))
    return inside, anywhere


def _verdict(linked: list[str], styled: list[str], rest: list[str]) -> str:
    shown = "".join(linked).strip()
    if not shown:
        return ""
    shown += "".join(styled)  # past the field's end, still drawn as the link
    other = "".join(rest)
    if _PAGE.fullmatch(other) is not None:
        return "page" if other.strip() else "link"
    return "link" if len(shown) >= len(other.strip()) else ""


# The character style a link is drawn with: Word's "Hyperlink", LibreOffice's "Internet Link".
_LINK_STYLES = frozenset(("Hyperlink", "InternetLink", "InternetLink0"))


def _link_styled(t: Any) -> bool:
    run = t.getparent()
    props = run.find(f"{_W}rPr") if run is not None else None
    style = props.find(f"{_W}rStyle") if props is not None else None
    return style is not None and style.get(f"{_W}val") in _LINK_STYLES


def _in_link(t: Any, fields: list[list[str]], internal: bool) -> bool:
    for above in t.iterancestors(f"{_W}hyperlink", f"{_W}fldSimple"):
        if above.tag == f"{_W}hyperlink":
            return not internal or above.get(f"{_W}anchor") is not None
        if _link_field(above.get(f"{_W}instr") or "", internal):
            return True
    return any(shown and _link_field(instr, internal) for instr, shown in fields)


def _link_field(instr: str, internal: bool) -> bool:
    words = instr.split()
    return bool(words) and words[0].upper() == "HYPERLINK" and (not internal or "\\l" in words)
