"""``WriterLock``: says "a process is writing this knowledge base" to the others.

Opening a knowledge base replays index work left pending in the outbox and embeds chunks
that have no vector: after a crash that repairs it. But an ingest in progress in another
process looks exactly like a crash's leftovers until it completes them, and a reader
(``citewise ask``) would then embed that ingest's chunks itself — minutes, for nothing.
So every write holds this lock, and an open that finds it held leaves the outbox to its
holder and searches what is indexed already.

An advisory ``flock`` on ``writer.lock`` in the data directory: the kernel releases it
when its process dies, so a crash never leaves it held, and the next open repairs. It is
re-entrant within its object (an ingest syncs the index under the same hold); two objects
on one folder exclude each other even inside one process. Where ``fcntl`` does not exist
(Windows) it holds nothing and every open repairs, as before.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

__all__ = ["LOCK_NAME", "WriteLock", "WriterLock"]

LOCK_NAME = "writer.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class WriteLock(Protocol):
    """What a knowledge base holds while it writes (this file lock embedded; advisory locks
    in the database on PostgreSQL: :class:`citewise.knowledge.postgres.DatabaseWriterLock`)."""

    def held(self) -> AbstractContextManager[None]: ...


class WriterLock:
    """An exclusive, re-entrant, process-wide write lock on one data directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._mutex = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        """Take the lock if no other process (or object) holds it; never waits."""
        return self._acquire(blocking=False)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block, waiting for another holder to finish first."""
        self._acquire(blocking=True)
        try:
            yield
        finally:
            self.release()

    def _acquire(self, *, blocking: bool) -> bool:
        if not self._mutex.acquire(blocking=blocking):
            return False
        if self._depth == 0 and fcntl is not None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                os.close(fd)
                self._mutex.release()
                return False
            except BaseException:
                os.close(fd)
                self._mutex.release()
                raise
            self._fd = fd
        self._depth += 1
        return True

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None
        self._mutex.release()
