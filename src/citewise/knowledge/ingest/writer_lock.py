"""``WriterLock``: says "a process is writing this knowledge base" to the others.

Opening a knowledge base replays index work left pending in the outbox and embeds chunks
that have no vector: after a crash that repairs it. But an ingest in progress in another
process looks exactly like a crash's leftovers until it completes them, and a reader
(``citewise ask``) would then embed that ingest's chunks itself — minutes, for nothing.

So writers hold this lock *shared* (any number of them, in any processes: it excludes
no writer), and an open repairs only if it gets it *exclusively* — then no writer is
alive and pending work is a crash's; otherwise it leaves the work to its writer and
searches what is indexed. An open never waits; a writer waits only while an open
repairs, at most ``wait_s`` (then :class:`~citewise.errors.Unavailable`, ``busy``).

An advisory ``flock`` on ``writer.lock`` in the data directory: the kernel releases it
when its process dies, so a crash never leaves it held. Inside a process the shared hold
is counted, so threads and nested writes (an ingest syncs its index) share one. Where
``fcntl`` does not exist (Windows) nothing is held and every open repairs, as before.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

from citewise.errors import Unavailable

__all__ = ["LOCK_NAME", "WAIT_S", "SharedHold", "WriteLock", "WriterLock"]

LOCK_NAME = "writer.lock"
#: How long a write waits for an open that is repairing the knowledge base.
WAIT_S = 60.0

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class WriteLock(Protocol):
    """What a knowledge base holds while it writes (this file lock embedded; advisory locks
    in the database on PostgreSQL: :class:`citewise.knowledge.postgres.DatabaseWriterLock`)."""

    def held(self) -> AbstractContextManager[None]: ...
    def try_acquire(self) -> bool:
        """Take it exclusively if no writer holds it, here or elsewhere; never waits."""
        ...
    def release(self) -> None: ...


class SharedHold:
    """One shared hold per process, counted across its threads and nested writes: taken
    by the first writer, given up by the last (:meth:`_take_shared` / :meth:`_drop_shared`
    say how)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._writers = 0
        self._shared: Any = None

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock shared for the block (with this process's other writers)."""
        with self._mutex:
            if self._writers == 0:
                self._shared = self._take_shared()
            self._writers += 1
        try:
            yield
        finally:
            with self._mutex:
                self._writers -= 1
                if self._writers == 0:
                    held, self._shared = self._shared, None
                    self._drop_shared(held)

    def _take_shared(self) -> Any:
        raise NotImplementedError

    def _drop_shared(self, held: Any) -> None:
        raise NotImplementedError


class WriterLock(SharedHold):
    """Writers share it; a repairing open takes it exclusively, or not at all."""

    def __init__(self, path: str | Path, *, wait_s: float | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.wait_s = WAIT_S if wait_s is None else wait_s
        self._exclusive_fd: int | None = None

    def _take_shared(self) -> int | None:
        return self._lock(shared=True)

    def _drop_shared(self, held: Any) -> None:
        self._unlock(held)

    def try_acquire(self) -> bool:
        """Take the lock exclusively if no writer holds it, here or elsewhere; never waits."""
        with self._mutex:
            if self._writers or self._exclusive_fd is not None:
                return False
            fd = self._lock(shared=False, wait=False)
            if fd is None and fcntl is not None:
                return False
            self._exclusive_fd = fd
            return True

    def release(self) -> None:
        """Give up the exclusive hold of :meth:`try_acquire`."""
        with self._mutex:
            self._unlock(self._exclusive_fd)
            self._exclusive_fd = None

    def _lock(self, *, shared: bool, wait: bool = True) -> int | None:
        if fcntl is None:
            return None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        mode = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
        deadline = time.monotonic() + (self.wait_s if wait else 0.0)
        delay = 0.01
        try:
            while True:
                try:
                    fcntl.flock(fd, mode)
                    return fd
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        break
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        if not wait:
            return None
        raise Unavailable(
            f"the knowledge base in {self.path.parent} is being repaired by another "
            f"process; tried for {self.wait_s:g} s",
            code="knowledge_base_busy", details={"path": str(self.path.parent)},
        )

    @staticmethod
    def _unlock(fd: int | None) -> None:
        if fd is not None:
            os.close(fd)  # closing the descriptor drops the flock
