"""Keeping a knowledge base's indexes in step with its store: sync, replay, rebuild, check.

The :class:`~citewise.knowledge.base.KnowledgeBase` part that ingest and delete call after
every write, and operators call after a crash or a lost index folder. Apart from the
facade because it is one concern — the outbox protocol of :mod:`.ingest.outbox` seen from
the facade, with the writer lock that tells a crash's leftovers from an ingest in progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.ingest.outbox import (
    Consistency,
    check_consistency,
    dense_sync,
    rebuild_index,
    sync_index,
)

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import LexicalSearch, VectorSearch
    from citewise.knowledge.ingest.writer_lock import WriteLock
    from citewise.store.base import Store

__all__ = ["IndexUpkeep"]

Progress = Callable[[int, int], None]


class IndexUpkeep:
    """Index maintenance over ``store``, ``index`` and ``dense`` (set by the subclass)."""

    store: Store
    index: LexicalSearch
    dense: VectorSearch | None
    writer_lock: WriteLock | None
    _lock: threading.Lock

    def sync_index(self, *, progress: Progress | None = None) -> int:
        """Apply pending index work (normally automatic); returns documents synced.

        ``progress(done, total)`` counts the chunks embedded for the dense index.
        """
        with self._writing(), self._lock:
            return sync_index(
                self.store, self._derived_index(),
                on_documents=dense_sync(self.store, self.dense, progress),
            )

    def _sync_documents(self, document_ids: Sequence[str], *,
                        progress: Progress | None = None) -> int:
        """Apply the index work of what this call wrote, and only that: another writer's
        ingest in progress (another process, another replica) is its own to embed."""
        if not document_ids:
            return 0
        with self._lock:
            return sync_index(
                self.store, self._derived_index(),
                on_documents=dense_sync(self.store, self.dense, progress),
                document_ids=document_ids,
            )

    def replay_leftovers(self) -> int:
        """Apply the index work of writers that died before finishing it (an ingest killed
        mid-way, a replica gone); returns documents synced. Only work pending while no
        writer holds the lock counts as theirs: an ingest in progress is left to its
        writer. The replay itself runs as an ordinary write, beside other writers. For
        long-running processes (the server runs it now and then); an open does the same."""
        lock = self.writer_lock
        if lock is None or not self.store.pending_index_ops(limit=1):
            return 0
        if not lock.try_acquire():
            return 0
        try:
            orphans = [op.document_id for op in self.store.pending_index_ops()]
        finally:
            lock.release()
        with self._writing():
            return self._sync_documents(orphans)

    def _writing(self) -> AbstractContextManager[object]:
        """Hold the writer lock (other processes' opens then leave the outbox to us)."""
        return self.writer_lock.held() if self.writer_lock is not None else nullcontext()

    def _derived_index(self) -> LexicalIndex | None:
        """The lexical index the outbox keeps in step (None: the store indexes itself)."""
        return self.index if isinstance(self.index, LexicalIndex) else None

    def rebuild_index(self) -> int:
        """Rebuild the search index from SQLite (and bring the vectors in step with the
        chunks); returns documents indexed."""
        with self._writing(), self._lock:
            derived = self._derived_index()
            synced = rebuild_index(self.store, derived)
            if derived is not None:
                derived.mark_current()
            if self.dense is not None:
                self.dense.reconcile(self.store)
            return synced

    def check_consistency(self) -> Consistency:
        """Chunk ids in SQLite vs in the indexes (all tenants); ``.ok`` when they agree."""
        return check_consistency(self.store, self.index, self.dense)
