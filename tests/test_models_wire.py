"""The chat-completions adapter: encoding requests, decoding streams (no network)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from citewise.errors import ModelError
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
from citewise.models.openai_wire import ChatCompletionsAdapter, parse_arguments

SEARCH = ToolSpec(name="search", description="Find passages.",
                  parameters={"type": "object", "properties": {"query": {"type": "string"}},
                              "required": ["query"]})


def _chunk(delta: dict[str, Any] | None = None, finish: str | None = None,
           usage: dict[str, int] | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {"choices": [] if delta is None else
                             [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def test_encode_messages_tools_and_stream_options() -> None:
    req = ModelRequest(
        messages=[
            SystemMessage(content="Be brief."),
            UserMessage(content="Refunds?"),
            AssistantMessage(content="", tool_calls=[
                ToolCall(id="c1", name="search", arguments={"query": "refund"})]),
            ToolMessage(call_id="c1", name="search", content="[1] Refunds take 5 days."),
        ],
        tools=[SEARCH, ToolSpec(name="noop")],
    )
    body = ChatCompletionsAdapter(temperature=0.0, tool_choice="auto").encode(
        "m", req, stream=True)
    assert body["model"] == "m" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.0 and body["tool_choice"] == "auto"
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    call = body["messages"][2]
    assert call["content"] is None
    assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == {"query": "refund"}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1",
                                   "content": "[1] Refunds take 5 days."}
    noop = body["tools"][1]["function"]
    assert noop["parameters"] == {"type": "object", "properties": {}}
    assert "description" not in noop


def test_output_schema_goes_into_the_system_prompt_and_response_format_only_without_tools(
) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    with_tools = ModelRequest(messages=[UserMessage(content="q")], tools=[SEARCH],
                              output_schema=schema)
    adapter = ChatCompletionsAdapter(response_format="json_schema")
    body = adapter.encode("m", with_tools, stream=False)
    assert "response_format" not in body and "stream" not in body
    assert body["messages"][0]["role"] == "system"
    assert json.dumps(schema) in body["messages"][0]["content"]
    closing = with_tools.model_copy(update={"tools": []})
    assert adapter.encode("m", closing, stream=False)["response_format"]["json_schema"][
        "schema"] == schema
    compat = ChatCompletionsAdapter(response_format="json_object").encode("m", closing,
                                                                          stream=False)
    assert compat["response_format"] == {"type": "json_object", "schema": schema}
    assert "response_format" not in ChatCompletionsAdapter().encode("m", closing, stream=False)


def test_stream_text_then_usage() -> None:
    dec = ChatCompletionsAdapter().decoder()
    parts = [p for c in [_chunk({"role": "assistant", "content": "Hel"}),
                         _chunk({"content": "lo [1]."}, finish="stop"),
                         _chunk(None, usage={"prompt_tokens": 12, "completion_tokens": 3})]
             for p in dec.feed(c)]
    assert parts == [TextDelta(text="Hel"), TextDelta(text="lo [1]."),
                     UsagePart(input_tokens=12, output_tokens=3)]
    assert dec.saw_usage and dec.finish() == []


def test_parallel_tool_calls_interleaved_and_text_after_calls_is_thought() -> None:
    dec = ChatCompletionsAdapter().decoder()
    chunks = [
        _chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function",
                                "function": {"name": "search", "arguments": ""}}]}),
        _chunk({"tool_calls": [{"index": 1, "id": "b", "type": "function",
                                "function": {"name": "search", "arguments": '{"qu'}}]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"query": "x"}'}}]}),
        _chunk({"tool_calls": [{"index": 1, "function": {"arguments": 'ery": "y"}'}}]}),
        _chunk({"content": "checking both"}),
        _chunk({}, finish="tool_calls"),
    ]
    parts = [p for c in chunks for p in dec.feed(c)]
    assert parts[0] == TextDelta(text="checking both", channel="thought")
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert [(c.id, c.arguments) for c in calls] == [("a", {"query": "x"}), ("b", {"query": "y"})]
    assert dec.finish() == []  # emitted once


def test_tool_calls_without_index_and_reasoning_deltas() -> None:
    dec = ChatCompletionsAdapter().decoder()
    chunks = [
        _chunk({"reasoning_content": "think"}),
        _chunk({"tool_calls": [{"id": "a", "function": {"name": "search"}}]}),
        _chunk({"tool_calls": [{"function": {"arguments": '{"query": "1"}'}}]}),
        _chunk({"tool_calls": [{"id": "b", "function": {"name": "search",
                                                         "arguments": '{"query": "2"}'}}]}),
    ]
    parts = [p for c in chunks for p in dec.feed(c)] + dec.finish()
    assert parts[0] == TextDelta(text="think", channel="thought")
    assert [p.call.arguments for p in parts if isinstance(p, ToolCallPart)] == [
        {"query": "1"}, {"query": "2"}]


def test_mid_stream_error_and_nameless_call_are_bad_responses() -> None:
    with pytest.raises(ModelError) as err:
        ChatCompletionsAdapter().decoder().feed({"error": {"message": "overloaded"}})
    assert err.value.code == "model_bad_response"
    dec = ChatCompletionsAdapter().decoder()
    dec.feed(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}))
    with pytest.raises(ModelError):
        dec.finish()


def test_decode_non_streamed_response() -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": "let me look",
                                     "tool_calls": [{"id": "c9", "type": "function",
                                                     "function": {"name": "search",
                                                                  "arguments": "{}"}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7}}
    parts = ChatCompletionsAdapter().decode_response(body)
    assert parts == [TextDelta(text="let me look", channel="thought"),
                     ToolCallPart(call=ToolCall(id="c9", name="search", arguments={})),
                     UsagePart(input_tokens=5, output_tokens=7)]
    with pytest.raises(ModelError):
        ChatCompletionsAdapter().decode_response({"choices": []})


@pytest.mark.parametrize(("raw", "expected"), [
    ("", {}),
    ('{"query": "a"}', {"query": "a"}),
    ('```json\n{"query": "a"}\n```', {"query": "a"}),
    ('{"query": "a",}', {"query": "a"}),
    ("not json", {"input": "not json"}),
    ("[1, 2]", {"input": "[1, 2]"}),
])
def test_parse_arguments_is_tolerant(raw: str, expected: dict[str, Any]) -> None:
    assert parse_arguments(raw) == expected
