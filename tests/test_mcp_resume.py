"""Human in the loop over MCP: a run that pauses in `ask` comes back with its interrupts,
and the `resume` tool continues it (approve, reject, edit, external result) or refuses bad
decisions with citewise's stable code. Each test drives a real MCP session (the official
client, connected in-process to `build_server`) with a scripted model."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from citewise.agent.runner import Agent
from citewise.agent.tools import tool
from citewise.knowledge.base import KnowledgeBase
from citewise.mcp.server import build_server
from citewise.models.base import ToolMessage
from citewise.models.scripted import ScriptedModel, Turn, call

CALLS: Counter[str] = Counter()  # executions per tool and arguments: the exactly-once ledger
T = TypeVar("T")


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    CALLS.clear()


@tool(requires_approval=True)
def issue_refund(order_id: str, amount: int) -> str:
    """Refund an order.

    Args:
        order_id: The order number, e.g. "A-1".
        amount: How much to refund, in EUR.
    """
    CALLS[f"issue_refund:{order_id}:{amount}"] += 1
    return f"refunded {amount} EUR on {order_id}"


@tool(external=True)
def ship_parcel(order_id: str) -> str:
    """Ship a parcel (the host does it)."""
    CALLS["ship_parcel"] += 1  # never: the host executes it
    return "never"


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(tmp_path / "kb") as k:
        yield k


def make_server(kb: KnowledgeBase, *turns: Turn) -> tuple[MCPServer[Any], ScriptedModel]:
    model = ScriptedModel(list(turns))
    agent = Agent(kb, model=model, tools=[issue_refund, ship_parcel])
    return build_server(kb, agent=agent), model


def session(server: MCPServer[Any], body: Callable[[Client], Awaitable[T]]) -> T:
    async def go() -> T:
        async with Client(server, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    text: str = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    return text


def decision(paused: dict[str, Any], action: str, **extra: Any) -> dict[str, Any]:
    return {"interrupt_id": paused["interrupts"][0]["id"], "action": action, **extra}


REFUND = "Refund 40 EUR on order A-1, please."


def test_paused_ask_carries_interrupts_and_approve_runs_the_call_once(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb, call("issue_refund", order_id="A-1", amount=40),
                            "The refund of 40 EUR on order A-1 is done.")

    async def body(client: Client) -> tuple[Any, ...]:
        paused = await client.call_tool("ask", {"question": REFUND})
        assert not CALLS  # paused before the call ran
        done = await client.call_tool("resume", {
            "run_id": ok(paused)["run_id"], "decisions": [decision(ok(paused), "approve")]})
        again = await client.call_tool("resume", {
            "run_id": ok(paused)["run_id"], "decisions": [decision(ok(paused), "approve")]})
        return ok(paused), ok(done), again

    paused, done, again = session(server, body)
    assert paused["status"] == "paused" and paused["run_id"].startswith("run_")
    (interrupt,) = paused["interrupts"]
    assert interrupt["id"].startswith("int_") and interrupt["tool"] == "issue_refund"
    assert interrupt["input"] == {"order_id": "A-1", "amount": 40}
    assert interrupt["reason"] == "issue_refund requires approval"
    assert interrupt["expires_at"]
    schema = interrupt["response_schema"]
    assert schema["properties"]["action"]["enum"] == ["approve", "reject", "edit", "result"]
    assert schema["properties"]["interrupt_id"] == {"const": interrupt["id"]}

    assert done["status"] == "completed" and done["interrupts"] == []
    assert done["answer"] == "The refund of 40 EUR on order A-1 is done."
    assert (done["run_id"], done["thread_id"]) == (paused["run_id"], paused["thread_id"])
    assert dict(CALLS) == {"issue_refund:A-1:40": 1}
    # The same decisions again: refused, and the call does not run a second time.
    assert "[run_already_resumed]" in error_text(again)
    assert dict(CALLS) == {"issue_refund:A-1:40": 1}


def test_resume_with_reject_tells_the_model_and_skips_the_call(kb: KnowledgeBase) -> None:
    server, model = make_server(kb, call("issue_refund", order_id="A-1", amount=40),
                                "I could not refund order A-1: the refund was declined.")

    async def body(client: Client) -> dict[str, Any]:
        paused = ok(await client.call_tool("ask", {"question": REFUND}))
        return ok(await client.call_tool("resume", {"run_id": paused["run_id"], "decisions": [
            decision(paused, "reject", message="over the refund limit")]}))

    done = session(server, body)
    assert done["status"] == "completed"
    assert done["answer"] == "I could not refund order A-1: the refund was declined."
    assert not CALLS
    (observation,) = [m for m in model.requests[-1].messages if isinstance(m, ToolMessage)]
    assert observation.is_error
    assert observation.content == "The user rejected this call: over the refund limit"


def test_resume_with_edit_runs_the_edited_call(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb, call("issue_refund", order_id="A-1", amount=400),
                            "Refunded 40 EUR on order A-1.")

    async def body(client: Client) -> dict[str, Any]:
        paused = ok(await client.call_tool("ask", {"question": REFUND}))
        assert paused["interrupts"][0]["input"] == {"order_id": "A-1", "amount": 400}
        return ok(await client.call_tool("resume", {"run_id": paused["run_id"], "decisions": [
            decision(paused, "edit", input={"order_id": "A-1", "amount": 40})]}))

    assert session(server, body)["status"] == "completed"
    assert dict(CALLS) == {"issue_refund:A-1:40": 1}


def test_resume_that_pauses_again_returns_the_new_interrupts(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb, call("issue_refund", order_id="A-1", amount=40),
                            call("issue_refund", order_id="A-2", amount=15), "Both refunded.")

    async def body(client: Client) -> tuple[dict[str, Any], ...]:
        first = ok(await client.call_tool("ask", {"question": "Refund A-1 and A-2."}))
        second = ok(await client.call_tool("resume", {
            "run_id": first["run_id"], "decisions": [decision(first, "approve")]}))
        third = ok(await client.call_tool("resume", {
            "run_id": first["run_id"], "decisions": [decision(second, "approve")]}))
        return first, second, third

    first, second, third = session(server, body)
    assert second["status"] == "paused" and second["run_id"] == first["run_id"]
    (interrupt,) = second["interrupts"]
    assert interrupt["input"] == {"order_id": "A-2", "amount": 15}
    assert interrupt["id"] != first["interrupts"][0]["id"]
    assert third["status"] == "completed" and third["answer"] == "Both refunded."
    assert dict(CALLS) == {"issue_refund:A-1:40": 1, "issue_refund:A-2:15": 1}


def test_external_tool_takes_a_result_not_an_approval(kb: KnowledgeBase) -> None:
    server, model = make_server(kb, call("ship_parcel", order_id="A-1"), "Parcel A-1 shipped.")

    async def body(client: Client) -> tuple[Any, ...]:
        paused = ok(await client.call_tool("ask", {"question": "Ship A-1."}))
        approve = await client.call_tool("resume", {
            "run_id": paused["run_id"], "decisions": [decision(paused, "approve")]})
        done = await client.call_tool("resume", {"run_id": paused["run_id"], "decisions": [
            decision(paused, "result", result={"tracking": "TRK-9"})]})
        return paused, approve, ok(done)

    paused, approve, done = session(server, body)
    schema = paused["interrupts"][0]["response_schema"]
    assert schema["properties"]["action"]["enum"] == ["result", "reject"]
    assert "[invalid_decision]" in error_text(approve)
    assert done["status"] == "completed" and done["answer"] == "Parcel A-1 shipped."
    (observation,) = [m for m in model.requests[-1].messages if isinstance(m, ToolMessage)]
    assert "TRK-9" in observation.content and not observation.is_error
    assert not CALLS


BAD_DECISIONS: list[tuple[Callable[[str], Any], str]] = [
    (lambda iid: [{"interrupt_id": iid, "action": "maybe"}], "[invalid_decision]"),
    (lambda iid: [{"interrupt_id": iid, "action": "approve", "why": "x"}],
     "[invalid_decision]"),
    (lambda iid: [{"action": "approve"}], "[invalid_decision]"),
    (lambda iid: "approve", "[invalid_decision]"),
    (lambda iid: [{"interrupt_id": iid, "action": "approve"}] * 101, "[invalid_decision]"),
    (lambda iid: [{"interrupt_id": iid, "action": "approve", "input": {"amount": 1}}],
     "[invalid_decision]"),
    (lambda iid: [{"interrupt_id": iid, "action": "edit", "input": {"amount": "lots"}}],
     "[invalid_decision]"),
    (lambda iid: [{"interrupt_id": "int_nope", "action": "approve"}], "[unknown_interrupt]"),
    (lambda iid: [{"interrupt_id": iid, "action": "approve"}] * 2, "[duplicate_decision]"),
    (lambda iid: [], "[missing_decision]"),
]


def test_bad_decisions_are_typed_errors_and_leave_the_run_paused(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb, call("issue_refund", order_id="A-1", amount=40), "Refunded.")

    async def body(client: Client) -> tuple[list[str], dict[str, Any]]:
        paused = ok(await client.call_tool("ask", {"question": REFUND}))
        iid = paused["interrupts"][0]["id"]
        texts = []
        for make, _code in BAD_DECISIONS:
            result = await client.call_tool("resume", {"run_id": paused["run_id"],
                                                       "decisions": make(iid)})
            texts.append(error_text(result))
        done = ok(await client.call_tool("resume", {
            "run_id": paused["run_id"], "decisions": [decision(paused, "approve")]}))
        return texts, done

    texts, done = session(server, body)
    for text, (_make, code) in zip(texts, BAD_DECISIONS, strict=True):
        assert code in text, text
    assert "decisions[0].action" in texts[0]  # says where the decision is wrong
    # Nothing was written by the refusals: the run still takes a good decision, once.
    assert done["status"] == "completed" and done["answer"] == "Refunded."
    assert dict(CALLS) == {"issue_refund:A-1:40": 1}


def test_resume_unknown_or_finished_run_is_a_typed_error(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb, "Nothing to do.")

    async def body(client: Client) -> tuple[Any, ...]:
        unknown = await client.call_tool("resume", {
            "run_id": "run_00000000000000000000",
            "decisions": [{"interrupt_id": "int_x", "action": "approve"}]})
        finished = ok(await client.call_tool("ask", {"question": "Anything to do?"}))
        not_paused = await client.call_tool("resume", {
            "run_id": finished["run_id"],
            "decisions": [{"interrupt_id": "int_x", "action": "approve"}]})
        return unknown, finished, not_paused

    unknown, finished, not_paused = session(server, body)
    assert "[unknown_run]" in error_text(unknown)
    assert finished["status"] == "completed" and finished["interrupts"] == []
    assert "[run_not_paused]" in error_text(not_paused)


def test_resume_is_listed_with_the_decision_schema(kb: KnowledgeBase) -> None:
    server, _ = make_server(kb)

    async def body(client: Client) -> dict[str, Any]:
        return {t.name: t for t in (await client.list_tools()).tools}

    tools = session(server, body)
    assert set(tools) == {"ask", "resume", "search"}
    resume = tools["resume"]
    assert resume.input_schema["required"] == ["run_id", "decisions"]
    items = resume.input_schema["properties"]["decisions"]["items"]
    assert items["required"] == ["interrupt_id", "action"]
    assert items["properties"]["action"]["enum"] == ["approve", "reject", "edit", "result"]
    assert resume.output_schema == tools["ask"].output_schema
    assert "interrupts" in tools["ask"].output_schema["properties"]
