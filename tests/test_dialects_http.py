"""Every wire format served by a real uvicorn server on 127.0.0.1 and read by real clients:

* one recorded run (tools, two verified citations, an ``uncited_claim`` warning, explain
  triples) replayed over HTTP in every dialect is exactly the dialect's mapping of its
  events, and validates against that dialect's schema; live runs (completed, paused,
  failed) streamed and answered in every schema'd dialect validate too;
* the official ``openai`` SDK lists the models, streams and reads completions (citations
  in the extension, markers in the text, ``[DONE]``), sends history and threads, and
  raises on a failed run without re-running it;
* ``ag-ui-protocol``'s event models parse every AG-UI event we send;
* TrustGraph's request shape at ``/api/v1/flow/{flow}/service/agent``, streaming or not,
  with its ``history``;
* ``citewise ask --server URL --format NAME`` renders the service's events locally.

The model is scripted (chosen by the question's first word) and the knowledge base is two
small documents ingested into tmp_path.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import openai
import pytest
from a2a.types.a2a_pb2 import StreamResponse as A2AStreamResponse
from ag_ui.core import Event as AgUiEvent
from google.protobuf.json_format import ParseDict
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

from _models import question_and_turn
from citewise.agent.tools import tool
from citewise.client.sse import SSEDecoder
from citewise.dialects import DIALECTS, get_dialect
from citewise.events import Event, event_adapter
from citewise.models.base import ModelRequest, UserMessage
from citewise.models.scripted import Part, ScriptedModel, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects import SCHEMA_OF, validator
from test_dialects_clients import _no_unknown_fields
from test_dialects_run import policy_kb

Obj = dict[str, Any]
AG_UI: TypeAdapter[Any] = TypeAdapter(AgUiEvent)

TEXT = ("Refunds are issued within **14 days** of the return [1]. Orders ship from "
        "Berlin [2]. Your order A-17 has shipped.")
# Each cited sentence answers a part of it (support is judged against the question).
QUESTION = "How fast are refunds, where do orders ship from, and where is my order A-17?"


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look an order up.

    Args:
        order_id: The order number.
    """
    return {"order_id": order_id, "status": "shipped"}


@tool(requires_approval=True)
def issue_refund(order_id: str, amount: float) -> str:
    """Refund an order (needs a human's approval).

    Args:
        order_id: The order number.
        amount: Amount in EUR.
    """
    return f"refunded {amount} for {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    # completed: three tool steps, two citations, one uncited sentence (a warning)
    "how": [
        [thought("I should search the refund policy."), call("search_knowledge", query="refund")],
        [thought("And shipping."), call("search_knowledge", query="ship Berlin")],
        [thought("Now the order."), call("lookup_order", order_id="A-17")],
        [answer(TEXT[:40]), answer(TEXT[40:])],
    ],
    # paused: a tool that needs approval
    "refund": [
        [thought("Search first."), call("search_knowledge", query="refund")],
        [thought("Refund it."), call("issue_refund", order_id="A-17", amount=19.5)],
    ],
    # failed: one tool step, then the model has no turn left (model_error)
    "where": [[thought("Look it up."), call("lookup_order", order_id="A-17")]],
}
RUN_QUESTIONS = {"completed": QUESTION, "paused": "Refund order A-17 please",
                 "failed": "Where is A-17?"}


class Routed:
    """A stateless scripted model: the question's first word picks the script, the number
    of assistant turns since the question picks the turn. Every request is kept."""

    name = "scripted-1"
    seen: ClassVar[list[ModelRequest]] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
        Routed.seen.append(request)
        question, done = question_and_turn(request)
        turns = SCRIPTS.get(question.split()[0].lower(), SCRIPTS["how"])
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


def first_requests(question: str) -> list[ModelRequest]:
    """The first model request of every run asked ``question`` (one per run)."""
    out = []
    for request in Routed.seen:
        last = max(i for i, m in enumerate(request.messages) if isinstance(m, UserMessage))
        if request.messages[last].content == question and last == len(request.messages) - 1:
            out.append(request)
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("dialects_http"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, heartbeat_s=5.0,
                          retain_s=1.0, poll_interval_s=0.05)
    with serve(create_app(config, model=Routed, tools=[lookup_order, issue_refund])) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client


@pytest.fixture
def sdk(base: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{base}/v1", api_key="unused-in-no-auth-mode") as client:
        yield client


def sse_data(response: httpx.Response) -> list[str]:
    """The ``data`` of every SSE frame of a (streamed) response."""
    assert response.headers["content-type"].startswith("text/event-stream")
    decoder = SSEDecoder()
    out = [e.data for chunk in response.iter_bytes() for e in decoder.feed(chunk)]
    return out + [e.data for e in decoder.close()]


def stream_objs(http: httpx.Client, method: str, url: str, **kwargs: Any) -> list[Obj]:
    with http.stream(method, url, **kwargs) as r:
        assert r.status_code == 200, r.read()
        data = sse_data(r)
    if data and data[-1] == "[DONE]":
        data = data[:-1]
    return [json.loads(d) for d in data]


def check(name: str, obj: Obj) -> None:
    """``obj`` is valid in dialect ``name``: its JSON Schema, or its real client's models."""
    if name in SCHEMA_OF:
        errors = sorted(validator(name).iter_errors(obj), key=str)
        assert not errors, f"{name}: {obj} invalid: {errors[0].message}"
    elif name == "ag-ui":
        event = AG_UI.validate_python(obj)
        _no_unknown_fields(event, obj["type"])
        assert event.model_dump(mode="json", by_alias=True) == obj
    elif name == "openai" and "error" not in obj:
        ChatCompletionChunk.model_validate(obj)
    elif name == "a2a":
        ParseDict(obj, A2AStreamResponse())  # strict: every field is the A2A SDK's


# -- one recorded run, every dialect ----------------------------------------------------------


def test_recorded_run_replays_in_every_dialect(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", json={"question": QUESTION}) as r:
        run_id = r.headers["X-Run-Id"]
        events: list[Event] = [event_adapter.validate_json(d) for d in sse_data(r)]
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("action") == 3 and kinds.count("citation") == 2
    assert [e.code for e in events if e.kind == "warning"] == ["uncited_claim"]
    assert any(e.kind == "explain" and e.triples for e in events)
    assert events[-1].answer.text == TEXT  # type: ignore[union-attr]

    for name in DIALECTS:
        with http.stream("GET", f"/v1/runs/{run_id}/events", params={"format": name}) as r:
            assert r.status_code == 200
            data = sse_data(r)
        if get_dialect(name).terminator:  # openai, ai-sdk
            assert data[-1] == "[DONE]"
            data = data[:-1]
        objs = [json.loads(d) for d in data]
        assert objs == list(get_dialect(name).stream(events)), name  # HTTP adds nothing
        for obj in objs:
            check(name, obj)


@pytest.mark.parametrize("run", sorted(RUN_QUESTIONS))
def test_live_runs_stream_and_answer_in_every_dialect(http: httpx.Client, run: str) -> None:
    question = RUN_QUESTIONS[run]
    for name in SCHEMA_OF:
        objs = stream_objs(http, "POST", "/v1/runs", params={"format": name},
                           json={"question": question})
        assert objs, name
        for obj in objs:
            check(name, obj)
        final = http.post("/v1/ask", params={"format": name}, json={"question": question})
        check(name, final.json())
    ended = {"completed": "RUN_FINISHED", "paused": "RUN_FINISHED", "failed": "RUN_ERROR"}[run]
    for url, body in [("/v1/runs", {"question": question}),
                      ("/v1/ask", {"question": question, "stream": True})]:
        objs = stream_objs(http, "POST", url, params={"format": "ag-ui"}, json=body)
        for obj in objs:
            check("ag-ui", obj)
        assert objs[0]["type"] == "RUN_STARTED" and objs[-1]["type"] == ended
        if run == "paused":
            assert objs[-1]["outcome"]["type"] == "interrupt"
            assert objs[-1]["outcome"]["interrupts"][0]["metadata"]["tool"] == "issue_refund"


# -- OpenAI: the official SDK against our endpoint ---------------------------------------------


def test_openai_sdk_lists_models(sdk: openai.OpenAI) -> None:
    assert [m.id for m in sdk.models.list()] == ["citewise", "citewise-strict"]
    assert sdk.models.retrieve("citewise-strict").owned_by == "citewise"
    with pytest.raises(openai.NotFoundError):
        sdk.models.retrieve("gpt-4o")


def test_openai_sdk_streams_a_completion(sdk: openai.OpenAI) -> None:
    chunks = list(sdk.chat.completions.create(
        model="citewise", messages=[{"role": "user", "content": QUESTION}], stream=True,
        stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == TEXT
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("chatcmpl-run_")
    assert all(c.model == "citewise" for c in chunks)
    finish = next(c for c in chunks if c.choices and c.choices[0].finish_reason == "stop")
    ext = (finish.model_extra or {})["citewise"]
    assert [Path(c["source"]).name for c in ext["citations"]] == ["refunds.md", "shipping.md"]
    assert [c["excerpt"] for c in ext["citations"]] == [
        "Refunds are issued within 14 days of the return.", "Orders ship from Berlin."]
    assert len(ext["search_documents"]) == 2 and ext["status"] == "completed"
    assert [i["code"] for i in ext["issues"]] == ["uncited_claim"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens > 0

    # Without include_usage every chunk has a choice: `chunk.choices[0]` never fails.
    plain = list(sdk.chat.completions.create(
        model="citewise", messages=[{"role": "user", "content": QUESTION}], stream=True))
    assert all(c.choices for c in plain) and all(c.usage is None for c in plain)
    assert "".join(c.choices[0].delta.content or "" for c in plain) == TEXT


def test_openai_sdk_reads_a_completion(sdk: openai.OpenAI) -> None:
    raw = sdk.chat.completions.with_raw_response.create(
        model="citewise", messages=[{"role": "user", "content": QUESTION}])
    completion = raw.parse()
    message = completion.choices[0].message
    assert message.content == TEXT and completion.choices[0].finish_reason == "stop"
    assert completion.model == "citewise" and completion.id == f"chatcmpl-{raw.headers['x-run-id']}"
    ext = (message.model_extra or {})["citewise"]
    assert ext["run_id"] == raw.headers["x-run-id"] and ext["thread_id"] == raw.headers["x-thread-id"]
    assert [c["document_index"] for c in ext["citations"]] == [1, 2]
    assert "I should search the refund policy." in (message.model_extra or {})["reasoning_content"]
    assert completion.usage is not None and completion.usage.total_tokens > 0

    strict = sdk.chat.completions.create(
        model="citewise-strict", messages=[{"role": "user", "content": QUESTION}])
    assert strict.model == "citewise-strict"
    assert strict.choices[0].message.content != TEXT  # strict mode rewrote the answer
    assert "A-17 has shipped" not in (strict.choices[0].message.content or "")


def test_openai_history_becomes_a_thread(sdk: openai.OpenAI, http: httpx.Client) -> None:
    question = "How about refunds for order B-9?"
    completion = sdk.chat.completions.create(model="citewise", messages=[
        {"role": "system", "content": "You are a pirate."},
        {"role": "user", "content": "Where do orders ship from?"},
        {"role": "assistant", "content": "From Berlin [1]."},
        {"role": "user", "content": [{"type": "text", "text": question}]},
    ])
    thread_id = (completion.choices[0].message.model_extra or {})["citewise"]["thread_id"]
    [request] = first_requests(question)
    said = [(type(m).__name__, m.content) for m in request.messages]
    assert ("UserMessage", "Where do orders ship from?") in said
    assert ("AssistantMessage", "From Berlin [1].") in said
    assert not any("pirate" in str(content) for _, content in said)
    turns = http.get(f"/v1/threads/{thread_id}").json()["turns"]
    assert [t["question"] for t in turns] == ["Where do orders ship from?", question]

    # The documented extension continues the stored thread.
    follow = "How long does delivery take?"
    again = sdk.chat.completions.create(
        model="citewise", messages=[{"role": "user", "content": follow}],
        extra_body={"citewise": {"thread_id": thread_id}})
    assert (again.choices[0].message.model_extra or {})["citewise"]["thread_id"] == thread_id
    [request] = first_requests(follow)
    assert any(isinstance(m, UserMessage) and m.content == question for m in request.messages)
    turns = http.get(f"/v1/threads/{thread_id}").json()["turns"]
    assert [t["question"] for t in turns][-1] == follow and len(turns) == 3


def test_openai_sdk_raises_on_a_failed_run_and_never_retries(base: str) -> None:
    question = "Where is A-17? (not twice)"
    with openai.OpenAI(base_url=f"{base}/v1", api_key="x", max_retries=2) as sdk:
        with pytest.raises(openai.InternalServerError) as info:
            sdk.chat.completions.create(model="citewise",
                                        messages=[{"role": "user", "content": question}])
        assert info.value.code == "model_error"
        assert len(first_requests(question)) == 1  # the SDK obeyed x-should-retry: false
        stream = sdk.chat.completions.create(
            model="citewise", messages=[{"role": "user", "content": question}], stream=True)
        with pytest.raises(openai.APIError, match="scripted model has no turns left"):
            list(stream)


def test_openai_bad_requests_are_typed(sdk: openai.OpenAI, http: httpx.Client) -> None:
    with pytest.raises(openai.NotFoundError) as missing:
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "q"}])
    assert missing.value.code == "model_not_found"
    with pytest.raises(openai.NotFoundError) as unknown:
        sdk.chat.completions.create(model="citewise", messages=[{"role": "user", "content": "q"}],
                                    extra_body={"citewise": {"thread_id": "thread_nope"}})
    assert unknown.value.code == "unknown_thread"
    r = http.post("/v1/chat/completions", json={"model": "citewise", "messages": [
        {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_messages"
    r = http.post("/v1/chat/completions", json={"model": "citewise", "messages": [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "unsupported_content"
    r = http.post("/v1/chat/completions", json={"model": "citewise", "messages": [
        {"role": "user", "content": "   "}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "empty_question"


def test_openai_format_on_ask_ends_with_done(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/ask", params={"format": "openai"},
                     json={"question": QUESTION, "stream": True}) as r:
        data = sse_data(r)
    assert data[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate_json(d) for d in data[:-1]]
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == TEXT


# -- TrustGraph's request shape ----------------------------------------------------------------

AGENT = "/api/v1/flow/default/service/agent"


def test_trustgraph_streaming_request(http: httpx.Client) -> None:
    objs = stream_objs(http, "POST", AGENT, json={
        "question": QUESTION, "streaming": True, "state": "opaque", "group": ["default"],
        "user": "trustgraph", "collection": "default"})
    for obj in objs:
        check("trustgraph", obj)
    types = [o["chunk-type"] for o in objs]
    assert types[-1] == "final-answer" and objs[-1]["end-of-dialog"]
    assert types.count("action") == 3 and "explain" in types and "thought" in types
    assert "".join(o["content"] for o in objs if o["chunk-type"] == "answer") == TEXT


def test_trustgraph_legacy_request_with_history(http: httpx.Client) -> None:
    question = "How does the refund go for A-17?"
    r = http.post(AGENT, json={"question": question, "history": [
        {"thought": "Check the order first.", "action": "lookup_order",
         "arguments": {"order_id": "A-17"}, "observation": "A-17 has shipped."}]})
    assert r.status_code == 200
    body = r.json()
    check("trustgraph", body)
    assert body["answer"] == TEXT and "I should search the refund policy." in body["thought"]
    assert '"status": "shipped"' in body["observation"]  # the lookup_order tool's result
    [request] = first_requests(question)
    said = [(type(m).__name__, m.content) for m in request.messages]
    assert ("UserMessage", 'Check the order first.\nAction: lookup_order {"order_id": "A-17"}') \
        in said
    assert ("AssistantMessage", "A-17 has shipped.") in said
    turns = http.get(f"/v1/threads/{r.headers['x-thread-id']}").json()["turns"]
    assert len(turns) == 2 and turns[-1]["question"] == question


def test_trustgraph_failures(http: httpx.Client) -> None:
    r = http.post(AGENT, json={"question": "Where is A-17 now?"})
    assert r.status_code == 500 and r.headers["x-should-retry"] == "false"
    check("trustgraph", r.json())
    assert r.json()["error"]["code"] == "model_error"
    objs = stream_objs(http, "POST", AGENT, json={"question": "Where is A-17 then?",
                                                  "streaming": True})
    assert objs[-1]["chunk-type"] == "error" and objs[-1]["end-of-dialog"]
    assert objs[-1]["error"]["code"] == "model_error"
    wait = http.post(AGENT, json={"question": "Refund A-17 now"}).json()
    check("trustgraph", wait)
    assert wait["error"]["code"] == "run_paused" and "issue_refund" in wait["error"]["message"]
    bad = http.post(AGENT, json={"streaming": True})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "validation_error"


# -- the CLI against the service ---------------------------------------------------------------


def test_cli_format_with_server(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.cli.main import main

    code = main(["ask", QUESTION, "--server", base, "--format", "conversation", "-q"])
    body = json.loads(capsys.readouterr().out)
    assert code == 0
    check("conversation", body)
    assert body["answer"] == TEXT and [c["document_index"] for c in body["citations"]] == [1, 2]
    code = main(["ask", "Where is A-17 today?", "--server", base, "--format", "agentos",
                 "--stream", "-q"])
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1  # the run failed
    for obj in objs:
        check("agentos", obj)
    assert [o["type"] for o in objs[-2:]] == ["error", "final_response"]


def test_a_refused_request_with_history_leaves_no_thread(tmp_path: Path) -> None:
    # The history of a stateless client becomes a thread before the run starts: a run
    # refused at its start (here: no free run slot) must take that thread with it.
    config = ServerConfig(data_dir=tmp_path, rate_limit_per_s=0, poll_interval_s=0.05)
    app = create_app(config, model=Routed)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        app.state.citewise.manager.slots.limit = 1
        app.state.citewise.manager.slots.acquire("default")  # a run in progress
        chat = http.post("/v1/chat/completions", json={"model": "citewise", "messages": [
            {"role": "user", "content": "Where do orders ship from?"},
            {"role": "assistant", "content": "From Berlin."},
            {"role": "user", "content": "And refunds?"}]})
        agent = http.post(AGENT, json={"question": "And refunds?", "history": [
            {"thought": "t", "action": "lookup_order", "arguments": {"order_id": "A-1"},
             "observation": "shipped"}]})
        for refused in (chat, agent):
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "too_many_concurrent_runs"
        assert http.get("/v1/threads").json()["threads"] == []
        app.state.citewise.manager.slots.release("default")
        assert http.post(AGENT, json={"question": "And refunds?", "history": [
            {"thought": "t", "action": "lookup_order", "arguments": {"order_id": "A-1"},
             "observation": "shipped"}]}).status_code == 200
        assert len(http.get("/v1/threads").json()["threads"]) == 1
