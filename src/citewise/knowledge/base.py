"""``KnowledgeBase``: ingest documents, search them (BM25 + dense, fused), manage them.

Embedded (:meth:`KnowledgeBase.open`, :mod:`citewise.knowledge.embedded`): one folder, a
SQLite file and two index folders derived from it. Shared by replicas
(:meth:`KnowledgeBase.open_postgres`, :mod:`citewise.knowledge.postgres`): one PostgreSQL
database holds documents, full-text index and vectors. Dense retrieval is on by default
(``dense=False`` turns it off); searches are then hybrid: BM25 and vector hits fused
(``fusion=...``; relative score fusion by default, see :mod:`citewise.knowledge.retrieve.fusion`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.errors import InvalidInput
from citewise.knowledge import embedded
from citewise.knowledge.embedded import DB_NAME
from citewise.knowledge.index.sentences import load as load_sentences
from citewise.knowledge.index.sentences import sentence_encoder
from citewise.knowledge.ingest.chunking import Chunker
from citewise.knowledge.ingest.files import missing_under, source_for
from citewise.knowledge.ingest.moves import moved_documents
from citewise.knowledge.ingest.pipeline import Progress, document_id_for, ingest_data, ingest_paths
from citewise.knowledge.ingest.report import IngestFailure, IngestReport
from citewise.knowledge.loaders import LoaderRegistry, default_registry
from citewise.knowledge.retrieve.filters import FILTER_KEYS, parse_filters
from citewise.knowledge.retrieve.fusion import DEFAULT_FUSION, FusionMethod, check_fusion
from citewise.knowledge.retrieve.hits import Hit
from citewise.knowledge.retrieve.retriever import Mode, Retrieval, Retriever
from citewise.knowledge.upkeep import IndexUpkeep
from citewise.store.base import DocumentRecord, Store, check_tenant

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import LexicalSearch, VectorSearch
    from citewise.knowledge.index.embedders.base import Embedder
    from citewise.knowledge.ingest.embed_worker import BackgroundWorkers
    from citewise.knowledge.ingest.writer_lock import WriteLock

__all__ = ["DB_NAME", "FILTER_KEYS", "IngestFailure", "IngestReport", "KnowledgeBase"]
_log = logging.getLogger(__name__)

MAX_K = 1000
# Filters whose value lists what may match: an explicitly empty list matches nothing.
_LIST_FILTERS = ("collection", "source", "document_id", "tags", "content_type")


class KnowledgeBase(IndexUpkeep):
    """Ingest files, search them, manage documents — for one tenant.

    Keeping the indexes in step with the store (sync, replay, rebuild, consistency) is
    :class:`~citewise.knowledge.upkeep.IndexUpkeep`'s part of it."""

    def __init__(
        self,
        store: Store,
        index: LexicalSearch,
        *,
        tenant: str = "default",
        chunker: Chunker | None = None,
        registry: LoaderRegistry | None = None,
        dense: VectorSearch | None = None,
        owns: bool = True,
        writer_lock: WriteLock | None = None,
        fusion: FusionMethod = DEFAULT_FUSION,
    ) -> None:
        self.store = store
        #: BM25 search: a tantivy folder (embedded) or the database's own (PostgreSQL).
        self.index = index
        #: The vector index (None when dense retrieval is off).
        self.dense = dense
        self.tenant = check_tenant(tenant)
        self.chunker = chunker or Chunker()
        self.registry = registry or default_registry()
        self._owns = owns
        #: How hybrid search fuses BM25 and vector hits (``citewise.knowledge.retrieve.fusion``).
        self.fusion = check_fusion(fusion)
        self._closed = False
        self._lock = threading.Lock()
        #: Held while this knowledge base writes (see :mod:`citewise.knowledge.ingest.writer_lock`).
        self.writer_lock = writer_lock
        #: The folder of an embedded knowledge base (never ingested as documents).
        self.data_dir: Path | None = None
        #: Workers embed in the background (``citewise serve`` runs them): ingests then
        #: return without embedding unless asked to ``wait``.
        self.background_embedding = False
        self._workers: list[BackgroundWorkers] = []

    @classmethod
    def open(
        cls,
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
    ) -> KnowledgeBase:
        """Open (creating if needed) the knowledge base in ``data_dir``.

        ``fusion`` picks how hybrid search fuses BM25 and vector hits: ``"rrf"``,
        ``"rsf"``, ``"dbsf"`` or ``"zscore"`` (see :mod:`citewise.knowledge.retrieve.fusion`).

        Replays index work a crashed process left pending, rebuilds the lexical index from
        SQLite if its folder was lost, and queues the embedding of chunks that have no
        vector (after a crash, or on the first open with ``dense=True`` of a knowledge
        base that had none) — it never embeds: :meth:`embed_pending` or a worker does, and
        searches meanwhile use the vectors there are. ``embedder`` (an instance) or
        ``embedder_name`` (a name of :data:`~citewise.knowledge.index.embedders.registry.EMBEDDERS`,
        remembered for later opens) picks the model; by default the one it was last opened
        with, at first the packaged all-MiniLM-L6-v2 (int8 ONNX). Vectors are stored per
        embedder, so switching embedders re-embeds.
        """
        return embedded.open_knowledge_base(
            cls, data_dir, tenant=tenant, chunk_size=chunk_size, chunk_overlap=chunk_overlap,
            registry=registry, dense=dense, embedder=embedder, embedder_name=embedder_name,
            hnsw_threshold=hnsw_threshold,
            fusion=fusion,
        )

    @classmethod
    def open_postgres(
        cls,
        url: str,
        *,
        tenant: str = "default",
        dense: bool = True,
        embedder: Embedder | None = None,
        embedder_name: str | None = None,
        **options: Any,
    ) -> KnowledgeBase:
        """Open the knowledge base held by a PostgreSQL database (with pgvector when
        ``dense``): what replicas sharing that database open. ``options`` as :meth:`open`
        (``chunk_size``, ``chunk_overlap``, ``registry``, ``fusion``) and
        :class:`~citewise.store.postgres.PostgresStore`'s. See
        :mod:`citewise.knowledge.postgres`."""
        from citewise.knowledge.postgres import open_knowledge_base

        return open_knowledge_base(
            cls, url, tenant=tenant, dense=dense, embedder=embedder, embedder_name=embedder_name,
            **options,
        )

    def for_tenant(self, tenant: str) -> KnowledgeBase:
        """A view of the same store and indexes for another tenant (closing it is a no-op)."""
        view = KnowledgeBase(
            self.store,
            self.index,
            tenant=tenant,
            chunker=self.chunker,
            registry=self.registry,
            dense=self.dense,
            owns=False,
            fusion=self.fusion,
            writer_lock=self.writer_lock,
        )
        view.data_dir = self.data_dir
        view.background_embedding = self.background_embedding
        return view

    # -- ingest & documents ---------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[str | Path],
        *,
        collection: str = "default",
        progress: Progress | None = None,
        embed_progress: Progress | None = None,
        prune: bool = False,
        wait: bool | None = None,
        on_file: Callable[[str], None] | None = None,
        walked: bool = False,
    ) -> IngestReport:
        """Ingest files and folders (recursively); see :class:`IngestReport`.

        Per-file problems are reported, never raised. The documents are lexically
        searchable when it returns, and the embedding of their chunks is queued
        (:mod:`citewise.knowledge.ingest.embed_worker`). ``wait`` (default: unless
        :attr:`background_embedding`) embeds them in this process before returning,
        sharing the queue with any other worker. ``progress(done, total)`` counts files
        read (``on_file(path)`` names each), ``embed_progress(done, total)`` chunks
        embedded (texts seen before are taken from the embedding cache).

        ``prune``: also delete the documents of files under the given *folders* that no
        longer exist on disk (``report.removed``), so re-ingesting a folder mirrors it. A
        folder that is itself missing prunes nothing (an unmounted drive must not empty
        the knowledge base), and a file that exists but failed to load is kept.
        ``walked``: the files of ``paths`` were met in a folder, not named (``--watch``'s).
        """
        if isinstance(paths, str | Path):
            paths = [paths]
        paths = list(paths)
        if not collection or not isinstance(collection, str):
            raise InvalidInput("collection must be a non-empty string", code="invalid_collection")
        with self._writing():
            report = ingest_paths(
                paths,
                store=self.store,
                tenant=self.tenant,
                collection=collection,
                registry=self.registry,
                chunker=self.chunker,
                progress=progress,
                exclude=[self.data_dir] if self.data_dir is not None else [],
                on_file=on_file,
                local=self.data_dir is not None,
                walked=walked,
            )
            moved = []  # a file moved: its document under the old path (ingest.moves)
            seen = report.added + report.updated + report.unchanged
            for doc_id, old, new in (moved_documents(self.store, self.tenant, collection, seen)
                                     if self.data_dir is not None else []):
                if self.store.delete_document(self.tenant, doc_id):
                    report.moved.append((old, new))
                    moved.append(doc_id)
            if prune:
                for doc_id, source in missing_under(self.store, self.tenant, paths):
                    if self.store.delete_document(self.tenant, doc_id):
                        report.removed.append(source)
            written = [document_id_for(self.tenant, s)
                       for s in report.added + report.updated + report.removed] + moved
            self._sync_documents(written)
            if (report.removed or moved) and self.dense is not None:
                self.dense.checkpoint()  # the deleted ids leave the saved vector files too
        if written and self._waits(wait):  # outside the writer lock: opens may repair
            self.embed_pending(written, progress=embed_progress)
        return report

    def _waits(self, wait: bool | None) -> bool:
        return (not self.background_embedding) if wait is None else wait

    def ingest_bytes(
        self,
        name: str,
        data: bytes,
        *,
        source: str | None = None,
        collection: str = "default",
        wait: bool | None = None,
    ) -> IngestReport:
        """Ingest one document given as bytes (an upload, a download) rather than a file.

        ``name`` (a file name) picks the loader by its extension and titles the document;
        ``source`` (default: ``name``) is what its citations name and what identifies it:
        ingesting the same ``source`` again replaces the document, or leaves it unchanged.
        Problems are reported in the returned report, never raised. ``wait`` as in
        :meth:`ingest`.
        """
        if not isinstance(name, str) or not name.strip() or "/" in name or "\\" in name:
            raise InvalidInput("name must be a file name", code="invalid_name")
        if not isinstance(data, bytes | bytearray):
            raise InvalidInput("data must be bytes", code="invalid_data")
        if not collection or not isinstance(collection, str):
            raise InvalidInput("collection must be a non-empty string", code="invalid_collection")
        src = name if source is None else source
        if not isinstance(src, str) or not src.strip():
            raise InvalidInput("source must be a non-empty string", code="invalid_source")
        with self._writing():
            report = ingest_data(name, bytes(data), source=src, store=self.store,
                                 tenant=self.tenant, collection=collection,
                                 registry=self.registry, chunker=self.chunker,
                                 local=self.data_dir is not None)
            doc_id = document_id_for(self.tenant, src)
            self._sync_documents([doc_id])
        if (report.added or report.updated) and self._waits(wait):
            self.embed_pending([doc_id])
        return report

    def find_source(self, source: str) -> DocumentRecord | None:
        """The document stored under ``source`` exactly (see :meth:`ingest_bytes`)."""
        return self.store.find_document_by_source(self.tenant, source)

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
        """Delete a document, its chunks, index entries and vectors; False if unknown.

        Nothing of it is left anywhere: not in SQLite (chunks, vectors, the embedding
        cache, the vector log), nor in the lexical index, nor in the saved vector files.
        """
        with self._writing():
            deleted = self.store.delete_document(self.tenant, document_id)
            if deleted:
                self._sync_documents([document_id])
                if self.dense is not None:
                    self.dense.checkpoint()
        return deleted

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        k: int = 5,
        filters: Mapping[str, Any] | None = None,
        mode: Mode | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query``, best first, each with its evidence window.

        ``mode``: ``"hybrid"`` (the default when dense retrieval is on: BM25 and vector
        hits fused as ``open(fusion=...)`` chose, so ``score`` is the fused score — with
        the default ``"rsf"`` the mean of the min-max normalised BM25 score and cosine,
        in 0..1),
        ``"lexical"`` (BM25; the default when it is off) or ``"dense"`` (cosine).
        ``filters`` (see :mod:`citewise.knowledge.retrieve.filters`): ``collection``,
        ``source`` (a path as ingested, relative ones resolved, or a glob such as
        ``"*.pdf"``), ``document_id``, ``tags``, ``content_type``, ``date_from`` /
        ``date_to``; an explicitly empty list matches nothing. A query with no
        searchable words returns no lexical hits; no query text can make the search fail.
        """
        return self.retrieve(query, k=k, filters=filters, mode=mode).hits

    def retrieve(
        self,
        query: str,
        *,
        k: int = 5,
        filters: Mapping[str, Any] | None = None,
        mode: Mode | None = None,
    ) -> Retrieval:
        """:meth:`search` with what ranking saw: the counts ``QueryDetails`` reports
        (candidates retrieved and compared), the fused ranks and the mode used."""
        if filters is not None and not isinstance(filters, Mapping):
            raise InvalidInput("filters must be an object", code="invalid_filter")
        retriever = Retriever(
            self.store, self.index, self.dense, tenant=self.tenant, fusion=self.fusion
        )
        if filters and any(
            isinstance(filters.get(key), list | tuple | set | frozenset) and not filters[key]
            for key in _LIST_FILTERS
        ):
            parse_filters(filters)  # still refuse what is malformed
            if not isinstance(query, str):
                raise InvalidInput("query must be a string", code="invalid_query")
            return Retrieval(hits=[], mode=mode or ("hybrid" if self.dense else "lexical"))
        return retriever.retrieve(query, k=k, filters=filters, mode=mode)

    def unmentioned(self, query: str) -> list[str]:
        """The words of ``query`` that none of the tenant's documents contains ("Missing:
        bcrypt"): the search tool reports them beside its passages."""
        if not isinstance(query, str):
            raise InvalidInput("query must be a string", code="invalid_query")
        return Retriever(self.store, self.index, tenant=self.tenant).unmentioned(query)

    def load_sentence_vectors(self, chunk_ids: Sequence[int]) -> int:
        """Hand the stored sentence vectors of these chunks (a search's hits) to the
        sentence encoder, so that ranking their sentences embeds only the question
        (:mod:`.index.sentences`); returns the texts loaded. Never fails a search: a read
        that fails is logged, and the sentences are embedded as they would be without."""
        encoder = sentence_encoder()
        if encoder is None or not chunk_ids:
            return 0
        try:
            return load_sentences(self.store, encoder, chunk_ids)
        except Exception as exc:
            _log.warning("stored sentence vectors not read: %s", exc)
            return 0

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_workers()
        if self._owns:
            try:
                if self.dense is not None:
                    self.dense.close()
            finally:
                self.index.close()
                self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
