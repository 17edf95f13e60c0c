"""What every SQL backend shares: how it reaches connections, and batching helpers.

The mixins in ``_sql_docs`` and ``_sql_runs`` hold the queries (SQLAlchemy Core, portable
between SQLite and PostgreSQL); a backend only says how to read, how to write and which
dialect's ``INSERT … ON CONFLICT`` to use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import sqlalchemy as sa

__all__ = ["SQLBase", "batched", "database_down", "shown_url"]

T = TypeVar("T")

# SQLite accepts 32766 bound parameters; stay far below so IN (...) lists never hit it.
_IN_BATCH = 900


def database_down(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached (rather than a bug)."""
    return isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError) or (
        isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated)


def shown_url(url: str | sa.URL) -> str:
    """``url`` fit to print: its password masked, in the user part and as a query
    parameter (``?password=…``, which ``render_as_string`` leaves alone)."""
    u = sa.make_url(url) if isinstance(url, str) else url
    if "password" in u.query:
        u = u.set(query={**u.query, "password": "***"})
    return u.render_as_string(hide_password=True)


def batched(items: Sequence[T], size: int = _IN_BATCH) -> Iterator[Sequence[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class SQLBase:
    """Abstract access to connections; implemented by each backend."""

    #: ``sqlalchemy.dialects.<name>.insert`` — both SQLite's and PostgreSQL's support
    #: ``on_conflict_do_update`` / ``on_conflict_do_nothing`` with the same signature.
    _insert: Callable[[sa.Table], Any]

    def _read(self) -> AbstractContextManager[sa.Connection]:
        """A connection for reads (one snapshot for the whole block)."""
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[sa.Connection]:
        """The single writer, inside one transaction that commits when the block exits
        (inside :meth:`transaction`, that transaction's connection: nothing commits yet)."""
        joined = self._joined()
        if joined is not None:
            return _Joined(joined)
        return self._begin()

    def _begin(self) -> AbstractContextManager[sa.Connection]:
        """A new write transaction on the single writer; implemented by each backend."""
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """See :meth:`citewise.store.base.Store.transaction`."""
        if self._joined() is not None:  # nested: the outer block commits
            yield
            return
        local = self._local()
        with self._begin() as conn:
            local.conn = conn
            try:
                yield
            finally:
                local.conn = None

    def _local(self) -> threading.local:
        local: threading.local | None = self.__dict__.get("_tx_local")
        if local is None:
            local = self.__dict__.setdefault("_tx_local", threading.local())
        return local

    def _joined(self) -> sa.Connection | None:
        conn: sa.Connection | None = getattr(self._local(), "conn", None)
        return conn


class _Joined(AbstractContextManager[sa.Connection]):
    """The enclosing transaction's connection; commits nothing on exit (the outer block
    does, and an exception propagates to it and rolls everything back)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sa.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sa.Connection:
        return self._conn

    def __exit__(self, *exc: object) -> None:
        return None
