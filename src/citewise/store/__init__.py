"""Persistence: the store contract and its SQLite and PostgreSQL backends.

Backends are imported lazily (``citewise.store.SQLiteStore`` / ``.PostgresStore`` or
:func:`open_store`): an embedded install never imports psycopg or pgvector.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError

if TYPE_CHECKING:
    from citewise.store.base import Store
    from citewise.store.postgres import PostgresStore
    from citewise.store.sqlite import SQLiteStore

__all__ = ["PostgresStore", "SQLiteStore", "open_store"]


def open_store(target: str | Path, **options: Any) -> Store:
    """Open the store that ``target`` names; ``options`` go to the backend's constructor.

    * a filesystem path (``str`` or ``Path``), or ``sqlite:///relative.db`` /
      ``sqlite:////absolute.db`` (SQLAlchemy's spelling) → :class:`SQLiteStore`;
    * ``postgresql://…``, ``postgres://…`` or ``postgresql+psycopg://…`` →
      :class:`PostgresStore` (needs the ``postgres`` extra).

    Anything else is a ``ConfigError`` with code ``invalid_store_url``.
    """
    if isinstance(target, Path) or "://" not in target:
        from citewise.store.sqlite import SQLiteStore

        return SQLiteStore(target, **options)
    scheme = target.split("://", 1)[0].lower()
    if scheme == "sqlite":
        import sqlalchemy as sa

        database = sa.make_url(target).database
        if not database or database == ":memory:":
            raise ConfigError(
                "SQLiteStore needs a database file (sqlite:///path/to/citewise.db)",
                code="invalid_store_url",
            )
        from citewise.store.sqlite import SQLiteStore

        return SQLiteStore(database, **options)
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        from citewise.store.postgres import PostgresStore  # ConfigError without psycopg

        return PostgresStore(target, **options)
    raise ConfigError(
        f"unsupported store URL scheme {scheme!r}: use a path, sqlite:/// or postgresql://",
        code="invalid_store_url",
    )


def __getattr__(name: str) -> Any:
    if name == "SQLiteStore":
        from citewise.store.sqlite import SQLiteStore

        return SQLiteStore
    if name == "PostgresStore":
        from citewise.store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
