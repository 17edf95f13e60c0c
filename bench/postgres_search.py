"""Lexical search on the PostgreSQL knowledge base (run by hand, not part of the tests).

    python bench/postgres_search.py                       # 10k and 100k chunks, a pgserver
    python bench/postgres_search.py --sizes 10000 --server-url postgresql://…  # your server

Per size: the seeded synthetic corpus of ``bench/retrieval.py`` (Zipf vocabulary, files of
~20 chunks of 800 chars) is ingested into ``KnowledgeBase.open_postgres`` (lexical only:
embedding 100k chunks with MiniLM takes hours here; vector search is pgvector's HNSW and
its own benchmarks apply), then the same seeded 1–4-word queries as ``bench/retrieval.py``
measure BM25 in SQL (``_pg_fts``): the index alone (top 40, what hybrid search asks for)
and ``kb.search(mode="lexical")`` (top 10 with hits read and evidence windows), p50/p99 of
the best of 3 rounds; and three queries of the corpus's most common words (every lexeme
common: the sampled path). Results: ``bench/results/postgres-search.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
import uuid
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import retrieval  # noqa: E402  (the corpus and queries of the embedded benchmark)

RESULTS = HERE / "results" / "postgres-search.json"
ROUNDS = 3


def _pct(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"p50_ms": round(s[len(s) // 2] * 1e3, 2),
            "p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] * 1e3, 2)}


def _timed(queries: list[str], fn: Any) -> dict[str, float]:
    rounds = []
    for _ in range(ROUNDS):
        lat = []
        for q in queries:
            t = time.perf_counter()
            fn(q)
            lat.append(time.perf_counter() - t)
        rounds.append(lat)
    best = [min(r[i] for r in rounds) for i in range(len(queries))]
    return _pct(best)


def run_size(server_url: str, size: int, n_queries: int, seed: int) -> dict[str, Any]:
    import psycopg
    import sqlalchemy as sa

    from citewise.knowledge.base import KnowledgeBase

    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    folder = Path(tempfile.mkdtemp(prefix="cw-pgbench-"))
    try:
        _, vocab = retrieval.write_corpus(folder, size, seed)
        with KnowledgeBase.open_postgres(url, dense=False) as kb:
            t0 = time.perf_counter()
            report = kb.ingest([folder])
            ingest_s = time.perf_counter() - t0
            assert report.ok, report.failed[:3]
            chunks = kb.store.count_chunks()
            with kb.store.engine.begin() as conn:  # type: ignore[attr-defined]
                conn.exec_driver_sql("ANALYZE chunks")  # as autovacuum would, soon after
            queries = retrieval._queries(vocab, n_queries, seed)
            for q in queries[:20]:  # warm the caches
                kb.search(q, k=10, mode="lexical")
            index = _timed(queries, lambda q: kb.index.search(q, 40, tenant="default"))
            search = _timed(queries, lambda q: kb.search(q, k=10, mode="lexical"))
            common = {}
            for words in (1, 3, 5):
                q = " ".join(vocab[:words])
                t = time.perf_counter()
                kb.index.search(q, 40, tenant="default")
                common[f"{words} most common word(s)"] = round((time.perf_counter() - t) * 1e3, 1)
        return {"chunks": chunks, "ingest_s": round(ingest_s, 1),
                "ingest_chunks_per_s": round(chunks / ingest_s), "index_top40": index,
                "kb_search_top10": search, "common_words_ms": common,
                "queries": len(queries)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--server-url", default=None,
                    help="a superuser URL of a PostgreSQL server with pgvector (default: a "
                    "throwaway pgserver in a temporary folder)")
    args = ap.parse_args()
    server: Any = None
    root = None
    url = args.server_url
    if url is None:
        root = Path(tempfile.mkdtemp(prefix="cw-pgserver-"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgserver.postgres_server import get_server

            server = get_server(root / "data", cleanup_mode="delete")
        url = server.get_uri()
    try:
        sizes = {str(n): run_size(url, n, args.queries, args.seed) for n in args.sizes}
    finally:
        if server is not None:
            server.cleanup()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
    doc = {"run_at": datetime.now(UTC).isoformat(timespec="seconds"),
           "python": platform.python_version(), "machine": platform.platform(),
           "rounds": ROUNDS, "sizes": sizes}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(doc, indent=2) + "\n")
    for n, r in sizes.items():
        print(f"{n:>7} chunks: index top-40 p50 {r['index_top40']['p50_ms']} ms / p99 "
              f"{r['index_top40']['p99_ms']} ms; kb.search p50 {r['kb_search_top10']['p50_ms']}"
              f" / p99 {r['kb_search_top10']['p99_ms']} ms; common words {r['common_words_ms']};"
              f" ingest {r['ingest_chunks_per_s']} chunks/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
