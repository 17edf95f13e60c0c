"""Re-score captured rankings with other weights: what a change to the evidence ranking would
have chosen, in a second instead of a bench run (run by hand, not part of the suite)::

    python bench/answers.py --split tune --capture /tmp/tune.jsonl --no-save
    python bench/rerank_offline.py /tmp/tune.jsonl --split tune
    python bench/rerank_offline.py /tmp/tune.jsonl --split tune --set semantic=1.6
    python bench/rerank_offline.py /tmp/tune.jsonl --split tune --sweep semantic

Why: in session 15 every weight of :data:`citewise.models.sentence_rank.WEIGHTS` moved
evidence@1 by a question or two either way on the tune split of six corpora; what limits
the ranking is the ranking's features, and this says so in a second for the next idea.
Counts per set of corpora (``answer_corpora.GROUPS``): how often the first sentence is a labelled
one (the bench's matching rule simplified: containment, whitespace-insensitive), and how
often a labelled sentence is anywhere in the MiniLM shortlist (the ceiling of any
reranking of it). Only look at the split you tune on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import answers  # noqa: E402
from judging import _key, hit, load_judged  # noqa: E402


def rankings(capture: Path, split: str, *, judged: bool = True
             ) -> dict[str, list[tuple[Any, dict[str, Any]]]]:
    """Per group of corpora, ``(question, its last captured ranking)`` for ``split``; its
    labels the written and (unless not ``judged``) the judged ones (``judging.py``)."""
    from dataclasses import replace

    from citewise.evaluation import load_questions

    records = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    extra = load_judged() if judged else {}
    out: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for name, corpus in answers.CORPORA.items():
        path = answers.DATA / f"{name}.jsonl"
        questions = [q for q in load_questions(path) if q.split == split and q.expected]
        for q in questions:
            if extra.get(q.id) and q.expected:
                q = replace(q, expected=(*q.expected, *extra[q.id]))
            found = [r for r in records if r["question"].startswith(q.question.strip())]
            if found:
                out.setdefault(corpus.group, []).append((q, found[-1]))
    return out


def evaluate(groups: dict[str, list[tuple[Any, dict[str, Any]]]],
             weights: dict[str, float]) -> dict[str, dict[str, int]]:
    """Per group: questions, how often the first sentence is a labelled one, a labelled one
    is in the shortlist, in a retrieved passage at all, and in a retrieved passage but in
    no candidate (lost by the candidates; captures before session 16 have no passages)."""
    from citewise.models.sentence_rank import SHORTLIST

    def score(x: dict[str, Any]) -> float:
        return sum(weights.get(k, 0.0) * v for k, v in x["parts"].items())

    out = {}
    for group, items in groups.items():
        counts = dict.fromkeys(("questions", "first", "shortlist", "retrieved", "lost"), 0)
        for q, record in items:
            ranked = sorted(record["scored"], key=score, reverse=True)
            counts["questions"] += 1
            counts["first"] += bool(ranked) and hit(ranked[0]["text"], q.expected)
            counts["shortlist"] += any(hit(x["text"], q.expected) for x in ranked[:SHORTLIST])
            keys = [_key(e) for e in q.expected]
            retrieved = any(k in _key(p["text"]) for p in record.get("passages", ())
                            for k in keys)
            counts["retrieved"] += retrieved
            counts["lost"] += retrieved and not any(hit(x["text"], q.expected) for x in ranked)
        out[group] = counts
    return out


def main(argv: list[str] | None = None) -> int:
    from citewise.models.sentence_rank import WEIGHTS

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("capture", type=Path)
    parser.add_argument("--split", choices=("tune", "heldout"), default="tune")
    parser.add_argument("--written-labels", action="store_true",
                        help="the written labels only, not the judged ones")
    parser.add_argument("--set", action="append", default=[], metavar="PART=WEIGHT")
    parser.add_argument("--sweep", metavar="PART", help="scale one weight by 0 … 3")
    args = parser.parse_args(argv)
    weights = dict(WEIGHTS)
    for item in args.set:
        part, _, value = item.partition("=")
        weights[part] = float(value)
    groups = rankings(args.capture, args.split, judged=not args.written_labels)
    print("weights", weights)
    print("as set", evaluate(groups, weights))
    if args.sweep:
        for factor in (0.0, 0.5, 1.5, 2.0, 3.0):
            scaled = {**weights, args.sweep: weights.get(args.sweep, 0.0) * factor}
            print(f"{args.sweep} × {factor}", evaluate(groups, scaled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
