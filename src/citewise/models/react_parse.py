"""A tolerant parser for text-ReAct replies.

Accepts what models actually write, not just the textbook format:

* ``Thought: … / Action: search / Action Input: {"query": "…"}`` (markers in any case,
  in markdown bold or bullets; several actions = parallel calls);
* ``Action: search[refund policy]`` and ``Action: search(query="refunds")``;
* an Action Input that is not JSON when the tool has one parameter (``Action Input:
  refund policy``), or ``key=value`` / ``key: value`` pairs of known parameters;
* JSON replies: ``{"action": "search", "action_input": {…}}``, ``{"tool": …,
  "arguments": …}``, ``{"final_answer": …}``;
* a reply with no markers at all, which is taken as the final answer.

A hallucinated ``Observation:`` after an action and everything after it are dropped.
Anything else raises :class:`ReactParseError` whose ``reason`` is shown to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from citewise.models.base import ToolSpec
from citewise.models.openai_wire import parse_arguments

__all__ = ["FINAL_MARKER", "ParsedReply", "ReactParseError", "find_final", "parse_react"]

FINAL_MARKER = "Final Answer:"
_LABELS = r"(thought|action\s*input|action|observation|final\s*answer)"
_MARK = re.compile(rf"^[ \t>*_#\-]*{_LABELS}[ \t]*[*_]*[ \t]*:[*_]*[ \t]*",
                   re.IGNORECASE | re.MULTILINE)
_FINAL_ANYWHERE = re.compile(r"[*_]*final\s*answer[*_]*\s*:[*_]*[ \t]*", re.IGNORECASE)
_ACTION_LINE = re.compile(r"^[ \t>*_#\-]*action[ \t]*[*_]*[ \t]*:", re.IGNORECASE | re.MULTILINE)
_INLINE = re.compile(r"^\s*[`'\"]?([\w.\-]+)[`'\"]?\s*(?:\[(.*)\]|\((.*)\))?\s*$", re.DOTALL)
_PAIR = re.compile(r"""(\w+)\s*[=:]\s*("[^"]*"|'[^']*'|[^,\n]+)""")


class ReactParseError(ValueError):
    """The reply cannot be read; ``reason`` says why, in words for the model."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class ParsedReply:
    thought: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    final: str | None = None


def find_final(text: str) -> tuple[str, str] | None:
    """``(thought, answer so far)`` once ``Final Answer:`` appears with no action before it."""
    m = _FINAL_ANYWHERE.search(text)
    if m is None or _ACTION_LINE.search(text, 0, m.start()):
        return None
    before = _MARK.sub("", text[: m.start()]).strip()
    return before, text[m.end():].lstrip()


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name).lower()


def _resolve(name: str, tools: Sequence[ToolSpec]) -> ToolSpec:
    for match in (lambda t: t.name == name, lambda t: t.name.lower() == name.lower(),
                  lambda t: _norm(t.name) == _norm(name)):
        for t in tools:
            if match(t):
                return t
    available = ", ".join(t.name for t in tools) or "none"
    raise ReactParseError(f"there is no tool named {name!r} (available: {available})")


def _arguments(raw: str, spec: ToolSpec) -> dict[str, Any]:
    props = list(spec.parameters.get("properties", {}))
    text = raw.strip().strip("`").removeprefix("json").strip()
    if not text:
        return {}
    args = parse_arguments(text)
    if set(args) != {"input"} or "input" in props:
        return args
    try:
        scalar = json.loads(text)
    except json.JSONDecodeError:
        scalar = None
    pairs = {k: v.strip().strip("'\"") for k, v in _PAIR.findall(text)}
    if pairs and set(pairs) <= set(props):
        return pairs
    required = spec.parameters.get("required", [])
    single = props[0] if len(props) == 1 else (required[0] if len(required) == 1 else None)
    if single is not None and not isinstance(scalar, dict | list):
        value = scalar if scalar is not None else text.strip("'\"")
        return {single: value}
    raise ReactParseError(
        f"the Action Input for {spec.name} is not a JSON object of its arguments "
        f"({', '.join(props) or 'none'})")


def _from_json(text: str, tools: Sequence[ToolSpec]) -> ParsedReply | None:
    body = text.strip()
    fence = re.match(r"^```(?:json)?\s*(.*?)\s*```$", body, re.DOTALL)
    if fence:
        body = fence.group(1)
    if not body.startswith("{"):
        return None
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    thought = str(data.get("thought", "") or "")
    for key in ("final_answer", "final"):
        if key in data and not ({"action", "tool"} & set(data)):
            value = data[key]
            return ParsedReply(thought=thought,
                               final=value if isinstance(value, str) else json.dumps(value))
    name = data.get("action", data.get("tool"))
    if not isinstance(name, str):
        return None  # a JSON answer (structured output), not a ReAct object
    raw: Any = next((data[k] for k in ("action_input", "arguments", "args", "input") if k in data),
               {})
    if _norm(name) == "finalanswer":
        return ParsedReply(thought=thought,
                           final=raw if isinstance(raw, str) else json.dumps(raw))
    spec = _resolve(name, tools)
    args = raw if isinstance(raw, dict) else _arguments(
        raw if isinstance(raw, str) else json.dumps(raw), spec)
    return ParsedReply(thought=thought, calls=[(spec.name, args)])


def parse_react(text: str, tools: Sequence[ToolSpec]) -> ParsedReply:
    """Read one reply; raise :class:`ReactParseError` when it cannot be read."""
    if not text.strip():
        raise ReactParseError("the reply is empty")
    as_json = _from_json(text, tools)
    if as_json is not None:
        return as_json
    marks = list(_MARK.finditer(text))
    if not marks:
        return ParsedReply(final=text.strip())
    segments: list[tuple[str, str]] = []
    preamble = text[: marks[0].start()].strip()
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        label = re.sub(r"\s+", " ", m.group(1).lower())
        segments.append((label, text[m.end():end].strip()))
    thoughts = [preamble] if preamble else []
    calls: list[tuple[str, dict[str, Any]]] = []
    final: str | None = None
    pending: tuple[ToolSpec, str | None] | None = None  # action seen, waiting for its input
    for label, content in segments:
        if label == "observation":
            if calls or pending:
                break  # the model is inventing the tool's result: stop reading
            continue
        if label == "thought":
            if not calls and pending is None:
                thoughts.append(content)
        elif label == "action":
            if pending is not None:
                calls.append((pending[0].name, _arguments(pending[1] or "", pending[0])))
            inline = _INLINE.match(content.splitlines()[0] if content else "")
            if not content or inline is None:
                raise ReactParseError(f"cannot read a tool name from 'Action: {content[:80]}'")
            spec = _resolve(inline.group(1), tools)
            arg = inline.group(2) if inline.group(2) is not None else inline.group(3)
            pending = (spec, arg)
        elif label == "action input":
            if pending is None:
                raise ReactParseError("an 'Action Input:' came without an 'Action:' before it")
            calls.append((pending[0].name, _arguments(content, pending[0])))
            pending = None
        elif label == "final answer" and not calls and pending is None:
            final = content
            break
    if pending is not None:
        calls.append((pending[0].name, _arguments(pending[1] or "", pending[0])))
    thought = "\n".join(t for t in thoughts if t)
    if calls:
        return ParsedReply(thought=thought, calls=calls)
    if final is not None:
        if not final.strip():
            raise ReactParseError("the Final Answer is empty")
        return ParsedReply(thought=thought, final=final)
    raise ReactParseError("the reply has neither an 'Action:' nor a 'Final Answer:'")
