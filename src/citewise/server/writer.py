"""Group commit for the durable event log, off the event loop.

Why: one SQLite write transaction costs ~0.5-1 ms here, so a write per event *on the
event loop* caps a process at a few hundred events per second and stalls every stream
while it waits. Instead, runs hand their writes to one writer thread which, on each tick,
takes everything queued and commits it in as few transactions as possible (consecutive
event appends of a tenant become ONE ``append_events`` call: ~30 µs per event in a batch
of 1,000). Order is kept: operations execute in the order they were queued.

Publication rides the same queue: a :class:`Publish` queued after an event's append is
delivered to the event loop only once everything before it has committed. That is the
guarantee the SSE layer relies on: a client is never sent an event that is not durable.

A database that cannot be reached (a restart, a failover) holds the queue: the tick is
tried again until it commits or ``OUTAGE_S`` has passed, so a short outage delays events
and loses none. After that, its runs fail; a run whose write failed gets no more writes
(its process stops it, and another replica's lease sweep ends its log with ``run_lost``:
nothing may follow that).

Run fencing (:mod:`citewise.store._run_fence`) lands here the same way: the events of a run
this process no longer owns are refused by the store, and a write of its record raises
``run_not_owned``; either marks the run failed, so its events are never published and its
process stops it (``LiveRun.deliver``), and nothing else of it is written.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citewise.errors import CitewiseError, NotFound
from citewise.store._sql import database_down
from citewise.store.base import NOT_OWNED

if TYPE_CHECKING:
    from citewise.store.base import EventRecord, Store

__all__ = ["OUTAGE_S", "Append", "Call", "LogWriter", "Publish"]

log = logging.getLogger("citewise.server")

#: How long the writer keeps trying a database that cannot be reached before its runs fail
#: (well inside the 120 s run lease, so no other replica takes their runs meanwhile).
OUTAGE_S = 60.0


@dataclass(slots=True)
class Append:
    tenant: str
    records: list[EventRecord]
    #: The fencing token of each run whose events these are (store._run_fence).
    owners: dict[str, str] | None = None


@dataclass(slots=True)
class Call:
    """Any other store write, by method name (``save_run``, ``add_turn``…)."""

    name: str
    args: tuple[Any, ...] = ()
    run_id: str | None = None
    options: dict[str, Any] | None = None  # keyword arguments


@dataclass(slots=True)
class Publish:
    """Runs ``deliver(ok)`` on the event loop once every earlier write has committed;
    ``ok`` is False if a write of ``run_id`` failed (its events must not be sent)."""

    run_id: str
    deliver: Callable[[bool], None]


@dataclass
class _Stats:
    ticks: int = 0
    events: int = 0
    transactions: int = 0
    failures: int = 0
    max_batch: int = 0
    failed_runs: set[str] = field(default_factory=set)


Op = Append | Call | Publish
#: One write of a tick: method name, arguments, the runs it writes, keyword arguments.
_Write = tuple[str, tuple[Any, ...], set[str], dict[str, Any]]


class LogWriter:
    """One thread committing queued store writes in order, in batches."""

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop) -> None:
        self.store = store
        self.loop = loop
        self._ops: deque[Op] = deque()
        self._cond = threading.Condition()
        self._stopping = False
        self._idle = threading.Event()
        self._idle.set()
        self.stats = _Stats()
        self._thread = threading.Thread(target=self._main, name="citewise-log-writer",
                                        daemon=True)
        self._thread.start()

    @property
    def backlog(self) -> int:
        return len(self._ops)

    def submit(self, op: Op) -> None:
        with self._cond:
            self._ops.append(op)
            self._idle.clear()
            self._cond.notify()

    def submit_many(self, ops: Sequence[Op]) -> None:
        with self._cond:
            self._ops.extend(ops)
            self._idle.clear()
            self._cond.notify()

    async def barrier(self, run_id: str = "") -> bool:
        """Wait until everything queued so far has committed (False: a write of ``run_id``
        failed or was refused)."""
        fut: asyncio.Future[bool] = self.loop.create_future()

        def deliver(ok: bool) -> None:
            if not fut.done():
                fut.set_result(ok)

        self.submit(Publish(run_id=run_id, deliver=deliver))
        return await fut

    def forget(self, run_id: str) -> None:
        """Drop the failure mark of a run that is gone."""
        self.stats.failed_runs.discard(run_id)

    def close(self, timeout: float = 10.0) -> None:
        """Commit what is queued, then stop the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._thread.join(timeout)

    # -- the thread ---------------------------------------------------------------------

    def _main(self) -> None:
        while True:
            with self._cond:
                while not self._ops and not self._stopping:
                    self._idle.set()
                    self._cond.wait()
                if not self._ops and self._stopping:
                    self._idle.set()
                    return
                batch = list(self._ops)
                self._ops.clear()
            self._tick(batch)

    def _tick(self, batch: list[Op]) -> None:
        stats = self.stats
        stats.ticks += 1
        stats.max_batch = max(stats.max_batch, len(batch))
        failed: set[str] = set()
        publishes: list[Publish] = []
        # Writes in order; consecutive event appends of a tenant become one call.
        writes: list[_Write] = []
        for op in batch:
            if isinstance(op, Append) and stats.failed_runs:
                op = Append(op.tenant, [r for r in op.records
                                        if r.run_id not in stats.failed_runs], op.owners)
                if not op.records:
                    continue
            elif isinstance(op, Call) and op.run_id in stats.failed_runs:
                continue
            if isinstance(op, Append):
                last = writes[-1] if writes else None
                if last is not None and last[0] == "append_events" and last[1][0] == op.tenant:
                    last[1][1].extend(op.records)
                    if op.owners:
                        last[1][2].update(op.owners)
                    last[2].update(r.run_id for r in op.records)
                else:
                    writes.append(("append_events", (op.tenant, list(op.records),
                                                     dict(op.owners or {})),
                                   {r.run_id for r in op.records}, {}))
            elif isinstance(op, Call):
                writes.append((op.name, op.args, {op.run_id} if op.run_id else set(),
                               op.options or {}))
            else:
                publishes.append(op)
        self._write(writes, failed)
        stats.failed_runs |= failed
        if publishes:
            results = [(p.deliver, p.run_id not in stats.failed_runs) for p in publishes]
            try:
                self.loop.call_soon_threadsafe(_deliver_all, results)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                pass

    def _write(self, writes: list[_Write], failed: set[str]) -> None:
        """All writes of the tick in one transaction; if it fails, once more call by call,
        so that a bad write fails alone (and only its runs are reported failed)."""
        stats = self.stats
        since: float | None = None
        while True:
            refused: set[str] = set()
            try:
                with self.store.transaction():
                    for name, args, _, options in writes:
                        refused |= self._apply(name, args, options)
                stats.transactions += 1
                self._refused(refused, failed)
                stats.events += sum(len(w[1][1]) for w in writes if w[0] == "append_events")
                if since is not None:
                    log.warning("log writer: the database is back after %.1f s",
                                time.monotonic() - since)
                return
            except Exception as exc:
                if database_down(exc) and not self._stopping:
                    now = time.monotonic()
                    if since is None:
                        since = now
                        log.warning("log writer: the database is unreachable (%s); "
                                    "holding %d writes", str(getattr(exc, "orig", exc))
                                    .strip()[:200], len(writes))
                    if now - since < OUTAGE_S:
                        time.sleep(min(1.0, 0.1 * 2 ** min(int(now - since), 4)))
                        continue
                log.warning("batched write of %d operations failed; retrying one by one",
                            len(writes), exc_info=True)
                break
        for name, args, run_ids, options in writes:
            if run_ids and run_ids <= failed:
                continue  # a run refused (or failed) earlier in this tick: nothing more of it
            if name == "append_events" and failed:
                args = (args[0], [r for r in args[1] if r.run_id not in failed], args[2])
            try:
                self._refused(self._apply(name, args, options), failed)
                stats.transactions += 1
                if name == "append_events":
                    stats.events += len(args[1])
            except Exception as exc:
                if name == "add_turn" and isinstance(exc, NotFound):
                    # The thread was deleted while its run ran: no turn to keep, no failure.
                    log.info("log writer: %s", exc.message)
                    continue
                if isinstance(exc, CitewiseError) and exc.code == NOT_OWNED:
                    log.warning("log writer: %s", exc.message)
                else:
                    log.exception("log writer: %s failed", name)
                stats.failures += 1
                failed |= run_ids

    def _apply(self, name: str, args: tuple[Any, ...], options: dict[str, Any]) -> set[str]:
        """Make one write; the runs whose events the store refused (fencing)."""
        if name == "append_events":
            tenant, records, owners = args
            if not records:
                return set()
            return set(self.store.append_events(tenant, records, owners=owners or None) or ())
        getattr(self.store, name)(*args, **options)
        return set()

    def _refused(self, refused: set[str], failed: set[str]) -> None:
        for run_id in sorted(refused - failed):
            log.warning("log writer: run %s is no longer this process's (its lease ran out "
                        "and another process ended it): its events are dropped", run_id)
        failed |= refused


def _deliver_all(results: list[tuple[Callable[[bool], None], bool]]) -> None:
    for deliver, ok in results:
        try:
            deliver(ok)
        except Exception:
            log.exception("delivering a published event failed")
