"""Store fixtures for contract tests that run on every backend.

``store`` is parametrized: ``sqlite`` (a file in tmp_path) and ``postgres`` (a fresh
database per test on ONE PostgreSQL server per session). The server is the one in
``$CITEWISE_TEST_POSTGRES_URL`` when set (a superuser URL: tests create databases), else a
throwaway ``pgserver`` instance (PostgreSQL 16 + pgvector, from PyPI) in a tmp dir; when
neither can be had the postgres variants are skipped with the reason.

Use: ``from _stores import pg_server, pg_url, store  # noqa: F401`` in a test module.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from citewise.store.sqlite import SQLiteStore

__all__ = ["BACKENDS", "PG", "admin", "database_url", "pg_server", "pg_url", "store"]

#: Marks of every test that needs the PostgreSQL server.
PG = [pytest.mark.slow, pytest.mark.postgres]
BACKENDS = ["sqlite", pytest.param("postgres", marks=PG)]


def admin(server_url: str, sql: str) -> None:
    """Run one statement outside a transaction (CREATE / DROP DATABASE)."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql)


def database_url(server_url: str, name: str) -> str:
    return sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """URL of a PostgreSQL server (maintenance database) for the whole session."""
    given = os.environ.get("CITEWISE_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    # Not under pytest's tmp_path: run as root, pgserver runs postgres as another user and
    # opens the directories above its data for it, but every pytest start resets
    # /tmp/pytest-of-<user> to mode 0700 — a concurrent session would cut the server off.
    root = Path(tempfile.mkdtemp(prefix="citewise-pg-"))
    try:
        import psycopg  # noqa: F401

        with warnings.catch_warnings():
            # pgserver resolves platformdirs' runtime dir at import and warns when
            # XDG_RUNTIME_DIR is unset; harmless here.
            warnings.simplefilter("ignore")
            from pgserver.postgres_server import get_server

            server: Any = get_server(root / "data", cleanup_mode="delete")
    except Exception as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(
            "PostgreSQL tests need a server: pip install 'citewise[postgres]' (pgserver) or "
            f"set CITEWISE_TEST_POSTGRES_URL; pgserver failed with {exc!r}"
        )
    try:
        yield server.get_uri()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty database for one test (dropped afterwards, connections and all)."""
    name = f"cw_{uuid.uuid4().hex[:16]}"
    admin(pg_server, f'CREATE DATABASE "{name}"')
    try:
        yield database_url(pg_server, name)
    finally:
        admin(pg_server, f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The same contract, on each backend."""
    if request.param == "sqlite":
        s: Any = SQLiteStore(tmp_path / "c.db")
    else:
        from citewise.store.postgres import PostgresStore

        s = PostgresStore(request.getfixturevalue("pg_url"))
    try:
        yield s
    finally:
        s.close()
