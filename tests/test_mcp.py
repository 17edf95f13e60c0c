"""MCP both ways, with real subprocesses: a server built with the `mcp` SDK whose tools a
run uses (stdio and streamable HTTP), and `citewise mcp` driven by the official client."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from citewise.agent.runner import Agent
from citewise.agent.state import Decision
from citewise.events import Event
from citewise.knowledge.base import KnowledgeBase
from citewise.mcp.client_tools import MCPServerConfig, MCPTools, mcp_tools
from citewise.models.scripted import ScriptedModel, call
from citewise.store.sqlite import SQLiteStore

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ORDERS = HERE / "mcp_servers" / "orders_server.py"
SAMPLES = HERE.parent / "src" / "citewise" / "samples" / "handbook"


def stdio_config(tmp_path: Path, **kw: Any) -> MCPServerConfig:
    return MCPServerConfig(name="orders", command=sys.executable, args=[str(ORDERS)],
                           env={"ORDERS_CALL_LOG": str(tmp_path / "calls.jsonl")}, **kw)


def calls(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "calls.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    return [e async for e in events]


def test_mcp_stdio_tools_in_a_run_with_approval(tmp_path: Path) -> None:
    config = stdio_config(tmp_path, requires_approval=["lookup_order"])

    async def go() -> tuple[list[Event], list[Event], list[Any]]:
        async with MCPTools(config) as m:
            tools = {t.name: t for t in m.tools}
            store = SQLiteStore(tmp_path / "c.db")
            try:
                model = ScriptedModel([
                    [call("warehouse_stock", sku="KETTLE"), call("lookup_order")],
                    call("lookup_order", order_id="A-1"),
                    "Order A-1 has shipped.",
                ])
                agent = Agent(store=store, model=model, tools=m.tools)
                first = await collect(agent.stream("Where is my order A-1?"))
                paused = first[-1]
                assert paused.kind == "run_paused"
                second = await collect(agent.resume(paused.run_id, [
                    Decision(interrupt_id=paused.interrupts[0].id, action="approve")]))
            finally:
                store.close()
            return first, second, [tools["lookup_order"], tools["warehouse_stock"]]

    first, second, (lookup, stock) = asyncio.run(go())
    # The MCP tools keep their JSON Schemas (and descriptions).
    assert lookup.spec().parameters["required"] == ["order_id"]
    assert "status of an order" in lookup.description
    assert lookup.requires_approval and not stock.requires_approval
    # Step 1: an MCP tool error and a schema-invalid call both become error observations.
    obs = [e for e in first if e.kind == "observation"]
    assert obs[0].is_error and "warehouse system offline" in obs[0].text
    assert obs[1].is_error and "order_id" in obs[1].text
    # Step 2 paused before calling the server; approved, it ran exactly once.
    done = second[-1]
    assert done.kind == "run_finished" and done.answer.text == "Order A-1 has shipped."
    (result,) = [e for e in second if e.kind == "observation"]
    assert not result.is_error and result.text.startswith("<untrusted>")
    assert '"status": "shipped"' in result.text or "shipped" in result.text
    assert [c["tool"] for c in calls(tmp_path)] == ["warehouse_stock", "lookup_order"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, str(ORDERS), "--http", str(port)],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def test_mcp_streamable_http_tool_result_checked_by_guardrail(http_server: str) -> None:
    config = MCPServerConfig(name="orders", url=http_server, tool_prefix="shop_")

    async def go() -> list[Event]:
        async with mcp_tools(config) as tools:
            assert {t.name for t in tools} == {"shop_lookup_order", "shop_warehouse_stock"}
            model = ScriptedModel([call("shop_lookup_order", order_id="A-3"),
                                   "Order A-3 is on hold."])
            agent = Agent(model=model, tools=tools, guardrails={"prompt_injection": "warn"})
            return await collect(agent.stream("What about order A-3?"))

    events = asyncio.run(go())
    assert events[-1].kind == "run_finished"
    (obs,) = [e for e in events if e.kind == "observation"]
    assert not obs.is_error and "on hold" in obs.text
    (w,) = [e for e in events if e.kind == "warning" and e.code == "prompt_injection"]
    assert w.details["tool"] == "shop_lookup_order"
    assert "ignore_instructions" in w.details["patterns"]


def test_mcp_tools_per_call_connection(http_server: str) -> None:
    async def go() -> list[Event]:
        config = MCPServerConfig(name="orders", url=http_server, include=["lookup_order"])
        tools = await MCPTools(config).load()  # no session is kept: each call connects
        assert [t.name for t in tools] == ["lookup_order"]
        model = ScriptedModel([call("lookup_order", order_id="A-2"), "A-2 is processing."])
        return await collect(Agent(model=model, tools=tools).stream("A-2?"))

    events = asyncio.run(go())
    (obs,) = [e for e in events if e.kind == "observation"]
    assert "processing" in obs.text and events[-1].kind == "run_finished"


def test_mcp_citewise_server_ask_and_search_with_official_client(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with KnowledgeBase.open(data) as kb:
        assert not kb.ingest([SAMPLES]).failed
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "citewise.cli.main", "mcp", "--data-dir", str(data)])

    async def go() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(params, read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            out["tools"] = {t.name: t for t in listed.tools}
            out["search"] = await client.call_tool("search", {"query": "refund returned item"})
            out["ask"] = await client.call_tool(
                "ask", {"question": "How long does a refund take once the returned item arrives?"})
            out["empty"] = await client.call_tool("ask", {"question": "  "})
        return out

    out = asyncio.run(go())
    assert set(out["tools"]) == {"ask", "resume", "search"}
    assert out["tools"]["ask"].input_schema["required"] == ["question"]
    assert out["tools"]["resume"].input_schema["required"] == ["run_id", "decisions"]
    assert out["tools"]["search"].input_schema["required"] == ["query"]
    assert "citations" in out["tools"]["ask"].output_schema["properties"]

    search = out["search"]
    assert not search.is_error
    results = search.structured_content["results"]
    assert results and any(r["source"].endswith("returns-and-refunds.md") for r in results)
    assert all(r["end_char"] - r["start_char"] == len(r["text"]) for r in results)

    ask = out["ask"]
    assert not ask.is_error
    answer = ask.structured_content
    assert "5 business days" in answer["answer"] and answer["status"] == "completed"
    assert answer["citations"] and answer["run_id"].startswith("run_")
    assert answer["interrupts"] == []
    with KnowledgeBase.open(data) as kb:
        for c in answer["citations"]:
            doc = kb.find_document(c["source"])
            assert doc is not None
            assert doc.text[c["start_char"]:c["end_char"]] == c["excerpt"]

    assert out["empty"].is_error
    assert "[empty_question]" in out["empty"].content[0].text
