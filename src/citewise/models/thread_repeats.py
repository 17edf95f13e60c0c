"""A follow-up's quote is not the thread's last quote again.

Why: a follow-up ("And which one is the fastest?") is searched and scored with the words it
carries from the earlier question (:mod:`citewise.agent.followups`), so the sentence that
answered the earlier question — which holds exactly those words, and "default" — wins again
by far, and the user reads the same quote twice. The extractive model reads the thread's
earlier answers from its messages and ranks what they quoted below every other sentence
that has as much of what the follow-up itself asks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from citewise.models.base import AssistantMessage, Message, ToolMessage
from citewise.text import content_terms

__all__ = ["earlier_answers", "not_repeated"]


class _Scored(Protocol):
    @property
    def score(self) -> float: ...
    @property
    def text(self) -> str: ...


C = TypeVar("C", bound=_Scored)


def earlier_answers(messages: Sequence[Message]) -> str:
    """What the thread's earlier answers said (before this turn's first tool call), as
    lower-case words."""
    first_call = next((i for i, m in enumerate(messages)
                       if isinstance(m, ToolMessage) or getattr(m, "tool_calls", None)),
                      len(messages))
    return " | ".join(_key(m.content) for m in messages[:first_call]
                      if isinstance(m, AssistantMessage) and m.content)


def not_repeated(candidates: list[C], said: str, close: float, asked: str) -> list[C]:
    """``candidates`` (best first, frozen dataclasses) with those an earlier answer quoted
    moved below every other, and scored at least ``2 * close`` below the best of the others
    so that no repeat rides along as a second quote (one within ``close`` of the first) —
    but only when another sentence has as many of the words the follow-up itself asks
    (``asked``, without what the search carried) as the repeat: "How is it harvested?"
    after "What is saffron?" may be answered by the very sentence quoted before."""
    if not said:
        return candidates
    repeats = [c for c in candidates if _key(c.text) in said]
    fresh = [c for c in candidates if _key(c.text) not in said]
    if not repeats or not fresh:
        return candidates
    terms = set(content_terms(asked))

    def covers(c: C) -> int:
        return len(terms & set(content_terms(c.text)))

    needed = max(1, max(covers(c) for c in repeats))
    if not any(covers(c) >= needed for c in fresh):
        return candidates
    floor = round(fresh[0].score - 2 * close, 6)
    return fresh + [replace(c, score=min(c.score, floor))  # type: ignore[type-var]
                    for c in repeats]


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
