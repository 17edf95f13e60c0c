"""A file's bytes as text, and the metadata every file-based loader records.

Apart from :mod:`.text` because every loader decodes, and the plain-text loader hands a
file written in reStructuredText to :mod:`.rst`, which decodes too: one module each way
would import the other. Decoded as is — no newline or whitespace rewriting, so offsets
index the file. UTF-8 (a leading byte-order mark is dropped), UTF-16/32 with a BOM, else the legacy encoding
that reads most plausibly among charset-normalizer's candidates and Windows-1252
(``_charsets``), else, without charset-normalizer, Windows-1252 / Latin-1.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._charsets import pick
from citewise.knowledge.loaders.base import LoadedDocument, RoleSpan, SectionSpan

__all__ = ["decode_markup", "decode_text", "file_metadata", "first_line_title", "rendered"]

#: A markup's renderer: its source to ``(text, title, sections, roles)``.
Renderer = Callable[[str], tuple[str, "str | None", list[SectionSpan], list[RoleSpan]]]

_BOMS = (  # UTF-32 before UTF-16: the UTF-32-LE BOM starts with the UTF-16-LE one.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Control characters (category Cc: U+0000-U+001F, U+007F-U+009F) other than the ones real
# text files contain (\t \n \v \f \r, ESC): beyond a trace, we are looking at a binary
# file that happened to decode.
_BAD_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_MAX_CONTROL_RATIO = 0.01


def _binary(path: Path, why: str) -> IngestError:
    return IngestError(
        f"{path}: not a text file ({why})", code="binary_file", details={"path": str(path)}
    )


def decode_text(path: Path, data: bytes) -> tuple[str, str]:
    """``(text, encoding)``; raises ``IngestError`` ``binary_file`` / ``empty_document``."""
    if not data.strip():
        raise IngestError(f"{path}: empty document", code="empty_document",
                          details={"path": str(path)})
    text: str | None = None
    encoding = ""
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                text, encoding = data[len(bom):].decode(name), name
            except UnicodeDecodeError:
                raise _binary(path, f"invalid {name}") from None
            break
    if text is None:
        if b"\x00" in data:
            raise _binary(path, "NUL bytes")
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = _detect(path, data)
    if len(_BAD_CONTROLS.findall(text)) > _MAX_CONTROL_RATIO * len(text):
        raise _binary(path, "control characters")
    if not text.strip():
        raise IngestError(f"{path}: empty document", code="empty_document",
                          details={"path": str(path)})
    return text, encoding


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def decode_markup(path: Path, data: bytes) -> tuple[str, str]:
    """An HTML or XML page's text: in the charset its ``<meta>`` declares (unless a
    byte-order mark says otherwise), else as :func:`decode_text` detects it (a wrong
    declaration is common)."""
    m = _META_CHARSET.search(data[:4096])
    if m and not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        declared = m.group(1).decode("ascii", "replace").lower()
        try:
            return data.decode(declared), declared
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_text(path, data)


def _detect(path: Path, data: bytes) -> tuple[str, str]:
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # optional: fall back to the usual Western encodings
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            return data.decode("latin-1"), "latin-1"
    matches = list(from_bytes(data))
    if not matches:
        raise _binary(path, "no text encoding fits")
    return pick(data, [(m.encoding, str(m)) for m in matches])


def file_metadata(path: Path, data: bytes, encoding: str) -> dict[str, Any]:
    """Metadata every file-based loader records."""
    meta: dict[str, Any] = {"path": str(path), "filename": path.name, "size_bytes": len(data)}
    if encoding:
        meta["encoding"] = encoding
    try:
        mtime = path.stat().st_mtime
    except OSError:
        pass
    else:
        meta["modified"] = datetime.fromtimestamp(mtime, UTC).isoformat()
    return meta


def first_line_title(text: str, fallback: str, max_len: int = 120) -> str:
    """The first line with a letter or digit when it is short enough to be a title, else
    ``fallback``: a heading's over- or underline ("=====", "{{{") is no title, nor a
    script's "#!/bin/bash" or a label ("#  File:", over the file's name on the next line:
    eight of Debian's nginx notes were titled "#  File:", new-user review 2026-12-06)."""
    for line in text.splitlines():
        line = line.strip()
        if any(c.isalnum() for c in line):
            if len(line) > max_len or line.startswith("#!") or line.endswith(":"):
                return fallback
            return line
    return fallback


def rendered(path: Path, data: bytes, source: str, encoding: str, render: Renderer | None, *,
             content_type: str, title: str) -> LoadedDocument:
    """``source`` (decoded from ``data``) rendered by its markup's ``render``, or — with
    ``render`` None, a file named like the markup that holds none of it (``notes.1``) —
    plain text as it is; ``title`` when the document names none. Text that renders to
    nothing is an ``empty_document``."""
    meta = file_metadata(path, data, encoding)
    if render is None:
        return LoadedDocument(text=source, content_type="text/plain", title=path.stem,
                              metadata=meta)
    text, named, sections, roles = render(source)
    if not text.strip():
        raise IngestError(f"{path}: no readable text in the document", code="empty_document",
                          details={"path": str(path)})
    return LoadedDocument(text=text, content_type=content_type, title=named or title,
                          metadata=meta, sections=sections, roles=roles)
