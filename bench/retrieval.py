"""Retrieval benchmark (run by hand, not part of the test suite).

    python bench/retrieval.py                                  # 100k and 1M chunks
    python bench/retrieval.py --sizes 100000 --dense-max 100000
    python bench/retrieval.py --sizes 20000 --queries 200 --minilm-sample 0   # a quick look
    python bench/retrieval.py --sizes 100000 --workdir W --keep     # keep W's data, then:
    python bench/retrieval.py --sizes 100000 --workdir W --keep --reuse [--redo-dense]

Per size, in a fresh worker process (so peak memory is per size): a seeded synthetic
corpus (Zipf vocabulary, sentences of 6–24 words, files of ~20 chunks of 800 chars) is
ingested into a ``KnowledgeBase`` through the real pipeline (loaders → chunking → SQLite →
tantivy) and, in the same run, into SQLite FTS5; then 1–4-word seeded queries measure:

* lexical: tantivy alone, and ``kb.search(mode="lexical")`` (index + hits from SQLite);
* SQLite FTS5 alone (``bm25`` order, top 10), the comparison the issue asks for;
* dense and hybrid (sizes up to ``--dense-max``): the knowledge base is reopened with
  dense retrieval on, which embeds every chunk and builds the vector index (HNSW above
  20k vectors, the shipped parameters) — measured as the dense ingest stage; then the
  vector index alone, ``kb.search(mode="dense")`` and ``kb.search()`` (hybrid: BM25 top
  ``retrieval.CANDIDATES`` + vectors top ``CANDIDATES``, the default fusion, evidence
  windows) — all *excluding the query embedding* (query vectors are computed before the
  clock starts), and dense recall@10 against exact search.

The vectors at scale are SYNTHETIC: embedding a million chunks with MiniLM takes hours on
this machine, so a seeded stand-in embedder gives each text a 384-d unit vector from a
mixture of 1,000 clusters with 16-d spread (a text's vector is a function of its text; the
mixture has the low intrinsic dimension of real sentence embeddings — uniform random
vectors would make any ANN index look far worse than it is on real data). Their recall
and latency are properties of the index, not of retrieval quality (``bench/relevance.py``
measures that with the real model). The real model's cost is measured separately, on a
sample of the same corpus (``--minilm-sample`` chunks): end-to-end ingest with MiniLM
embeddings, model throughput, and query-embedding latency.

Results go to ``bench/results/retrieval.json`` and the ``## Retrieval`` section of
``bench/README.md`` (only that section is rewritten).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "retrieval.json"
README = HERE / "README.md"
CHUNK_SIZE = 800
CHUNKS_PER_FILE = 20
ROUNDS = 3
K = 10
RECALL_QUERIES = 200
FTS_QUERIES = 300
GOALS = {
    "lexical_p99_ms_at_1m": 2.0,
    "hybrid_p99_ms_at_100k": 3.0,
    "dense_recall_at_10": 0.99,
}


def _vocabulary(rng: random.Random, n: int = 30_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "da", "qu", "zen",
                 "or", "al", "in", "ex", "ba", "tri", "mo", "fi"]
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choices(syllables, k=rng.randint(1, 4))))
    return sorted(words)


def _zipf_weights(n: int, s: float = 1.07) -> list[float]:
    return [1.0 / (rank**s) for rank in range(1, n + 1)]


def _corpus_vocabulary(seed: int) -> tuple[random.Random, list[str]]:
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    rng.shuffle(vocab)
    return rng, vocab


def write_corpus(folder: Path, target_chunks: int, seed: int) -> tuple[int, list[str]]:
    """Files totalling about ``target_chunks`` chunks; returns (bytes, vocabulary)."""
    rng, vocab = _corpus_vocabulary(seed)
    weights = _zipf_weights(len(vocab))
    cum = list(_accumulate(weights))
    n_files = max(1, target_chunks // CHUNKS_PER_FILE)
    # ~88% of a chunk is new text (the rest overlaps): aim each file at that many chars.
    chars_per_file = int(CHUNKS_PER_FILE * CHUNK_SIZE * 0.82)
    total = 0
    for f in range(n_files):
        parts: list[str] = []
        size = 0
        while size < chars_per_file:
            n = rng.randint(6, 24)
            sentence = " ".join(rng.choices(vocab, cum_weights=cum, k=n)).capitalize() + ". "
            if rng.random() < 0.08:
                sentence += "\n\n"
            parts.append(sentence)
            size += len(sentence)
        text = "".join(parts)
        sub = folder / f"d{f // 500:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"doc{f:06d}.txt").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total, vocab


def _accumulate(values: list[float]) -> list[float]:
    out, acc = [], 0.0
    for v in values:
        acc += v
        out.append(acc)
    return out


def _queries(vocab: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    # Mostly mid-frequency words (the head of a Zipf vocabulary is stopword-like).
    pool = vocab[50:5000]
    return [" ".join(rng.sample(pool, rng.randint(1, 4))) for _ in range(n)]


def _percentiles(samples_s: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples_s)

    def pct(p: float) -> float:
        return ms[min(len(ms) - 1, round(p / 100 * (len(ms) - 1)))]

    return {
        "p50_ms": round(pct(50), 3),
        "p95_ms": round(pct(95), 3),
        "p99_ms": round(pct(99), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }




def _best(runs: list[list[float]]) -> list[float]:
    return [min(r) for r in runs]


def _timed(queries: Sequence[Any], fn: Callable[[Any], object], rounds: int = ROUNDS) -> list[list[float]]:
    """Each query ``rounds`` times (round-robin, so a slow phase of the machine is spread)."""
    runs: list[list[float]] = [[] for _ in queries]
    for _ in range(rounds):
        for i, q in enumerate(queries):
            t = time.perf_counter()
            fn(q)
            runs[i].append(time.perf_counter() - t)
    return runs


def _latency(runs: list[list[float]]) -> dict[str, Any]:
    return {"raw": _percentiles([t for r in runs for t in r]), "best_of_rounds": _percentiles(_best(runs))}


def _rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


# -- the synthetic embedder -------------------------------------------------------------------


class SyntheticEmbedder:
    """Seeded stand-in for a sentence embedder (see the module docstring): 384-d unit
    vectors from a mixture of ``clusters`` clusters, each spreading over a random 16-d
    subspace, plus a little isotropic noise; a text picks its cluster and position from a
    hash of itself. ``memo`` holds precomputed vectors (queries, so timing excludes them)."""

    name = "bench-synthetic-mixture-384"
    dim = 384

    def __init__(self, seed: int = 7, clusters: int = 1000, spread_dim: int = 16) -> None:
        import numpy as np

        g = np.random.default_rng(seed)
        mu = g.standard_normal((clusters, self.dim)).astype(np.float32)
        self._mu = mu / np.linalg.norm(mu, axis=1, keepdims=True)
        self._basis = (g.standard_normal((clusters, self.dim, spread_dim)) / self.dim**0.5).astype(
            np.float32
        )
        self._clusters = clusters
        self._spread = spread_dim
        self.memo: dict[str, Any] = {}
        self.embedded = 0

    def _one(self, text: str) -> Any:
        import numpy as np

        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        r = np.random.default_rng(seed)
        c = int(r.integers(0, self._clusters))
        v = (
            self._mu[c]
            + 0.9 * (self._basis[c] @ r.standard_normal(self._spread).astype(np.float32))
            + 0.03 * r.standard_normal(self.dim).astype(np.float32)
        )
        return v / np.linalg.norm(v)

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            hit = self.memo.get(text)
            out[i] = hit if hit is not None else self._one(text)
        self.embedded += len(texts)
        return out

    def precompute(self, texts: Sequence[str]) -> None:
        for text in texts:
            self.memo[text] = self._one(text)


# -- SQLite FTS5, the comparison ---------------------------------------------------------------


def build_fts(kb_db: Path, fts_db: Path) -> float:
    """FTS5 (porter tokenizer, contentless) over the same chunk texts; returns seconds."""
    t = time.perf_counter()
    src = sqlite3.connect(kb_db)
    dst = sqlite3.connect(fts_db)
    dst.execute("PRAGMA journal_mode=WAL")
    dst.execute("CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='porter unicode61')")
    cur = src.execute("SELECT id, text FROM chunks")
    while True:
        rows = cur.fetchmany(20_000)
        if not rows:
            break
        dst.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", rows)
        dst.commit()
    dst.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    dst.commit()
    src.close()
    dst.close()
    return time.perf_counter() - t


def fts_query(words: str) -> str:
    return " OR ".join(f'"{w}"' for w in words.split())


# -- one size (a worker process) ---------------------------------------------------------------


_INGEST_KEYS = ("chunks", "documents", "corpus_mb", "ingest_lexical_s",
                "ingest_lexical_chunks_per_s", "reingest_unchanged_s", "fts5_build_s")
_DENSE_INGEST_KEYS = ("ingest_dense_stage_s", "ingest_dense_stage_chunks_per_s",
                      "ingest_lexical_plus_dense_chunks_per_s")


def _reset_dense(data: Path) -> None:
    """Forget every stored vector (``--redo-dense``): the next open embeds and indexes anew."""
    from citewise.knowledge.base import DB_NAME, VECTORS_DIR

    con = sqlite3.connect(data / DB_NAME)
    for table in ("vec_chunks", "vec_cache", "vec_log"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    con.close()
    shutil.rmtree(data / VECTORS_DIR, ignore_errors=True)


def run_size(
    n: int, n_queries: int, seed: int, workdir: Path, dense: bool, *,
    reuse: bool = False, redo_dense: bool = False,
) -> dict[str, Any]:
    from citewise.knowledge.base import DB_NAME, KnowledgeBase
    from citewise.knowledge.retrieve.retriever import CANDIDATES

    corpus = workdir / f"corpus-{n}"
    data = workdir / f"data-{n}"
    previous = workdir / f"result-{n}.json"
    out: dict[str, Any] = {"target_chunks": n}
    # --reuse: the corpus and knowledge base a --keep run left (searches are measured
    # again; ingest numbers are carried over from that run's result).
    reused: dict[str, Any] | None = None
    if reuse and previous.exists() and (data / DB_NAME).exists():
        reused = json.loads(previous.read_text())
        vocab = _corpus_vocabulary(seed)[1]
        _log(n, f"reusing {data}")
    else:
        t = time.perf_counter()
        nbytes, vocab = write_corpus(corpus, n, seed)
        _log(n, f"corpus {nbytes / 1e6:.1f} MB in {time.perf_counter() - t:.0f}s")
    queries = _queries(vocab, n_queries + 50, seed)
    warm, measured = queries[:50], queries[50:]

    # 1. lexical ingest (the real pipeline, dense retrieval off)
    with KnowledgeBase.open(data, chunk_size=CHUNK_SIZE, chunk_overlap=120, dense=False) as kb:
        if reused is None:
            t = time.perf_counter()
            report = kb.ingest([corpus])
            ingest_s = time.perf_counter() - t
            assert not report.failed, report.failed[:3]
            chunks = kb.store.count_chunks()
            t = time.perf_counter()
            again = kb.ingest([corpus])
            reingest_s = time.perf_counter() - t
            assert len(again.unchanged) == len(report.added)
            _log(n, f"lexical ingest {chunks} chunks in {ingest_s:.0f}s")
            out.update({
                "documents": len(report.added),
                "corpus_mb": round(nbytes / 1e6, 2),
                "ingest_lexical_s": round(ingest_s, 2),
                "ingest_lexical_chunks_per_s": round(chunks / ingest_s, 1),
                "reingest_unchanged_s": round(reingest_s, 2),
            })
        else:
            chunks = kb.store.count_chunks()
            ingest_s = float(reused["ingest_lexical_s"])
            out.update({key: reused[key] for key in _INGEST_KEYS if key in reused})
            out["reused_ingest"] = True
        for q in warm:
            kb.search(q, k=K)
        index_runs = _timed(measured, lambda q: kb.index.search(q, K, tenant=kb.tenant))
        kb_runs = _timed(measured, lambda q: kb.search(q, k=K, mode="lexical"))
        hits = statistics.fmean(len(kb.search(q, k=K)) for q in measured[:200])
    out.update({
        "chunks": chunks,
        "queries": len(measured),
        "rounds": ROUNDS,
        "mean_lexical_hits": round(hits, 2),
        "lexical_index": _latency(index_runs),
        "lexical_kb_search": _latency(kb_runs),
        "peak_rss_mb_after_lexical": _rss_mb(),
    })
    _log(n, f"lexical p99 index {out['lexical_index']['raw']['p99_ms']} ms")

    # 2. SQLite FTS5 on the same chunks
    fts_db = workdir / f"fts-{n}.db"
    if reused is None or not fts_db.exists():
        fts_db.unlink(missing_ok=True)
        out["fts5_build_s"] = round(build_fts(data / DB_NAME, fts_db), 2)
    con = sqlite3.connect(fts_db)
    sql = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 10"
    for q in warm[:10]:
        con.execute(sql, (fts_query(q),)).fetchall()
    fts_runs = _timed(measured[:FTS_QUERIES], lambda q: con.execute(sql, (fts_query(q),)).fetchall(), 1)
    con.close()
    out["fts5"] = {"queries": min(FTS_QUERIES, len(measured)), **_latency(fts_runs)}
    _log(n, f"fts5 p99 {out['fts5']['raw']['p99_ms']} ms")

    # 3. dense and hybrid, synthetic vectors
    if dense:
        embedder = SyntheticEmbedder(seed)
        if redo_dense:
            _reset_dense(data)
        t = time.perf_counter()
        kb = KnowledgeBase.open(data, chunk_size=CHUNK_SIZE, chunk_overlap=120, embedder=embedder)
        dense_s = time.perf_counter() - t
        dense_measured = reused is None or redo_dense or "ingest_dense_stage_s" not in reused
        try:
            assert kb.dense is not None and len(kb.dense) == chunks
            _log(n, f"dense stage {chunks} vectors in {dense_s:.0f}s ({kb.dense.index.kind})"
                 + ("" if dense_measured else " (vectors reused)"))
            embedder.precompute(queries)  # timing below excludes the query embedding
            vecs = {q: embedder.memo[q] for q in queries}
            for q in warm:
                kb.search(q, k=K)
            dense_index = _timed(measured, lambda q: kb.dense.search(vecs[q], K))  # type: ignore[union-attr]
            dense_kb = _timed(measured, lambda q: kb.search(q, k=K, mode="dense"))
            hybrid_kb = _timed(measured, lambda q: kb.search(q, k=K))
            hybrid_no_ev = _timed(measured, lambda q: _no_evidence(kb, q))
            recall = dense_recall(kb, [vecs[q] for q in measured[:RECALL_QUERIES]])
            params = kb.dense.index.params
        finally:
            kb.close()
        out.update({
            "vectors": "synthetic (seeded mixture, 384-d)",
            "vector_index": {"kind": "hnsw" if chunks >= 20_000 else "exact", "m": params.m,
                             "ef_construction": params.ef_construction,
                             "ef_search": params.ef_search},
            "hybrid_candidates_per_retriever": CANDIDATES,
            "dense_index": _latency(dense_index),
            "dense_kb_search": _latency(dense_kb),
            "hybrid_kb_search": _latency(hybrid_kb),
            "hybrid_kb_search_no_evidence": _latency(hybrid_no_ev),
            "dense_recall_at_10": recall,
        })
        if dense_measured:
            out.update({
                "ingest_dense_stage_s": round(dense_s, 2),
                "ingest_dense_stage_chunks_per_s": round(chunks / dense_s, 1),
                "ingest_lexical_plus_dense_chunks_per_s": round(chunks / (ingest_s + dense_s), 1),
            })
        else:
            assert reused is not None
            out.update({key: reused[key] for key in _DENSE_INGEST_KEYS if key in reused})
            out["reopen_with_vectors_s"] = round(dense_s, 2)
        _log(n, f"hybrid p99 {out['hybrid_kb_search']['raw']['p99_ms']} ms, recall {recall}")
    out["peak_rss_mb"] = _rss_mb()
    return out


def _no_evidence(kb: Any, q: str) -> object:
    from citewise.knowledge.retrieve.retriever import Retriever

    return Retriever(kb.store, kb.index, kb.dense, tenant=kb.tenant).retrieve(
        q, k=K, evidence=False
    )


def dense_recall(kb: Any, queries: list[Any]) -> float:
    """Mean recall@10 of the vector index against exact search over every stored vector."""
    import numpy as np

    dense = kb.dense
    Q = np.stack(queries).astype(np.float32)
    best_s = np.full((len(Q), K), -np.inf, dtype=np.float32)
    best_i = np.zeros((len(Q), K), dtype=np.int64)
    ids = sorted(dense.stored_ids())
    for i in range(0, len(ids), 50_000):
        got, blob = dense.vstore.vectors(dense.model, ids[i : i + 50_000])
        mat = np.frombuffer(blob, dtype="<f4").reshape(-1, dense.embedder.dim)
        sims = Q @ mat.T
        all_s = np.concatenate([best_s, sims], axis=1)
        all_i = np.concatenate([best_i, np.broadcast_to(np.asarray(got), sims.shape)], axis=1)
        top = np.argpartition(-all_s, K - 1, axis=1)[:, :K]
        best_s = np.take_along_axis(all_s, top, axis=1)
        best_i = np.take_along_axis(all_i, top, axis=1)
    found = [dense.search(q, K) for q in queries]
    hits = [len({c for c, _ in f} & set(best_i[j].tolist())) / K for j, f in enumerate(found)]
    return round(float(np.mean(hits)), 4)


# -- the real model, on a sample ------------------------------------------------------------


def run_minilm(sample: int, seed: int, workdir: Path) -> dict[str, Any]:
    from citewise.knowledge.base import KnowledgeBase
    from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

    corpus = workdir / "corpus-minilm"
    # Always from scratch (a few hundred chunks): a knowledge base a --keep run left here
    # would find every file unchanged and time nothing.
    for name in ("corpus-minilm", "minilm-lex", "minilm"):
        shutil.rmtree(workdir / name, ignore_errors=True)
    _, vocab = write_corpus(corpus, sample, seed + 100)
    with KnowledgeBase.open(workdir / "minilm-lex", chunk_size=CHUNK_SIZE, chunk_overlap=120,
                            dense=False) as kb:
        t = time.perf_counter()
        kb.ingest([corpus])
        lex_s = time.perf_counter() - t
        chunks = kb.store.count_chunks()
        texts = [c.text for c in kb.store.get_chunks(sorted(kb.store.list_chunk_ids())[:64])]
    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    with KnowledgeBase.open(workdir / "minilm", chunk_size=CHUNK_SIZE, chunk_overlap=120,
                            embedder=embedder) as kb:
        t = time.perf_counter()
        kb.ingest([corpus])
        full_s = time.perf_counter() - t
        assert kb.dense is not None and len(kb.dense) == chunks
    t = time.perf_counter()
    embedder.embed(texts)
    model_per_s = len(texts) / (time.perf_counter() - t)
    qs = _queries(vocab, 60, seed)
    q_runs = _timed(qs, lambda q: embedder.embed([q]), 1)
    return {
        "chunks": chunks,
        "ingest_lexical_chunks_per_s": round(chunks / lex_s, 1),
        "ingest_with_minilm_chunks_per_s": round(chunks / full_s, 2),
        "minilm_chunks_per_s": round(model_per_s, 2),
        "query_embedding": _percentiles([t for r in q_runs for t in r]),
    }


# -- driver ----------------------------------------------------------------------------------


def _log(n: int, msg: str) -> None:
    print(f"[{n}] {msg} (load {_load()})", file=sys.stderr, flush=True)


def _worker(args: argparse.Namespace) -> None:
    workdir = Path(args.workdir)
    if args.worker == "minilm":
        result = run_minilm(args.minilm_sample, args.seed, workdir)
    else:
        n = int(args.worker)
        result = run_size(n, args.queries, args.seed, workdir, dense=n <= args.dense_max,
                          reuse=args.reuse, redo_dense=args.redo_dense)
    Path(args.out).write_text(json.dumps(result))


def _spawn(kind: str, args: argparse.Namespace, workdir: Path) -> dict[str, Any] | None:
    out = workdir / f"result-{kind}.json"
    cmd = [sys.executable, __file__, "--worker", kind, "--out", str(out), "--workdir", str(workdir),
           "--queries", str(args.queries), "--seed", str(args.seed),
           "--dense-max", str(args.dense_max), "--minilm-sample", str(args.minilm_sample)]
    cmd += ["--reuse"] * args.reuse + ["--redo-dense"] * args.redo_dense
    proc = subprocess.run(cmd, check=False)
    if proc.returncode != 0 or not out.exists():
        print(f"worker {kind} failed ({proc.returncode})", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dense-max", type=int, default=1_000_000,
                    help="measure dense/hybrid only up to this size (the HNSW build is slow)")
    ap.add_argument("--minilm-sample", type=int, default=400,
                    help="chunks ingested with the real MiniLM model (0: skip)")
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the corpus and data folders")
    ap.add_argument("--no-readme", action="store_true", help="do not rewrite bench/README.md")
    ap.add_argument("--results", type=Path, default=RESULTS,
                    help="where the results JSON goes (default: bench/results/retrieval.json)")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse the corpus and knowledge base a --keep run left in --workdir "
                         "(searches are measured again, ingest numbers carried over)")
    ap.add_argument("--redo-dense", action="store_true",
                    help="with --reuse: drop the stored vectors first, so the dense stage "
                         "(embedding + index build) is measured again")
    ap.add_argument("--readme-only", action="store_true",
                    help="rewrite the README section from bench/results/retrieval.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.keep = args.keep or args.reuse  # what is reused is kept for the next run
    if args.worker:
        _worker(args)
        return
    if args.readme_only:
        write_readme(json.loads(args.results.read_text()))
        return
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="citewise-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    meta = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {_cpus()} CPUs, {platform.system()}",
        "python": platform.python_version(),
        "seed": args.seed,
        "load_avg_start": _load(),
        "nice": os.nice(0),
        "dense_max": args.dense_max,
        "goals": GOALS,
    }
    results: list[dict[str, Any]] = []
    minilm: dict[str, Any] | None = None
    try:
        if args.minilm_sample > 0:
            minilm = _spawn("minilm", args, workdir)
        for n in args.sizes:
            r = _spawn(str(n), args, workdir)
            if r is not None:
                results.append(r)
            if not args.keep:
                for name in (f"corpus-{n}", f"data-{n}"):
                    shutil.rmtree(workdir / name, ignore_errors=True)
                (workdir / f"fts-{n}.db").unlink(missing_ok=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    meta["load_avg_end"] = _load()
    doc = {"meta": meta, "minilm_sample": minilm, "results": results, "verdict": verdict(results)}
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(doc, indent=2) + "\n")
    if not args.no_readme:
        write_readme(doc)
    print(_tables(doc))


def verdict(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Each goal: the measured value (raw p99, and best-of-rounds p99) and whether it holds."""
    out: dict[str, Any] = {}
    by = {r["target_chunks"]: r for r in results}
    if 1_000_000 in by:
        lx = by[1_000_000]["lexical_index"]
        out["lexical_p99_ms_at_1m"] = {
            "raw": lx["raw"]["p99_ms"], "best_of_rounds": lx["best_of_rounds"]["p99_ms"],
            "goal": GOALS["lexical_p99_ms_at_1m"]}
    if 100_000 in by and "hybrid_kb_search" in by[100_000]:
        hy = by[100_000]["hybrid_kb_search"]
        out["hybrid_p99_ms_at_100k"] = {
            "raw": hy["raw"]["p99_ms"], "best_of_rounds": hy["best_of_rounds"]["p99_ms"],
            "goal": GOALS["hybrid_p99_ms_at_100k"]}
    if 100_000 in by and "hybrid_kb_search_no_evidence" in by[100_000]:
        hy = by[100_000]["hybrid_kb_search_no_evidence"]
        out["hybrid_p99_ms_at_100k_without_evidence_windows"] = {
            "raw": hy["raw"]["p99_ms"], "best_of_rounds": hy["best_of_rounds"]["p99_ms"],
            "goal": GOALS["hybrid_p99_ms_at_100k"]}
    recalls = {r["target_chunks"]: r["dense_recall_at_10"] for r in results if "dense_recall_at_10" in r}
    if recalls:
        out["dense_recall_at_10"] = {"by_size": recalls, "goal": GOALS["dense_recall_at_10"]}
    for v in out.values():
        if "raw" in v:
            v["met_raw"] = v["raw"] <= v["goal"]
            v["met_best_of_rounds"] = v["best_of_rounds"] <= v["goal"]
        else:
            v["met"] = all(x >= v["goal"] for x in v["by_size"].values())
    return out


def _pp(lat: dict[str, Any] | None) -> str:
    if not lat:
        return "—"
    return f"{lat['raw']['p50_ms']} / {lat['raw']['p99_ms']} ({lat['best_of_rounds']['p99_ms']})"


def _tables(doc: dict[str, Any]) -> str:
    rows = [
        "| chunks | lexical ingest chunks/s | dense stage chunks/s (synthetic vectors) "
        "| lexical + dense chunks/s "
        "| tantivy | `kb.search` lexical | SQLite FTS5 | vector index | `kb.search` dense "
        "| `kb.search` hybrid | hybrid w/o evidence | dense recall@10 | peak RSS MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in doc["results"]:
        rows.append(
            f"| {r['chunks']:,} | {r['ingest_lexical_chunks_per_s']:,.0f} | "
            f"{r.get('ingest_dense_stage_chunks_per_s', '—')} | "
            f"{r.get('ingest_lexical_plus_dense_chunks_per_s', '—')} | "
            f"{_pp(r['lexical_index'])} | {_pp(r['lexical_kb_search'])} | "
            f"{r['fts5']['raw']['p50_ms']} / {r['fts5']['raw']['p99_ms']} | "
            f"{_pp(r.get('dense_index'))} | {_pp(r.get('dense_kb_search'))} | "
            f"{_pp(r.get('hybrid_kb_search'))} | {_pp(r.get('hybrid_kb_search_no_evidence'))} | "
            f"{r.get('dense_recall_at_10', '—')} | {r['peak_rss_mb']:,} |"
        )
    return "\n".join(rows)


def write_readme(doc: dict[str, Any]) -> None:
    meta, m = doc["meta"], doc["minilm_sample"]
    # Runs before the count was recorded used 50.
    cand = next((r["hybrid_candidates_per_retriever"] for r in doc["results"]
                 if "hybrid_candidates_per_retriever" in r), 50)
    minilm = ""
    if m:
        minilm = (
            f"\n\nThe real model, on a {m['chunks']}-chunk sample of the same corpus: ingest with "
            f"MiniLM embeddings {m['ingest_with_minilm_chunks_per_s']} chunks/s end to end "
            f"(lexical only: {m['ingest_lexical_chunks_per_s']} chunks/s; the model alone "
            f"{m['minilm_chunks_per_s']} chunks of ~800 chars/s), query embedding p50 / p99 "
            f"{m['query_embedding']['p50_ms']} / {m['query_embedding']['p99_ms']} ms (add it "
            "to the dense and hybrid latencies above for a fresh query; repeated queries are "
            "cached). On this machine the model, not the pipeline, bounds ingest with "
            "embeddings."
        )
    verdicts = []
    for name, v in doc["verdict"].items():
        if "raw" in v:
            held = ("met" if v["met_raw"] else
                    "met on best of rounds" if v["met_best_of_rounds"] else "NOT met")
            verdicts.append(f"{name}: {v['raw']} ms raw, {v['best_of_rounds']} ms best of "
                            f"{ROUNDS} (goal <= {v['goal']}) → {held}")
        else:
            verdicts.append(f"{name}: {v['by_size']} (goal >= {v['goal']}) → "
                            f"{'met' if v['met'] else 'NOT met'}")
    section = (
        "## Retrieval\n\n"
        "`python bench/retrieval.py` — seeded synthetic corpus (Zipf vocabulary, files of "
        "~20 chunks of 800 chars / 120 overlap) through the real pipeline, "
        f"{doc['results'][0]['queries'] if doc['results'] else 0} seeded 1–4-word queries "
        f"× {ROUNDS} rounds, k = {K}; each size in its own process. Latencies are ms, "
        "*p50 / p99 (p99 of each query's best round)*: the best-of-rounds p99 removes "
        "CPU-scheduling stalls, which dominate the raw p99 on this shared machine. "
        "*tantivy* / *vector index* = the index alone; *`kb.search`* = what the agent "
        f"calls (index, hits read from SQLite, and for hybrid: BM25 top {cand} + vector "
        f"top {cand} "
        "fused by the default fusion of `citewise.knowledge.retrieve.fusion`, plus evidence "
        "windows). SQLite FTS5 (porter, bm25 order, top 10, "
        f"{FTS_QUERIES} queries, one round) is built over the same chunks in the same run. "
        "**Dense vectors are synthetic** (a seeded 384-d mixture, see the script): "
        "embedding this many chunks with MiniLM takes hours here; dense and hybrid times "
        "exclude the query embedding (measured below). *dense stage* = reopening the "
        "knowledge base with dense retrieval on: every chunk's vector stored in SQLite and "
        f"the HNSW index built ({_hnsw_params(doc)}; one index shard per tenant, so a "
        "search reads from SQLite only the hits it returns). "
        f"Machine: {meta['machine']}, shared (load average {meta['load_avg_start']} at the "
        f"start, {meta['load_avg_end']} at the end; the benchmark ran at nice "
        f"{meta.get('nice', 0)}), Python {meta['python']}; run "
        f"{meta['date']}. Raw numbers: `bench/results/retrieval.json`.\n\n"
        + _tables(doc)
        + _not_run(doc)
        + minilm
        + "\n\nGoals: " + "; ".join(verdicts) + ".\n"
    )
    text = README.read_text() if README.exists() else "# Benchmarks\n\n"
    start = text.find("## Retrieval")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + ("" if end < 0 else text[end:])
    README.write_text(text)


def _hnsw_params(doc: dict[str, Any]) -> str:
    for r in doc["results"]:
        v = r.get("vector_index")
        if v:
            return f"M {v['m']}, ef_construction {v['ef_construction']}, ef_search {v['ef_search']}"
    return "the shipped parameters"


def _not_run(doc: dict[str, Any]) -> str:
    """Say which sizes skipped dense/hybrid, and what building their index would take."""
    skipped = [r for r in doc["results"] if "hybrid_kb_search" not in r]
    built = [r for r in doc["results"] if "ingest_dense_stage_chunks_per_s" in r]
    if not skipped:
        return ""
    sizes = ", ".join(f"{r['chunks']:,}" for r in skipped)
    text = f"\n\nDense and hybrid were not measured at {sizes} chunks in this run"
    if built:
        rate = built[-1]["ingest_dense_stage_chunks_per_s"]
        worst = max(r["chunks"] for r in skipped)
        text += (f": the dense stage (mostly the HNSW build) ran at {rate:,} vectors/s "
                 f"here, so {worst:,} vectors would take about {worst / rate / 60:.0f} min "
                 "(`--dense-max` raises the limit)")
    return text + "."


def _load() -> str:
    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    main()
