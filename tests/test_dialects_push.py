"""The push-style dialect contract: ``dialect.encoder().feed(event)`` one event at a time
gives exactly what ``dialect.stream(events)`` gives, per-stream state lives in the encoder
(one shared dialect serves interleaved streams), ``astream`` / ``sse_astream`` map a live
async source as it produces, and the Python API (``Agent.stream_as`` / ``Agent.respond``)
and the CLI (``citewise ask --format NAME [--stream]``) speak every dialect."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.agent.runner import Agent
from citewise.agent.tools import Toolset
from citewise.cli.main import main
from citewise.dialects import (
    DIALECTS,
    Dialect,
    Encoder,
    astream,
    get_dialect,
    sse_astream,
    sse_stream,
)
from citewise.dialects.base import final_of
from citewise.errors import InvalidInput
from citewise.events import Event, RunFinished, event_adapter
from citewise.models.scripted import ScriptedModel, answer, call, thought
from test_dialects import SCHEMA_OF, validator
from test_dialects_run import (
    ANSWER_TEXT,
    RUNS,
    ExplainHook,
    completed,
    lookup_order,
    search_knowledge,
)

Obj = dict[str, Any]
#: The dialects with a last object.
ENDS = {"agent-event", "ag-ui", "answer", "conversation", "openai", "a2a", "ai-sdk"}


def push(dialect: Dialect, events: tuple[Event, ...]) -> list[Obj]:
    encoder = dialect.encoder()
    out: list[Obj] = []
    for event in events:
        out += encoder.feed(event)
    return out


# -- encoder == stream ----------------------------------------------------------------------------


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_feeding_one_event_at_a_time_is_the_stream(name: str, run: str) -> None:
    dialect = get_dialect(name)
    events = RUNS[run]()
    encoder = dialect.encoder()
    assert isinstance(encoder, Encoder) and not encoder.done
    assert push(dialect, events) == list(dialect.stream(events))
    # Done exactly at the terminal event, for the dialects that have a last object.
    encoder = dialect.encoder()
    for event in events[:-1]:
        encoder.feed(event)
        assert not encoder.done
    last = encoder.feed(events[-1])
    assert last, "the terminal event always produces an object"
    assert encoder.done == (name in ENDS)
    if encoder.done:
        assert encoder.feed(events[0]) == [] and encoder.feed(events[-1]) == []


def test_each_encoder_owns_its_state() -> None:
    # Two runs fed alternately to encoders of one shared dialect: each still gets exactly
    # its own stream (a buffered thought or an open message never leaks across).
    for name, dialect in DIALECTS.items():
        a_events, b_events = RUNS["completed"](), RUNS["paused"]()
        a, b = dialect.encoder(), dialect.encoder()
        assert a is not b
        out_a: list[Obj] = []
        out_b: list[Obj] = []
        for i in range(max(len(a_events), len(b_events))):
            if i < len(a_events):
                out_a += a.feed(a_events[i])
            if i < len(b_events):
                out_b += b.feed(b_events[i])
        assert out_a == list(dialect.stream(a_events)), name
        assert out_b == list(dialect.stream(b_events)), name


def test_stream_stops_reading_once_done() -> None:
    events = completed()
    read: list[int] = []

    def source() -> Iterator[Event]:
        for event in (*events, *events):  # a second run's events after the terminal one
            read.append(event.seq)
            yield event

    objs = list(get_dialect("agent-event").stream(source()))
    assert objs[-1] == {"type": "result", "content": ANSWER_TEXT}
    assert len(read) == len(events)


# -- async ----------------------------------------------------------------------------------------


async def _paced(events: tuple[Event, ...], log: list[str]) -> AsyncIterator[Event]:
    for event in events:
        log.append(f"event {event.seq}")
        yield event
        await asyncio.sleep(0)


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_astream_and_sse_astream_match_the_sync_forms(name: str) -> None:
    dialect = get_dialect(name)
    events = completed()

    async def go() -> tuple[list[Obj], list[str]]:
        objs = [o async for o in astream(dialect, _paced(events, []))]
        frames = [f async for f in sse_astream(dialect, _paced(events, []))]
        return objs, frames

    objs, frames = asyncio.run(go())
    assert objs == list(dialect.stream(events))
    assert frames == list(sse_stream(dialect, events))


def test_astream_yields_each_object_as_its_event_arrives() -> None:
    # A live source: the next event exists only after the consumer took the last object.
    events = completed()
    log: list[str] = []

    async def go() -> None:
        async for obj in astream(get_dialect("trustgraph"), _paced(events, log)):
            log.append(f"obj {obj['chunk-type']}")

    asyncio.run(go())
    first_action = next(e.seq for e in events if e.kind == "action")
    i = log.index(f"event {first_action}")
    assert log[i + 1] == "obj action"  # out before the next event was even produced


def test_astream_stops_reading_once_done() -> None:
    events = completed()
    log: list[str] = []

    async def go() -> list[Obj]:
        return [o async for o in astream(get_dialect("answer"), _paced(events + events, log))]

    objs = asyncio.run(go())
    assert [o["kind"] for o in objs] == ["ANSWER"]
    assert len(log) == len(events)


# -- Python API -----------------------------------------------------------------------------------

TURNS: list[Any] = [
    [thought("I should search the refund policy."),
     call("search_knowledge", query="refund policy")],
    [thought("Now the order."), call("lookup_order", order_id="A-17")],
    [answer(ANSWER_TEXT[:40]), answer(ANSWER_TEXT[40:])],
]
QUESTION = "How fast are refunds, and where is my order A-17?"


class Teeing(Agent):
    """An Agent that keeps every event it streams, to compare with what the dialect made."""

    def __init__(self, model: ScriptedModel) -> None:
        super().__init__(model=model, tools=Toolset([search_knowledge, lookup_order]),
                         hooks=[ExplainHook()], provenance=False)
        self.seen: list[Event] = []

    async def stream(self, question: str, **kwargs: Any) -> AsyncIterator[Event]:
        async for event in super().stream(question, **kwargs):
            self.seen.append(event)
            yield event


def _untimed(obj: Any) -> Any:
    """``obj`` without wall-clock fields (``final`` stamps the time it is called)."""
    if isinstance(obj, dict):
        return {k: _untimed(v) for k, v in obj.items() if k not in ("timestamp", "created")}
    if isinstance(obj, list):
        return [_untimed(v) for v in obj]
    return obj


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_agent_stream_as_and_respond(name: str) -> None:
    streamer, responder = Teeing(ScriptedModel(TURNS)), Teeing(ScriptedModel(TURNS))

    async def go() -> tuple[list[Obj], Obj]:
        objs = [o async for o in streamer.stream_as(QUESTION, format=name)]
        return objs, await responder.respond(QUESTION, format=name)

    objs, final = asyncio.run(go())
    dialect = get_dialect(name)
    assert objs == list(dialect.stream(streamer.seen))
    assert streamer.seen[-1].kind == "run_finished"  # read to the end
    terminal = responder.seen[-1]
    assert isinstance(terminal, RunFinished)
    assert _untimed(final) == _untimed(final_of(dialect, terminal))
    if name in SCHEMA_OF:
        for obj in [*objs, final]:
            assert validator(name).is_valid(obj), obj
    assert _text_of(name, final) == ANSWER_TEXT


def _text_of(name: str, final: Obj) -> Any:
    """Where each dialect's final object puts the answer text."""
    if name == "ag-ui":
        return final["result"]["text"]
    if name == "openai":
        return final["choices"][0]["message"]["content"]
    if name == "a2a":
        return final["task"]["artifacts"][0]["parts"][0]["text"]
    if name == "ai-sdk":
        return "".join(p["text"] for p in final["parts"] if p["type"] == "text")
    key = {"citewise": "text", "trustgraph": "answer", "agentos": "finalResponseText",
           "agent-event": "content", "conversation": "answer", "answer": "text"}[name]
    return final[key]


def test_unknown_format_is_refused_before_the_run() -> None:
    model = ScriptedModel(TURNS)

    async def go() -> None:
        with pytest.raises(InvalidInput) as info:
            await Teeing(model).respond(QUESTION, format="klingon")
        assert info.value.code == "unknown_format"
        with pytest.raises(InvalidInput):
            async for _ in Teeing(model).stream_as(QUESTION, format="klingon"):
                pass

    asyncio.run(go())
    assert model.remaining == len(TURNS)  # the model was never called


# -- CLI ------------------------------------------------------------------------------------------

HONEY = "Honey keeps for years because its low water content stops microbes growing."


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from citewise.knowledge.base import KnowledgeBase

    root = tmp_path_factory.mktemp("cli_formats")
    (root / "docs").mkdir()
    (root / "docs" / "honey.md").write_text(f"# Honey\n\n{HONEY}\n", encoding="utf-8")
    with KnowledgeBase.open(root / "data") as kb:
        assert kb.ingest([root / "docs"]).added
    return root / "data"


def test_cli_format_prints_the_final_object(kb_dir: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "Why does honey keep for years?", "--format", "answer", "-q",
                 "--data-dir", str(kb_dir)])
    out = capsys.readouterr().out
    assert code == 0
    body = json.loads(out)
    assert validator("answer").is_valid(body)
    assert body["kind"] == "ANSWER" and HONEY in body["text"] and body["citations"]


def test_cli_stream_prints_jsonl_as_it_happens(kb_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "Why does honey keep for years?", "--format", "agent-event",
                 "--stream", "-q", "--data-dir", str(kb_dir)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    objs = [json.loads(line) for line in lines]
    assert all(validator("agent-event").is_valid(o) for o in objs)
    assert [o["type"] for o in objs][-1] == "result" and HONEY in objs[-1]["content"]
    assert "action" in [o["type"] for o in objs]

    # --stream alone: citewise's own events, one per line.
    code = main(["ask", "Why does honey keep for years?", "--stream", "-q",
                 "--data-dir", str(kb_dir)])
    events = [event_adapter.validate_json(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert events[0].kind == "run_started" and events[-1].kind == "run_finished"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


def test_cli_unknown_format_is_one_line_and_exit_2(kb_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "Why?", "--format", "klingon", "--data-dir", str(kb_dir)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith("error: unknown format 'klingon'")
    assert captured.err.rstrip().endswith("[unknown_format]")
