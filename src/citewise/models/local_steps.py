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
import re
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

__all__ = ["StepLimits", "chat_messages", "cited_text", "result_markers", "step_instructions",
           "step_schema"]

_MARKER = re.compile(r"\[(\d{1,3})\]")
_MAX_MARKERS = 20


class StepLimits:
    """Length caps that keep a small model from rambling (and bound every step)."""

    def __init__(self, thought_chars: int = 120, answer_chars: int = 400,
                 argument_chars: int = 80) -> None:
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


def result_markers(messages: Sequence[Message]) -> list[int]:
    """The ``[n]`` numbers the tool results showed the model (what it may cite)."""
    found = {int(n) for m in messages if isinstance(m, ToolMessage)
             for n in _MARKER.findall(m.content)}
    return sorted(found)[:_MAX_MARKERS]


def cited_text(markers: Sequence[int], max_chars: int) -> dict[str, Any]:
    """A string of one to three sentences, each ending with a marker of a shown result,
    e.g. ``Refunds take 5 days [1].`` — so a small model cannot forget to cite or cite a
    result that does not exist (whether the citation *supports* the claim is still
    checked by verification)."""
    alt = "|".join(str(n) for n in markers)
    body = max(8, min(100, max_chars // 3))
    # "[.]", not "\\.": llama-cpp-python's pattern converter emits the latter as an
    # escape GBNF does not know.
    seg = f'[^\\[\\]".\\\\\\x00-\\x1F]{{4,{body}}} \\[({alt})\\][.]'
    return {"type": "string", "pattern": f"^{seg}( {seg}){{0,2}}$"}


def _cite_main_field(schema: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its first required free-text string property replaced by ``text``."""
    props = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(props, dict):
        return schema
    for name in schema.get("required", []):
        prop = props.get(name)
        if isinstance(prop, dict) and prop.get("type") == "string" and not (
                {"enum", "const", "pattern", "format"} & set(prop)):
            return {**schema, "properties": {**props, name: text}}
    return schema


def step_schema(tools: Sequence[ToolSpec], output_schema: dict[str, Any] | None,
                limits: StepLimits, *, allow_answer: bool = True,
                markers: Sequence[int] = ()) -> dict[str, Any]:
    """The schema of one step: a tool call (one branch per tool) or the final answer.

    ``allow_answer=False`` leaves only the tool calls (the step must use a tool).
    ``markers``: the result numbers shown so far; when given, the answer text (or the main
    text field of a structured answer) must cite them — see :func:`cited_text`.
    """
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
        if markers:
            answer = _cite_main_field(answer, cited_text(markers, limits.answer_chars))
    elif markers:
        answer = cited_text(markers, limits.answer_chars)
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


def _example_argument(spec: ToolSpec, question: str) -> dict[str, Any]:
    # Small models copy the example: make the copy a sensible search (the question).
    props = spec.parameters.get("properties", {})
    return {name: question[:60] if props.get(name, {}).get("type") == "string" else 1
            for name in spec.parameters.get("required", [])}


def step_instructions(request: ModelRequest) -> str:
    """The protocol, with one worked example of each step: small models copy examples far
    more reliably than they follow descriptions."""
    lines = ["Reply with one JSON object and nothing else."]
    if request.tools:
        lines.append("Tools:")
        for t in request.tools:
            props = t.parameters.get("properties", {})
            args = ", ".join(f"{a} ({props.get(a, {}).get('description', a)})"
                             for a in t.parameters.get("required", [])) or "none"
            lines.append(f"- {t.name}: {t.description} Arguments: {args}.")
        first = request.tools[0]
        question = next((m.content for m in reversed(request.messages)
                         if isinstance(m, UserMessage)), "")
        example = {"thought": "I need to look this up.", "tool": first.name,
                   "arguments": _example_argument(first, question)}
        lines.append("To use a tool, reply like:\n" + json.dumps(example))
    # No worked answer: a tiny model would copy its facts. The grammar enforces the shape.
    answer: Any = "... [n]."
    if request.output_schema is not None:
        answer = "<JSON matching " + json.dumps(request.output_schema) + ">"
    lines.append("To answer, reply like:\n" + json.dumps({"thought": "...", "answer": answer}))
    lines.append("Use only facts from the results; end each sentence with the number of "
                 "the result it comes from, like [1].")
    return "\n".join(lines)


def chat_messages(request: ModelRequest) -> list[dict[str, str]]:
    """Role/content dicts for the model's chat template: earlier tool calls as the JSON
    steps the model writes, tool results as user turns (small templates know no tools)."""
    extra = step_instructions(request)
    out: list[dict[str, str]] = []
    messages: Sequence[Message] = request.messages
    if not any(isinstance(m, SystemMessage) for m in messages):
        out.append({"role": "system", "content": extra})
    question = next((m.content for m in reversed(messages) if isinstance(m, UserMessage)), "")
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
    if messages and isinstance(messages[-1], ToolMessage) and question:
        # Recency matters to small models: restate the question right after the results.
        out[-1]["content"] += f"\n\nQuestion: {question}\nAnswer it from these results."
    return out
