"""A Core statement compiled once for SQLite and run on the DBAPI connection itself.

Why: every run writes its thread, its record (twice), its turn and its events. Through
SQLAlchemy's execution path each of those statements cost ~100-200 µs here (execution
context, parameter processing per call, result set-up), SQLite's own work ~10 µs; with
many concurrent runs they were most of what the store added to a run.

The statement is still the Core one the portable code executes — compiled once with the
same column keys, and its parameters passed through the same bind processors
(``UTCDateTime``'s text form, ``_JSON``'s pass-through of JSON text) — so the rows written
are the rows ``Connection.execute`` would write. It must be used inside the store's write
transaction, on the writer's connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.sql.compiler import SQLCompiler

__all__ = ["DirectStatement", "dbapi_of"]

_DIALECT = sqlite_dialect.dialect()


def dbapi_of(conn: sa.Connection) -> sqlite3.Connection:
    """The DBAPI connection under a SQLAlchemy connection (inside its transaction)."""
    dbapi = conn.connection.dbapi_connection
    assert isinstance(dbapi, sqlite3.Connection)
    return dbapi


class DirectStatement:
    """``stmt`` compiled for SQLite for parameters named ``keys``."""

    __slots__ = ("_binds", "sql")

    def __init__(self, stmt: sa.ClauseElement, keys: Sequence[str]) -> None:
        compiled = stmt.compile(dialect=_DIALECT, column_keys=list(keys))
        assert isinstance(compiled, SQLCompiler)
        names = list(compiled.positiontup or ())
        unknown = [n for n in names if n not in keys]
        if unknown:  # a bind the caller does not give (a Python-side default, say)
            raise ValueError(f"statement needs parameters it is not given: {unknown}")
        self.sql = compiled.string
        self._binds: list[tuple[str, Callable[[Any], Any] | None]] = [
            (n, compiled.binds[n].type.dialect_impl(_DIALECT).bind_processor(_DIALECT))
            for n in names
        ]

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        return [params[n] if p is None else p(params[n]) for n, p in self._binds]

    def execute(self, dbapi: sqlite3.Connection, params: Mapping[str, Any]) -> int:
        """Run it once; the number of rows it changed."""
        return dbapi.execute(self.sql, self.args(params)).rowcount

    def executemany(self, dbapi: sqlite3.Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        # A value shared by every row (the batch's timestamp) is processed once.
        last: dict[str, tuple[Any, Any]] = {}

        def arg(name: str, proc: Callable[[Any], Any] | None, value: Any) -> Any:
            if proc is None:
                return value
            seen = last.get(name)
            if seen is not None and seen[0] is value:
                return seen[1]
            out = proc(value)
            last[name] = (value, out)
            return out

        binds = self._binds
        dbapi.executemany(self.sql, [[arg(n, p, row[n]) for n, p in binds] for row in rows])
