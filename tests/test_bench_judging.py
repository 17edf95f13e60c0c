"""bench/judging.py: labels judged after a run count only where both judges said "A", hold
as a written label must, and never cost a question; the committed judgements name the
bench's own questions."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from citewise.evaluation import EvalQuestion, load_questions

ROOT = Path(__file__).resolve().parent.parent


def _bench(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # as when run: its modules beside it
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, f"bench_{name}", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def judging(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return _bench("judging", monkeypatch)


def _rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_judged_sentence_is_a_label_only_when_both_judges_said_it_answers(
        judging: ModuleType, tmp_path: Path) -> None:
    path = _rows(tmp_path / "judged.jsonl", [
        {"id": "q1", "sentence": "Views are read-only.", "verdicts": ["A", "A"]},
        {"id": "q1", "sentence": "A view is a query.", "verdicts": ["A", "P"]},
        {"id": "q2", "sentence": "It is 5.", "verdicts": ["P", "A"]},
        {"id": "q3", "sentence": "Yes.", "verdicts": []},
        {"id": "q4", "sentence": "The default is 1.", "verdicts": ["A", "A"]},
    ])
    assert judging.load_judged(path) == {"q1": ("Views are read-only.",),
                                         "q4": ("The default is 1.",)}
    assert judging.load_judged(tmp_path / "absent.jsonl") == {}


def test_judged_labels_hold_as_written_ones_and_never_cost_a_question(
        monkeypatch: pytest.MonkeyPatch) -> None:
    answers = _bench("answers", monkeypatch)
    corpus = answers.Corpus(name="t", title="T", packages=(), root="/r",
                            pages=("a.html", "b.html"))
    texts = {"a.html": "Views are read-only. You cannot INSERT into a view. It is on. It is on.",
             "b.html": "It is on. Views can be dropped."}
    qs = [EvalQuestion(id="q1", question="Can I insert into a view?",
                       expected=("Views are read-only.",), document="a.html"),
          EvalQuestion(id="q2", question="Is anything unanswerable?", expected=None),
          EvalQuestion(id="q3", question="Can a view be dropped?",
                       expected=("Views can be dropped.",), document="b.html")]
    judged = {
        # once in its own document: kept; twice where it can match: left out
        "q1": ("You cannot INSERT into a view.", "It is on."),
        "q2": ("Views are read-only.",),  # unanswerable: judged sentences add nothing
        # not in its own document but once in the corpus: it can match there
        "q3": ("You cannot INSERT into a view.", "Not in any page."),
    }
    out, gained, dropped = answers.with_judged(texts, corpus, qs, judged)
    assert [q.id for q in out] == ["q1", "q2", "q3"]
    assert out[0].expected == ("Views are read-only.", "You cannot INSERT into a view.")
    assert out[1].expected is None
    assert out[2].expected == ("Views can be dropped.", "You cannot INSERT into a view.")
    assert gained == {"q1": 1, "q3": 1}
    assert dropped == {"q1": 1, "q3": 1}  # said, not silently lost
    # The written labels' own check is unchanged: "It is on." thrice is a stale label.
    stale = answers.check_labels(None, corpus, [
        EvalQuestion(id="s", question="?", expected=("It is on.",), document="b.html"),
        EvalQuestion(id="t", question="?", expected=("It is on.",))], texts)
    assert list(stale) == ["t"] and "3 times" in stale["t"]


def _round(folder: Path, items: dict[str, Any], verdicts: list[dict[str, str]]) -> Path:
    folder.mkdir()
    (folder / "key_0.json").write_text(json.dumps(items), encoding="utf-8")
    _rows(folder / "out_0.jsonl", [{"item": n, **v} for n, v in enumerate(verdicts, 1)])
    return folder


def test_merge_keeps_every_sentence_either_round_accepted_and_labels_the_agreed(
        judging: ModuleType, tmp_path: Path) -> None:
    def item(qid: str, control: bool, *texts: tuple[str, bool]) -> dict[str, Any]:
        return {"id": qid, "control": control, "cands": [
            {"letter": letter, "text": t, "written": w}
            for letter, (t, w) in zip("abc", texts, strict=False)]}

    one = _round(tmp_path / "r1", {
        "1": item("q1", False, ("first", False), ("second", False), ("written", True)),
        "2": item("q2", True, ("label", True), ("other", False)),
    }, [{"a": "A", "b": "A", "c": "A"}, {"a": "A", "b": "N"}])
    # Round 2 shows the candidates in another order.
    two = _round(tmp_path / "r2", {
        "1": item("q1", False, ("written", True), ("second", False), ("first", False)),
        "2": item("q2", True, ("other", False), ("label", True)),
    }, [{"a": "A", "b": "P", "c": "A"}, {"a": "N", "b": "P"}])
    assert judging._confirmed(one) == {"q1", "q2"}
    # Judged before: kept unless judged again (a later pool leaves out the questions its
    # labels already match); what a check found does not hold is no label.
    out = _rows(tmp_path / "judged.jsonl", [
        {"id": "q0", "sentence": "earlier", "verdicts": ["A", "A"]},
        {"id": "q0", "sentence": "twice", "verdicts": ["A", "A"], "holds": False},
        {"id": "q1", "sentence": "first", "verdicts": ["P", "P"]}])
    stats = judging.merge(one, two, out, {"q1": ("written",), "q2": ("label",)})
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows == [{"id": "q0", "sentence": "earlier", "verdicts": ["A", "A"]},
                    {"id": "q0", "sentence": "twice", "verdicts": ["A", "A"], "holds": False},
                    {"id": "q1", "sentence": "first", "verdicts": ["A", "A"]},
                    {"id": "q1", "sentence": "second", "verdicts": ["A", "P"]}]
    assert judging.load_judged(out) == {"q0": ("earlier",), "q1": ("first",)}
    assert (stats["labels"], stats["questions"], stats["found_by_one"]) == (3, 2, 4)
    # How often each round accepts a written label: its strictness.
    assert stats["round1_accepts_written"] == "2 of 2"
    assert stats["round2_accepts_written"] == "1 of 2"


def test_a_label_judged_again_and_rejected_by_both_rounds_is_withdrawn(
        judging: ModuleType, tmp_path: Path) -> None:
    """A code review (2026-12-07): ``merge`` kept an earlier "A, A" row that both rounds now
    rejected, so a label could never be withdrawn."""
    cands = [{"letter": "a", "text": "The cache holds 64 entries.", "written": False}]
    item = {"1": {"id": "q1", "control": False, "cands": cands}}
    one = _round(tmp_path / "r1", item, [{"a": "N"}])
    two = _round(tmp_path / "r2", item, [{"a": "P"}])
    out = _rows(tmp_path / "judged.jsonl", [
        {"id": "q1", "sentence": "The cache holds 64 entries.", "verdicts": ["A", "A"]}])
    judging.merge(one, two, out, {"q1": ("Another.",)})
    assert out.read_text(encoding="utf-8") == "" and judging.load_judged(out) == {}


def test_a_written_label_is_told_with_its_citation_markers_and_markdown(
        judging: ModuleType) -> None:
    """A first citation keeps its markers ("70 KiB [1] blocks"), a capture's sentence has
    none: kn15's written label went to the judges as no label, and was "judged" one (code
    review, 2026-12-07)."""
    label = ("Blocks of 70 KiB [1] are read.",)
    assert judging.hit("Blocks of 70 KiB are read.", label)
    assert judging.hit("Use `--all` to list them.", ("Use --all to list them.",))
    assert not judging.hit("Blocks of 80 KiB are read.", label)


def test_the_pool_is_each_miss_with_its_first_citation_and_the_next_of_its_shortlist(
        judging: ModuleType, tmp_path: Path) -> None:
    q = next(q for q in load_questions(ROOT / "bench" / "data" / "answers" / "postgresql.jsonl")
             if q.expected)
    label = q.expected[0] if q.expected else ""
    first = "A sentence quoted first."
    results = {"corpora": {"postgresql": {"results": [
        {"id": q.id, "abstained": False, "evidence_at_1": False, "first_sentence": first,
         "first_source": "/doc/a.html"}]}}}

    def scored(text: str, section: str) -> dict[str, Any]:
        return {"text": text, "source": "/doc/a.html", "section": section, "before": "B."}

    capture = _rows(tmp_path / "capture.jsonl", [{"question": q.question, "scored": [
        scored("Another.", "S1"), scored(first, "S2"), scored("Another.", "S1"),
        scored(label, "S3"), scored("A fourth.", "S4")]}])
    (item,) = judging.pool(results, capture, controls=0.0, seed=1)
    assert item["id"] == q.id and not item["control"]
    assert [(c["text"], c["section"], c["written"]) for c in item["cands"]] == [
        (first, "S2", False), ("Another.", "S1", False), (label, "S3", True)]
    # A question the run answered with a written label is a control, sampled; one it
    # answered with a judged label only is judged again as a miss.
    results["corpora"]["postgresql"]["results"][0]["evidence_at_1"] = True
    assert judging.pool(results, capture, controls=0.0, seed=1) == []
    assert judging.pool(results, capture, controls=1.0, seed=1)[0]["control"]
    results["corpora"]["postgresql"]["results_written"] = [[q.id, False, False]]
    (again,) = judging.pool(results, capture, controls=0.0, seed=1)
    assert not again["control"]
    # A question the capture has no ranking of (no candidates) has none, even where another
    # corpus asks it too; the next one still finds its own (code review, 2026-12-07: one
    # missing line of a repeated question left every question between without one).
    data = ROOT / "bench" / "data" / "answers"
    boil = {c: next(x for x in load_questions(data / f"{c}.jsonl")
                    if x.question.startswith("What is the boiling point of water"))
            for c in ("bootstrap", "devref")}
    other = next(x for x in load_questions(data / "bootstrap.jsonl") if x.expected)

    def row(x: EvalQuestion) -> dict[str, Any]:
        return {"id": x.id, "abstained": False, "evidence_at_1": False,
                "first_sentence": first, "first_source": "/doc/a.html"}

    results = {"corpora": {"bootstrap": {"results": [row(boil["bootstrap"]), row(other)]},
                           "devref": {"results": [row(boil["devref"])]}}}
    lines = [{"question": "What are these documents about?", "scored": []},
             {"question": other.question, "scored": [scored("Another.", "S1")]},
             {"question": "What are these documents about?", "scored": []},
             {"question": boil["devref"].question, "scored": [scored("Boils.", "S2")]}]
    found = judging.pool(results, _rows(tmp_path / "gap.jsonl", lines), controls=0.0, seed=1)
    assert [i["id"] for i in found] == [other.id]  # the boiling point is unanswerable


def test_the_committed_judgements_name_bench_questions_and_add_no_written_label(
        judging: ModuleType) -> None:
    expected: dict[str, tuple[str, ...]] = {}
    for path in (ROOT / "bench" / "data" / "answers").glob("*.jsonl"):
        if path.name != judging.JUDGED.name:
            expected |= {q.id: q.expected or () for q in load_questions(path)}
    rows = [json.loads(line) for line in judging.JUDGED.read_text(encoding="utf-8").splitlines()]
    assert rows, "no judgements committed"
    for row in rows:
        assert expected.get(row["id"]), row["id"]  # an answerable bench question
        assert len(row["verdicts"]) == 2 and set(row["verdicts"]) <= {"A", "P", "N"}
        assert "A" in row["verdicts"]
        assert not judging.hit(row["sentence"], expected[row["id"]]), row["id"]
