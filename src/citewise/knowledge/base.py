"""``KnowledgeBase``: documents in SQLite, BM25 search with tantivy, one folder on disk.

Layout of ``data_dir``: ``citewise.db`` (the SQLite store: the truth) and
``index/lexical/`` (the tantivy index, derived from it and repaired on open).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DatabaseError

from citewise.errors import ConfigError, InvalidInput
from citewise.knowledge.chunking import Chunker
from citewise.knowledge.hits import Hit
from citewise.knowledge.ingest import (
    IngestFailure,
    IngestReport,
    Progress,
    document_id_for,
    ingest_paths,
    source_for,
)
from citewise.knowledge.lexical import LexicalIndex
from citewise.knowledge.loaders import LoaderRegistry, default_registry
from citewise.knowledge.sync import Consistency, check_consistency, rebuild_index, sync_index
from citewise.store.base import ChunkContext, DocumentRecord, Store
from citewise.store.sqlite import SQLiteStore

__all__ = ["DB_NAME", "FILTER_KEYS", "IngestFailure", "IngestReport", "KnowledgeBase"]

DB_NAME = "citewise.db"
INDEX_DIR = os.path.join("index", "lexical")
#: Filter keys ``search`` understands; each takes a string or a list of strings.
FILTER_KEYS = frozenset({"collection", "document_id", "source"})
MAX_K = 1000
_log = logging.getLogger(__name__)


def _strings(key: str, value: Any) -> list[str] | None:
    """A filter value as a list of strings; None when the filter is absent."""
    if value is None:
        return None
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list | tuple | set | frozenset) or not all(
        isinstance(v, str) for v in values
    ):
        raise InvalidInput(
            f"filter {key!r} takes a string or a list of strings", code="invalid_filter"
        )
    return list(values)


class KnowledgeBase:
    """Ingest files, search them, manage documents — for one tenant."""

    def __init__(
        self,
        store: Store,
        index: LexicalIndex,
        *,
        tenant: str = "default",
        chunker: Chunker | None = None,
        registry: LoaderRegistry | None = None,
        owns: bool = True,
    ) -> None:
        self.store = store
        self.index = index
        self.tenant = tenant
        self.chunker = chunker or Chunker()
        self.registry = registry or default_registry()
        self._owns = owns
        self._closed = False
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        data_dir: str | Path,
        *,
        tenant: str = "default",
        chunk_size: int = 800,
        chunk_overlap: int = 120,
        registry: LoaderRegistry | None = None,
    ) -> KnowledgeBase:
        """Open (creating if needed) the knowledge base in ``data_dir``.

        Replays index work a crashed process left pending, and rebuilds the index from
        SQLite if the index folder was lost.
        """
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
        try:
            index = _open_index(root / INDEX_DIR)
            if index.created and store.count_chunks() > 0:
                rebuild_index(store, index)
            else:
                sync_index(store, index)
        except BaseException:
            store.close()
            raise
        return cls(store, index, tenant=tenant, chunker=chunker, registry=registry)

    def for_tenant(self, tenant: str) -> KnowledgeBase:
        """A view of the same store and index for another tenant (closing it is a no-op)."""
        return KnowledgeBase(
            self.store,
            self.index,
            tenant=tenant,
            chunker=self.chunker,
            registry=self.registry,
            owns=False,
        )

    # -- ingest & documents ---------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | Path],
        *,
        collection: str = "default",
        progress: Progress | None = None,
    ) -> IngestReport:
        """Ingest files and folders (recursively); see :class:`IngestReport`.

        Per-file problems are reported, never raised. The index is synced before return.
        """
        if isinstance(paths, str | Path):
            paths = [paths]
        if not collection or not isinstance(collection, str):
            raise InvalidInput("collection must be a non-empty string", code="invalid_collection")
        report = ingest_paths(
            paths,
            store=self.store,
            tenant=self.tenant,
            collection=collection,
            registry=self.registry,
            chunker=self.chunker,
            progress=progress,
        )
        self.sync_index()
        return report

    def get_document(self, document_id: str) -> DocumentRecord | None:
        return self.store.get_document(self.tenant, document_id)

    def find_document(self, path: str | Path) -> DocumentRecord | None:
        """The document ingested from this file path (relative paths resolve as in ingest)."""
        return self.store.find_document_by_source(self.tenant, source_for(path))

    def list_documents(
        self, *, collection: str | None = None, limit: int = 100, offset: int = 0
    ) -> list[DocumentRecord]:
        return self.store.list_documents(
            self.tenant, collection=collection, limit=limit, offset=offset
        )

    def document_text(self, document_id: str) -> str | None:
        """The stored text every offset indexes into; None for an unknown id."""
        doc = self.store.get_document(self.tenant, document_id)
        return None if doc is None else doc.text

    def delete_document(self, document_id: str) -> bool:
        """Delete a document, its chunks and its index entries; False if unknown."""
        deleted = self.store.delete_document(self.tenant, document_id)
        if deleted:
            self.sync_index()
        return deleted

    # -- search ---------------------------------------------------------------------------
    def search(
        self, query: str, *, k: int = 5, filters: dict[str, Any] | None = None
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` (BM25), best first.

        ``filters``: ``collection``, ``document_id``, ``source`` (a file path or URI as
        ingested), each a string or a list of strings. A query with no searchable words
        returns no hits; no query text can make the search fail.
        """
        if not isinstance(query, str):
            raise InvalidInput("query must be a string", code="invalid_query")
        if not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be in 1..{MAX_K}, got {k}", code="invalid_k")
        collections, document_ids = self._filters(filters or {})
        scored = self.index.search(
            query, k, tenant=self.tenant, collections=collections, document_ids=document_ids
        )
        if not scored:
            return []
        contexts = self.store.get_chunk_contexts(self.tenant, [cid for cid, _ in scored])
        by_id = {c.chunk.id: c for c in contexts}
        # An id the index has but SQLite no longer does (a delete not yet synced) is skipped.
        return [_hit(by_id[cid], score) for cid, score in scored if cid in by_id]

    def _filters(self, filters: dict[str, Any]) -> tuple[list[str] | None, list[str] | None]:
        if not isinstance(filters, dict):
            raise InvalidInput("filters must be an object", code="invalid_filter")
        unknown = set(filters) - FILTER_KEYS
        if unknown:
            raise InvalidInput(
                f"unknown filter(s) {sorted(unknown)}; known: {sorted(FILTER_KEYS)}",
                code="invalid_filter",
            )
        collections = _strings("collection", filters.get("collection"))
        document_ids = _strings("document_id", filters.get("document_id"))
        sources = _strings("source", filters.get("source"))
        if sources is not None:
            from_sources = [
                document_id_for(self.tenant, s if "://" in s else source_for(s)) for s in sources
            ]
            document_ids = (
                from_sources
                if document_ids is None
                else [d for d in document_ids if d in set(from_sources)]
            )
        return collections, document_ids

    # -- index maintenance ----------------------------------------------------------------
    def sync_index(self) -> int:
        """Apply pending index work (normally automatic); returns documents synced."""
        with self._lock:
            return sync_index(self.store, self.index)

    def rebuild_index(self) -> int:
        """Rebuild the search index from SQLite; returns documents indexed."""
        with self._lock:
            return rebuild_index(self.store, self.index)

    def check_consistency(self) -> Consistency:
        """Chunk ids in SQLite vs in the index (all tenants); ``.ok`` when they agree."""
        return check_consistency(self.store, self.index)

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns:
            self.index.close()
            self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def _hit(ctx: ChunkContext, score: float) -> Hit:
    chunk = ctx.chunk
    metadata = {
        **ctx.metadata,
        "title": ctx.title,
        "collection": ctx.collection,
        "content_type": ctx.content_type,
    }
    return Hit(
        chunk_id=chunk.id,
        document_id=chunk.document_id,
        source=ctx.source,
        text=chunk.text,
        start_char=chunk.start_char,
        end_char=chunk.end_char,
        field_length=ctx.text_length,
        score=score,
        title=ctx.title,
        page=chunk.page,
        section=chunk.section,
        line=chunk.line,
        metadata=metadata,
    )
