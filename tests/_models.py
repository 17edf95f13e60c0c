"""Test models that take their time, for runs that must overlap or be caught mid-run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from citewise.models.base import ModelRequest, TextDelta

__all__ = ["SlowTalker"]


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
