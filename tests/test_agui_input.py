"""AG-UI's input, ``RunAgentInput``, on ``/v1/runs?format=ag-ui`` and ``/v1/ask`` (issue 26,
item 1): a stock ``@ag-ui/client`` ``HttpAgent.runAgent()`` (npm, run unchanged by node
against a live server on 127.0.0.1) asks a plain question, then goes through AG-UI's
front-end tool round trip — the model calls a tool the page executes, the run ends its turn
with the call, the client answers it with a ``tool`` message and runs again, and the same
run resumes with that result — while ``state`` round-trips. Python's ``ag-ui-protocol``
models parse what the server answers to the same bodies sent by hand, history seeds a new
thread, and bad inputs are typed errors. The model is scripted and stateless: the
question's first word picks the script, the assistant turns since the question the turn.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from ag_ui.core import Event as AgUiEvent
from ag_ui.core import RunAgentInput
from pydantic import TypeAdapter

from _models import question_and_turn
from _node_clients import NODE, NODE_MODULES, node_module
from citewise.agent.tools import tool
from citewise.models.base import ModelRequest, ToolMessage
from citewise.models.scripted import Part, ScriptedModel, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects_run import policy_kb

AG_UI: TypeAdapter[Any] = TypeAdapter(AgUiEvent)
SCRIPT = Path(__file__).resolve().parent / "clients" / "agui_http_agent.cjs"
TEXT = "Refunds are issued within 14 days of the return [1]."
DONE = "Order A-17 is refunded in 14 days."

@tool(requires_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order (a human approves it first).

    Args:
        order_id: The order number.
    """
    return f"refunded {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    # a server tool that needs approval: an AG-UI interrupt, answered with `resume`
    "approve": [[call("issue_refund", order_id="A-17")], [answer("Refunded A-17.")]],
    "how": [[call("search_knowledge", query="refund")], [answer(TEXT)]],
    # the front-end tool first, then a search, then the answer
    "refund": [[thought("Which order?"), call("pick_order", reason="several orders")],
               [call("search_knowledge", query="refund")], [answer(DONE)]],
}


class Routed:
    name = "scripted-agui"
    seen: ClassVar[list[ModelRequest]] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
        Routed.seen.append(request)
        question, done = question_and_turn(request)
        turns = SCRIPTS.get(question.split()[0].lower(), SCRIPTS["how"])
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("agui_input"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, heartbeat_s=5.0)
    with serve(create_app(config, model=Routed, tools=[issue_refund])) as url:
        yield url


def _events(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    objs = [json.loads(line[6:]) for line in response.text.splitlines()
            if line.startswith("data: ")]
    for obj in objs:
        AG_UI.validate_python(obj)  # the protocol's own models
    return objs


def _input(thread: str, messages: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    body = {"threadId": thread, "runId": f"client-run-{len(messages)}", "messages": messages,
            "tools": [], "context": [], "state": None, "forwardedProps": {}, **more}
    RunAgentInput.model_validate(body)  # what we send is AG-UI's own request
    return body


@pytest.mark.slow
def test_http_agent_runs_and_round_trips_a_front_end_tool(base: str) -> None:
    node_module("@ag-ui/client")
    env = {**os.environ, "NODE_PATH": str(NODE_MODULES)}
    done = subprocess.run([NODE, str(SCRIPT), base], capture_output=True, text=True,
                          timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)

    plain = report["plain"]
    assert plain["events"][0] == "RUN_STARTED" and plain["events"][-1] == "RUN_FINISHED"
    [reply] = [m for m in plain["newMessages"] if m["role"] == "assistant" and m.get("content")]
    assert reply["content"] == TEXT

    first = report["first"]
    assert "STATE_SNAPSHOT" in first["events"] and first["state"] == {"cart": ["A-17"],
                                                                      "page": "orders"}
    calls = [c for m in first["newMessages"] for c in m.get("toolCalls") or []]
    assert [c["function"]["name"] for c in calls] == ["pick_order"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"reason": "several orders"}
    assert not any(m["role"] == "tool" for m in first["newMessages"])  # the page answers it

    second = report["second"]
    assert second["state"] == first["state"]  # state round-trips
    texts = [m["content"] for m in second["newMessages"] if m["role"] == "assistant"
             and m.get("content")]
    assert texts == [DONE]
    # the page's own call is not announced again; the server's search is
    names = [c["function"]["name"] for m in second["newMessages"] for c in m.get("toolCalls") or []]
    assert names == ["search_knowledge"]
    tool_messages = [m for m in report["messages"] if m["role"] == "tool"]
    assert [m["toolCallId"] for m in tool_messages].count(calls[0]["id"]) == 1

    # The model was offered the page's tool, and saw its result.
    offered = [r for r in Routed.seen if any(t.name == "pick_order" for t in r.tools)]
    assert offered
    results = [m for r in Routed.seen for m in r.messages if isinstance(m, ToolMessage)]
    assert any("The user picked order A-17 (several orders)." in str(m.content) for m in results)
    with httpx.Client(base_url=base, timeout=30) as http:
        turns = http.get("/v1/threads/agui-tools").json()["turns"]
    assert [t["question"] for t in turns] == ["Refund my order please"]  # one run, resumed
    assert turns[0]["answer"] == DONE


def test_by_hand_history_seeds_a_new_thread_and_ask_answers_json(base: str) -> None:
    history = [{"id": "h1", "role": "user", "content": "Do you ship abroad?"},
               {"id": "h2", "role": "assistant", "content": "We ship from Berlin."},
               {"id": "q", "role": "user",
                "content": [{"type": "text", "text": "How fast are refunds?"}]}]
    with httpx.Client(base_url=base, timeout=30) as http:
        objs = _events(http.post("/v1/runs", params={"format": "ag-ui"},
                                 json=_input("agui-history", history, state={"n": 1})))
        assert objs[0]["type"] == "RUN_STARTED" and objs[0]["threadId"] == "agui-history"
        assert objs[1] == {"type": "STATE_SNAPSHOT", "timestamp": objs[1]["timestamp"],
                           "snapshot": {"n": 1}}
        assert objs[-1]["outcome"] == {"type": "success"}
        turns = http.get("/v1/threads/agui-history").json()["turns"]
        assert [t["question"] for t in turns] == ["Do you ship abroad?", "How fast are refunds?"]
        # /v1/ask: the final RUN_FINISHED as JSON; the thread keeps its own history
        final = http.post("/v1/ask", params={"format": "ag-ui"}, json=_input(
            "agui-history", [{"id": "x", "role": "user", "content": "How about now?"}]))
        assert final.status_code == 200, final.text
        done = AG_UI.validate_python(final.json())
        assert done.type.value == "RUN_FINISHED" and final.json()["result"]["text"] == TEXT
        assert len(http.get("/v1/threads/agui-history").json()["turns"]) == 3


def test_by_hand_front_end_tool_and_approval_round_trips(base: str) -> None:
    page_tool = {"name": "pick_order", "description": "Ask the page which order.",
                 "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}}}
    ask = [{"id": "u", "role": "user", "content": "Refund my order please"}]
    with httpx.Client(base_url=base, timeout=30) as http:
        first = _events(http.post("/v1/runs", params={"format": "ag-ui"},
                                  json=_input("agui-hand", ask, tools=[page_tool])))
        done = first[-1]
        [start] = [o for o in first if o["type"] == "TOOL_CALL_START"]
        assert start["toolCallName"] == "pick_order"
        assert done["outcome"] == {"type": "success", "pendingToolCallIds": [start["toolCallId"]]}
        assert done["result"]["status"] == "paused"
        answer_it = [*ask, {"id": "a", "role": "assistant", "toolCalls": [
            {"id": start["toolCallId"], "type": "function",
             "function": {"name": "pick_order", "arguments": "{}"}}]},
            {"id": "t", "role": "tool", "toolCallId": start["toolCallId"], "content": "A-17"}]
        second = _events(http.post("/v1/runs", params={"format": "ag-ui"},
                                   json=_input("agui-hand", answer_it, tools=[page_tool])))
        assert second[0]["runId"] == first[0]["runId"]  # the same run, resumed
        assert start["toolCallId"] not in {o.get("toolCallId") for o in second}
        assert second[-1]["outcome"] == {"type": "success"}
        assert second[-1]["result"]["text"] == DONE

        # An approval interrupt is AG-UI's `interrupt` outcome, answered with `resume`.
        paused = _events(http.post("/v1/runs", params={"format": "ag-ui"}, json=_input(
            "agui-approve", [{"id": "u", "role": "user", "content": "Approve the refund"}])))
        [interrupt] = paused[-1]["outcome"]["interrupts"]
        assert interrupt["metadata"]["tool"] == "issue_refund"
        resumed = _events(http.post("/v1/runs", params={"format": "ag-ui"}, json=_input(
            "agui-approve", [{"id": "u", "role": "user", "content": "Approve the refund"}],
            resume=[{"interruptId": interrupt["id"], "status": "resolved"}])))
        results = [o["content"] for o in resumed if o["type"] == "TOOL_CALL_RESULT"]
        assert results == ["refunded A-17"]  # approved: the server ran it, once
        assert resumed[-1]["result"]["text"] == "Refunded A-17."


def test_bad_inputs_are_typed_errors(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        r = http.post("/v1/runs", params={"format": "ag-ui"}, json=_input(
            "agui-bad", [{"id": "a", "role": "assistant", "content": "hello"}]))
        assert r.status_code == 422 and r.json()["error"]["code"] == "no_question"
        r = http.post("/v1/runs", params={"format": "ag-ui"}, json=_input(
            "agui-bad", [{"id": "t", "role": "tool", "toolCallId": "nope", "content": "x"}]))
        assert r.status_code == 400 and r.json()["error"]["code"] == "nothing_to_resume"
        clash = {"name": "search_knowledge", "description": "mine", "parameters": {}}
        r = http.post("/v1/runs", params={"format": "ag-ui"}, json=_input(
            "agui-bad", [{"id": "u", "role": "user", "content": "How?"}], tools=[clash]))
        assert r.status_code == 422 and r.json()["error"]["code"] == "tool_name_taken"
        assert http.get("/v1/threads/agui-bad").status_code == 404  # nothing was written
