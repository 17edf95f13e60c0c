"""Run leases: a run whose process died does not stay ``running`` for ever.

A process that executes runs keeps them marked as alive: every ``HEARTBEAT_S`` it touches
their record (``Store.touch_runs`` sets ``updated_at``). The library agent does it from the
watch that also reads cancel requests (``agent.cancel_watch``: one statement per interval
for all its runs on an event loop); the HTTP service does it for all its runs in one
statement. A run still ``running`` whose record was not
updated for ``LEASE_S`` has lost its process (killed, crashed, its machine gone):
:func:`end_lost_runs` ends it the way a run ends — a terminal ``error`` event (code
``run_lost``) after its last event and status ``failed`` — so readers tailing its log,
in any process, stop waiting. The status move is conditional on the record still being
stale, in the same transaction as the event: a run that reported in meanwhile is left
alone, and two processes sweeping at once end a run once.

A process that was alive but stalled for longer than the lease (its event loop blocked
for minutes, SIGSTOP) loses its runs too; ``LEASE_S`` is generous for that reason. The
sweep takes such a run over before ending it — its own fencing token becomes the run's
owner, in the transaction that writes the ``run_lost`` event — so whatever the stalled
process tries to write of it once it wakes is refused (:mod:`citewise.store._run_fence`).
"""

from __future__ import annotations

import os
from collections.abc import Container
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from citewise.store.base import LEASE_S  # the store decides with it which runs are live

if TYPE_CHECKING:
    from citewise.store.base import RunRecord, Store

__all__ = ["HEARTBEAT_S", "LEASE_S", "LOST_CODE", "end_lost_runs", "last_seq"]

#: How often a process touches the runs it executes.
HEARTBEAT_S = 10.0
LOST_CODE = "run_lost"
_PAGE = 1000


def last_seq(store: Store, tenant: str, run_id: str) -> int:
    """The ``seq`` of the run's last stored event (0 when it has none)."""
    seq = 0
    while True:
        page = store.read_events(tenant, run_id, after=seq, limit=_PAGE)
        if not page:
            return seq
        seq = page[-1].seq
        if len(page) < _PAGE:
            return seq


def end_lost_runs(store: Store, *, lease_s: float = LEASE_S, now: datetime | None = None,
                  limit: int = 100, skip: Container[str] = ()) -> list[str]:
    """End every run (of any tenant) still ``running`` but untouched for ``lease_s``
    (except those in ``skip``: the caller's own); returns their ids. Idempotent, and safe
    to run from several processes at once."""
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=lease_s)
    ended: list[str] = []
    for record in store.stale_runs(cutoff, limit=limit):
        if record.id not in skip and _end(store, record, cutoff, lease_s):
            ended.append(record.id)
    return ended


def _end(store: Store, record: RunRecord, cutoff: datetime, lease_s: float) -> bool:
    from dataclasses import replace

    from citewise.answer import Answer, ErrorInfo
    from citewise.events import ErrorEvent
    from citewise.store.base import EventRecord, JSONText

    message = (f"the process running it stopped reporting in for {lease_s:g} s "
               "(it was killed or crashed)")
    details = {"last_update": record.updated_at.isoformat()}
    answer = Answer(run_id=record.id, thread_id=record.thread_id, question=record.question,
                    status="failed",
                    error=ErrorInfo(code=LOST_CODE, message=message, details=details))
    sweep = f"lost_{os.urandom(10).hex()}"
    with store.transaction():
        # Taken over (still running, now owned by this sweep), only if still stale: the
        # row is locked from here to the commit, so the stalled owner's writes wait, then
        # find the run is not theirs.
        if not store.transition_run(record.tenant, record.id, ("running",), "running",
                                    untouched_since=cutoff, new_owner=sweep):
            return False  # it reported in (or ended) meanwhile, or another sweep took it
        seq = last_seq(store, record.tenant, record.id) + 1
        event = ErrorEvent(run_id=record.id, thread_id=record.thread_id, seq=seq,
                           code=LOST_CODE, message=message, details=details, answer=answer)
        if store.append_events(record.tenant, [EventRecord(
                run_id=record.id, seq=seq, kind=event.kind,
                data=JSONText(event.model_dump_json()))], owners={record.id: sweep}):
            raise RuntimeError(f"run {record.id}: the lost-run event was refused")
        store.save_run(replace(record, status="failed", answer=JSONText(answer.model_dump_json()),
                               updated_at=datetime.now(UTC), owner=sweep))
    return True
