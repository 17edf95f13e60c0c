"""Dense search for replicas sharing one PostgreSQL database: chunk vectors as pgvector rows.

The embedded twin is :mod:`citewise.knowledge.index.vectors` (vectors in the SQLite file,
an in-process index derived from them). Here the rows are the index: whoever writes
documents embeds their chunks through the same outbox as the embedded path (ops complete
only after the vectors are stored), so a replica that dies mid-ingest leaves ops that the
next sync — any replica's — replays, and every open embeds chunks without a vector. The
SQL is :mod:`~citewise.knowledge.index.vectors_postgres_sql`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa

from citewise.errors import ConfigError
from citewise.knowledge.index import vectors_postgres_sql as sql
from citewise.knowledge.index.embedders.base import QueryVectors
from citewise.knowledge.index.vectors.dense import SLICE, SyncStats
from citewise.store.base import indexed_text

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from citewise.knowledge.index.embedders.base import Embedder
    from citewise.store.base import IndexOp, Store
    from citewise.store.postgres import PostgresStore

__all__ = ["EMBEDDER_SETTING", "PostgresVectors"]

#: The setting naming the embedder whose vectors the database holds.
EMBEDDER_SETTING = "pgvector.embedder"
_EMBED_BATCH = 256
_DOCS_PER_READ = 256

Progress = Callable[[int, int], None]


class PostgresVectors:
    """Chunk embeddings in pgvector (:class:`~citewise.knowledge.index.contract.VectorSearch`).

    One embedder per database: its name is recorded at the first open, and opening with
    another is refused (``embedder_mismatch``) rather than mixing incomparable vectors.
    """

    def __init__(self, store: PostgresStore, embedder: Embedder) -> None:
        # A table of another width is refused here (vector_dim_mismatch).
        self.table = store.ensure_schema(lambda conn: sql.ensure(conn, embedder.dim))
        recorded = store.get_setting(EMBEDDER_SETTING)
        if recorded is None:
            store.set_setting(EMBEDDER_SETTING, embedder.name)
        elif recorded != embedder.name:
            raise ConfigError(
                f"the database's vectors were made by {recorded!r}, not {embedder.name!r}: "
                "one embedder per database (drop the chunk_embeddings table to switch)",
                code="embedder_mismatch",
                details={"stored": recorded, "requested": embedder.name},
            )
        self.store = store
        self.embedder = embedder
        self.model = embedder.name
        self._sync_lock = threading.Lock()
        self._queries = QueryVectors(embedder)

    # -- writes -------------------------------------------------------------------------------

    def _put(
        self, rows: Sequence[tuple[str, int, str]], stats: SyncStats, tick: Callable[[int], None]
    ) -> None:
        """Embed ``(tenant, chunk_id, text)`` rows and store them, per tenant."""
        by_tenant: dict[str, list[tuple[int, str]]] = {}
        for tenant, cid, text in rows:
            by_tenant.setdefault(tenant, []).append((cid, text))
        for tenant, items in by_tenant.items():
            for b in range(0, len(items), _EMBED_BATCH):
                part = items[b : b + _EMBED_BATCH]
                vectors = self.embedder.embed([text for _, text in part])
                stats.embedded += len(part)
                with self.store.writing() as c:
                    stats.added += sql.put(c, self.table, tenant, [cid for cid, _ in part], vectors)
                tick(len(part))

    def sync_documents(
        self, store: Store, ops: Iterable[IndexOp], *, progress: Progress | None = None
    ) -> SyncStats:
        """Embed the chunks of the documents in ``ops`` that have no vector yet (a
        replaced document's old chunks took their vectors with them: ``ON DELETE
        CASCADE``)."""
        stats = SyncStats()
        with self._sync_lock:
            docs: dict[tuple[str, str], None] = dict.fromkeys(
                (op.tenant, op.document_id) for op in ops
            )
            todo: list[tuple[str, int]] = []
            keys = list(docs)
            for i in range(0, len(keys), _DOCS_PER_READ):
                part = keys[i : i + _DOCS_PER_READ]
                for tenant in dict.fromkeys(t for t, _ in part):
                    ids = [d for t, d in part if t == tenant]
                    with self.store.reading() as c:
                        have = sql.ids_of_documents(c, self.table, tenant, ids)
                    for row in store.index_rows(ids):
                        if row.tenant == tenant and row.chunk_id not in have.get(
                            row.document_id, ()
                        ):
                            todo.append((tenant, row.chunk_id))
            self._embed_chunks(store, todo, stats, progress)
        return stats

    def _embed_chunks(
        self,
        store: Store,
        todo: Sequence[tuple[str, int]],
        stats: SyncStats,
        progress: Progress | None,
    ) -> None:
        total = len(todo)
        tick = _counter(total, progress)
        tenant_of = dict((cid, t) for t, cid in todo)
        ids = [cid for _, cid in todo]
        for i in range(0, total, SLICE):
            found = store.get_chunks(ids[i : i + SLICE])
            tick(min(SLICE, total - i) - len(found))  # deleted meanwhile: nothing to do
            self._put([(tenant_of[c.id], c.id, indexed_text(c.text, c.roles)) for c in found],
                      stats, tick)

    def reconcile(self, store: Store, *, progress: Progress | None = None) -> SyncStats:
        """Embed every chunk without a vector (vectors of deleted chunks cannot exist:
        they are deleted with them)."""
        stats = SyncStats()
        with self._sync_lock:
            with self.store.reading() as c:
                tick = _counter(sql.count_missing(c, self.table), progress)
            after: int | None = None
            while rows := self._missing(after):
                after = rows[-1][1]
                self._put(rows, stats, tick)
        return stats

    def _missing(self, after: int | None) -> list[tuple[str, int, str]]:
        with self.store.reading() as c:
            return sql.missing(c, self.table, after=after, limit=SLICE)

    # -- the embedding queue's side (:mod:`citewise.knowledge.ingest.embed_worker`) ------

    def has_vectors(self, chunk_ids: Sequence[int]) -> set[int]:
        with self.store.reading() as c:
            return sql.existing(c, self.table, chunk_ids)

    def add_vectors(
        self, tenant: str, document_id: str, items: Sequence[tuple[int, str]]
    ) -> SyncStats:
        """Embed ``(chunk_id, text)`` and store them in ONE transaction (chunks deleted
        meanwhile are skipped: a vector never outlives its chunk)."""
        stats = SyncStats()
        if items:
            vectors = self.embedder.embed([text for _, text in items])
            stats.embedded = len(items)
            with self.store.writing() as c:
                stats.added = sql.put(c, self.table, tenant, [cid for cid, _ in items], vectors)
        return stats

    def drop_stale(self, store: Store, document_ids: Sequence[str]) -> int:
        """Nothing to drop: a chunk's vector is deleted with it (``ON DELETE CASCADE``)."""
        return 0

    def missing_vectors(self, store: Store) -> list[int]:
        with self.store.reading() as c:
            return sql.missing_ids(c, self.table)

    def queue_missing(self, store: Store, *, now: datetime) -> int:
        """See :meth:`VectorSearch.queue_missing` (the vectors are rows of its table)."""
        missing = self.missing_vectors(store)
        if not missing:
            return 0
        return store.enqueue_embedding_chunks(missing, now=now, unless_in=(self.table, None))

    def refresh(self) -> None:
        """Nothing to take in: every replica reads the same rows."""

    def checkpoint(self) -> None:
        """Nothing to save: the vectors are rows, durable when committed."""

    def ids(self) -> set[int]:
        with self.store.reading() as c:
            return sql.all_ids(c, self.table)

    def stored_ids(self) -> set[int]:
        return self.ids()

    def close(self) -> None:
        """Nothing to release: the store belongs to the knowledge base."""

    # -- reads --------------------------------------------------------------------------------

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """The query's vector (the last 256 queries are cached)."""
        return self._queries(text)

    def search(
        self, query: str | NDArray[np.float32], k: int, *, tenant: str | None = None
    ) -> list[tuple[int, float]]:
        if tenant is None:
            raise ValueError("a PostgreSQL vector search is always one tenant's")
        vec = self.embed_query(query) if isinstance(query, str) else query
        with self.store.reading() as c:
            return sql.search(c, self.table, tenant, vec, k)

    def count(self, tenant: str | None = None) -> int:
        q = sa.select(sa.func.count()).select_from(self.table)
        if tenant is not None:
            q = q.where(self.table.c.tenant == tenant)
        with self.store.reading() as c:
            return int(c.execute(q).scalar_one())


def _counter(total: int, progress: Progress | None) -> Callable[[int], None]:
    """``tick(n)``: n more of ``total`` done, reported as ``progress(done, total)``."""
    done = 0
    if progress is not None and total:
        progress(0, total)

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None and n:
            progress(min(done, total), total)

    return tick
