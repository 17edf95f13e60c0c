"""Run fencing (issue 25, finding 2): a process that lost a run writes nothing more of it.

A replica stalled past its lease had its run ended ``run_lost`` by another one, then woke
and kept writing (two terminal events, failed → completed, tools run after the loss).
Store-level tests run on SQLite and PostgreSQL (the ``store`` fixture); the service test
drives a real server and takes its run over the way another replica's sweep would.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from _stores import pg_server, pg_url, store  # noqa: F401  (fixtures)
from citewise.agent.lease import end_lost_runs
from citewise.agent.persist import RunRecorder
from citewise.agent.state import RunState
from citewise.errors import UsageError
from citewise.events import RunStarted
from citewise.models.scripted import call
from citewise.server import ServerConfig, create_app
from citewise.server.testing import PacedModel, serve
from citewise.store._run_fence import HOLD_S
from citewise.store.base import EventRecord, RunRecord, Store, decoded
from citewise.store.sqlite import SQLiteStore

NOW = datetime.now(UTC)


def _run(run_id: str, *, status: str = "running", owner: str | None = "own_a",
         updated: datetime = NOW) -> RunRecord:
    return RunRecord(id=run_id, tenant="t1", thread_id="th1", question="Why?",
                     status=status,  # type: ignore[arg-type]
                     state={}, answer=None, created_at=updated, updated_at=updated, owner=owner)


def _ev(run_id: str, seq: int, kind: str = "thought") -> EventRecord:
    return EventRecord(run_id, seq, kind, {"seq": seq, "kind": kind})


def _kinds(db: Store, run_id: str) -> list[str]:
    return [e.kind for e in db.read_events("t1", run_id)]


def test_only_the_owner_writes_a_running_run(store: Store) -> None:  # noqa: F811
    store.save_run(_run("r1"))
    mine = {"r1": "own_a"}
    assert store.append_events("t1", [_ev("r1", 1)], owners=mine) == []
    assert store.append_events("t1", [_ev("r1", 2)], owners={"r1": "own_b"}) == ["r1"]
    with pytest.raises(UsageError) as err:
        store.save_run(_run("r1", owner="own_b", status="completed"))
    assert err.value.code == "run_not_owned"
    assert not store.transition_run("t1", "r1", ("running",), "failed", owner="own_b")
    assert _kinds(store, "r1") == ["thought"]
    record = store.get_run("t1", "r1")
    assert record is not None and record.status == "running" and record.owner == "own_a"


def test_a_lost_run_taken_over_by_the_sweep_refuses_its_stalled_owner(
        store: Store) -> None:  # noqa: F811
    stale = NOW - timedelta(minutes=10)
    store.save_run(_run("r1", updated=stale))
    store.append_events("t1", [_ev("r1", 1, "run_started")], owners={"r1": "own_a"})
    assert end_lost_runs(store, lease_s=60) == ["r1"]
    # The stalled process wakes up: its events, its outcome, its turn — all refused; its
    # next event has the seq of the sweep's run_lost, and is no replay of it.
    assert store.append_events("t1", [_ev("r1", 2, "action")], owners={"r1": "own_a"}) == ["r1"]
    assert store.append_events("t1", [_ev("r1", 2), _ev("r1", 3, "run_finished")],
                               owners={"r1": "own_a"}) == ["r1"]
    with pytest.raises(UsageError):
        store.save_run(_run("r1", status="completed"))
    assert not store.transition_run("t1", "r1", ("running",), "failed", owner="own_a")
    store.touch_runs([("t1", "r1")])
    assert _kinds(store, "r1") == ["run_started", "error"]
    record = store.get_run("t1", "r1")
    assert record is not None and record.status == "failed"
    assert record.answer is not None and decoded(record.answer)["error"]["code"] == "run_lost"


def test_nothing_follows_a_final_event_even_without_a_token(store: Store) -> None:  # noqa: F811
    store.save_run(_run("r1", owner=None))
    store.append_events("t1", [_ev("r1", 1), _ev("r1", 2, "run_paused")])
    store.save_run(_run("r1", status="paused", owner=None))
    store.append_events("t1", [_ev("r1", 3, "error")])  # a paused run's cancellation
    store.save_run(_run("r1", status="cancelled", owner=None))
    assert store.append_events("t1", [_ev("r1", 4)]) == ["r1"]
    assert _kinds(store, "r1") == ["thought", "run_paused", "error"]


def test_a_retried_write_that_had_landed_is_not_refused(store: Store) -> None:  # noqa: F811
    store.save_run(_run("r1"))
    done = [_ev("r1", 1), _ev("r1", 2, "run_finished")]
    store.append_events("t1", done, owners={"r1": "own_a"})
    store.save_run(_run("r1", status="completed"))
    # The commit's outcome was never heard: the same writes again are no-ops, not refusals.
    assert store.append_events("t1", done, owners={"r1": "own_a"}) == []
    store.save_run(_run("r1", status="completed"))
    assert store.append_events("t1", [_ev("r1", 3)], owners={"r1": "own_a"}) == ["r1"]


def test_a_resume_takes_the_run_with_a_new_token(store: Store) -> None:  # noqa: F811
    store.save_run(_run("r1"))
    store.save_run(_run("r1", status="paused"))
    assert store.transition_run("t1", "r1", ("paused",), "running", new_owner="own_b")
    assert store.append_events("t1", [_ev("r1", 1)], owners={"r1": "own_a"}) == ["r1"]
    assert store.append_events("t1", [_ev("r1", 1)], owners={"r1": "own_b"}) == []


def test_the_recorder_stops_writing_a_run_it_lost(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "r.db") as db:
        state = RunState(run_id="run_x", thread_id="th", question="Why?", tenant="t1",
                         started_at=NOW - timedelta(minutes=10))
        recorder = RunRecorder(db, state, flush_every=1)
        asyncio.run(recorder.begin(resuming=False))
        db.touch_runs([])  # (nothing)
        record = db.get_run("t1", "run_x")
        assert record is not None and record.owner == recorder.owner
        db.save_run(replace(record, updated_at=NOW - timedelta(minutes=10)))  # gone stale
        assert end_lost_runs(db, lease_s=60) == ["run_x"]
        with pytest.raises(UsageError) as err:
            recorder.add(RunStarted(run_id="run_x", thread_id="th", seq=2, question="Why?",
                                    model="m"))
        assert err.value.code == "run_not_owned"
        assert _kinds(db, "run_x") == ["error"]


def test_an_old_database_gets_the_owner_column(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "old.db").close()
    with sqlite3.connect(tmp_path / "old.db") as conn:  # as a database before m005 was
        conn.execute("ALTER TABLE runs DROP COLUMN owner")
        conn.execute("DELETE FROM _migrations WHERE name = 'm005_runs_owner'")
    with SQLiteStore(tmp_path / "old.db") as db:
        assert "m005_runs_owner" in db.applied_migrations
        db.save_run(_run("r1"))
        assert db.append_events("t1", [_ev("r1", 1)], owners={"r1": "own_b"}) == ["r1"]


TOOL_CALLS: list[str] = []


async def side_effect(label: str) -> str:
    """Record that the tool ran.

    Args:
        label: What to record.
    """
    TOOL_CALLS.append(label)
    return "done"


@pytest.mark.slow
def test_a_server_run_taken_over_stops_before_its_tool_runs(tmp_path: Path) -> None:
    """The sweep of 'another replica' (the test, on the same database) takes the run over
    while its model thinks; the process that drove it then writes nothing more, and the
    tool the model asks for next never runs."""
    TOOL_CALLS.clear()
    model = PacedModel([call("side_effect", label="after the loss"), "Done."], delay=1.5)
    config = ServerConfig(data_dir=tmp_path / "srv", rate_limit_per_s=0, auth="none")
    with serve(create_app(config, model=lambda: model, tools=[side_effect])) as url, \
            httpx.Client(base_url=url, timeout=30) as http, \
            SQLiteStore(tmp_path / "srv" / "citewise.db") as other:
        r = http.post("/v1/runs", json={"question": "Do the thing", "background": True})
        assert r.status_code in (200, 201, 202), r.text
        run_id = r.json()["run_id"]
        deadline = time.monotonic() + 10
        while not other.read_events("default", run_id):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        later = datetime.now(UTC) + timedelta(minutes=5)  # as if its lease ran out
        assert end_lost_runs(other, lease_s=60, now=later) == [run_id]
        deadline = time.monotonic() + 10
        while True:
            status: Any = http.get(f"/v1/runs/{run_id}").json()
            if status.get("status") != "running":
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.05)
        time.sleep(2.0)  # the model's turn is over: had it gone on, the tool had run
        kinds = [e.kind for e in other.read_events("default", run_id)]
        record = other.get_run("default", run_id)
    assert TOOL_CALLS == []
    assert kinds[-1] == "error" and sum(k in ("run_finished", "error") for k in kinds) == 1
    assert "action" not in kinds
    assert record is not None and record.status == "failed"


@pytest.mark.slow
@pytest.mark.postgres
def test_a_stopped_writer_holding_a_runs_lock_does_not_block_the_sweep_for_ever(
        pg_url: str) -> None:  # noqa: F811
    """A process stopped inside a run write's transaction holds the run's row lock; the
    server ends its idle session after HOLD_S, so the sweep gets the run."""
    from citewise.store.postgres import PostgresStore

    with PostgresStore(pg_url) as stalled, PostgresStore(pg_url) as sweeper:
        stale = NOW - timedelta(minutes=10)
        stalled.save_run(_run("r1", updated=stale))
        failed: list[BaseException] = []

        def stop_mid_transaction() -> None:
            try:
                with stalled.transaction():
                    stalled.append_events("t1", [_ev("r1", 1)], owners={"r1": "own_a"})
                    time.sleep(HOLD_S + 3)  # SIGSTOP, as far as the database can tell
            except sa.exc.SQLAlchemyError as exc:
                failed.append(exc)

        holder = threading.Thread(target=stop_mid_transaction)
        holder.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        assert end_lost_runs(sweeper, lease_s=60) == ["r1"]
        waited = time.monotonic() - t0
        holder.join()
        assert waited < HOLD_S + 2.5
        assert failed  # its session was ended: its write never committed
        assert _kinds(sweeper, "r1") == ["error"]
