"""``SQLiteStore``: the embedded default backend.

* WAL mode, so readers never block the writer nor the writer the readers.
* ALL writes go through ONE connection guarded by a lock, each in a ``BEGIN IMMEDIATE``
  transaction: inside one process writes never interleave; across processes the write
  lock is taken up front (no deadlocking upgrade from a read lock) and waited for up to
  ``busy_timeout``.
* Reads use a small pool of separate connections, each block one snapshot.
* Foreign keys on; migrations applied on open (see ``migrations``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.pool import StaticPool

from citewise.store._sql import batched
from citewise.store._sql_docs import DocumentsMixin
from citewise.store._sql_runs import RunsMixin
from citewise.store._sql_sentences import SentenceVectorsMixin
from citewise.store._sql_service import ServiceRecordsMixin
from citewise.store._sql_work import WorkQueueMixin
from citewise.store._sqlite_direct import DirectStatement, dbapi_of
from citewise.store._wal_checkpoint import WalCheckpointer
from citewise.store.base import (
    ChunkContext,
    ChunkRecord,
    DocumentRecord,
    IndexRow,
    decode_roles,
    index_row,
)
from citewise.store.migrations import MIGRATIONS, Migration, migrate

__all__ = ["SQLiteStore"]

SEARCH_MMAP_BYTES = 1 << 30
BUSY_TIMEOUT_S = 30.0
_INDEX_ROWS_SQL = (
    "SELECT c.id, c.document_id, d.tenant, d.collection, c.text, d.title, c.section,"
    " c.roles"
    " FROM chunks AS c JOIN documents AS d ON d.id = c.document_id"
    " WHERE c.document_id IN ({marks}) ORDER BY c.document_id, c.ordinal"
)
_CONTEXTS_SQL = (
    "SELECT c.id, c.document_id, c.ordinal, c.start_char, c.end_char, c.text, c.page,"
    " c.section, c.line, d.tenant, d.collection, d.source, d.title, d.content_type,"
    " d.text_length, d.metadata, c.roles"
    " FROM chunks AS c JOIN documents AS d ON d.id = c.document_id"
    " WHERE c.tenant = ? AND c.id IN ({marks})"
)


def _metadata(raw: str | None) -> dict[str, Any]:
    """A fresh copy of a document's metadata JSON, so that no caller ever shares a mutable
    value. Metadata whose values are scalars or flat lists and dicts (an HTML page's
    ``anchors``, thousands of ids; its ``tags``) — all the loaders write — is parsed once
    per distinct text and its lists and dicts copied (a search returns ~10 hits, often of
    the same few documents; a filtered one reads every candidate's: 12,274 chunks' for a
    tag no document has, and parsing each page's anchors again took 9 s of it). Anything
    nested deeper, or JSON that is no object, is parsed again for each caller."""
    if not raw:
        return {}
    parsed, deep = _parse_metadata(raw)
    if deep:
        return json.loads(raw)  # type: ignore[no-any-return]
    return {k: v.copy() if isinstance(v, (dict, list)) else v for k, v in parsed.items()}


@lru_cache(maxsize=4096)
def _parse_metadata(raw: str) -> tuple[dict[str, Any], bool]:
    """``(parsed, deep)``: deep when a value holds a list or dict (a copy of each value
    would share it), or the JSON is no object (``parsed`` then unused)."""
    parsed = json.loads(raw)
    if not isinstance(parsed, dict):
        return {}, True
    deep = any(isinstance(v, (dict, list)) and any(
        isinstance(x, (dict, list)) for x in (v.values() if isinstance(v, dict) else v))
        for v in parsed.values())
    return parsed, deep


def _configure(dbapi_conn: sqlite3.Connection, *, writer: bool) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself (the pysqlite driver's own
    # transaction handling would defer it and break BEGIN IMMEDIATE / transactional DDL).
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    try:
        cur.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        if writer:
            cur.execute("PRAGMA journal_mode = WAL")
            # NORMAL is durable across process crashes in WAL mode; document writes switch
            # to FULL for their transaction (see ``_durable``) because the search index
            # commits right after them and must never get ahead of SQLite on power loss.
            cur.execute("PRAGMA synchronous = NORMAL")
            # Checkpoints run on their own thread, not inside a commit (_wal_checkpoint).
            cur.execute("PRAGMA wal_autocheckpoint = 0")
    finally:
        cur.close()


class SQLiteStore(DocumentsMixin, RunsMixin, ServiceRecordsMixin, WorkQueueMixin,
                  SentenceVectorsMixin):
    """The :class:`~citewise.store.base.Store` on one SQLite file."""

    _insert = staticmethod(sqlite_dialect.insert)

    def __init__(
        self,
        path: str | Path,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        read_pool_size: int = 4,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{self.path}"
        args: dict[str, Any] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
        # One connection for every write (StaticPool), guarded by ``_lock``.
        self._wengine = sa.create_engine(url, poolclass=StaticPool, connect_args=args)
        self._rengine = sa.create_engine(
            url, pool_size=read_pool_size, max_overflow=8, connect_args=args
        )
        self._listen(self._wengine, writer=True)
        self._listen(self._rengine, writer=False)
        self._lock = threading.RLock()
        self._closed = False
        # One plain read connection per searching thread (closed with the store).
        self._search_local = threading.local()
        self._search_lock = threading.Lock()
        self._search_conns: list[sqlite3.Connection] = []
        self._directs: dict[tuple[str, tuple[str, ...]], DirectStatement] = {}
        self._wal = WalCheckpointer(self.path, busy_timeout_s=BUSY_TIMEOUT_S)
        self._wconn = self._wengine.connect()
        with self._write() as conn:
            self.applied_migrations = migrate(conn, migrations)

    @staticmethod
    def _listen(engine: sa.Engine, *, writer: bool) -> None:
        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
            _configure(dbapi_conn, writer=writer)

        @event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE" if writer else "BEGIN")

    # -- the SQLBase contract -------------------------------------------------------------
    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with self._rengine.connect() as conn:
            yield conn

    @contextmanager
    def _begin(self) -> Iterator[sa.Connection]:
        with self._lock:
            if self._closed:
                raise RuntimeError("the store is closed")
            with self._wconn.begin():
                yield self._wconn
            self._wal.committed()

    @contextmanager
    def _durable(self) -> Iterator[None]:
        """Run the enclosed writes with ``synchronous = FULL`` (fsync at commit)."""
        with self._lock:
            self._pragma("PRAGMA synchronous = FULL")
            try:
                yield
            finally:
                self._pragma("PRAGMA synchronous = NORMAL")

    def _pragma(self, sql: str) -> None:
        # Straight on the DBAPI connection: outside any transaction (SQLAlchemy would
        # autobegin one, and SQLite ignores some pragmas inside transactions).
        dbapi = self._wconn.connection.dbapi_connection
        assert dbapi is not None
        dbapi.execute(sql)

    # Document writes are followed by an index commit: make them durable first.
    def replace_documents(
        self, items: Sequence[tuple[DocumentRecord, Sequence[ChunkRecord]]]
    ) -> None:
        with self._durable():
            super().replace_documents(items)

    def delete_document(self, tenant: str, document_id: str) -> bool:
        with self._durable():
            return super().delete_document(tenant, document_id)

    # The search hot path, in plain SQL on this thread's own read connection: SQLAlchemy's
    # per-row machinery cost more than the query (~3 ms vs ~0.3 ms, k=10), and checking a
    # connection out of its pool another ~0.4 ms per search.
    def get_chunk_contexts(self, tenant: str, chunk_ids: Sequence[int]) -> list[ChunkContext]:
        # On every search's hot path (the ~10 hits it returns): positional construction,
        # and each document's metadata JSON parsed once per distinct text (``_metadata``).
        found: dict[int, ChunkContext] = {}
        dbapi = self._search_connection()
        for part in batched(list(chunk_ids)):
            sql = _CONTEXTS_SQL.format(marks=",".join("?" * len(part)))
            for r in dbapi.execute(sql, (tenant, *part)):
                found[r[0]] = ChunkContext(
                    ChunkRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8],
                                decode_roles(r[16])),
                    r[9], r[10], r[11], r[12], r[13], r[14], _metadata(r[15]),
                )
        return [found[i] for i in chunk_ids if i in found]

    # The writes every run makes, straight on the writer's DBAPI connection (see
    # _sqlite_direct): the same Core statements, compiled once.
    def _run_write(self, c: sa.Connection, name: str, params: dict[str, Any]) -> int:
        return self._direct(name, params).execute(dbapi_of(c), params)

    def _run_write_many(self, c: sa.Connection, name: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            self._direct(name, rows[0]).executemany(dbapi_of(c), rows)

    def _direct(self, name: str, params: dict[str, Any]) -> DirectStatement:
        cache: dict[tuple[str, tuple[str, ...]], DirectStatement] = self._directs
        key = (name, tuple(params))
        stmt = cache.get(key)
        if stmt is None:
            stmt = cache[key] = DirectStatement(getattr(self._stmts, name), key[1])
        return stmt

    _CHUNK_COLS = ("id", "document_id", "tenant", "ordinal", "start_char", "end_char",
                   "page", "section", "line", "roles", "text")

    def _insert_chunk_rows(self, c: sa.Connection, rows: list[dict[str, Any]]) -> None:
        # Plain executemany on the writer's own DBAPI connection, inside the caller's
        # transaction: ~10x less per-row overhead than SQLAlchemy's parameter processing.
        dbapi = c.connection.dbapi_connection
        assert dbapi is not None
        cols = self._CHUNK_COLS
        sql = f"INSERT INTO chunks ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        dbapi.executemany(sql, [tuple(r[k] for k in cols) for r in rows])

    def index_rows(self, document_ids: Sequence[str]) -> list[IndexRow]:
        rows: list[IndexRow] = []
        with self._rengine.connect() as conn:
            dbapi = conn.connection.dbapi_connection
            assert dbapi is not None
            for part in batched(list(document_ids)):
                sql = _INDEX_ROWS_SQL.format(marks=",".join("?" * len(part)))
                rows.extend(index_row(*r) for r in dbapi.execute(sql, tuple(part)))
        return rows

    def _search_connection(self) -> sqlite3.Connection:
        """This thread's read-only connection for the search path (autocommit: each query
        reads the latest committed snapshot)."""
        conn: sqlite3.Connection | None = getattr(self._search_local, "conn", None)
        if conn is None:
            if self._closed:
                raise RuntimeError("the store is closed")
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
            _configure(conn, writer=False)
            conn.execute("PRAGMA query_only = ON")
            # A search reads ~20 scattered pages (its hits and their documents): mapped,
            # they are read without a system call each (~0.1 ms of a ~2 ms hybrid search
            # at 100k chunks). Only this read-only connection maps the file.
            conn.execute(f"PRAGMA mmap_size = {SEARCH_MMAP_BYTES}")
            with self._search_lock:
                self._search_conns.append(conn)
            self._search_local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wal.close()  # before the writer: the last connection closed checkpoints
            self._wconn.close()
        with self._search_lock:
            for conn in self._search_conns:
                conn.close()
            self._search_conns.clear()
        self._wengine.dispose()
        self._rengine.dispose()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
