"""Keeping a knowledge base's indexes in step with its store: sync, replay, rebuild, check.

The :class:`~citewise.knowledge.base.KnowledgeBase` part that ingest and delete call after
every write, and operators call after a crash or a lost index folder. Apart from the
facade because it is one concern — the outbox protocol of :mod:`.ingest.outbox` seen from
the facade, with the writer lock that tells a crash's leftovers from an ingest in progress.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError
from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.index.sentences import sentence_encoder
from citewise.knowledge.ingest.embed_worker import BackgroundWorkers, DrainStats, EmbedWorker
from citewise.knowledge.ingest.outbox import (
    Consistency,
    check_consistency,
    queue_embedding,
    queue_unembedded,
    rebuild_index,
    sync_index,
)
from citewise.store.schema import utcnow
from citewise.store.work import QueueCounts

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import LexicalSearch, VectorSearch
    from citewise.knowledge.ingest.writer_lock import WriteLock
    from citewise.store.base import Store

__all__ = ["EmbeddingStatus", "IndexUpkeep"]

Progress = Callable[[int, int], None]
_BACKLOG_S = 5.0  # how long a search's "not embedded yet" count may be reused


@dataclass(frozen=True, slots=True)
class EmbeddingStatus:
    """How much of a tenant's knowledge base dense search covers now: ``embedded`` of
    ``chunks`` have a searchable vector; ``queue`` is the embedding work left
    (``dense`` False: dense retrieval is off, nothing is ever embedded)."""

    chunks: int
    embedded: int
    queue: QueueCounts
    dense: bool = True

    @property
    def not_embedded(self) -> int:
        return max(0, self.chunks - self.embedded) if self.dense else 0


class IndexUpkeep:
    """Index maintenance over ``store``, ``index`` and ``dense`` (set by the subclass)."""

    store: Store
    tenant: str
    background_embedding: bool
    _workers: list[BackgroundWorkers]
    index: LexicalSearch
    dense: VectorSearch | None
    writer_lock: WriteLock | None
    _lock: threading.Lock
    #: The last backlog counted: (queue state, not embedded, chunks, when; monotonic s).
    _backlog: tuple[tuple[tuple[int, int], int], int, int, float] | None = None

    def sync_index(self, *, progress: Progress | None = None) -> int:
        """Apply pending index work (normally automatic) and embed what is queued;
        returns documents synced. ``progress(done, total)`` counts the chunks embedded.
        """
        with self._writing(), self._lock:
            synced = sync_index(
                self.store, self._derived_index(),
                on_documents=queue_embedding(self.store, self.dense),
            )
        self.embed_pending(progress=progress)
        return synced

    def _sync_documents(self, document_ids: Sequence[str]) -> int:
        """Apply the index work of what this call wrote, and only that (another writer's
        ingest in progress is its own): lexically searchable when this returns, the
        embedding queued (:meth:`embed_pending` does it)."""
        if not document_ids:
            return 0
        with self._lock:
            return sync_index(
                self.store, self._derived_index(),
                on_documents=queue_embedding(self.store, self.dense),
                document_ids=document_ids,
            )

    def embed_pending(
        self,
        document_ids: Sequence[str] | None = None,
        *,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
        on_document: Callable[[str], None] | None = None,
    ) -> DrainStats:
        """Embed queued chunks in this process until none (of ``document_ids``, or at all)
        is pending — sharing the queue with any other worker; see
        :mod:`citewise.knowledge.ingest.embed_worker`. ``progress(done, total)`` counts
        chunks. Interrupted (Ctrl-C), it keeps every batch already committed."""
        if self.dense is None:
            return DrainStats()
        with self.embed_worker() as worker:
            return worker.drain(document_ids, progress=progress, stop=stop,
                                on_document=on_document)

    def embedding_only(self) -> None:
        """This process embeds and does not search (``citewise worker``, the embedding
        phase of ``citewise ingest``): what it embeds is stored, not also held in its
        in-memory vector index — bounded memory whatever the corpus size."""
        if self.dense is not None and hasattr(self.dense, "follow_writes"):
            self.dense.follow_writes = False

    def embed_worker(self) -> EmbedWorker:
        """A worker on this knowledge base's queue (close it, or use it in ``with``)."""
        if self.dense is None:
            raise ConfigError("dense retrieval is off: there is nothing to embed",
                              code="dense_disabled")
        return EmbedWorker(self.store, self.dense, local=self._derived_index() is not None,
                           sentences=sentence_encoder())

    def start_workers(self, count: int = 1) -> BackgroundWorkers | None:
        """Embed in background threads from now on (``count`` workers; None when dense
        retrieval is off); ingests then return without waiting. Stop them before closing."""
        if self.dense is None or count < 1:
            return None
        self.background_embedding = True
        workers = BackgroundWorkers(self.store, self.dense, count=count,
                                    local=self._derived_index() is not None,
                                    sentences=sentence_encoder())
        self._workers.append(workers)  # stopped by close() at the latest
        return workers

    def _stop_workers(self) -> None:
        while self._workers:
            self._workers.pop().stop()

    def status(self, *, all_tenants: bool = False) -> list[dict[str, Any]]:
        """Per tenant (this one, or every one with documents or jobs): documents, chunks,
        chunks embedded / not yet, the embedding queue, and the chunks whose sentences are
        embedded (:mod:`.index.sentences`) — what ``citewise status`` and
        ``GET /v1/status`` show."""
        totals = self.store.tenant_totals(None if all_tenants else self.tenant)
        queues = self.store.queue_counts(now=utcnow())
        encoder = sentence_encoder() if self.dense is not None else None
        sentences = (self.store.sentence_vector_counts(encoder.model)
                     if encoder is not None else None)
        tenants = sorted(set(totals) | set(queues)) if all_tenants else [self.tenant]
        rows: list[dict[str, Any]] = []
        for tenant in tenants:
            docs, chunks = totals.get(tenant, (0, 0))
            queue = queues.get(tenant, QueueCounts())
            embedded = chunks if self.dense is None else min(chunks, self.dense.count(tenant))
            rows.append({
                "tenant": tenant, "documents": docs, "chunks": chunks,
                "dense": self.dense is not None, "embedded": embedded,
                "not_embedded": chunks - embedded, "pending_jobs": queue.pending,
                "running_jobs": queue.running, "pending_chunks": queue.pending_chunks,
                "failed_jobs": queue.failed,
                # Chunks whose sentences are embedded for the answers (None: not computed).
                "sentences": None if sentences is None else sentences.get(tenant, 0),
            })
        return rows

    def embedding_backlog(self) -> tuple[int, int] | None:
        """``(not embedded, chunks)`` of this tenant while its embedding is under way, else
        None — cheap when the queue is empty (one count of the jobs table): a search calls
        it to say that dense retrieval covered only part of the knowledge base."""
        if self.dense is None:
            return None
        pending = self.store.pending_embed_jobs()
        if not pending[0]:
            return None
        # Jobs left for sentence vectors alone (a base made before them, opened by a
        # process that does not embed) leave the queue as it is: count once per state of
        # the queue and at most every few seconds, not on every search (the note it feeds
        # is a hint; a deletion that moves no job shows within _BACKLOG_S).
        key = (pending, self.dense.count(self.tenant))
        now = time.monotonic()
        seen = self._backlog
        if seen is None or seen[0] != key or now - seen[3] > _BACKLOG_S:
            status = self.embedding_status()
            seen = self._backlog = (key, status.not_embedded, status.chunks, now)
        return (seen[1], seen[2]) if seen[1] else None

    def embedding_status(self) -> EmbeddingStatus:
        """This tenant's chunks, how many are searchable by vector, and the queue."""
        chunks = self.store.count_chunks(self.tenant)
        embedded = chunks if self.dense is None else min(chunks, self.dense.count(self.tenant))
        counts = self.store.queue_counts(now=utcnow()).get(self.tenant, QueueCounts())
        return EmbeddingStatus(chunks=chunks, embedded=embedded, queue=counts,
                               dense=self.dense is not None)

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

    def queue_missing_vectors(self) -> int:
        """Queue the embedding of every chunk that has no vector, or no sentence vectors,
        and no job (:func:`~citewise.knowledge.ingest.outbox.queue_unembedded`); returns
        the jobs queued. Never embeds: that is the workers'."""
        return queue_unembedded(self.store, self.dense)

    def _writing(self) -> AbstractContextManager[object]:
        """Hold the writer lock (other processes' opens then leave the outbox to us)."""
        return self.writer_lock.held() if self.writer_lock is not None else nullcontext()

    def _derived_index(self) -> LexicalIndex | None:
        """The lexical index the outbox keeps in step (None: the store indexes itself)."""
        return self.index if isinstance(self.index, LexicalIndex) else None

    def rebuild_index(self) -> int:
        """Rebuild the search index from SQLite and bring the vectors in step with the
        chunks: vectors of gone chunks are dropped, chunks without one (or without sentence
        vectors) are *queued* for the workers (:meth:`embed_pending`), never embedded
        here — a rebuild of a large knowledge base is searchable in seconds. Returns
        documents indexed."""
        with self._writing(), self._lock:
            derived = self._derived_index()
            synced = rebuild_index(self.store, derived)
            if derived is not None:
                derived.mark_current()
        self.queue_missing_vectors()
        return synced

    def check_consistency(self) -> Consistency:
        """Chunk ids in SQLite vs in the indexes (all tenants); ``.ok`` when they agree."""
        return check_consistency(self.store, self.index, self.dense)
