"""Group commit: the store writes of every run on one event loop, one transaction a tick.

A run writes twice (its record and thread when it starts; its events, outcome and turn
when it ends), and each write was its own transaction, committed on the event loop:
~0.7 ms a commit on SQLite here, most of it writing the same B-tree pages again (the last
leaf of ``events``, of ``runs`` and their indexes). With a thousand concurrent runs those
commits were the largest item of the profile.

A :class:`GroupCommit` queues the writes runs hand it and commits everything queued
during one pass of the event loop in ONE transaction, then wakes the runs that wait on
it. A run still waits for its write to be durable before it goes on (before its first
event; before its terminal event reaches the caller): the guarantee is unchanged, only
the commits are shared.

Each write is a callable that does its own ``store.transaction()``; inside the batch that
joins the batch's transaction, and when a batch fails it is retried one write at a time
in its own, so a bad write fails alone and the others still commit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citewise.store.base import Store

__all__ = ["GroupCommit"]

log = logging.getLogger("citewise.agent")

Write = Callable[[], object]


class GroupCommit:
    """Commits the writes queued on one event loop together (see the module docstring)."""

    __slots__ = ("_queue", "commits", "store")

    # It keeps no reference to its loop: an agent holds one per loop, weakly keyed, and a
    # loop that ended must be free to go.
    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: list[tuple[Write, asyncio.Future[None]]] = []
        #: Transactions committed so far (batches, and single writes retried alone).
        self.commits = 0

    def write(self, fn: Write) -> asyncio.Future[None]:
        """Queue ``fn`` (on the running loop); the future is done once it has committed
        (or has failed)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        if not self._queue:
            # After the callbacks already due: the writes of every run that gets to
            # this point in the same pass of the loop share the commit.
            loop.call_soon(self._flush)
        self._queue.append((fn, fut))
        return fut

    def _flush(self) -> None:
        batch, self._queue = self._queue, []
        if len(batch) == 1:
            self._alone(*batch[0])
            return
        try:
            with self.store.transaction():
                for fn, _ in batch:
                    fn()
        except Exception:
            log.debug("a group commit of %d writes failed; retrying one by one", len(batch),
                      exc_info=True)
            for fn, fut in batch:
                self._alone(fn, fut)
            return
        self.commits += 1
        for _, fut in batch:
            if not fut.done():
                fut.set_result(None)

    def _alone(self, fn: Write, fut: asyncio.Future[None]) -> None:
        try:
            with self.store.transaction():
                fn()
        except Exception as exc:
            if not fut.done():
                fut.set_exception(exc)
            return
        self.commits += 1
        if not fut.done():
            fut.set_result(None)
