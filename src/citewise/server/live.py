"""A run as this process holds it while it goes on: its durable events, in memory.

:class:`Frame` is one event made durable (serialized once, shared by every reader);
:class:`LiveRun` holds the frames published so far and wakes the readers waiting for more.
"""

from __future__ import annotations

import asyncio
import bisect
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.events import TERMINAL_KINDS, Event

if TYPE_CHECKING:
    from citewise.agent.runner import Agent
    from citewise.store.base import EventRecord

__all__ = ["Frame", "LiveRun", "flatten"]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Frame:
    """One durable event, serialized once: ``data`` is the event's JSON."""

    seq: int
    kind: str
    data: str

    @property
    def terminal(self) -> bool:
        return self.kind in TERMINAL_KINDS

    @classmethod
    def of_record(cls, record: EventRecord) -> Frame:
        return cls(record.seq, record.kind, _dumps(record.data))


class LiveRun:
    """A run driven by this process, with the durable events published so far."""

    def __init__(self, tenant: str, run_id: str, thread_id: str, question: str,
                 agent: Agent, *, first_seq: int) -> None:
        self.tenant = tenant
        self.run_id = run_id
        self.thread_id = thread_id
        self.question = question
        self.agent = agent
        self.first_seq = first_seq  # earlier events of the run are in the store only
        self.frames: list[Frame] = []
        self.created_at = datetime.now(UTC)
        self.updated_at: datetime | None = None  # when its last event became durable
        self.last_seq = first_seq - 1  # produced (maybe not yet durable)
        self.produced_terminal = False
        self.stop_code: str | None = None
        self.done = False
        self.broken = False
        self.terminal: Event | None = None
        self.task: asyncio.Task[None] | None = None
        self.finished: asyncio.Future[Event | None] = asyncio.get_running_loop().create_future()
        self._changed = asyncio.Event()

    @property
    def status(self) -> str:
        if not self.done:
            return "running"
        t = self.terminal
        if t is None:
            return "failed"
        if t.kind == "run_finished":
            return "completed"
        if t.kind == "run_paused":
            return "paused"
        answer = getattr(t, "answer", None)
        if answer is not None:
            return str(answer.status)
        return "cancelled" if getattr(t, "code", "") == "run_cancelled" else "failed"

    @property
    def published_seq(self) -> int:
        return self.frames[-1].seq if self.frames else self.first_seq - 1

    def deliver(self, frame: Frame, event: Event, ok: bool) -> None:
        """Called on the loop once ``frame`` is durable (``ok``) or its write failed."""
        if self.done:
            return
        if not ok:
            # Its log cannot be written: stop the run (its tools too) rather than let it
            # go on unrecorded; another replica's lease sweep ends its log (run_lost).
            self.broken = True
            self.end(None)
            if self.task is not None:
                self.task.cancel()
            return
        self.frames.append(frame)
        self.updated_at = event.ts
        if event.is_terminal:
            self.terminal = event
            self.end(event)
        else:
            self._wake()

    async def durable(self) -> None:
        """Wait until the run's first event is durable (so the run is in the store), or the
        run ended without one."""
        while not self.frames and not self.done:
            await self.wait(1.0)

    def end(self, terminal: Event | None) -> None:
        self.done = True
        if not self.finished.done():
            self.finished.set_result(terminal)
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def index_after(self, seq: int) -> int:
        return bisect.bisect_right(self.frames, seq, key=lambda f: f.seq)

    async def wait(self, within: float) -> bool:
        """Wait up to ``within`` seconds for a new frame (or the end); False if none came."""
        changed = self._changed
        try:
            async with asyncio.timeout(within):
                await changed.wait()
        except TimeoutError:
            return False
        return True


async def flatten(batches: AsyncIterator[list[Frame] | None]) -> AsyncIterator[Frame | None]:
    """One frame at a time (``None`` still meaning "send a heartbeat")."""
    async for batch in batches:
        if batch is None:
            yield None
        else:
            for frame in batch:
                yield frame
