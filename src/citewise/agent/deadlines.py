"""Tool-call timeouts served by one timer per event loop.

``asyncio.timeout`` schedules (and cancels) a timer for every block it guards: a
``TimerHandle``, a heap push and a cancelled entry left in the loop's heap — about a tenth
of a ReAct step's cost here, and with a thousand concurrent runs the heap holds thousands
of timers that almost never fire. A tool call's deadline is nearly always far away (the
default is 30 s), so :class:`Deadlines` keeps the live calls in a dict and arms a single
``call_at`` for the earliest of them; when it fires it cancels the calls that are due and
re-arms for the next. A call that ends first only leaves the dict.

``with deadline(seconds): await …`` behaves like ``async with asyncio.timeout(seconds)``:
the task is cancelled at the deadline and the block raises :class:`TimeoutError`, while a
cancellation from elsewhere stays a :class:`~asyncio.CancelledError`.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from types import TracebackType

__all__ = ["Deadline", "Deadlines", "deadline", "deadlines_of"]


class Deadline:
    """One guarded block: a sync context manager (entering and leaving never await)."""

    __slots__ = ("_cancelling", "_owner", "_task", "expired", "seconds", "when")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.when = math.inf
        self.expired = False

    def __enter__(self) -> Deadline:
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("a deadline is used inside a task")
        loop = task.get_loop()
        self._task = task
        self._cancelling = task.cancelling()
        self.when = loop.time() + self.seconds
        self._owner = deadlines_of(loop)
        self._owner.add(self, loop)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._owner.discard(self)
        # As asyncio.timeout: our cancel becomes TimeoutError unless someone else also
        # asked the task to stop meanwhile.
        if (self.expired and self._task.uncancel() <= self._cancelling
                and exc_type is asyncio.CancelledError):
            raise TimeoutError from exc

    def _expire(self) -> None:
        self.expired = True
        self._task.cancel()


class Deadlines:
    """The live deadlines of one event loop and the one timer that serves them."""

    # No reference to the loop, not even through a TimerHandle: the loop maps to this
    # object weakly, and a reference back would keep every loop ever used alive. A timer
    # that was re-armed is recognised by its generation instead of being cancelled.
    __slots__ = ("_armed", "_live", "_when")

    def __init__(self) -> None:
        self._live: dict[Deadline, None] = {}
        self._when = math.inf
        self._armed = 0

    def __len__(self) -> int:
        return len(self._live)

    def add(self, d: Deadline, loop: asyncio.AbstractEventLoop) -> None:
        self._live[d] = None
        if d.when < self._when:
            self._arm(d.when, loop)

    def discard(self, d: Deadline) -> None:
        # Lazily: the timer stays armed and finds nothing due when it fires.
        self._live.pop(d, None)

    def _arm(self, when: float, loop: asyncio.AbstractEventLoop) -> None:
        self._when = when
        self._armed += 1
        loop.call_at(when, self._fire, loop, self._armed)

    def _fire(self, loop: asyncio.AbstractEventLoop, generation: int) -> None:
        if generation != self._armed:
            return  # superseded by an earlier deadline
        # The loop runs a timer up to its clock resolution early: what it was armed for is due.
        limit = max(loop.time(), self._when)
        self._when = math.inf
        due = [d for d in self._live if d.when <= limit]
        for d in due:
            del self._live[d]
            d._expire()
        if self._live:
            self._arm(min(d.when for d in self._live), loop)


_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Deadlines] = (
    weakref.WeakKeyDictionary())
# The loop of the last lookup: nearly every lookup is for the same loop as the one before.
_last: tuple[weakref.ref[asyncio.AbstractEventLoop], Deadlines] | None = None


def deadlines_of(loop: asyncio.AbstractEventLoop) -> Deadlines:
    """The :class:`Deadlines` of ``loop`` (made on first use, gone with the loop)."""
    global _last
    last = _last
    if last is not None and last[0]() is loop:
        return last[1]
    owner = _by_loop.get(loop)
    if owner is None:
        owner = _by_loop[loop] = Deadlines()
    _last = (weakref.ref(loop), owner)
    return owner


def deadline(seconds: float) -> Deadline:
    """``with deadline(s): await …`` — :class:`TimeoutError` if the block takes longer."""
    return Deadline(seconds)
