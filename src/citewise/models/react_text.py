"""Text-ReAct: tool use for models without native tool calling.

:class:`TextReActModel` wraps any text model. It describes the tools in the system prompt,
replays earlier tool calls and results as ``Thought / Action / Action Input / Observation``
text, and parses the reply with :mod:`citewise.models.react_parse`. When the reply cannot
be read it shows the model what went wrong and asks again; after ``max_parse_failures``
corrections the run fails with ``model_output_unparseable``.

The final answer streams live: once ``Final Answer:`` has appeared (and no ``Action:``
before it), every further delta goes out on the ``answer`` channel as it arrives.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from citewise.models.base import (
    AssistantMessage,
    EvidencePart,
    Message,
    Model,
    ModelRequest,
    Part,
    TextDelta,
    ToolCall,
    ToolCallPart,
    ToolMessage,
    ToolSpec,
    UsagePart,
    UserMessage,
)
from citewise.models.failures import ModelOutputUnparseable
from citewise.models.prompts import schema_instruction, with_system
from citewise.models.react_parse import FINAL_MARKER, ReactParseError, find_final, parse_react

__all__ = ["OBSERVATION_STOP", "TextReActModel", "create", "react_instructions"]

OBSERVATION_STOP = "\nObservation:"

_FORMAT = """To use a tool, reply in exactly this format and then stop:
Thought: <your reasoning>
Action: <one tool name from the list>
Action Input: <the arguments as one JSON object>

The tool's result will come back to you as "Observation: ...".
When you know the answer, reply:
Thought: <your reasoning>
Final Answer: <your answer>"""


def _describe(spec: ToolSpec) -> str:
    props: dict[str, Any] = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    args = []
    for name, schema in props.items():
        kind = schema.get("type", "any") if isinstance(schema, dict) else "any"
        desc = schema.get("description", "") if isinstance(schema, dict) else ""
        flag = "required" if name in required else "optional"
        args.append(f'"{name}": {kind} ({flag}){" — " + desc if desc else ""}')
    arg_text = "; ".join(args) if args else "no arguments ({})"
    return f"- {spec.name}: {spec.description or 'no description'} Arguments: {arg_text}"


def react_instructions(tools: Sequence[ToolSpec], output_schema: dict[str, Any] | None) -> str:
    """The protocol text appended to the system prompt."""
    parts: list[str] = []
    if tools:
        parts.append("You have these tools:\n" + "\n".join(_describe(t) for t in tools))
        parts.append(_FORMAT)
    else:
        parts.append("Reply with:\nThought: <your reasoning>\nFinal Answer: <your answer>")
    if output_schema is not None:
        parts.append(schema_instruction(output_schema).replace(
            "When you give your final answer, reply with only",
            "After \"Final Answer:\" write only"))
    return "\n\n".join(parts)


def _transcript(messages: Sequence[Message]) -> list[Message]:
    """Native tool-call history as ReAct text; tool results as user observations."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m, AssistantMessage) and m.tool_calls:
            lines = [f"Thought: {m.content.strip() or 'I will use a tool.'}"]
            for c in m.tool_calls:
                lines += [f"Action: {c.name}", f"Action Input: {json.dumps(c.arguments)}"]
            out.append(AssistantMessage(content="\n".join(lines)))
        elif isinstance(m, ToolMessage):
            text = f"Observation ({m.name}): {m.content}"
            prev = out[-1] if out else None
            if isinstance(prev, UserMessage) and prev.content.startswith("Observation ("):
                out[-1] = UserMessage(content=f"{prev.content}\n\n{text}")  # keep turns alternating
            else:
                out.append(UserMessage(content=text))
        else:
            out.append(m)
    return out


def _corrective(why: str, tools: Sequence[ToolSpec]) -> str:
    names = ", ".join(t.name for t in tools) or "(none: give a Final Answer)"
    return (f"Your reply could not be understood: {why}\n"
            f"Reply again in the required format. Tools: {names}.\n" + _FORMAT)


class TextReActModel:
    """Tool use through a text protocol, on top of ``inner`` (any model that writes text)."""

    def __init__(self, inner: Model, *, max_parse_failures: int = 2) -> None:
        self.inner = inner
        self.max_parse_failures = max_parse_failures
        self.parse_failures = 0  # over the model's lifetime (tests and metrics read it)

    @property
    def name(self) -> str:
        return f"react:{self.inner.name}"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        extra = react_instructions(request.tools, request.output_schema)
        messages: list[Message] = with_system(_transcript(request.messages), extra)
        failures = 0
        while True:
            inner = ModelRequest(messages=messages, tools=[], step=request.step)
            chunks: list[str] = []
            answering = False
            async for part in self.inner.stream(inner):
                if isinstance(part, UsagePart | EvidencePart):
                    yield part
                    continue
                if isinstance(part, ToolCallPart):  # a native call after all: take it
                    yield part
                    continue
                chunks.append(part.text)
                if answering:
                    yield TextDelta(text=part.text, channel="answer")
                    continue
                found = find_final("".join(chunks))
                if found is not None:
                    answering = True
                    thought, answer_so_far = found
                    if thought:
                        yield TextDelta(text=thought, channel="thought")
                    if answer_so_far:
                        yield TextDelta(text=answer_so_far, channel="answer")
            text = "".join(chunks)
            if answering:
                if text.split(FINAL_MARKER, 1)[-1].strip():
                    return
                why = "the Final Answer is empty"
            else:
                try:
                    parsed = parse_react(text, request.tools)
                except ReactParseError as exc:
                    why = exc.reason
                else:
                    if parsed.thought:
                        yield TextDelta(text=parsed.thought, channel="thought")
                    if parsed.final is not None:
                        yield TextDelta(text=parsed.final, channel="answer")
                    for name, arguments in parsed.calls:
                        yield ToolCallPart(call=ToolCall(id=f"call_{secrets.token_hex(6)}",
                                                         name=name, arguments=arguments))
                    return
            failures += 1
            self.parse_failures += 1
            if failures > self.max_parse_failures:
                raise ModelOutputUnparseable(
                    f"{self.inner.name} produced no readable ReAct reply after "
                    f"{failures} attempts: {why}",
                    details={"attempts": failures, "reason": why, "last_output": text[:500]})
            messages = [*messages, AssistantMessage(content=text),
                        UserMessage(content=_corrective(why, request.tools))]


def create(spec: str = "", **options: Any) -> TextReActModel:
    """Entry point ``react:INNER_SPEC`` — e.g. ``react:openai-compat:http://…/v1#model``."""
    from citewise.models.registry import resolve_model

    max_failures = int(options.pop("max_parse_failures", 2))
    if spec.startswith(("openai:", "openai-compat:")):
        # Stop before the model invents the observation itself.
        options.setdefault("stop", [OBSERVATION_STOP])
    return TextReActModel(resolve_model(spec, **options), max_parse_failures=max_failures)
