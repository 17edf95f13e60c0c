"""The store contract: what the agent, the service and the CLI need from persistence.

Two backends implement it over the same SQLAlchemy Core tables: SQLite (embedded default,
one writer, WAL) and PostgreSQL (scale-out). Every record is tenant-scoped; a method given
another tenant's id behaves exactly as if the id did not exist. Methods are synchronous
(SQLAlchemy Core); async callers hop to a thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

__all__ = [
    "ChunkRecord",
    "DocumentRecord",
    "EventRecord",
    "FeedbackRecord",
    "RunRecord",
    "Store",
    "ThreadRecord",
    "TurnRecord",
]

RunStatus = Literal["running", "paused", "completed", "failed", "cancelled"]


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
    state: dict[str, Any]  # RunState as JSON: a paused run resumes from it
    answer: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True)
class EventRecord:
    run_id: str
    seq: int
    kind: str
    data: dict[str, Any]  # the event as JSON


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


class Store(Protocol):
    """Persistence seam. Implementations: ``SQLiteStore``, ``PostgresStore``."""

    # -- documents & chunks -------------------------------------------------------------
    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None: ...
    def find_document_by_source(self, tenant: str, source: str) -> DocumentRecord | None: ...
    def list_documents(
        self, tenant: str, *, collection: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[DocumentRecord]: ...
    def get_chunks(self, chunk_ids: Sequence[int]) -> list[ChunkRecord]: ...

    # -- threads, turns, runs -----------------------------------------------------------
    def create_thread(self, tenant: str, thread_id: str, title: str | None = None) -> ThreadRecord: ...
    def get_thread(self, tenant: str, thread_id: str) -> ThreadRecord | None: ...
    def list_threads(self, tenant: str, *, limit: int = 100, offset: int = 0) -> list[ThreadRecord]: ...
    def delete_thread(self, tenant: str, thread_id: str) -> bool: ...
    def list_turns(self, tenant: str, thread_id: str) -> list[TurnRecord]: ...
    def add_turn(self, tenant: str, turn: TurnRecord) -> None: ...

    def save_run(self, run: RunRecord) -> None: ...
    def get_run(self, tenant: str, run_id: str) -> RunRecord | None: ...
    def list_runs(self, tenant: str, *, thread_id: str | None = None, limit: int = 100) -> list[RunRecord]: ...
    def transition_run(
        self, tenant: str, run_id: str, from_status: Iterable[RunStatus], to_status: RunStatus
    ) -> bool:
        """Atomically move a run between statuses; False if it was not in ``from_status``.
        (This is how a double resume is refused across processes.)"""
        ...

    # -- the durable event log ----------------------------------------------------------
    def append_events(self, tenant: str, events: Sequence[EventRecord]) -> None: ...
    def read_events(self, tenant: str, run_id: str, *, after: int = 0, limit: int = 1000) -> list[EventRecord]: ...

    # -- feedback ------------------------------------------------------------------------
    def add_feedback(self, record: FeedbackRecord) -> int: ...
    def list_feedback(self, tenant: str, *, run_id: str | None = None) -> list[FeedbackRecord]: ...

    # -- small settings (per-install secret, …) --------------------------------------------
    def get_setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...

    def close(self) -> None: ...
