"""A thread's history as a new run needs it: its earlier (question, answer) turns, and
what the last answer was about (:func:`citewise.agent.followups.answer_subject`).

From the store when the agent has one (the turns, and the last turn's run for its
citations); otherwise from memory, where an agent without a store keeps the most recent
:data:`MEMORY_THREADS` threads so that a long-lived one does not grow without bound. An
agent without a store has no knowledge base either (a knowledge base brings its store),
so it searches nothing, and its memory keeps no subject.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from citewise.agent.followups import answer_subject
from citewise.errors import NotFound

if TYPE_CHECKING:
    from citewise.answer import Answer
    from citewise.store.base import Store

__all__ = ["MEMORY_THREADS", "ThreadHistory"]

#: Threads an agent without a store remembers (least recently used ones are forgotten).
MEMORY_THREADS = 1024


class ThreadHistory:
    """The turns of a tenant's threads, read from ``store`` or kept in memory."""

    def __init__(self, store: Store | None, tenant: str) -> None:
        self.store = store
        self.tenant = tenant
        self._memory: OrderedDict[str, list[tuple[str, str]]] = OrderedDict()

    def get(self, thread_id: str) -> tuple[list[tuple[str, str]], Callable[[], str]]:
        """The thread's turns, oldest first, and a function that finds its last answer's
        subject (reading that run's answer only if a follow-up needs it); ``NotFound``
        (``unknown_thread``) for a thread there is no record of."""
        if self.store is None:
            if thread_id not in self._memory:
                raise NotFound(f"unknown thread {thread_id!r}", code="unknown_thread")
            return list(self._memory[thread_id]), lambda: ""
        store = self.store
        if store.get_thread(self.tenant, thread_id) is None:
            raise NotFound(f"unknown thread {thread_id!r}", code="unknown_thread")
        records = store.list_turns(self.tenant, thread_id)

        def subject() -> str:
            from citewise.store.base import decoded

            last = store.get_run(self.tenant, records[-1].run_id) if records else None
            if last is None or not last.answer:
                return ""
            return answer_subject(decoded(last.answer), records[-1].question)

        return [(t.question, t.answer) for t in records], subject

    def remember(self, thread_id: str, question: str, answer: Answer) -> None:
        """Keep a finished turn, without a store (the store records its own turns)."""
        if self.store is not None:
            return
        self._memory.setdefault(thread_id, []).append((question, answer.text))
        self._memory.move_to_end(thread_id)
        if len(self._memory) > MEMORY_THREADS:
            self._memory.popitem(last=False)
