"""The server's log writer after a failed write: the run it belongs to gets no more writes
(another replica's lease sweep ends its log; nothing may follow that terminal event), and a
database that cannot be reached is waited for rather than failing the runs at once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from citewise.server import writer as writer_module
from citewise.server.writer import Append, Call, LogWriter, Publish
from citewise.store.base import EventRecord, RunRecord
from citewise.store.sqlite import SQLiteStore


def _run(run_id: str) -> RunRecord:
    now = datetime.now(UTC)
    return RunRecord(id=run_id, tenant="t", thread_id="th", question="q", status="running",
                     state={}, answer=None, created_at=now, updated_at=now)


def _events(run_id: str, *seqs: int) -> list[EventRecord]:
    return [EventRecord(run_id, s, "answer_delta", {"text": str(s)}) for s in seqs]


async def published(writer: LogWriter, run_id: str) -> bool:
    """Whether ``run_id``'s writes so far committed (as a run's events are published)."""
    done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    writer.submit(Publish(run_id, done.set_result))
    return await done


def test_a_run_whose_write_failed_gets_no_more_writes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "w.db")

    async def go() -> bool:
        writer = LogWriter(store, asyncio.get_running_loop())
        try:
            writer.submit(Call("save_run", (replace(_run("r1"), status="bogus"),), "r1"))
            assert not await published(writer, "r1")  # r1's write failed
            writer.submit_many([Append("t", _events("r1", 1) + _events("r2", 1)),
                                Call("save_run", (_run("r1"),), "r1"),
                                Call("save_run", (_run("r2"),), "r2")])
            return await writer.barrier()
        finally:
            writer.close()

    try:
        assert asyncio.run(go())
        assert store.read_events("t", "r1") == []
        assert store.get_run("t", "r1") is None
        assert [e.seq for e in store.read_events("t", "r2")] == [1]
        assert store.get_run("t", "r2") is not None
    finally:
        store.close()


def test_an_unreachable_database_fails_the_runs_only_after_the_outage_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SQLiteStore(tmp_path / "w.db")
    tries = {"n": 0}

    def down(*args: Any, **kwargs: Any) -> None:
        tries["n"] += 1
        raise sa.exc.OperationalError("INSERT", {}, Exception("server closed"))

    monkeypatch.setattr(store, "append_events", down)
    monkeypatch.setattr(writer_module, "OUTAGE_S", 0.5)

    async def go() -> bool:
        writer = LogWriter(store, asyncio.get_running_loop())
        try:
            writer.submit(Append("t", _events("r1", 1)))
            return await published(writer, "r1")
        finally:
            writer.close()

    try:
        assert asyncio.run(go()) is False
        assert tries["n"] > 2  # tried again while the limit ran, then failed the run
    finally:
        store.close()
