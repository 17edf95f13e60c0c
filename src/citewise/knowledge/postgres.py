"""Opening a knowledge base whose search indexes live in PostgreSQL, for replicas sharing it.

The embedded knowledge base keeps a tantivy folder and a vector index beside its SQLite
file. API replicas and workers on several machines share no folder, so here:

* lexical search is the database's full-text index (BM25 in SQL:
  :mod:`citewise.knowledge.index.lexical_postgres`). The database indexes a chunk in the
  statement that writes it, so there is no lexical sync and nothing to rebuild.
* vectors are pgvector rows (:mod:`citewise.knowledge.index.vectors_postgres`), embedded
  by workers leasing jobs from the database's own queue (``FOR UPDATE SKIP LOCKED``:
  :mod:`citewise.knowledge.ingest.embed_worker`), queued through the same outbox as the
  embedded path — any replica or ``citewise worker`` process takes part.

Every replica therefore searches a document lexically as soon as its ingest returns,
and by vector as soon as a worker committed its batch: chunks and vectors are rows.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa

from citewise.knowledge.index.lexical_postgres import PostgresLexical
from citewise.knowledge.index.vectors_postgres import PostgresVectors
from citewise.knowledge.ingest.chunking import Chunker
from citewise.knowledge.ingest.writer_lock_postgres import DatabaseWriterLock
from citewise.knowledge.retrieve.fusion import DEFAULT_FUSION, FusionMethod, check_fusion

if TYPE_CHECKING:

    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.index.embedders.base import Embedder
    from citewise.knowledge.loaders import LoaderRegistry

__all__ = ["open_knowledge_base"]


Progress = Callable[[int, int], None]
#: The advisory lock key of the writer lock (a stable 63-bit number from a name).
WRITER_LOCK_KEY = int.from_bytes(
    hashlib.sha256(b"citewise.knowledge.writer").digest()[:8], "big", signed=True
)
_LOCK_SHARED = sa.text("SELECT pg_advisory_lock_shared(:k)")
_TRY_LOCK = sa.text("SELECT pg_try_advisory_lock(:k)")
_log = logging.getLogger(__name__)
KB = TypeVar("KB", bound="KnowledgeBase")


def open_knowledge_base(
    cls: type[KB],
    url: str,
    *,
    tenant: str = "default",
    dense: bool = True,
    embedder: Embedder | None = None,
    embedder_name: str | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 120,
    registry: LoaderRegistry | None = None,
    fusion: FusionMethod = DEFAULT_FUSION,
    **store_options: Any,
) -> KB:
    """:meth:`KnowledgeBase.open_postgres`: connect (migrating under the advisory lock),
    replay index work a crashed writer left, and queue chunks that have no vector."""
    from citewise.knowledge.ingest.outbox import queue_embedding, queue_unembedded, sync_index
    from citewise.store.postgres import PostgresStore

    fusion = check_fusion(fusion)  # refuse bad options before connecting to anything
    chunker = Chunker(size=chunk_size, overlap=chunk_overlap)
    store = PostgresStore(url, **store_options)
    from citewise.knowledge.index.embedders.registry import chosen_embedder, remember_embedder

    lock = DatabaseWriterLock(store)
    try:
        name = None
        if dense and embedder is None:
            embedder, name = chosen_embedder(store, embedder_name)
        vectors = PostgresVectors(store, embedder) if dense and embedder is not None else None
        if name is not None:  # only once the database took it (one embedder per database)
            remember_embedder(store, name)
        if lock.try_acquire():
            try:
                sync_index(store, None, on_documents=queue_embedding(store, vectors))
                queue_unembedded(store, vectors)
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
