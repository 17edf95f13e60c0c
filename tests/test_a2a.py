"""A2A: the ``a2a`` dialect's objects are the A2A SDK's own types, and a real uvicorn server
on 127.0.0.1 is an A2A agent the official ``a2a-sdk`` client uses — card, blocking and
streaming sends, get, cancel, failure, input-required and its resume, threads as contexts,
and JSON-RPC errors for bad calls.

The model is scripted (the question's first word picks the script); the knowledge base is
two small documents ingested into tmp_path.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.client import Client
from a2a.types import a2a_pb2 as pb
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from google.protobuf.json_format import MessageToDict, ParseDict

from _models import question_and_turn
from citewise.agent.tools import tool
from citewise.dialects import get_dialect
from citewise.dialects.base import final_of
from citewise.events import ErrorEvent, RunFinished, RunPaused
from citewise.models.base import ModelRequest
from citewise.models.scripted import Part, ScriptedModel, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.routes.a2a import CARD_PATH
from citewise.server.testing import serve
from test_dialects_run import RUNS, policy_kb

Obj = dict[str, Any]
TEXT = "Refunds are issued within **14 days** of the return [1]. Orders ship from Berlin [2]."
DONE = {pb.TASK_STATE_COMPLETED, pb.TASK_STATE_FAILED, pb.TASK_STATE_CANCELED,
        pb.TASK_STATE_INPUT_REQUIRED}


@tool(requires_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order (needs a human's approval).

    Args:
        order_id: The order number.
    """
    return f"refunded {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    "how": [[thought("Search the refund policy."), call("search_knowledge", query="refund")],
            [thought("And shipping."), call("search_knowledge", query="ship Berlin")],
            [answer(TEXT[:30]), answer(TEXT[30:])]],
    "refund": [[thought("Refund it."), call("issue_refund", order_id="A-17")],
               [answer("Refunded A-17.")]],
    # one tool step, then no turn left: the run fails (model_error)
    "where": [[thought("Look it up."), call("search_knowledge", query="A-17")]],
    "slow": [[answer("too late")]],
}


class Routed:
    """Stateless scripted model: the question's first word picks the script, the assistant
    turns since the question pick the turn; ``slow`` questions take a minute."""

    name = "scripted-a2a"
    seen: ClassVar[list[ModelRequest]] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
        Routed.seen.append(request)
        question, done = question_and_turn(request)
        word = question.split()[0].lower()
        if word == "slow":
            await asyncio.sleep(60)
        turns = SCRIPTS.get(word, SCRIPTS["how"])
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("a2a"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, heartbeat_s=5.0,
                          retain_s=1.0, poll_interval_s=0.05, cancel_grace_s=0.3)
    with serve(create_app(config, model=Routed, tools=[issue_refund])) as url:
        yield url


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def sdk(base: str, *, streaming: bool = True, polling: bool = False) -> Client:
    config = ClientConfig(streaming=streaming, polling=polling)
    return await ClientFactory(config).create_from_url(base)


def message(text: str | None = None, *, data: Obj | None = None, task_id: str = "",
            context_id: str = "") -> pb.SendMessageRequest:
    parts = []
    if text is not None:
        parts.append(pb.Part(text=text))
    if data is not None:
        part = pb.Part()
        ParseDict({"data": data}, part)
        parts.append(part)
    return pb.SendMessageRequest(message=pb.Message(
        message_id=str(uuid.uuid4()), role=pb.ROLE_USER, parts=parts, task_id=task_id,
        context_id=context_id))


async def send(base: str, request: pb.SendMessageRequest, *, streaming: bool = False,
               polling: bool = False) -> list[pb.StreamResponse]:
    client = await sdk(base, streaming=streaming, polling=polling)
    try:
        return [r async for r in client.send_message(request)]
    finally:
        await client.close()


async def task_call(base: str, method: str, task_id: str) -> pb.Task:
    client = await sdk(base)
    try:
        if method == "get":
            return await client.get_task(pb.GetTaskRequest(id=task_id))
        return await client.cancel_task(pb.CancelTaskRequest(id=task_id))
    finally:
        await client.close()


def data_of(part: pb.Part) -> Any:
    return MessageToDict(part)["data"]


# -- the dialect, without a server -----------------------------------------------------------


@pytest.mark.parametrize("name", sorted(RUNS))
def test_dialect_objects_are_the_sdks_own_types(name: str) -> None:
    events = RUNS[name]()
    dialect = get_dialect("a2a")
    objs = list(dialect.stream(events))
    # Strict: an unknown field would be an error (the SDK's own parser ignores them).
    parsed = [ParseDict(o, pb.StreamResponse()) for o in objs]
    assert parsed[0].WhichOneof("payload") == "task"
    assert parsed[0].task.status.state == pb.TASK_STATE_WORKING
    assert parsed[0].task.history[0].role == pb.ROLE_USER
    last = parsed[-1]
    assert last.WhichOneof("payload") == "status_update"
    assert all(p.status_update.status.state == pb.TASK_STATE_WORKING
               for p in parsed[1:-1] if p.WhichOneof("payload") == "status_update")
    terminal = events[-1]
    assert isinstance(terminal, RunFinished | RunPaused | ErrorEvent)
    final = ParseDict(final_of(dialect, terminal), pb.SendMessageResponse())
    assert final.task.status.state == last.status_update.status.state
    assert final.task.id == terminal.run_id and final.task.context_id == terminal.thread_id
    if name == "completed":
        assert last.status_update.status.state == pb.TASK_STATE_COMPLETED
        artifact = parsed[-2].artifact_update
        assert artifact.last_chunk and not artifact.append
        assert artifact.artifact.parts[0].text == terminal.answer.text  # type: ignore[union-attr]
        cited = data_of(artifact.artifact.parts[1])["citations"]
        assert len(cited) == 2 and final.task.artifacts[0] == artifact.artifact
        chunks = [p.artifact_update for p in parsed if p.WhichOneof("payload") ==
                  "artifact_update"][:-1]
        assert not chunks[0].append and all(c.append for c in chunks[1:])
        assert "".join(c.artifact.parts[0].text for c in chunks) == terminal.answer.text  # type: ignore[union-attr]
        kinds = [p.status_update.status.message.metadata["citewise"]["kind"]
                 for p in parsed[:-1] if p.WhichOneof("payload") == "status_update"]
        assert {"thought", "action", "observation", "warning"} <= set(kinds)
    elif name == "paused":
        assert last.status_update.status.state == pb.TASK_STATE_INPUT_REQUIRED
        interrupts = data_of(last.status_update.status.message.parts[1])["interrupts"]
        assert interrupts[0]["tool"] == "issue_refund"
    else:
        assert last.status_update.status.state == pb.TASK_STATE_FAILED
        error = data_of(last.status_update.status.message.parts[1])["error"]
        assert error["code"] == "model_error"


# -- the service, through the SDK's client ---------------------------------------------------


def test_agent_card_is_resolved(base: str) -> None:
    assert CARD_PATH == AGENT_CARD_WELL_KNOWN_PATH

    async def go() -> pb.AgentCard:
        async with httpx.AsyncClient() as http:
            return await A2ACardResolver(http, base).get_agent_card()

    card = run(go())
    assert card.name == "citewise" and card.version
    assert card.capabilities.streaming and not card.capabilities.push_notifications
    (interface,) = card.supported_interfaces
    assert interface.url == f"{base}/a2a" and interface.protocol_binding == "JSONRPC"
    assert interface.protocol_version == "1.0"
    assert "verified citations" in card.skills[0].description
    assert "text/plain" in card.default_input_modes
    raw = httpx.get(f"{base}{CARD_PATH}").json()
    ParseDict(raw, pb.AgentCard())  # strict: nothing the spec does not have
    assert "securitySchemes" not in raw  # no keys on this server


def test_blocking_send_returns_the_completed_task(base: str) -> None:
    (response,) = run(send(base, message("How fast are refunds?")))
    task = response.task
    assert task.status.state == pb.TASK_STATE_COMPLETED
    assert task.id.startswith("run_") and task.context_id
    (artifact,) = task.artifacts
    assert artifact.parts[0].text == TEXT
    answer = data_of(artifact.parts[1])
    assert [c["excerpt"] for c in answer["citations"]] == [
        "Refunds are issued within 14 days of the return.", "Orders ship from Berlin."]
    assert task.history[0].parts[0].text == "How fast are refunds?"

    got = run(task_call(base, "get", task.id))
    assert got.status.state == pb.TASK_STATE_COMPLETED and got.artifacts[0].parts[0].text == TEXT


def test_streaming_send_ends_with_the_completed_status(base: str) -> None:
    events = run(send(base, message("How do refunds work?"), streaming=True))
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds[0] == "task" and kinds[-1] == "status_update"
    assert events[-1].status_update.status.state == pb.TASK_STATE_COMPLETED
    assert all(e.status_update.status.state not in DONE for e in events[:-1]
               if e.WhichOneof("payload") == "status_update")
    artifacts = [e.artifact_update for e in events if e.WhichOneof("payload") == "artifact_update"]
    assert "".join(a.artifact.parts[0].text for a in artifacts[:-1]) == TEXT
    assert artifacts[-1].last_chunk and artifacts[-1].artifact.parts[0].text == TEXT
    task_id = events[0].task.id
    assert all(e.status_update.task_id == task_id for e in events
               if e.WhichOneof("payload") == "status_update")
    assert run(task_call(base, "get", task_id)).status.state == pb.TASK_STATE_COMPLETED


def test_a_context_continues_its_thread(base: str) -> None:
    (first,) = run(send(base, message("How fast are refunds?")))
    (second,) = run(send(base, message("How about shipping?", context_id=first.task.context_id)))
    assert second.task.context_id == first.task.context_id
    assert second.task.id != first.task.id
    # The agent saw the first turn as history.
    request = next(r for r in reversed(Routed.seen)
                   if r.messages[-1].content == "How about shipping?")
    assert any(m.content == "How fast are refunds?" for m in request.messages[:-1])
    # A client-chosen context id is kept (A2A: agents accept client-provided contextIds).
    mine = f"ctx-{uuid.uuid4().hex}"
    (third,) = run(send(base, message("How fast are refunds?", context_id=mine)))
    assert third.task.context_id == mine
    assert third.task.status.state == pb.TASK_STATE_COMPLETED


def test_cancel_a_running_task(base: str) -> None:
    (started,) = run(send(base, message("slow question"), polling=True))
    assert started.task.status.state == pb.TASK_STATE_WORKING
    cancelled = run(task_call(base, "cancel", started.task.id))
    assert cancelled.status.state == pb.TASK_STATE_CANCELED
    error = data_of(cancelled.status.message.parts[1])["error"]
    assert error["code"] == "run_cancelled"
    with pytest.raises(TaskNotCancelableError) as info:
        run(task_call(base, "cancel", started.task.id))
    assert info.value.data == {"code": "run_finished",
                               "details": json.dumps({"status": "cancelled"})}


def test_a_failed_run_is_a_failed_task(base: str) -> None:
    (response,) = run(send(base, message("Where is A-17?")))
    assert response.task.status.state == pb.TASK_STATE_FAILED
    assert data_of(response.task.status.message.parts[1])["error"]["code"] == "model_error"
    events = run(send(base, message("Where is A-17?"), streaming=True))
    assert events[-1].status_update.status.state == pb.TASK_STATE_FAILED


def test_input_required_then_resume(base: str) -> None:
    (paused,) = run(send(base, message("Refund order A-17 please")))
    task = paused.task
    assert task.status.state == pb.TASK_STATE_INPUT_REQUIRED
    (interrupt,) = data_of(task.status.message.parts[1])["interrupts"]
    assert interrupt["tool"] == "issue_refund" and interrupt["input"] == {"order_id": "A-17"}
    assert run(task_call(base, "get", task.id)).status.state == pb.TASK_STATE_INPUT_REQUIRED

    with pytest.raises(InvalidParamsError) as info:  # a reply without decisions
        run(send(base, message("yes", task_id=task.id)))
    assert info.value.data is not None and info.value.data["code"] == "missing_decision"

    decisions = {"decisions": [{"interrupt_id": interrupt["id"], "action": "approve"}]}
    events = run(send(base, message(data=decisions, task_id=task.id), streaming=True))
    assert events[0].task.id == task.id
    assert events[-1].status_update.status.state == pb.TASK_STATE_COMPLETED
    final = run(task_call(base, "get", task.id))
    assert final.artifacts[0].parts[0].text == "Refunded A-17."

    with pytest.raises(UnsupportedOperationError):  # a finished task takes no reply
        run(send(base, message(data=decisions, task_id=task.id)))


def test_sdk_errors_carry_citewise_codes(base: str) -> None:
    with pytest.raises(TaskNotFoundError) as info:
        run(task_call(base, "get", "run_nope"))
    assert info.value.data is not None and info.value.data["code"] == "unknown_run"
    with pytest.raises(TaskNotFoundError):
        run(send(base, message("hello", task_id="run_nope")))
    with pytest.raises(InvalidParamsError) as bad:
        run(send(base, message("   ")))
    assert bad.value.data is not None and bad.value.data["code"] == "empty_question"
    file_request = message("see attached")
    file_request.message.parts.append(pb.Part(url="https://example.com/a.pdf"))
    with pytest.raises(ContentTypeNotSupportedError):
        run(send(base, file_request))


def rpc(base: str, body: Any, **headers: str) -> Obj:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    r = httpx.post(f"{base}/a2a", content=content, timeout=30,
                   headers={"Content-Type": "application/json", **headers})
    assert r.status_code == 200, r.text
    assert "Traceback" not in r.text
    out: Obj = r.json()
    assert out["jsonrpc"] == "2.0"
    return out


@pytest.mark.parametrize(("body", "code"), [
    (b"{not json", -32700),
    ([{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}], -32600),
    ({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}, -32600),
    ({"jsonrpc": "2.0", "id": True, "method": "GetTask"}, -32600),
    ({"jsonrpc": "2.0", "id": 1}, -32600),
    ({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}, -32601),
    ({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {}}, -32602),
    ({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": []}, -32602),
    ({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {}}}, -32602),
    ({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}, -32004),
    ({"jsonrpc": "2.0", "id": 1, "method": "GetTaskPushNotificationConfig", "params": {}},
     -32003),
])
def test_bad_calls_get_json_rpc_errors(base: str, body: Any, code: int) -> None:
    out = rpc(base, body)
    assert out["error"]["code"] == code and out["error"]["message"]
    (info,) = out["error"]["data"]
    assert info["@type"].endswith("google.rpc.ErrorInfo") and info["metadata"]["code"]
    if isinstance(body, dict) and type(body.get("id")) is int:
        assert out["id"] == body["id"]


def test_a_notification_gets_no_reply(base: str) -> None:
    # JSON-RPC 2.0: "The Server MUST NOT reply to a Notification" (a request without id);
    # an error object used to come back. "id": null is a request, and is answered.
    note = {"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "run_nope"}}
    r = httpx.post(f"{base}/a2a", json=note)
    assert r.status_code == 204 and r.content == b""
    out = rpc(base, {**note, "id": None})
    assert out["id"] is None and out["error"]["code"] == -32001
    assert rpc(base, {"jsonrpc": "2.0", "method": 5})["error"]["code"] == -32600  # not valid


def test_version_and_raw_wire(base: str) -> None:
    get = {"jsonrpc": "2.0", "id": "x", "method": "GetTask", "params": {"id": "run_nope"}}
    assert rpc(base, get, **{"A2A-Version": "0.3"})["error"]["code"] == -32009
    assert rpc(base, get, **{"A2A-Version": "1.0"})["error"]["code"] == -32001
    send_body = {"jsonrpc": "2.0", "id": 7, "method": "SendMessage", "params": {"message": {
        "message_id": "m1", "role": "ROLE_USER", "parts": [{"text": "How fast are refunds?"}]}}}
    result = rpc(base, send_body)["result"]  # snake_case params are ProtoJSON too
    ParseDict(result, pb.SendMessageResponse())  # strict
    assert result["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_api_keys_guard_the_endpoint_not_the_card(tmp_path: Any) -> None:
    from citewise.server.auth import create_key
    from citewise.store.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "citewise.db") as store:
        _, key = create_key(store, "acme")
    config = ServerConfig(data_dir=tmp_path, auth="keys", rate_limit_per_s=0)
    with serve(create_app(config, model=Routed)) as url:
        card = httpx.get(f"{url}{CARD_PATH}").json()
        ParseDict(card, pb.AgentCard())
        assert set(card["securitySchemes"]) == {"bearer", "apiKey"}
        get = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "run_x"}}
        refused = httpx.post(f"{url}/a2a", json=get)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "missing_api_key"
        answered = httpx.post(f"{url}/a2a", json=get, headers={"Authorization": f"Bearer {key}"})
        assert answered.json()["error"]["code"] == -32001


def test_a_refused_start_removes_only_a_thread_nobody_else_uses(tmp_path: Any) -> None:
    # A message with a new contextId creates its thread before the run starts; a start
    # refused (here: no free run slot) takes it away again — unless another request's run
    # is starting on that contextId meanwhile, whose thread it then is.
    config = ServerConfig(data_dir=tmp_path, rate_limit_per_s=0)
    app = create_app(config, model=Routed)

    def send_in(context_id: str) -> httpx.Response:
        return httpx.post(f"{url}/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                                               "params": {"message": {
                                                   "messageId": "m1", "contextId": context_id,
                                                   "role": "ROLE_USER",
                                                   "parts": [{"text": "quick one"}]}}})

    with serve(app) as url:
        manager = app.state.citewise.manager
        manager.slots.limit = 1
        manager.slots.acquire("default")  # a run in progress: every start is refused
        assert send_in("ctx-alone").status_code == 429
        assert httpx.get(f"{url}/v1/threads/ctx-alone").status_code == 404
        with manager.threads.starting("default", "ctx-shared"):  # another request's start
            assert send_in("ctx-shared").status_code == 429
        assert httpx.get(f"{url}/v1/threads/ctx-shared").status_code == 200
