"""GNU Info manuals (``grep.info``, ``coreutils.info.gz``, a split manual's ``.info-1`` …):
rendered to the text ``info`` shows, node after node.

Why a loader of its own: Info is how the GNU project ships its manuals (every Debian
machine has ``/usr/share/info``), and read as plain text its machinery ends up in the
quotes — the ``^_`` node separators and their "File: grep.info, Node: …, Next: …" lines,
menus, the tag table, "*note Exit Status::" references — while its structure (chapters
underlined with ``*``, sections with ``=``, ``-`` and ``.``; a table's items, each term at
the margin over its description indented five spaces) is lost. Here a heading is a section
(nested by its underline), an item's term is a sub-section below it, prose paragraphs are
single lines, an example (indented past the text it belongs to) is code line for line,
menus and indexes are left out, and a reference reads "see Exit Status".
"""

from __future__ import annotations

import re
from pathlib import Path

from citewise.errors import IngestError
from citewise.knowledge.loaders._blocks import Blocks, section_spans
from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["InfoLoader", "read_info"]

_NODE = re.compile(r"File:[^,\n]*,\s*Node:\s*([^,\n]+)")
_UNDERLINE = {"*": 1, "=": 2, "-": 3, ".": 4}
_BULLET = re.compile(r"(?:[•*-]|\d+[.)]|[a-z][.)])\s")
_NOTE = re.compile(r"\*([Nn])ote\s+([^:*]+?)::|\*([Nn])ote\s+([^:*]+?):\s*[^.,:*]*?(?=[.,])")
_EXAMPLE = 5  # columns an example (or an item's description) is indented past its text
_INDENT = 3  # columns a paragraph's first line is indented past its text
_TERM_CHARS = 100  # a term line is short


def _see(m: re.Match[str]) -> str:
    capital = (m.group(1) or m.group(3)) == "N"
    return ("See " if capital else "see ") + " ".join((m.group(2) or m.group(4)).split())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _heading(block: list[str]) -> tuple[int, str] | None:
    """``(level, title)`` when ``block`` is a title over its underline."""
    if len(block) != 2:
        return None
    title, rule = block[0].strip(), block[1].strip()
    mark = rule[:1]
    if mark not in _UNDERLINE or rule != mark * len(rule) or len(rule) < 2 or not title:
        return None
    return (_UNDERLINE[mark], title) if abs(len(rule) - len(title)) <= 3 else None


class _Node:
    """One node's blocks written to the page: where items' descriptions stand."""

    def __init__(self, page: Blocks, level: int) -> None:
        self.page = page
        self.level = level  # of the last heading: an item's term is one below it
        self.described: int | None = None  # the column an open item's description is at

    def block(self, block: list[str]) -> None:
        heading = _heading(block)
        if heading is not None:
            self.level, title = heading
            start = self.page.write(title)
            if start is not None:
                self.page.headings.append((start, self.level, title))
            self.described = None
            return
        first = _indent(block[0])
        deeper = next((i for i, ln in enumerate(block) if _indent(ln) >= first + _EXAMPLE), None)
        # A paragraph's first line is indented three more than its text (makeinfo's
        # paragraphindent): "   Exit status:" is at the margin, not in the item above it.
        margin = min(_indent(ln) for ln in block[1:]) if len(block) > 1 else (
            first - _INDENT if first % _EXAMPLE == _INDENT else first)
        if self.described is not None and margin < self.described:
            self.described = None  # back at the text's margin: the item is over
        base = self.described if self.described is not None else 0
        if (deeper is not None and 0 < deeper <= 4
                and all(len(ln.strip()) <= _TERM_CHARS for ln in block[:deeper])
                and not _BULLET.match(block[0].lstrip())):
            self._item([ln.strip() for ln in block[:deeper]], block[deeper:])
        elif min(first, margin) >= base + _EXAMPLE:
            cut = min(_indent(ln) for ln in block)
            at = self.page.length
            self.page.write("\n".join(ln[cut:].rstrip() for ln in block))
            self.page.mark(at, "code")
        else:
            at = self.page.length
            self.page.write(_NOTE.sub(_see, " ".join(" ".join(block).split())))
            if _BULLET.match(block[0].lstrip()):
                self.page.mark(at, "list_item")

    def _item(self, terms: list[str], description: list[str]) -> None:
        """A table's item: its term(s) on their lines, a sub-section, the description below."""
        at = self.page.length
        start = self.page.write("\n".join(terms))
        self.page.mark(at, "term")
        if start is not None:
            self.page.headings.append((start, self.level + 1, ", ".join(terms)))
        self.described = _indent(description[0])
        self.page.pending_sep = "\n"  # the description on the line under its term
        self.page.write(_NOTE.sub(_see, " ".join(" ".join(description).split())))


def read_info(source: str) -> tuple[str, str | None, list[SectionSpan], list[RoleSpan]]:
    """``(text, title, sections, roles)`` of an Info file's nodes."""
    page = Blocks()
    preamble, *chunks = source.replace("\r\n", "\n").split("\x1f")
    for chunk in chunks:
        header, _, body = chunk.lstrip("\n").partition("\n")
        if _NODE.match(header) is None:
            continue  # the tag table, an indirect table, local variables
        body = re.split(r"(?m)^\* Menu:", body, maxsplit=1)[0]  # menus, an index's entries
        _write(page, re.sub(r"(?m)^ *-{5,} Footnotes -{5,} *$", "", body))
    if not page.length:
        # A split manual's first file: its nodes are in the parts (find.info-1, …); what it
        # says of itself is its preamble ("This manual documents version 4.9.0 of …").
        _write(page, _DIR_ENTRY.sub("", preamble))
    text = "".join(page.parts)
    title = next((t for _, level, t in page.headings if level == 1), None)
    return (text, title, section_spans(sorted(page.headings), len(text)),
            page.role_spans())


_MARKS = re.compile(rb"\x00\x08\[[^\x00]{0,40}\x00\x08\]|\x00\x08")
_DIR_ENTRY = re.compile(r"(?ms)^INFO-DIR-SECTION.*?^END-INFO-DIR-ENTRY$")


def _write(page: Blocks, body: str) -> None:
    """One node's text (blocks between blank lines) onto ``page``."""
    node = _Node(page, page.headings[-1][1] if page.headings else 0)
    block: list[str] = []
    for line in [*body.split("\n"), ""]:
        if line.strip():
            block.append(line.replace("\t", "        ").rstrip())
        elif block:
            node.block(block)
            block = []


class InfoLoader:
    """GNU Info files: ``.info`` (and ``.info-1`` … of a split manual), ``.gz`` copies
    through the gzip loader."""

    name = "info"
    version = "1"
    extensions: tuple[str, ...] = (".info", *(f".info-{n}" for n in range(1, 40)))
    content_types: tuple[str, ...] = ("application/x-info",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        # Texinfo 5+ marks an index node with "\0\b[index\0\b]": no text, and no reason to
        # call the whole file binary (grep.info was refused for its NUL bytes).
        source, encoding = decode_text(path, _MARKS.sub(b"", data))
        meta = file_metadata(path, data, encoding)
        if "\x1f" not in source or _NODE.search(source) is None:
            # Named like an Info file but no node in it: plain text as is.
            return LoadedDocument(text=source, content_type="text/plain", title=path.stem,
                                  metadata=meta)
        text, title, sections, roles = read_info(source)
        if not text.strip():
            raise IngestError(f"{path}: the Info file has no text in its nodes",
                              code="empty_document", details={"path": str(path)})
        return LoadedDocument(text=text, content_type="application/x-info",
                              title=title or path.name.split(".info")[0], metadata=meta,
                              sections=sections, roles=roles)
