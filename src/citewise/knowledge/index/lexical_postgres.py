"""Lexical search inside PostgreSQL: BM25 over a generated ``tsvector`` of every chunk.

On SQLite the lexical index is a tantivy folder beside the database file, derived from it
through the outbox. Replicas sharing one PostgreSQL database have no folder in common,
so there the database indexes chunk text itself:

* ``chunks.search_tsv`` is a *generated* column, ``to_tsvector('english', …)`` of the
  text with CJK runs cut into character bigrams (lower-cased, English-stemmed, stop words
  dropped — close to tantivy's ``en_stem``), with a GIN index. It is written in the same
  statement as the chunk, so a chunk is searchable exactly when it is committed, by every
  replica, and there is nothing to sync or rebuild after a crash. Created idempotently
  under the migration lock, like the other PostgreSQL-only objects; not part of the shared
  :mod:`citewise.store.schema`.
* Ranking is BM25 (k1 = 1.2, b = 0.75, tantivy's constants) computed in SQL. The query's
  lexemes come from the same ``to_tsvector`` (so user text can never make a query fail);
  a lexeme's term frequency in a chunk is read back from ``ts_rank`` (see
  :func:`_score_sql`: ~15x cheaper than unnesting the tsvector); document length is the
  chunk's length in characters (a tsvector keeps no token count), against the tenant's
  mean, which the caller passes in (:func:`tenant_stats`, cached by the searcher).
* PostgreSQL has no WAND-style pruning, so a lexeme found in many chunks would make every
  one of them a candidate. Lexemes in fewer than :data:`COMMON` chunks select the
  candidates and every lexeme scores them; the result is exact when the k-th score beats
  what a row with only common lexemes could reach, as the tantivy path proves its own
  shortcut. Otherwise (every lexeme common: a query of near-stopwords) a bounded sample
  of the rows with common lexemes is scored too — approximate, bounded cost.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import sqlalchemy as sa

from citewise.store.schema import chunks
from citewise.text import CJK_CHARS

if TYPE_CHECKING:
    from citewise.store.postgres import PostgresStore

__all__ = ["COLUMN", "MAX_TERMS", "STATS_TTL_S", "PostgresLexical", "ensure", "search", "tenant_stats"]

#: How long a tenant's BM25 statistics (chunk count, mean length) are reused.
STATS_TTL_S = 5.0

COLUMN = "search_tsv"
INDEX = "ix_chunks_search_tsv"
CONFIG = "english"
#: The SQL function the column is built with (versioned: a new analysis is a new name,
#: and :func:`ensure` rebuilds a column made by another), and the one queries are.
ANALYSE = "citewise_search_text_v2"
QUERY_ANALYSE = "citewise_search_text_v1"
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


def ensure(conn: sa.Connection) -> None:
    """Create the text function, the generated column and its GIN index if missing, or
    the column again if it was made by an older analysis (caller holds the migration lock).
    On a database with chunks already, PostgreSQL computes the column for every row here,
    once."""
    # Runs of CJK characters (written without spaces: the parser would keep a clause as
    # one lexeme) become their overlapping bigrams between spaces, as the tantivy index
    # and the citation checks cut them (citewise.text.spaced_cjk): first a space around
    # each run, then every inner character doubled. Two C-speed regex passes, ~0.3 ms
    # for a CJK chunk, ~10 µs for others. That is the query's analysis; the indexed text
    # also gets every CJK character on its own (a one-character query must find it).
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {QUERY_ANALYSE}(t text) RETURNS text"
        " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$"
        f" SELECT regexp_replace(regexp_replace(t, '([{CJK_CHARS}]+)', ' \\1 ', 'g'),"
        f" '(?<=[{CJK_CHARS}])([{CJK_CHARS}])(?=[{CJK_CHARS}])', '\\1 \\1', 'g') $fn$"
    )
    conn.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {ANALYSE}(t text) RETURNS text"
        " LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$"
        f" SELECT CASE WHEN t ~ '[{CJK_CHARS}]' THEN {QUERY_ANALYSE}(t) || ' ' ||"
        f" regexp_replace(regexp_replace(t, '[^{CJK_CHARS}]+', ' ', 'g'),"
        f" '([{CJK_CHARS}])', ' \\1', 'g') ELSE t END $fn$"
    )
    made_by = conn.execute(
        sa.text(
            "SELECT generation_expression FROM information_schema.columns WHERE"
            " table_schema = current_schema() AND table_name = 'chunks'"
            " AND column_name = :column"
        ),
        {"column": COLUMN},
    ).scalar_one_or_none()
    if made_by is not None and ANALYSE not in made_by:
        conn.exec_driver_sql(f"ALTER TABLE chunks DROP COLUMN {COLUMN}")  # and its index
    conn.exec_driver_sql(
        f"ALTER TABLE chunks ADD COLUMN IF NOT EXISTS {COLUMN} tsvector GENERATED ALWAYS AS"
        f" (to_tsvector('{CONFIG}'::regconfig, {ANALYSE}(text))) STORED"
    )
    conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {INDEX} ON chunks USING gin ({COLUMN})")


def tenant_stats(conn: sa.Connection, tenant: str) -> tuple[int, float]:
    """``(chunks, mean length in characters)`` of the tenant's chunks."""
    row = conn.execute(
        sa.select(sa.func.count(), sa.func.avg(sa.func.length(chunks.c.text))).where(
            chunks.c.tenant == tenant
        )
    ).one()
    return int(row[0]), float(row[1] or 0.0)


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
    stats: tuple[int, float],
    collections: Sequence[str] | None = None,
    document_ids: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` ``(chunk_id, BM25 score)`` of the tenant's chunks for ``query`` (any
    lexeme matches; scores add up), best first; ties by chunk id.

    Exact BM25 unless every lexeme of the query is common (in :data:`COMMON` chunks or
    more) or rows holding only common lexemes could rank: then a bounded sample of those
    rows is scored too (see the module's docstring).
    """
    n, mean_len = stats
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
    dfs = {t: df for t in lexemes if (df := _df(conn, tenant, t, n)) > 0}
    if not dfs:
        return []
    idf = {t: _idf(df, max(n, df)) for t, df in dfs.items()}
    rare = [t for t in idf if dfs[t] < COMMON]
    common = [t for t in idf if dfs[t] >= COMMON]
    score = _score_sql(list(idf), params, idf, mean_len)
    hits: dict[int, float] = {}
    if rare:
        # Candidates: rows with a rare lexeme (at most COMMON each), scored on every one.
        hits.update(_run(conn, score, scope, _any(rare, params, "r"), params, k, None))
        bound = sum(idf[t] * (K1 + 1) for t in common)  # the most a common-only row scores
        if not common or (len(hits) >= k and sorted(hits.values())[-k] > bound):
            return _top(hits, k)
    # Rows with common lexemes only could rank: score a bounded sample of them — the rows
    # holding every common lexeme, then, while fewer than k were found, rows holding any
    # (approximate: BM25 without pruning would score every row, and a common lexeme can
    # match most of the table; sampling both lists always doubled the p99 at 100k chunks
    # for little: a row with some of the common lexemes and none of the rare ones rarely
    # outranks the rows that hold all of them).
    for select in (_all(common, params, "c"), _any(common, params, "c")):
        hits.update(_run(conn, score, scope, select, params, k, SAMPLE))
        if len(hits) >= k:
            break
    return _top(hits, k)


def _run(
    conn: sa.Connection, score: tuple[str, str], scope: str, select: str,
    params: dict[str, object], k: int, sample: int | None,
) -> list[tuple[int, float]]:
    freqs, total = score
    rows = f"SELECT id, text, {COLUMN} FROM chunks WHERE {scope} AND {select}"
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


def _df(conn: sa.Connection, tenant: str, lexeme: str, n: int) -> int:
    """The lexeme's document frequency in the tenant: exact below :data:`COMMON`; above,
    estimated from the share of a :data:`SAMPLE`-row sample (counting exactly would read
    every matching row, and BM25 gives such a lexeme little weight either way)."""
    params = {"tenant": tenant, "q": _quoted(lexeme)}
    found = conn.execute(
        sa.text(
            f"SELECT count(*) FROM (SELECT 1 FROM chunks WHERE tenant = :tenant"
            f" AND {COLUMN} @@ CAST(:q AS tsquery) LIMIT {COMMON}) AS m"
        ),
        params,
    ).scalar_one()
    if found < COMMON:
        return int(found)
    share = conn.execute(
        sa.text(
            f"SELECT avg(CASE WHEN {COLUMN} @@ CAST(:q AS tsquery) THEN 1.0 ELSE 0.0 END)"
            f" FROM (SELECT {COLUMN} FROM chunks WHERE tenant = :tenant LIMIT {SAMPLE}) AS s"
        ),
        params,
    ).scalar_one()
    return max(COMMON, round(float(share or 0.0) * n))


def _score_sql(
    lexemes: list[str], params: dict[str, object], idf: dict[str, float], mean_len: float
) -> tuple[str, str]:
    """BM25 of a row ``c`` as SQL: the per-row columns (length norm, each lexeme's
    term frequency) and the score over them. A lexeme's term frequency is read back from
    ``ts_rank`` with unit weights and no normalisation, which for one lexeme is
    ``sum(1/j**2 for j in 1..tf) / (pi**2 / 6)``: inverted as
    ``1 / ((pi**2 / 6) * (1 - rank)) - 0.5``, rounded (exact while tf < 256, the most
    positions a tsvector keeps), and 0 for a row without the lexeme."""
    freqs = [f"{K1} * ({1 - B} + {B} * length(c.text) / {max(mean_len, 1.0)!r}) AS norm"]
    terms = []
    for i, t in enumerate(lexemes):
        params[f"t{i}"] = _quoted(t)
        rank = f"ts_rank('{{1,1,1,1}}', c.{COLUMN}, CAST(:t{i} AS tsquery), 0)"
        freqs.append(f"round(1.0 / ({_ZETA2!r} * (1.0 - {rank})) - 0.5) AS tf{i}")
        terms.append(f"{idf[t]!r} * tf{i} * {K1 + 1} / (tf{i} + norm)")
    return ", ".join(freqs), " + ".join(terms)


def _any(lexemes: list[str], params: dict[str, object], prefix: str) -> str:
    params[f"{prefix}any"] = " | ".join(_quoted(t) for t in lexemes)
    return f"{COLUMN} @@ CAST(:{prefix}any AS tsquery)"


def _all(lexemes: list[str], params: dict[str, object], prefix: str) -> str:
    params[f"{prefix}all"] = " & ".join(_quoted(t) for t in lexemes)
    return f"{COLUMN} @@ CAST(:{prefix}all AS tsquery)"


def _idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _quoted(lexeme: str) -> str:
    """``lexeme`` as a tsquery operand, exactly (no parsing, no stemming)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


class PostgresLexical:
    """BM25 search by the database (:class:`~citewise.knowledge.index.contract.LexicalSearch`).

    The tenant's corpus statistics are cached for :data:`STATS_TTL_S` seconds: a search
    costs its lexeme lookups and one ranking query, not a count of the tenant's chunks.
    Scores may drift by that much after an ingest; which chunks match never does.
    """

    def __init__(self, store: PostgresStore, *, stats_ttl_s: float = STATS_TTL_S) -> None:
        store.ensure_schema(ensure)
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
        stats = self._tenant_stats(tenant)
        with self.store.reading() as c:
            return search(c, tenant, query, k, stats=stats, collections=collections,
                          document_ids=document_ids)

    def _tenant_stats(self, tenant: str) -> tuple[int, float]:
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
