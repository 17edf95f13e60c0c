"""Opening a knowledge base whose search indexes live in PostgreSQL, for replicas sharing it.

The embedded knowledge base keeps a tantivy folder and a vector index beside its SQLite
file. API replicas and workers on several machines share no folder, so here:

* lexical search is the database's full-text index (BM25 in SQL:
  :mod:`citewise.knowledge.index.lexical_postgres`). The database indexes a chunk in the
  statement that writes it, so there is no lexical sync and nothing to rebuild.
* vectors are pgvector rows (:mod:`citewise.knowledge.index.vectors_postgres`), embedded
  by whoever writes the documents, through the same outbox as the embedded path.

Every replica therefore sees a document as soon as its ingest returns: chunks and
vectors are rows, not files.
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
    embed_progress: Progress | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 120,
    registry: LoaderRegistry | None = None,
    fusion: FusionMethod = DEFAULT_FUSION,
    **store_options: Any,
) -> KB:
    """:meth:`KnowledgeBase.open_postgres`: connect (migrating under the advisory lock),
    replay index work a crashed writer left, and embed chunks that have no vector."""
    from citewise.knowledge.ingest.outbox import sync_index
    from citewise.store.postgres import PostgresStore

    fusion = check_fusion(fusion)  # refuse bad options before connecting to anything
    chunker = Chunker(size=chunk_size, overlap=chunk_overlap)
    if dense and embedder is None:
        from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    store = PostgresStore(url, **store_options)
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
