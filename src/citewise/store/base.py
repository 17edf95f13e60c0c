"""The store contract: what the agent, the service and the CLI need from persistence.

Two backends implement it over the same SQLAlchemy Core tables: SQLite (embedded default,
one writer, WAL) and PostgreSQL (scale-out). Every record is tenant-scoped; a method given
another tenant's id behaves exactly as if the id did not exist. Methods are synchronous
(SQLAlchemy Core); async callers hop to a thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from citewise.errors import UsageError
from citewise.store.records import (
    ApiKeyRecord,
    ChunkContext,
    ChunkRecord,
    DocumentRecord,
    EventRecord,
    FeedbackRecord,
    IndexOp,
    IndexRow,
    JSONText,
    RunRecord,
    RunStatus,
    ThreadRecord,
    TurnRecord,
    decode_roles,
    decoded,
    encode_roles,
    index_row,
    indexed_text,
)
from citewise.store.sentence_vectors import SentenceVectorRecords
from citewise.store.work import WorkQueue

__all__ = [
    "LEASE_S",
    "NOT_OWNED",
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
    "Store",
    "ThreadRecord",
    "TurnRecord",
    "cancel_key",
    "check_tenant",
    "decode_roles",
    "decoded",
    "encode_roles",
    "index_row",
    "indexed_text",
    "run_extras_key",
    "run_setting_keys",
]

#: Settings keys under which a process asks another to cancel a run.
#: A running run not touched for this long has lost its process (the agent's lease,
#: :mod:`citewise.agent.lease`; the store counts a run live by it).
LEASE_S = 120.0
CANCEL_PREFIX = "cancel_request/"
#: The code of a run write refused because its attempt no longer owns the run (its lease
#: ran out and another process ended it; see :mod:`citewise.store._run_fence`).
NOT_OWNED = "run_not_owned"


#: The longest tenant name (every table's ``tenant`` column holds this many characters).
MAX_TENANT = 128


def check_tenant(tenant: str) -> str:
    """``tenant`` stripped, or ``InvalidInput`` (``invalid_tenant``): 1-128 characters, no
    U+0000 (a tenant is stored in every record, on every backend)."""
    from citewise.errors import InvalidInput

    name = tenant.strip() if isinstance(tenant, str) else ""
    if not name or len(name) > MAX_TENANT or "\x00" in name:
        raise InvalidInput(f"the tenant must be 1-{MAX_TENANT} characters",
                           code="invalid_tenant", details={"length": len(name)})
    return name


def not_owned(run_id: str, why: str) -> UsageError:
    """The error of a write refused by the run fence (part of the contract: every host
    that writes a run's events must stop the run when it gets it)."""
    return UsageError(f"run {run_id} is not this process's to write any more: {why}",
                      code=NOT_OWNED, details={"run_id": run_id})


def cancel_key(tenant: str, run_id: str) -> str:
    """The settings key of a request to cancel this run (``agent.interrupts.cancel_run``).
    A store deletes it when the run is saved or moved as ``cancelled``: answered."""
    return f"{CANCEL_PREFIX}{tenant}/{run_id}"


def run_extras_key(tenant: str, run_id: str) -> str:
    """The settings key of a run's seed-001 extras (persona, audio, image), kept for its
    resumption (``server.run_extras``)."""
    return f"run_extras:{tenant}:{run_id}"


def run_setting_keys(tenant: str, run_id: str) -> tuple[str, ...]:
    """Every settings key that belongs to one run: deleted with the run's thread, so
    deleting a thread leaves nothing of its runs behind."""
    return (cancel_key(tenant, run_id), run_extras_key(tenant, run_id))


class Store(WorkQueue, SentenceVectorRecords, Protocol):
    """Persistence seam. Implementations: ``SQLiteStore``, ``PostgresStore``."""

    # -- documents & chunks -------------------------------------------------------------
    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None: ...
    def find_document_by_source(self, tenant: str, source: str) -> DocumentRecord | None: ...
    def list_documents(
        self, tenant: str, *, collection: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[DocumentRecord]: ...
    def get_chunks(self, chunk_ids: Sequence[int]) -> list[ChunkRecord]: ...
    def get_document_versions(
        self, tenant: str, document_ids: Sequence[str]
    ) -> dict[str, tuple[str, str, dict[str, Any]]]:
        """``{id: (content_hash, collection, metadata)}`` of the known ids (no text loaded):
        what ingest needs to tell an unchanged file."""
        ...
    def get_document_chunks(self, tenant: str, document_id: str) -> list[ChunkRecord]: ...
    def get_chunk_contexts(self, tenant: str, chunk_ids: Sequence[int]) -> list[ChunkContext]:
        """Chunks of ``tenant`` with their document's metadata, in ``chunk_ids`` order;
        unknown ids are left out."""
        ...
    def replace_documents(
        self, items: Sequence[tuple[DocumentRecord, Sequence[ChunkRecord]]]
    ) -> None:
        """Insert or replace each document with exactly these chunks, and queue one index
        op per document — all in ONE transaction."""
        ...
    def delete_document(self, tenant: str, document_id: str) -> bool:
        """Delete a document and its chunks and queue the index op (one transaction)."""
        ...
    def documents_with_hashes(
        self, tenant: str, hashes: Sequence[str], *, collection: str
    ) -> list[tuple[str, str, str]]:
        """``(id, source, content_hash)`` of ``tenant``'s documents in ``collection`` whose
        content hash is one of ``hashes`` (no text read): a file moved since it was ingested
        (:mod:`citewise.knowledge.ingest.moves`)."""
        ...
    def sources_named(self, tenant: str, file_name: str, *, limit: int = 3) -> list[str]:
        """The first ``limit`` sources of ``tenant``'s documents whose last path part is
        ``file_name`` (sorted; no document read): what "no such source" can point to."""
        ...
    def chunk_document_ids(self, tenant: str, chunk_ids: Sequence[int]) -> dict[int, str]:
        """``{chunk_id: document_id}`` of the known chunks of ``tenant`` (nothing else read:
        what a filtered search needs to tell which document a candidate belongs to)."""
        ...
    def document_facets(
        self, tenant: str, document_ids: Sequence[str] | None, *,
        metadata_keys: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        """The known ``document_ids`` of ``tenant`` (None: all of them) as filters read
        them: ``id``, ``collection``, ``source``, ``content_type`` and ``metadata`` holding
        only ``metadata_keys`` (those present) — no text, and no other metadata decoded."""
        ...
    def count_chunks(self, tenant: str | None = None) -> int: ...
    def list_chunk_ids(self, tenant: str | None = None) -> set[int]: ...
    def list_document_chunk_ids(self, tenant: str, *, limit: int = 100
                                ) -> list[tuple[str, list[int]]]:
        """The first ``limit`` documents of ``tenant`` in ``list_documents`` order, each
        with its chunk ids in order — no text read (what a status listing needs)."""
        ...

    # -- the index outbox (the search index is derived from the rows above) ---------------
    def pending_index_ops(
        self, limit: int = 100_000, *, document_ids: Sequence[str] | None = None
    ) -> list[IndexOp]:
        """Outbox rows not yet applied, oldest first (only those of ``document_ids``)."""
        ...
    def index_rows(self, document_ids: Sequence[str]) -> list[IndexRow]:
        """The current chunks of these documents, as the search index stores them."""
        ...
    def complete_index_ops(self, op_ids: Sequence[int]) -> None: ...
    def queue_full_reindex(self) -> int:
        """Queue every document for re-indexing (after the index was lost); returns the count."""
        ...

    # -- threads, turns, runs -----------------------------------------------------------
    def create_thread(
        self, tenant: str, thread_id: str, title: str | None = None
    ) -> ThreadRecord: ...
    def get_thread(self, tenant: str, thread_id: str) -> ThreadRecord | None: ...
    def list_threads(
        self, tenant: str, *, limit: int = 100, offset: int = 0
    ) -> list[ThreadRecord]: ...
    def delete_thread(self, tenant: str, thread_id: str) -> bool: ...
    def rename_thread(self, tenant: str, thread_id: str, title: str) -> ThreadRecord | None: ...
    def list_turns(self, tenant: str, thread_id: str) -> list[TurnRecord]: ...
    def add_turn(self, tenant: str, turn: TurnRecord) -> None: ...

    def save_run(self, run: RunRecord) -> None: ...
    def get_run(self, tenant: str, run_id: str) -> RunRecord | None: ...
    def list_runs(
        self, tenant: str, *, thread_id: str | None = None, limit: int = 100
    ) -> list[RunRecord]: ...
    def transition_run(
        self, tenant: str, run_id: str, from_status: Iterable[RunStatus], to_status: RunStatus,
        *, untouched_since: datetime | None = None, drop_setting: str | None = None,
        owner: str | None = None, new_owner: str | None = None,
    ) -> bool:
        """Atomically move a run between statuses; False if it was not in ``from_status``
        (or, with ``untouched_since``, was updated since then; or, with ``owner``, is
        owned by another fencing token). This is how a double resume is refused across
        processes, and how a lost run is ended only if still lost. ``new_owner`` becomes
        the run's owner as it moves (a resume; a lease sweep taking a lost run over).
        ``drop_setting`` is deleted in the same transaction, only if the run moved (a
        resumed run's cancel request left from before its pause)."""
        ...
    def touch_runs(self, runs: Sequence[tuple[str, str]]) -> None:
        """Mark the ``(tenant, run_id)`` runs that are still ``running`` as driven now
        (their ``updated_at``): the lease a process keeps on the runs it executes."""
        ...
    def stale_runs(self, before: datetime, *, limit: int = 100) -> list[RunRecord]:
        """Runs of every tenant still ``running`` but not updated since ``before``, oldest
        first: their process is gone (maintenance; see :mod:`citewise.agent.lease`)."""
        ...

    # -- the durable event log ----------------------------------------------------------
    def append_events(self, tenant: str, events: Sequence[EventRecord], *,
                      owners: Mapping[str, str] | None = None) -> list[str]:
        """Append events; re-appending an existing ``(run_id, seq)`` is a no-op. Never after
        a run's final event: the events of a run that ended, or of a run ``owners`` names
        whose owner is another (or that is no longer running), are not written, and
        their run ids are returned (see :mod:`citewise.store._run_fence`)."""
        ...
    def read_events(
        self, tenant: str, run_id: str, *, after: int = 0, limit: int = 1000
    ) -> list[EventRecord]: ...

    # -- feedback ------------------------------------------------------------------------
    def add_feedback(self, record: FeedbackRecord) -> int: ...
    def list_feedback(self, tenant: str, *, run_id: str | None = None) -> list[FeedbackRecord]: ...

    # -- small settings (per-install secret, …) --------------------------------------------
    def get_setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...
    def add_setting(self, key: str, value: str) -> str:
        """Store ``value`` under ``key`` only if the key is absent, atomically; returns the
        stored value (this one, or the one a concurrent caller stored first)."""
        ...

    # -- API keys (only hashes are stored) ------------------------------------------------
    def create_api_key(self, record: ApiKeyRecord) -> None: ...
    def get_api_key_by_hash(self, key_hash: str) -> ApiKeyRecord | None: ...
    def list_api_keys(self, tenant: str) -> list[ApiKeyRecord]: ...
    def revoke_api_key(self, tenant: str, key_id: str) -> bool: ...
    def list_all_api_keys(self) -> list[ApiKeyRecord]:
        """Every tenant's keys (administration: ``citewise keys list``, server start-up)."""
        ...

    # -- transactions ----------------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[None]:
        """The write calls this thread makes inside the block share ONE transaction: all of
        them commit at its end, or none (an exception rolls every one back). For the run and
        event-log writes (a run's start, its finish, a writer's tick); document ingestion
        manages its own durability and is not to be called inside."""
        ...

    def close(self) -> None: ...
