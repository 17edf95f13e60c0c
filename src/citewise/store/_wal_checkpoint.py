"""Checkpoints of a SQLite WAL on a thread of their own, not in the writer's commits.

SQLite copies the write-ahead log back into the database file (a checkpoint, with an fsync
of the file under ``synchronous = NORMAL``) from inside the commit that takes the WAL past
``wal_autocheckpoint`` pages. The writer is the event loop's thread when an agent records
its runs, so every forty-odd runs one commit took several milliseconds: ≈ 1 ms per
sequential run on average here (a 1-call run with the store took 3.1–3.4 ms with automatic
checkpoints, 2.0–2.4 ms with this thread).

So the writer's connection turns automatic checkpoints off, and a :class:`WalCheckpointer`
runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own connection, at most every ``interval``
seconds while there were commits. A passive checkpoint never blocks the writer or readers;
what it cannot copy yet, the next one does. The thread starts with the first commit and
ends after a few idle intervals (or when the store closes), so a store nobody writes to
holds no thread. Closing the store's last connection checkpoints what is left, as before.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

__all__ = ["WalCheckpointer"]

log = logging.getLogger("citewise.store")

_IDLE_ROUNDS = 20  # idle intervals before the thread ends (it restarts with a commit)


class WalCheckpointer:
    """Checkpoints the WAL of the database at ``path`` after commits (see module doc)."""

    def __init__(self, path: Path, *, interval: float = 0.25, busy_timeout_s: float = 30.0
                 ) -> None:
        self.path = path
        self.interval = interval
        self._busy_ms = int(busy_timeout_s * 1000)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._dirty = False
        self._closed = False
        self._thread: threading.Thread | None = None
        #: Checkpoints run so far.
        self.checkpoints = 0

    def committed(self) -> None:
        """Called after each write commit: a checkpoint is due within ``interval``."""
        with self._lock:
            self._dirty = True
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self._main, name="citewise-wal-checkpoint", daemon=True)
                self._thread.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            thread = self._thread
        self._wake.set()
        if thread is not None:
            thread.join()

    def _main(self) -> None:
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error:
            log.warning("WAL checkpoints of %s: cannot open it", self.path, exc_info=True)
            with self._lock:
                self._thread = None
            return
        try:
            conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            idle = 0
            while True:
                self._wake.wait(self.interval)
                with self._lock:
                    if self._closed or (not self._dirty and idle >= _IDLE_ROUNDS):
                        self._thread = None
                        return
                    dirty, self._dirty = self._dirty, False
                if not dirty:
                    idle += 1
                    continue
                idle = 0
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # the next commit's round tries again
                    # Another process's checkpoint holds the lock: normal with many.
                    busy = isinstance(exc, sqlite3.OperationalError) and (
                        "locked" in str(exc) or "busy" in str(exc))
                    log.log(logging.DEBUG if busy else logging.WARNING,
                            "WAL checkpoint of %s failed: %s", self.path, exc)
        finally:
            conn.close()
