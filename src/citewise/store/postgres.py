"""``PostgresStore``: the scale-out backend — stateless API replicas and workers sharing
one PostgreSQL database.

The same tables (:mod:`~citewise.store.schema`), migrations (:mod:`~citewise.store.migrations`)
and queries (the ``_sql_*`` mixins) as :class:`~citewise.store.sqlite.SQLiteStore`; what
differs here, and why:

* psycopg 3 through SQLAlchemy (``postgresql+psycopg://``) with ONE connection pool. There
  is no single writer as on SQLite: PostgreSQL locks rows, so writers run concurrently.
* Writes run in READ COMMITTED transactions. Every rule of the contract that two writers
  could race on is ONE statement — ``UPDATE … WHERE status IN (…) RETURNING`` for
  :meth:`transition_run`, ``INSERT … ON CONFLICT DO NOTHING`` for the event log,
  ``ON CONFLICT DO UPDATE`` for upserts — and under READ COMMITTED a statement that waited
  for a concurrent writer re-checks its WHERE on the committed row: of two replicas
  resuming one paused run exactly one matches, and neither gets the serialization
  failure REPEATABLE READ would raise (which every caller would then have to retry).
* Reads run in READ ONLY, REPEATABLE READ transactions: a read made of several statements
  (batched ``IN`` lists) sees one snapshot, as on SQLite; read-only transactions never
  fail to serialize. The pool resets both settings when a connection is returned.
* Migrations run in one transaction holding a transaction-scoped advisory lock, so
  replicas that start together apply them once; the others wait, then find nothing to do.
  The NOTIFY trigger is created in the same locked transaction, idempotently; the search
  objects (a generated ``tsvector`` column, the pgvector table) belong to the knowledge
  base's indexes (:mod:`citewise.knowledge.index.lexical_postgres`, ``vectors_postgres``),
  which create them through :meth:`ensure_schema` under the same lock.
* :meth:`wait_for_events` wakes on LISTEN/NOTIFY (see ``_pg_notify``) instead of polling.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from citewise.errors import ConfigError, InvalidInput
from citewise.store import _pg_notify
from citewise.store._run_fence import hold_limit
from citewise.store._sql import shown_url
from citewise.store._sql_docs import DocumentsMixin
from citewise.store._sql_runs import RunsMixin, drop_settings_in, transition_statement
from citewise.store._sql_sentences import SentenceVectorsMixin
from citewise.store._sql_service import ServiceRecordsMixin
from citewise.store._sql_work import WorkQueueMixin
from citewise.store.base import ChunkRecord, DocumentRecord, EventRecord, RunStatus, TurnRecord
from citewise.store.migrations import MIGRATIONS, Migration, migrate
from citewise.store.schema import json_without_nul, runs

__all__ = ["MIGRATION_LOCK", "PostgresStore", "engine_url"]

T = TypeVar("T")

#: The advisory lock key held while migrating (a stable 63-bit number from a name).
MIGRATION_LOCK = int.from_bytes(
    hashlib.sha256(b"citewise.store.migrations").digest()[:8], "big", signed=True
)


def _json_dumps(value: Any) -> str:
    return json_without_nul(json.dumps(value))


def engine_url(url: str | sa.URL) -> sa.URL:
    """``postgresql://`` / ``postgres://`` / ``postgresql+psycopg://`` → the psycopg 3 URL."""
    if isinstance(url, str) and url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    try:
        u = sa.make_url(url)
    except sa.exc.ArgumentError as exc:
        raise ConfigError(f"not a database URL: {exc}", code="invalid_store_url") from None
    if u.drivername == "postgresql":
        return u.set(drivername="postgresql+psycopg")
    if u.drivername != "postgresql+psycopg":
        raise ConfigError(
            f"PostgresStore needs a postgresql:// URL with the psycopg 3 driver, not "
            f"{u.drivername!r}",
            code="invalid_store_url",
        )
    return u


@contextmanager
def _nul_refused(what: str) -> Iterator[None]:
    """SQLite stores U+0000 in text and JSON; PostgreSQL refuses it in both (JSONB: server
    error 22P05; text: psycopg refuses before sending, no SQLSTATE) — as a value to store
    and as one to look up (an id from a URL). Say so with a stable code, not a driver
    error."""
    try:
        yield
    except sa.exc.DataError as exc:
        state = getattr(exc.orig, "sqlstate", None)
        if state in ("22021", "22P05") or (state is None and "NUL (0x00)" in str(exc.orig)):
            raise InvalidInput(
                f"PostgreSQL cannot {what} the NUL character (U+0000) in text or JSON",
                code="unsupported_character",
            ) from exc
        raise


class PostgresStore(DocumentsMixin, RunsMixin, ServiceRecordsMixin, WorkQueueMixin,
                    SentenceVectorsMixin):
    """The :class:`~citewise.store.base.Store` on a PostgreSQL database."""

    _insert = staticmethod(postgresql.insert)

    def __init__(
        self,
        url: str | sa.URL,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        pool_size: int = 5,
        max_overflow: int = 10,
        connect_timeout_s: int = 10,
        pre_ping: bool = True,
    ) -> None:
        """Connect, then migrate under the advisory lock.

        ``pre_ping``: test each pooled connection with an empty query when it is checked
        out — one more round trip per call (4 instead of 3: ping, BEGIN, statement,
        COMMIT/ROLLBACK) so that a database restart costs no failed call. Turn it off where
        round trips are dear and one failed call after a restart is acceptable.
        """
        self.url = engine_url(url)
        try:
            import psycopg  # noqa: F401  (the driver: fail here with a clear message)
        except ImportError as exc:
            raise ConfigError(
                f"PostgresStore needs psycopg 3 ({exc}): pip install 'citewise[postgres]'",
                code="postgres_unavailable",
            ) from exc
        self.engine = sa.create_engine(
            self.url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_pre_ping=pre_ping,  # a replica outlives database restarts and idle cut-offs
            pool_recycle=1800,
            isolation_level="READ COMMITTED",
            json_serializer=_json_dumps,
            connect_args={"connect_timeout": connect_timeout_s, "application_name": "citewise"},
        )
        # Shares the pool; these characteristics are set on checkout and reset on return.
        self._reader = self.engine.execution_options(
            isolation_level="REPEATABLE READ", postgresql_readonly=True
        )
        self._lock = threading.Lock()
        self._closed = False
        self._listener: _pg_notify.EventListener | None = None
        try:
            with self.engine.begin() as conn:
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
                self.applied_migrations = migrate(conn, migrations)
                _pg_notify.ensure_trigger(conn)
        except sa.exc.ProgrammingError as exc:
            self.engine.dispose()
            if getattr(exc.orig, "sqlstate", None) != "42501":  # insufficient_privilege
                raise
            where = shown_url(self.url)
            reason = (str(exc.orig).strip().splitlines() or ["permission denied"])[0]
            raise ConfigError(
                f"the database user may not create or use citewise's tables in {where}: "
                f"{reason} (give it a database of its own, or the rights on these tables)",
                code="database_permission_denied", details={"url": where},
            ) from exc
        except sa.exc.OperationalError as exc:
            self.engine.dispose()
            where = shown_url(self.url)
            reason = (str(getattr(exc, "orig", exc)).strip().splitlines() or ["unknown"])[0]
            raise ConfigError(
                f"cannot connect to the database {where}: {reason}",
                code="database_unavailable", details={"url": where},
            ) from exc
        except BaseException:
            self.engine.dispose()
            raise

    # -- the SQLBase contract -------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the store is closed")

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        self._check_open()
        with _nul_refused("look up"), self._reader.connect() as conn:
            yield conn  # autobegun; rolled back (nothing to undo) when returned

    @contextmanager
    def _begin(self) -> Iterator[sa.Connection]:
        self._check_open()
        with _nul_refused("store"), self.engine.begin() as conn:
            yield conn

    # -- where PostgreSQL differs ---------------------------------------------------------
    def add_turn(self, tenant: str, turn: TurnRecord) -> None:
        # A model's answer may carry U+0000 (the question cannot: it is refused before a
        # run starts); text columns cannot hold it here, and the run must not fail over it.
        if "\x00" in turn.answer:
            turn = replace(turn, answer=turn.answer.replace("\x00", "\ufffd"))
        super().add_turn(tenant, turn)

    def replace_documents(
        self, items: Sequence[tuple[DocumentRecord, Sequence[ChunkRecord]]]
    ) -> None:
        # The upsert locks document rows in the order given; sorting by id (stable: the
        # last duplicate still wins) gives concurrent ingests one lock order, so two of
        # them over the same documents wait for each other instead of deadlocking (which
        # PostgreSQL would resolve by aborting one).
        super().replace_documents(sorted(items, key=lambda item: item[0].id))

    def transition_run(
        self, tenant: str, run_id: str, from_status: Iterable[RunStatus], to_status: RunStatus,
        *, untouched_since: datetime | None = None, drop_setting: str | None = None,
        owner: str | None = None, new_owner: str | None = None,
    ) -> bool:
        """One ``UPDATE … WHERE status IN (…) RETURNING``: a racing caller blocks on the row
        lock, then re-checks the status of the committed row and matches nothing."""
        stmt = transition_statement(tenant, run_id, from_status, to_status, untouched_since,
                                    owner, new_owner)
        with self._write() as c:
            hold_limit(c)  # it locks the run's row (store._run_fence)
            moved = c.execute(stmt.returning(runs.c.id)).first() is not None
            if moved:
                drop_settings_in(c, drop_setting, tenant, run_id, to_status)
            return moved

    # -- waiting for events of a run another replica executes -------------------------------
    def wait_for_events(
        self,
        tenant: str,
        run_id: str,
        *,
        after: int = 0,
        timeout: float = 30.0,
        limit: int = 1000,
    ) -> list[EventRecord]:
        """Events with ``seq > after``, waiting up to ``timeout`` seconds for the first one.

        Returns as soon as there are any (``[]`` on timeout). Blocking: async callers run it
        in a thread. Woken by NOTIFY from whichever process appends, not by polling.
        """
        listener = self._event_listener()
        deadline = time.monotonic() + timeout
        with listener.watch((tenant, run_id)) as wait:  # registered before the first read
            while True:
                found = self.read_events(tenant, run_id, after=after, limit=limit)
                left = deadline - time.monotonic()
                if found or left <= 0:
                    return found
                wait(left)
                if self._closed:  # woken by close(): nothing more will come
                    return []

    def _event_listener(self) -> _pg_notify.EventListener:
        with self._lock:
            self._check_open()
            if self._listener is None:
                self._listener = _pg_notify.EventListener(self._listen_connection)
            listener = self._listener
        listener.start()
        return listener

    def _listen_connection(self) -> Any:
        """A psycopg connection outside the pool: LISTEN state must not leak into it."""
        import psycopg

        cargs, cparams = self.engine.dialect.create_connect_args(self.url)
        return psycopg.connect(*cargs, **{**cparams, "autocommit": True})

    # -- the knowledge base's objects beside the records ----------------------------------
    def ensure_schema(self, create: Callable[[sa.Connection], T]) -> T:
        """Run ``create`` (idempotent DDL of objects that are not records: the lexical
        index's generated column, the pgvector table) in a transaction holding the
        migration lock, so replicas starting at once create each object once. The search
        code that owns those objects lives in :mod:`citewise.knowledge.index`."""
        with self.engine.begin() as conn:
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(MIGRATION_LOCK)))
            return create(conn)

    def reading(self) -> AbstractContextManager[sa.Connection]:
        """A read-only connection with one snapshot for the block (search queries)."""
        return self._read()

    def writing(self) -> AbstractContextManager[sa.Connection]:
        """A write transaction that commits when the block exits (vector rows)."""
        return self._write()

    # -- lifecycle ----------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            listener = self._listener
        if listener is not None:
            listener.close()
        self.engine.dispose()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
