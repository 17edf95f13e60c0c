"""Metadata filters: parsed from a request (and from ``key:value`` terms in a question),
validated, and applied to documents.

Request keys (each optional)::

    collection     str | [str]        documents in any of these collections
    source         str | [str]        source path/URI; shell wildcards allowed ("*.pdf")
    document_id    str | [str]
    tags           str | [str]        any of these tags (metadata "tags" or "keywords")
    content_type   str | [str]        MIME type, or a short name: pdf, html, docx, markdown, text, json
    date_from      ISO date/datetime  document date >= this
    date_to        ISO date/datetime  document date < this
    date           [from, to]         the same as a pair

Inline terms in a question: ``collection:handbook``, ``source:"*.pdf"``, ``tag:billing``
(or ``#billing``), ``type:pdf``, ``after:2024-01-01``, ``before:2024-06-30``. They are
removed from the question before it is searched. Bad values raise ``InvalidInput`` with
code ``invalid_filter``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from citewise.errors import InvalidInput

__all__ = ["CONTENT_TYPES", "FILTER_KEYS", "Filters", "extract_inline_filters", "hashtags",
           "parse_filters"]

FILTER_KEYS = frozenset(
    {"collection", "source", "document_id", "tags", "content_type", "date_from", "date_to", "date"}
)
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "html": "text/html",
    "htm": "text/html",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "word": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "markdown": "text/markdown",
    "md": "text/markdown",
    "text": "text/plain",
    "txt": "text/plain",
    "json": "application/json",
    "jsonl": "application/jsonl",
}
# Metadata keys that date a document, most meaningful first: when the content was
# published beats when the file was last touched.
DATE_KEYS = ("published", "date", "document_modified", "created", "modified")
# Metadata keys that tag a document.
TAG_KEYS = ("tags", "keywords", "tag")
# A "#tag" starts a word (Perl's "$#array" and "$#{aref}" are an array's last index), and a
# C preprocessor directive ("#include", "#define") is code, not a tag.
_INLINE = re.compile(
    r"""(?<![\w#])(?:(collection|source|tag|tags|type|after|before):("[^"]*"|'[^']*'|\S+)"""
    r"""|(?<![^\s(\[,;])#(?!(?:include|define|undef|ifn?def|if|elif|else|endif|pragma|error"""
    r"""|warning|line|import)\b)([A-Za-z][\w-]{1,40})(?![\w-]|[:/.]\w))""",
    re.IGNORECASE,
)


def _bad(key: str, why: str) -> InvalidInput:
    return InvalidInput(f"filter {key!r}: {why}", code="invalid_filter", details={"filter": key})


def _strings(key: str, value: Any) -> tuple[str, ...]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list | tuple | set | frozenset) or not all(
        isinstance(v, str) and v.strip() for v in values
    ):
        raise _bad(key, "expected a non-empty string or a list of them")
    return tuple(dict.fromkeys(v.strip() for v in values))


def _when(key: str, value: Any) -> datetime:
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise _bad(key, f"not an ISO date: {value!r}") from None
    else:
        raise _bad(key, "expected an ISO date string")
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def _content_type(value: str) -> str:
    return CONTENT_TYPES.get(value.lower().lstrip("."), value.lower())


@dataclass(frozen=True, slots=True)
class Filters:
    """Validated filters; empty fields filter nothing. Datetimes are time-zone aware."""

    collections: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    document_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    content_types: tuple[str, ...] = ()
    date_from: datetime | None = None
    date_to: datetime | None = None

    def __bool__(self) -> bool:
        return bool(
            self.collections or self.sources or self.document_ids or self.tags
            or self.content_types or self.date_from or self.date_to
        )

    def merged(self, other: Filters) -> Filters:
        """Fields of ``other`` that are set win (request filters over inline ones)."""
        return replace(
            self,
            collections=other.collections or self.collections,
            sources=other.sources or self.sources,
            document_ids=other.document_ids or self.document_ids,
            tags=other.tags or self.tags,
            content_types=other.content_types or self.content_types,
            date_from=other.date_from or self.date_from,
            date_to=other.date_to or self.date_to,
        )

    def with_dates(self, start: datetime | None, end: datetime | None) -> Filters:
        """Narrow the date range (a resolved date expression); explicit bounds stay."""
        return replace(self, date_from=self.date_from or start, date_to=self.date_to or end)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for ``Query.filters`` (only the fields that are set)."""
        out: dict[str, Any] = {}
        for key, value in (
            ("collection", self.collections),
            ("source", self.sources),
            ("document_id", self.document_ids),
            ("tags", self.tags),
            ("content_type", self.content_types),
        ):
            if value:
                out[key] = list(value)
        if self.date_from:
            out["date_from"] = self.date_from.isoformat()
        if self.date_to:
            out["date_to"] = self.date_to.isoformat()
        return out

    def store_filters(self) -> dict[str, list[str]]:
        """The part ``KnowledgeBase.search(filters=…)`` evaluates itself (exact values)."""
        out: dict[str, list[str]] = {}
        if self.collections:
            out["collection"] = list(self.collections)
        if self.document_ids:
            out["document_id"] = list(self.document_ids)
        if self.sources and not any(_is_glob(s) for s in self.sources):
            out["source"] = list(self.sources)
        return out

    def metadata_keys(self) -> tuple[str, ...]:
        """The metadata keys :meth:`matches` reads (all a store needs to decode)."""
        return (TAG_KEYS if self.tags else ()) + (
            DATE_KEYS if self.date_from or self.date_to else ())

    def matches(self, document: Mapping[str, Any]) -> bool:
        """Does a document pass? ``document`` has ``collection``, ``source``, ``id``,
        ``content_type`` and ``metadata`` (the fields of a ``DocumentRecord``). Under a
        date filter a document with no date (see :func:`document_date`) does not pass."""
        if self.collections and document.get("collection") not in self.collections:
            return False
        if self.document_ids and document.get("id") not in self.document_ids:
            return False
        if self.sources:
            src = str(document.get("source") or "")
            if not any(fnmatch.fnmatchcase(src, s) or src == s for s in self.sources):
                return False
        if self.content_types:
            ctype = str(document.get("content_type") or "").lower()
            if ctype not in {_content_type(c) for c in self.content_types}:
                return False
        meta = document.get("metadata") or {}
        if self.tags:
            have = _tags(meta)
            if not have & {t.lower() for t in self.tags}:
                return False
        if self.date_from or self.date_to:
            when = document_date(meta)
            if when is None:
                return False
            if self.date_from and when < self.date_from:
                return False
            if self.date_to and when >= self.date_to:
                return False
        return True


def _is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def _tags(meta: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    for key in TAG_KEYS:
        value = meta.get(key)
        if isinstance(value, str):
            out.update(t.strip().lower() for t in re.split(r"[,;]", value) if t.strip())
        elif isinstance(value, list | tuple):
            out.update(str(t).strip().lower() for t in value if str(t).strip())
    return out


def document_date(meta: Mapping[str, Any]) -> datetime | None:
    """The document's date from its metadata (see ``DATE_KEYS``), time-zone aware."""
    for key in DATE_KEYS:
        value = meta.get(key)
        if value:
            try:
                return _when(key, value)
            except InvalidInput:
                continue
    return None


def parse_filters(request: Mapping[str, Any] | None) -> Filters:
    """Validate request filters (see the module docstring). Unknown keys are an error."""
    if not request:
        return Filters()
    unknown = set(request) - FILTER_KEYS
    if unknown:
        raise InvalidInput(
            f"unknown filter(s): {', '.join(sorted(unknown))}",
            code="invalid_filter",
            details={"unknown": sorted(unknown), "allowed": sorted(FILTER_KEYS)},
        )
    date_from = _when("date_from", request["date_from"]) if request.get("date_from") else None
    date_to = _when("date_to", request["date_to"]) if request.get("date_to") else None
    if request.get("date") is not None:
        pair = request["date"]
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise _bad("date", "expected [from, to]")
        date_from = _when("date", pair[0]) if pair[0] else date_from
        date_to = _when("date", pair[1]) if pair[1] else date_to
    if date_from and date_to and date_to <= date_from:
        raise _bad("date", "the range ends before it starts")

    def opt(key: str) -> tuple[str, ...]:
        return _strings(key, request[key]) if request.get(key) is not None else ()

    return Filters(
        collections=opt("collection"),
        sources=opt("source"),
        document_ids=opt("document_id"),
        tags=opt("tags"),
        content_types=tuple(_content_type(c) for c in opt("content_type")),
        date_from=date_from,
        date_to=date_to,
    )


def extract_inline_filters(question: str) -> tuple[str, Filters]:
    """``(question without the filter terms, their filters)``. An ``after:``/``before:``
    whose value is not a date is left in the question as ordinary text."""
    found: dict[str, list[str]] = {}

    def take(m: re.Match[str]) -> str:
        if m.group(3):
            found.setdefault("tags", []).append(m.group(3))
            return " "
        key = _INLINE_KEYS.get(m.group(1).lower(), m.group(1).lower())
        value = m.group(2).strip("'\"")
        if not value:
            return m.group(0)
        if key in ("date_from", "date_to"):
            try:
                _when(key, value)
            except InvalidInput:
                return m.group(0)
        found.setdefault(key, []).append(value)
        return " "

    rest = _INLINE.sub(take, question)
    request: dict[str, Any] = {
        key: values[-1] if key in ("date_from", "date_to") else values
        for key, values in found.items()
    }
    return " ".join(rest.split()), parse_filters(request)


def hashtags(text: str) -> tuple[str, ...]:
    """The tags ``text`` writes as ``#tag`` (not as ``tag:x``), as :func:`extract_inline_filters`
    reads them: what a search may also take for words of the question."""
    return tuple(m.group(3) for m in _INLINE.finditer(text) if m.group(3))


_INLINE_KEYS = {"tag": "tags", "type": "content_type", "after": "date_from", "before": "date_to"}
