"""``ScriptedModel``: a queue of canned turns, for citewise's tests and for yours.

Each turn is a list of parts (or one part, or a string = a final answer). Helpers build
the common ones::

    model = ScriptedModel([
        call("search_knowledge", query="refund policy"),
        "Refunds take 14 days [1].",
    ])

A turn may also be a function of the request, to answer from what the run has seen.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from typing import Any

from citewise.errors import ModelError
from citewise.models.base import (
    EvidencePart,
    ModelRequest,
    Part,
    TextDelta,
    ToolCall,
    ToolCallPart,
    UsagePart,
)

__all__ = ["ScriptedModel", "Turn", "answer", "call", "create", "thought"]

Turn = Part | str | Sequence[Part] | Callable[[ModelRequest], Sequence[Part]]

_ids = itertools.count(1)


def call(name: str, /, **arguments: Any) -> ToolCallPart:
    """A tool call part."""
    return ToolCallPart(call=ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments))


def thought(text: str) -> TextDelta:
    return TextDelta(text=text, channel="thought")


def answer(text: str) -> TextDelta:
    return TextDelta(text=text, channel="answer")


class ScriptedModel:
    """Plays back turns in order; fails the run (``model_error``) when it runs out."""

    def __init__(self, turns: Iterable[Turn], *, name: str = "scripted", usage: bool = True):
        self._turns = list(turns)
        self._name = name
        self._usage = usage
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def remaining(self) -> int:
        return len(self._turns)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        self.requests.append(request)
        if not self._turns:
            raise ModelError("the scripted model has no turns left", code="model_error")
        turn = self._turns.pop(0)
        parts = _parts(turn(request) if callable(turn) else turn)
        for part in parts:
            yield part
        if self._usage and not any(isinstance(p, UsagePart) for p in parts):
            out = sum(len(p.text.split()) for p in parts if isinstance(p, TextDelta))
            yield UsagePart(input_tokens=_count_tokens(request), output_tokens=out + len(parts))


def _parts(turn: Part | str | Sequence[Part]) -> list[Part]:
    if isinstance(turn, str):
        return [answer(turn)]
    if isinstance(turn, TextDelta | ToolCallPart | UsagePart | EvidencePart):
        return [turn]
    return list(turn)


def _count_tokens(request: ModelRequest) -> int:
    # A rough whitespace count: scripted runs have no tokenizer, but usage must add up.
    return sum(len(getattr(m, "content", "").split()) for m in request.messages)


def create(spec: str = "") -> ScriptedModel:
    """Entry point: ``scripted`` with no turns (useful only to prove wiring)."""
    return ScriptedModel([])
