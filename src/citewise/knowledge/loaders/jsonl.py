r"""JSON / JSON Lines exports: records with a text field, every other field as metadata.

A file holds records: one JSON object per line (``.jsonl``, ``.ndjson``), or a ``.json``
file with an array of objects, an object with such an array under ``records``, ``data``,
``items``, ``documents`` or ``results``, or a single object.

The text field is the first of ``text_fields`` a record has as a non-empty string
(default: ``text``, ``content``, ``body``, ``page_content``, ``passage``, ``document``,
``description``); records without one are skipped and counted.

:meth:`JsonLoader.load` (the ``Loader`` contract: one document per file) stores the
records' texts joined by a blank line, one section span per record (named by its
title/id), and ``metadata["records"]`` listing each record's span and other fields.
:meth:`JsonLoader.split` gives one ``LoadedDocument`` per record instead, for an ingest
that wants per-record documents (per-record metadata filters, per-record deletion).

JSON Lines are split at ``\n`` only (a ``\r`` before it is JSON whitespace): JSON strings
may hold U+2028, U+2029 and U+0085 unescaped, which ``str.splitlines`` would cut at. An
escaped lone surrogate (``"\ud83d"``, typically an emoji cut in half by a truncating
export) decodes to a code point no UTF-8 text can hold; each becomes U+FFFD, the Unicode
replacement character, so one damaged character neither fails a whole export nor breaks
the store, and every text keeps its length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citewise.errors import IngestError
from citewise.knowledge.loaders._decode import decode_text, file_metadata
from citewise.knowledge.loaders.base import LoadedDocument, SectionSpan

__all__ = ["JsonLoader"]

DEFAULT_TEXT_FIELDS = (
    "text", "content", "body", "page_content", "passage", "document", "description",
)
DEFAULT_TITLE_FIELDS = ("title", "name", "headline", "subject")
DEFAULT_ID_FIELDS = ("id", "_id", "uuid", "key", "url")
_LIST_KEYS = ("records", "data", "items", "documents", "results")
_SEP = "\n\n"
# A JSON escape of a UTF-16 surrogate: the only way valid text can decode to one.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings and keys replaced by U+FFFD
    (``json`` has already joined escaped pairs into their one character)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


class JsonLoader:
    """``.jsonl`` / ``.ndjson`` / ``.json`` record files."""

    name = "jsonl"
    extensions: tuple[str, ...] = (".jsonl", ".ndjson", ".json")
    content_types: tuple[str, ...] = (
        "application/jsonl", "application/x-ndjson", "application/json",
    )

    def __init__(
        self,
        text_fields: tuple[str, ...] = DEFAULT_TEXT_FIELDS,
        title_fields: tuple[str, ...] = DEFAULT_TITLE_FIELDS,
        id_fields: tuple[str, ...] = DEFAULT_ID_FIELDS,
    ) -> None:
        self.text_fields = text_fields
        self.title_fields = title_fields
        self.id_fields = id_fields

    # -- parsing ----------------------------------------------------------------------------

    def _records(self, path: Path, data: bytes) -> Iterator[tuple[int, Any]]:
        """``(one-based line or index, value)`` of every record in the file."""
        text, _ = decode_text(path, data)
        if _ESCAPED_SURROGATE.search(text):  # rare: only then walk the decoded values
            for where, value in self._parse(path, text):
                yield where, _replace_surrogates(value)
        else:
            yield from self._parse(path, text)

    def _parse(self, path: Path, text: str) -> Iterator[tuple[int, Any]]:
        """What :meth:`_records` yields, before any surrogate is replaced."""
        if path.suffix.lower() == ".json" or text.lstrip()[:1] == "[":
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise self._corrupt(path, exc, exc.lineno) from exc
            if isinstance(value, dict):
                inner = next((value[k] for k in _LIST_KEYS if isinstance(value.get(k), list)), None)
                value = inner if inner is not None else [value]
            if not isinstance(value, list):
                raise IngestError(
                    f"{path}: expected JSON objects, found {type(value).__name__}",
                    code="unsupported_structure",
                    details={"path": str(path)},
                )
            yield from enumerate(value, start=1)
            return
        for lineno, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise self._corrupt(path, exc, lineno) from exc

    @staticmethod
    def _corrupt(path: Path, exc: Exception, line: int) -> IngestError:
        return IngestError(
            f"{path}: invalid JSON at line {line} ({exc})",
            code="corrupt_file",
            details={"path": str(path), "line": line, "format": "json"},
        )

    def _pick(self, record: dict[str, Any], fields: tuple[str, ...]) -> tuple[str, Any] | None:
        for name in fields:
            value = record.get(name)
            if isinstance(value, str) and value.strip():
                return name, value
            if name in self.id_fields and isinstance(value, int) and not isinstance(value, bool):
                return name, value
        return None

    def _parsed(
        self, path: Path, data: bytes
    ) -> tuple[list[tuple[str, str | None, dict[str, Any]]], int]:
        """``([(text, label, metadata)], skipped)``."""
        out: list[tuple[str, str | None, dict[str, Any]]] = []
        skipped = 0
        for where, record in self._records(path, data):
            if not isinstance(record, dict):
                skipped += 1
                continue
            found = self._pick(record, self.text_fields)
            if found is None:
                skipped += 1
                continue
            text_field, text = found
            meta = {k: v for k, v in record.items() if k != text_field}
            meta["record"] = where
            title = self._pick(record, self.title_fields)
            ident = self._pick(record, self.id_fields)
            label = str(title[1]) if title else (f"{ident[0]}={ident[1]}" if ident else None)
            out.append((text.strip(), label, meta))
        if not out:
            raise IngestError(
                f"{path}: no record has a text field ({', '.join(self.text_fields)})",
                code="empty_document",
                details={"path": str(path), "skipped": skipped},
            )
        return out, skipped

    # -- the Loader contract ------------------------------------------------------------------

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        records, skipped = self._parsed(path, data)
        parts: list[str] = []
        sections: list[SectionSpan] = []
        index: list[dict[str, Any]] = []
        pos = 0
        for n, (text, label, meta) in enumerate(records, start=1):
            if parts:
                parts.append(_SEP)
                pos += len(_SEP)
            parts.append(text)
            sections.append((pos, pos + len(text), label or f"record {meta['record']}"))
            index.append({"start_char": pos, "end_char": pos + len(text), "n": n, **meta})
            pos += len(text)
        content_type = self._content_type(path)
        return LoadedDocument(
            text="".join(parts),
            content_type=content_type,
            title=path.stem,
            metadata={
                **file_metadata(path, data, ""),
                "record_count": len(records),
                "skipped_records": skipped,
                "records": index,
            },
            sections=sections,
        )

    def split(self, path: Path, data: bytes) -> list[LoadedDocument]:
        """One document per record: its text, its label as title, its other fields as
        metadata (plus ``path`` and ``record``, the one-based line or array index)."""
        records, _ = self._parsed(path, data)
        content_type = self._content_type(path)
        return [
            LoadedDocument(
                text=text,
                content_type=content_type,
                title=label,
                metadata={"path": str(path), "filename": path.name, **meta},
            )
            for text, label, meta in records
        ]

    @staticmethod
    def _content_type(path: Path) -> str:
        return "application/json" if path.suffix.lower() == ".json" else "application/jsonl"
