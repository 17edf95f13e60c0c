"""DOCX: paragraphs and tables in document order (python-docx), heading-based sections.

Each paragraph becomes one block, blocks are separated by a blank line, a table becomes
one line per row with cells joined by `` | ``; a table nested in a cell follows, in the same
form, the line of the row holding it, so every line is one row of one table. The text is that
of every visible run in document order: content controls (``w:sdt``), custom XML, hyperlinks
and tracked insertions included, tracked deletions left out. Paragraphs styled
``Heading N`` (or ``Title``) open a section named by the heading path (``"Intro > Scope"``),
exactly like Markdown headings, so citations can say "§ Intro > Scope".

A DOCX is a zip of XML, and what it unpacks to is bounded before python-docx sees it
(``_archive.open_zip``: size, member count, ratio; ``archive_bomb``), and so is what its
body holds (:data:`MAX_PARAGRAPHS`; ``document_too_large``): a 149 KB upload used to cost
1 GB of memory and minutes of CPU. A paragraph's style is looked up once per style id,
not once per paragraph (python-docx scans every style on each lookup).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._archive import open_zip
from citewise.knowledge.loaders._blocks import section_spans
from citewise.knowledge.loaders._decode import file_metadata
from citewise.knowledge.loaders._docx_chrome import Block, tidy
from citewise.knowledge.loaders._docx_paragraphs import Kind, kind_of, link_kinds, numbered
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan

__all__ = ["MAX_PARAGRAPHS", "DocxLoader"]

#: Most paragraphs (``w:p``, table cells' included) a DOCX may hold: a 1,000-page book has
#: some 20,000. Loading costs ~80 µs a paragraph, so the bound is also one of CPU time.
MAX_PARAGRAPHS = 100_000

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_TBL = f"{_W}tbl"
_SDT = f"{_W}sdt"
_PLACEHOLDER = f"{_W}sdtPr/{_W}showingPlcHdr"
_BLOCKS = frozenset((f"{_W}p", _TBL))
_ROWS = frozenset((f"{_W}tr",))
_CELLS = frozenset((f"{_W}tc",))
_RUNS = frozenset((f"{_W}r",))
# python-docx's paragraph and table API reads only direct children, so anything inside these
# was lost. Tracked deletions (w:del, w:moveFrom) are absent on purpose: Word does not show them.
_WRAPPERS = frozenset(
    f"{_W}{tag}"
    for tag in (
        "sdt", "sdtContent", "customXml", "smartTag", "hyperlink", "ins", "moveTo", "fldSimple",
        "bdo", "dir",
    )
)
_SPACE = re.compile(r"[ \t\u00a0]+")


def _code_text(text: str) -> str:
    """A code paragraph's text: its spacing kept, only line ends trimmed."""
    return "\n".join(line.rstrip() for line in text.replace("\r", "\n").split("\n"))


def _para_text(text: str) -> str:
    lines = [_SPACE.sub(" ", line).strip() for line in text.replace("\r", "\n").split("\n")]
    return "\n".join(line for line in lines if line)


def _find(parent: Any, tags: frozenset[str]) -> Iterator[Any]:
    """Children of ``parent`` with one of ``tags``, in document order, looking through
    wrappers (but not into what is found: a nested table's paragraphs are its own)."""
    for child in parent:
        if child.tag in tags:
            yield child
        elif child.tag == _SDT and child.find(_PLACEHOLDER) is not None:
            continue  # an empty control shows its prompt ("Click or tap here…"), no content
        elif child.tag in _WRAPPERS:
            yield from _find(child, tags)


def _runs_text(p: Any) -> str:
    # CT_R.text reads w:t, tabs and breaks, never w:delText or field codes
    return "".join(r.text for r in _find(p, _RUNS))


def _cell(tc: Any) -> tuple[str, list[str]]:
    """A cell's paragraphs on one line, and the lines of the tables nested in it."""
    words: list[str] = []
    nested: list[str] = []
    for block in _find(tc, _BLOCKS):
        if block.tag == _TBL:
            nested += _table_lines(block)
        else:
            words += _para_text(_runs_text(block)).split("\n")
    return " ".join(w for w in words if w), nested


def _table_lines(tbl: Any) -> list[str]:
    """One line per row, each followed by the lines of the tables nested in its cells."""
    lines: list[str] = []
    above: dict[int, str] = {}  # grid column -> text of the cell a vertical merge continues
    for tr in _find(tbl, _ROWS):
        cells: list[str] = []
        nested: list[str] = []
        col = tr.grid_before
        for tc in _find(tr, _CELLS):
            if tc.vMerge == "continue":  # repeated so each row line reads on its own
                text = above.get(col, "")
            else:
                text, inner = _cell(tc)
                above[col] = text
                nested += inner
            cells.append(text)
            col += tc.grid_span
        row = " | ".join(cells).strip(" |")
        lines += [row, *nested] if row else nested
    return lines


def _link_bar(tbl: Any) -> bool:
    """A bar of links (a chapter's previous / next): a table of one or two rows and at most
    three cells with text, each only a link — not a table of web addresses."""
    rows = [tr for tr in tbl.iter(f"{_W}tr")]
    paragraphs = [p for p in tbl.iter(f"{_W}p") if "".join(t.text or "" for t in p.iter(
        f"{_W}t")).strip()]
    return len(rows) <= 2 and 0 < len(paragraphs) <= 3 and all(
        link_kinds(p)[1] for p in paragraphs)


def _corrupt(path: Path, exc: BaseException) -> IngestError:
    return IngestError(
        f"{path}: not a readable DOCX ({exc.__class__.__name__}: {exc})",
        code="corrupt_file",
        details={"path": str(path), "format": "docx"},
    )


class DocxLoader:
    """``.docx`` files (Word 2007+; the old binary ``.doc`` is not supported)."""

    name = "docx"
    version = "4"  # 2: role spans; 3: contents and nav bars left out, code, numbered lists;
    # 4: contents only where contents stand, link bars, listings' blank lines
    extensions: tuple[str, ...] = (".docx",)
    content_types: tuple[str, ...] = (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        import docx
        from docx.text.paragraph import Paragraph

        if not zipfile.is_zipfile(io.BytesIO(data)):
            raise _corrupt(path, ValueError("not a ZIP container"))
        open_zip(data, what=str(path)).close()  # limits on what unpacks (archive_bomb, …)
        try:
            document = docx.Document(io.BytesIO(data))
            body = document.element.body
            paragraphs = sum(1 for _ in body.iter(f"{_W}p"))
            if paragraphs > MAX_PARAGRAPHS:
                raise IngestError(
                    f"{path}: {paragraphs} paragraphs (limit {MAX_PARAGRAPHS})",
                    code="document_too_large",
                    details={"path": str(path), "format": "docx", "paragraphs": paragraphs,
                             "limit_paragraphs": MAX_PARAGRAPHS},
                )
            kinds: dict[str | None, Kind] = {}  # style id -> what its paragraphs are
            blocks: list[Block] = []
            for item in _find(body, _BLOCKS):
                if item.tag == _TBL:
                    rows = _table_lines(item)
                    if rows and not _link_bar(item):
                        blocks.append(Block("\n".join(rows), None, "table",
                                            banner=len(rows) == 1))
                    continue
                style_id = item.style
                if style_id not in kinds:
                    style = Paragraph(item, document).style
                    kinds[style_id] = kind_of((style.name if style is not None else None) or "")
                level, role = kinds[style_id]
                if role == "code":
                    blocks.append(Block(_code_text(_runs_text(item)), level, role))
                    continue
                text = _para_text(_runs_text(item))
                if role is None and numbered(item):
                    role = "list_item"
                link = ""
                if role in (None, "term", "list_item"):
                    inside, anywhere = link_kinds(item)
                    link = inside or ("ext" if anywhere else "")
                blocks.append(Block(text, level, role, link))
            written = tidy(blocks)
            props = document.core_properties
        except IngestError:
            raise
        except Exception as exc:  # python-docx/lxml raise many kinds on damaged input
            raise _corrupt(path, exc) from exc

        parts: list[str] = []
        headings: list[tuple[int, int, str]] = []
        roles: list[RoleSpan] = []
        pos = 0
        for text, level, role in written:
            if parts:
                parts.append("\n\n")
                pos += 2
            if level is not None:
                headings.append((pos, level, " ".join(text.split())))
            if role is not None:
                roles.append((pos, pos + len(text), role))
            parts.append(text)
            pos += len(text)
        full = "".join(parts)
        if not full.strip():
            raise IngestError(
                f"{path}: the document has no text", code="empty_document",
                details={"path": str(path)},
            )

        meta: dict[str, Any] = file_metadata(path, data, "")
        for key, value in (
            ("author", props.author),
            ("subject", props.subject),
            ("keywords", props.keywords),
            ("created", props.created),
            ("document_modified", props.modified),
        ):
            if isinstance(value, datetime):
                meta[key] = value.isoformat()
            elif value:
                meta[key] = str(value)
        title = (props.title or "").strip() or None
        if title is None and headings:
            title = min(headings, key=lambda h: (h[1], h[0]))[2]
        return LoadedDocument(
            text=full,
            content_type=self.content_types[0],
            title=title or path.stem,
            metadata=meta,
            sections=section_spans(headings, len(full)),
            roles=roles,
        )

