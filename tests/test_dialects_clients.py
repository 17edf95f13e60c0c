"""Clients no one here wrote read what we write: ``ag-ui-protocol``'s event models parse every
AG-UI event of the recorded runs, and the official ``openai`` SDK parses our chat
completions — as types, and as a real client reading our SSE body over HTTP (the SDK's
own HTTP library's mock transport stands in for the socket; the server's tests cover the
real route)."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from typing import Any

import openai
import pytest
from ag_ui.core import Event as AgUiEvent
from ag_ui.encoder import EventEncoder
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from pydantic import BaseModel, TypeAdapter

from citewise.dialects import get_dialect, sse_stream
from citewise.dialects.base import final_of
from citewise.events import ErrorEvent, Event, RunFinished, RunPaused
from test_dialects_run import ANSWER_TEXT, BIG, RUNS, completed, failed, paused

AG_UI: TypeAdapter[Any] = TypeAdapter(AgUiEvent)
Obj = dict[str, Any]
# The HTTP library this openai release is built on: httpx, or its fork httpx2 since openai 3.
HTTPX: Any = importlib.import_module(
    openai.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0])


def _no_unknown_fields(model: BaseModel, where: str) -> None:
    """ag-ui's models keep unknown fields instead of rejecting them: check none slipped in."""
    assert not model.model_extra, f"{where}: fields outside the protocol: {model.model_extra}"
    for name in type(model).model_fields:
        value = getattr(model, name)
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, BaseModel) and name != "result":
                _no_unknown_fields(child, f"{where}.{name}")


def agui(events: tuple[Event, ...]) -> list[Obj]:
    return list(get_dialect("ag-ui").stream(events))


# -- AG-UI --------------------------------------------------------------------------------------


@pytest.mark.parametrize("run", sorted(RUNS))
def test_ag_ui_models_parse_every_event(run: str) -> None:
    objs = agui(RUNS[run]())
    encoder = EventEncoder()
    for obj in objs:
        event = AG_UI.validate_python(obj)
        assert event.type.value == obj["type"]
        _no_unknown_fields(event, obj["type"])
        assert event.model_dump(mode="json", by_alias=True) == obj  # nothing lost or renamed
        ours = get_dialect("ag-ui").sse(obj)
        assert json.loads(ours[len("data: "):]) == json.loads(encoder.encode(event)[6:])
    final = final_of(get_dialect("ag-ui"), _terminal(RUNS[run]()))
    parsed = AG_UI.validate_python(final)
    _no_unknown_fields(parsed, "final")


def _terminal(events: tuple[Event, ...]) -> RunFinished | RunPaused | ErrorEvent:
    last = events[-1]
    assert isinstance(last, RunFinished | RunPaused | ErrorEvent)
    return last


def test_ag_ui_lifecycle_is_well_formed() -> None:
    objs = agui(completed())
    types = [o["type"] for o in objs]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert objs[0]["threadId"] == "thr_run_done" and objs[0]["runId"] == "run_done"
    counts = Counter(types)
    for start, end in [("STEP_STARTED", "STEP_FINISHED"), ("TEXT_MESSAGE_START", "TEXT_MESSAGE_END"),
                       ("REASONING_START", "REASONING_END"), ("TOOL_CALL_START", "TOOL_CALL_END"),
                       ("REASONING_MESSAGE_START", "REASONING_MESSAGE_END")]:
        assert counts[start] == counts[end] > 0, start
    assert counts["TOOL_CALL_START"] == counts["TOOL_CALL_RESULT"] == 2
    open_steps: list[str] = []
    for o in objs:  # steps never overlap and close in order
        if o["type"] == "STEP_STARTED":
            assert not open_steps
            open_steps.append(o["stepName"])
        elif o["type"] == "STEP_FINISHED":
            assert open_steps.pop() == o["stepName"]
    assert [o["stepName"] for o in objs if o["type"] == "STEP_STARTED"] == [
        "step-0", "step-1", "answer"]
    text = "".join(o["delta"] for o in objs if o["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == ANSWER_TEXT
    args = [json.loads(o["delta"]) for o in objs if o["type"] == "TOOL_CALL_ARGS"]
    assert args == [{"query": "refund policy"}, {"order_id": "A-17"}]
    custom = Counter(o["name"] for o in objs if o["type"] == "CUSTOM")
    assert custom["citewise.citation"] == 2 and custom["citewise.warning"] == 1
    assert custom["citewise.explain"] >= 3
    done = objs[-1]
    assert done["outcome"] == {"type": "success"}
    assert done["result"]["text"] == ANSWER_TEXT
    assert done["usage"][0]["model"] == "scripted-1" and done["usage"][0]["totalTokens"] > 0


def test_ag_ui_pause_is_an_interrupt_and_failure_a_run_error() -> None:
    done = agui(paused())[-1]
    last = paused()[-1]
    assert isinstance(last, RunPaused)
    assert done["type"] == "RUN_FINISHED" and done["outcome"]["type"] == "interrupt"
    [interrupt] = done["outcome"]["interrupts"]
    assert interrupt["id"] == last.interrupts[0].id
    assert interrupt["toolCallId"] == last.interrupts[0].call_id
    assert interrupt["metadata"]["tool"] == "issue_refund"
    bad = agui(failed())[-1]
    assert bad["type"] == "RUN_ERROR" and bad["code"] == "model_error"


# -- OpenAI: the SDK's types --------------------------------------------------------------------


def test_ag_ui_resumed_run_reports_only_its_own_usage(tmp_path: Any) -> None:
    # AG-UI RunFinishedEvent.usage: "a run that resumes an interrupted one reports only the
    # calls it made itself, not the interrupted run's".
    import asyncio

    from citewise import Agent
    from citewise.agent.state import Decision
    from citewise.agent.tools import tool
    from citewise.models.base import UsagePart
    from citewise.models.scripted import ScriptedModel, call
    from citewise.store.sqlite import SQLiteStore

    @tool(requires_approval=True)
    def transfer(amount: int) -> str:
        """Move money."""
        return f"moved {amount}"

    store = SQLiteStore(tmp_path / "c.db")
    try:
        agent = Agent(store=store, tools=[transfer], model=ScriptedModel([
            [call("transfer", amount=5), UsagePart(input_tokens=1000, output_tokens=100)],
            ["Moved 5 EUR.", UsagePart(input_tokens=7, output_tokens=3)]]))

        async def collect(events: Any) -> list[Event]:
            return [e async for e in events]

        first = asyncio.run(collect(agent.stream("move 5")))
        pause = first[-1]
        assert isinstance(pause, RunPaused)
        then = asyncio.run(collect(agent.resume(pause.run_id, [
            Decision(interrupt_id=pause.interrupts[0].id, action="approve")])))
    finally:
        store.close()
    before = list(get_dialect("ag-ui").stream(first))[-1]["usage"]
    after = list(get_dialect("ag-ui").stream(then))[-1]
    assert [(u["inputTokens"], u["outputTokens"]) for u in before] == [(1000, 100)]
    assert [(u["inputTokens"], u["outputTokens"]) for u in after["usage"]] == [(7, 3)]
    assert after["result"]["usage"]["input_tokens"] == 1007  # citewise's answer: the run's


def test_openai_types_parse_stream_and_completion() -> None:
    chunks = list(get_dialect("openai").stream(completed()))
    parsed = [ChatCompletionChunk.model_validate(c) for c in chunks]
    assert parsed[0].choices[0].delta.role == "assistant"
    content = "".join(p.choices[0].delta.content or "" for p in parsed if p.choices)
    assert content == ANSWER_TEXT  # plain clients see the markers
    finish = parsed[-2]
    assert finish.choices[0].finish_reason == "stop"
    ext = (finish.model_extra or {})["citewise"]
    assert [c["document_index"] for c in ext["citations"]] == [1, 2]
    assert [c["source"] for c in ext["citations"]] == ["kb/refunds.md", "kb/shipping.md"]
    assert ext["context_chunk_ids"] == [BIG + 11, BIG + 22]
    assert parsed[-1].choices == [] and parsed[-1].usage is not None
    assert parsed[-1].usage.total_tokens > 0
    reasoning = [(p.choices[0].delta.model_extra or {}).get("reasoning_content") for p in parsed
                 if p.choices]
    assert "I should search the refund policy." in reasoning

    completion = ChatCompletion.model_validate(final_of(get_dialect("openai"), _terminal(completed())))
    message = completion.choices[0].message
    assert message.content == ANSWER_TEXT and completion.choices[0].finish_reason == "stop"
    assert (message.model_extra or {})["citewise"]["search_documents"][0]["source"] == "kb/refunds.md"
    assert completion.usage is not None and completion.usage.total_tokens == parsed[-1].usage.total_tokens


def test_openai_paused_run_finishes_with_interrupts() -> None:
    chunks = [ChatCompletionChunk.model_validate(c)
              for c in get_dialect("openai").stream(paused())]
    ext = (chunks[-2].model_extra or {})["citewise"]
    assert ext["status"] == "paused" and ext["interrupts"][0]["tool"] == "issue_refund"
    completion = ChatCompletion.model_validate(final_of(get_dialect("openai"), _terminal(paused())))
    assert (completion.choices[0].message.model_extra or {})["citewise"]["interrupts"]


# -- OpenAI: the real SDK client reading our HTTP bodies ----------------------------------------


def _client(events: tuple[Event, ...]) -> openai.OpenAI:
    dialect = get_dialect("openai")

    def handle(request: Any) -> Any:
        assert request.url.path == "/v1/chat/completions"
        body = json.loads(request.content)
        if body.get("stream"):
            sse = "".join(sse_stream(dialect, events)).encode()
            return HTTPX.Response(200, content=sse, headers={"content-type": dialect.media_type})
        payload = final_of(dialect, _terminal(events))
        return HTTPX.Response(500 if "error" in payload else 200, json=payload)

    return openai.OpenAI(api_key="test", base_url="http://citewise.test/v1", max_retries=0,
                         http_client=HTTPX.Client(transport=HTTPX.MockTransport(handle)))


def test_openai_sdk_streams_and_reads_a_completion() -> None:
    with _client(completed()) as client:
        chunks = list(client.chat.completions.create(
            model="citewise", messages=[{"role": "user", "content": "How fast are refunds?"}],
            stream=True, stream_options={"include_usage": True}))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == ANSWER_TEXT
        assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
        assert all(c.model == "citewise" and c.id == "chatcmpl-run_done" for c in chunks)

        completion = client.chat.completions.create(
            model="citewise", messages=[{"role": "user", "content": "How fast are refunds?"}])
        assert completion.choices[0].message.content == ANSWER_TEXT
        ext = (completion.choices[0].message.model_extra or {})["citewise"]
        assert [c["excerpt"] for c in ext["citations"]] == [
            "Refunds are issued within 14 days of the return.", "Orders ship from Berlin."]


def test_openai_sdk_raises_on_a_failed_run() -> None:
    with _client(failed()) as client:
        stream = client.chat.completions.create(
            model="citewise", messages=[{"role": "user", "content": "Where is A-17?"}], stream=True)
        with pytest.raises(openai.APIError, match="scripted model has no turns left"):
            list(stream)
        with pytest.raises(openai.InternalServerError) as info:
            client.chat.completions.create(
                model="citewise", messages=[{"role": "user", "content": "Where is A-17?"}])
        assert info.value.code == "model_error"


def test_openai_extension_carries_structured_and_error_details() -> None:
    from test_dialects_run import final_answer

    ans = final_answer().model_copy(update={"structured": {"days": 14}})
    completion = ChatCompletion.model_validate(get_dialect("openai").final(ans))
    assert (completion.choices[0].message.model_extra or {})["citewise"]["structured"] == {
        "days": 14}
    assert "structured" not in get_dialect("openai").final(final_answer())["choices"][0][
        "message"]["citewise"]
    # A failure is OpenAI's error object and citewise's one error shape at once.
    error = final_of(get_dialect("openai"), _terminal(failed()))["error"]
    assert {"message", "type", "param", "code", "details"} <= set(error)
    streamed = list(get_dialect("openai").stream(failed()))[-1]["error"]
    assert streamed == error
