"""DOCX: paragraphs and tables in document order (python-docx), heading-based sections.

Each paragraph becomes one block, blocks are separated by a blank line, a table becomes
one line per row with cells joined by `` | ``. Paragraphs styled ``Heading N`` (or
``Title``) open a section named by the heading path (``"Intro > Scope"``), exactly like
Markdown headings, so citations can say "§ Intro > Scope".
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders.base import LoadedDocument, SectionSpan
from citewise.knowledge.loaders.text import file_metadata

__all__ = ["DocxLoader"]

_HEADING = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_SPACE = re.compile(r"[ \t\u00a0]+")


def _level(style_name: str) -> int | None:
    """Heading level of a paragraph style: ``Title`` is 0, ``Heading N`` is N."""
    name = style_name.strip()
    if name.lower() == "title":
        return 0
    m = _HEADING.match(name)
    return int(m.group(1)) if m else None


def _para_text(text: str) -> str:
    lines = [_SPACE.sub(" ", line).strip() for line in text.replace("\r", "\n").split("\n")]
    return "\n".join(line for line in lines if line)


def _row_text(row: Any) -> str:
    cells: list[str] = []
    seen: set[int] = set()
    for cell in row.cells:
        if id(cell._tc) in seen:  # a merged cell appears once per grid column it spans
            continue
        seen.add(id(cell._tc))
        cells.append(" ".join(_para_text(cell.text).split("\n")))
    return " | ".join(cells).strip(" |")


def _corrupt(path: Path, exc: BaseException) -> IngestError:
    return IngestError(
        f"{path}: not a readable DOCX ({exc.__class__.__name__}: {exc})",
        code="corrupt_file",
        details={"path": str(path), "format": "docx"},
    )


class DocxLoader:
    """``.docx`` files (Word 2007+; the old binary ``.doc`` is not supported)."""

    name = "docx"
    extensions: tuple[str, ...] = (".docx",)
    content_types: tuple[str, ...] = (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        import docx
        from docx.table import Table

        if not zipfile.is_zipfile(io.BytesIO(data)):
            raise _corrupt(path, ValueError("not a ZIP container"))
        try:
            document = docx.Document(io.BytesIO(data))
            blocks: list[tuple[str, int | None]] = []  # (text, heading level or None)
            for item in document.iter_inner_content():
                if isinstance(item, Table):
                    rows = [r for r in (_row_text(row) for row in item.rows) if r]
                    if rows:
                        blocks.append(("\n".join(rows), None))
                    continue
                text = _para_text(item.text)
                if text:
                    style = item.style.name if item.style is not None else ""
                    blocks.append((text, _level(style or "")))
            props = document.core_properties
        except Exception as exc:  # python-docx/lxml raise many kinds on damaged input
            raise _corrupt(path, exc) from exc

        parts: list[str] = []
        headings: list[tuple[int, int, str]] = []
        pos = 0
        for text, level in blocks:
            if parts:
                parts.append("\n\n")
                pos += 2
            if level is not None:
                headings.append((pos, level, " ".join(text.split())))
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
            sections=_sections(headings, len(full)),
        )


def _sections(headings: list[tuple[int, int, str]], end: int) -> list[SectionSpan]:
    spans: list[SectionSpan] = []
    path: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(headings):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        stop = headings[i + 1][0] if i + 1 < len(headings) else end
        spans.append((start, stop, " > ".join(t for _, t in path)))
    return spans
