"""The peers benchmark's citewise script runs its task through the real Agent (no timing).

The numbers live in bench/results/peers.json; this only proves the script still works
against the current code: one 1-step run in memory, and one with a SQLite store whose
event log must then hold every event of the run.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PEERS = Path(__file__).resolve().parent.parent / "bench" / "peers"


def _once(*args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(PEERS / "run_citewise.py"), "once", *args],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


@pytest.mark.parametrize("args", [(), ("--provenance", "off")])
def test_bench_script_runs_one_in_memory_run(args: tuple[str, ...]) -> None:
    out = _once(*args)
    assert out["answer"] == "done"
    assert out["tool_calls"] == 1


def test_bench_task_with_sqlite_logs_every_event(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.syspath_prepend(str(PEERS))
    monkeypatch.setattr(sys, "argv", ["run_citewise.py"])
    import harness
    import run_citewise

    from citewise.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "bench.db")
    try:
        from citewise import Agent
        from citewise.agent.state import RunSettings

        agent = Agent(model=run_citewise.BenchModel(3), store=store,
                      settings=RunSettings(max_steps=10),
                      tools=[_bench_tool(harness)])

        async def run() -> list[Any]:
            return [ev async for ev in agent.stream(harness.QUESTION)]

        events = asyncio.run(run())
        assert events[-1].kind == "run_finished"
        assert sum(ev.kind == "action" for ev in events) == 3
        logged = store.read_events("default", events[0].run_id)
        assert [e.seq for e in logged] == [ev.seq for ev in events]
        assert [e.kind for e in logged] == [ev.kind for ev in events]
    finally:
        store.close()


def _bench_tool(harness: Any) -> Any:
    from citewise import tool

    @tool
    async def lookup(query: str) -> str:
        """Look something up.

        Args:
            query: What to look up.
        """
        return str(harness.PAYLOAD)

    return lookup


@pytest.mark.parametrize("variant", ["citewise", "noprov", "noprov-unvalidated",
                                     "noprov-unvalidated-nogc", "bare"])
def test_ceiling_variant_does_the_task(variant: str) -> None:
    # The harness exits non-zero unless every run answered and made its 3 calls. The
    # subprocess inherits CITEWISE_CHECK_TRUSTED=1 from conftest, so each event the
    # "unvalidated" variants build is also validated and compared there: they skip the
    # work of validation, not any of its outcome.
    proc = subprocess.run([sys.executable, str(PEERS / "ceiling.py"), "one", variant, "5"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (out["variant"], out["runs"]) == (variant, 5)
