"""What one PostgreSQL holds: pgvector and tsvector costs at 100k-200k chunks (by hand).

    python bench/pgvector_scale.py                      # 100k chunks on a throwaway pgserver
    python bench/pgvector_scale.py --sizes 100000 200000 --server-url postgresql://…

For ``docs/scaling.md``. Per size, on citewise's own schema (``PostgresStore`` migrations,
the lexical generated ``tsvector`` column + GIN index, ``chunk_embeddings`` with its HNSW
index, m=16, ef_construction=64, cosine): N synthetic chunks of ~800 characters (Zipf
words) with random unit 384-d vectors (MiniLM's width; random vectors are the hard case
for HNSW — real embeddings cluster), then

* bulk load of the vectors without the HNSW index, and the index build after it
  (``maintenance_work_mem`` 1 GB), and the cost per row of inserts with the index live;
* on-disk sizes: the chunks (text + tsvector), the GIN index, the vector heap, the HNSW
  index — the memory a server needs to keep search in RAM;
* p50 / p99 of 200 queries: a vector top-40 (what hybrid search asks) through
  ``vectors_postgres_sql.search``, and BM25 top-40 through the lexical index.

Nothing here embeds: the model's speed is ``bench/ingest.py``'s subject. Results:
``bench/results/pgvector-scale.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import sys
import tempfile
import time
import uuid
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "pgvector-scale.json"
DIM = 384
QUERIES = 200
PER_DOC = 20
_WORDS = [f"w{i}" for i in range(20_000)]


def _pct(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"p50_ms": round(s[len(s) // 2], 2), "p99_ms": round(s[int(len(s) * 0.99) - 1], 2)}


def _server(url: str | None) -> tuple[str, Any]:
    if url:
        return url, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import get_server

        root = Path(tempfile.mkdtemp(prefix="cw-pgscale-"))
        server = get_server(root / "data", cleanup_mode="delete")
    return server.get_uri(), (server, root)


def _text(rng: random.Random, cum: list[float]) -> str:
    return " ".join(rng.choices(_WORDS, cum_weights=cum, k=120))[:800]


def run_size(server_url: str, n: int) -> dict[str, Any]:
    import psycopg

    from citewise.knowledge.index import vectors_postgres_sql as vsql
    from citewise.knowledge.index.lexical_postgres import PostgresLexical
    from citewise.store.postgres import PostgresStore
    from citewise.store.schema import chunks, documents

    name = f"scale_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    out: dict[str, Any] = {"chunks": n}
    try:
        store = PostgresStore(url)
        lexical = PostgresLexical(store)
        tbl = store.ensure_schema(lambda conn: vsql.ensure(conn, DIM))
        rng = random.Random(0)
        cum: list[float] = []
        acc = 0.0
        for i in range(len(_WORDS)):
            acc += 1.0 / (i + 1) ** 1.07
            cum.append(acc)
        now = datetime.now(UTC)
        t0 = time.perf_counter()
        with store.engine.begin() as conn:
            conn.exec_driver_sql("DROP INDEX ix_chunk_embeddings_hnsw")
        docs = n // PER_DOC
        for start in range(0, docs, 500):
            doc_rows, chunk_rows = [], []
            for d in range(start, min(docs, start + 500)):
                doc_rows.append({"id": f"d{d}", "tenant": "t", "collection": "c",
                                 "source": f"/s/{d}", "title": None, "content_type": "text",
                                 "content_hash": "x", "text_length": 0, "meta": {},
                                 "created_at": now, "updated_at": now, "text": ""})
                for k in range(PER_DOC):
                    cid = d * PER_DOC + k + 1
                    chunk_rows.append({"id": cid, "document_id": f"d{d}", "tenant": "t",
                                       "ordinal": k, "start_char": 0, "end_char": 800,
                                       "text": _text(rng, cum)})
            with store.engine.begin() as conn:
                conn.execute(sa.insert(documents), doc_rows)
                conn.execute(sa.insert(chunks), chunk_rows)
        out["load_chunks_s"] = round(time.perf_counter() - t0, 1)
        gen = np.random.default_rng(0)
        t0 = time.perf_counter()
        for start in range(0, docs * PER_DOC, 5000):
            ids = list(range(start + 1, min(docs * PER_DOC, start + 5000) + 1))
            vecs = gen.standard_normal((len(ids), DIM)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            with store.engine.begin() as conn:
                conn.execute(sa.insert(tbl), [
                    {"chunk_id": cid, "tenant": "t", "document_id": f"d{(cid - 1) // PER_DOC}",
                     "embedding": v} for cid, v in zip(ids, vecs, strict=True)])
        out["load_vectors_s"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        with store.engine.begin() as conn:
            conn.exec_driver_sql("SET LOCAL maintenance_work_mem = '1GB'")
            conn.exec_driver_sql(
                "CREATE INDEX ix_chunk_embeddings_hnsw ON chunk_embeddings USING hnsw "
                f"(embedding vector_cosine_ops) WITH (m = {vsql.HNSW_M}, "
                f"ef_construction = {vsql.HNSW_EF_CONSTRUCTION})")
        out["hnsw_build_s"] = round(time.perf_counter() - t0, 1)
        # Inserts with the index live (what the embedding workers do, batch by batch).
        extra = 2000
        first = docs * PER_DOC + 1
        with store.engine.begin() as conn:
            conn.execute(sa.insert(documents), [{
                "id": "dx", "tenant": "t", "collection": "c", "source": "/s/x", "title": None,
                "content_type": "text", "content_hash": "x", "text_length": 0, "meta": {},
                "created_at": now, "updated_at": now, "text": ""}])
            conn.execute(sa.insert(chunks), [{
                "id": first + i, "document_id": "dx", "tenant": "t", "ordinal": i,
                "start_char": 0, "end_char": 800, "text": _text(rng, cum)} for i in range(extra)])
        vecs = gen.standard_normal((extra, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        t0 = time.perf_counter()
        for b in range(0, extra, 32):
            with store.engine.begin() as conn:
                conn.execute(sa.insert(tbl), [
                    {"chunk_id": first + i, "tenant": "t", "document_id": "dx",
                     "embedding": vecs[i]} for i in range(b, min(extra, b + 32))])
        out["insert_with_index_ms_per_row"] = round(
            (time.perf_counter() - t0) * 1000 / extra, 3)
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("VACUUM ANALYZE")
            sizes = {}
            for label, rel in (("chunks_table_mb", "chunks"),
                               ("vectors_total_mb", "chunk_embeddings"),
                               ("hnsw_index_mb", "ix_chunk_embeddings_hnsw")):
                sizes[label] = round(c.execute(
                    "SELECT pg_total_relation_size(%s::regclass)" if label != "hnsw_index_mb"
                    else "SELECT pg_relation_size(%s::regclass)", (rel,)).fetchone()[0] / 2**20, 1)
            gin = c.execute(
                "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0) FROM pg_index i JOIN "
                "pg_class r ON r.oid = i.indrelid JOIN pg_am a ON a.oid = (SELECT relam FROM "
                "pg_class WHERE oid = i.indexrelid) WHERE r.relname = 'chunks' AND "
                "a.amname = 'gin'").fetchone()[0]
            sizes["gin_index_mb"] = round(float(gin) / 2**20, 1)
        out["sizes"] = sizes
        qv = gen.standard_normal((QUERIES, DIM)).astype(np.float32)
        qv /= np.linalg.norm(qv, axis=1, keepdims=True)
        lat = []
        for v in qv:
            t0 = time.perf_counter()
            with store.reading() as conn:
                vsql.search(conn, tbl, "t", v, 40)
            lat.append((time.perf_counter() - t0) * 1000)
        out["vector_top40"] = _pct(lat)
        qrng = random.Random(1)
        lat = []
        for _ in range(QUERIES):
            words = " ".join(qrng.choices(_WORDS[:5000], k=qrng.randint(1, 4)))
            t0 = time.perf_counter()
            lexical.search(words, 40, tenant="t")
            lat.append((time.perf_counter() - t0) * 1000)
        out["bm25_top40"] = _pct(lat)
        store.close()
    finally:
        with psycopg.connect(server_url, autocommit=True) as c:
            c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--server-url")
    args = parser.parse_args()
    url, owned = _server(args.server_url)
    results: dict[str, Any] = {
        "run_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": platform.platform(), "dim": DIM, "queries": QUERIES, "sizes": {}}
    try:
        for n in args.sizes:
            print(f"{n} chunks …", file=sys.stderr, flush=True)
            results["sizes"][str(n)] = run_size(url, n)
            print(json.dumps(results["sizes"][str(n)]), file=sys.stderr, flush=True)
    finally:
        if owned is not None:
            server, root = owned
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server.cleanup()
            shutil.rmtree(root, ignore_errors=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
