"""BM25 search over chunks with tantivy, in a folder beside the SQLite file.

The index is *derived*: SQLite is the source of truth and ``knowledge/sync.py`` keeps
this in step through the outbox. Its fields are laid out in :mod:`.tantivy_schema`:
the chunk's ``text`` and its ``heading`` (document title and section path,
:mod:`.headings`) are both BM25 fields; a query's terms match each, the heading's score
multiplied by the heading boost, so a question naming a document ranks it first.

User query text never meets tantivy's query parser: it is tokenized here with the same
analyzer as ``en_stem`` and turned into term queries, so no input can make a query fail.
"""

from __future__ import annotations

import math
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NamedTuple

import tantivy

from citewise.knowledge.index import headings
from citewise.knowledge.index.contract import MENTIONS_FROM
from citewise.knowledge.index.tantivy_schema import HEADING, TEXT, Batch, analyzer
from citewise.knowledge.index.tantivy_schema import schema as _schema
from citewise.knowledge.index.tantivy_snapshot import Snapshot
from citewise.text import search_text

__all__ = ["ANALYSIS", "LexicalIndex", "WriterBusy"]

#: The text analysis an index was built with (``ANALYSIS`` in its folder): an index of an
#: older one is rebuilt on open. "3": CJK runs (NFKC) indexed as character bigrams and
#: unigrams. "4": the ``heading`` field (title and section path, issue #27). "5": "C++",
#: "C#" and the like as one word each (:func:`citewise.text.symbol_names`).
ANALYSIS = "en_stem+cjk-bigrams-3+heading-4+symbols-5"
_ANALYSIS_FILE = "ANALYSIS"
_MAX_QUERY_TERMS = 64
# Filter values up to this many become term queries; more, one term-set query.
_MAX_TERM_UNION = 256
# Run unfiltered first (then prove the filters) only when each filter's values are
# carried by at least this share of the documents, and each filter has at most
# _MAX_PROBED values (a document-frequency lookup each).
_BROAD_SHARE = 0.9
_MAX_PROBED = 32
# Terms in more than this share of the documents only score, never select, candidates
# when the query has rarer terms and the result provably stays exact (see _top).
_FREQUENT_SHARE = 0.05
_K1_PLUS_1 = 2.2  # tantivy's BM25 k1 = 1.2
# Room for tantivy's float32 arithmetic against our float64 bound.
_BOUND_MARGIN = 1.001

Filters = list[tuple[str, list[str]]]


class _Clause(NamedTuple):
    """One query term in one field: scored ``boost`` x BM25; ``df`` its document frequency."""

    field: str
    term: str
    boost: float
    df: int


class WriterBusy(RuntimeError):
    """Another process holds the index writer for longer than we were willing to wait."""


class LexicalIndex:
    """One tantivy index directory. Thread-safe; one writer at a time per directory."""

    def __init__(
        self,
        path: str | Path,
        *,
        writer_heap_bytes: int = 128_000_000,
        heading_boost: float | None = None,
    ) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        #: True when the directory held no index before (a rebuild from SQLite is due).
        self.created = not (self.path / "meta.json").exists()
        #: True when the index was built with an older text analysis (a rebuild is due);
        #: :meth:`mark_current` records the present one once it is rebuilt.
        self.outdated = not self.created and self._analysis() != ANALYSIS
        #: The heading field's boost; None: :data:`.headings.HEADING_BOOST` at each search.
        self.heading_boost = heading_boost
        self._schema = _schema()
        self._handle: tantivy.Index | None = self._open()
        self._analyzer = analyzer()
        self._heap = writer_heap_bytes
        self._write_lock = threading.Lock()

    def _open(self) -> tantivy.Index:
        try:
            return tantivy.Index(self._schema, path=str(self.path), reuse=True)
        except ValueError as exc:
            if not self.outdated or "schema does not match" not in str(exc):
                raise
        # An index of an older analysis with fewer fields cannot be opened with today's
        # schema: it is derived data, due for a rebuild from SQLite anyway, so it is
        # started afresh (as a created one, which the opener rebuilds).
        shutil.rmtree(self.path)
        self.path.mkdir(parents=True)
        self.created, self.outdated = True, False
        return tantivy.Index(self._schema, path=str(self.path), reuse=True)

    def _analysis(self) -> str | None:
        try:
            return (self.path / _ANALYSIS_FILE).read_text().strip()
        except OSError:
            return None

    def refresh_state(self) -> None:
        """Read :attr:`created` / :attr:`outdated` again: another process may have built
        or rebuilt the index since this one opened it."""
        if self.created and self._index_has_docs():
            self.created = False
        self.outdated = not self.created and self._analysis() != ANALYSIS

    def _index_has_docs(self) -> bool:
        self._index.reload()
        return int(self._index.searcher().num_docs) > 0

    def mark_current(self) -> None:
        """Record that every document is indexed with the present text analysis."""
        tmp = self.path / f"{_ANALYSIS_FILE}.tmp"
        tmp.write_text(ANALYSIS + "\n")
        tmp.replace(self.path / _ANALYSIS_FILE)
        self.outdated = False

    @property
    def _index(self) -> tantivy.Index:
        if self._handle is None:
            raise RuntimeError(f"search index closed: {self.path}")
        return self._handle

    # -- writing --------------------------------------------------------------------------
    @contextmanager
    def writer(self, *, wait_s: float = 60.0) -> Iterator[Batch]:
        """A batch of deletes and adds, committed once when the block exits normally.

        Waits up to ``wait_s`` for another process's writer; raises :class:`WriterBusy`
        after that. On an exception nothing of the batch is committed.
        """
        with self._write_lock:
            raw = self._acquire(wait_s)
            # A writer killed after writing a segment's delete file but before its commit
            # landed leaves that file behind, and a later commit at the same opstamp then
            # fails on it (FileAlreadyExists, seen in tests/test_crash.py). tantivy lists
            # every file it creates before creating it, so its garbage collection — files
            # no commit refers to — removes such leftovers; we hold the lock, so no other
            # writer's files are in flight.
            with suppress(ValueError, OSError):
                raw.garbage_collect_files()
            batch = Batch(raw, self._schema)
            try:
                yield batch
                raw.commit()
            except BaseException:
                raw.rollback()
                raise
            finally:
                # Waits for merges and drops the writer, releasing the directory lock.
                raw.wait_merging_threads()
            self._index.reload()

    def _acquire(self, wait_s: float) -> Any:
        deadline = time.monotonic() + wait_s
        delay = 0.01
        while True:
            try:
                return self._index.writer(heap_size=self._heap)
            except ValueError as exc:
                if "LockBusy" not in str(exc) or time.monotonic() > deadline:
                    raise WriterBusy(f"index writer busy: {self.path}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)

    # -- reading --------------------------------------------------------------------------
    def query_terms(self, text: str) -> list[str]:
        """The distinct index terms of ``text`` (what a search will look for)."""
        seen = dict.fromkeys(self._analyzer.analyze(search_text(text)))
        return list(seen)[:_MAX_QUERY_TERMS]

    def unmentioned(self, words: Sequence[str], *, tenant: str) -> list[str]:
        """Those of ``words`` that no chunk of ``tenant`` contains, in its text or its
        heading, under the index's analysis ("multithreaded" is "multithread"); a word the
        analysis keeps nothing of is never one, a word of several terms is one when none
        of them occurs ("e-mail": "e", "mail"). Nothing in a tenant of fewer than
        :data:`~.contract.MENTIONS_FROM` live chunks."""
        snap = Snapshot(self._index.searcher(), self._schema, tenant)
        if snap.tenant_chunks() < MENTIONS_FROM:
            return []
        return [w for w in words if (terms := self._analyzer.analyze(search_text(w)))
                and not any(snap.occurs(f, t) for t in terms for f in (TEXT, HEADING))]

    def search(
        self,
        query: str,
        k: int,
        *,
        tenant: str,
        collections: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``k`` ``(chunk_id, score)`` by BM25 among this tenant's chunks.

        tantivy-py collects top hits without block-max WAND (its ``search`` wraps the
        top-docs collector in a multi-collector, which disables pruning), so a query costs
        about the postings it walks. Two exact shortcuts keep that small at 1M chunks
        (issue #3; measured with ``bench/lexical_probe.py``):

        * Filters that hold for (nearly) every document — the tenant of a one-tenant
          index — are the common case, and as a clause on a term every document has they
          double the walk. Such a query runs *without* them, then proves on the same
          index snapshot that every hit passes (:meth:`_hits_pass`): the top hits of a
          superset that all pass are the filtered top hits, with the same BM25 scores
          (filters are score-free; BM25 statistics are index-wide either way). When the
          proof fails, or the filters are selective, the filtered query runs as before.
        * Very common terms (in > ``_FREQUENT_SHARE`` of the documents) beside rarer ones
          only score, not select, documents (:meth:`_top`) — kept only when the k-th
          score provably beats anything the common terms alone could score.

        Each query term is a clause in ``text`` and, unless the boost is 0, a boosted
        clause in ``heading``; both shortcuts hold clause by clause (the filters stay
        score-free, and a clause's bound is its boost x BM25's).
        """
        terms = self.query_terms(query)
        if not terms or k <= 0:
            return []
        if collections is not None and not collections:
            return []
        if document_ids is not None and not document_ids:
            return []
        filters: Filters = [("tenant", [tenant])]
        if collections is not None:
            filters.append(("collection", list(dict.fromkeys(collections))))
        if document_ids is not None:
            filters.append(("document_id", list(dict.fromkeys(document_ids))))
        snap = Snapshot(self._index.searcher(), self._schema, tenant)
        boost = headings.HEADING_BOOST if self.heading_boost is None else self.heading_boost
        fields = [(TEXT, 1.0), (HEADING, float(boost))] if boost > 0 else [(TEXT, 1.0)]
        # A term no document has (deleted ones included) matches and scores nothing.
        clauses = [
            _Clause(field, t, weight, df)
            for field, weight in fields
            for t in terms
            if (df := snap.searcher.doc_freq(field, t)) > 0
        ]
        if not clauses or snap.alive == 0:
            return []
        k = min(k, snap.alive)  # no more hits exist; and tantivy sizes its heap by k
        if _broad(snap, filters):
            hits = self._top(snap, clauses, k, ())
            if not hits:
                return []  # nothing matches even unfiltered
            if self._hits_pass(snap, hits, filters):
                return _scored(snap.searcher, hits)
        flt = tuple((tantivy.Occur.Must, self._filter(f, v)) for f, v in filters)
        return _scored(snap.searcher, self._top(snap, clauses, k, flt))

    def _top(
        self, snap: Snapshot, clauses: list[_Clause], k: int, flt: tuple[Any, ...]
    ) -> list[tuple[Any, Any]]:
        """Top ``k`` hits of the clauses (OR, boosted BM25) under the filter clauses ``flt``."""
        Q, Occur = tantivy.Query, tantivy.Occur
        common = [c for c in clauses if c.df > _FREQUENT_SHARE * snap.alive]
        rare = [c for c in clauses if c not in common]
        if common and rare and sum(c.df for c in rare) >= k:
            # MaxScore-style: only documents with a rare clause are candidates; the common
            # clauses still add their score to them. A document with common clauses only
            # scores below sum(boost * idf * (k1 + 1)) over those (BM25's bound as
            # tf → ∞), so when the k-th candidate beats that, these are the exact top k.
            split = [(Occur.Must, self._any(rare))]
            split += [(Occur.Should, self._any([c])) for c in common]
            hits = snap.searcher.search(Q.boolean_query([*split, *flt]), k, count=False).hits
            n = snap.total(hits[0][1]) if len(hits) == k else None
            if n is not None:
                bound = sum(c.boost * _K1_PLUS_1 * _idf(c.df, n) for c in common)
                if float(hits[-1][0]) > bound * _BOUND_MARGIN:
                    return list(hits)
        every = self._any(clauses)
        query = Q.boolean_query([(Occur.Must, every), *flt]) if flt else every
        return list(snap.searcher.search(query, k, count=False).hits)

    def _any(self, clauses: Sequence[_Clause]) -> Any:
        Q, Occur = tantivy.Query, tantivy.Occur
        queries = [Q.term_query(self._schema, c.field, c.term) for c in clauses]
        queries = [
            q if c.boost == 1.0 else Q.boost_query(q, c.boost)
            for q, c in zip(queries, clauses, strict=True)
        ]
        if len(queries) == 1:
            # The bare term query: its block-wise scan is ~1.5x faster than the same
            # term inside a boolean query (measured on a 137k-posting term).
            return queries[0]
        return Q.boolean_query([(Occur.Should, q) for q in queries])

    def _hits_pass(self, snap: Snapshot, hits: list[tuple[Any, Any]], filters: Filters) -> bool:
        """Whether every hit of the unfiltered query passes ``filters`` (same snapshot)."""
        # Cheap proof: a filter's values are carried by every document of the snapshot
        # (deleted ones included), i.e. their document frequencies sum to N. Each
        # document has exactly one tenant / collection / document_id, so that sum reaches
        # N only then.
        total = snap.total(hits[0][1])
        if total is not None and all(
            sum(snap.searcher.doc_freq(field, v) for v in values) == total
            for field, values in filters
        ):
            return True
        # Otherwise ask the index which hits pass: (chunk_id in the hits' ids) AND filters.
        # Compared by address, so even a chunk id indexed twice cannot vouch for another
        # document; more matches than fetched means "cannot tell" → the filtered query.
        Q, Occur = tantivy.Query, tantivy.Occur
        ids = snap.searcher.fast_field_values("chunk_id", [addr for _, addr in hits])
        known = sorted({int(i) for i in ids if i is not None})
        if len(known) != len(hits):
            return False
        by_id = Q.boolean_query(
            [(Occur.Should, Q.term_query(self._schema, "chunk_id", i)) for i in known]
        )
        clauses = [(Occur.Must, by_id)]
        clauses += [(Occur.Must, self._filter(field, values)) for field, values in filters]
        check = snap.searcher.search(Q.boolean_query(clauses), len(hits) + 1, count=False)
        passed = {_addr(a) for _, a in check.hits}
        return len(check.hits) <= len(hits) and all(_addr(a) in passed for _, a in hits)

    def _filter(self, field: str, values: Sequence[str]) -> Any:
        # Score-free: filters must not change BM25 ranking.
        Q, Occur = tantivy.Query, tantivy.Occur
        if len(values) == 1:
            inner = Q.term_query(self._schema, field, values[0])
        elif len(values) <= _MAX_TERM_UNION:
            # A few term lookups; a term-set query walks the whole term dictionary of
            # the field (measured: 9 ms on the million chunk ids of a 1M-chunk index).
            inner = Q.boolean_query(
                [(Occur.Should, Q.term_query(self._schema, field, v)) for v in values]
            )
        else:
            inner = Q.term_set_query(self._schema, field, list(values))
        return Q.const_score_query(inner, 0.0)

    def all_chunk_ids(self) -> set[int]:
        """Every chunk id in the index (for consistency checks; reads the whole index)."""
        self._index.reload()
        searcher = self._index.searcher()
        n = searcher.num_docs
        if n == 0:
            return set()
        result = searcher.search(tantivy.Query.all_query(), n, count=False)
        values = searcher.fast_field_values("chunk_id", [a for _, a in result.hits])
        return {int(v) for v in values if v is not None}

    def num_docs(self) -> int:
        self._index.reload()
        return int(self._index.searcher().num_docs)

    def reload(self) -> None:
        """See other processes' commits now (otherwise they show up shortly)."""
        self._index.reload()

    def close(self) -> None:
        """Drop the index handle, and with it the reader's file-watching thread."""
        with self._write_lock:
            self._handle = None


def _broad(snap: Snapshot, filters: Filters) -> bool:
    """Whether every filter's values are carried by >= ``_BROAD_SHARE`` of the docs."""
    for field, values in filters:
        if len(values) > _MAX_PROBED:
            return False
        # doc_freq counts deleted documents too: only an estimate, never trusted alone.
        if sum(snap.searcher.doc_freq(field, v) for v in values) < _BROAD_SHARE * snap.alive:
            return False
    return True


def _idf(doc_freq: int, total: int) -> float:
    # tantivy's BM25 idf (query/bm25.rs), in float64.
    return math.log(1.0 + (total - doc_freq + 0.5) / (doc_freq + 0.5))


def _addr(addr: Any) -> tuple[int, int]:
    return int(addr.segment_ord), int(addr.doc)


def _scored(searcher: Any, hits: list[tuple[Any, Any]]) -> list[tuple[int, float]]:
    ids = searcher.fast_field_values("chunk_id", [addr for _, addr in hits])
    return [
        (int(cid), float(score))
        for (score, _), cid in zip(hits, ids, strict=True)
        if cid is not None
    ]
