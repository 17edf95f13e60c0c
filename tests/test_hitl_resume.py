"""Human in the loop on a real SQLite store: approval pauses, resume (approve / reject /
edit / external result), expiry, double resume, restart between pause and resume,
exactly-once execution, run-ending tools (handover) and cancellation."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from _models import SlowTalker
from citewise.agent.context import RunContext
from citewise.agent.interrupts import is_approved
from citewise.agent.persist import RunRecorder
from citewise.agent.runner import Agent
from citewise.agent.state import Decision, RunSettings
from citewise.agent.tools import Tool, tool
from citewise.errors import ApprovalRequired, UsageError
from citewise.events import TERMINAL_KINDS, Event, event_adapter
from citewise.models.base import ModelRequest, ToolMessage
from citewise.models.scripted import Part, ScriptedModel, call
from citewise.store.sqlite import SQLiteStore

CALLS: Counter[str] = Counter()  # executions per tool: the exactly-once ledger


@pytest.fixture(autouse=True)
def _reset_counts() -> None:
    CALLS.clear()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "citewise.db")
    yield s
    s.close()


@tool
def lookup(customer: str) -> str:
    """Look a customer up.

    Args:
        customer: the customer's name
    """
    CALLS["lookup"] += 1
    return f"{customer} is a gold customer"


@tool(requires_approval=True)
def transfer(amount: int, to: str = "savings") -> dict[str, Any]:
    """Move money.

    Args:
        amount: how much, in EUR
        to: target account
    """
    CALLS["transfer"] += 1
    CALLS[f"transfer:{amount}"] += 1
    return {"moved": amount, "to": to}


@tool(requires_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email."""
    CALLS["send_email"] += 1
    return f"sent to {to}"


@tool(external=True)
def crm_update(customer: str, tier: str) -> str:
    """Update the CRM (runs at the host)."""
    CALLS["crm_update"] += 1  # never: the host executes it
    return "never"


@tool
def refund(ctx: RunContext, amount: int) -> str:
    """Refund an order; large refunds ask for approval while running."""
    CALLS["refund_attempt"] += 1
    if amount > 100 and not is_approved(ctx):
        raise ApprovalRequired(f"a refund of {amount} EUR needs a manager")
    CALLS["refund"] += 1
    return f"refunded {amount}"


@tool
def first() -> str:
    """Counts."""
    CALLS["first"] += 1
    return "first done"


@tool
def last() -> str:
    """Counts."""
    CALLS["last"] += 1
    return "last done"


@tool(ends_run=True)
def handover_to_agent(reason: str) -> str:
    """Hand the conversation to a human agent."""
    CALLS["handover"] += 1
    return "queued for a human agent"


@tool(requires_approval=True, ends_run=True)
def place_order(item: str) -> str:
    """Place an order."""
    CALLS["place_order"] += 1
    return f"order placed for {item}"


TOOLS: list[Tool] = [lookup, transfer, send_email, crm_update, refund, first, last,
                     handover_to_agent, place_order]


def agent(store: SQLiteStore, turns: list[Any], **kw: Any) -> Agent:
    return Agent(store=store, model=ScriptedModel(turns), tools=TOOLS, **kw)


async def _collect(events: AsyncIterator[Event]) -> list[Event]:
    return [e async for e in events]


def run(a: Agent, question: str = "Help me please.", **kw: Any) -> list[Event]:
    return asyncio.run(_collect(a.stream(question, **kw)))


def resume(a: Agent, run_id: str, *decisions: Decision) -> list[Event]:
    return asyncio.run(_collect(a.resume(run_id, list(decisions))))


def refused(a: Agent, run_id: str, *decisions: Decision) -> UsageError:
    with pytest.raises(UsageError) as info:
        resume(a, run_id, *decisions)
    return info.value


def one_terminal(events: list[Event]) -> Event:
    terminal = [e for e in events if e.kind in TERMINAL_KINDS]
    assert len(terminal) == 1 and events[-1] is terminal[0]
    return terminal[0]


def log(store: SQLiteStore, run_id: str) -> list[Event]:
    return [event_adapter.validate_python(r.data) for r in store.read_events("default", run_id)]


def last_tool_message(model: ScriptedModel) -> ToolMessage:
    msgs = [m for m in model.requests[-1].messages if isinstance(m, ToolMessage)]
    return msgs[-1]


# -- pause and resume -----------------------------------------------------------------


def test_approval_pause_then_resume_approve_executes_exactly_once(store: SQLiteStore) -> None:
    a = agent(store, [call("lookup", customer="Ada"), call("transfer", amount=500),
                      "Moved 500 EUR to savings."])
    events = run(a)
    paused = one_terminal(events)
    assert paused.kind == "run_paused"
    (interrupt,) = paused.interrupts
    assert interrupt.tool == "transfer" and interrupt.input == {"amount": 500}
    assert interrupt.reason and interrupt.expires_at is not None
    assert interrupt.response_schema["properties"]["action"]["enum"] == [
        "approve", "reject", "edit", "result"]
    assert paused.answer is not None and paused.answer.status == "paused"
    assert CALLS == {"lookup": 1}
    run_id = paused.run_id
    assert store.get_run("default", run_id).status == "paused"  # type: ignore[union-attr]

    events = resume(a, run_id, Decision(interrupt_id=interrupt.id, action="approve"))
    done = one_terminal(events)
    assert done.kind == "run_finished"
    assert events[0].kind == "run_started" and events[0].resumed
    assert [e.tool for e in events if e.kind == "action"] == ["transfer"]
    assert CALLS == {"lookup": 1, "transfer": 1, "transfer:500": 1}
    assert [c.name for c in done.answer.tool_calls] == ["lookup", "transfer"]
    assert store.get_run("default", run_id).status == "completed"  # type: ignore[union-attr]

    # The durable log is one run: seq continues across the pause; two stream ends.
    kinds = [e.kind for e in log(store, run_id)]
    assert [e.seq for e in log(store, run_id)] == list(range(1, len(kinds) + 1))
    assert kinds.count("run_paused") == 1 and kinds[-1] == "run_finished"

    err = refused(a, run_id, Decision(interrupt_id=interrupt.id, action="approve"))
    assert err.code == "run_already_resumed"
    assert CALLS["transfer"] == 1


def test_resume_reject_tells_the_model_and_skips_the_call(store: SQLiteStore) -> None:
    model = ScriptedModel([call("transfer", amount=900), "I did not move the money."])
    a = Agent(store=store, model=model, tools=TOOLS)
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    events = resume(a, paused.run_id,
                    Decision(interrupt_id=i.id, action="reject", message="too much at once"))
    assert one_terminal(events).kind == "run_finished"
    seen = last_tool_message(model)
    assert seen.is_error and "too much at once" in seen.content
    obs = [e for e in events if e.kind == "observation"]
    assert obs[0].is_error and "rejected" in obs[0].text
    assert CALLS["transfer"] == 0


def test_resume_edit_validates_new_input_then_runs_it(store: SQLiteStore) -> None:
    a = agent(store, [call("transfer", amount=900), "Moved 50 EUR."])
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    err = refused(a, paused.run_id, Decision(interrupt_id=i.id, action="edit",
                                             input={"amount": "lots"}))
    assert err.code == "invalid_decision" and "amount" in err.message
    err = refused(a, paused.run_id, Decision(interrupt_id=i.id, action="edit",
                                             input={"amount": 5, "bogus": 1}))
    assert err.code == "invalid_decision" and "bogus" in err.message
    assert refused(a, paused.run_id, Decision(interrupt_id=i.id, action="edit")).code == (
        "invalid_decision")
    # New arguments on an approval (or a result on anything but a result) would be ignored.
    err = refused(a, paused.run_id, Decision(interrupt_id=i.id, action="approve",
                                             input={"amount": 5}))
    assert err.code == "invalid_decision" and "'edit'" in err.message
    assert refused(a, paused.run_id, Decision(interrupt_id=i.id, action="reject",
                                              result="done")).code == "invalid_decision"
    # U+0000 cannot be stored on every backend: refused before anything is written.
    for nul in (Decision(interrupt_id=i.id, action="reject", message="no\x00way"),
                Decision(interrupt_id=i.id, action="edit", input={"amount": 5, "to": "a\x00"})):
        err = refused(a, paused.run_id, nul)
        assert err.code == "invalid_decision" and "U+0000" in err.message
    assert CALLS["transfer"] == 0  # refusals changed nothing; the run is still paused

    events = resume(a, paused.run_id, Decision(interrupt_id=i.id, action="edit",
                                               input={"amount": 50}))
    assert one_terminal(events).kind == "run_finished"
    action = next(e for e in events if e.kind == "action")
    assert action.input == {"amount": 50, "to": "savings"}
    assert CALLS == {"transfer": 1, "transfer:50": 1}


def test_resume_with_external_result_never_runs_the_tool_here(store: SQLiteStore) -> None:
    model = ScriptedModel([call("crm_update", customer="Ada", tier="gold"), "Ada is gold now."])
    a = Agent(store=store, model=model, tools=TOOLS)
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    assert i.response_schema["properties"]["action"]["enum"] == ["result", "reject"]
    assert refused(a, paused.run_id, Decision(interrupt_id=i.id, action="approve")).code == (
        "invalid_decision")
    assert refused(a, paused.run_id, Decision(interrupt_id=i.id, action="result")).code == (
        "invalid_decision")  # a result decision must carry the result
    events = resume(a, paused.run_id, Decision(interrupt_id=i.id, action="result",
                                               result={"updated": True, "tier": "gold"}))
    assert one_terminal(events).kind == "run_finished"
    seen = last_tool_message(model)
    assert not seen.is_error and seen.data == {"updated": True, "tier": "gold"}
    assert CALLS["crm_update"] == 0


def test_two_interrupts_in_one_step_are_answered_together(store: SQLiteStore) -> None:
    from citewise.models.base import ToolCall, ToolCallPart

    both = [ToolCallPart(call=ToolCall(id="c_t", name="transfer", arguments={"amount": 300})),
            ToolCallPart(call=ToolCall(id="c_e", name="send_email",
                                       arguments={"to": "ada@example.com", "body": "hi"}))]
    a = agent(store, [both, "Transferred; no email sent."])
    paused = one_terminal(run(a))
    assert [i.tool for i in paused.interrupts] == ["transfer", "send_email"]
    t, e = paused.interrupts
    assert t.id != e.id
    err = refused(a, paused.run_id, Decision(interrupt_id=t.id, action="approve"))
    assert err.code == "missing_decision" and err.details["interrupt_ids"] == [e.id]
    err = refused(a, paused.run_id, Decision(interrupt_id=t.id, action="approve"),
                  Decision(interrupt_id=t.id, action="reject"))
    assert err.code == "duplicate_decision"
    events = resume(a, paused.run_id, Decision(interrupt_id=e.id, action="reject"),
                    Decision(interrupt_id=t.id, action="approve"))
    assert one_terminal(events).kind == "run_finished"
    assert CALLS["transfer"] == 1 and CALLS["send_email"] == 0
    assert [(x.tool, x.is_error) for x in events if x.kind == "observation"] == [
        ("transfer", False), ("send_email", True)]


def test_interrupt_expired_and_unknown_interrupt_are_refused(store: SQLiteStore) -> None:
    a = agent(store, [call("transfer", amount=10)], settings=RunSettings(interrupt_ttl_s=0.05))
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    assert refused(a, paused.run_id, Decision(interrupt_id="int_nope", action="approve")
                   ).code == "unknown_interrupt"
    asyncio.run(asyncio.sleep(0.1))
    err = refused(a, paused.run_id, Decision(interrupt_id=i.id, action="approve"))
    assert err.code == "interrupt_expired" and err.details["interrupt_id"] == i.id
    assert store.get_run("default", paused.run_id).status == "paused"  # type: ignore[union-attr]
    assert CALLS["transfer"] == 0
    with pytest.raises(UsageError) as info:
        resume(a, "run_missing", Decision(interrupt_id=i.id, action="approve"))
    assert info.value.code == "unknown_run"


def test_double_resume_race_one_wins(store: SQLiteStore, tmp_path: Path) -> None:
    a = agent(store, [call("transfer", amount=10)])
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    # Two hosts load the paused run before either starts it: the atomic move decides.
    other = SQLiteStore(tmp_path / "citewise.db")
    try:
        from citewise.agent.interrupts import load_for_resume

        decision = [Decision(interrupt_id=i.id, action="approve")]
        s1 = load_for_resume(store, "default", paused.run_id, decision, a.tools)
        s2 = load_for_resume(other, "default", paused.run_id, decision, a.tools)
        asyncio.run(RunRecorder(store, s1).begin(resuming=True))
        with pytest.raises(UsageError) as info:
            asyncio.run(RunRecorder(other, s2).begin(resuming=True))
        assert info.value.code == "run_already_resumed"
        # While the winner runs, a late resume is refused up front too.
        with pytest.raises(UsageError) as late:
            load_for_resume(other, "default", paused.run_id, decision, a.tools)
        assert late.value.code == "run_already_resumed"
    finally:
        other.close()


def test_resume_after_process_restart_state_survives(tmp_path: Path) -> None:
    db = tmp_path / "citewise.db"
    first_store = SQLiteStore(db)
    a = agent(first_store, [call("lookup", customer="Ada"), call("transfer", amount=70)])
    paused = one_terminal(run(a, "Move 70 EUR for Ada"))
    (i,) = paused.interrupts
    first_store.close()
    del a

    # A new process: new store on the same file, new agent, new model with what is left.
    second_store = SQLiteStore(db)
    try:
        model = ScriptedModel(["Ada's 70 EUR are moved."])
        b = Agent(store=second_store, model=model, tools=TOOLS)
        events = resume(b, paused.run_id, Decision(interrupt_id=i.id, action="approve"))
        done = one_terminal(events)
        assert done.kind == "run_finished" and done.answer.question == "Move 70 EUR for Ada"
        assert CALLS == {"lookup": 1, "transfer": 1, "transfer:70": 1}
        # The model saw the whole transcript from before the restart.
        contents = [m.content for m in model.requests[0].messages if isinstance(m, ToolMessage)]
        assert contents[0] == "Ada is a gold customer" and '"moved": 70' in contents[1]
        assert [e.seq for e in log(second_store, paused.run_id)] == list(
            range(1, len(log(second_store, paused.run_id)) + 1))
    finally:
        second_store.close()


def test_approval_required_raised_by_a_tool_pauses_mid_step(store: SQLiteStore) -> None:
    step = [call("first"), call("refund", amount=500), call("last")]
    a = agent(store, [step, "Refunded 500 EUR."])
    paused = one_terminal(run(a))
    assert paused.kind == "run_paused"
    (i,) = paused.interrupts
    assert i.tool == "refund" and "needs a manager" in i.reason
    assert CALLS == {"first": 1, "refund_attempt": 1}  # `last` waits with the refund
    events = resume(a, paused.run_id, Decision(interrupt_id=i.id, action="approve"))
    assert one_terminal(events).kind == "run_finished"
    assert [e.tool for e in events if e.kind == "action"] == ["refund", "last"]
    assert CALLS == {"first": 1, "refund_attempt": 2, "refund": 1, "last": 1}


def test_approval_policy_decides_per_call(store: SQLiteStore) -> None:
    def policy(c: Any) -> bool | str:
        if c.name == "lookup" and c.arguments.get("customer") == "VIP":
            return "VIP records need a supervisor"
        return False

    a = agent(store, [call("lookup", customer="Bob"), call("lookup", customer="VIP"), "Done."],
              approval_policy=policy)
    paused = one_terminal(run(a))
    assert paused.kind == "run_paused" and CALLS["lookup"] == 1
    assert paused.interrupts[0].reason == "VIP records need a supervisor"

    def broken(c: Any) -> bool:
        raise RuntimeError("policy bug")

    b = agent(store, [call("lookup", customer="Bob")], approval_policy=broken)
    held = one_terminal(run(b))
    assert held.kind == "run_paused" and "policy failed" in held.interrupts[0].reason
    assert CALLS["lookup"] == 1  # fail safe: the broken policy ran nothing


# -- run-ending tools -------------------------------------------------------------------


def test_handover_tool_ends_run_with_one_closing_sentence(store: SQLiteStore) -> None:
    model = ScriptedModel([call("handover_to_agent", reason="angry customer"),
                           "A colleague will take over this conversation shortly."])
    a = Agent(store=store, model=model, tools=TOOLS, settings=RunSettings(max_steps=1))
    events = run(a)
    done = one_terminal(events)
    assert done.kind == "run_finished"
    assert done.answer.ended_by_tool == "handover_to_agent"
    assert done.answer.text == "A colleague will take over this conversation shortly."
    assert model.requests[-1].tools == []  # the closing call offers no tools
    assert "handover_to_agent" in model.requests[-1].messages[-1].content
    assert not [w for w in events if w.kind == "warning" and w.code == "uncited_claim"]
    assert CALLS["handover"] == 1


def test_ends_run_tool_behind_approval(store: SQLiteStore) -> None:
    a = agent(store, [call("place_order", item="kettle"), "Your kettle is on its way."])
    paused = one_terminal(run(a))
    events = resume(a, paused.run_id,
                    Decision(interrupt_id=paused.interrupts[0].id, action="approve"))
    done = one_terminal(events)
    assert done.answer.ended_by_tool == "place_order" and CALLS["place_order"] == 1

    # Rejected, the order did not happen: the run does not end by that tool.
    b = agent(store, [call("place_order", item="kettle"), "I did not order it [1]."])
    paused = one_terminal(run(b))
    events = resume(b, paused.run_id,
                    Decision(interrupt_id=paused.interrupts[0].id, action="reject"))
    assert one_terminal(events).answer.ended_by_tool is None
    assert CALLS["place_order"] == 1


# -- cancellation -----------------------------------------------------------------------


def test_cancel_running_run_ends_with_one_terminal_event(store: SQLiteStore) -> None:
    a = Agent(store=store, model=SlowTalker(200))

    async def go() -> list[Event]:
        events: list[Event] = []
        async for e in a.stream("Talk slowly"):
            events.append(e)
            if len(events) == 3:
                assert a.cancel(e.run_id)
        return events

    events = asyncio.run(go())
    terminal = one_terminal(events)
    assert terminal.kind == "error" and terminal.code == "run_cancelled"
    assert terminal.answer is not None and terminal.answer.status == "cancelled"
    record = store.get_run("default", terminal.run_id)
    assert record is not None and record.status == "cancelled"
    assert [e.kind for e in log(store, terminal.run_id)].count("error") == 1


def test_cancel_running_run_from_another_store_handle(store: SQLiteStore, tmp_path: Path) -> None:
    a = Agent(store=store, model=SlowTalker(200))
    other = SQLiteStore(tmp_path / "citewise.db")  # stands for another process
    try:
        b = Agent(store=other)

        async def go() -> list[Event]:
            events: list[Event] = []
            async for e in a.stream("Talk slowly"):
                events.append(e)
                if len(events) == 2:
                    assert b.cancel(e.run_id)  # not b's run: asked through the store
            return events

        events = asyncio.run(go())
    finally:
        other.close()
    terminal = one_terminal(events)
    assert terminal.kind == "error" and terminal.code == "run_cancelled"
    assert len(events) < 150  # stopped well before the model finished


def test_a_cancel_after_the_models_last_part_neither_runs_tools_nor_pauses(
        store: SQLiteStore) -> None:
    # The flag used to be read only between the model's parts: asked after the last one,
    # the run went on to pause for approval (or to run its tools).
    run_ids: list[str] = []

    class CancelledMeanwhile:
        name = "cancelled-meanwhile"

        async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
            async for part in ScriptedModel([call("transfer", amount=10)]).stream(request):
                yield part
            assert a.cancel(run_ids[0])  # after the last part, before the loop goes on

    a = Agent(store=store, model=CancelledMeanwhile(), tools=TOOLS)

    async def go() -> list[Event]:
        events: list[Event] = []
        async for e in a.stream("Move 10 EUR"):
            run_ids.append(e.run_id)
            events.append(e)
        return events

    events = asyncio.run(go())
    terminal = one_terminal(events)
    assert terminal.kind == "error" and terminal.code == "run_cancelled"
    assert "run_paused" not in [e.kind for e in events] and CALLS["transfer"] == 0
    record = store.get_run("default", terminal.run_id)
    assert record is not None and record.status == "cancelled"


def test_cancel_paused_run_appends_one_terminal_event(store: SQLiteStore) -> None:
    a = agent(store, [call("transfer", amount=10)])
    paused = one_terminal(run(a))
    assert a.cancel(paused.run_id)
    record = store.get_run("default", paused.run_id)
    assert record is not None and record.status == "cancelled"
    assert record.answer is not None and record.answer["status"] == "cancelled"
    events = log(store, paused.run_id)
    assert events[-1].kind == "error" and events[-1].code == "run_cancelled"
    assert events[-1].seq == paused.seq + 1
    assert [e.kind for e in events].count("error") == 1
    assert not a.cancel(paused.run_id)  # nothing left to cancel
    err = refused(a, paused.run_id,
                  Decision(interrupt_id=paused.interrupts[0].id, action="approve"))
    assert err.code == "run_not_paused"
    assert CALLS["transfer"] == 0


def test_a_cancel_request_left_from_before_the_pause_does_not_cancel_the_resume(
        store: SQLiteStore) -> None:
    """A cancel asked while the run was running, that the run's process had not yet seen
    when the run paused, must not cancel a later resume: the resume is a new decision."""
    from datetime import UTC, datetime

    from citewise.store.base import cancel_key

    a = agent(store, [call("transfer", amount=10)])
    paused = one_terminal(run(a))
    key = cancel_key("default", paused.run_id)
    store.set_setting(key, datetime.now(UTC).isoformat())  # as cancel_run writes it
    # Talks for ~0.3 s after the approved call: the store is polled for cancels meanwhile.
    slow = Agent(store=store, model=SlowTalker(15), tools=TOOLS, cancel_poll_s=0.05)
    events = resume(slow, paused.run_id,
                    Decision(interrupt_id=paused.interrupts[0].id, action="approve"))
    assert one_terminal(events).kind == "run_finished"
    assert CALLS["transfer"] == 1
    record = store.get_run("default", paused.run_id)
    assert record is not None and record.status == "completed"
    assert store.get_setting(key) is None  # withdrawn with the resume, in its transaction


def test_a_refused_resume_leaves_the_running_attempts_cancel_request(
        store: SQLiteStore) -> None:
    from datetime import UTC, datetime

    from citewise.store.base import cancel_key

    a = agent(store, [call("transfer", amount=10)])
    paused = one_terminal(run(a))
    assert store.transition_run("default", paused.run_id, ("paused",), "running")
    key = cancel_key("default", paused.run_id)  # a cancel of that (other) running attempt
    store.set_setting(key, datetime.now(UTC).isoformat())
    err = refused(a, paused.run_id,
                  Decision(interrupt_id=paused.interrupts[0].id, action="approve"))
    assert err.code == "run_already_resumed"
    assert store.get_setting(key) is not None


def test_resume_needs_the_tool_for_approve_but_not_for_result(store: SQLiteStore) -> None:
    a = agent(store, [call("transfer", amount=10)])
    paused = one_terminal(run(a))
    (i,) = paused.interrupts
    stranger = Agent(store=store, model=ScriptedModel(["Recorded."]))  # has no `transfer`
    err = refused(stranger, paused.run_id, Decision(interrupt_id=i.id, action="approve"))
    assert err.code == "unknown_tool"
    events = resume(stranger, paused.run_id,
                    Decision(interrupt_id=i.id, action="result", result="done by hand"))
    assert one_terminal(events).kind == "run_finished" and CALLS["transfer"] == 0


def test_approval_of_a_json_schema_tool_validates_edits(store: SQLiteStore) -> None:
    seen: list[dict[str, Any]] = []

    async def book(**arguments: Any) -> str:
        seen.append(arguments)
        return "booked"

    schema = {"type": "object", "required": ["room", "nights"], "additionalProperties": False,
              "properties": {"room": {"enum": ["single", "double"]},
                             "nights": {"type": "integer", "minimum": 1}}}
    booking = Tool.from_json_schema("book_room", "Book a room.", schema, book,
                                    requires_approval=True)
    assert booking.spec().parameters == schema
    a = Agent(store=store, model=ScriptedModel([call("book_room", room="suite", nights=2),
                                                call("book_room", room="double", nights=2),
                                                "Booked."]), tools=[booking])
    paused = one_terminal(run(a))
    # Arguments that fail the JSON Schema never reach a human: an error observation instead.
    assert paused.kind == "run_paused" and paused.interrupts[0].input["room"] == "double"
    iid = paused.interrupts[0].id
    err = refused(a, paused.run_id, Decision(interrupt_id=iid, action="edit",
                                             input={"room": "double", "nights": 0}))
    assert err.code == "invalid_decision" and "nights" in err.message
    events = resume(a, paused.run_id, Decision(interrupt_id=iid, action="edit",
                                               input={"room": "single", "nights": 3}))
    assert one_terminal(events).kind == "run_finished"
    assert seen == [{"room": "single", "nights": 3}]
