"""Text-ReAct: the tolerant parser, corrective re-prompts, live answers, a full run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.errors import ModelError
from citewise.events import Event
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import (
    AssistantMessage,
    ModelRequest,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolCallPart,
    ToolMessage,
    ToolSpec,
    UsagePart,
    UserMessage,
)
from citewise.models.react_parse import ReactParseError, find_final, parse_react
from citewise.models.react_text import TextReActModel
from citewise.models.registry import resolve_model
from citewise.models.scripted import ScriptedModel

SEARCH = ToolSpec(name="search_knowledge", description="Find passages.",
                  parameters={"type": "object", "properties": {"query": {"type": "string"}},
                              "required": ["query"]})
FETCH = ToolSpec(name="fetch", parameters={
    "type": "object", "properties": {"doc": {"type": "string"}, "page": {"type": "integer"}},
    "required": ["doc", "page"]})
TOOLS = [SEARCH, FETCH]


@pytest.mark.parametrize(("text", "calls"), [
    ('Thought: look it up\nAction: search_knowledge\nAction Input: {"query": "refunds"}',
     [("search_knowledge", {"query": "refunds"})]),
    ("**Thought:** hmm\n**Action:** `search_knowledge`\n**Action Input:** refunds",
     [("search_knowledge", {"query": "refunds"})]),
    ('thought: x\naction: Search-Knowledge\naction input: ```json\n{"query": "a"}\n```',
     [("search_knowledge", {"query": "a"})]),
    ("Action: search_knowledge[refund policy]", [("search_knowledge",
                                                  {"query": "refund policy"})]),
    ('Action: fetch(doc="a.txt", page=2)', [("fetch", {"doc": "a.txt", "page": "2"})]),
    ("Action: fetch\nAction Input: doc=a.txt, page: 3", [("fetch", {"doc": "a.txt",
                                                                    "page": "3"})]),
    ('Action: search_knowledge\nAction Input: {"query": "a"}\nObservation: made up\n'
     "Final Answer: invented", [("search_knowledge", {"query": "a"})]),
    ('Action: search_knowledge\nAction Input: {"query": "a"}\n'
     'Action: fetch\nAction Input: {"doc": "b"}',
     [("search_knowledge", {"query": "a"}), ("fetch", {"doc": "b"})]),
    ('{"action": "search_knowledge", "action_input": {"query": "j"}}',
     [("search_knowledge", {"query": "j"})]),
    ('{"tool": "fetch", "arguments": {"doc": "x"}, "thought": "t"}', [("fetch", {"doc": "x"})]),
])
def test_parser_reads_tool_calls_in_many_shapes(text: str,
                                                calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert parse_react(text, TOOLS).calls == calls


@pytest.mark.parametrize(("text", "final"), [
    ("Thought: I know.\nFinal Answer: Refunds take 5 days [1].", "Refunds take 5 days [1]."),
    ("Refunds take 5 days [1].", "Refunds take 5 days [1]."),
    ('{"action": "Final Answer", "action_input": "Five days [1]."}', "Five days [1]."),
    ('{"final_answer": "Five [1]."}', "Five [1]."),
    ('{"days": 5}', '{"days": 5}'),  # a structured answer is not mistaken for ReAct JSON
])
def test_parser_reads_final_answers(text: str, final: str) -> None:
    parsed = parse_react(text, TOOLS)
    assert parsed.final == final and parsed.calls == []


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty"),
    ("Thought: I am thinking only.", "neither"),
    ("Action: launch_rockets\nAction Input: {}", "no tool named 'launch_rockets'"),
    ('Action Input: {"query": "a"}', "without an 'Action:'"),
    ("Action: fetch\nAction Input: page two please", "not a JSON object"),
    ("Final Answer:   ", "empty"),
])
def test_parser_explains_what_it_cannot_read(text: str, why: str) -> None:
    with pytest.raises(ReactParseError) as err:
        parse_react(text, TOOLS)
    assert why in err.value.reason


def test_find_final_ignores_answers_after_an_action() -> None:
    assert find_final("Thought: ok\nFinal Answer: Five") == ("ok", "Five")
    assert find_final("Action: search_knowledge\nFinal Answer: x") is None
    assert find_final("Thought: still thinking") is None


def _req(*messages: Any, tools: list[ToolSpec] | None = None) -> ModelRequest:
    return ModelRequest(messages=[SystemMessage(content="You help."), *messages],
                        tools=TOOLS if tools is None else tools)


async def _collect(model: Any, req: ModelRequest) -> list[Any]:
    return [p async for p in model.stream(req)]


def test_transcript_and_instructions_reach_the_inner_model() -> None:
    inner = ScriptedModel(["Final Answer: ok"])
    req = _req(UserMessage(content="q"),
               AssistantMessage(content="look", tool_calls=[
                   ToolCall(id="1", name="search_knowledge", arguments={"query": "q"})]),
               ToolMessage(call_id="1", name="search_knowledge", content="[1] passage"),
               UserMessage(content="and?"))
    asyncio.run(_collect(TextReActModel(inner), req))
    sent = inner.requests[0]
    assert sent.tools == []
    system = sent.messages[0]
    assert isinstance(system, SystemMessage)
    assert "search_knowledge: Find passages." in system.content and "Action Input:" in system.content
    assert sent.messages[2].content == ('Thought: look\nAction: search_knowledge\n'
                                        'Action Input: {"query": "q"}')
    assert sent.messages[3].content == "Observation (search_knowledge): [1] passage"


def test_corrective_reprompt_then_success() -> None:
    inner = ScriptedModel(["Thought: hmm", "Action: teleport\nAction Input: {}",
                           'Thought: ok\nAction: search_knowledge\nAction Input: {"query": "x"}'])
    model = TextReActModel(inner, max_parse_failures=2)
    parts = asyncio.run(_collect(model, _req(UserMessage(content="q"))))
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.arguments) for c in calls] == [("search_knowledge", {"query": "x"})]
    assert TextDelta(text="ok", channel="thought") in parts
    assert sum(isinstance(p, UsagePart) for p in parts) == 3  # every attempt is paid for
    last = inner.requests[2].messages
    assert "no tool named 'teleport'" in last[-1].content
    assert last[-2].content == "Action: teleport\nAction Input: {}"
    assert model.parse_failures == 2


def test_gives_up_with_a_clear_error_after_n_failures() -> None:
    inner = ScriptedModel(["Thought: a", "Thought: b", "Thought: c"])
    with pytest.raises(ModelError) as err:
        asyncio.run(_collect(TextReActModel(inner, max_parse_failures=1),
                             _req(UserMessage(content="q"))))
    assert err.value.code == "model_output_unparseable"
    assert err.value.details["attempts"] == 2 and inner.remaining == 1


def test_final_answer_streams_live_on_the_answer_channel() -> None:
    turn = [TextDelta(text="Thought: easy\nFinal"), TextDelta(text=" Answer: Five"),
            TextDelta(text=" days [1].")]
    parts = asyncio.run(_collect(TextReActModel(ScriptedModel([turn])),
                                 _req(UserMessage(content="q"))))
    texts = [(p.channel, p.text) for p in parts if isinstance(p, TextDelta)]
    assert texts == [("thought", "easy"), ("answer", "Five"), ("answer", " days [1].")]


def test_registry_wraps_any_model_and_sets_the_observation_stop() -> None:
    model = resolve_model("react:openai-compat:http://127.0.0.1:9/v1#m", max_parse_failures=4)
    assert isinstance(model, TextReActModel) and model.max_parse_failures == 4
    assert model.name == "react:openai-compat:m"
    assert model.inner.adapter.stop == ["\nObservation:"]  # type: ignore[attr-defined]


DOC = "Refunds are issued within 5 business days. Shipping is free above 75 EUR."


@tool
def search_knowledge(ctx: RunContext, query: str) -> ToolResult:
    """Find passages.

    Args:
        query: what to look for
    """
    ctx.ledger.add([Hit(chunk_id=1, document_id="d1", source="/kb/policy.txt", text=DOC[:42],
                        start_char=0, end_char=42, field_length=len(DOC), score=1.0)])
    return ToolResult(text=f"[1] {DOC[:42]}")


def test_full_run_through_the_loop_with_a_text_only_model() -> None:
    inner = ScriptedModel([
        "Thought: I should search.\nAction: search_knowledge\nAction Input: refunds",
        "Thought: found it.\nFinal Answer: Refunds are issued within 5 business days [1].",
    ])
    state = RunState(run_id="r", thread_id="t", question="How fast are refunds?",
                     messages=[UserMessage(content="How fast are refunds?")])

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=TextReActModel(inner),
                                           tools=Toolset([search_knowledge]),
                                           settings=RunSettings())]
    events = asyncio.run(go())
    final = events[-1]
    assert final.kind == "run_finished", final
    assert final.answer.text == "Refunds are issued within 5 business days [1]."
    assert final.answer.citations[0].excerpt == DOC[:42]
    assert [e.kind for e in events if e.kind in ("action", "observation")] == [
        "action", "observation"]
    assert "Observation (search_knowledge): [1] Refunds" in inner.requests[1].messages[-1].content
