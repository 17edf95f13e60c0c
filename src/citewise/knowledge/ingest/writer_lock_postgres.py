"""The writer lock of replicas sharing one PostgreSQL database: an advisory lock.

The embedded twin is :mod:`citewise.knowledge.ingest.writer_lock` (a lock file in the
data directory); both say "a process is writing this knowledge base" so that an open
replays a crashed writer's leftovers only when nobody is writing.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from citewise.errors import Unavailable
from citewise.knowledge.ingest import writer_lock

if TYPE_CHECKING:
    from citewise.store.postgres import PostgresStore

__all__ = ["WRITER_LOCK_KEY", "DatabaseWriterLock"]

#: The advisory lock key of the writer lock (a stable 63-bit number from a name).
WRITER_LOCK_KEY = int.from_bytes(
    hashlib.sha256(b"citewise.knowledge.writer").digest()[:8], "big", signed=True
)
_LOCK_SHARED = sa.text("SELECT pg_advisory_lock_shared(:k)")
_TRY_LOCK = sa.text("SELECT pg_try_advisory_lock(:k)")


class DatabaseWriterLock(writer_lock.SharedHold):
    """The writer lock of replicas sharing a database: a PostgreSQL advisory lock.

    Writers hold it *shared*, so replicas ingest at the same time; an open replays the
    outbox and embeds chunks without vectors only if it gets it *exclusively* — when no
    replica is writing, pending work is a crash's; otherwise it is an ingest in progress
    that its writer completes, and the open leaves it alone (as
    :class:`~citewise.knowledge.ingest.writer_lock.WriterLock` does for one folder).

    Each hold is a session lock on a connection of its own, outside the store's pool
    (holding pooled connections for whole ingests starved the store's own work): one
    shared hold per process, counted across its threads and nested writes. A writer waits
    at most ``wait_s`` for a repairing open (``lock_timeout``), then
    :class:`~citewise.errors.Unavailable` (``knowledge_base_busy``).
    """

    def __init__(self, store: PostgresStore, *, wait_s: float | None = None) -> None:
        super().__init__()
        self.store = store
        self.wait_s = writer_lock.WAIT_S if wait_s is None else wait_s
        self._exclusive: Any = None
        self._engine: Any = None

    def _connect(self) -> Any:
        if self._engine is None:
            from sqlalchemy.pool import NullPool

            self._engine = sa.create_engine(self.store.url, poolclass=NullPool)
        return self._engine.connect()

    def _drop_shared(self, held: Any) -> None:
        held.close()  # ends the session, and with it its locks

    def _take_shared(self) -> Any:
        conn = self._connect()
        try:
            conn.execute(sa.text(f"SET lock_timeout = {int(self.wait_s * 1000)}"))
            conn.execute(_LOCK_SHARED, {"k": WRITER_LOCK_KEY})
            conn.commit()
        except sa.exc.OperationalError as exc:
            conn.close()
            if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_not_available
                raise Unavailable(
                    "the knowledge base is being repaired by another replica; tried for "
                    f"{self.wait_s:g} s", code="knowledge_base_busy",
                ) from exc
            raise
        except BaseException:
            conn.close()
            raise
        return conn

    def try_acquire(self) -> bool:
        with self._mutex:
            if self._writers or self._exclusive is not None:
                return False
            conn = self._connect()
            try:
                got = bool(conn.execute(_TRY_LOCK, {"k": WRITER_LOCK_KEY}).scalar_one())
                conn.commit()
            except BaseException:
                conn.close()
                raise
            if not got:
                conn.close()
                return False
            self._exclusive = conn
            return True

    def release(self) -> None:
        with self._mutex:
            conn, self._exclusive = self._exclusive, None
        if conn is not None:
            conn.close()
