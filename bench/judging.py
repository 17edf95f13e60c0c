"""Labels judged after a run: sentences citewise quoted that two judges, apart, found to
state the answer (run by hand, not part of the test suite)::

    python bench/answers.py --kb-dir K --out R.json --capture C.jsonl
    python bench/judging.py build R.json C.jsonl --out /tmp/round1 --batches 6
    #   … each /tmp/round1/batch_N.md judged by someone who sees nothing else, as
    #   /tmp/round1/prompt_N.md asks, into /tmp/round1/out_N.jsonl
    python bench/judging.py build R.json C.jsonl --out /tmp/round2 --batches 4 \\
        --confirm /tmp/round1          # what round 1 found, judged again by others
    python bench/judging.py merge /tmp/round1 /tmp/round2   # → data/answers/judged.jsonl
    python bench/judging.py check --kb-dir K   # which hold once where they can match

Why: the question writers labelled one sentence per question (sometimes two), the one they
found. A manual often states an answer twice — in the option's entry and in the chapter
that explains it ("Views are read-only in SQLite." and "You cannot DELETE, INSERT, or
UPDATE a view."), and a first citation of the other one was counted wrong, while the rule
of the bench is that an answer is right when the sentence it cites states the answer. So,
as TREC's pooling does for search results, the sentences the system put first (and the next
two of its shortlist) on the questions it missed are judged: by two judges who do not see
each other's verdicts, which sentence is the written label, or which sentence citewise
chose (each item's candidates are shuffled). A sentence becomes a label only when both
judged it to state the answer ("A"), never "related" ("P"); every verdict, kept or not, is
in the file. Controls: some questions the run answered with a written label are mixed in,
so each round says how often its judges accept a written label (their strictness).

The bench counts the judged labels beside the written ones unless ``--written-labels``,
and reports evidence@1 / @any on the written labels alone beside them. A later change
that quotes a right sentence nobody judged yet is counted wrong until the pool is judged
again (the known bias of pooling: judged sets favour the systems that were pooled).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JUDGED = HERE / "data" / "answers" / "judged.jsonl"
INSTRUCTIONS = HERE / "data" / "answers" / "JUDGING.md"
CANDIDATES = 3  # the first citation and the next of the shortlist


def _rows(path: Path = JUDGED) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def load_judged(path: Path = JUDGED) -> dict[str, tuple[str, ...]]:
    """Question id → the sentences judged to state its answer (both verdicts "A"), less
    those :func:`check` found do not hold as a label must (``"holds": false``)."""
    out: dict[str, tuple[str, ...]] = {}
    for row in _rows(path):
        if row["verdicts"] and all(v == "A" for v in row["verdicts"]) \
                and row.get("holds", True):
            out[row["id"]] = (*out.get(row["id"], ()), row["sentence"])
    return out


def _key(text: str) -> str:
    """``text`` as the bench compares it (whitespace collapsed, Markdown as rendered), less
    its citation markers ("70 KiB [1] blocks": a capture's sentences have none)."""
    from citewise.evaluation_match import normalised
    from citewise.grounding.claims import MARKER_GROUP

    return normalised(MARKER_GROUP.sub("", text))[0].lower()


def hit(text: str, expected: tuple[str, ...]) -> bool:
    """The bench's matching rule simplified (containment, in either direction): what
    ``rerank_offline`` and the pool count as a labelled sentence, without the stored text."""
    t = _key(text)
    return any(_key(e) in t or (t in _key(e) and len(t) >= len(_key(e)) / 2) for e in expected)


def _labels() -> dict[str, tuple[str, ...]]:
    """Every bench question's written labels, by id."""
    from citewise.evaluation import load_questions

    return {q.id: q.expected or () for path in sorted(JUDGED.parent.glob("*.jsonl"))
            if path != JUDGED for q in load_questions(path)}


def pool(results: dict[str, Any], capture: Path, *, controls: float,
         seed: int) -> list[dict[str, Any]]:
    """The items to judge: each answered question whose first citation matched no written
    label, and a ``controls`` share of those whose did, with up to :data:`CANDIDATES`
    sentences (the first citation, then the shortlist's next)."""
    sys.path.insert(0, str(HERE))
    import answers

    from citewise.evaluation import load_questions

    rng = random.Random(seed)
    # A capture is in the run's order, corpus after corpus: a question asked of two corpora
    # (gnuinfo's and diffutils' "df03") is told apart by where it falls.
    captured = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    asked = frozenset(q.question.strip() for name in results["corpora"]
                      for q in load_questions(answers.DATA / f"{name}.jsonl"))
    items = []
    at = 0
    for name, corpus in results["corpora"].items():
        questions = {q.id: q for q in load_questions(answers.DATA / f"{name}.jsonl")}
        # Misses on the written labels: a question matched only by a judged one is judged.
        written = {qid: at1 for qid, at1, _ in corpus.get("results_written", ())}
        for r in corpus["results"]:
            q = questions.get(r["id"])
            ranking, at = _ranking(captured, at, q.question if q is not None else None,
                                   asked)
            if q is None or not q.expected or r["abstained"] or not r["first_sentence"]:
                continue
            control = bool(written.get(r["id"], r["evidence_at_1"]))
            if control and rng.random() >= controls:
                continue
            if ranking is None:
                continue
            first = {"text": r["first_sentence"], "source": r["first_source"],
                     "section": None, "before": None}
            cands = [first]
            keys = [_key(first["text"])]
            for x in ranking["scored"]:
                a = _key(x["text"])
                if a in keys[0] or keys[0] in a:  # the first citation's own sentence
                    if first["section"] is None:
                        first.update(section=x["section"], before=x["before"])
                elif len(cands) < CANDIDATES and not any(a in k or k in a for k in keys):
                    cands.append({k: x[k] for k in ("text", "source", "section", "before")})
                    keys.append(a)
            for c in cands:
                c["written"] = hit(c["text"], q.expected)
            items.append({"id": q.id, "question": q.question, "control": control,
                          "cands": cands})
    rng.shuffle(items)
    return items


def _ranking(captured: list[dict[str, Any]], at: int, question: str | None,
             asked: frozenset[str]) -> tuple[dict[str, Any] | None, int]:
    """The capture's last ranking of ``question`` from ``at`` on (a question may be ranked
    more than once in a row: a retry), and where to look for the next question. Only what
    is no question of the run (the warm-up) is passed over to find it: a question that
    has no ranking (no candidates, an error) has none, and the next one its own."""
    want = question.strip() if question is not None else None
    start = at
    while start < len(captured) and captured[start]["question"].strip() not in asked:
        start += 1
    if want is None or start >= len(captured) or captured[start]["question"].strip() != want:
        return None, at
    end = start
    while end < len(captured) and captured[end]["question"].strip() == want:
        end += 1
    return captured[end - 1], end


def _confirmed(round_dir: Path) -> set[str]:
    """Ids of the questions round 1 found a sentence for that is no written label, and its
    controls (judged again, so round 2 says its own strictness)."""
    out = set()
    for key, verdicts in _rounds(round_dir):
        for n, item in key.items():
            got = verdicts.get(int(n), {})
            if item["control"] or any(got.get(c["letter"]) == "A" and not c["written"]
                                      for c in item["cands"]):
                out.add(item["id"])
    return out


def build(items: list[dict[str, Any]], out: Path, batches: int, seed: int) -> None:
    """``batch_N.md`` (what a judge reads), ``prompt_N.md`` (what a judge is told) and
    ``key_N.json`` (which candidate is which) for each batch."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    instructions = INSTRUCTIONS.read_text(encoding="utf-8").split("<!-- prompt -->")[1]
    for b in range(batches):
        lines, key = [f"# Judging batch {b}\n"], {}
        for num, item in enumerate(items[b::batches], 1):
            cands = item["cands"][:]
            rng.shuffle(cands)
            key[num] = {"id": item["id"], "control": item["control"], "cands": []}
            lines.append(f"## Item {num}\n\nQuestion: {item['question']}\n")
            for letter, c in zip("abc", cands, strict=False):
                key[num]["cands"].append({"letter": letter, "text": c["text"],
                                          "written": c["written"]})
                before = (c["before"] or "(none)")[-300:]
                lines.append(f"({letter}) Document: {c['source']}\n"
                             f"    Section: {c['section'] or '(none)'}\n"
                             f"    Text before (context only): {before}\n"
                             f"    SENTENCE: {c['text']}\n")
        (out / f"batch_{b}.md").write_text("\n".join(lines), encoding="utf-8")
        (out / f"prompt_{b}.md").write_text(
            instructions.replace("{DIR}", str(out)).replace("{N}", str(b)).strip() + "\n",
            encoding="utf-8")
        (out / f"key_{b}.json").write_text(json.dumps(key, ensure_ascii=False),
                                           encoding="utf-8")
        print(f"batch {b}: {len(key)} items", file=sys.stderr)


def _rounds(round_dir: Path) -> list[tuple[dict[str, Any], dict[int, dict[str, str]]]]:
    """Each batch's key with its verdicts by item number (a missing output: none)."""
    out = []
    for key_file in sorted(round_dir.glob("key_*.json")):
        n = key_file.stem.split("_", 1)[1]
        verdicts: dict[int, dict[str, str]] = {}
        answers = round_dir / f"out_{n}.jsonl"
        if answers.is_file():
            for line in answers.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    verdicts[int(row.pop("item"))] = row
        out.append((json.loads(key_file.read_text(encoding="utf-8")), verdicts))
    return out


def _verdicts(round_dir: Path) -> dict[tuple[str, str], str]:
    """(question id, sentence) → the round's verdict."""
    out = {}
    for key, verdicts in _rounds(round_dir):
        for n, item in key.items():
            got = verdicts.get(int(n), {})
            for c in item["cands"]:
                if c["letter"] in got:
                    out[(item["id"], c["text"])] = got[c["letter"]].strip().upper()[:1]
    return out


def merge(first: Path, second: Path, path: Path = JUDGED,
          labels: dict[str, tuple[str, ...]] | None = None) -> dict[str, Any]:
    """Write ``path``: every sentence both rounds judged that is no written label (of
    ``labels``, by default the bench's), with both verdicts, when one is "A"; a label
    where both are. Returns the counts it reports."""
    one, two = _verdicts(first), _verdicts(second)
    labels = _labels() if labels is None else labels
    written = {k: hit(k[1], labels.get(k[0], ())) for k in {*one, *two}}
    stats: dict[str, Any] = {
        "judged_round1": len(one), "judged_round2": len(two),
        "round1": dict(Counter(one.values())), "round2": dict(Counter(two.values())),
    }
    for name, verdicts in (("round1", one), ("round2", two)):
        shown = [v for k, v in verdicts.items() if written.get(k)]
        stats[f"{name}_accepts_written"] = f"{shown.count('A')} of {len(shown)}"
    rows = []
    for (qid, text), v1 in sorted(one.items()):
        v2 = two.get((qid, text))
        if written.get((qid, text)) or v2 is None or "A" not in (v1, v2):
            continue
        rows.append({"id": qid, "sentence": text, "verdicts": [v1, v2]})
    # Judged before and not again: kept (a new pool leaves out what earlier labels match);
    # judged again by both rounds: as they say now, "A" or not (a label withdrawn too).
    again = set(one) & set(two)
    rows = sorted([*(r for r in _rows(path) if (r["id"], r["sentence"]) not in again), *rows],
                  key=lambda r: (r["id"], r["sentence"]))
    both = [r for r in rows if r["verdicts"] == ["A", "A"]]
    stats["found_by_one"] = len(rows)
    stats["labels"] = len(both)
    stats["questions"] = len({r["id"] for r in both})
    _write(rows, path)
    return stats


def _write(rows: list[dict[str, Any]], path: Path) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


def check(kb_dir: Path, path: Path = JUDGED) -> dict[str, int]:
    """Mark each judged sentence whether it holds as a written label must (once where it
    can match: ``answers.with_judged``'s rule) in the knowledge bases ``answers.py
    --kb-dir`` keeps, so that ``rerank_offline`` counts the labels the bench counts. Run
    it again when the manuals change: a mark is the last check's."""
    sys.path.insert(0, str(HERE))
    import answers

    from citewise import KnowledgeBase
    from citewise.evaluation import load_questions

    rows = _rows(path)
    wanted = {r["id"] for r in rows}
    for name, corpus in answers.CORPORA.items():
        questions = {q.id: q for q in load_questions(answers.DATA / f"{name}.jsonl")
                     if q.id in wanted}
        if not questions or not (kb_dir / name).is_dir():
            continue
        with KnowledgeBase.open(kb_dir / name) as kb:
            texts = answers.stored_pages(kb, corpus)
        for row in rows:
            if row["id"] in questions:
                row["holds"] = answers.where_it_matches(
                    texts, corpus, questions[row["id"]], row["sentence"])[0] == 1
    _write(rows, path)
    return dict(Counter({True: "holds", False: "does not hold"}.get(r.get("holds"), "unchecked")
                        for r in rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the batches to judge")
    b.add_argument("results", type=Path)
    b.add_argument("capture", type=Path)
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--batches", type=int, default=6)
    b.add_argument("--controls", type=float, default=0.12)
    b.add_argument("--seed", type=int, default=33)
    b.add_argument("--confirm", type=Path, default=None,
                   help="round 2: only what this round-1 folder found, and its controls")
    m = sub.add_parser("merge", help="keep what both rounds judged 'A'")
    m.add_argument("round1", type=Path)
    m.add_argument("round2", type=Path)
    m.add_argument("--out", type=Path, default=JUDGED)
    c = sub.add_parser("check", help="mark which judged sentences hold as labels")
    c.add_argument("--kb-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "merge":
        print(json.dumps(merge(args.round1, args.round2, args.out), indent=1))
        return 0
    if args.command == "check":
        print(json.dumps(check(args.kb_dir), indent=1))
        return 0
    results = json.loads(args.results.read_text(encoding="utf-8"))
    items = pool(results, args.capture, controls=args.controls, seed=args.seed)
    if args.confirm is not None:
        wanted = _confirmed(args.confirm)
        items = [i for i in items if i["id"] in wanted]
    build(items, args.out, args.batches, args.seed + 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
