"""The chat-completions wire format: our messages and tool specs ↔ OpenAI JSON.

Pure data in, data out — no HTTP here (that is :mod:`citewise.models.openai_provider`), so
the same adapter serves OpenAI, Azure, Ollama, vLLM, LM Studio and llama.cpp's servers, and
is tested without a network.

Channels: text that arrives before any tool call is streamed on the ``answer`` channel (so
a plain answer streams token by token); once a tool call has appeared, further text is a
``thought``. A model that writes text *and then* calls a tool has therefore streamed that
text as answer deltas already; the loop files text beside tool calls as reasoning, so the
only visible effect is that a UI showed a few "answer" tokens that turned into a thought.
``reasoning_content`` / ``reasoning`` deltas (DeepSeek, vLLM, Ollama thinking models) are
always thoughts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

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
from citewise.models.failures import ModelBadResponse
from citewise.models.prompts import schema_instruction, with_system

__all__ = ["ChatCompletionsAdapter", "Part", "StreamDecoder", "parse_arguments"]

Part = TextDelta | ToolCallPart | UsagePart
ResponseFormat = Literal["none", "json_schema", "json_object"]

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def parse_arguments(raw: str) -> dict[str, Any]:
    """Tool-call arguments from the model's JSON text, tolerating code fences and trailing
    commas. Anything that is still not a JSON object is passed on as ``{"input": raw}`` so
    the tool's argument validation tells the model what is wrong (it can then retry)."""
    text = raw.strip()
    if not text:
        return {}
    m = _FENCE.match(text)
    if m:
        text = m.group(1)
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
        break
    return {"input": raw}


def _tool_json(spec: ToolSpec) -> dict[str, Any]:
    params = dict(spec.parameters) or {}
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    fn: dict[str, Any] = {"name": spec.name, "parameters": params}
    if spec.description:
        fn["description"] = spec.description
    return {"type": "function", "function": fn}


def _message_json(m: Any) -> dict[str, Any]:
    if isinstance(m, SystemMessage | UserMessage):
        return {"role": m.role, "content": m.content}
    if isinstance(m, AssistantMessage):
        out: dict[str, Any] = {"role": "assistant", "content": m.content}
        if m.tool_calls:
            # null (not "") content beside tool calls is what OpenAI itself sends back.
            out["content"] = m.content or None
            out["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in m.tool_calls
            ]
        return out
    if isinstance(m, ToolMessage):
        return {"role": "tool", "tool_call_id": m.call_id, "content": m.content}
    raise TypeError(f"unknown message type {type(m).__name__}")


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamDecoder:
    """Turns streamed chat-completion chunks into parts; one decoder per model call."""

    def __init__(self) -> None:
        self._calls: dict[int, _PendingCall] = {}
        self._flushed = False
        self.saw_usage = False
        self.output_chunks = 0  # deltas that carried text or arguments (≈ tokens)

    def feed(self, chunk: dict[str, Any]) -> list[Part]:
        """The parts one chunk completes (text now; tool calls when the turn ends)."""
        if not isinstance(chunk, dict):
            raise ModelBadResponse("stream chunk is not a JSON object")
        if chunk.get("error"):
            err = chunk["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            raise ModelBadResponse(f"the server reported an error mid-stream: {msg}")
        parts: list[Part] = []
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            parts.extend(self._delta(delta))
            if choice.get("finish_reason"):
                parts.extend(self.finish())
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.saw_usage = True
            parts.append(_usage(usage))
        return parts

    def _delta(self, delta: dict[str, Any]) -> list[Part]:
        parts: list[Part] = []
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str) and delta[key]:
                self.output_chunks += 1
                parts.append(TextDelta(text=delta[key], channel="thought"))
        for tc in delta.get("tool_calls") or []:
            index = tc.get("index")
            if not isinstance(index, int):
                index = self._index_without_index(tc.get("id"))
            pending = self._calls.setdefault(index, _PendingCall())
            pending.id = pending.id or tc.get("id") or ""
            fn = tc.get("function") or {}
            if fn.get("name"):
                # Servers send the name once; a few (older vLLM) repeat it whole.
                pending.name = fn["name"] if fn["name"].startswith(pending.name) else (
                    pending.name + fn["name"])
            if fn.get("arguments"):
                self.output_chunks += 1
                args = fn["arguments"]
                pending.arguments.append(args if isinstance(args, str) else json.dumps(args))
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.output_chunks += 1
            channel: Literal["thought", "answer"] = "thought" if self._calls else "answer"
            parts.append(TextDelta(text=content, channel=channel))
        return parts

    def _index_without_index(self, call_id: Any) -> int:
        """Some servers omit ``index``: a known id continues its call, a new id starts the
        next one, no id continues the latest."""
        if call_id:
            for k, c in self._calls.items():
                if c.id == call_id:
                    return k
            return max(self._calls, default=-1) + 1
        return max(self._calls, default=0)

    def finish(self) -> list[Part]:
        """Emit the tool calls gathered so far (once), in the order the model made them."""
        if self._flushed:
            return []
        self._flushed = True
        out: list[Part] = []
        for index in sorted(self._calls):
            c = self._calls[index]
            if not c.name:
                raise ModelBadResponse("the server streamed a tool call without a name")
            out.append(ToolCallPart(call=ToolCall(
                id=c.id or f"call_{index}", name=c.name,
                arguments=parse_arguments("".join(c.arguments)),
            )))
        return out


def _usage(usage: dict[str, Any]) -> UsagePart:
    def num(key: str) -> int:
        v = usage.get(key)
        return int(v) if isinstance(v, int | float) and v >= 0 else 0

    return UsagePart(input_tokens=num("prompt_tokens"), output_tokens=num("completion_tokens"))


class ChatCompletionsAdapter:
    """Encodes a :class:`ModelRequest` as a chat-completions body; decodes what comes back.

    ``response_format``: ``json_schema`` (OpenAI, vLLM, Ollama) or ``json_object``
    (llama-cpp-python's server: ``{"type": "json_object", "schema": …}``) constrain the
    final answer to ``output_schema`` — only on requests that offer no tools, because a
    constrained turn can no longer call one. ``none`` (default) relies on the prompt and
    on the loop's validate-and-repair cycle.
    """

    def __init__(
        self,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
        response_format: ResponseFormat = "none",
        include_usage: bool = True,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = stop
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.response_format = response_format
        self.include_usage = include_usage
        self.extra_body = dict(extra_body or {})

    def encode(self, model: str, request: ModelRequest, *, stream: bool) -> dict[str, Any]:
        messages = with_system(request.messages, schema_instruction(request.output_schema))
        body: dict[str, Any] = {"model": model,
                                "messages": [_message_json(m) for m in messages]}
        if request.tools:
            body["tools"] = [_tool_json(t) for t in request.tools]
            if self.tool_choice is not None:
                body["tool_choice"] = self.tool_choice
            if self.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = self.parallel_tool_calls
        elif request.output_schema is not None and self.response_format != "none":
            if self.response_format == "json_schema":
                body["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": "answer", "schema": request.output_schema, "strict": False}}
            else:
                body["response_format"] = {"type": "json_object",
                                           "schema": request.output_schema}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.stop:
            body["stop"] = list(self.stop)
        if stream:
            body["stream"] = True
            if self.include_usage:
                body["stream_options"] = {"include_usage": True}
        body.update(self.extra_body)
        return body

    def decoder(self) -> StreamDecoder:
        return StreamDecoder()

    def decode_response(self, body: dict[str, Any]) -> list[Part]:
        """Parts of a non-streamed response (``stream=False``)."""
        choices = body.get("choices") if isinstance(body, dict) else None
        if not isinstance(choices, list) or not choices:
            raise ModelBadResponse("the response has no choices")
        message = choices[0].get("message") or {}
        decoder = StreamDecoder()
        delta = {k: message.get(k) for k in ("content", "reasoning_content", "reasoning")}
        # Tool calls first, so that text beside them comes out as a thought.
        calls = [{**tc, "index": i} for i, tc in enumerate(message.get("tool_calls") or [])]
        parts = decoder.feed({"choices": [{"index": 0, "delta": {"tool_calls": calls}}]})
        parts += decoder.feed({"choices": [{"index": 0, "delta": delta}]})
        parts += decoder.finish()
        if isinstance(body.get("usage"), dict):
            parts.append(_usage(body["usage"]))
        return parts
