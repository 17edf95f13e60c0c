"""A model turn that reasons and then answers: the reasoning message ends before the answer
starts, in the event stream and so in every dialect that frames messages."""

from __future__ import annotations

import asyncio
from collections import Counter
from itertools import pairwise
from typing import Any

from citewise import Agent
from citewise.dialects import get_dialect
from citewise.events import AnswerDelta, Event, RunFinished, Thought
from citewise.models.scripted import ScriptedModel, answer, thought


def run(turn: list[Any]) -> list[Event]:
    agent = Agent(model=ScriptedModel([turn]))

    async def go() -> list[Event]:
        return [e async for e in agent.stream("Capital of France?")]

    return asyncio.run(go())


def messages(events: list[Event]) -> list[tuple[str, str, str, bool]]:
    return [(e.kind, e.message_id, e.text, e.end_of_message) for e in events
            if isinstance(e, Thought | AnswerDelta)]


def test_reasoning_ends_before_the_answer_starts() -> None:
    msgs = messages(run([thought("Let me think."), answer("Paris is the capital.")]))
    thought_id, answer_id = msgs[0][1], msgs[2][1]
    assert msgs == [("thought", thought_id, "Let me think.", False),
                    ("thought", thought_id, "", True),
                    ("answer_delta", answer_id, "Paris is the capital.", False),
                    ("answer_delta", answer_id, "", True)]
    assert thought_id != answer_id


def test_reasoning_after_the_answer_started_is_kept_but_not_streamed() -> None:
    events = run([thought("First."), answer("Paris"), thought("Second."), answer(" it is.")])
    msgs = messages(events)
    assert [m[0] for m in msgs] == ["thought", "thought", "answer_delta", "answer_delta",
                                    "answer_delta"]
    assert [m[2] for m in msgs if m[0] == "thought"] == ["First.", ""]
    assert max(agui_starts(events).values()) == 1  # no message started twice
    last = events[-1]
    assert isinstance(last, RunFinished)
    assert last.answer.reasoning_trace[-1].thought == "First.Second."  # nothing lost


def agui_starts(events: list[Event]) -> Counter[tuple[str, str]]:
    out = list(get_dialect("ag-ui").stream(events))
    return Counter((o["type"], o.get("messageId") or o.get("stepName")) for o in out
                   if o["type"].endswith("_START") or o["type"] == "STEP_STARTED")


def test_ag_ui_and_trustgraph_frame_each_message_once() -> None:
    events = run([thought("Let me think."), answer("Paris is the capital.")])
    assert max(agui_starts(events).values()) == 1
    chunks = list(get_dialect("trustgraph").stream(events))
    for before, after in pairwise(chunks):
        if before["chunk-type"] != after["chunk-type"]:
            assert before["end-of-message"], (before, after)


def test_ag_ui_does_not_reopen_a_message_closed_before_its_end_arrives() -> None:
    # The order runs logged before this fix: the thought's end after the answer's deltas.
    events = run([thought("Let me think."), answer("Paris is the capital.")])
    thought_end = next(e for e in events if isinstance(e, Thought) and e.end_of_message)
    first_answer = next(i for i, e in enumerate(events) if isinstance(e, AnswerDelta))
    old_order = [e for e in events if e is not thought_end]
    old_order.insert(first_answer + 1, thought_end)
    assert max(agui_starts(old_order).values()) == 1
