"""Lexical-index latency probe (run by hand; not part of the test suite).

    python bench/lexical_probe.py build --chunks 1000000 --dir /tmp/lexprobe
    python bench/lexical_probe.py measure --dir /tmp/lexprobe-1000000

``build`` writes ``bench/retrieval.py``'s seeded corpus (same generator, same seed), chunks
it with the real chunker (800 / 120, like the benchmark) and indexes the chunks straight
into a :class:`LexicalIndex` in one writer session — what ``sync_index`` does for a first
ingest, without SQLite. The index folder is kept and reused by ``measure``, which times
``LexicalIndex.search(q, 10, tenant=...)`` on ``bench/retrieval.py``'s seeded queries (50
warm-up, 1000 measured, 3 round-robin rounds) and prints raw and best-of-rounds
percentiles, so a change to ``lexical.py`` is measured under the same conditions as the
benchmark without rebuilding a million chunks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from retrieval import (  # noqa: E402  (bench/retrieval.py, imported read-only)
    CHUNK_SIZE,
    ROUNDS,
    K,
    _latency,
    _queries,
    _timed,
    write_corpus,
)

from citewise.knowledge.index.lexical_tantivy import LexicalIndex  # noqa: E402
from citewise.knowledge.ingest.chunking import chunk_text  # noqa: E402
from citewise.store.base import IndexRow  # noqa: E402

TENANT = "default"
COLLECTION = "default"


def build(chunks: int, folder: Path, seed: int) -> None:
    corpus = folder / "corpus"
    t = time.perf_counter()
    if not (folder / "vocab.json").exists():
        _, vocab = write_corpus(corpus, chunks, seed)
        (folder / "vocab.json").write_text(json.dumps(vocab))
    print(f"corpus {time.perf_counter() - t:.0f}s", flush=True)
    index = LexicalIndex(folder / "index")
    t = time.perf_counter()
    n = 0

    def rows() -> Any:
        nonlocal n
        for path in sorted(corpus.rglob("*.txt")):
            text = path.read_text(encoding="utf-8")
            doc_id = path.stem
            for c in chunk_text(doc_id, text, size=CHUNK_SIZE, overlap=120):
                n += 1
                yield IndexRow(c.id, doc_id, TENANT, COLLECTION, c.text)

    with index.writer() as batch:
        batch.delete_all()
        batch.add(rows())
    searcher_segments = index._index.searcher().num_segments
    print(f"indexed {n} chunks in {time.perf_counter() - t:.0f}s, "
          f"{searcher_segments} segments", flush=True)
    index.close()


def measure(folder: Path, n_queries: int, seed: int, rounds: int) -> dict[str, Any]:
    vocab = json.loads((folder / "vocab.json").read_text())
    queries = _queries(vocab, n_queries + 50, seed)
    warm, measured = queries[:50], queries[50:]
    index = LexicalIndex(folder / "index")
    searcher = index._index.searcher()
    info = {"num_docs": searcher.num_docs, "segments": searcher.num_segments}
    for q in warm:
        index.search(q, K, tenant=TENANT)
    runs = _timed(measured, lambda q: index.search(q, K, tenant=TENANT), rounds)
    index.close()
    return {**info, "queries": len(measured), "rounds": rounds, **_latency(runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("what", choices=["build", "measure"])
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    args = ap.parse_args()
    if args.what == "build":
        args.dir.mkdir(parents=True, exist_ok=True)
        build(args.chunks, args.dir, args.seed)
    else:
        print(json.dumps(measure(args.dir, args.queries, args.seed, args.rounds), indent=2))


if __name__ == "__main__":
    main()
