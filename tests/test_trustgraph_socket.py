"""TrustGraph's own client, ``trustgraph-base`` 2.11, unchanged against a live citewise
(issue 26, item 2): its websocket clients (sync ``Api.socket()`` and ``Api.async_socket()``)
authenticate on ``/api/v1/socket`` with the first-frame protocol, multiplex ``agent``
requests on one socket and stream them to ``end_of_dialog`` with the answer text, its
provenance events, token counts and errors; with API keys the token is the key and the
workspace the tenant. Over REST, its ``flow().agent()`` reads the answer, and
``?format=current`` streams chunks its parser reads while the seed's format (000) stays the
default. The model is scripted (the question's first word picks the script).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from trustgraph.api import Api
from trustgraph.api.exceptions import (
    AgentError,
    ProtocolException,
    TrustGraphException,
    raise_from_error_dict,
)
from trustgraph.api.socket_client import SocketClient
from trustgraph.api.types import AgentAnswer, AgentObservation, AgentThought, ProvenanceEvent

from _models import question_and_turn
from citewise import KnowledgeBase
from citewise.agent.tools import tool
from citewise.events import ErrorEvent
from citewise.models.base import ModelRequest
from citewise.models.scripted import Part, ScriptedModel, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.auth import create_key
from citewise.server.testing import serve
from citewise.store.sqlite import SQLiteStore
from test_dialects import validator
from test_dialects_run import policy_kb

pytestmark = pytest.mark.slow

TEXT = "Refunds are issued within 14 days of the return [1]. Orders ship from Berlin [2]."


@tool(requires_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order (needs a human's approval).

    Args:
        order_id: The order number.
    """
    return f"refunded {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    "how": [[thought("Search the policies."), call("search_knowledge", query="refund")],
            [call("search_knowledge", query="ship Berlin")],
            [answer(TEXT[:25]), answer(TEXT[25:])]],
    "refund": [[call("issue_refund", order_id="A-17")]],
    "where": [[thought("Look it up."), call("search_knowledge", query="A-17")]],  # then none
}


class Routed:
    name = "scripted-tg"

    async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
        question, done = question_and_turn(request)
        turns = SCRIPTS.get(question.split()[0].lower(), SCRIPTS["how"])
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


@contextmanager
def tg_socket(url: str, **kwargs: Any) -> Iterator[SocketClient]:
    """Their sync socket client, closed after use — and its event loop too, which their
    ``close()`` leaves open (a ResourceWarning at exit otherwise)."""
    client = SocketClient(url, timeout=kwargs.pop("timeout", 30), token=kwargs.pop("token", None),
                          **kwargs)
    try:
        yield client
    finally:
        client.close()
        if client._loop is not None:
            client._loop.close()
            asyncio.set_event_loop(None)  # (it made that loop the thread's current one)


def _app(data: Path, **config: Any) -> Any:
    return create_app(ServerConfig(data_dir=data, rate_limit_per_s=0, **config), model=Routed,
                      tools=[issue_refund])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(_app(policy_kb(tmp_path_factory.mktemp("tg_socket")))) as url:
        yield url


def test_socket_client_streams_to_end_of_dialog(base: str) -> None:
    with tg_socket(base) as client:
        chunks = list(client.flow("default").agent("How fast are refunds?", streaming=True))
    answers = [c for c in chunks if isinstance(c, AgentAnswer)]
    assert "".join(a.content for a in answers) == TEXT  # what their clients accumulate
    assert answers[-1].end_of_dialog and answers[-1].end_of_message
    assert [a.end_of_dialog for a in answers].count(True) == 1
    assert answers[-1].in_token and answers[-1].out_token and answers[-1].model == "scripted-tg"
    thoughts = [c.content for c in chunks if type(c) is AgentThought]
    assert "Search the policies." in "".join(thoughts)
    assert "search_knowledge" in thoughts  # the action (their parser reads it as a thought)
    observations = [c.content for c in chunks if isinstance(c, AgentObservation)]
    assert len(observations) == 2 and "Orders ship from Berlin." in observations[1]


def test_provenance_and_the_verified_answer_ride_along(base: str) -> None:
    with tg_socket(base) as client:
        chunks = list(client.flow("default").agent_explain("How fast are refunds?",
                                                            collection="default"))
        raw = list(client._send_request_sync(  # their raw reader: every response as sent
            "agent", "default", {"question": "How fast are refunds?", "streaming": True},
            streaming_raw=True))
    events = [c for c in chunks if isinstance(c, ProvenanceEvent)]
    assert events and all(e.explain_graph == "urn:graph:retrieval" for e in events)
    assert any(e.triples for e in events)
    last = raw[-1]
    assert last["end_of_dialog"] and last["citewise"]["text"] == TEXT
    assert [c["document_index"] for c in last["citewise"]["citations"]] == [1, 2]
    assert {r["message_type"] for r in raw} >= {"thought", "action", "observation", "answer",
                                                 "explain"}


def test_async_socket_multiplexes_requests_and_raises_errors(base: str) -> None:
    async def ask(flow: Any, question: str) -> str:
        parts = [c.content async for c in await flow.agent(question, streaming=True)
                 if isinstance(c, AgentAnswer)]
        return "".join(parts)

    async def go() -> tuple[list[str], list[BaseException]]:
        async with Api(url=f"{base}/").async_socket() as sock:
            flow = sock.flow("default")
            answers = await asyncio.gather(*(ask(flow, f"How fast are refunds, {n}?") for n in range(3)))
            errors = []
            for question in ("Where is A-17?", "Refund order A-17"):
                try:
                    await ask(flow, question)
                except BaseException as exc:  # what their client raises
                    errors.append(exc)
            return list(answers), errors

    answers, errors = asyncio.run(go())
    assert answers == [TEXT] * 3
    failed, paused = errors
    assert isinstance(failed, TrustGraphException) and "no turns left" in str(failed)
    assert isinstance(paused, TrustGraphException) and "issue_refund" in str(paused)


def test_rest_agent_and_current_format(base: str) -> None:
    api = Api(url=f"{base}/")
    try:  # their REST client (non-streaming, the legacy `answer`)
        assert api.flow().id("default").agent(question="How fast are refunds?") == TEXT
    finally:
        api.close()
    parse = SocketClient(base, timeout=5, token=None)._parse_chunk  # their chunk parser
    url = f"{base}/api/v1/flow/default/service/agent"
    with httpx.Client(timeout=30) as http:
        current = http.post(url, params={"format": "current"},
                            json={"question": "How fast are refunds?"}).json()
        seed = http.post(url, json={"question": "How fast are refunds?", "streaming": True})
    answer_chunk = parse(current)
    assert isinstance(answer_chunk, AgentAnswer) and answer_chunk.content == TEXT
    assert answer_chunk.end_of_dialog
    check = validator("trustgraph")  # the seed's format is still the default, and valid
    lines = [line[6:] for line in seed.text.splitlines() if line.startswith("data: ")]
    objs = [json.loads(line) for line in lines]
    assert objs[-1]["chunk-type"] == "final-answer" and objs[-1]["end-of-dialog"]
    assert all(not list(check.iter_errors(o)) for o in objs)


def test_with_api_keys_the_token_is_the_key(tmp_path: Path) -> None:
    data = policy_kb(tmp_path)
    with KnowledgeBase.open(data, tenant="acme") as kb:  # the key's tenant has the pages too
        assert not kb.ingest([tmp_path / "kb"]).failed
    with SQLiteStore(data / "citewise.db") as store:
        _, key = create_key(store, "acme", "tg")
    with serve(_app(data, auth="keys", key_cache_s=0)) as url:
        with tg_socket(url, token="not-a-key") as bad, \
                pytest.raises(ProtocolException, match="auth failure"):
            list(bad.flow("default").agent("How fast are refunds?"))
        with tg_socket(url, token=key) as good:
            chunks = list(good.flow("default").agent("How fast are refunds?"))
            assert good.workspace == "acme"  # auth-ok named the key's tenant
        with tg_socket(url, token=key, workspace="someone-else") as other, \
                pytest.raises(TrustGraphException, match="access denied"):
            list(other.flow("default").agent("How fast are refunds?"))
        text = "".join(c.content for c in chunks if isinstance(c, AgentAnswer))
        assert text == TEXT
        with httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": key}) as http:
            threads = http.get("/v1/threads").json()["threads"]
        assert threads  # the run is the tenant's


def test_agent_error_type_is_theirs() -> None:
    # The failure chunk's `type` is one TrustGraph maps to its own exception class.
    from citewise.dialects.base import answer_of
    from citewise.dialects.trustgraph import current_final
    from test_dialects_run import failed

    terminal = failed()[-1]
    assert isinstance(terminal, ErrorEvent)
    chunk = current_final(answer_of(terminal))
    assert chunk["end_of_dialog"] and chunk["error"]["code"] == "model_error"
    with pytest.raises(AgentError, match=re.escape(terminal.message)):
        raise_from_error_dict(chunk["error"])


def test_the_gateway_refusals_on_a_raw_socket(base: str) -> None:
    # What TrustGraph's gateway answers before auth, for a service citewise does not serve,
    # and for a frame that is not a request; the socket stays open through all of them.
    from websockets.sync.client import connect

    with connect(base.replace("http://", "ws://") + "/api/v1/socket") as ws:
        ws.send(json.dumps({"id": "r1", "service": "agent", "request": {"question": "How?"}}))
        assert json.loads(ws.recv())["error"]["type"] == "auth-required"
        ws.send(json.dumps({"type": "auth", "token": ""}))  # an open server: any token
        assert json.loads(ws.recv()) == {"type": "auth-ok", "workspace": "default",
                                         "default_workspace": "default"}
        ws.send(json.dumps({"id": "r2", "service": "graph-rag", "request": {}}))
        refused = json.loads(ws.recv())
        assert refused["id"] == "r2" and refused["complete"] is True
        assert refused["error"]["type"] == "unknown-service"
        ws.send("not json")
        assert json.loads(ws.recv())["error"]["code"] == "invalid_message"
        ws.send(json.dumps({"id": "r3", "service": "agent", "request": {"question": ""}}))
        assert json.loads(ws.recv())["error"]["type"] == "request-error"
        ws.send(json.dumps({"id": "r4", "service": "agent",
                            "request": {"question": "How fast are refunds?", "streaming": False}}))
        final = json.loads(ws.recv())
        assert final["complete"] and final["response"]["content"] == TEXT
