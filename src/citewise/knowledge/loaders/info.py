"""GNU Info manuals (``grep.info``, ``coreutils.info.gz``, a split manual's ``.info-1`` …):
rendered to the text ``info`` shows, node after node.

Why a loader of its own: Info is how the GNU project ships its manuals (every Debian
machine has ``/usr/share/info``), and read as plain text its machinery ends up in the
quotes — the ``^_`` node separators and their "File: grep.info, Node: …, Next: …" lines,
menus, the tag table, "*note Exit Status::" references — while its structure (chapters
underlined with ``*``, sections with ``=``, ``-`` and ``.``; a table's items, each term at
the margin over its description indented five spaces) is lost. Here a heading is a section
(nested by its underline), an item's term is a sub-section below it (a table in an item's
text nested in that item: grep's ‘sl=’ is part of ‘GREP_COLORS’), prose paragraphs are
single lines, an example (indented past the text it belongs to) is code line for line,
menus and indexes are left out, and a reference reads "see Exit Status".
"""

from __future__ import annotations

import re
from pathlib import Path

from citewise.knowledge.loaders._blocks import Blocks, section_spans
from citewise.knowledge.loaders._decode import decode_text, rendered
from citewise.knowledge.loaders._info_blocks import Node, indent
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["InfoLoader", "read_info"]

_NODE = re.compile(r"File:[^,\n]*,\s*Node:\s*([^,\n]+)")


def read_info(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of an Info file's nodes."""
    page = Blocks()
    terms: list[tuple[int, int, str]] = []
    source = _TEXT_MARKS.sub("", source.replace("\r\n", "\n"))
    preamble, *chunks = source.split("\x1f")
    title: str | None = None
    for chunk in chunks:
        header, _, body = chunk.lstrip("\n").partition("\n")
        node = _NODE.match(header)
        if node is None:
            continue  # the tag table, an indirect table, local variables
        top = node.group(1).strip() == "Top"
        headed = len(page.headings)
        _read_node(page, terms, body, _LICENCE.search(node.group(1).strip()) is not None)
        if top and title is None and len(page.headings) > headed:
            title = page.headings[headed][2]  # the manual's name: its Top node's heading
    if not page.length:
        # A split manual's first file: its nodes are in the parts (find.info-1, …); what it
        # says of itself is its preamble ("This manual documents version 4.9.0 of …").
        _read_node(page, terms, _DIR_ENTRY.sub("", preamble), False)
    page.headings = [h for h in page.headings if h[0] >= 0]  # a section reopened at the end
    terms = [t for t in terms if t[0] >= 0]
    text = "".join(page.parts)
    return (text, title, section_spans(sorted([*page.headings, *terms]), len(text)),
            page.role_spans())


# Texinfo's marks around an index node, an image: "\0\b[index\0\b]", "\0\b[image src=…\0\b]".
_MARKS = re.compile(rb"(?s)\x00\x08\[.{0,4000}?\x00\x08\]|\x00\x08")
_TEXT_MARKS = re.compile(_MARKS.pattern.decode())
# The tag table: a DEL byte a node, which a small file of many nodes has more of than the
# one in a hundred characters a text may (find.info, a split manual's first file).
_TAGS = re.compile(rb"(?s)\x1f\nTag Table:\n.*?\x1f\nEnd Tag Table\n?")
_INDIRECT = re.compile(r"\x1f\nIndirect:\n")
_DIR_ENTRY = re.compile(r"(?ms)^INFO-DIR-SECTION.*?^END-INFO-DIR-ENTRY$")
# The manual's licence (not "Copying Existing Permissions", a section of coreutils').
_LICENCE = re.compile(r"Free Documentation License|^Copying(?: This Manual)?$|Licen[cs]e$", re.I)
_FOOTNOTES = re.compile(r" *-{5,} Footnotes -{5,} *")
_MENU_ENTRY = re.compile(r"\* [^:]+:")
_LISTING = re.compile(r" *(?:-{2,}|—) The Detailed Node Listing (?:-{2,}|—) *")


def _read_node(page: Blocks, terms: list[tuple[int, int, str]], body: str,
               notice: bool) -> None:
    """One node's text (blocks between blank lines) onto ``page``, less its menus (and an
    index's entries): a menu's lines, not the text after it ("'patch' exits with status 0
    …" follows diffutils' menu of patch's messages)."""
    level, title = page.headings[-1][1:] if page.headings else (0, "")
    node = Node(page, terms, level, title, notice)
    lines = body.split("\n")
    after = [""] * (len(lines) + 1)  # the next line with text after each line
    for n in range(len(lines) - 1, -1, -1):
        after[n] = lines[n + 1] if n + 1 < len(lines) and lines[n + 1].strip() else after[n + 1]
    blocks: list[list[str]] = []  # None-free: a footnote rule is an empty block
    block: list[str] = []
    menu = False
    for n, line in enumerate([*lines, ""]):
        menu = menu or line.startswith("* Menu:")
        if menu and n < len(lines):
            if (not line.strip() or line.startswith("* ") or _LISTING.fullmatch(line)
                    or indent(line) >= 10 or _MENU_ENTRY.match(after[n])):
                continue  # an entry, its continuation, a detailed listing's group title
            menu = False
        footnotes = _FOOTNOTES.fullmatch(line) is not None
        if line.strip() and not footnotes:
            block.append(line.replace("\t", "        ").rstrip())
            continue
        if block:
            blocks.append(block)
            block = []
        if footnotes:
            blocks.append([])  # a footnote is no item's text
    for n, lines_ in enumerate(blocks):
        if not lines_:
            node.end_item()
            continue
        following = blocks[n + 1] if n + 1 < len(blocks) else []
        node.block(lines_, indent(following[0]) if following else None)


class InfoLoader:
    """GNU Info files: ``.info`` (and ``.info-1`` … of a split manual), ``.gz`` copies
    through the gzip loader."""

    name = "info"
    # 2: definitions, a term over a blank line, split manuals' first files; 3: @multitable;
    # 4: a table in an item's text nested in it, the item's text going on after it or a list;
    # 5: an item whose term is at another's column is its sibling; 6: a definition's
    # wrapped lines, a definition in an item's text, an example between two paragraphs, a
    # split manual's table of parts; 7: a definition without Info's "-- "; 8: the code
    # reviews' mends (bullets, categories, examples, a list set in)
    version = "8"
    extensions: tuple[str, ...] = (".info", *(f".info-{n}" for n in range(1, 40)))
    content_types: tuple[str, ...] = ("application/x-info",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        # Texinfo 5+ marks an index node with "\0\b[index\0\b]": no text, and no reason to
        # call the whole file binary (grep.info was refused for its NUL bytes).
        source, encoding = decode_text(path, _TAGS.sub(b"", _MARKS.sub(b"", data)))
        # Named like an Info file but no node in it, nor a split manual's table of its
        # parts (Guile's guile.info.gz was stored as plain text, its "Indirect:" table and
        # "Local Variables:" with it): plain text as is.
        info = "\x1f" in source and (_NODE.search(source) is not None
                                     or _INDIRECT.search(source) is not None)
        return rendered(path, data, source, encoding, read_info if info else None,
                        content_type="application/x-info", title=path.name.split(".info")[0])
