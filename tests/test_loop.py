"""The ReAct loop with ScriptedModel: tool calls, tool errors, unknown tools, limits."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.events import TERMINAL_KINDS, Event
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import ModelRequest, TextDelta, ToolMessage
from citewise.models.scripted import ScriptedModel, call, thought

DOC = "Refunds are issued within 5 business days. Shipping is free above 75 EUR."


def _hit(start: int, end: int, chunk_id: int = 1) -> Hit:
    return Hit(chunk_id=chunk_id, document_id="doc-1", source="/kb/policy.txt",
               text=DOC[start:end], start_char=start, end_char=end, field_length=len(DOC),
               score=1.0, title="Policy")


@tool
def lookup(ctx: RunContext, query: str) -> ToolResult:
    """Find passages.

    Args:
        query: what to look for
    """
    ctx.ledger.add([_hit(0, 42)])
    return ToolResult(text=f"[1] {DOC[:42]}", data={"n": 1})


@tool
async def explode(x: int) -> str:
    """Always fails."""
    raise RuntimeError(f"boom {x}")


@tool(timeout=0.05)
async def slow() -> str:
    """Sleeps past its timeout."""
    await asyncio.sleep(5)
    return "never"


def run(model: ScriptedModel, *tools: Any, settings: RunSettings | None = None) -> list[Event]:
    state = RunState(run_id="run_1", thread_id="thr_1", question="How fast are refunds?")

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=Toolset(tools),
                                           settings=settings)]

    return asyncio.run(go())


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def assert_well_formed(events: list[Event]) -> None:
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    terminal = [e for e in events if e.kind in TERMINAL_KINDS]
    assert len(terminal) == 1 and events[-1] is terminal[0]
    assert events[0].kind == "run_started"
    assert all(e.run_id == "run_1" and e.thread_id == "thr_1" for e in events)


def test_tool_call_then_cited_answer() -> None:
    model = ScriptedModel([[thought("search first"), call("lookup", query="refunds")],
                           "Refunds are issued within 5 business days [1]."])
    events = run(model, lookup)
    assert_well_formed(events)
    assert kinds(events)[:5] == ["run_started", "thought", "thought", "action", "observation"]
    final = events[-1]
    assert final.kind == "run_finished"
    answer = final.answer
    assert answer.citations[0].document_index == 1
    assert answer.citations[0].excerpt == "Refunds are issued within 5 business days."
    assert answer.context_chunk_ids == [1]
    assert not answer.issues
    # the model saw the observation on its second turn
    second = model.requests[1]
    assert isinstance(second.messages[-1], ToolMessage)
    assert second.messages[-1].data == {"n": 1}
    assert [t.type for t in answer.reasoning_trace] == ["thought", "tool", "answer"]
    assert answer.usage.total_tokens > 0 and len(answer.usage.steps) == 2


def test_tool_exception_becomes_error_observation() -> None:
    events = run(ScriptedModel([call("explode", x=3), "done"]), explode)
    assert_well_formed(events)
    obs = next(e for e in events if e.kind == "observation")
    assert obs.is_error and "RuntimeError: boom 3" in obs.text
    assert events[-1].kind == "run_finished"


def test_unknown_tool_and_invalid_arguments_are_observations() -> None:
    events = run(ScriptedModel([call("nope"), call("explode", x="not-an-int"), "ok"]), explode)
    assert_well_formed(events)
    errors = [e for e in events if e.kind == "observation"]
    assert errors[0].is_error and "unknown tool 'nope'" in errors[0].text
    assert errors[1].is_error and "invalid arguments for explode" in errors[1].text


def test_tool_timeout() -> None:
    events = run(ScriptedModel([call("slow"), "ok"]), slow)
    obs = next(e for e in events if e.kind == "observation")
    assert obs.is_error and "timed out" in obs.text


def test_max_steps_ends_with_one_error() -> None:
    model = ScriptedModel([call("lookup", query="a")] * 5)
    events = run(model, lookup, settings=RunSettings(max_steps=2))
    assert_well_formed(events)
    assert events[-1].kind == "error"
    assert events[-1].code == "max_steps_exceeded"
    assert events[-1].answer is not None and events[-1].answer.status == "failed"


def test_model_running_out_of_turns_is_a_model_error() -> None:
    events = run(ScriptedModel([]))
    assert_well_formed(events)
    assert events[-1].kind == "error" and events[-1].code == "model_error"


def test_model_crash_is_contained() -> None:
    def broken(request: ModelRequest) -> list[TextDelta]:
        raise ValueError("adapter bug")

    events = run(ScriptedModel([broken]))
    assert_well_formed(events)
    assert events[-1].code == "model_error"


def test_sync_tool_runs_off_the_event_loop() -> None:
    seen: list[bool] = []

    @tool
    def where() -> str:
        """Reports whether an event loop runs in this thread."""
        try:
            asyncio.get_running_loop()
            seen.append(True)
        except RuntimeError:
            seen.append(False)
        return "x"

    run(ScriptedModel([call("where"), "ok"]), where)
    assert seen == [False]


def test_tool_schema_from_hints_and_docstring() -> None:
    spec = lookup.spec()
    assert spec.description == "Find passages."
    assert spec.parameters["properties"]["query"] == {
        "description": "what to look for", "title": "Query", "type": "string"}
    assert spec.parameters["required"] == ["query"]


def test_a_tool_derives_its_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    @tool
    def find(query: str, k: int = 3) -> str:
        """Find things.

        Args:
            query: what to look for
        """
        return query

    derive = BaseModel.model_json_schema.__func__  # type: ignore[attr-defined]
    calls: list[type] = []

    def counting(cls: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(cls)
        return dict(derive(cls, *args, **kwargs))

    monkeypatch.setattr(find.arguments, "model_json_schema", classmethod(counting))
    first = Toolset([find]).specs()  # a server builds a Toolset per run
    second = Toolset([find]).specs()
    assert calls == [find.arguments]
    assert first == second and first[0].parameters["required"] == ["query"]
    assert "title" not in first[0].parameters
    # Each spec has its own copy: one adapter changing its spec changes no other run's.
    first[0].parameters["properties"]["query"]["type"] = "changed"
    assert Toolset([find]).specs()[0].parameters["properties"]["query"]["type"] == "string"

    # Other arguments, another schema.
    def other(text: str) -> str:
        """Other."""
        return text

    find.arguments = tool(other).arguments
    assert Toolset([find]).specs()[0].parameters["required"] == ["text"]


@pytest.mark.parametrize("answer_text", ["Not JSON at all", '{"days": "five"}'])
def test_structured_output_repairs_then_fails(answer_text: str) -> None:
    schema = {"type": "object", "properties": {"days": {"type": "integer"}},
              "required": ["days"]}
    settings = RunSettings(output_schema=schema, max_repairs=1)
    events = run(ScriptedModel([answer_text, answer_text]), settings=settings)
    assert_well_formed(events)
    assert [e.code for e in events if e.kind == "warning"] == ["structured_output_repair"]
    assert events[-1].code == "structured_output_invalid"


def test_structured_output_valid_after_repair() -> None:
    schema = {"type": "object", "properties": {"days": {"type": "integer"}},
              "required": ["days"]}
    model = ScriptedModel([call("lookup", query="refund"), "five days",
                           '```json\n{"days": 5, "note": "within 5 business days [1]"}\n```'])
    events = run(model, lookup, settings=RunSettings(output_schema=schema))
    assert events[-1].kind == "run_finished"
    assert events[-1].answer.structured == {"days": 5, "note": "within 5 business days [1]"}


@pytest.mark.parametrize(("note", "flagged"), [
    ("Refunds are issued within 5 business days [1].", False),
    ("The moon is made of green cheese [1].", True),
])
def test_structured_answer_strings_are_verified(note: str, flagged: bool) -> None:
    schema = {"type": "object", "properties": {"days": {"type": "integer"},
                                                "note": {"type": "string"}}}
    text = '{"days": 5, "note": "' + note + '"}'
    events = run(ScriptedModel([call("lookup", query="refund"), text]), lookup,
                 settings=RunSettings(output_schema=schema))
    answer = events[-1].answer
    # structured is what the verified text says: a marker the source does not bear out is
    # dropped from both.
    assert answer.structured == json.loads(answer.text)
    assert answer.structured == {"days": 5, "note": note.replace(" [1]", "") if flagged
                                 else note}
    codes = {i.code for i in answer.issues}
    assert ("unsupported_claim" in codes or "citation_mismatch" in codes) is flagged
    assert [c.text for c in answer.claims] == [note.replace(" [1]", "")]
