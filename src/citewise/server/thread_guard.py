"""Starts and deletes of one thread, kept apart within this process.

Starting a run on a thread reads the thread, then registers the run; deleting a thread
checks that no run of it is live, then deletes. Interleaved, the run wrote the deleted
thread back (with no earlier turns). So a start claims its thread until its run is live,
and a delete claims the thread until it is gone: whichever comes second is refused with
``thread_busy``. Processes sharing a database do not see each other's claims; there the
store refuses to delete a thread while a run of it is running (``Store.delete_thread``),
and a start that read the thread just before another process deleted it runs on the
thread created anew.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from citewise.errors import UsageError

__all__ = ["ThreadGuard"]

Key = tuple[str, str]


def _busy(thread_id: str, why: str) -> UsageError:
    return UsageError(why, code="thread_busy", details={"thread_id": thread_id})


class ThreadGuard:
    def __init__(self) -> None:
        self._starting: Counter[Key] = Counter()
        self._deleting: set[Key] = set()

    @contextmanager
    def starting(self, tenant: str, thread_id: str) -> Iterator[None]:
        """Held while a run on the thread is being started (until it is live)."""
        key = (tenant, thread_id)
        if key in self._deleting:
            raise _busy(thread_id, "the thread is being deleted")
        self._starting[key] += 1
        try:
            yield
        finally:
            self._starting[key] -= 1
            if not self._starting[key]:
                del self._starting[key]

    @contextmanager
    def deleting(self, tenant: str, thread_id: str, *, live_run: bool) -> Iterator[None]:
        """Held while the thread is deleted; ``live_run``: a run of it is in progress."""
        key = (tenant, thread_id)
        if live_run or key in self._starting or key in self._deleting:
            raise _busy(thread_id, "a run of this thread is in progress; cancel it first")
        self._deleting.add(key)
        try:
            yield
        finally:
            self._deleting.discard(key)
