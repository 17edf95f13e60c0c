"""Lexical, dense and hybrid retrieval over a knowledge base's store and indexes.

:class:`Retriever` searches one tenant's chunks lexically (tantivy BM25), densely (the
:class:`~citewise.knowledge.index.vectors.dense.DenseIndex`) or both fused (relative score fusion by
default; see :mod:`citewise.knowledge.retrieve.fusion`), applies the query's filters, optionally
reranks, and gives every hit its evidence window (the best sentence-level span for the query
inside the hit's text).

``DenseIndex`` and ``SyncStats`` live in :mod:`citewise.knowledge.index.vectors.dense` and are
re-exported here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from citewise.answer import SnippetEvidence
from citewise.errors import InvalidInput
from citewise.knowledge.index.vectors.dense import DenseIndex, SyncStats
from citewise.knowledge.retrieve.evidence import SentenceScorer, best_window, prepare
from citewise.knowledge.retrieve.filters import Filters, parse_filters
from citewise.knowledge.retrieve.fusion import (
    DEFAULT_FUSION,
    RRF_K,
    Fused,
    FusionMethod,
    Reranker,
    Row,
    check_fusion,
    fuse_rows,
    rerank,
)
from citewise.knowledge.retrieve.fusion import fused as _fused
from citewise.knowledge.retrieve.hits import Hit, hit_from_context
from citewise.knowledge.retrieve.passing import Passing
from citewise.knowledge.retrieve.query import compounds, detect_language, keywords
from citewise.store.base import ChunkContext, Store

if TYPE_CHECKING:
    from citewise.knowledge.index.contract import LexicalSearch, VectorSearch

__all__ = ["CANDIDATES", "MODES", "DenseIndex", "Mode", "Retrieval", "Retriever", "SyncStats"]

Mode = Literal["lexical", "dense", "hybrid"]
MODES: tuple[Mode, ...] = ("lexical", "dense", "hybrid")
MAX_K = 1000
#: Candidates each retriever hands to fusion (at least ``k``). 40 ranks exactly as 50 did
#: on ``bench/relevance.py`` (30 lost a little nDCG) and lets the vector search run at
#: ef 40: ~0.3 ms of a ~2.5 ms hybrid search at 100k chunks.
CANDIDATES = 40
# The words of a query looked up by :meth:`Retriever.unmentioned` (as many as a lexical
# search's terms): a 2,000-character query is not 300 index lookups.
_MAX_WORDS = 64
# Longer words are no index term (tantivy drops them): never reported, on either backend.
_LONGEST = 40


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
    """Search one tenant's chunks lexically, densely or both (fused, see ``fusion``)."""

    def __init__(
        self,
        store: Store,
        lexical: LexicalSearch,
        dense: VectorSearch | None = None,
        *,
        tenant: str = "default",
        reranker: Reranker | None = None,
        lexical_weight: float = 1.0,
        dense_weight: float = 1.0,
        candidates: int = CANDIDATES,
        rrf_k: int = RRF_K,
        fusion: FusionMethod = DEFAULT_FUSION,
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
        #: How hybrid search fuses the two lists (see :mod:`citewise.knowledge.retrieve.fusion`).
        self.fusion = check_fusion(
            fusion, k=rrf_k, lexical_weight=lexical_weight, dense_weight=dense_weight
        )
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
        """The ``k`` best chunks for ``query``; ``mode`` defaults to hybrid when a dense
        index is present, else lexical (dense asked for without one falls back to lexical
        and says so in ``ranking_fallback``)."""
        if not isinstance(query, str):
            raise InvalidInput("query must be a string", code="invalid_query")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be in 1..{MAX_K}, got {k!r}", code="invalid_k")
        if mode is not None and mode not in MODES:
            raise InvalidInput(
                f"mode must be one of {', '.join(MODES)}, got {mode!r}", code="invalid_mode"
            )
        flt = filters if isinstance(filters, Filters) else parse_filters(filters)
        flt = _absolute_sources(flt)
        wanted: Mode = mode or ("hybrid" if self.dense is not None else "lexical")
        fallback = wanted != "lexical" and self.dense is None
        if fallback:
            wanted = "lexical"
        n = max(k, self.candidates)
        contexts: dict[int, ChunkContext] = {}
        lex: list[tuple[int, float]] = []
        dense: list[tuple[int, float]] = []
        pending = None
        if wanted == "hybrid" and not flt:
            pending = _submit_dense(self, query, n)
        # A filter is judged per document, once per search (see ``passing``).
        passing = Passing(self.store, self.tenant, flt) if flt else None
        if wanted in ("lexical", "hybrid"):
            lex = self._lexical(query, n, flt, passing)
        if pending is not None:
            dense = pending.result()
        elif wanted in ("dense", "hybrid"):
            dense = self._dense(query, n, passing)
        rows: list[Row]
        if wanted == "lexical":
            rows = [(-s, cid, s, i, None, s, None) for i, (cid, s) in enumerate(lex, 1)]
        elif wanted == "dense":
            rows = [(-s, cid, s, None, i, None, s) for i, (cid, s) in enumerate(dense, 1)]
        else:
            rows = fuse_rows(
                lex, dense, method=self.fusion, k=self.rrf_k,
                lexical_weight=self.lexical_weight, dense_weight=self.dense_weight,
            )
        compared = len(rows)
        if self.reranker is not None and rows:
            fused = [_fused(r) for r in rows]
            self._hydrate([f.chunk_id for f in fused[:n]], contexts)
            fused = [f for f in fused[:n] if f.chunk_id in contexts] + fused[n:]
            texts = {f.chunk_id: contexts[f.chunk_id].chunk.text for f in fused[:n]}
            fused = rerank(query, fused, texts, self.reranker, top_n=n)
            top = self._take(fused, k, contexts, _fused_id, _same)
        else:
            # Only the returned head becomes ``Fused`` objects (see ``hybrid.Row``).
            top = self._take(rows, k, contexts, _row_id, _fused)
        windows: dict[int, SnippetEvidence | None] = {}
        if evidence and top:
            terms = prepare(query)  # the query is tokenised once, not once per hit
            for f in top:
                text = contexts[f.chunk_id].chunk.text
                windows[f.chunk_id] = best_window(terms, text, scorer=self.evidence_scorer)
        hits = [hit_from_context(contexts[f.chunk_id], _score(f), windows.get(f.chunk_id)) for f in top]
        return Retrieval(
            hits=hits, evidence=windows, fused=top, mode=wanted,
            retrieved=len(lex) + len(dense), compared=compared, ranking_fallback=fallback,
        )

    def unmentioned(self, query: str) -> list[str]:
        """The keywords of ``query`` that no chunk of the tenant contains (numbers aside:
        "44.1 kHz" is the asker's value), as the query wrote them, lower-cased. Queries
        read as English only: the indexes stem English, so a French or German word is
        "missing" whenever the documents inflect it otherwise (the handbook sets of
        ``bench/languages.py`` declined twice as many answerable questions with them); a
        query of keywords alone, with no function word to tell its language by, reports
        nothing either."""
        if detect_language(query) != "en":
            return []  # another language, or none told (keywords alone, a Polish question)
        words = [w for w in keywords(query, "en")
                 if not w.isdigit() and len(w) <= _LONGEST][:_MAX_WORDS]
        return self.lexical.unmentioned(words, tenant=self.tenant) if words else []

    # -- the two retrievers -------------------------------------------------------------------

    def _lexical(
        self, query: str, n: int, flt: Filters, passing: Passing | None
    ) -> list[tuple[int, float]]:
        pushed = flt.store_filters()
        document_ids = pushed.get("document_id")
        if "source" in pushed:
            from citewise.knowledge.ingest.pipeline import document_id_for

            by_source = [document_id_for(self.tenant, s) for s in pushed["source"]]
            document_ids = (
                by_source if document_ids is None else [d for d in document_ids if d in by_source]
            )
            if not document_ids:
                return []
        post = _needs_post_filter(flt)
        query = " ".join((query, *compounds(query)))  # "back up" finds "backup" too
        scored = self.lexical.search(
            query, n * 4 if post else n, tenant=self.tenant,
            collections=pushed.get("collection"), document_ids=document_ids,
        )
        if not post or passing is None:
            # tantivy applied the tenant and every filter itself: nothing to check here,
            # and only the hits that make the final cut are read from SQLite.
            return scored[:n]
        kept = passing.keep(scored)
        if len(kept) >= n or len(scored) < n * 4:
            return kept[:n]
        # Tags, a type, dates or a glob are judged here, not in tantivy: when the first
        # 4n matches hold too few documents that pass, the passing ones are named to it
        # (a tagged document below thirty others was never found). See ``passing``.
        named = passing.every()
        if document_ids is not None:
            allowed = set(document_ids)
            named = [d for d in named if d in allowed]
        if not named:
            return []
        return self.lexical.search(
            query, n, tenant=self.tenant, collections=pushed.get("collection"),
            document_ids=named,
        )

    def _dense(self, query: str, n: int, passing: Passing | None) -> list[tuple[int, float]]:
        assert self.dense is not None
        if not query.strip():
            return []
        vec = self.dense.embed_query(query)
        if passing is None:
            # The vector index keeps each tenant's vectors apart (one shard per tenant):
            # its hits are this tenant's chunks, so none is read from SQLite here — only
            # the ones that make the final cut are (``_take``, which also skips a chunk
            # deleted since).
            return self.dense.search(vec, n, tenant=self.tenant)
        total = self.dense.count(self.tenant)
        fetch = n * 4
        while True:
            # Metadata filters are checked against SQLite: ask for more until n pass or
            # the tenant's vectors are exhausted.
            scored = self.dense.search(vec, min(fetch, total), tenant=self.tenant)
            kept = passing.keep(scored)
            if len(kept) >= n or fetch >= total or fetch >= 16 * max(n, 256):
                return kept[:n]
            fetch *= 4

    def _take(
        self,
        ranked: Sequence[_T],
        k: int,
        contexts: dict[int, ChunkContext],
        chunk_id: Callable[[_T], int],
        make: Callable[[_T], Fused],
    ) -> list[Fused]:
        """The first ``k`` of ``ranked`` whose chunk SQLite still has, as ``Fused`` (an
        index may briefly hold a chunk deleted since: it is skipped, and the next one takes
        its place). A passage whose text an earlier one has word for word is skipped too:
        Ghostscript's index.html is a copy of its Readme.html, and each of their passages
        took two of an answer's twelve places (review, 2026-12-08). The two score alike;
        which is kept is the order they tie in (a stale copy under a path that is gone is
        a moved file's, which ingest removes: ``knowledge.ingest.moves``)."""
        top: list[Fused] = []
        seen: set[str] = set()
        i = 0
        while len(top) < k and i < len(ranked):
            batch = ranked[i : i + k - len(top)]
            i += len(batch)
            self._hydrate([chunk_id(x) for x in batch], contexts)
            for x in batch:
                found = contexts.get(chunk_id(x))
                if found is not None and found.chunk.text not in seen:
                    seen.add(found.chunk.text)
                    top.append(make(x))
        return top

    def _hydrate(self, chunk_ids: list[int], contexts: dict[int, ChunkContext]) -> None:
        need = [cid for cid in chunk_ids if cid not in contexts]
        if need:
            for found in self.store.get_chunk_contexts(self.tenant, need):
                contexts[found.chunk.id] = found


# -- the dense search beside the lexical one ----------------------------------------------------

# A hybrid search runs its two retrievers at once: the HNSW search (and, with a real
# embedder, the query embedding) runs on a pool thread while the calling thread searches
# tantivy. Both release the GIL in native code, so with a core to spare the search costs
# about the slower of the two instead of their sum (at 100k chunks the vector search,
# ~1 ms, hides the lexical one, ~0.4 ms). On the shared 2-core bench machine with the
# other core busy, the hand-off measured neutral (within the run-to-run noise, ~0.3 ms).
# With one usable core there is nothing to overlap, so the search runs inline.
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
_pool_lock = threading.Lock()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _dense_pool() -> ThreadPoolExecutor | None:
    global _pool, _pool_pid
    pid = os.getpid()
    if _pool is not None and _pool_pid == pid:
        return _pool
    with _pool_lock:
        if _pool is None or _pool_pid != pid:  # first use, or a forked child (no threads)
            cores = _cores()
            if cores < 2:
                return None
            _pool = ThreadPoolExecutor(max_workers=cores, thread_name_prefix="citewise-dense")
            _pool_pid = pid
        return _pool


def _submit_dense(
    retriever: Retriever, query: str, n: int
) -> Future[list[tuple[int, float]]] | None:
    """The unfiltered dense top ``n`` for ``query``, started on the pool (None: no pool,
    run it inline). Unfiltered, it reads nothing from SQLite (see ``Retriever._dense``)."""
    pool = _dense_pool()
    if pool is None:
        return None
    return pool.submit(retriever._dense, query, n, None)


def _row_id(row: Row) -> int:
    return row[1]


def _fused_id(f: Fused) -> int:
    return f.chunk_id


def _same(f: Fused) -> Fused:
    return f


_T = TypeVar("_T")


def _absolute_sources(flt: Filters) -> Filters:
    """Source filters name files as ingest does: a relative path (not a URI, not a glob)
    means the absolute path it resolves to here."""
    if not flt.sources:
        return flt
    from citewise.knowledge.ingest.files import source_for

    def fix(s: str) -> str:
        return s if "://" in s or _is_glob(s) else source_for(s)

    return replace(flt, sources=tuple(fix(s) for s in flt.sources))


def _is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")  # as ``Filters.store_filters`` decides


def _needs_post_filter(flt: Filters) -> bool:
    return bool(flt.tags or flt.content_types or flt.date_from or flt.date_to) or any(
        _is_glob(s) for s in flt.sources
    )


def _score(f: Fused) -> float:
    return f.rerank_score if f.rerank_score is not None else f.score
