"""Test models: ones that take their time (runs that must overlap or be caught mid-run), and
what a stateless scripted model routes on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from citewise.models.base import AssistantMessage, ModelRequest, TextDelta, UserMessage

__all__ = ["SlowTalker", "question_and_turn"]


class SlowTalker:
    """Answers ``words`` words (``word0 word1 …``), sleeping ``pause`` seconds before each."""

    name = "slow-talker"

    def __init__(self, words: int, pause: float = 0.02) -> None:
        self.words = words
        self.pause = pause

    async def stream(self, request: ModelRequest) -> AsyncIterator[TextDelta]:
        for n in range(self.words):
            await asyncio.sleep(self.pause)
            yield TextDelta(text=f"word{n} ")


def question_and_turn(request: ModelRequest) -> tuple[str, int]:
    """The last question of ``request`` and how many assistant turns followed it: what a
    stateless scripted model picks its script and turn by, so a resumed run (in any
    process) goes on where the paused one stopped."""
    last = max(i for i, m in enumerate(request.messages) if isinstance(m, UserMessage))
    question = request.messages[last].content
    assert isinstance(question, str)
    return question, sum(isinstance(m, AssistantMessage) for m in request.messages[last:])
