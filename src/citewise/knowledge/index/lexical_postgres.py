"""Lexical search inside PostgreSQL: BM25 over a generated ``tsvector`` of every chunk.

On SQLite the lexical index is a tantivy folder beside the database file, derived from it
through the outbox. Replicas sharing one PostgreSQL database have no folder in common,
so there the database indexes chunk text itself:

* ``chunks.search_tsv`` is a *generated* column, ``to_tsvector('english', …)`` of the
  text with CJK runs cut into character bigrams (lower-cased, English-stemmed, stop words
  dropped — close to tantivy's ``en_stem``), with a GIN index. It is written in the same
  statement as the chunk, so a chunk is searchable exactly when it is committed, by every
  replica, and there is nothing to sync or rebuild after a crash. Created idempotently
  under the migration lock, like the other PostgreSQL-only objects
  (:mod:`.lexical_postgres_schema`); not part of the shared :mod:`citewise.store.schema`.
* Ranking is BM25 (k1 = 1.2, b = 0.75, tantivy's constants) computed in SQL. The query's
  lexemes come from the same ``to_tsvector`` (so user text can never make a query fail);
  a lexeme's term frequency in a chunk is read back from ``ts_rank`` (see
  :func:`_score_sql`: ~15x cheaper than unnesting the tsvector); document length is the
  chunk's length in characters (a tsvector keeps no token count), against the tenant's
  mean, which the caller passes in (:func:`tenant_stats`, cached by the searcher).
* ``chunks.heading_tsv`` holds the chunk's heading (its document's title and its section
  path; kept by triggers): each query lexeme is also scored there by BM25 (its own
  document frequencies, and length in lexemes against the tenant's mean), multiplied by
  the heading boost (:data:`.headings.HEADING_BOOST`), so a question naming a document
  ranks it first. A boost of 0 leaves the column unread. The boost is small, so rows
  are first selected by the body's rare lexemes alone; the heading's select more only
  when the k-th score does not beat what a row without a rare body lexeme could reach.
* PostgreSQL has no WAND-style pruning, so a lexeme found in many chunks would make every
  one of them a candidate. Lexemes in fewer than :data:`COMMON` chunks select the
  candidates and every lexeme scores them (a lexeme in the body and in headings counts as
  two, each rare or common by its own frequency); the result is exact when the k-th score beats
  what a row with only common lexemes could reach, as the tantivy path proves its own
  shortcut. Otherwise (every lexeme common: a query of near-stopwords) a bounded sample
  of the rows with common lexemes is scored too — approximate, bounded cost.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import sqlalchemy as sa

from citewise.knowledge.index import headings
from citewise.knowledge.index.contract import MENTIONS_FROM
from citewise.knowledge.index.lexical_postgres_schema import (
    ANALYSE,
    COLUMN,
    CONFIG,
    HEADING,
    QUERY_ANALYSE,
    ensure,
)
from citewise.knowledge.index.lexical_postgres_words import quoted, unmentioned

if TYPE_CHECKING:
    from citewise.store.postgres import PostgresStore

__all__ = [
    "ANALYSE", "COLUMN", "HEADING", "MAX_TERMS", "STATS_TTL_S", "PostgresLexical", "Stats",
    "ensure", "search", "tenant_stats",
]

#: How long a tenant's BM25 statistics (chunk count, mean length) are reused.
STATS_TTL_S = 5.0

MAX_TERMS = 64  # as the tantivy index's query
K1 = 1.2
B = 0.75
#: A lexeme in at least this many of a tenant's chunks is *common*: it scores the rows the
#: rarer lexemes select, but selects rows itself only when the rarer ones cannot prove
#: the top k (see :func:`search`).
COMMON = 1000
#: Rows read to estimate a common lexeme's frequency, and scored when only common
#: lexemes are left to select with.
SAMPLE = 2000
_ZETA2 = math.pi**2 / 6


class Stats(NamedTuple):
    """A tenant's BM25 statistics: chunks, mean body length (characters), mean heading
    length (lexemes)."""

    chunks: int
    mean_length: float
    mean_heading: float = 0.0


class _Term(NamedTuple):
    """One query lexeme in one column, scored ``boost`` x BM25 there."""

    column: str
    lexeme: str
    boost: float
    df: int
    idf: float


def tenant_stats(conn: sa.Connection, tenant: str) -> Stats:
    """The tenant's chunk count, mean length in characters and mean heading length."""
    row = conn.execute(
        sa.text(
            f"SELECT count(*), avg(length(text)), avg(length({HEADING})) FROM chunks"
            " WHERE tenant = :tenant"
        ),
        {"tenant": tenant},
    ).one()
    return Stats(int(row[0]), float(row[1] or 0.0), float(row[2] or 0.0))


def query_lexemes(conn: sa.Connection, query: str) -> list[str]:
    """The distinct lexemes of ``query`` under the index's configuration (first
    :data:`MAX_TERMS`, in order of first appearance)."""
    text = query.replace("\x00", " ")  # PostgreSQL refuses NUL in text
    rows = conn.execute(
        sa.text(
            "SELECT lexeme FROM unnest(to_tsvector(CAST(:config AS regconfig),"
            f" {QUERY_ANALYSE}(:q)))"
            " ORDER BY positions[1]"
        ),
        {"config": CONFIG, "q": text},
    )
    return [r[0] for r in rows][:MAX_TERMS]


def search(
    conn: sa.Connection,
    tenant: str,
    query: str,
    k: int,
    *,
    stats: tuple[int, float] | Stats,
    collections: Sequence[str] | None = None,
    document_ids: Sequence[str] | None = None,
    heading_boost: float | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` ``(chunk_id, BM25 score)`` of the tenant's chunks for ``query`` (any
    lexeme matches, in the body or, boosted, in the heading; scores add up), best first;
    ties by chunk id.

    Exact BM25 unless every lexeme of the query is common (in :data:`COMMON` chunks or
    more) or rows holding only common lexemes could rank: then a bounded sample of those
    rows is scored too (see the module's docstring).
    """
    stats = Stats(*stats)
    n = stats.chunks
    boost = headings.HEADING_BOOST if heading_boost is None else heading_boost
    if k < 1 or n == 0:
        return []
    if (collections is not None and not collections) or (
        document_ids is not None and not document_ids
    ):
        return []
    lexemes = query_lexemes(conn, query)
    if not lexemes:
        return []
    scope, params = _scope(tenant, collections, document_ids)
    columns = [(COLUMN, 1.0), (HEADING, float(boost))] if boost > 0 else [(COLUMN, 1.0)]
    pairs = [(column, t) for column, _ in columns for t in lexemes]
    weights = dict(columns)
    terms = [
        _Term(column, t, weights[column], df, _idf(df, max(n, df)))
        for (column, t), df in zip(pairs, _dfs(conn, tenant, pairs, n), strict=True)
        if df > 0
    ]
    if not terms:
        return []
    rare = [t for t in terms if t.df < COMMON]
    common = [t for t in terms if t.df >= COMMON]
    score = _score_sql(terms, params, stats)
    hits: dict[int, float] = {}
    body = [t for t in rare if t.column == COLUMN]
    if rare:
        # Candidates: rows with a rare lexeme (at most COMMON each), scored on every one.
        # Those with a rare body lexeme first: enough when no row without one (its best:
        # every other term at BM25's bound) can reach the k-th score — the common case,
        # the heading's boost being small; otherwise the rows only a rare heading lexeme
        # selects are scored too (top k of each half: the top k of the whole).
        first = _any(body, params, "b") if body else _any(rare, params, "r")
        hits.update(_run(conn, score, scope, first, params, k, None))
        if body and len(body) < len(rare):
            bound = sum(t.boost * t.idf * (K1 + 1) for t in terms if t not in body)
            if len(hits) >= k and sorted(hits.values())[-k] > bound:
                return _top(hits, k)
            heading = [t for t in rare if t.column != COLUMN]
            rest = f"{_any(heading, params, 'h')} AND NOT {first}"
            hits.update(_run(conn, score, scope, rest, params, k, None))
        # The most a row with common lexemes only can score:
        bound = sum(t.boost * t.idf * (K1 + 1) for t in common)
        if not common or (len(hits) >= k and sorted(hits.values())[-k] > bound):
            return _top(hits, k)
    # Rows with common lexemes only could rank: score a bounded sample of them — the rows
    # holding every common lexeme, then, while fewer than k were found, rows holding any
    # (approximate: BM25 without pruning would score every row, and a common lexeme can
    # match most of the table; sampling both lists always doubled the p99 at 100k chunks
    # for little: a row with some of the common lexemes and none of the rare ones rarely
    # outranks the rows that hold all of them). "Every" counts the body's: requiring a
    # common word in the heading too would make the sample scan far more rows.
    every = [t for t in common if t.column == COLUMN] or common
    for select in (_all(every, params, "c"), _any(common, params, "c")):
        hits.update(_run(conn, score, scope, select, params, k, SAMPLE))
        if len(hits) >= k:
            break
    return _top(hits, k)


def _run(
    conn: sa.Connection, score: tuple[str, str], scope: str, select: str,
    params: dict[str, object], k: int, sample: int | None,
) -> list[tuple[int, float]]:
    freqs, total = score
    rows = f"SELECT id, text, {COLUMN}, {HEADING} FROM chunks WHERE {scope} AND {select}"
    if sample is not None:
        rows += f" LIMIT {int(sample)}"
    sql = (
        f"SELECT id, {total} AS score FROM (SELECT c.id, {freqs} FROM ({rows}) AS c) AS f"
        f" ORDER BY score DESC, id LIMIT {int(k)}"
    )
    return [(int(r.id), float(r.score)) for r in conn.execute(sa.text(sql), params)]


def _top(hits: dict[int, float], k: int) -> list[tuple[int, float]]:
    return sorted(hits.items(), key=lambda h: (-h[1], h[0]))[:k]


def _scope(
    tenant: str, collections: Sequence[str] | None, document_ids: Sequence[str] | None
) -> tuple[str, dict[str, object]]:
    # Lists travel as one array parameter each: psycopg allows 65,535 parameters per
    # statement, and a filter may name more documents than that.
    where = ["tenant = :tenant"]
    params: dict[str, object] = {"tenant": tenant}
    if collections is not None:
        params["collections"] = list(collections)
        where.append(
            "document_id IN (SELECT id FROM documents WHERE tenant = :tenant"
            " AND collection = ANY(CAST(:collections AS text[])))"
        )
    if document_ids is not None:
        params["document_ids"] = list(document_ids)
        where.append("document_id = ANY(CAST(:document_ids AS text[]))")
    return " AND ".join(where), params


def _dfs(conn: sa.Connection, tenant: str, pairs: list[tuple[str, str]], n: int) -> list[int]:
    """Each ``(column, lexeme)``'s document frequency in the tenant: exact below
    :data:`COMMON`; above, estimated from the share of a :data:`SAMPLE`-row sample
    (counting exactly would read every matching row, and BM25 gives such a lexeme little
    weight either way). One statement for the counts, one for the estimates."""
    params: dict[str, object] = {"tenant": tenant}
    counts = []
    for i, (column, lexeme) in enumerate(pairs):
        params[f"q{i}"] = quoted(lexeme)
        counts.append(
            f"(SELECT count(*) FROM (SELECT 1 FROM chunks WHERE tenant = :tenant"
            f" AND {column} @@ CAST(:q{i} AS tsquery) LIMIT {COMMON}) AS m{i})"
        )
    found = [int(x) for x in conn.execute(sa.text("SELECT " + ", ".join(counts)), params).one()]
    common = [i for i, f in enumerate(found) if f >= COMMON]
    if common:
        shares = ", ".join(
            f"avg(CASE WHEN {pairs[i][0]} @@ CAST(:q{i} AS tsquery) THEN 1.0 ELSE 0.0 END)"
            for i in common
        )
        row = conn.execute(
            sa.text(
                f"SELECT {shares} FROM (SELECT {COLUMN}, {HEADING} FROM chunks"
                f" WHERE tenant = :tenant LIMIT {SAMPLE}) AS s"
            ),
            params,
        ).one()
        for i, share in zip(common, row, strict=True):
            found[i] = max(COMMON, round(float(share or 0.0) * n))
    return found


def _score_sql(terms: list[_Term], params: dict[str, object], stats: Stats) -> tuple[str, str]:
    """BM25 of a row ``c`` as SQL: the per-row columns (length norms, each term's
    frequency) and the score over them. A lexeme's term frequency is read back from
    ``ts_rank`` with unit weights and no normalisation, which for one lexeme is
    ``sum(1/j**2 for j in 1..tf) / (pi**2 / 6)``: inverted as
    ``1 / ((pi**2 / 6) * (1 - rank)) - 0.5``, rounded (exact while tf < 256, the most
    positions a tsvector keeps), and 0 for a row without the lexeme. The body's length
    is in characters, the heading's in lexemes (a tsvector's ``length``)."""
    freqs = [
        f"{K1} * ({1 - B} + {B} * length(c.text) / {max(stats.mean_length, 1.0)!r}) AS norm"
    ]
    if any(t.column == HEADING for t in terms):
        mean = max(stats.mean_heading, 1.0)
        freqs.append(f"{K1} * ({1 - B} + {B} * length(c.{HEADING}) / {mean!r}) AS hnorm")
    sums = []
    for i, t in enumerate(terms):
        params[f"t{i}"] = quoted(t.lexeme)
        rank = f"ts_rank('{{1,1,1,1}}', c.{t.column}, CAST(:t{i} AS tsquery), 0)"
        freqs.append(f"round(1.0 / ({_ZETA2!r} * (1.0 - {rank})) - 0.5) AS tf{i}")
        norm = "norm" if t.column == COLUMN else "hnorm"
        sums.append(f"{t.boost * t.idf!r} * tf{i} * {K1 + 1} / (tf{i} + {norm})")
    return ", ".join(freqs), " + ".join(sums)


def _match(terms: list[_Term], params: dict[str, object], name: str, op: str) -> str:
    """Rows whose columns hold any (``op`` "|", joined by OR) or all ("&", AND) of the terms."""
    tests = []
    for column in dict.fromkeys(t.column for t in terms):
        params[f"{name}{column}"] = op.join(quoted(t.lexeme) for t in terms if t.column == column)
        tests.append(f"{column} @@ CAST(:{name}{column} AS tsquery)")
    return "(" + (" OR " if op == " | " else " AND ").join(tests) + ")"


def _any(terms: list[_Term], params: dict[str, object], prefix: str) -> str:
    return _match(terms, params, f"{prefix}any", " | ")


def _all(terms: list[_Term], params: dict[str, object], prefix: str) -> str:
    return _match(terms, params, f"{prefix}all", " & ")


def _idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class PostgresLexical:
    """BM25 search by the database (:class:`~citewise.knowledge.index.contract.LexicalSearch`).

    The tenant's corpus statistics are cached for :data:`STATS_TTL_S` seconds: a search
    costs its lexeme lookups and one ranking query, not a count of the tenant's chunks.
    Scores may drift by that much after an ingest; which chunks match never does.
    """

    def __init__(
        self, store: PostgresStore, *, stats_ttl_s: float = STATS_TTL_S,
        heading_boost: float | None = None,
    ) -> None:
        store.ensure_schema(ensure)
        self.store = store
        #: The heading column's boost; None: :data:`.headings.HEADING_BOOST` at each search.
        self.heading_boost = heading_boost
        self.stats_ttl_s = stats_ttl_s
        self._stats: dict[str, tuple[float, Stats]] = {}
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
        stats = self._tenant_stats(tenant)
        with self.store.reading() as c:
            return search(c, tenant, query, k, stats=stats, collections=collections,
                          document_ids=document_ids, heading_boost=self.heading_boost)

    def unmentioned(self, words: Sequence[str], *, tenant: str) -> list[str]:
        if not words or self._tenant_stats(tenant).chunks < MENTIONS_FROM:
            return []
        with self.store.reading() as c:
            return unmentioned(c, tenant, words)

    def _tenant_stats(self, tenant: str) -> Stats:
        now = time.monotonic()
        with self._lock:
            cached = self._stats.get(tenant)
        if cached is not None and now - cached[0] < self.stats_ttl_s and cached[1][0] > 0:
            return cached[1]
        with self.store.reading() as c:
            stats = tenant_stats(c, tenant)
        with self._lock:
            self._stats[tenant] = (now, stats)
        return stats

    def all_chunk_ids(self) -> set[int]:
        return self.store.list_chunk_ids()

    def close(self) -> None:
        """Nothing to release: the store belongs to the knowledge base."""
