"""Keeps this process's runs leased, and ends the runs of processes that died.

One task per server process (see :mod:`citewise.agent.lease`): every ``run_lease_s / 6``
it renews the lease of every run this process executes — one statement, queued on the log
writer like every other write — and every ``run_lease_s / 2`` (and once at start-up) it
ends the runs, of any replica sharing the database, whose lease ran out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from citewise.agent.lease import end_lost_runs
from citewise.server.writer import Call

if TYPE_CHECKING:
    from citewise.server.manager import RunManager

__all__ = ["keep_leases"]

log = logging.getLogger("citewise.server")


async def keep_leases(manager: RunManager) -> None:
    """Run until cancelled."""
    lease = manager.config.run_lease_s
    beat, sweep_every = lease / 6, lease / 2
    swept = -float("inf")
    while True:
        mine = [(r.tenant, r.run_id) for r in manager.live.values() if not r.done]
        if mine:
            manager.writer.submit(Call("touch_runs", (mine,)))
        if time.monotonic() - swept >= sweep_every:
            swept = time.monotonic()
            try:
                ended = await asyncio.to_thread(
                    end_lost_runs, manager.store, lease_s=lease, skip={r for _, r in mine})
            except Exception:
                log.exception("could not end lost runs")
            else:
                for run_id in ended:
                    log.warning("run %s lost its process: ended with run_lost", run_id)
        await asyncio.sleep(beat)
