"""Dense and hybrid retrieval over a knowledge base's store and lexical index.

* :class:`DenseIndex` — every chunk's embedding (``vec_*`` tables in the knowledge base's
  SQLite file, plus the derived vector index files in ``index/vectors/``), kept in step
  with the store's chunks. :meth:`DenseIndex.sync_documents` applies the documents named
  by index-outbox ops (call it where the lexical sync applies them, before the ops are
  completed: replaying it is harmless); :meth:`DenseIndex.reconcile` compares every chunk
  id (on open, after a crash, or when dense retrieval is switched on for an existing
  knowledge base).
* :class:`Retriever` — lexical, dense or hybrid (RRF) search for one tenant, with the
  query's filters, an optional reranker, and an evidence window per hit.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citewise.answer import SnippetEvidence
from citewise.errors import InvalidInput
from citewise.knowledge.embed import Embedder, content_hash
from citewise.knowledge.evidence import SentenceScorer, best_window
from citewise.knowledge.hits import Hit
from citewise.knowledge.hybrid import RRF_K, Fused, Reranker, rerank, rrf
from citewise.knowledge.query_filters import Filters, parse_filters
from citewise.store.base import ChunkContext, IndexOp, Store

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from sqlalchemy import Engine

    from citewise.knowledge.lexical import LexicalIndex
    from citewise.knowledge.vector_store import VectorStore
    from citewise.knowledge.vectors import HNSWParams, VectorIndex

__all__ = ["DenseIndex", "Mode", "Retrieval", "Retriever", "SyncStats"]

Mode = Literal["lexical", "dense", "hybrid"]
Progress = Callable[[int, int], None]

_EMBED_BATCH = 256  # texts per embedder call (and per progress tick)
_CHECKPOINT_EVERY = 50_000  # log entries replayed before the index files are rewritten
_READ_BATCH = 2_000


@dataclass(slots=True)
class SyncStats:
    """What a dense sync did: vectors added (embedded or taken from the cache) and removed."""

    added: int = 0
    embedded: int = 0
    cached: int = 0
    removed: int = 0


class DenseIndex:
    """Chunk embeddings of one knowledge base, for one embedder."""

    def __init__(
        self,
        db: Engine | str | Path,
        directory: str | Path,
        embedder: Embedder,
        *,
        hnsw_threshold: int = 20_000,
        params: HNSWParams | None = None,
    ) -> None:
        from citewise.knowledge.vector_store import VectorStore
        from citewise.knowledge.vectors import open_index

        self.embedder = embedder
        self.model = embedder.name
        self.directory = Path(directory)
        self.vstore: VectorStore = VectorStore(db)
        self._lock = threading.RLock()
        self.index: VectorIndex
        self.index, self.seq = open_index(
            self.vstore, self.model, embedder.dim, self.directory,
            hnsw_threshold=hnsw_threshold, params=params,
        )
        self._saved_seq = self.seq
        self._queries: OrderedDict[str, NDArray[np.float32]] = OrderedDict()

    # -- writes -------------------------------------------------------------------------------

    def _embed(
        self, texts: Sequence[str], hashes: Sequence[bytes], stats: SyncStats,
        progress: Progress | None,
    ) -> NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        known = self.vstore.cached(self.model, hashes)
        todo = [i for i, h in enumerate(hashes) if h not in known]
        for i, h in enumerate(hashes):
            if h in known:
                out[i] = np.frombuffer(known[h], dtype="<f4")
        stats.cached += len(texts) - len(todo)
        if progress is not None:
            progress(0, len(todo))
        for b in range(0, len(todo), _EMBED_BATCH):
            idx = todo[b : b + _EMBED_BATCH]
            out[idx] = self.embedder.embed([texts[i] for i in idx])
            stats.embedded += len(idx)
            if progress is not None:
                progress(min(b + _EMBED_BATCH, len(todo)), len(todo))
        return out

    def _add(
        self, rows: Sequence[tuple[int, str, str]], stats: SyncStats, progress: Progress | None
    ) -> None:
        """Embed and store ``(chunk_id, document_id, text)`` rows."""
        if not rows:
            return
        hashes = [content_hash(text) for _, _, text in rows]
        vectors = self._embed([t for _, _, t in rows], hashes, stats, progress)
        self.vstore.put(
            self.model, [cid for cid, _, _ in rows], hashes, vectors,
            document_ids=[doc for _, doc, _ in rows],
        )
        _fault("dense:after_put")
        stats.added += len(rows)

    def _catch_up(self) -> None:
        """Replay the ``vec_log`` into the in-memory index (and checkpoint now and then)."""
        from citewise.knowledge.vectors import checkpoint, rebuild, replay

        log = self.vstore.log_since(self.model, self.seq)
        if log is None:  # another process pruned past us
            self.index, self.seq = rebuild(
                self.vstore, self.model, self.embedder.dim, self.directory,
                hnsw_threshold=self.index.hnsw_threshold, params=self.index.params,
            )
            self._saved_seq = self.seq
            return
        self.seq = replay(self.vstore, self.model, self.index, log, self.seq)
        if self.seq - self._saved_seq >= _CHECKPOINT_EVERY:
            checkpoint(self.vstore, self.model, self.index, self.seq, self.directory)
            self._saved_seq = self.seq

    def sync_documents(
        self, store: Store, ops: Sequence[IndexOp], *, progress: Progress | None = None
    ) -> SyncStats:
        """Make the vectors of the documents in ``ops`` match their chunks in ``store``."""
        stats = SyncStats()
        with self._lock:
            docs = list(dict.fromkeys((op.tenant, op.document_id) for op in ops))
            have = self.vstore.chunks_of_documents(self.model, [d for _, d in docs])
            add: list[tuple[int, str, str]] = []
            remove: list[int] = []
            for tenant, doc_id in docs:
                current = {c.id: c for c in store.get_document_chunks(tenant, doc_id)}
                old = have.get(doc_id, set())
                remove.extend(old - set(current))
                add.extend((cid, doc_id, current[cid].text) for cid in current if cid not in old)
            self._add(add, stats, progress)
            stats.removed = self.vstore.delete(self.model, remove) if remove else 0
            self._catch_up()
        return stats

    def reconcile(self, store: Store, *, progress: Progress | None = None) -> SyncStats:
        """Compare every chunk id in ``store`` (all tenants) with the stored vectors, and
        embed what is missing / drop what is gone."""
        stats = SyncStats()
        with self._lock:
            live = store.list_chunk_ids()
            have = self.vstore.chunk_ids(self.model)
            gone = sorted(have - live)
            if gone:
                stats.removed = self.vstore.delete(self.model, gone)
            missing = sorted(live - have)
            for i in range(0, len(missing), _READ_BATCH):
                chunks = store.get_chunks(missing[i : i + _READ_BATCH])
                self._add([(c.id, c.document_id, c.text) for c in chunks], stats, progress)
            self._catch_up()
        return stats

    def checkpoint(self) -> None:
        """Save the vector index files now (also done on close)."""
        from citewise.knowledge.vectors import checkpoint

        with self._lock:
            if self.seq != self._saved_seq:
                checkpoint(self.vstore, self.model, self.index, self.seq, self.directory)
                self._saved_seq = self.seq

    def close(self) -> None:
        self.checkpoint()
        self.vstore.close()

    # -- reads --------------------------------------------------------------------------------

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """The query's vector (the last 256 queries are cached)."""
        with self._lock:
            hit = self._queries.get(text)
            if hit is not None:
                self._queries.move_to_end(text)
                return hit
        vec: NDArray[np.float32] = self.embedder.embed([text])[0]
        with self._lock:
            self._queries[text] = vec
            if len(self._queries) > 256:
                self._queries.popitem(last=False)
        return vec

    def search(
        self, query: str | NDArray[np.float32], k: int, *, allow: Any = None
    ) -> list[tuple[int, float]]:
        vec = self.embed_query(query) if isinstance(query, str) else query
        with self._lock:
            return self.index.search(vec, k, allow=allow)


# -- retrieval ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Retrieval:
    """Hits best first, their evidence windows, and the counts ``QueryDetails`` reports."""

    hits: list[Hit]
    evidence: dict[int, SnippetEvidence | None] = field(default_factory=dict)
    fused: list[Fused] = field(default_factory=list)
    mode: Mode = "hybrid"
    retrieved: int = 0  # lexical + dense candidates that passed the filters
    compared: int = 0  # distinct candidates ranked (fused / reranked)
    ranking_fallback: bool = False  # dense was asked for but unavailable: lexical only


class Retriever:
    """Search one tenant's chunks lexically, densely or both (RRF)."""

    def __init__(
        self,
        store: Store,
        lexical: LexicalIndex,
        dense: DenseIndex | None = None,
        *,
        tenant: str = "default",
        reranker: Reranker | None = None,
        lexical_weight: float = 1.0,
        dense_weight: float = 1.0,
        candidates: int = 50,
        rrf_k: int = RRF_K,
        evidence_scorer: SentenceScorer | None = None,
    ) -> None:
        self.store = store
        self.lexical = lexical
        self.dense = dense
        self.tenant = tenant
        self.reranker = reranker
        self.lexical_weight = lexical_weight
        self.dense_weight = dense_weight
        self.candidates = candidates
        self.rrf_k = rrf_k
        self.evidence_scorer = evidence_scorer

    def search(
        self, query: str, *, k: int = 5, filters: Mapping[str, Any] | None = None
    ) -> list[Hit]:
        """The ``Searcher`` protocol of the ``search_knowledge`` tool (hybrid when a dense
        index is present)."""
        return self.retrieve(query, k=k, filters=filters).hits

    def retrieve(
        self,
        query: str,
        *,
        k: int = 5,
        mode: Mode | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        evidence: bool = True,
    ) -> Retrieval:
        if not isinstance(query, str):
            raise InvalidInput("query must be a string", code="invalid_query")
        if not 1 <= k <= 1000:
            raise InvalidInput(f"k must be in 1..1000, got {k}", code="invalid_k")
        flt = filters if isinstance(filters, Filters) else parse_filters(filters)
        wanted: Mode = mode or ("hybrid" if self.dense is not None else "lexical")
        fallback = wanted != "lexical" and self.dense is None
        if fallback:
            wanted = "lexical"
        n = max(k, self.candidates)
        contexts: dict[int, ChunkContext] = {}
        lex: list[tuple[int, float]] = []
        dense: list[tuple[int, float]] = []
        if wanted in ("lexical", "hybrid"):
            lex = self._lexical(query, n, flt, contexts)
        if wanted in ("dense", "hybrid"):
            dense = self._dense(query, n, flt, contexts)
        if wanted == "lexical":
            fused = [Fused(cid, s, lexical_rank=i, lexical_score=s) for i, (cid, s) in enumerate(lex, 1)]
        elif wanted == "dense":
            fused = [Fused(cid, s, dense_rank=i, dense_score=s) for i, (cid, s) in enumerate(dense, 1)]
        else:
            fused = rrf(
                lex, dense, k=self.rrf_k,
                lexical_weight=self.lexical_weight, dense_weight=self.dense_weight,
            )
        compared = len(fused)
        if self.reranker is not None and fused:
            texts = {f.chunk_id: contexts[f.chunk_id].chunk.text for f in fused[:n]}
            fused = rerank(query, fused, texts, self.reranker, top_n=n)
        top = fused[:k]
        hits = [_hit(contexts[f.chunk_id], _score(f)) for f in top]
        windows: dict[int, SnippetEvidence | None] = {}
        if evidence:
            for hit in hits:
                windows[hit.chunk_id] = best_window(query, hit.text, scorer=self.evidence_scorer)
        return Retrieval(
            hits=hits, evidence=windows, fused=top, mode=wanted,
            retrieved=len(lex) + len(dense), compared=compared, ranking_fallback=fallback,
        )

    # -- the two retrievers -------------------------------------------------------------------

    def _lexical(
        self, query: str, n: int, flt: Filters, contexts: dict[int, ChunkContext]
    ) -> list[tuple[int, float]]:
        pushed = flt.store_filters()
        document_ids = pushed.get("document_id")
        if "source" in pushed:
            from citewise.knowledge.ingest import document_id_for, source_for

            by_source = [
                document_id_for(self.tenant, s if "://" in s else source_for(s))
                for s in pushed["source"]
            ]
            document_ids = (
                by_source if document_ids is None else [d for d in document_ids if d in by_source]
            )
            if not document_ids:
                return []
        fetch = n if not _needs_post_filter(flt) else n * 4
        scored = self.lexical.search(
            query, fetch, tenant=self.tenant,
            collections=pushed.get("collection"), document_ids=document_ids,
        )
        return self._keep(scored, flt, contexts)[:n]

    def _dense(
        self, query: str, n: int, flt: Filters, contexts: dict[int, ChunkContext]
    ) -> list[tuple[int, float]]:
        assert self.dense is not None
        if not query.strip():
            return []
        vec = self.dense.embed_query(query)
        total = len(self.dense.index)
        fetch = n * (4 if flt else 2)
        while True:
            # Tenant and filters are checked against SQLite, so a chunk of another tenant
            # never comes back; ask for more until n pass or the index is exhausted.
            scored = self.dense.search(vec, min(fetch, total))
            kept = self._keep(scored, flt, contexts)
            if len(kept) >= n or fetch >= total or fetch >= 16 * max(n, 256):
                return kept[:n]
            fetch *= 4

    def _keep(
        self, scored: list[tuple[int, float]], flt: Filters, contexts: dict[int, ChunkContext]
    ) -> list[tuple[int, float]]:
        need = [cid for cid, _ in scored if cid not in contexts]
        if need:
            for found in self.store.get_chunk_contexts(self.tenant, need):
                contexts[found.chunk.id] = found
        out: list[tuple[int, float]] = []
        for cid, score in scored:
            ctx = contexts.get(cid)
            if ctx is not None and (not flt or flt.matches(_doc_view(ctx))):
                out.append((cid, score))
        return out


def _fault(point: str) -> None:
    """Die here when ``$CITEWISE_FAULT`` names this point (the crash tests; see sync.py)."""
    if os.environ.get("CITEWISE_FAULT") == point:
        os._exit(86)


def _needs_post_filter(flt: Filters) -> bool:
    return bool(flt.tags or flt.content_types or flt.date_from or flt.date_to) or any(
        any(ch in s for ch in "*?[") for s in flt.sources
    )


def _doc_view(ctx: ChunkContext) -> dict[str, Any]:
    return {
        "id": ctx.chunk.document_id,
        "collection": ctx.collection,
        "source": ctx.source,
        "content_type": ctx.content_type,
        "metadata": ctx.metadata,
    }


def _score(f: Fused) -> float:
    return f.rerank_score if f.rerank_score is not None else f.score


def _hit(ctx: ChunkContext, score: float) -> Hit:
    chunk = ctx.chunk
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
        metadata={
            **ctx.metadata,
            "title": ctx.title,
            "collection": ctx.collection,
            "content_type": ctx.content_type,
        },
    )
