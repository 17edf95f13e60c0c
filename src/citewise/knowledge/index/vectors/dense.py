"""``DenseIndex``: every chunk's embedding, kept in step with the store's chunks.

The vectors live in the knowledge base's SQLite file (``vec_*`` tables, see
:mod:`~citewise.knowledge.index.vectors.truth`: the truth) and in a vector index derived from
them (:mod:`~citewise.knowledge.index.vectors.index`: in memory, saved to ``index/vectors/``).

* :meth:`DenseIndex.sync_documents` applies the documents named by index-outbox ops. The
  lexical sync calls it after its tantivy commit and *before* the ops are completed, so a
  crash in between replays it; replaying is harmless (it diffs, it never appends blindly).
* :meth:`DenseIndex.reconcile` compares every chunk id (on open: after a crash, or when
  dense retrieval is switched on for a knowledge base that has none yet).

Both work in slices of :data:`SLICE` chunks — read, embed (texts whose vector is cached
by content hash are not embedded again), store, index — so a million-chunk sync never
holds more than one slice of texts and vectors in memory, and ``progress(done, total)``
counts chunks across the whole call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.knowledge.index.embedders.base import Embedder, QueryVectors, content_hash
from citewise.store.base import IndexOp, Store, indexed_text
from citewise.store.schema import vec_chunks

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from sqlalchemy import Engine

    from citewise.knowledge.index.vectors.index import Allow, HNSWParams, VectorIndex
    from citewise.knowledge.index.vectors.truth import VectorStore

__all__ = ["SLICE", "DenseIndex", "Progress", "SyncStats"]

Progress = Callable[[int, int], None]

#: Chunks read, embedded, stored and indexed per step of a sync.
SLICE = 4096
_EMBED_BATCH = 256  # texts per embedder call (and per progress tick)
_CHECKPOINT_EVERY = 50_000  # log entries replayed, at least, before the files are rewritten
_DOCS_PER_READ = 256
_REFRESH_S = 1.0  # how often a search looks for vectors another process stored


@dataclass(slots=True)
class SyncStats:
    """What a dense sync did: vectors added (embedded or taken from the cache) and removed."""

    added: int = 0
    embedded: int = 0
    cached: int = 0
    removed: int = 0


class DenseIndex:
    """Chunk embeddings of one knowledge base, for one embedder. Thread-safe."""

    def __init__(
        self,
        db: Engine | str | Path,
        directory: str | Path,
        embedder: Embedder,
        *,
        hnsw_threshold: int = 20_000,
        params: HNSWParams | None = None,
    ) -> None:
        from citewise.knowledge.index.vectors.replay import open_index
        from citewise.knowledge.index.vectors.truth import VectorStore

        self.embedder = embedder
        self.model = embedder.name
        self.directory = Path(directory)
        self.vstore: VectorStore = VectorStore(db)
        # ``_lock`` guards the in-memory index (searches, replays, saves) and is held only
        # briefly; ``_sync_lock`` serializes whole syncs, so embedding never blocks a search.
        self._lock = threading.RLock()
        self._sync_lock = threading.Lock()
        self.index: VectorIndex
        try:
            self.index, self.seq = open_index(
                self.vstore, self.model, embedder.dim, self.directory,
                hnsw_threshold=hnsw_threshold, params=params,
            )
        except BaseException:
            self.vstore.close()
            raise
        self._saved_seq = self.seq
        self._refreshed = time.monotonic()
        self._queries = QueryVectors(embedder)
        #: Keep the in-memory index up with what this process embeds. A process that only
        #: embeds (``citewise worker``, ``citewise ingest``) turns it off: ~1.5 KiB a chunk
        #: it would hold for nothing; whoever searches next replays the vector log.
        self.follow_writes = True

    # -- writes -------------------------------------------------------------------------------

    def _embed(
        self, texts: Sequence[str], hashes: Sequence[bytes], stats: SyncStats,
        tick: Callable[[int], None],
    ) -> NDArray[np.float32]:
        """Vectors of ``texts``: from the cache, else embedded (each distinct text once)."""
        import numpy as np

        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        known = self.vstore.cached(self.model, hashes)
        todo: dict[bytes, list[int]] = {}
        for i, h in enumerate(hashes):
            vec = known.get(h)
            if vec is not None:
                out[i] = np.frombuffer(vec, dtype="<f4")
            else:
                todo.setdefault(h, []).append(i)
        stats.cached += len(texts) - sum(len(rows) for rows in todo.values())
        tick(len(texts) - sum(len(rows) for rows in todo.values()))
        pending = list(todo.items())
        for b in range(0, len(pending), _EMBED_BATCH):
            part = pending[b : b + _EMBED_BATCH]
            vectors = self.embedder.embed([texts[rows[0]] for _, rows in part])
            for (_, rows), vec in zip(part, vectors, strict=True):
                out[rows] = vec
            stats.embedded += len(part)
            # A text twice in the batch is embedded once; the copy has it "from the cache"
            # (the count said 2835 after 2837/2837 chunks embedded: HAProxy's manual).
            stats.cached += sum(len(rows) - 1 for _, rows in part)
            tick(sum(len(rows) for _, rows in part))
        return out

    def _add(
        self, rows: Sequence[tuple[int, str, str]], stats: SyncStats, tick: Callable[[int], None]
    ) -> None:
        """Embed and store ``(chunk_id, document_id, text)`` rows (one transaction)."""
        if not rows:
            return
        hashes = [content_hash(text) for _, _, text in rows]
        vectors = self._embed([t for _, _, t in rows], hashes, stats, tick)
        self.vstore.put(
            self.model, [cid for cid, _, _ in rows], hashes, vectors,
            document_ids=[doc for _, doc, _ in rows],
        )
        _fault("dense:after_put")
        stats.added += len(rows)

    def _add_chunks(
        self, store: Store, chunk_ids: Sequence[int], stats: SyncStats, progress: Progress | None
    ) -> None:
        """Read, embed, store and index ``chunk_ids`` slice by slice."""
        total = len(chunk_ids)
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None and n:
                progress(done, total)

        if progress is not None and total:
            progress(0, total)
        for i in range(0, total, SLICE):
            chunks = store.get_chunks(chunk_ids[i : i + SLICE])
            tick(min(SLICE, total - i) - len(chunks))  # deleted meanwhile: nothing to do
            self._add([(c.id, c.document_id, indexed_text(c.text, c.roles)) for c in chunks],
                      stats, tick)
            self._catch_up()

    def _catch_up(self) -> None:
        """Replay the ``vec_log`` into the in-memory index (and checkpoint now and then)."""
        with self._lock:
            self._catch_up_locked()

    def _catch_up_locked(self) -> None:
        from citewise.knowledge.index.vectors.replay import checkpoint, rebuild, replay

        log = self.vstore.log_since(self.model, self.seq)
        if log is None:  # another process pruned past us
            self.index, self.seq = rebuild(
                self.vstore, self.model, self.embedder.dim, self.directory,
                hnsw_threshold=self.index.hnsw_threshold, params=self.index.params,
            )
            self._saved_seq = self.seq
            return
        self.seq = replay(self.vstore, self.model, self.index, log, self.seq)
        # Rewrite the files after 50k changes, or half the index's size when that is more:
        # a growing index is saved at 50k, 100k, 200k, … (O(n) writes in all), and a crash
        # never costs replaying more than the index already held.
        if self.seq - self._saved_seq >= max(_CHECKPOINT_EVERY, len(self.index) // 2):
            checkpoint(self.vstore, self.model, self.index, self.seq, self.directory)
            self._saved_seq = self.seq

    def sync_documents(
        self, store: Store, ops: Iterable[IndexOp], *, progress: Progress | None = None
    ) -> SyncStats:
        """Make the vectors of the documents in ``ops`` match their chunks in ``store``."""
        stats = SyncStats()
        with self._sync_lock:
            docs = list(dict.fromkeys(op.document_id for op in ops))
            add: list[int] = []
            remove: list[int] = []
            for i in range(0, len(docs), _DOCS_PER_READ):
                part = docs[i : i + _DOCS_PER_READ]
                have = self.vstore.chunks_of_documents(self.model, part)
                current: dict[str, set[int]] = {}
                for row in store.index_rows(part):
                    current.setdefault(row.document_id, set()).add(row.chunk_id)
                for doc in part:
                    old, now = have.get(doc, set()), current.get(doc, set())
                    remove.extend(old - now)
                    add.extend(sorted(now - old))
            if remove:
                stats.removed = self.vstore.delete(self.model, remove)
            self._add_chunks(store, add, stats, progress)
            self._catch_up()
        return stats

    def reconcile(self, store: Store, *, progress: Progress | None = None) -> SyncStats:
        """Compare every chunk id in ``store`` (all tenants) with the stored vectors, and
        embed what is missing / drop what is gone."""
        stats = SyncStats()
        with self._sync_lock:
            live = store.list_chunk_ids()
            have = self.vstore.chunk_ids(self.model)
            gone = sorted(have - live)
            if gone:
                stats.removed = self.vstore.delete(self.model, gone)
            self._add_chunks(store, sorted(live - have), stats, progress)
            self._catch_up()
        return stats

    # -- the embedding queue's side (:mod:`citewise.knowledge.ingest.embed_worker`) ------

    def has_vectors(self, chunk_ids: Sequence[int]) -> set[int]:
        """Those of ``chunk_ids`` that have a stored vector under this model."""
        return self.vstore.existing(self.model, chunk_ids)

    def add_vectors(
        self, tenant: str, document_id: str, items: Sequence[tuple[int, str]]
    ) -> SyncStats:
        """Embed ``(chunk_id, text)`` of one document and store them in ONE transaction
        (a chunk that has a vector by then is left as it is), then make them searchable."""
        stats = SyncStats()
        self._add([(cid, document_id, text) for cid, text in items], stats, lambda _n: None)
        if self.follow_writes:
            self._catch_up()
        return stats

    def drop_stale(self, store: Store, document_ids: Sequence[str]) -> int:
        """Remove the vectors of these documents' chunks that are gone (the document was
        rewritten or deleted); embeds nothing. Returns how many were removed."""
        removed = 0
        docs = list(dict.fromkeys(document_ids))
        for i in range(0, len(docs), _DOCS_PER_READ):
            part = docs[i : i + _DOCS_PER_READ]
            have = self.vstore.chunks_of_documents(self.model, part)
            if not have:
                continue
            current = store.document_chunk_ids(part)
            gone = sorted(cid for doc, ids in have.items()
                          for cid in ids - current.get(doc, set()))
            if gone:
                removed += self.vstore.delete(self.model, gone)
        if removed:
            self._catch_up()
        return removed

    def missing_vectors(self, store: Store) -> list[int]:
        """Drop vectors whose chunk is gone; return the chunk ids that have no vector
        (what the embedding queue must cover after a crash or a switch of embedder)."""
        live = store.list_chunk_ids()
        have = self.vstore.chunk_ids(self.model)
        gone = sorted(have - live)
        if gone:
            self.vstore.delete(self.model, gone)
            self._catch_up()
        return sorted(live - have)

    def queue_missing(self, store: Store, *, now: datetime) -> int:
        """See :meth:`VectorSearch.queue_missing` (the vectors are rows of ``vec_chunks``)."""
        missing = self.missing_vectors(store)
        if not missing:
            return 0
        return store.enqueue_embedding_chunks(missing, now=now, unless_in=(vec_chunks, self.model))

    def refresh(self) -> None:
        """Take in vectors other processes stored (a ``citewise worker`` beside this
        one); cheap when there are none (one ``max(seq)``), and at most once a second."""
        now = time.monotonic()
        if now - self._refreshed < _REFRESH_S:
            return
        self._refreshed = now
        if self.vstore.last_seq(self.model) != self.seq:
            self._catch_up()

    def checkpoint(self) -> None:
        """Save the vector index files now and prune the log they make unnecessary (also
        done on close). After a delete this leaves the deleted ids nowhere on disk."""
        from citewise.knowledge.index.vectors.replay import checkpoint

        with self._lock:
            if self.seq != self._saved_seq:
                checkpoint(self.vstore, self.model, self.index, self.seq, self.directory)
                self._saved_seq = self.seq

    def ids(self) -> set[int]:
        """Chunk ids the in-memory index holds."""
        with self._lock:
            return set(self.index.ids())

    def stored_ids(self) -> set[int]:
        """Chunk ids with a stored vector (``vec_chunks``) under this model."""
        return self.vstore.chunk_ids(self.model)

    def close(self) -> None:
        try:
            self.checkpoint()
        finally:
            self.vstore.close()

    # -- reads --------------------------------------------------------------------------------

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """The query's vector (the last 256 queries are cached)."""
        return self._queries(text)

    def search(
        self,
        query: str | NDArray[np.float32],
        k: int,
        *,
        tenant: str | None = None,
        allow: Allow = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks of ``tenant`` (of every tenant when None), best first.

        The index is sharded by tenant: another tenant's chunk is never a candidate."""
        vec = self.embed_query(query) if isinstance(query, str) else query
        self.refresh()
        with self._lock:
            return self.index.search(vec, k, tenant=tenant, allow=allow)

    def count(self, tenant: str | None = None) -> int:
        """Vectors in the index: of ``tenant``, or of every tenant when None."""
        self.refresh()
        with self._lock:
            if tenant is None:
                return len(self.index)
            shard = self.index.shard(tenant)
            return 0 if shard is None else len(shard)

    def __len__(self) -> int:
        return len(self.index)


def _fault(point: str) -> None:
    """Die here when ``$CITEWISE_FAULT`` names this point (the crash tests; see sync.py)."""
    if os.environ.get("CITEWISE_FAULT") == point:
        os._exit(86)
