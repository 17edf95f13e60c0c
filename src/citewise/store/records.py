"""The records the store contract speaks in: documents, chunks, threads, turns, runs,
events, feedback, index operations and API keys, as plain dataclasses.

They are apart from :mod:`citewise.store.base` (the ``Store`` protocol) so that a module
reading or building records needs no part of the persistence contract, and both stay
small; ``citewise.store.base`` re-exports every name here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

__all__ = [
    "ApiKeyRecord",
    "ChunkContext",
    "ChunkRecord",
    "DocumentRecord",
    "EventRecord",
    "FeedbackRecord",
    "IndexOp",
    "IndexRow",
    "JSONText",
    "RunRecord",
    "RunStatus",
    "ThreadRecord",
    "TurnRecord",
    "decode_roles",
    "decoded",
    "encode_roles",
    "index_row",
    "indexed_text",
    "stored_indexed_text",
]

RunStatus = Literal["running", "paused", "completed", "failed", "cancelled"]


class JSONText(str):
    """A value already encoded as JSON (e.g. by pydantic's ``model_dump_json``).

    A record's JSON field may hold one instead of a dict: the store writes the text as it
    is rather than encoding the value again. What a store reads back is always the
    decoded value (a dict).
    """

    __slots__ = ()


def decoded(value: dict[str, Any] | JSONText) -> dict[str, Any]:
    """A record's JSON field as a dict (what a store returns already is one)."""
    if isinstance(value, JSONText):
        out: dict[str, Any] = json.loads(value)
        return out
    return value


@dataclass(slots=True)
class DocumentRecord:
    id: str
    tenant: str
    collection: str
    source: str
    title: str | None
    content_type: str
    content_hash: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(slots=True)
class ChunkRecord:
    id: int  # 53-bit content hash, JSON-safe
    document_id: str
    ordinal: int
    start_char: int
    end_char: int
    text: str
    page: int | None = None
    section: str | None = None
    line: int | None = None
    # (start, end, role) relative to ``text``: the loader's headings, code, tables… inside
    # the chunk (``citewise.knowledge.loaders.base.ROLES``); empty when its format has none.
    roles: tuple[tuple[int, int, str], ...] = ()


def encode_roles(roles: Sequence[tuple[int, int, str]]) -> str | None:
    """``chunks.roles`` as stored: compact JSON, NULL when there are none."""
    if not roles:
        return None
    return json.dumps([list(r) for r in roles], separators=(",", ":"), ensure_ascii=False)


def decode_roles(raw: str | None) -> tuple[tuple[int, int, str], ...]:
    """``chunks.roles`` back; anything malformed reads as no roles (they only rank)."""
    if not raw:
        return ()
    try:
        value = json.loads(raw)
        return tuple((int(a), int(b), str(r)) for a, b, r in value)
    except (ValueError, TypeError):
        return ()


def indexed_text(text: str, roles: Sequence[tuple[int, int, str]]) -> str:
    """A chunk's text as the lexical index and the embedder read it: every ``hidden`` span
    (a markdown file's HTML comments and link definitions, in the source but not on the
    page) blanked with spaces, so words only the source holds match no question. Length
    and offsets are unchanged; the stored text, which citations quote, is untouched."""
    hidden = [(a, b) for a, b, role in roles if role == "hidden" and 0 <= a < b <= len(text)]
    if not hidden:
        return text
    chars = list(text)
    for a, b in hidden:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def stored_indexed_text(text: str, roles: str | None) -> str:
    """:func:`indexed_text` of a chunk's stored columns (``roles`` as stored). The roles'
    JSON is decoded only when it names a hidden span: every chunk of an HTML page has
    roles, and this runs for each one the indexes read."""
    return indexed_text(text, decode_roles(roles)) if roles and '"hidden"' in roles else text


def index_row(chunk_id: int, document_id: str, tenant: str, collection: str, text: str,
              title: str | None, section: str | None, roles: str | None) -> IndexRow:
    """An :class:`IndexRow` from a chunk's stored columns (``roles`` as stored)."""
    return IndexRow(chunk_id, document_id, tenant, collection,
                    stored_indexed_text(text, roles), title, section)


@dataclass(slots=True)
class ThreadRecord:
    id: str
    tenant: str
    title: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True)
class TurnRecord:
    thread_id: str
    run_id: str
    question: str
    answer: str
    created_at: datetime


@dataclass(slots=True)
class RunRecord:
    id: str
    tenant: str
    thread_id: str
    question: str
    status: RunStatus
    state: dict[str, Any] | JSONText  # RunState as JSON: a paused run resumes from it
    answer: dict[str, Any] | JSONText | None
    created_at: datetime
    updated_at: datetime
    #: The fencing token of the attempt executing the run. Saved with one, the run is
    #: written only while that attempt still owns it (``run_not_owned`` otherwise): see
    #: :mod:`citewise.store._run_fence`.
    owner: str | None = None


@dataclass(slots=True)
class EventRecord:
    run_id: str
    seq: int
    kind: str
    data: dict[str, Any] | JSONText  # the event as JSON


@dataclass(slots=True)
class FeedbackRecord:
    id: int
    tenant: str
    run_id: str
    rating: int
    document_index: int | None
    snippet_index: int | None
    comment: str | None
    created_at: datetime


@dataclass(slots=True)
class ChunkContext:
    """A chunk plus what a search hit needs from its document (never the whole text)."""

    chunk: ChunkRecord
    tenant: str
    collection: str
    source: str
    title: str | None
    content_type: str
    text_length: int  # of the document text, in code points
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class IndexOp:
    """A pending change for the derived search index (a row of ``index_outbox``)."""

    id: int
    tenant: str
    document_id: str
    op: Literal["upsert", "delete"]


@dataclass(slots=True)
class IndexRow:
    """What the lexical index holds for one chunk: its text as the indexes read it
    (:func:`indexed_text`), and for the heading field its document's title and its
    section path."""

    chunk_id: int
    document_id: str
    tenant: str
    collection: str
    text: str
    title: str | None = None
    section: str | None = None


@dataclass(slots=True)
class ApiKeyRecord:
    """An API key: only its hash is stored."""

    id: str
    tenant: str
    name: str
    key_hash: str
    created_at: datetime
    revoked_at: datetime | None = None
