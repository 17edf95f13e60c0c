"""One watch per agent and event loop reads cancel requests and renews leases for all runs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from _models import SlowTalker
from citewise import Agent
from citewise.agent import lease
from citewise.events import Event
from citewise.store.sqlite import SQLiteStore

INTERVAL = 0.05


def _count(engine: Any, needle: str) -> list[int]:
    seen = [0]

    @event.listens_for(engine, "before_cursor_execute")
    def _on_execute(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if needle in statement:
            seen[0] += 1

    return seen


def test_many_runs_share_one_poll_and_a_cancel_reaches_only_its_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease, "HEARTBEAT_S", 0.1)
    store = SQLiteStore(tmp_path / "c.db")
    other = SQLiteStore(tmp_path / "c.db")  # stands for another process
    reads = _count(store._rengine, "FROM settings")
    touches = _count(store._wengine, "UPDATE runs SET updated_at")
    agent = Agent(store=store, model=SlowTalker(40), cancel_poll_s=INTERVAL)
    asker = Agent(store=other)
    n_runs = 12

    async def one(i: int) -> list[Event]:
        events: list[Event] = []
        async for e in agent.stream(f"question {i}"):
            events.append(e)
            if i < 2 and len(events) == 2:
                assert asker.cancel(e.run_id)  # not asker's run: asked through the store
        return events

    async def go() -> tuple[list[list[Event]], float, list[str]]:
        t0 = time.monotonic()
        runs = await asyncio.gather(*(one(i) for i in range(n_runs)))
        elapsed = time.monotonic() - t0
        await asyncio.sleep(3 * INTERVAL)  # the watch's task ends with its last run
        left = [t.get_coro().__qualname__ for t in asyncio.all_tasks()  # type: ignore[union-attr]
                if t is not asyncio.current_task()]
        return runs, elapsed, left

    try:
        runs, elapsed, left = asyncio.run(go())
    finally:
        other.close()
        store.close()
    ends = [r[-1] for r in runs]
    assert [e.kind for e in ends[:2]] == ["error", "error"]
    assert all(e.kind == "error" and e.code == "run_cancelled" for e in ends[:2])
    assert all(len(r) < 30 for r in runs[:2])  # stopped well before the model finished
    assert [e.kind for e in ends[2:]] == ["run_finished"] * (n_runs - 2)
    # One settings query per interval for all twelve runs (a watcher per run would have
    # made about twelve times as many), and one lease statement per beat.
    polls = elapsed / INTERVAL + 2
    assert 0 < reads[0] <= polls, (reads[0], elapsed)
    assert 0 < touches[0] <= elapsed / lease.HEARTBEAT_S + 2, (touches[0], elapsed)
    assert "CancelWatch._poll" not in left


def test_a_cancel_request_is_deleted_when_its_run_ends(store: Any) -> None:
    # On every backend (the ``store`` fixture): requests of ended runs used to stay
    # forever, and every process watching for cancels scanned them.
    from datetime import UTC, datetime

    from citewise.agent.cancels import cancel_run
    from citewise.store.base import RunRecord, cancel_key

    def run(run_id: str, status: Any) -> RunRecord:
        now = datetime.now(UTC)
        return RunRecord(id=run_id, tenant="t1", thread_id="th", question="q", status=status,
                         state={}, answer=None, created_at=now, updated_at=now)

    store.create_thread("t1", "th")
    for run_id in ("saved", "moved", "finished"):
        store.save_run(run(run_id, "running"))
        assert cancel_run(store, "t1", run_id)  # another process asks
        assert store.get_setting(cancel_key("t1", run_id))
    store.save_run(run("saved", "cancelled"))  # the run's process answers by saving it
    assert store.transition_run("t1", "moved", ["running"], "cancelled")  # or by moving it
    store.save_run(run("finished", "completed"))  # finished before it saw the request
    assert store.get_setting(cancel_key("t1", "saved")) is None
    assert store.get_setting(cancel_key("t1", "moved")) is None
    assert store.get_setting(cancel_key("t1", "finished")) is None  # it stayed, once
    store.save_run(run("paused", "running"))
    assert cancel_run(store, "t1", "paused")
    store.save_run(run("paused", "paused"))  # not ended: the request is not answered yet
    assert store.get_setting(cancel_key("t1", "paused"))
