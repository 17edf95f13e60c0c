"""Keeps this process's runs leased, and ends the runs of processes that died.

One task per server process (see :mod:`citewise.agent.lease`): every ``run_lease_s / 6``
it renews the lease of every run this process executes — one statement, queued on the log
writer like every other write — and every ``run_lease_s / 2`` (and once at start-up) it
ends the runs, of any replica sharing the database, whose lease ran out. Every
``REPLAY_EVERY_S`` it also replays the index work a dead writer left (an ingest killed
mid-way, a replica gone): a write syncs only its own documents, and a server never
reopens its knowledge base, which is where that work is otherwise done.
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

__all__ = ["REPLAY_EVERY_S", "keep_leases"]

log = logging.getLogger("citewise.server")

#: How often a server replays a dead writer's index work (the open did it at start-up).
REPLAY_EVERY_S = 300.0


async def keep_leases(manager: RunManager) -> None:
    """Run until cancelled."""
    lease = manager.config.run_lease_s
    beat, sweep_every = lease / 6, lease / 2
    swept = -float("inf")
    replayed = time.monotonic()
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
        if time.monotonic() - replayed >= REPLAY_EVERY_S:
            replayed = time.monotonic()
            kb = manager.services.kb(manager.config.default_tenant)
            try:
                synced = await asyncio.to_thread(kb.replay_leftovers)
            except Exception:
                log.exception("could not replay index work left by a dead writer")
            else:
                if synced:
                    log.warning("replayed the index work a dead writer left: %d documents",
                                synced)
        await asyncio.sleep(beat)
