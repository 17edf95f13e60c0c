"""An answer says how far to trust it: ``Answer.answerability`` (whether the passages
answer at all), ``Answer.confidence`` (how likely the first quote states the answer) and,
below the model's weak threshold, ``weak_evidence`` — in the Answer's issues, as a
streamed warning, above ``citewise ask``'s answer and in ``citewise eval``'s report. A
model that estimates nothing leaves both null."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from _answers import kb_over
from citewise import Agent, KnowledgeBase
from citewise.answer import Answer
from citewise.cli.common import print_answer
from citewise.cli.eval import render
from citewise.evaluation import QuestionResult, metrics, summarise
from citewise.events import RunFinished, Warning
from citewise.models.base import EvidencePart
from citewise.models.confidence import RANK_CAP, confidence, margin
from citewise.models.extractive import ANSWERABLE, WEAK, ExtractiveModel
from citewise.models.fallback import FallbackModel
from citewise.models.scripted import ScriptedModel, answer, call

MANUAL = """\
# Larkspur backup manual

## Retention

Larkspur keeps daily snapshots for 14 days and weekly snapshots for 8 weeks. Monthly
snapshots are kept until you delete them with `larkspur prune --monthly`.

## Encryption

Every archive is encrypted with AES-256 before it leaves the machine. The key is derived
from your passphrase with Argon2id, and the passphrase itself is never stored.

## Scheduling

The scheduler starts a backup at 02:00 local time unless `schedule.at` names another
time. A backup that is still running when the next one is due is not interrupted; the
next one is skipped and logged.
"""

QUESTION = "For how long are the daily snapshots retained?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return kb_over(tmp_path_factory.mktemp("weak"), {"larkspur.md": MANUAL})


def _codes(answer: Answer) -> list[str]:
    return [i.code for i in answer.issues]


def test_the_answer_carries_the_estimates_the_model_answered_on(kb: KnowledgeBase) -> None:
    got = Agent(kb).ask(QUESTION)
    assert got.citations and "14 days" in got.citations[0].excerpt
    assert isinstance(got.answerability, float) and ANSWERABLE <= got.answerability <= 1.0
    assert isinstance(got.confidence, float) and 0.0 < got.confidence < 1.0
    said = got.reasoning_trace[-1].thought or ""
    # The numbers it decided on.
    assert f"(answerability {got.answerability:.2f}, confidence {got.confidence:.2f})" in said
    # On the wire (JSON) as well, and read back.
    back = Answer.model_validate_json(got.model_dump_json())
    assert (back.answerability, back.confidence) == (got.answerability, got.confidence)


def test_an_answer_below_the_weak_threshold_is_given_and_flagged(kb: KnowledgeBase) -> None:
    sure = Agent(kb).ask(QUESTION)
    value = sure.confidence
    assert value is not None
    # Just above the estimate: the same answer, flagged; just below it: not flagged.
    flagged = Agent(kb, model=ExtractiveModel(weak=value + 0.01)).ask(QUESTION)
    assert flagged.citations and "14 days" in flagged.citations[0].excerpt
    issue = next(i for i in flagged.issues if i.code == "weak_evidence")
    assert issue.severity == "warning"
    assert issue.details == {"confidence": value, "weak_below": value + 0.01,
                             "answerability": sure.answerability}
    assert "no_answer_in_sources" not in _codes(flagged)
    plain = Agent(kb, model=ExtractiveModel(weak=value - 0.001)).ask(QUESTION)
    assert "weak_evidence" not in _codes(plain)


def test_the_flag_streams_as_a_warning_before_the_run_ends(kb: KnowledgeBase) -> None:
    agent = Agent(kb, model=ExtractiveModel(weak=0.99))

    async def collect() -> list[object]:
        return [e async for e in agent.stream(QUESTION)]

    events = asyncio.run(collect())
    warned = [i for i, e in enumerate(events)
              if isinstance(e, Warning) and e.code == "weak_evidence"]
    finished = [i for i, e in enumerate(events) if isinstance(e, RunFinished)]
    assert len(warned) == 1 and finished and warned[0] < finished[0]


def test_a_decline_reports_its_estimate_and_is_not_flagged_weak(kb: KnowledgeBase) -> None:
    got = Agent(kb, model=ExtractiveModel(weak=0.99)).ask(
        "What temperature should I bake sourdough bread at?")
    assert "no_answer_in_sources" in _codes(got) and not got.citations
    assert "weak_evidence" not in _codes(got)
    assert got.answerability is not None and got.answerability < ANSWERABLE
    assert got.confidence is None  # it quotes nothing as the answer


def test_a_model_that_estimates_nothing_leaves_it_null(kb: KnowledgeBase) -> None:
    model = ScriptedModel([call("search_knowledge", query="daily snapshots"),
                           "Larkspur keeps daily snapshots for 14 days [1]."])
    got = Agent(kb, model=model).ask(QUESTION)
    assert got.citations and got.answerability is None and got.confidence is None
    assert "weak_evidence" not in _codes(got)


@pytest.mark.parametrize(("value", "flagged"), [(0.5, True), (0.6, False), (0.1, True)])
def test_any_model_may_report_one_on_its_own_scale(kb: KnowledgeBase, value: float,
                                                   flagged: bool) -> None:
    # Through a fallback chain too: the part is the answering model's.
    model = FallbackModel([ScriptedModel([
        call("search_knowledge", query="daily snapshots"),
        [EvidencePart(answerability=0.8, abstain_below=0.2, confidence=value,
                      weak_below=0.6),
         answer("Larkspur keeps daily snapshots for 14 days [1].")]])])
    got = Agent(kb, model=model).ask(QUESTION)
    assert (got.answerability, got.confidence) == (0.8, value) and got.citations
    assert ("weak_evidence" in _codes(got)) is flagged


def test_an_answer_verification_declines_is_not_flagged_nor_rated(kb: KnowledgeBase) -> None:
    # Every claim unsupported: verification says the documents do not answer.
    model = ScriptedModel([call("search_knowledge", query="daily snapshots"),
                           [EvidencePart(answerability=0.8, abstain_below=0.2, confidence=0.1,
                                         weak_below=0.6),
                            answer("Larkspur keeps monthly snapshots for 90 days [1].")]])
    got = Agent(kb, model=model).ask(QUESTION)
    assert got.citations and "no_answer_in_sources" in _codes(got)
    assert (got.answerability, got.confidence) == (0.8, None)
    assert "weak_evidence" not in _codes(got)


def test_an_answerability_alone_flags_nothing(kb: KnowledgeBase) -> None:
    model = ScriptedModel([call("search_knowledge", query="daily snapshots"),
                           [EvidencePart(answerability=0.3, abstain_below=0.2),
                            answer("Larkspur keeps daily snapshots for 14 days [1].")]])
    got = Agent(kb, model=model).ask(QUESTION)
    assert (got.answerability, got.confidence) == (0.3, None)
    assert "weak_evidence" not in _codes(got)


def test_only_the_answering_turns_estimate_counts(kb: KnowledgeBase) -> None:
    model = ScriptedModel([
        [EvidencePart(answerability=0.5, abstain_below=0.2, confidence=0.1, weak_below=0.6),
         call("search_knowledge", query="daily snapshots")],
        "Larkspur keeps daily snapshots for 14 days [1]."])
    got = Agent(kb, model=model).ask(QUESTION)
    assert got.answerability is None and "weak_evidence" not in _codes(got)


def test_the_same_sentence_again_is_no_rival() -> None:
    """Code review, 2026-12-06: the next candidate is often the first again, with or
    without the sentence that completes it; measured against it, a right answer read as a
    near tie and was flagged."""
    assert margin([("Zstd level 3 is used.", 0.9),
                   ("Zstd level 3 is used. This is the default.", 0.89),
                   ("  Zstd level 3\n is used.", 0.88), ("Gzip is slower.", 0.5)]) == \
        pytest.approx(0.4)
    assert margin([("Only one.", 0.7), ("Only one. And its next.", 0.69)]) == 0.7
    assert margin([("Only one.", 0.7)]) == 0.7 and margin([]) == 0.0


def test_a_run_ended_by_a_tool_rates_no_closing_sentence(kb: KnowledgeBase) -> None:
    from citewise.agent.tools import tool

    @tool(ends_run=True)
    def handover(reason: str) -> str:
        """Hand the conversation to a person."""
        return "queued"

    model = ScriptedModel([
        call("search_knowledge", query="daily snapshots"),
        call("handover", reason="asked for a person"),
        [EvidencePart(answerability=0.9, abstain_below=0.2, confidence=0.05, weak_below=0.6),
         answer("Larkspur keeps daily snapshots for 14 days [1]. A colleague takes over.")]])
    got = Agent(kb, model=model, tools=[handover]).ask(QUESTION)
    assert got.ended_by_tool == "handover" and got.citations
    assert got.confidence is None and "weak_evidence" not in _codes(got)


def test_confidence_rises_with_the_evidence_and_falls_with_the_passages_rank() -> None:
    assert 0.0 < WEAK < 1.0
    low, high = confidence(ANSWERABLE, 0.0, 10), confidence(0.9, 0.3, 0)
    assert 0.0 < low < WEAK < high < 1.0
    assert confidence(0.6, 0.1, 0) < confidence(0.7, 0.1, 0)  # more answerable
    assert confidence(0.6, 0.1, 0) < confidence(0.6, 0.2, 0)  # further ahead of the next
    assert confidence(0.6, 0.1, 3) < confidence(0.6, 0.1, 0)  # from further down the search
    assert confidence(0.6, 0.1, 50) == confidence(0.6, 0.1, RANK_CAP)  # not extrapolated


def test_ask_says_so_above_the_answer(kb: KnowledgeBase) -> None:
    got = Agent(kb, model=ExtractiveModel(weak=0.99)).ask(QUESTION)
    out = io.StringIO()
    print_answer(got, kb, out)
    first, rest = out.getvalue().split("\n\n", 1)
    assert first == (f"The evidence is weak (confidence {got.confidence:.2f}): check that the "
                     "first quote below answers the question.")
    assert "14 days" in rest and "Sources:" in rest
    sure = Agent(kb, model=ExtractiveModel(weak=0.0)).ask(QUESTION)
    assert "weak_evidence" not in _codes(sure)
    out = io.StringIO()
    print_answer(sure, kb, out)
    assert "evidence is weak" not in out.getvalue() and out.getvalue().startswith("Larkspur")


def _result(qid: str, *, answerable: bool, right: bool | None, weak: bool,
            abstained: bool = False) -> QuestionResult:
    return QuestionResult(
        id=qid, question="Q?", kind=None, split=None, answerable=answerable,
        abstained=abstained, evidence_at_1=right, evidence_any=right, document_at_1=right,
        latency_ms=10.0, citations=0 if abstained else 1, first_sentence="A quote.",
        issues=["weak_evidence"] if weak else [], answerability=0.7,
        confidence=0.2 if weak else 0.6)


def test_eval_counts_the_flag_and_how_often_it_is_wrong() -> None:
    results = [
        _result("a", answerable=True, right=False, weak=True),
        _result("b", answerable=False, right=None, weak=True),  # answered, not answerable
        _result("c", answerable=True, right=True, weak=True),
        _result("d", answerable=True, right=True, weak=False),
        _result("e", answerable=True, right=False, weak=False),
        _result("f", answerable=True, right=True, weak=False),
        _result("g", answerable=True, right=True, weak=False),
        _result("h", answerable=False, right=None, weak=False, abstained=True),
    ]
    m = metrics(results)
    assert (m["weak_flagged"], m["weak_wrong"], m["unflagged_wrong"]) == (3, 0.6667, 0.25)
    out = io.StringIO()
    render({"results": [r.to_dict() for r in results], "summary": summarise(results),
            "labels_not_found": {}}, out)
    text = out.getvalue()
    rows = {line.split()[0]: line for line in text.splitlines() if line[:2] in ("a ", "d ")}
    assert rows["a"].endswith("(weak) A quote.") and rows["d"].endswith("  A quote.")
    assert ("3 answer(s) flagged weak_evidence: 66.7 % of them wrong, against 25.0 % of "
            "the answers not flagged.") in text
    assert QuestionResult(**results[0].to_dict()).confidence == 0.2


def test_eval_records_the_estimate_of_each_answer(kb: KnowledgeBase) -> None:
    from citewise.evaluation import evaluate, parse_questions

    questions = parse_questions([json.dumps({"id": "q1", "question": QUESTION, "expected": [
        "Larkspur keeps daily snapshots for 14 days and weekly snapshots for 8 weeks."]})])
    (r,) = evaluate(kb, questions, warm_up=False)
    assert r.evidence_at_1 and isinstance(r.answerability, float)
    assert isinstance(r.confidence, float) and 0.0 < r.confidence < 1.0


def test_the_bench_tabulates_thresholds_over_a_runs_answers(tmp_path: Path) -> None:
    import subprocess
    import sys

    results = [_result(q, answerable=True, right=right, weak=False) for q, right in
               (("a", False), ("b", True), ("c", True))]
    rows = [r.to_dict() for r in results]
    rows[0]["confidence"], rows[1]["confidence"], rows[2]["confidence"] = 0.5, 0.55, 0.9
    rows.append({**rows[2], "id": "d", "abstained": True, "confidence": None})  # declined
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"corpora": {"x": {"results": rows}}}), encoding="utf-8")
    script = Path(__file__).resolve().parent.parent / "bench" / "weak_threshold.py"
    proc = subprocess.run([sys.executable, str(script), str(run), "--thresholds", "0.52,0.6",
                           "--json"], capture_output=True, text=True, check=True, timeout=60)
    got = json.loads(proc.stdout)
    assert [(r["flagged"], r["flagged_wrong"], r["rest"], r["rest_wrong"], r["right_flagged"])
            for r in got] == [(1, 1, 2, 0, 0), (2, 1, 1, 0, 1)]
