"""What every SQL backend shares: how it reaches connections, and batching helpers.

The mixins in ``_sql_docs`` and ``_sql_runs`` hold the queries (SQLAlchemy Core, portable
between SQLite and PostgreSQL); a backend only says how to read, how to write and which
dialect's ``INSERT … ON CONFLICT`` to use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import sqlalchemy as sa

__all__ = ["SQLBase", "batched"]

T = TypeVar("T")

# SQLite accepts 32766 bound parameters; stay far below so IN (...) lists never hit it.
_IN_BATCH = 900


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
        """The single writer, inside one transaction that commits when the block exits."""
        raise NotImplementedError
