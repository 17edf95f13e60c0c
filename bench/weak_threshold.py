"""Where should an answer be flagged ``weak_evidence``, and how is ``confidence`` fitted?
Run by hand, not part of the suite::

    python bench/answers.py --out /tmp/answers.json --capture /tmp/capture.jsonl
    python bench/weak_threshold.py /tmp/answers.json --split tune     # choose on this …
    python bench/weak_threshold.py /tmp/answers.json --split heldout  # … report this
    python bench/weak_threshold.py /tmp/answers.json --fit /tmp/capture.jsonl  # refit

Why: the extractive model answers from an answerability of ``extractive.ANSWERABLE`` up,
and its first quote is right far less often for some answers than for others.
:mod:`citewise.models.confidence` estimates how likely the first quote states the answer;
``extractive.WEAK`` flags the answers below a threshold of it. The table gives, for each
candidate threshold, how many answers it would flag, how many of those are wrong (the
first citation not the answer, or a question the documents do not answer), how many of
the unflagged answers are, and the right answers flagged too (the cost).

``--fit CAPTURE`` fits the confidence's logistic model again on the ``tune`` answers of a
run made with ``--capture`` (after a change of the ranking, whose score margins it reads),
and prints its coefficients (for ``confidence.COEFFICIENTS``), how well it separates
right from wrong answers (AUC) on each split and how well calibrated it is on held-out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def answered(run: dict[str, Any], split: str | None) -> list[tuple[float, bool]]:
    """(confidence, wrong) of every answer given (not declined) in ``run``."""
    out = []
    for corpus in run["corpora"].values():
        for r in corpus["results"]:
            if r["abstained"] or (split is not None and r["split"] != split):
                continue
            if r.get("confidence") is None:
                raise SystemExit(f"{r['id']}: no confidence (a run before it was recorded)")
            out.append((float(r["confidence"]), not r["evidence_at_1"]))
    return out


def table(rows: list[tuple[float, bool]], thresholds: list[float]) -> list[dict[str, Any]]:
    out = []
    for t in thresholds:
        flagged = [wrong for a, wrong in rows if a < t]
        rest = [wrong for a, wrong in rows if a >= t]
        out.append({
            "threshold": t, "answers": len(rows), "flagged": len(flagged),
            "flagged_wrong": sum(flagged), "rest_wrong": sum(rest), "rest": len(rest),
            "right_flagged": sum(not w for w in flagged),
            "right": sum(not w for _, w in rows),
        })
    return out


def features(run: dict[str, Any], capture: Path) -> list[tuple[str, list[float], bool]]:
    """(split, [answerability, margin, rank], wrong) of every answer given, from the
    capture's last ranking of each question (the one the answer came from)."""
    from citewise.models.confidence import margin

    last: list[dict[str, Any]] = []
    for line in capture.open(encoding="utf-8"):
        d = json.loads(line)
        if last and last[-1]["question"] == d["question"]:
            last[-1] = d
        else:
            last.append(d)
    out, at = [], 0
    for corpus in run["corpora"].values():
        for r in corpus["results"]:
            while at < len(last) and last[at]["question"] != r["question"]:
                at += 1
            if at == len(last):
                raise SystemExit(f"{r['id']}: not in the capture (another run's?)")
            d, at = last[at], at + 1
            if r["abstained"] or not d["scored"]:
                continue
            top = d["scored"][0]
            ahead = margin((x.get("quote") or x["text"], x["score"]) for x in d["scored"])
            out.append((r["split"], [d["answerability"], ahead, float(top["rank"])],
                        not r["evidence_at_1"]))
    return out


def fit(rows: list[tuple[str, list[float], bool]]) -> None:
    import numpy as np

    from citewise.models.confidence import RANK_CAP

    def matrix(split: str) -> tuple[Any, Any]:
        picked = [(x, wrong) for s, x, wrong in rows if s == split]
        x = np.array([[a, max(0.0, m), min(r, RANK_CAP)] for (a, m, r), _ in picked])
        return x, np.array([not wrong for _, wrong in picked], float)  # 1: right

    x, y = matrix("tune")
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z, w, b = (x - mu) / sd, np.zeros(x.shape[1]), 0.0
    for _ in range(5000):  # logistic regression, plain gradient descent, a little L2
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= 0.1 * (z.T @ (p - y) / len(y) + w / len(y))
        b -= 0.1 * float((p - y).mean())
    coef = w / sd
    intercept = b - float((mu / sd) @ w)
    print("COEFFICIENTS =", tuple(round(float(c), 4) for c in (intercept, *coef)))

    def auc(score: Any, right: Any) -> float:
        order = np.argsort(score)
        ranks = np.empty(len(score))
        ranks[order] = np.arange(1, len(score) + 1)
        pos = right.sum()
        return float((ranks[right == 1].sum() - pos * (pos + 1) / 2) / (pos * (len(right) - pos)))

    for split in ("tune", "heldout"):
        xs, ys = matrix(split)
        conf = 1 / (1 + np.exp(-(xs @ coef + intercept)))
        print(f"{split}: {len(ys)} answers, AUC {auc(conf, ys):.3f} "
              f"(answerability alone {auc(xs[:, 0], ys):.3f})")
        if split == "heldout":
            for lo, hi in ((0, .2), (.2, .3), (.3, .4), (.4, .5), (.5, .6), (.6, .7), (.7, 1.01)):
                m = (conf >= lo) & (conf < hi)
                if m.any():
                    print(f"  confidence {lo:.1f}–{min(hi, 1):.1f}: {int(m.sum())} answers, "
                          f"{100 * ys[m].mean():.0f} % right")


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f} %" if den else "—"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a results file of bench/answers.py")
    parser.add_argument("--split", choices=("tune", "heldout"), default=None)
    parser.add_argument("--thresholds", default="0.20,0.25,0.30,0.35,0.40,0.45,0.50",
                        help="comma-separated")
    parser.add_argument("--fit", type=Path, metavar="CAPTURE",
                        help="refit the confidence on this capture of the same run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    run = json.loads(args.run.read_text(encoding="utf-8"))
    if args.fit is not None:
        fit(features(run, args.fit))
        return 0
    rows = answered(run, args.split)
    result = table(rows, [float(t) for t in args.thresholds.split(",")])
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{len(rows)} answers given ({args.split or 'both splits'})")
    print("| confidence below | flagged | of them wrong | unflagged wrong | right answers flagged |")
    print("|---|---|---|---|---|")
    for r in result:
        print(f"| {r['threshold']:.2f} | {r['flagged']} | "
              f"{_pct(r['flagged_wrong'], r['flagged'])} | {_pct(r['rest_wrong'], r['rest'])} | "
              f"{r['right_flagged']} of {r['right']} ({_pct(r['right_flagged'], r['right'])}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
