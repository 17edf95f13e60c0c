"""citewise on the shared scripted task (see ``harness.py``).

Everything goes through the public ``Agent`` and so through the real ReAct loop
(``citewise.agent.loop.run_agent``): validated pydantic events, validated tool arguments,
the evidence/answer assembly, and — with ``--store sqlite`` — the durable event log
(``RunRecorder`` batching into a ``SQLiteStore`` on a temporary file).

The model is the minimal implementation of ``citewise.models.base.Model``: it counts the
tool results in the request and asks for one more call until ``n`` are done, like the
peers' fake models. (``ScriptedModel`` would also work but pops from a per-instance queue
and re-counts every message's words for usage, which is model work, not runtime work.)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import harness

from citewise import Agent, tool
from citewise.agent.state import RunSettings
from citewise.models.base import ModelRequest, TextDelta, ToolCall, ToolCallPart, UsagePart


def _option(name: str) -> str | None:
    if name not in sys.argv:
        return None
    i = sys.argv.index(name)
    value = sys.argv[i + 1]
    del sys.argv[i : i + 2]
    return value


STORE = _option("--store")  # "sqlite": attach a SQLiteStore on a temporary file
# "off": Agent(provenance=False), i.e. no PROV-O ``explain`` events (the peers have none).
PROVENANCE = _option("--provenance") != "off"


class BenchModel:
    """Asks for ``n`` tool calls, one per turn, then answers."""

    def __init__(self, n: int) -> None:
        self.n = n

    @property
    def name(self) -> str:
        return "bench"

    async def stream(
        self, request: ModelRequest
    ) -> AsyncGenerator[TextDelta | ToolCallPart | UsagePart, None]:
        done = sum(1 for m in request.messages if m.role == "tool")
        if done < self.n:
            yield ToolCallPart(call=ToolCall(id=f"call_{done}", name="lookup", arguments={"query": "q"}))
        else:
            yield TextDelta(text=harness.ANSWER)
        yield UsagePart(input_tokens=10, output_tokens=5)


def factory(sleep: bool) -> Any:
    @tool
    async def lookup(query: str) -> str:
        """Look something up.

        Args:
            query: What to look up.
        """
        if sleep:
            await asyncio.sleep(harness.SLEEP_S)
        return harness.PAYLOAD

    store: Any = None
    if STORE == "sqlite":
        from citewise.store.sqlite import SQLiteStore

        tmp = tempfile.mkdtemp(prefix="citewise-bench-")
        store = SQLiteStore(Path(tmp) / "bench.db")
    elif STORE:
        raise SystemExit(f"unknown store {STORE!r}")
    settings = RunSettings(max_steps=50)
    agents = {n: Agent(model=BenchModel(n), tools=[lookup], store=store, settings=settings,
                       provenance=PROVENANCE) for n in (1, 3, 10)}

    class Runtime:
        async def run(self, n: int) -> tuple[str, int]:
            calls = 0
            text = ""
            async for ev in agents[n].stream(harness.QUESTION):
                if ev.kind == "action":
                    calls += 1
                elif ev.kind == "run_finished":
                    text = ev.answer.text
            return text, calls

        def stream(self, n: int) -> AsyncIterator[Any]:
            return agents[n].stream(harness.QUESTION)

    return Runtime()


if __name__ == "__main__":
    name = "citewise" + ("+sqlite" if STORE == "sqlite" else "") + ("" if PROVENANCE else "-noprov")
    harness.main(name, factory, {"citewise": version("citewise"), "pydantic": version("pydantic")})
