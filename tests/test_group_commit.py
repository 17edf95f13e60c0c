"""Concurrent runs of one agent share their store commits, and lose nothing doing it."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from _models import SlowTalker
from citewise import Agent
from citewise.agent.group_commit import GroupCommit
from citewise.errors import InvalidInput
from citewise.events import Event
from citewise.server.runstore import RunStore
from citewise.server.writer import LogWriter
from citewise.store.base import RunRecord
from citewise.store.sqlite import SQLiteStore


def _commits(store: SQLiteStore, threads: list[str] | None = None) -> list[int]:
    seen = [0]

    @event.listens_for(store._wengine, "commit")
    def _on_commit(conn: Any) -> None:
        seen[0] += 1
        if threads is not None:
            threads.append(threading.current_thread().name)

    return seen


def test_concurrent_runs_share_commits_and_each_write_is_durable_before_it_is_seen(
        tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.db")
    other = SQLiteStore(tmp_path / "g.db")  # reads as another process would
    commits = _commits(store)
    agent = Agent(store=store, model=SlowTalker(3, 0.01), cancel_poll_s=None)
    n_runs = 30

    async def one(i: int) -> list[Event]:
        events: list[Event] = []
        async for e in agent.stream(f"question {i}"):
            if not events:  # the run's record and thread are committed before its first event
                record = other.get_run("default", e.run_id)
                assert record is not None and record.status == "running"
                assert other.get_thread("default", e.thread_id) is not None
            if e.is_terminal:  # ... and its whole log and outcome before its last
                record = other.get_run("default", e.run_id)
                assert record is not None and record.status == "completed"
                stored = other.read_events("default", e.run_id)
                assert [r.seq for r in stored] == [*(x.seq for x in events), e.seq]
            events.append(e)
        return events

    async def go() -> list[list[Event]]:
        return await asyncio.gather(*(one(i) for i in range(n_runs)))

    try:
        runs = asyncio.run(go())
        assert all(r[-1].kind == "run_finished" for r in runs)
        for i, r in enumerate(runs):
            (turn,) = other.list_turns("default", r[0].thread_id)
            assert turn.question == f"question {i}"
            assert turn.answer.split() == ["word0", "word1", "word2"]
        # One transaction per run start and per run end would be 2 * n_runs (60); the
        # runs start in one pass of the loop and end in a few (4-6 here, idle or loaded).
        assert commits[0] <= n_runs // 2, commits[0]
    finally:
        other.close()
        store.close()


def _thread_writer(store: SQLiteStore, thread_id: str, fail: bool = False) -> Any:
    def write() -> None:
        with store.transaction():
            store.create_thread("default", thread_id)
            if fail:
                raise InvalidInput("refused", code="refused")
    return write


def test_a_failing_write_fails_alone_and_leaves_nothing_behind(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.db")
    commits = _commits(store)

    async def go() -> list[BaseException | None]:
        group = GroupCommit(store)
        futures = [group.write(_thread_writer(store, "a")),
                   group.write(_thread_writer(store, "b", fail=True)),
                   group.write(_thread_writer(store, "c"))]
        results = await asyncio.gather(*futures, return_exceptions=True)
        assert group.commits == 2  # the batch failed; "a" and "c" then committed alone
        return list(results)

    try:
        a, b, c = asyncio.run(go())
        assert a is None and c is None
        assert isinstance(b, InvalidInput) and b.code == "refused"
        assert store.get_thread("default", "a") is not None
        assert store.get_thread("default", "b") is None  # its half-done write rolled back
        assert store.get_thread("default", "c") is not None
        assert commits[0] == 2
    finally:
        store.close()


class RefusingStore(SQLiteStore):
    """Refuses to record a run's outcome, as a full disk or a lost connection would."""

    def save_run(self, run: RunRecord) -> None:
        if run.status == "completed":
            raise InvalidInput("the disk is full", code="disk_full")
        super().save_run(run)


def test_a_run_whose_outcome_cannot_be_written_fails_and_keeps_its_events(
        tmp_path: Path) -> None:
    store = RefusingStore(tmp_path / "g.db")
    agent = Agent(store=store, model=SlowTalker(3, 0.01), cancel_poll_s=None)
    seen: list[Event] = []

    async def go() -> None:
        async for e in agent.stream("question"):
            seen.append(e)

    try:
        with pytest.raises(InvalidInput) as info:
            asyncio.run(go())
        assert info.value.code == "disk_full"
        assert seen and not any(e.is_terminal for e in seen)  # never shown as finished
        run_id = seen[0].run_id
        stored = store.read_events("default", run_id)
        # Every event, the unsent terminal one included, reached the log.
        assert [r.seq for r in stored] == list(range(1, len(seen) + 2))
        assert stored[-1].kind == "run_finished"
        record = store.get_run("default", run_id)
        assert record is not None and record.status == "running"  # for the lease sweep
    finally:
        store.close()


def test_in_the_server_a_run_commits_nothing_on_the_event_loop(tmp_path: Path) -> None:
    # The server's per-run store queues every write on the log writer's thread; a
    # transaction opened on the event loop would wait there behind the writer's batch.
    store = SQLiteStore(tmp_path / "g.db")
    threads: list[str] = []
    _commits(store, threads)

    async def go() -> list[Event]:
        writer = LogWriter(store, asyncio.get_running_loop())
        try:
            agent = Agent(store=RunStore(store, writer, "default"),  # type: ignore[arg-type]
                          model=SlowTalker(3, 0.01), cancel_poll_s=None, event_batch=1)
            threads.clear()  # building the agent wrote its feedback secret
            return [e async for e in agent.stream("question")]
        finally:
            writer.close()

    try:
        events = asyncio.run(go())
        assert events[-1].kind == "run_finished"
        assert threads and set(threads) == {"citewise-log-writer"}, threads
        stored = store.read_events("default", events[0].run_id)
        assert [r.seq for r in stored] == [e.seq for e in events]
        record = store.get_run("default", events[0].run_id)
        assert record is not None and record.status == "completed"
    finally:
        store.close()


def test_an_agent_keeps_no_ended_event_loop_alive(tmp_path: Path) -> None:
    # An agent keeps its group commit and its cancel watch per event loop, weakly keyed:
    # each asyncio.run (a sync caller's every question) must leave nothing behind.
    store = SQLiteStore(tmp_path / "g.db")
    agent = Agent(store=store, model=SlowTalker(3, 0.01), cancel_poll_s=0.05)
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def one() -> list[Event]:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        return [e async for e in agent.stream("question")]

    try:
        for _ in range(3):
            assert asyncio.run(one())[-1].kind == "run_finished"
        gc.collect()
        assert [r() for r in loops] == [None, None, None]
    finally:
        store.close()
