"""EPUB (2 and 3): the book's chapters in reading order, each a section.

An EPUB is a zip of XHTML files plus a package document (OPF) whose *spine* says in which
order they are read. The chapters are read in that order with the HTML loader's extraction
(:func:`citewise.knowledge.loaders.html.read_html`: what a reader reads, headings as
sections) and joined by blank lines; each chapter is a section named by the heading that opens it
(else its ``<title>``, else its file name), and the headings inside it nest below it
(``"Chapter 2 > The harbour"``). Spans are shifted by the chapter's offset in the joined
text, so they index the stored text exactly. Chapters with no text (a cover image, a
blank page) add nothing. The book's ``dc:title``/``dc:creator``/``dc:language`` go to the
title and metadata.

The zip goes through :mod:`citewise.knowledge.loaders._archive` before anything in it is
parsed (member count, unpacked size and ratio, each member read with a bound), so a zip
bomb is refused as ``archive_bomb`` like a DOCX one.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

from citewise.errors import IngestError
from citewise.knowledge.loaders._archive import check_zip, read_member
from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan
from citewise.knowledge.loaders.html import read_html

__all__ = ["EpubLoader", "read_epub"]

_WHAT = "epub"
_CONTAINER = "META-INF/container.xml"
_HTML_TYPES = ("application/xhtml+xml", "text/html", "application/xml")


def _corrupt(path: Path, why: str) -> IngestError:
    return IngestError(f"{path}: not a readable EPUB ({why})", code="corrupt_file",
                       details={"path": str(path), "format": _WHAT})


def _xml(data: bytes, path: Path, what: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise _corrupt(path, f"{what}: {exc}") from None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(node: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [el for el in node.iter() if _local(el.tag) == name]


def read_epub(path: Path, data: bytes) -> tuple[str, str | None, list[SectionSpan],
                                                 dict[str, Any], list[RoleSpan]]:
    """``(text, title, sections, metadata, roles)`` of an EPUB's bytes."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise _corrupt(path, str(exc)) from None
    with zf:
        check_zip(zf, what=_WHAT)
        names = set(zf.namelist())
        if _CONTAINER not in names:
            raise _corrupt(path, f"no {_CONTAINER}")
        container = _xml(read_member(zf, _CONTAINER, what=_WHAT), path, _CONTAINER)
        rootfile = next((el.get("full-path") for el in _children(container, "rootfile")
                         if el.get("full-path")), None)
        if rootfile is None or rootfile not in names:
            raise _corrupt(path, "no package document")
        opf = _xml(read_member(zf, rootfile, what=_WHAT), path, rootfile)
        base = posixpath.dirname(rootfile)
        manifest = {
            el.get("id"): (posixpath.normpath(posixpath.join(base, unquote(el.get("href", "")))),
                           el.get("media-type", ""))
            for el in _children(opf, "item") if el.get("id")
        }
        spine = [manifest[ref.get("idref")] for ref in _children(opf, "itemref")
                 if ref.get("idref") in manifest and ref.get("linear", "yes") != "no"]
        parts: list[str] = []
        sections: list[SectionSpan] = []
        roles: list[RoleSpan] = []
        length = chapters = 0
        for member, media_type in spine:
            if member not in names or (media_type and media_type not in _HTML_TYPES):
                continue
            html, _ = decode_text(path, read_member(zf, member, what=_WHAT))
            text, page_title, spans, _meta, page_roles = read_html(html)
            if not text.strip():
                continue
            if parts:
                parts.append("\n\n")
                length += 2
            # A heading that opens the chapter names it; else its page title.
            opening = spans[0][2].split(" > ")[0] if spans and spans[0][0] == 0 else None
            chapter = opening or page_title or posixpath.splitext(posixpath.basename(member))[0]
            sections.extend(_chapter_spans(chapter, spans, length, len(text)))
            roles.extend((length + a, length + b, role) for a, b, role in page_roles)
            parts.append(text)
            length += len(text)
            chapters += 1
    meta: dict[str, Any] = {}
    for key in ("title", "creator", "language", "publisher", "date", "identifier"):
        values = [" ".join((el.text or "").split()) for el in _children(opf, key)]
        values = [v for v in values if v]
        if values:
            meta["author" if key == "creator" else key] = (
                values[0] if len(values) == 1 or key != "creator" else values)
    meta["chapters"] = chapters
    return "".join(parts), meta.pop("title", None), sections, meta, roles


def _chapter_spans(chapter: str, spans: list[SectionSpan], at: int,
                   length: int) -> list[SectionSpan]:
    """The chapter's own spans, shifted to ``at`` and nested below its name; the text
    before its first heading (or all of it, without headings) is the chapter itself."""
    out: list[SectionSpan] = []
    first = spans[0][0] if spans else length
    if first > 0:
        out.append((at, at + first, chapter))
    for start, end, name in spans:
        path = name if name == chapter or name.startswith(chapter + " > ") \
            else f"{chapter} > {name}"
        out.append((at + start, at + end, path))
    return out


class EpubLoader:
    """``.epub`` books."""

    name = "epub"
    version = "2"  # 2: role spans
    extensions: tuple[str, ...] = (".epub",)
    content_types: tuple[str, ...] = ("application/epub+zip",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        text, title, sections, meta, roles = read_epub(path, data)
        if not text.strip():
            raise IngestError(f"{path}: the book has no readable text",
                              code="empty_document", details={"path": str(path)})
        return LoadedDocument(
            text=text,
            content_type="application/epub+zip",
            title=title or path.stem,
            metadata={**file_metadata(path, data, ""), **meta},
            sections=sections,
            roles=roles,
        )
