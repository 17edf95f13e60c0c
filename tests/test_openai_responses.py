"""OpenAI's Responses API (issue 26, item 5), read by the official ``openai`` SDK unchanged
against a live server on 127.0.0.1: ``client.responses.create`` and
``client.responses.stream`` parse our responses and events; every ``file_citation``
annotation's ``index`` is the ``[`` of its ``[n]`` marker in the output text, its ``file_id``
the stored document (whose text holds the excerpt at the extension's offsets); the agent's
steps are reasoning, ``file_search_call`` and ``mcp_call`` items; a follow-up continues the
thread with ``previous_response_id``; a paused run completes with approval requests and a
failed one raises (streamed: ``response.failed``) without being run again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from typing import Any, ClassVar

import httpx
import openai
import pytest
from openai.types.responses import Response, ResponseOutputMessage
from openai.types.responses.response_output_text import AnnotationFileCitation

from _models import question_and_turn
from citewise.agent.tools import tool
from citewise.models.base import ModelRequest
from citewise.models.scripted import Part, ScriptedModel, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects_run import policy_kb

TEXT = ("Refunds are issued within **14 days** of the return [1]. Orders ship from "
        "Berlin [2]. Your order A-17 has shipped.")


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look an order up.

    Args:
        order_id: The order number.
    """
    return {"order_id": order_id, "status": "shipped"}


@tool(requires_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order (needs approval).

    Args:
        order_id: The order number.
    """
    return f"refunded {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    "how": [
        [thought("Search the refund policy."), call("search_knowledge", query="refund")],
        [thought("And shipping."), call("search_knowledge", query="ship Berlin")],
        [call("lookup_order", order_id="A-17")],
        [answer(TEXT[:30]), answer(TEXT[30:])],
    ],
    "refund": [[call("issue_refund", order_id="A-17")], [answer("Your order A-17 is done.")]],
    "where": [[call("lookup_order", order_id="A-17")]],  # then no turn left: model_error
}


class Routed:
    """Stateless scripted model: the question's first word picks the script."""

    name = "scripted-1"
    calls: ClassVar[int] = 0

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        Routed.calls += 1
        question, done = question_and_turn(request)
        turns = SCRIPTS.get(question.split()[0].lower(), SCRIPTS["how"])
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("responses"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, retain_s=1.0,
                          poll_interval_s=0.05)
    with serve(create_app(config, model=Routed, tools=[lookup_order, issue_refund])) as url:
        yield url


@pytest.fixture
def sdk(base: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{base}/v1", api_key="unused") as client:
        yield client


def _message(response: Response) -> ResponseOutputMessage:
    [message] = [o for o in response.output if o.type == "message"]
    assert isinstance(message, ResponseOutputMessage)
    return message


def _check_annotations(base: str, response: Response) -> None:
    message = _message(response)
    [part] = message.content
    assert part.type == "output_text"
    text = part.text
    assert text == response.output_text == TEXT
    notes = part.annotations
    assert [n.type for n in notes] == ["file_citation", "file_citation"]
    for number, note in enumerate(notes, start=1):
        assert isinstance(note, AnnotationFileCitation)
        assert text[note.index:].startswith(f"[{number}]"), (note.index, text)
        ext: dict[str, Any] = note.citewise  # type: ignore[attr-defined]  # our extension
        assert ext["document_index"] == number and ext["citation_index"] == number - 1
        doc = httpx.get(f"{base}/v1/documents/{note.file_id}", params={"text": "true"}).json()
        assert doc["source"] == note.filename
        assert note.filename.endswith(("refunds.md", "shipping.md"))
        assert doc["text"][ext["start_char"]:ext["end_char"]] == ext["excerpt"]
    sources = [n.filename for n in notes if isinstance(n, AnnotationFileCitation)]
    assert sources[0].endswith("refunds.md") and sources[1].endswith("shipping.md")


def test_create_parses_with_annotations_at_the_markers(base: str, sdk: openai.OpenAI) -> None:
    response = sdk.responses.create(model="citewise", input="How fast are refunds?")
    assert response.status == "completed" and response.id.startswith("resp_run_")
    _check_annotations(base, response)
    kinds = [o.type for o in response.output]
    assert kinds.count("file_search_call") == 2 and kinds.count("mcp_call") == 1
    assert kinds.count("reasoning") == 2 and kinds[-1] == "message"
    searches = [o for o in response.output if o.type == "file_search_call"]
    assert [s.queries for s in searches] == [["refund"], ["ship Berlin"]]
    [lookup] = [o for o in response.output if o.type == "mcp_call"]
    assert lookup.name == "lookup_order" and lookup.server_label == "citewise"
    assert lookup.output is not None and "shipped" in lookup.output
    assert response.usage is not None and response.usage.total_tokens > 0
    assert response.conversation is not None and response.conversation.id.startswith("thread_")
    # The same response later, by id.
    again = sdk.responses.retrieve(response.id)
    assert again.output_text == TEXT and again.conversation == response.conversation


def test_stream_events_and_final_response(base: str, sdk: openai.OpenAI) -> None:
    with sdk.responses.stream(model="citewise", input=[
            {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": [{"type": "input_text", "text": "How fast are refunds?"}]}]) as s:
        events = list(s)
        final = s.get_final_response()
    types = [e.type for e in events]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    for kind in ("response.output_text.delta", "response.output_text.annotation.added",
                 "response.output_item.added", "response.output_item.done",
                 "response.reasoning_text.delta", "response.file_search_call.completed",
                 "response.mcp_call.completed"):
        assert kind in types, kind
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == TEXT
    added = [e.annotation for e in events if e.type == "response.output_text.annotation.added"]
    assert [a.index for a in added] == [TEXT.index("[1]"), TEXT.index("[2]")]  # type: ignore[union-attr]
    assert [e.sequence_number for e in events] == list(range(1, len(events) + 1))
    _check_annotations(base, final)


def test_previous_response_id_continues_the_thread(sdk: openai.OpenAI) -> None:
    first = sdk.responses.create(model="citewise", input="How fast are refunds?")
    second = sdk.responses.create(model="citewise", input="How about shipping?",
                                  previous_response_id=first.id)
    assert second.conversation == first.conversation
    assert second.id != first.id
    thread = first.conversation.id  # type: ignore[union-attr]
    turns = httpx.get(f"{str(sdk.base_url).rstrip('/')}/threads/{thread}").json()["turns"]
    assert [t["question"] for t in turns] == ["How fast are refunds?", "How about shipping?"]
    with pytest.raises(openai.NotFoundError):
        sdk.responses.create(model="citewise", input="x", previous_response_id="resp_nope")


def test_paused_run_asks_for_approval(sdk: openai.OpenAI) -> None:
    response = sdk.responses.create(model="citewise", input="Refund order A-17 please")
    [request] = [o for o in response.output if o.type == "mcp_approval_request"]
    assert request.name == "issue_refund" and '"A-17"' in request.arguments
    ext: dict[str, Any] = response.citewise  # type: ignore[attr-defined]
    assert ext["status"] == "paused" and ext["interrupts"][0]["id"] == request.id
    # Approved as OpenAI's MCP approvals are: the run resumes and the call runs, once.
    resumed = sdk.responses.create(model="citewise", previous_response_id=response.id, input=[
        {"type": "mcp_approval_response", "approval_request_id": request.id, "approve": True}])
    assert resumed.id == response.id and resumed.status == "completed"
    [refund] = [o for o in resumed.output if o.type == "mcp_call"]
    assert refund.name == "issue_refund" and refund.output == "refunded A-17"
    assert resumed.output_text == "Your order A-17 is done."
    assert resumed.citewise["status"] == "completed"  # type: ignore[attr-defined]
    # Refused, streamed: the model is told why, the call never runs.
    second = sdk.responses.create(model="citewise", input="Refund order A-17 please")
    [ask] = [o for o in second.output if o.type == "mcp_approval_request"]
    with sdk.responses.stream(model="citewise", previous_response_id=second.id, input=[
            {"type": "mcp_approval_response", "approval_request_id": ask.id, "approve": False,
             "reason": "not today"}]) as s:
        events = list(s)
        final = s.get_final_response()
    assert events[0].type == "response.created" and final.id == second.id
    assert not [o for o in final.output if o.type == "mcp_call" and o.output == "refunded A-17"]
    assert final.output_text == "Your order A-17 is done."


def test_failed_run_raises_once_and_streams_response_failed(sdk: openai.OpenAI) -> None:
    before = Routed.calls
    with pytest.raises(openai.InternalServerError) as info:
        sdk.responses.create(model="citewise", input="Where is A-17?")
    assert info.value.code == "model_error"
    assert Routed.calls - before == 2  # one run (a tool step, then no turn): no retry
    with sdk.responses.stream(model="citewise", input="Where is A-17?") as s:
        events = list(s)
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None
    assert str(events[-1].response.error.code) == "model_error"
