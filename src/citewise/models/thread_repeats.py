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

from citewise.models.base import AssistantMessage, Message
from citewise.text import content_terms

__all__ = ["earlier_answers", "not_repeated"]


class _Scored(Protocol):
    @property
    def score(self) -> float: ...
    @property
    def text(self) -> str: ...


C = TypeVar("C", bound=_Scored)


def earlier_answers(messages: Sequence[Message]) -> str:
    """What the earlier answers among ``messages`` (those before this turn's tool calls)
    said, as lower-case words."""
    return " | ".join(_key(m.content) for m in messages
                      if isinstance(m, AssistantMessage) and m.content)


def not_repeated(candidates: list[C], said: str, close: float, asked: str,
                 searched: str) -> list[C]:
    """``candidates`` (best first, frozen dataclasses) re-ranked for a follow-up when an
    earlier answer quoted one of them and others have at least as many of the words the
    follow-up itself asks (``asked``) and one of the words the search carried in from the
    thread (``searched`` less ``asked``: its subject). Those come first, and every other
    sentence — the repeat included — scores at least ``2 * close`` below the best of them,
    so that none rides along as a second quote (one within ``close`` of the first).
    Otherwise nothing changes: "How is it harvested?" after "What is saffron?" may be
    answered by the very sentence quoted before, and not by "Rice is harvested …"."""
    if not said:
        return candidates
    repeats = [c for c in candidates if _key(c.text) in said]
    if not repeats:
        return candidates
    terms = set(content_terms(asked))
    subject = set(content_terms(searched)) - terms

    def covers(c: C) -> int:
        return len(terms & set(content_terms(c.text)))

    needed = max(1, max(covers(c) for c in repeats))
    asking = [c for c in candidates if _key(c.text) not in said and covers(c) >= needed
              and (not subject or subject & set(content_terms(c.text)))]
    if not asking:
        return candidates
    floor = round(asking[0].score - 2 * close, 6)
    rest = [replace(c, score=min(c.score, floor))  # type: ignore[type-var]
            for c in candidates if c not in asking]
    return sorted([*asking, *rest], key=lambda c: c.score, reverse=True)


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))
