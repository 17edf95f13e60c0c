"""Retrieval benchmark (run by hand, not part of the test suite).

    python bench/retrieval.py                      # 10k and 100k chunks
    python bench/retrieval.py --sizes 10000 --queries 300

For each size: writes a seeded synthetic corpus (Zipf-distributed vocabulary, sentences
of 6–24 words, files of ~20 chunks), ingests it into a fresh ``KnowledgeBase`` (loaders →
chunking → SQLite → tantivy, the real pipeline) and measures ingest chunks/s, then runs
seeded 1–4-word queries and measures lexical search latency — the index alone and the
full ``KnowledgeBase.search`` (index + hydrating hits from SQLite). Results go to
``bench/results/retrieval.json`` and the table under ``## Retrieval`` in
``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.knowledge.base import KnowledgeBase

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "retrieval.json"
README = HERE / "README.md"
CHUNK_SIZE = 800
CHUNKS_PER_FILE = 20
ROUNDS = 3


def _vocabulary(rng: random.Random, n: int = 30_000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "da", "qu", "zen",
                 "or", "al", "in", "ex", "ba", "tri", "mo", "fi"]
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choices(syllables, k=rng.randint(1, 4))))
    return sorted(words)


def _zipf_weights(n: int, s: float = 1.07) -> list[float]:
    return [1.0 / (rank**s) for rank in range(1, n + 1)]


def write_corpus(folder: Path, target_chunks: int, seed: int) -> tuple[int, list[str]]:
    """Files totalling about ``target_chunks`` chunks; returns (bytes, vocabulary)."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    rng.shuffle(vocab)
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


def run_size(target_chunks: int, n_queries: int, seed: int, workdir: Path) -> dict[str, Any]:
    corpus = workdir / f"corpus-{target_chunks}"
    data = workdir / f"data-{target_chunks}"
    t = time.perf_counter()
    nbytes, vocab = write_corpus(corpus, target_chunks, seed)
    print(f"[{target_chunks}] corpus: {nbytes / 1e6:.1f} MB in {time.perf_counter() - t:.1f}s",
          file=sys.stderr)
    with KnowledgeBase.open(data, chunk_size=CHUNK_SIZE, chunk_overlap=120) as kb:
        t = time.perf_counter()
        report = kb.ingest([corpus])
        ingest_s = time.perf_counter() - t
        assert not report.failed, report.failed[:3]
        chunks = kb.store.count_chunks()
        print(f"[{target_chunks}] ingest: {chunks} chunks in {ingest_s:.1f}s", file=sys.stderr)

        queries = _queries(vocab, n_queries + 50, seed)
        warm, measured = queries[:50], queries[50:]
        for q in warm:
            kb.search(q, k=10)
        # Each query runs ROUNDS times: "raw" pools every run; "best of N" keeps each
        # query's fastest run, which filters out CPU-scheduling stalls on a busy machine
        # (the slowest raw queries re-run at the median speed: they are not hard queries).
        index_runs: list[list[float]] = [[] for _ in measured]
        full_runs: list[list[float]] = [[] for _ in measured]
        hits = 0
        for _ in range(ROUNDS):
            for i, q in enumerate(measured):
                t = time.perf_counter()
                kb.index.search(q, 10, tenant=kb.tenant)
                index_runs[i].append(time.perf_counter() - t)
            for i, q in enumerate(measured):
                t = time.perf_counter()
                hits += len(kb.search(q, k=10))
                full_runs[i].append(time.perf_counter() - t)
        t = time.perf_counter()
        unchanged = kb.ingest([corpus])
        reingest_s = time.perf_counter() - t
        assert len(unchanged.unchanged) == len(report.added)
    return {
        "target_chunks": target_chunks,
        "chunks": chunks,
        "documents": len(report.added),
        "corpus_mb": round(nbytes / 1e6, 2),
        "ingest_s": round(ingest_s, 2),
        "ingest_chunks_per_s": round(chunks / ingest_s, 1),
        "ingest_mb_per_s": round(nbytes / 1e6 / ingest_s, 2),
        "reingest_unchanged_s": round(reingest_s, 2),
        "queries": len(measured),
        "rounds": ROUNDS,
        "mean_hits": round(hits / len(measured) / ROUNDS, 2),
        "search_index_only": _percentiles([t for runs in index_runs for t in runs]),
        "search_kb": _percentiles([t for runs in full_runs for t in runs]),
        "search_index_only_best_of_rounds": _percentiles([min(r) for r in index_runs]),
        "search_kb_best_of_rounds": _percentiles([min(r) for r in full_runs]),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| chunks | docs | corpus MB | ingest chunks/s | ingest MB/s | re-ingest unchanged s "
        "| index p50 / p99 ms | `kb.search` p50 / p99 ms | best of 3: index / `kb.search` "
        "p99 ms | peak RSS MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        i, s = r["search_index_only"], r["search_kb"]
        bi, bs = r["search_index_only_best_of_rounds"], r["search_kb_best_of_rounds"]
        lines.append(
            f"| {r['chunks']:,} | {r['documents']:,} | {r['corpus_mb']} | "
            f"{r['ingest_chunks_per_s']:,.0f} | {r['ingest_mb_per_s']} | "
            f"{r['reingest_unchanged_s']} | {i['p50_ms']} / {i['p99_ms']} | "
            f"{s['p50_ms']} / {s['p99_ms']} | {bi['p99_ms']} / {bs['p99_ms']} | "
            f"{r['peak_rss_mb']} |"
        )
    return "\n".join(lines)


def write_readme(results: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    section = (
        "## Retrieval\n\n"
        "`python bench/retrieval.py` — seeded synthetic corpus (Zipf vocabulary), the real "
        "ingest pipeline (text loader → sentence chunking, 800 chars / 120 overlap → SQLite "
        "→ tantivy BM25), then "
        f"{results[0]['queries']} seeded 1–4-word queries × {ROUNDS} rounds, k = 10. "
        "*index* = tantivy alone; *`kb.search`* = index + hits hydrated from SQLite (what "
        "the agent calls). *best of 3* = p99 over each query's fastest round: it removes "
        "CPU-scheduling stalls, which dominate the raw p99 on a shared machine. Peak RSS is "
        "the benchmark process's, cumulative over the sizes run before. "
        f"Machine: {meta['machine']} (load average {meta['load_avg']} at the start), "
        f"Python {meta['python']}; run {meta['date']}. "
        "Raw numbers: `bench/results/retrieval.json`.\n\n" + _table(results) + "\n"
    )
    text = README.read_text() if README.exists() else "# Benchmarks\n\n"
    start = text.find("## Retrieval")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + ("" if end < 0 else text[end:])
    README.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the corpus and data folders")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="citewise-bench-"))
    meta = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {_cpus()} CPUs, {platform.system()}",
        "python": platform.python_version(),
        "seed": args.seed,
        "load_avg": _load(),
    }
    try:
        results = [run_size(n, args.queries, args.seed, workdir) for n in args.sizes]
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    write_readme(results, meta)
    print(_table(results))


def _load() -> str:
    import os

    try:
        return ", ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


if __name__ == "__main__":
    main()
