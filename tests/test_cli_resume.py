"""``citewise resume`` and ``citewise cancel`` on a real data dir: decisions from flags,
refusals with stable codes and exit code 2, and a resume in a fresh process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citewise.agent.runner import Agent
from citewise.agent.tools import tool
from citewise.cli.main import main
from citewise.events import RunPaused
from citewise.knowledge.base import KnowledgeBase
from citewise.models.scripted import ScriptedModel, call

SAMPLES = Path(__file__).resolve().parent.parent / "src" / "citewise" / "samples" / "handbook"
QUESTION = "Move 500 EUR, then: how long does a refund take once the returned item arrives?"


@tool(requires_approval=True)
def transfer(amount: int) -> str:
    """Move money."""
    raise AssertionError("the CLI never has this tool; it must not run")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    with KnowledgeBase.open(d) as kb:
        assert not kb.ingest([SAMPLES]).failed
    return d


def pause(data: Path) -> RunPaused:
    with KnowledgeBase.open(data) as kb:
        agent = Agent(kb, model=ScriptedModel([call("transfer", amount=500)]), tools=[transfer])

        async def go() -> Any:
            return [e async for e in agent.stream(QUESTION)][-1]

        paused = asyncio.run(go())
    assert isinstance(paused, RunPaused)
    return paused


def cli(*argv: str) -> int:
    return main(list(argv))


def test_cli_resume_reject_continues_the_run(data: Path, capsys: pytest.CaptureFixture[str]
                                             ) -> None:
    paused = pause(data)
    iid = paused.interrupts[0].id
    code = cli("resume", paused.run_id, "--reject", f"{iid}:not today", "--json", "-q",
               "--data-dir", str(data))
    out = capsys.readouterr().out
    assert code == 0
    answer = json.loads(out)
    assert answer["status"] == "completed" and "5 business days" in answer["text"]
    assert answer["tool_calls"][0] == {"id": paused.interrupts[0].call_id, "name": "transfer",
                                       "arguments": {"amount": 500}, "is_error": True}
    # Resuming again is refused with a stable code.
    assert cli("resume", paused.run_id, "--approve", iid, "--data-dir", str(data)) == 2
    assert "[run_already_resumed]" in capsys.readouterr().err


def test_cli_resume_refusals_exit_2_and_change_nothing(data: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    paused = pause(data)
    iid = paused.interrupts[0].id
    d = str(data)
    cases = [
        (["--approve", iid], "[unknown_tool]"),  # this process has no `transfer`
        (["--approve", "int_nope"], "[unknown_interrupt]"),
        (["--edit", f"{iid}=not json"], "[invalid_decision]"),
        ([], "[missing_decision]"),
    ]
    for flags, code in cases:
        assert cli("resume", paused.run_id, *flags, "--data-dir", d) == 2, flags
        assert code in capsys.readouterr().err, flags
    with KnowledgeBase.open(data) as kb:
        record = kb.store.get_run("default", paused.run_id)
        assert record is not None and record.status == "paused"


def test_cli_cancel_paused_run_then_resume_is_refused(data: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    paused = pause(data)
    d = str(data)
    assert cli("cancel", paused.run_id, "--data-dir", d) == 0
    assert "cancelled" in capsys.readouterr().err
    assert cli("cancel", paused.run_id, "--data-dir", d) == 2
    assert "[run_not_cancellable]" in capsys.readouterr().err
    assert cli("cancel", "run_unknown", "--data-dir", d) == 2
    assert "[unknown_run]" in capsys.readouterr().err
    assert cli("resume", paused.run_id, "--result", f"{paused.interrupts[0].id}=1",
               "--data-dir", d) == 2
    assert "[run_not_paused]" in capsys.readouterr().err
    with KnowledgeBase.open(data) as kb:
        events = kb.store.read_events("default", paused.run_id)
        assert events[-1].kind == "error" and events[-1].data["code"] == "run_cancelled"


@pytest.mark.slow
def test_cli_resume_with_external_result_in_a_new_process(data: Path) -> None:
    paused = pause(data)
    iid = paused.interrupts[0].id
    proc = subprocess.run(
        [sys.executable, "-m", "citewise.cli.main", "resume", paused.run_id,
         "--result", f'{iid}={{"moved": 500}}', "--json", "-q", "--data-dir", str(data)],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["status"] == "completed"
    assert answer["tool_calls"][0]["name"] == "transfer"
    assert not answer["tool_calls"][0]["is_error"]
