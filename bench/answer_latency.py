"""How long does a warm question take at 10k chunks: search + evidence choice + assembly?

Run by hand (not part of the test suite)::

    python bench/answer_latency.py                 # ~10k chunks, every question of bench/data/answers
    python bench/answer_latency.py --copies 2      # fewer chunks
    python bench/answer_latency.py --dense --copies 1 --corpus manpages --corpus cmake \
        --corpus vim --sentences                  # ~10k chunks: stored sentence vectors or not

Why: the extractive model now scores every retrieved sentence (words, context, intent,
structure) and embeds a shortlist of them with MiniLM (:mod:`citewise.models.sentence_rank`);
issue #27 asks that a warm ``kb.search`` plus answer assembly stay at p50 <= 150 ms and
p99 <= 400 ms at 10k chunks. The knowledge base is the corpora of ``bench/answers.py``
(``--corpus`` picks some) ingested ``--copies`` times under different file names (so ranking
sees look-alikes, as a real folder of versions would), lexical only by default: embedding
10k chunks with MiniLM takes ~20 min on this 2-core machine (``--dense`` includes it; the
dense search itself adds ~1-2 ms at this size, ``bench/README.md`` "Retrieval", and the
query's embedding ~6 ms). The sentence shortlist is embedded with MiniLM either way.
Each question is asked once with ``Agent.ask`` after one warm-up question, so no sentence
embedding of a question's own candidates is cached from an earlier ask of it; the time is
the whole ask (search, possibly a second search, ranking, verification, the Answer), in
one process. Prints p50 / p99 / max, the slowest questions and the machine's load.
``--keep DIR`` builds the knowledge base in DIR and leaves it there; a later run with the
same DIR finds every file unchanged and asks again (to look into one slow question, say).
``ingest_s`` is the ingest with its embedding (and sentence vectors) waited for.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main(argv: list[str] | None = None) -> int:
    import answers as bench  # bench/answers.py: the corpora and their questions

    from citewise import Agent, KnowledgeBase

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--dense", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--corpus", action="append", choices=sorted(bench.CORPORA),
                        help="only these corpora (repeat; default: every one)")
    parser.add_argument("--sentences", action="store_true", help=(
        "with --dense: ask every question twice, first with the sentence vectors stored "
        "at ingest, then with them off (CITEWISE_SENTENCE_VECTORS=off: embedded per "
        "question, as before them); each pass starts with an empty scorer cache"))
    parser.add_argument("--keep", type=Path, help=(
        "build the knowledge base here and keep it; reuse it if it is already there"))
    parser.add_argument("--slowest", type=int, default=5, help="list this many slowest")
    args = parser.parse_args(argv)
    if args.sentences and not args.dense:
        parser.error("--sentences needs --dense: sentence vectors ride on the embedding jobs")
    chosen = {n: c for n, c in bench.CORPORA.items() if not args.corpus or n in args.corpus}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="citewise-latency-") as tmp:
        root = args.keep or Path(tmp)
        reused = (root / "kb").exists()
        docs = root / "docs"
        questions = []
        for name, corpus in chosen.items():
            for copy in range(args.copies):
                for path in bench.locate(corpus, install=False):
                    target = docs / name / f"copy{copy}" / path.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if not target.exists():
                        shutil.copyfile(path, target)
            questions += [q.question for q in bench.load_labels(corpus)]
        t0 = time.perf_counter()
        with KnowledgeBase.open(root / "kb", dense=args.dense) as kb:
            report = kb.ingest([docs])
            kb.embed_pending()
            ingest_s = time.perf_counter() - t0
            status = kb.status()[0]
            agent = Agent(kb)
            agent.ask("What does this manual cover?")  # warm-up: models loaded
            times, answers = _pass(agent, questions)
            slowest = sorted(zip(times, questions, strict=True), reverse=True)[:args.slowest]
            off: list[float] = []
            same = 0
            if args.sentences:
                os.environ["CITEWISE_SENTENCE_VECTORS"] = "off"
                try:
                    off, off_answers = _pass(agent, questions)
                finally:
                    del os.environ["CITEWISE_SENTENCE_VECTORS"]
                same = sum(a == b for a, b in zip(answers, off_answers, strict=True))
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    result = {
        "chunks": status.get("chunks", report.chunks_written), "reused": reused,
        "copies": args.copies, "dense": args.dense,
        "corpora": sorted(chosen), "sentences": status.get("sentences"),
        "questions": len(times), "ingest_s": round(ingest_s, 1),
        "p50_ms": round(statistics.median(times), 1), "p99_ms": round(p99, 1),
        "max_ms": round(times[-1], 1),
        "slowest": [[round(ms, 1), q] for ms, q in slowest],
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    if off:
        off.sort()
        result["sentence_vectors_off"] = {
            "p50_ms": round(statistics.median(off), 1),
            "p99_ms": round(off[min(len(off) - 1, int(0.99 * len(off)))], 1),
            "max_ms": round(off[-1], 1), "same_answers": same}
    print(json.dumps(result, indent=2))
    return 0


def _pass(agent: object, questions: list[str]) -> tuple[list[float], list[str]]:
    """Each question asked once, the scorer's cache emptied first; times (ms) and texts."""
    from citewise.models import sentence_similarity

    sentence_similarity.forget()
    times: list[float] = []
    texts: list[str] = []
    for q in questions:
        t1 = time.perf_counter()
        answer = agent.ask(q)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - t1) * 1000)
        texts.append(answer.text)
    return times, texts


if __name__ == "__main__":
    sys.exit(main())
