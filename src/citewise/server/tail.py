"""Following a run's log: from memory while this process drives it, else from the store.

A reader continues from a ``seq``, so a reconnect with ``Last-Event-ID`` gets every later
event exactly once, and a finished run replays in full.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from citewise.server.live import Frame
from citewise.store._sql import database_down

if TYPE_CHECKING:
    from citewise.server.manager import RunManager

__all__ = ["OUTAGE_S", "tail"]

_PAGE = 500
#: How long a tail waits for an unreachable database before it ends its stream.
OUTAGE_S = 30.0
log = logging.getLogger("citewise.server")


async def tail(manager: RunManager, tenant: str, run_id: str,
               after: int) -> AsyncIterator[list[Frame] | None]:
    """The frames of a run after ``after`` as they become durable, in batches; ``None``
    when a heartbeat is due. Ends after the terminal event (or when the run is gone)."""
    beat = manager.config.heartbeat_s
    last_out = time.monotonic()
    outage_since: float | None = None
    last_terminal = False
    empty_polls = 0
    while True:
        live = manager.get_live(tenant, run_id)
        if live is not None and after + 1 >= live.first_seq:
            i = live.index_after(after)
            if i < len(live.frames):
                batch = live.frames[i:]
                after = batch[-1].seq
                yield batch
                last_out = time.monotonic()
                continue
            if live.done:
                if live.broken and not await _ended_elsewhere(manager, tenant, run_id):
                    return  # its log could not be written: nothing more will be sent
                # Ended here; anything later (a resume on another replica) is in the store,
                # as is the end of a run stopped here because it was no longer this
                # process's to write (another replica ended it run_lost: store._run_fence).
                last_terminal = last_terminal or (
                    bool(live.frames) and live.frames[-1].terminal)
                live = None
            else:
                wait = max(0.0, beat - (time.monotonic() - last_out))
                if not await live.wait(wait):
                    yield None
                    last_out = time.monotonic()
                continue
        # From the store: a run of another process, a finished run, or the part of a
        # live run before this process took it over (a resume).
        upto = live.first_seq - 1 if live is not None else None
        try:
            rows = await asyncio.to_thread(manager.store.read_events, tenant, run_id,
                                           after=after, limit=_PAGE)
        except Exception as exc:
            if not database_down(exc):
                raise
            # The database went away (a restart): keep the stream alive with heartbeats
            # while it may come back; after OUTAGE_S end it cleanly, and the client's
            # reconnect (Last-Event-ID) resumes it exactly where it stopped.
            outage_since = outage_since or time.monotonic()
            if time.monotonic() - outage_since >= OUTAGE_S:
                log.warning("ending the tail of run %s: the database is unreachable (%s)",
                            run_id, str(getattr(exc, "orig", exc)).strip()[:200])
                return
            yield None
            last_out = time.monotonic()
            await asyncio.sleep(min(1.0, OUTAGE_S))
            continue
        outage_since = None
        if upto is not None:
            rows = [r for r in rows if r.seq <= upto]
        if rows:
            frames = [Frame.of_record(r) for r in rows]
            after = frames[-1].seq
            last_terminal = frames[-1].terminal
            yield frames
            last_out = time.monotonic()
            empty_polls = 0
            if last_terminal or len(rows) == _PAGE or upto is not None:
                continue  # look again at once: more may follow a resume or a full page
        else:
            if upto is not None:
                after = max(after, upto)  # nothing more in the store before the live part
                continue
            if last_terminal:
                return
            empty_polls += 1
            if empty_polls % 20 == 0:
                try:
                    record = await manager.record(tenant, run_id)
                except Exception as exc:
                    if not database_down(exc):
                        raise
                else:
                    if record is None or record.status in ("completed", "failed",
                                                           "cancelled"):
                        return
        await asyncio.sleep(manager.config.poll_interval_s)
        if time.monotonic() - last_out >= beat:
            yield None
            last_out = time.monotonic()


async def _ended_elsewhere(manager: RunManager, tenant: str, run_id: str) -> bool:
    """Whether the store has the run ended (by the process that took it over)."""
    try:
        record = await manager.record(tenant, run_id)
    except Exception:
        return False
    return record is not None and record.status in ("completed", "failed", "cancelled")
