"""The JSON step protocol of grammar-constrained local models.

A 135M model cannot follow free-text ReAct, so each step is one JSON object whose shape
the sampler enforces (llama.cpp grammar compiled from :func:`step_schema`)::

    {"thought": "…", "tool": "search_knowledge", "arguments": {…tool's own schema…}}
    {"thought": "…", "answer": "… [1]."}          # or the output_schema's JSON value

Every step is valid by construction: the tool exists, its arguments match its schema,
the answer matches ``output_schema``. Whether the answer is *true* is still checked by
citation verification, like every model's.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from citewise.models.base import (
    AssistantMessage,
    Message,
    ModelRequest,
    SystemMessage,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

__all__ = ["StepLimits", "chat_messages", "step_instructions", "step_schema"]


class StepLimits:
    """Length caps that keep a small model from rambling (and bound every step)."""

    def __init__(self, thought_chars: int = 240, answer_chars: int = 800,
                 argument_chars: int = 160) -> None:
        self.thought_chars = thought_chars
        self.answer_chars = answer_chars
        self.argument_chars = argument_chars


def _cap_strings(schema: Any, cap: int) -> Any:
    """Give unbounded string properties a ``maxLength`` (and ``minLength`` 1)."""
    if isinstance(schema, dict):
        out = {k: _cap_strings(v, cap) for k, v in schema.items()}
        if out.get("type") == "string" and not ({"maxLength", "enum", "const", "pattern",
                                                  "format"} & set(out)):
            out["maxLength"] = cap
            out.setdefault("minLength", 1)
        return out
    if isinstance(schema, list):
        return [_cap_strings(v, cap) for v in schema]
    return schema


def _arguments_schema(spec: ToolSpec, limits: StepLimits, defs: dict[str, Any]) -> Any:
    params = copy.deepcopy(spec.parameters) or {}
    for key in ("$defs", "definitions"):
        defs.update(params.pop(key, {}) or {})
    params.pop("title", None)
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    params.setdefault("additionalProperties", False)
    # Only required arguments are generated: a tiny model does better with fewer choices,
    # and optional ones keep their defaults.
    required = params.get("required", [])
    params["properties"] = {k: v for k, v in params["properties"].items() if k in required}
    return _cap_strings(params, limits.argument_chars)


def step_schema(tools: Sequence[ToolSpec], output_schema: dict[str, Any] | None,
                limits: StepLimits, *, allow_answer: bool = True) -> dict[str, Any]:
    """The schema of one step: a tool call (one branch per tool) or the final answer
    (``allow_answer=False`` leaves only the tool calls: the step must use a tool)."""
    thought = {"type": "string", "minLength": 1, "maxLength": limits.thought_chars}
    defs: dict[str, Any] = {}
    branches: list[dict[str, Any]] = []
    for spec in tools:
        branches.append({
            "type": "object",
            "properties": {"thought": thought, "tool": {"const": spec.name},
                           "arguments": _arguments_schema(spec, limits, defs)},
            "required": ["thought", "tool", "arguments"],
            "additionalProperties": False,
        })
    if not allow_answer and branches:
        only_tools = branches[0] if len(branches) == 1 else {"oneOf": branches}
        return {**only_tools, "$defs": defs} if defs else only_tools
    if output_schema is not None:
        answer = copy.deepcopy(output_schema)
        defs.update(answer.pop("$defs", {}) or {})
    else:
        answer = {"type": "string", "minLength": 1, "maxLength": limits.answer_chars}
    branches.append({
        "type": "object",
        "properties": {"thought": thought, "answer": answer},
        "required": ["thought", "answer"],
        "additionalProperties": False,
    })
    schema: dict[str, Any] = branches[0] if len(branches) == 1 else {"oneOf": branches}
    if defs:
        schema = {**schema, "$defs": defs}
    return schema


def step_instructions(request: ModelRequest) -> str:
    lines = ["Reply with one JSON object."]
    if request.tools:
        lines.append('To use a tool: {"thought": "why", "tool": "NAME", "arguments": {...}}.')
        lines.append("Tools:")
        for t in request.tools:
            args = ", ".join(t.parameters.get("required", [])) or "none"
            lines.append(f"- {t.name}: {t.description} (arguments: {args})")
    lines.append('To answer: {"thought": "why", "answer": "the answer, citing sources like [1]"}.')
    if request.output_schema is not None:
        lines.append("The answer must be JSON matching: " + json.dumps(request.output_schema))
    return "\n".join(lines)


def chat_messages(request: ModelRequest) -> list[dict[str, str]]:
    """Role/content dicts for the model's chat template: earlier tool calls as the JSON
    steps the model writes, tool results as user turns (small templates know no tools)."""
    extra = step_instructions(request)
    out: list[dict[str, str]] = []
    messages: Sequence[Message] = request.messages
    if not any(isinstance(m, SystemMessage) for m in messages):
        out.append({"role": "system", "content": extra})
    for m in messages:
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": f"{m.content}\n\n{extra}"})
        elif isinstance(m, UserMessage):
            out.append({"role": "user", "content": m.content})
        elif isinstance(m, AssistantMessage) and m.tool_calls:
            steps = [json.dumps({"thought": m.content or "I will use a tool.",
                                 "tool": c.name, "arguments": c.arguments}, ensure_ascii=False)
                     for c in m.tool_calls]
            out.append({"role": "assistant", "content": "\n".join(steps)})
        elif isinstance(m, AssistantMessage):
            out.append({"role": "assistant", "content": m.content})
        elif isinstance(m, ToolMessage):
            text = f"Result of {m.name}:\n{m.content}"
            if out and out[-1]["role"] == "user" and out[-1]["content"].startswith("Result of "):
                out[-1]["content"] += "\n\n" + text
            else:
                out.append({"role": "user", "content": text})
    return out
