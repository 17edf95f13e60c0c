"""Opening the embedded knowledge base: a SQLite file and two derived index folders.

``data_dir`` holds ``citewise.db`` (the truth, every chunk's embedding included),
``index/lexical/`` (tantivy) and ``index/vectors/`` (the saved vector index). Both folders
are derived from the database and repaired here: a lost or unreadable lexical index is
rebuilt, pending outbox work a crashed writer left is replayed, and chunks without a
vector are queued for the embedding workers (an open never embeds).
:mod:`citewise.knowledge.postgres` is the same for a database that replicas share.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy.exc import DatabaseError

from citewise.errors import ConfigError
from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.ingest.chunking import Chunker
from citewise.knowledge.ingest.outbox import (
    queue_embedding,
    queue_unembedded,
    rebuild_index,
    sync_index,
)
from citewise.knowledge.ingest.writer_lock import LOCK_NAME, WriterLock
from citewise.knowledge.retrieve.fusion import DEFAULT_FUSION, FusionMethod, check_fusion
from citewise.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.index.embedders.base import Embedder
    from citewise.knowledge.index.vectors.dense import DenseIndex
    from citewise.knowledge.loaders import LoaderRegistry

__all__ = ["DB_NAME", "INDEX_DIR", "VECTORS_DIR", "open_knowledge_base"]

DB_NAME = "citewise.db"
INDEX_DIR = os.path.join("index", "lexical")
VECTORS_DIR = os.path.join("index", "vectors")

KB = TypeVar("KB", bound="KnowledgeBase")
_log = logging.getLogger(__name__)


def open_knowledge_base(
    cls: type[KB],
    data_dir: str | Path,
    *,
    tenant: str = "default",
    chunk_size: int = 800,
    chunk_overlap: int = 120,
    registry: LoaderRegistry | None = None,
    dense: bool = True,
    embedder: Embedder | None = None,
    embedder_name: str | None = None,
    hnsw_threshold: int = 20_000,
    fusion: FusionMethod = DEFAULT_FUSION,
) -> KB:
    """:meth:`KnowledgeBase.open <citewise.knowledge.base.KnowledgeBase.open>`."""
    fusion = check_fusion(fusion)  # refuse a bad choice before opening anything
    root = Path(data_dir).expanduser()
    chunker = Chunker(size=chunk_size, overlap=chunk_overlap)
    try:
        root.mkdir(parents=True, exist_ok=True)
        store = SQLiteStore(root / DB_NAME)
    except OSError as exc:
        raise ConfigError(
            f"cannot use data directory {root}: {exc.strerror or exc}", code="invalid_data_dir"
        ) from exc
    except DatabaseError as exc:
        raise ConfigError(
            f"{root / DB_NAME} is not a usable citewise database: {exc.orig}",
            code="database_error",
        ) from exc
    opened: list[Callable[[], None]] = [store.close]
    try:
        index = _open_index(root / INDEX_DIR)
        opened.append(index.close)
        vectors: DenseIndex | None = None
        if dense:
            from citewise.knowledge.index.embedders.registry import (
                chosen_embedder,
                remember_embedder,
            )

            if embedder is None:
                embedder, name = chosen_embedder(store, embedder_name, models_dir=root / "models")
                remember_embedder(store, name)
            from citewise.knowledge.index.vectors.dense import DenseIndex

            vectors = DenseIndex(
                root / DB_NAME, root / VECTORS_DIR, embedder,
                hnsw_threshold=hnsw_threshold,
            )
            opened.append(vectors.vstore.close)
        lock = WriterLock(root / LOCK_NAME)
        if lock.try_acquire():
            try:
                _repair(store, index, vectors)
            finally:
                lock.release()
        else:
            # Another process is writing: pending work is its ingest in progress, not a
            # crash's leftovers. It completes them; this process searches what is indexed
            # (an index that is missing or outdated is rebuilt by the next open).
            _log.info("%s is being written by another process; not replaying its index work",
                      root)
    except BaseException:
        for close in reversed(opened):
            close()
        raise
    kb = cls(
        store, index, tenant=tenant, chunker=chunker, registry=registry, dense=vectors,
        fusion=fusion, writer_lock=lock,
    )
    kb.data_dir = root
    return kb


def _repair(store: SQLiteStore, index: LexicalIndex, vectors: DenseIndex | None) -> None:
    """With no writer alive: rebuild a missing or outdated lexical index (another process
    may have done it while this one waited to open: read its state again), replay pending
    outbox work, and queue the embedding of chunks that have no vector (never embedding
    here: an open — ``citewise ask`` — must not wait for the model)."""
    index.refresh_state()
    if (index.created or index.outdated) and store.count_chunks() > 0:
        rebuild_index(store, index)
        index.mark_current()
    else:
        if index.created or index.outdated:
            index.mark_current()  # nothing indexed yet, by any analysis
        sync_index(store, index, on_documents=queue_embedding(store, vectors))
    queue_unembedded(store, vectors)


def _open_index(path: Path) -> LexicalIndex:
    """Open the index; one that cannot be opened is moved aside and rebuilt from SQLite
    (it is derived data), so a damaged index never locks users out of their documents."""
    try:
        return LexicalIndex(path)
    except (OSError, ValueError) as exc:
        aside = path.with_name(f"{path.name}.broken-{int(time.time())}")
        _log.warning("search index %s cannot be opened (%s); rebuilding it", path, exc)
        os.replace(path, aside)
        return LexicalIndex(path)
