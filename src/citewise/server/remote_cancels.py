"""Cancels other processes ask for, delivered to the runs this process drives.

Another process (a replica, the CLI) cancels a run it does not drive by writing a request
to the store (``agent.interrupts.cancel_run``). One watcher per manager reads them, one
query per interval, and cancels the live runs they name as a local cancel would: the
run's flag, then, after the grace period, its task (a run stuck in a tool). The server's
agents do not watch for themselves: a run's agent is its own, so each run had a task
waking every 0.2 s for as long as it lasted — most of a long run's CPU in the service
benchmark.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING

from citewise.agent.cancels import cancel_requests
from citewise.errors import CitewiseError
from citewise.server.live import LiveRun
from citewise.store.base import cancel_key

if TYPE_CHECKING:
    from citewise.server.manager import RunManager

__all__ = ["RemoteCancels"]

log = logging.getLogger("citewise.server")


class RemoteCancels:
    def __init__(self, manager: RunManager) -> None:
        self._manager = manager
        self._requests: set[str] = set()
        # In progress here (strong references: the loop keeps only weak ones to its tasks).
        self._pending: dict[str, asyncio.Task[str]] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._started = datetime.now(UTC)

    def watch(self) -> None:
        """Watch while this process drives runs (called as each run starts)."""
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        manager = self._manager
        interval = max(0.2, 2 * manager.config.poll_interval_s)
        while manager.active():
            await asyncio.sleep(interval)
            asked = datetime.now(UTC)
            try:
                keys = await asyncio.to_thread(cancel_requests, manager.store,
                                               self._started - timedelta(minutes=5))
            except Exception:
                log.exception("could not read cancel requests")
                continue
            self._requests = keys if keys is not None else set()
            if self._requests:
                self._deliver(asked)

    def _deliver(self, asked: datetime) -> None:
        """Only runs driven here since before the query (``asked``): a resume withdraws an
        earlier request, maybe after the query read it."""
        for live in self._manager.active():
            if (live.created_at < asked and live.run_id not in self._pending
                    and cancel_key(live.tenant, live.run_id) in self._requests):
                task = asyncio.create_task(self._cancel(live))
                self._pending[live.run_id] = task
                task.add_done_callback(partial(self._done, live.run_id))

    async def _cancel(self, live: LiveRun) -> str:
        # The run may have ended or paused since the watcher saw it: this path cancels only
        # a run still driven here (the requesting process handles the rest itself).
        manager = self._manager
        if manager.get_live(live.tenant, live.run_id) is not live or live.done:
            return live.status
        return await manager.cancel(live.tenant, live.run_id)

    def _done(self, run_id: str, task: asyncio.Task[str]) -> None:
        self._pending.pop(run_id, None)
        exc = None if task.cancelled() else task.exception()
        if isinstance(exc, CitewiseError):  # e.g. it ended meanwhile: nothing to cancel
            log.debug("cancel of run %s asked by another process: %s", run_id, exc)
        elif exc is not None:
            log.error("could not cancel run %s", run_id, exc_info=exc)

    async def close(self) -> None:
        """Stop watching, and the cancels in progress."""
        if self._watcher is not None:
            self._watcher.cancel()
        pending = list(self._pending.values())
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
