"""A knowledge base whose search indexes live in PostgreSQL, for replicas sharing it.

The embedded knowledge base keeps a tantivy folder and a vector index beside its SQLite
file. API replicas and workers on several machines share no folder, so here:

* lexical search is the database's full-text index (:class:`PostgresLexical`, BM25 in
  SQL: see :mod:`citewise.store._pg_fts`). The database indexes a chunk in the statement
  that writes it, so there is no lexical sync and nothing to rebuild.
* vectors are pgvector rows (:class:`PostgresVectors`). Whoever writes documents embeds
  their chunks through the same outbox as the embedded path (ops are completed only after
  the vectors are stored), so a replica that dies mid-ingest leaves ops the next sync —
  any replica's — replays; every open also embeds chunks that have no vector yet.

Every replica therefore sees a document as soon as its ingest returns: chunks and
vectors are rows, not files.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from citewise.errors import ConfigError, Unavailable
from citewise.knowledge import writer_lock
from citewise.knowledge.chunking import Chunker
from citewise.knowledge.dense import SLICE, SyncStats
from citewise.knowledge.embed import QueryVectors
from citewise.knowledge.hybrid import DEFAULT_FUSION, FusionMethod, check_fusion

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.embed import Embedder
    from citewise.knowledge.loaders import LoaderRegistry
    from citewise.store.base import IndexOp, Store
    from citewise.store.postgres import PostgresStore

__all__ = [
    "EMBEDDER_SETTING", "STATS_TTL_S", "WRITER_LOCK_KEY", "DatabaseWriterLock",
    "PostgresLexical", "PostgresVectors", "open_knowledge_base",
]

#: How long a tenant's BM25 statistics (chunk count, mean length) are reused.
STATS_TTL_S = 5.0
#: The setting naming the embedder whose vectors the database holds.
EMBEDDER_SETTING = "pgvector.embedder"
_EMBED_BATCH = 256
_DOCS_PER_READ = 256

Progress = Callable[[int, int], None]
#: The advisory lock key of the writer lock (a stable 63-bit number from a name).
WRITER_LOCK_KEY = int.from_bytes(
    hashlib.sha256(b"citewise.knowledge.writer").digest()[:8], "big", signed=True
)
_LOCK_SHARED = sa.text("SELECT pg_advisory_lock_shared(:k)")
_TRY_LOCK = sa.text("SELECT pg_try_advisory_lock(:k)")
_log = logging.getLogger(__name__)
KB = TypeVar("KB", bound="KnowledgeBase")


class PostgresLexical:
    """BM25 search by the database (:class:`~citewise.knowledge.indexes.LexicalSearch`).

    The tenant's corpus statistics are cached for :data:`STATS_TTL_S` seconds: a search
    costs its lexeme lookups and one ranking query, not a count of the tenant's chunks.
    Scores may drift by that much after an ingest; which chunks match never does.
    """

    def __init__(self, store: PostgresStore, *, stats_ttl_s: float = STATS_TTL_S) -> None:
        self.store = store
        self.stats_ttl_s = stats_ttl_s
        self._stats: dict[str, tuple[float, tuple[int, float]]] = {}
        self._lock = threading.Lock()

    def search(
        self,
        query: str,
        k: int,
        *,
        tenant: str,
        collections: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        if k <= 0 or not query.strip():
            return []
        return self.store.search_text(
            tenant, query, k, stats=self._tenant_stats(tenant), collections=collections,
            document_ids=document_ids,
        )

    def _tenant_stats(self, tenant: str) -> tuple[int, float]:
        now = time.monotonic()
        with self._lock:
            cached = self._stats.get(tenant)
        if cached is not None and now - cached[0] < self.stats_ttl_s and cached[1][0] > 0:
            return cached[1]
        stats = self.store.text_stats(tenant)
        with self._lock:
            self._stats[tenant] = (now, stats)
        return stats

    def all_chunk_ids(self) -> set[int]:
        return self.store.list_chunk_ids()

    def close(self) -> None:
        """Nothing to release: the store belongs to the knowledge base."""


class DatabaseWriterLock(writer_lock.SharedHold):
    """The writer lock of replicas sharing a database: a PostgreSQL advisory lock.

    Writers hold it *shared*, so replicas ingest at the same time; an open replays the
    outbox and embeds chunks without vectors only if it gets it *exclusively* — when no
    replica is writing, pending work is a crash's; otherwise it is an ingest in progress
    that its writer completes, and the open leaves it alone (as
    :class:`~citewise.knowledge.writer_lock.WriterLock` does for one folder).

    Each hold is a session lock on a connection of its own, outside the store's pool
    (holding pooled connections for whole ingests starved the store's own work): one
    shared hold per process, counted across its threads and nested writes. A writer waits
    at most ``wait_s`` for a repairing open (``lock_timeout``), then
    :class:`~citewise.errors.Unavailable` (``knowledge_base_busy``).
    """

    def __init__(self, store: PostgresStore, *, wait_s: float | None = None) -> None:
        super().__init__()
        self.store = store
        self.wait_s = writer_lock.WAIT_S if wait_s is None else wait_s
        self._exclusive: Any = None
        self._engine: Any = None

    def _connect(self) -> Any:
        if self._engine is None:
            from sqlalchemy.pool import NullPool

            self._engine = sa.create_engine(self.store.url, poolclass=NullPool)
        return self._engine.connect()

    def _drop_shared(self, held: Any) -> None:
        held.close()  # ends the session, and with it its locks

    def _take_shared(self) -> Any:
        conn = self._connect()
        try:
            conn.execute(sa.text(f"SET lock_timeout = {int(self.wait_s * 1000)}"))
            conn.execute(_LOCK_SHARED, {"k": WRITER_LOCK_KEY})
            conn.commit()
        except sa.exc.OperationalError as exc:
            conn.close()
            if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_not_available
                raise Unavailable(
                    "the knowledge base is being repaired by another replica; tried for "
                    f"{self.wait_s:g} s", code="knowledge_base_busy",
                ) from exc
            raise
        except BaseException:
            conn.close()
            raise
        return conn

    def try_acquire(self) -> bool:
        with self._mutex:
            if self._writers or self._exclusive is not None:
                return False
            conn = self._connect()
            try:
                got = bool(conn.execute(_TRY_LOCK, {"k": WRITER_LOCK_KEY}).scalar_one())
                conn.commit()
            except BaseException:
                conn.close()
                raise
            if not got:
                conn.close()
                return False
            self._exclusive = conn
            return True

    def release(self) -> None:
        with self._mutex:
            conn, self._exclusive = self._exclusive, None
        if conn is not None:
            conn.close()


class PostgresVectors:
    """Chunk embeddings in pgvector (:class:`~citewise.knowledge.indexes.VectorSearch`).

    One embedder per database: its name is recorded at the first open, and opening with
    another is refused (``embedder_mismatch``) rather than mixing incomparable vectors.
    """

    def __init__(self, store: PostgresStore, embedder: Embedder) -> None:
        if store.vector_dim != embedder.dim:
            raise ConfigError(
                f"the database holds {store.vector_dim}-dimensional vectors; embedder "
                f"{embedder.name!r} makes {embedder.dim}",
                code="vector_dim_mismatch",
            )
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
                stats.added += self.store.put_vectors(tenant, [cid for cid, _ in part], vectors)
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
                    have = self.store.vector_ids_of_documents(tenant, ids)
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
            self._put([(tenant_of[c.id], c.id, c.text) for c in found], stats, tick)

    def reconcile(self, store: Store, *, progress: Progress | None = None) -> SyncStats:
        """Embed every chunk without a vector (vectors of deleted chunks cannot exist:
        they are deleted with them)."""
        stats = SyncStats()
        with self._sync_lock:
            tick = _counter(self.store.count_chunks_missing_vectors(), progress)
            after: int | None = None
            while rows := self.store.chunks_missing_vectors(after=after, limit=SLICE):
                after = rows[-1][1]
                self._put(rows, stats, tick)
        return stats

    def checkpoint(self) -> None:
        """Nothing to save: the vectors are rows, durable when committed."""

    def ids(self) -> set[int]:
        return self.store.vector_chunk_ids()

    def stored_ids(self) -> set[int]:
        return self.store.vector_chunk_ids()

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
        return self.store.search_vectors(tenant, vec, k)

    def count(self, tenant: str | None = None) -> int:
        return self.store.count_vectors(tenant)


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


def open_knowledge_base(
    cls: type[KB],
    url: str,
    *,
    tenant: str = "default",
    dense: bool = True,
    embedder: Embedder | None = None,
    embed_progress: Progress | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 120,
    registry: LoaderRegistry | None = None,
    fusion: FusionMethod = DEFAULT_FUSION,
    **store_options: Any,
) -> KB:
    """:meth:`KnowledgeBase.open_postgres`: connect (migrating under the advisory lock),
    replay index work a crashed writer left, and embed chunks that have no vector."""
    from citewise.knowledge.sync import sync_index
    from citewise.store.postgres import PostgresStore

    fusion = check_fusion(fusion)  # refuse bad options before connecting to anything
    chunker = Chunker(size=chunk_size, overlap=chunk_overlap)
    if dense and embedder is None:
        from citewise.knowledge.embed import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    store = PostgresStore(
        url, vector_dim=embedder.dim if dense and embedder is not None else None,
        **store_options,
    )
    lock = DatabaseWriterLock(store)
    try:
        vectors = PostgresVectors(store, embedder) if dense and embedder is not None else None
        if lock.try_acquire():
            try:
                sync_index(
                    store, None,
                    on_documents=None if vectors is None else (
                        lambda ops: vectors.sync_documents(store, ops, progress=embed_progress)
                    ),
                )
                if vectors is not None:
                    vectors.reconcile(store, progress=embed_progress)
            finally:
                lock.release()
        else:
            _log.info("a replica is writing the knowledge base; not replaying its index work")
    except BaseException:
        store.close()
        raise
    return cls(
        store, PostgresLexical(store), tenant=tenant,
        chunker=chunker, registry=registry,
        dense=vectors, fusion=fusion, writer_lock=lock,
    )
