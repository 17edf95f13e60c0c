"""SQLite's WAL is copied into the database file by a thread of its own, not by commits."""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from citewise.store._wal_checkpoint import WalCheckpointer
from citewise.store.sqlite import SQLiteStore


def _wait(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_commits_leave_checkpoints_to_the_thread_and_they_reach_the_file(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "w.db")
    try:
        with store._write() as c:  # the writer itself never checkpoints on commit
            auto = c.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one()
        assert auto == 0
        for i in range(50):
            store.create_thread("t1", f"th{i}", title="x" * 500)
        thread = store._wal._thread
        assert thread is not None and thread.is_alive()
        assert _wait(lambda: store._wal.checkpoints >= 1)
        # Everything committed before the checkpoint is in the database file itself: a
        # copy of the file alone, without its WAL, holds the threads.
        assert _wait(lambda: _rows_in_file_alone(tmp_path) == 50)
    finally:
        store.close()
    assert not thread.is_alive()  # closing the store ends its checkpoint thread


def _rows_in_file_alone(tmp_path: Path) -> int:
    copy = tmp_path / "copy.db"
    shutil.copyfile(tmp_path / "w.db", copy)
    with sqlite3.connect(copy) as db:
        n = db.execute("SELECT count(*) FROM threads").fetchone()[0]
    copy.unlink()
    return int(n)


def test_the_thread_ends_when_idle_and_comes_back_with_the_next_commit(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE t (x)")
    wal = WalCheckpointer(path, interval=0.01)
    try:
        assert wal._thread is None  # nothing until a commit
        with sqlite3.connect(path) as db:
            db.execute("INSERT INTO t VALUES (1)")
        wal.committed()
        first = wal._thread
        assert first is not None and first.name == "citewise-wal-checkpoint"
        assert _wait(lambda: wal.checkpoints == 1)
        assert _wait(lambda: not first.is_alive())  # idle: gone
        assert wal._thread is None
        assert wal.checkpoints == 1  # no checkpoint without a commit
        wal.committed()
        second = wal._thread
        assert second is not None and second is not first
        assert _wait(lambda: wal.checkpoints == 2)
    finally:
        wal.close()
    assert not second.is_alive()
