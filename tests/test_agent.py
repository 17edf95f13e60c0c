"""The Python API over a real knowledge base: extractive answers, Unicode offsets,
threads, the durable event log."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from citewise import Agent, KnowledgeBase, ScriptedModel, tool
from citewise.agent.context import RunContext
from citewise.answer import Answer
from citewise.errors import EmptyQuestion, InvalidInput, NotFound
from citewise.events import Event
from citewise.models.extractive import NO_ANSWER
from citewise.models.scripted import call
from citewise.store.sqlite import SQLiteStore

SAMPLES = Path(__file__).resolve().parent.parent / "src" / "citewise" / "samples" / "handbook"

UNICODE_DOC = (
    "Caf\u00e9 notes \U0001f600 first line.\r\n"
    "The n\u0303and\u00fa festival starts at dawn \U0001f389\U0001f38a.\r\n"
    "\u6771\u4eac\u306e\u6625\u306f\u685c\u3067\u6709\u540d\u3067\u3059\u3002"
    "Mount Fuji is visible from Tokyo on clear winter days.\r\n"
    "Z\u0308\u0301alg\u00f6 text and emoji \U0001f469\u200d\U0001f52c scientists work late.\r\n"
)


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    base = KnowledgeBase.open(tmp_path / "kb")
    report = base.ingest([SAMPLES])
    assert not report.failed
    return base


def assert_verbatim(kb: KnowledgeBase, answer: Answer) -> None:
    for doc in answer.search_documents:
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None
        for snip in doc.snippets:
            assert snip.source is not None
            assert text[snip.source.start_char:snip.source.end_char] == snip.text
            assert snip.source.field_length == len(text)
    for c in answer.citations:
        doc = answer.search_documents[c.document_index - 1]
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None and c.start_char is not None
        assert text[c.start_char:c.end_char] == c.excerpt


@pytest.mark.parametrize(
    ("question", "expected", "source"),
    [
        ("How long does a refund take once the returned item arrives?",
         "within 5 business days", "returns-and-refunds.md"),
        ("What does a lifetime membership cost?", "costs 25 EUR", "membership.md"),
        ("How long is the warranty?", "two-year warranty", "warranty.md"),
        ("Which days is the Ghent shop open?", "Monday to Saturday", "stores-and-events.md"),
        ("Is shipping free?", "free for orders above 75 EUR", "shipping.txt"),
    ],
)
def test_extractive_cites_the_answer(kb: KnowledgeBase, question: str, expected: str,
                                     source: str) -> None:
    answer = Agent(kb).ask(question)
    assert answer.status == "completed"
    assert expected in answer.text
    cited = {answer.search_documents[c.document_index - 1].source for c in answer.citations}
    assert any(Path(s).name == source for s in cited)
    assert any(expected in c.excerpt for c in answer.citations)
    assert_verbatim(kb, answer)
    assert not answer.issues


def test_no_evidence_is_said_plainly(kb: KnowledgeBase) -> None:
    answer = Agent(kb).ask("quantum chromodynamics lattice gauge?")
    assert answer.text == NO_ANSWER
    assert answer.citations == []


def test_unicode_offsets_are_exact(tmp_path: Path) -> None:
    doc = tmp_path / "unicode.txt"
    doc.write_bytes(UNICODE_DOC.encode("utf-8"))
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([doc])
        assert kb.document_text(kb.list_documents()[0].id) == UNICODE_DOC
        answer = Agent(kb).ask("When is Mount Fuji visible from Tokyo?")
        assert "clear winter days" in answer.text
        assert_verbatim(kb, answer)
        answer = Agent(kb).ask("When does the festival start?")
        assert "starts at dawn" in answer.text
        assert_verbatim(kb, answer)


def test_thread_follow_up_sees_earlier_turns(kb: KnowledgeBase) -> None:
    model = ScriptedModel(["First answer.", "Second answer."])
    agent = Agent(kb, model=model)
    first = agent.ask("What does membership cost?")
    agent.ask("And can I leave?", thread_id=first.thread_id)
    contents = [getattr(m, "content", None) for m in model.requests[1].messages]
    assert "What does membership cost?" in contents
    assert "First answer." in contents
    turns = kb.store.list_turns("default", first.thread_id)
    assert [t.question for t in turns] == ["What does membership cost?", "And can I leave?"]


def test_bad_input_is_refused_before_anything_is_written(kb: KnowledgeBase) -> None:
    agent = Agent(kb)
    with pytest.raises(EmptyQuestion):
        agent.ask("  ")
    with pytest.raises(InvalidInput) as nul:
        agent.ask("refunds\x00?")
    assert nul.value.code == "unsupported_character"
    with pytest.raises(NotFound) as info:
        agent.ask("hello", thread_id="thread_missing")
    assert info.value.code == "unknown_thread"
    assert kb.store.list_threads("default") == []


def test_every_event_reaches_the_durable_log(kb: KnowledgeBase) -> None:
    agent = Agent(kb, model=ScriptedModel([call("search_knowledge", query="refund"),
                                           "Refunds are issued within 5 business days [1]."]))

    async def go() -> list[Event]:
        return [e async for e in agent.stream("refunds?")]

    events = asyncio.run(go())
    run_id = events[0].run_id
    logged = kb.store.read_events("default", run_id)
    assert [r.seq for r in logged] == [e.seq for e in events]
    assert [r.kind for r in logged] == [e.kind for e in events]
    record = kb.store.get_run("default", run_id)
    assert record is not None and record.status == "completed"
    assert record.answer is not None and record.answer["citations"]


def test_in_memory_agent_keeps_recent_threads_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.agent import threads

    monkeypatch.setattr(threads, "MEMORY_THREADS", 2)
    agent = Agent(model=ScriptedModel(["One.", "Two.", "Three.", "Four.", "Again."]))
    first = agent.ask("q1")
    second = agent.ask("q2")
    agent.ask("q1 follow-up", thread_id=first.thread_id)  # first is now the most recent
    agent.ask("q3")  # a third thread: the least recently used one (second) is forgotten
    with pytest.raises(NotFound) as info:
        agent.ask("q2 follow-up", thread_id=second.thread_id)
    assert info.value.code == "unknown_thread"
    assert agent.ask("q1 again", thread_id=first.thread_id).status == "completed"


def test_a_thread_is_not_deleted_while_its_run_runs(tmp_path: Path) -> None:
    from citewise.errors import UsageError

    store = SQLiteStore(tmp_path / "runs.db")
    refused: list[str] = []

    @tool
    def forget(ctx: RunContext, query: str) -> str:
        """Delete this run's thread (as another client might, mid-run).

        Args:
            query: Ignored.
        """
        try:
            store.delete_thread("default", ctx.thread_id)
        except UsageError as err:
            refused.append(err.code)
        return "tried"

    try:
        agent = Agent(model=ScriptedModel([call("forget", query="x"), "Done."]), tools=[forget],
                      store=store)
        answer = agent.ask("Go")
        assert answer.status == "completed" and refused == ["thread_busy"]
        assert [t.run_id for t in store.list_turns("default", answer.thread_id)] == [
            answer.run_id]
        assert store.delete_thread("default", answer.thread_id) is True  # ended: it goes
        assert store.get_run("default", answer.run_id) is None
    finally:
        store.close()


def test_inline_filters_of_the_question_and_of_a_search_are_applied(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "refunds.md").write_text("Refunds for shoes are issued within 5 days.\n")
    (b / "refunds.md").write_text("Refunds for hats are issued within 9 days.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as base:
        base.ingest([a], collection="shoes")
        base.ingest([b], collection="hats")
        # The question's filter holds for the model's searches, written or not.
        model = ScriptedModel([call("search_knowledge", query="refunds issued"), "Done."])
        answer = Agent(base, model=model).ask("collection:hats How fast are refunds issued?")
        assert answer.query is not None and answer.query.filters == {"collection": ["hats"]}
        assert [d.document["collection"] for d in answer.search_documents] == ["hats"]
        # A filter written in the search query itself applies too, and is not searched for.
        model = ScriptedModel([call("search_knowledge", query="collection:shoes refunds"), "Ok."])
        answer = Agent(base, model=model).ask("How fast are refunds issued?")
        assert [d.document["collection"] for d in answer.search_documents] == ["shoes"]
        # The tool's explicit filters argument wins over the question's inline one.
        model = ScriptedModel([call("search_knowledge", query="refunds",
                                    filters={"collection": "shoes"}), "Ok."])
        answer = Agent(base, model=model).ask("collection:hats refunds?")
        assert [d.document["collection"] for d in answer.search_documents] == ["shoes"]
        # Nothing found under a filter: the observation says which filter it searched under.
        model = ScriptedModel([call("search_knowledge", query="refunds #gloves"), "None."])
        answer = Agent(base, model=model).ask("How fast are refunds issued?")
        assert answer.search_documents == []
        said = [t.observation or "" for t in answer.reasoning_trace if t.tool]
        assert any("No passages matched the filters tags: gloves" in o for o in said), said
        # … unless the documents write the "#word" themselves: then it is code, not a tag
        # ("What does a #cmakedefine line become?", CMake review 2026-12-04).
        (a / "config.md").write_text("Each #cmakedefine VAR line becomes a #define when "
                                     "VAR is set.\n")
        base.ingest([a], collection="shoes")
        answer = Agent(base).ask("What does a #cmakedefine line become?")
        assert [d.source for d in answer.search_documents][:1] == [str(a / "config.md")]
        said = [t.observation or "" for t in answer.reasoning_trace if t.tool]
        assert said[0].startswith("Nothing matched as tagged cmakedefine: searched as words. 1 "), said
        assert answer.citations and "#define" in answer.citations[0].excerpt
