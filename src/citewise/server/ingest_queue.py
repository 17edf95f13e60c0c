"""Document work (uploads, deletes) on threads of its own, scheduled fairly across tenants.

Why (issue 25): an upload is parsed, chunked, stored and embedded — seconds to minutes for
a large file — and ran on the event loop's default executor, the same few threads
(``min(32, cpus + 4)``) every other blocking call of the service uses: loading a thread,
reading a run, a search, the lease sweep. A tenant sending a handful of large files at
once held all of them, and every tenant's requests waited behind its ingest.

:class:`DocumentJobs` runs that work on ``workers`` threads of its own, never the default
executor, and chooses what runs next:

* each tenant has its own queue (first come, first served inside it), and tenants take
  turns (round robin): a tenant with fifty queued uploads delays another's one upload by
  at most the jobs already running;
* a tenant runs at most ``per_tenant`` jobs at once, and large jobs (``big``: an upload
  over ``BIG_BYTES``, a delete) occupy at most ``workers - 1`` threads in all: there is
  always a thread for a small job, whoever keeps the others busy.

What this cannot do alone: a large job holds the knowledge base's internal locks while it
embeds (``DenseIndex.sync_documents`` keeps its sync lock for the whole document), so a
small job of another tenant that reaches that lock still waits for it — the lock must be
given up between slices in ``citewise.knowledge`` for the bound to hold end to end.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["BIG_BYTES", "DocumentJobs"]

log = logging.getLogger("citewise.server")

T = TypeVar("T")

#: An upload larger than this is a large job.
BIG_BYTES = 1 << 20


@dataclass(slots=True)
class _Job:
    tenant: str
    fn: Callable[[], Any]
    big: bool
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any] = field(repr=False)


class DocumentJobs:
    """A fair, bounded pool for document work (see the module docstring)."""

    def __init__(self, workers: int = 3, *, per_tenant: int = 2) -> None:
        self.workers = max(2, workers)
        self.per_tenant = max(1, min(per_tenant, self.workers - 1))
        self._queues: OrderedDict[str, deque[_Job]] = OrderedDict()  # turn order
        self._running: dict[str, int] = {}
        self._big_running = 0
        self._cond = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"citewise-documents-{i}",
                                          daemon=True) for i in range(self.workers)]
        for t in self._threads:
            t.start()

    async def run(self, tenant: str, fn: Callable[[], T], *, big: bool = False) -> T:
        """Run ``fn`` on a worker thread in ``tenant``'s turn; its result (or exception).
        A caller that stops waiting before the job started takes it out of the queue."""
        loop = asyncio.get_running_loop()
        job = _Job(tenant, fn, big, loop, loop.create_future())
        with self._cond:
            if self._closed:
                raise RuntimeError("the document job pool is closed")
            self._queues.setdefault(tenant, deque()).append(job)
            self._cond.notify()
        result: T = await job.future
        return result

    def queued(self, tenant: str | None = None) -> int:
        with self._cond:
            return sum(len(q) for t, q in self._queues.items() if tenant in (None, t))

    def close(self, timeout: float = 30.0) -> None:
        """Let the running jobs finish; the queued ones are cancelled."""
        with self._cond:
            self._closed = True
            for queue in self._queues.values():
                for job in queue:
                    job.loop.call_soon_threadsafe(_cancel, job.future)
            self._queues.clear()
            self._cond.notify_all()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

    # -- the workers ----------------------------------------------------------------------

    def _next(self) -> _Job | None:
        """The next job that may start (its tenant's turn), taken off its queue; under
        ``_cond``."""
        for tenant in list(self._queues):
            queue = self._queues[tenant]
            while queue and queue[0].future.cancelled():
                queue.popleft()  # its caller stopped waiting
            if not queue:
                del self._queues[tenant]
                continue
            if self._running.get(tenant, 0) >= self.per_tenant:
                continue
            if queue[0].big and self._big_running >= self.workers - 1:
                continue
            job = queue.popleft()
            self._queues.move_to_end(tenant)  # its turn is over: the others go first
            if not queue:
                del self._queues[tenant]
            return job
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                while (job := self._next()) is None:
                    if self._closed:
                        return
                    self._cond.wait()
                self._running[job.tenant] = self._running.get(job.tenant, 0) + 1
                self._big_running += job.big
            try:
                outcome: tuple[bool, Any] = (True, job.fn())
            except BaseException as exc:  # handed to the awaiting request
                outcome = (False, exc)
            finally:
                with self._cond:
                    left = self._running[job.tenant] - 1
                    if left:
                        self._running[job.tenant] = left
                    else:
                        del self._running[job.tenant]
                    self._big_running -= job.big
                    self._cond.notify_all()
            try:
                job.loop.call_soon_threadsafe(_settle, job.future, outcome)
            except RuntimeError:  # the loop is gone: nobody is waiting any more
                log.debug("a document job finished after its event loop closed")


def _settle(future: asyncio.Future[Any], outcome: tuple[bool, Any]) -> None:
    if future.done():
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def _cancel(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.cancel()
