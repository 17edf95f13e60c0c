"""Keeping the derived search index in step with SQLite, crash after crash.

The protocol (one writer of the truth, one derived copy):

1. A document change writes the document, its chunks AND an ``index_outbox`` row in ONE
   SQLite transaction (``Store.replace_documents`` / ``Store.delete_document``).
2. :func:`sync_index` then reads the pending rows, and for each document named there
   deletes every index entry of that document (by its ``document_id`` term) and adds the
   chunks SQLite holds for it *now* — so replaying a row any number of times, in any
   order, converges on SQLite's state. One tantivy commit covers the whole batch.
3. Then ``on_documents(ops)`` runs (:func:`queue_embedding`: the vectors of chunks gone
   are dropped and the embedding of the documents' chunks is queued as leased jobs in the
   store — the vectors themselves come later, from :mod:`.embed_worker`; queueing is
   idempotent, so replaying it converges too).
4. Only after both are the outbox rows deleted.

A crash before (1) commits leaves nothing; between (1) and (4) leaves outbox rows, which
the next :func:`sync_index` (every open runs one) replays. So after any crash the chunk
ids in SQLite, in the lexical index and in the vectors end up equal.

``CITEWISE_FAULT=<point>`` makes the process die (``os._exit``) at that point: the crash
tests use it to stop between the phases above for real.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.index.sentences import queue_missing as queue_sentences
from citewise.store.base import IndexOp, Store
from citewise.store.schema import utcnow

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import LexicalSearch, VectorSearch

__all__ = [
    "FAULT_ENV",
    "Consistency",
    "OnDocuments",
    "check_consistency",
    "fault_point",
    "queue_embedding",
    "queue_unembedded",
    "rebuild_index",
    "sync_index",
]

FAULT_ENV = "CITEWISE_FAULT"
_DOCS_PER_READ = 256
_OPS_PER_COMMIT = 50_000

#: Called with a batch of outbox ops after the lexical commit, before they are completed.
OnDocuments = Callable[[Sequence[IndexOp]], object]


def fault_point(name: str) -> None:
    """Die here, without cleanup, when ``$CITEWISE_FAULT`` names this point (tests)."""
    if os.environ.get(FAULT_ENV) == name:
        os._exit(86)


def sync_index(
    store: Store,
    index: LexicalIndex | None,
    *,
    wait_s: float = 60.0,
    clear_first: bool = False,
    on_documents: OnDocuments | None = None,
    document_ids: Sequence[str] | None = None,
) -> int:
    """Apply every pending outbox row to the index; returns how many documents it synced.

    ``clear_first`` empties the index in the same commit (a rebuild). ``on_documents``
    (e.g. the dense index's sync) sees each batch of ops after the index commit and
    before the ops are completed: if it raises, they stay pending and are replayed.
    ``index`` None: the store indexes chunk text itself (PostgreSQL), only
    ``on_documents`` has work to do. ``document_ids``: only the work of these documents
    (what one write did: other writers' work in progress stays theirs).
    """
    synced = 0
    while True:
        ops = store.pending_index_ops(limit=_OPS_PER_COMMIT, document_ids=document_ids)
        if not ops and not clear_first:
            return synced
        document_ids = list(dict.fromkeys(op.document_id for op in ops))
        if index is not None:
            _apply(store, index, document_ids, clear_first=clear_first, wait_s=wait_s)
            clear_first = False
        if on_documents is not None and ops:
            on_documents(ops)
            fault_point("sync:after_documents")
        store.complete_index_ops([op.id for op in ops])
        synced += len(document_ids)
        if len(ops) < _OPS_PER_COMMIT:
            return synced


def _apply(
    store: Store, index: LexicalIndex, document_ids: Sequence[str], *, clear_first: bool,
    wait_s: float,
) -> None:
    """Re-index ``document_ids`` as the store holds them now, in one commit."""
    with index.writer(wait_s=wait_s) as batch:
        if clear_first:
            batch.delete_all()
        for i in range(0, len(document_ids), _DOCS_PER_READ):
            part = document_ids[i : i + _DOCS_PER_READ]
            for document_id in part:
                batch.delete_document(document_id)
            # Deletes apply to what was indexed before them, not to adds after them.
            batch.add(store.index_rows(part))
            fault_point("sync:adding")
        fault_point("sync:before_commit")
    fault_point("sync:after_commit")


def rebuild_index(store: Store, index: LexicalIndex | None) -> int:
    """Rebuild the index from SQLite (it was lost or is suspect); returns documents synced.

    Every document is queued in the outbox first, so a crash mid-rebuild resumes it.
    """
    store.queue_full_reindex()
    return sync_index(store, index, clear_first=True)


@dataclass(frozen=True, slots=True)
class Consistency:
    """Chunk ids only SQLite has, and ids only an index has (the lexical index; and the
    vectors — stored or in the in-memory vector index — when dense retrieval is on)."""

    missing_from_index: frozenset[int]
    orphaned_in_index: frozenset[int]
    missing_vectors: frozenset[int] = field(default_factory=frozenset)
    orphaned_vectors: frozenset[int] = field(default_factory=frozenset)

    @property
    def ok(self) -> bool:
        return not (
            self.missing_from_index
            or self.orphaned_in_index
            or self.missing_vectors
            or self.orphaned_vectors
        )


def check_consistency(
    store: Store, index: LexicalSearch, dense: VectorSearch | None = None
) -> Consistency:
    """Compare every chunk id in SQLite with every chunk id in the indexes (reads all)."""
    in_db = store.list_chunk_ids()
    in_index = index.all_chunk_ids()
    missing_vectors: set[int] = set()
    orphaned_vectors: set[int] = set()
    if dense is not None:
        stored, searched = dense.stored_ids(), dense.ids()
        missing_vectors = (in_db - stored) | (in_db - searched)
        orphaned_vectors = (stored | searched) - in_db
    return Consistency(
        frozenset(in_db - in_index),
        frozenset(in_index - in_db),
        frozenset(missing_vectors),
        frozenset(orphaned_vectors),
    )


def queue_embedding(
    store: Store, dense: VectorSearch | None
) -> Callable[[Sequence[IndexOp]], object] | None:
    """The ``on_documents`` hook of :func:`sync_index` that keeps ``dense`` in step: it
    drops the vectors of chunks the documents no longer have (cheap, no model) and queues
    the embedding of their chunks as leased jobs in the store
    (:mod:`citewise.knowledge.ingest.embed_worker` does them). Replaying it is harmless:
    a queued block is queued once (its version is bumped, so a run in progress re-checks
    the new chunks)."""
    if dense is None:
        return None

    def apply(ops: Sequence[IndexOp]) -> object:
        docs = list(dict.fromkeys(op.document_id for op in ops))
        dense.drop_stale(store, docs)
        return store.enqueue_embedding(docs, now=utcnow())

    return apply


def queue_unembedded(store: Store, dense: VectorSearch | None) -> int:
    """Queue the embedding jobs of chunks that have no vector or no sentence vectors (a
    crash between the outbox and the queue, dense search or sentence vectors switched on,
    a knowledge base made before them); returns the jobs queued. What every opener and a
    rebuild do, never embedding: an open (``citewise ask``) must not wait for the model."""
    if dense is None:
        return 0
    now = utcnow()
    return dense.queue_missing(store, now=now) + queue_sentences(store, now=now)
