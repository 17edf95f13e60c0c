"""Run leases: a run whose process died is ended (``run_lost``) instead of staying
``running`` for ever; a live run keeps its lease (library and HTTP service).

The store-level tests run on SQLite and on PostgreSQL (the ``store`` fixture)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from _stores import pg_server, pg_url, store  # noqa: F401  (fixtures)
from citewise.agent import lease
from citewise.agent.lease import end_lost_runs, last_seq
from citewise.agent.runner import Agent
from citewise.agent.state import RunSettings
from citewise.agent.tools import tool
from citewise.models.scripted import ScriptedModel, call
from citewise.server.testing import serve
from citewise.store.base import EventRecord, RunRecord, Store
from citewise.store.sqlite import SQLiteStore
from test_server import make_app, read_events

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _run(run_id: str, tenant: str = "t1", *, status: str = "running",
         updated: datetime = NOW) -> RunRecord:
    return RunRecord(id=run_id, tenant=tenant, thread_id="th1", question="Why?",
                     status=status,  # type: ignore[arg-type]
                     state={"seq": 2}, answer=None, created_at=updated, updated_at=updated)


def _events(run_id: str, n: int) -> list[EventRecord]:
    return [EventRecord(run_id, i, "thought", {"seq": i, "text": f"t{i}"}) for i in range(1, n + 1)]


def test_touch_and_stale_runs(store: Store) -> None:  # noqa: F811
    hour = timedelta(hours=1)
    store.save_run(_run("r1", updated=NOW - 3 * hour))
    store.save_run(_run("r2", status="paused", updated=NOW - 3 * hour))
    store.save_run(_run("r3", "t2", updated=NOW - 2 * hour))
    store.save_run(_run("r4", updated=NOW))
    assert [r.id for r in store.stale_runs(NOW - hour)] == ["r1", "r3"]  # oldest first
    assert [r.id for r in store.stale_runs(NOW - hour, limit=1)] == ["r1"]
    # Renewing: only running runs, and only under their own tenant.
    store.touch_runs([("t1", "r1"), ("t1", "r2"), ("t1", "r3"), ("t1", "missing")])
    assert [r.id for r in store.stale_runs(NOW - hour)] == ["r3"]
    paused = store.get_run("t1", "r2")
    assert paused is not None and paused.updated_at == NOW - 3 * hour
    touched = store.get_run("t1", "r1")
    assert touched is not None and touched.updated_at > NOW - hour
    store.touch_runs([])
    # A conditional end: a run touched since the cutoff is left alone.
    assert not store.transition_run("t1", "r1", ("running",), "failed",
                                    untouched_since=NOW - hour)
    assert store.transition_run("t2", "r3", ("running",), "failed", untouched_since=NOW - hour)
    assert store.get_run("t2", "r3").status == "failed"  # type: ignore[union-attr]


def test_end_lost_runs(store: Store) -> None:  # noqa: F811
    lost = _run("lost", updated=NOW - timedelta(minutes=10))
    store.save_run(lost)
    store.append_events("t1", _events("lost", 3))
    store.save_run(_run("alive", updated=NOW - timedelta(seconds=30)))
    store.save_run(_run("paused", status="paused", updated=NOW - timedelta(days=2)))
    store.save_run(_run("mine", updated=NOW - timedelta(days=1)))

    assert end_lost_runs(store, lease_s=120, now=NOW, skip={"mine"}) == ["lost"]
    run = store.get_run("t1", "lost")
    assert run is not None and run.status == "failed"
    events = store.read_events("t1", "lost")
    assert [e.seq for e in events] == [1, 2, 3, 4] and last_seq(store, "t1", "lost") == 4
    end = events[-1].data
    assert events[-1].kind == "error" and end["code"] == lease.LOST_CODE
    assert end["end_of_dialog"] is True and end["answer"]["status"] == "failed"
    assert isinstance(run.answer, dict) and run.answer["error"]["code"] == lease.LOST_CODE
    for other, status in (("alive", "running"), ("paused", "paused"), ("mine", "running")):
        assert store.get_run("t1", other).status == status  # type: ignore[union-attr]
    # Idempotent: nothing more to end, and no second terminal event.
    assert end_lost_runs(store, lease_s=120, now=NOW, skip={"mine"}) == []
    assert last_seq(store, "t1", "lost") == 4


def test_a_run_renews_its_lease_while_a_tool_runs(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease, "HEARTBEAT_S", 0.05)
    seen: list[datetime] = []

    @tool
    async def slow() -> str:
        """Take a while."""
        # Long enough that one pause of the whole process (a full collection of the test
        # run's large heap) cannot hide every renewal from the observer below.
        await asyncio.sleep(1.2)
        return "done"

    db = SQLiteStore(tmp_path / "runs.db")

    async def go() -> str:
        agent = Agent(model=ScriptedModel([[call("slow")], "Finished."]), tools=[slow],
                      store=db, settings=RunSettings(max_steps=4))
        task = asyncio.ensure_future(agent.ask_async("Take your time"))
        while not task.done():
            await asyncio.sleep(0.05)
            seen.extend(r.updated_at for r in db.list_runs("default")
                        if r.status == "running")
        return (await task).text

    try:
        assert asyncio.run(go()) == "Finished."
        # The record was written at the start, then renewed while the tool slept.
        assert len(set(seen)) >= 3, seen
        assert end_lost_runs(db, lease_s=120) == []
    finally:
        db.close()


@pytest.mark.slow
def test_the_service_ends_a_run_whose_process_died(tmp_path: Path) -> None:
    data = tmp_path / "srv"
    # Two replicas sharing one database, each sweeping for lost runs with a 1 s lease.
    with serve(make_app(data, run_lease_s=1.0)) as url_a, \
            serve(make_app(data, run_lease_s=1.0)) as url_b, \
            httpx.Client(base_url=url_a, timeout=30) as a, \
            httpx.Client(base_url=url_b, timeout=30) as b:
        # A run that lasts longer than the lease, on A: A renews its lease, so B (which
        # does not run it) must not end it.
        live = a.post("/v1/runs", json={"question": "slow run", "background": True}).json()
        # A run a killed process left behind in the shared database: running, 2 events.
        other = SQLiteStore(data / "citewise.db")
        try:
            other.create_thread("default", "th1")
            other.save_run(_run("orphan", "default",
                                updated=datetime.now(UTC) - timedelta(hours=1)))
            other.append_events("default", [
                EventRecord("orphan", i, "thought",
                            {"kind": "thought", "run_id": "orphan", "thread_id": "th1", "seq": i,
                             "message_id": "m1", "step": 1, "text": f"t{i}"})
                for i in (1, 2)])
        finally:
            other.close()
        assert _settled(b, "orphan") == "failed"
        with b.stream("GET", "/v1/runs/orphan/events") as s:
            events = read_events(s)
        assert [e.seq for e in events] == [1, 2, 3]
        assert events[-1].kind == "error"
        assert events[-1].code == "run_lost"  # type: ignore[union-attr]
        info = a.get("/v1/runs/orphan").json()
        assert info["status"] == "failed" and info["answer"]["error"]["code"] == "run_lost"
        assert _settled(b, live["run_id"]) == "completed"
        with b.stream("GET", live["events_url"]) as s:
            done = read_events(s)
        assert done[-1].kind == "run_finished", [e.kind for e in done]


def _settled(http: httpx.Client, run_id: str) -> str:
    """The run's status once it is no longer running (a stream of a run that never ends
    would only send heartbeats: poll, with a limit, instead)."""
    deadline = time.monotonic() + 30
    while (status := http.get(f"/v1/runs/{run_id}").json()["status"]) == "running":
        assert time.monotonic() < deadline, f"{run_id} is still running"
        time.sleep(0.1)
    return str(status)
