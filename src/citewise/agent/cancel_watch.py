"""What other processes ask of this process's runs, read for all of them at once.

A run this process drives can be cancelled from another one (:func:`~citewise.agent.
interrupts.cancel_run` writes a request into the store's settings), and it must keep its
lease (:mod:`citewise.agent.lease`) or another process would end it as lost. Polling the
store for each run cost one read per run per interval: a thousand concurrent runs made
five thousand reads a second on the event loop. A :class:`CancelWatch` serves every run
of one agent on one event loop: per interval one query for the cancel requests (one read
per run on a store that is not SQL) and one ``touch_runs`` for the leases that are due.
Its task runs while there are runs to watch and stops with the last of them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citewise.store.base import Store

__all__ = ["CancelWatch"]

log = logging.getLogger("citewise.agent")

# Requests are looked for from a little before the oldest watched run began: they are
# stamped by the requesting process's clock.
_CLOCK_SLACK = timedelta(minutes=5)


@dataclass(slots=True)
class _Watched:
    flag: asyncio.Event
    key: str
    since: datetime
    touched: float


class CancelWatch:
    """Sets a run's cancel flag when another process asks, and keeps the runs' leases."""

    def __init__(self, store: Store, interval: float) -> None:
        self.store = store
        self.interval = interval
        self._runs: dict[tuple[str, str], _Watched] = {}
        self._task: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._runs)

    def watch(self, tenant: str, run_id: str, flag: asyncio.Event) -> None:
        """Watch a run (on the running event loop) until :meth:`unwatch`."""
        from citewise.store.base import cancel_key

        self._runs[(tenant, run_id)] = _Watched(
            flag, cancel_key(tenant, run_id), datetime.now(UTC), time.monotonic())
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._poll())

    def unwatch(self, tenant: str, run_id: str) -> None:
        self._runs.pop((tenant, run_id), None)

    async def _poll(self) -> None:
        from citewise.agent import lease

        try:
            while True:
                await asyncio.sleep(self.interval)
                if not self._runs:
                    return  # (no await since the check: a run watched now starts a new task)
                try:
                    self._cancel_requested()
                except Exception:  # a busy database: the next interval asks again
                    log.warning("could not read cancel requests", exc_info=True)
                due = [run for run, w in self._runs.items()
                       if time.monotonic() - w.touched >= lease.HEARTBEAT_S]
                if due:
                    try:
                        self.store.touch_runs(due)
                    except Exception:  # the next beat tries again, well within the lease
                        log.warning("could not renew the lease of %d run(s)", len(due),
                                    exc_info=True)
                        continue
                    now = time.monotonic()
                    for run in due:
                        if (w := self._runs.get(run)) is not None:
                            w.touched = now
        finally:
            self._task = None

    def _cancel_requested(self) -> None:
        from citewise.agent.cancels import cancel_requests

        waiting = [w for w in self._runs.values() if not w.flag.is_set()]
        if not waiting:
            return
        since = min(w.since for w in waiting) - _CLOCK_SLACK
        requested = cancel_requests(self.store, since)
        for w in waiting:
            if w.key in requested if requested is not None else self.store.get_setting(w.key):
                w.flag.set()
