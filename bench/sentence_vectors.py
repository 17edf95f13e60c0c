"""What sentence vectors cost at ingest and buy per answer, measured on the real path (run
by hand, not part of the suite)::

    python bench/sentence_vectors.py --corpus git --questions 60

Why: the extractive model compares a question with the sentences of the passages it
retrieved, by meaning, and embedding them was ~65 % of an answer's time on this 2-core
machine (bench/README.md, "Sentences that point back, and where an answer's time goes").
Each chunk's embedding job now embeds its sentences too (``sentence_vectors``,
:mod:`citewise.knowledge.index.sentences`) and an answer loads them. This measures both
sides, in one process, on a corpus of ``bench/answers.py``:

* **ingest**: the corpus ingested twice into fresh knowledge bases, the embedding waited
  for — with ``CITEWISE_SENTENCE_VECTORS=off``, then on — seconds and database size;
* **answers**: each question asked twice on the second one, the scorer's cache emptied
  before each ask (no sentence of an earlier question's passages is cached): with the
  stored vectors, then with them off (embedded per question, as before them). The answers
  must be the same: the vectors are the same model's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from answer_corpora import CORPORA  # noqa: E402
from answers import load_labels, locate  # noqa: E402

RESULTS = HERE / "results" / "sentence-vectors.json"
_ENV = "CITEWISE_SENTENCE_VECTORS"


def _ingest(paths: list[Path], where: Path, sentences: bool) -> dict[str, Any]:
    from citewise import KnowledgeBase

    if not sentences:
        os.environ[_ENV] = "off"
    try:
        t0 = time.perf_counter()
        with KnowledgeBase.open(where) as kb:
            kb.ingest(paths)
            seconds = time.perf_counter() - t0
            row = kb.status()[0]
    finally:
        os.environ.pop(_ENV, None)
    return {"seconds": round(seconds, 1), "chunks": row["chunks"],
            "sentences": row["sentences"],
            "db_mib": round((where / "citewise.db").stat().st_size / 2**20, 1)}


def _ask(agent: Any, question: str, sentences: bool) -> tuple[float, str]:
    from citewise.models import sentence_similarity as ss

    ss.forget()
    if not sentences:
        os.environ[_ENV] = "off"
    try:
        t0 = time.perf_counter()
        text = agent.ask(question).text
        return (time.perf_counter() - t0) * 1000, text
    finally:
        os.environ.pop(_ENV, None)


def run(name: str, questions: int) -> dict[str, Any]:
    from citewise import KnowledgeBase
    from citewise.agent.runner import Agent
    from citewise.evaluation import _percentile  # nearest rank, as `citewise eval` has it
    from citewise.store.sqlite import SQLiteStore

    paths = locate(CORPORA[name], install=False)
    asked = load_labels(CORPORA[name])[:questions]
    with tempfile.TemporaryDirectory(prefix=f"citewise-sentences-{name}-") as tmp:
        off = _ingest(paths, Path(tmp) / "off", sentences=False)
        on = _ingest(paths, Path(tmp) / "on", sentences=True)
        with KnowledgeBase.open(Path(tmp) / "on") as kb:
            store = SQLiteStore(Path(tmp) / "runs.db")
            try:
                agent = Agent(kb, model="extractive", store=store)
                agent.ask("What is the airspeed velocity of an unladen swallow?")  # warm-up
                stored: list[float] = []
                embedded: list[float] = []
                same = 0
                for q in asked:
                    a_ms, a = _ask(agent, q.question, sentences=True)
                    b_ms, b = _ask(agent, q.question, sentences=False)
                    stored.append(a_ms)
                    embedded.append(b_ms)
                    same += a == b
            finally:
                store.close()
    return {
        "ingest_off": off, "ingest_on": on,
        "ingest_ratio": round(on["seconds"] / max(off["seconds"], 1e-9), 2),
        "questions": len(asked), "same_answers": same,
        "stored_ms": {"p50": _percentile(stored, 50), "p99": _percentile(stored, 99)},
        "embedded_ms": {"p50": _percentile(embedded, 50), "p99": _percentile(embedded, 99)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA))
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    load = os.getloadavg()
    corpora = {name: run(name, args.questions) for name in args.corpus or ["git"]}
    out = {"started": started, "machine": platform.processor() or platform.machine(),
           "cpus": os.cpu_count(), "load_before": [round(x, 2) for x in load],
           "load_after": [round(x, 2) for x in os.getloadavg()], "corpora": corpora}
    print(json.dumps(out, indent=2))
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
