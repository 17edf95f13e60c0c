"""Space Frontiers' own client reads citewise's ``conversation`` format (issue 26, item 3).

A real uvicorn server on 127.0.0.1 answers; ``spacefrontiers-clients`` — its pydantic
``ConversationResponse`` and its ``SearchApiClient.post_conversations`` (aiohttp, posting
to ``/v2/conversations/``) — reads the answers unchanged, and the same bodies still
validate against the seed's schema (003). The model is scripted; the knowledge base is the
two policy pages of ``test_dialects_run``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from spacefrontiers.clients import SearchApiClient
from spacefrontiers.clients.types import ConversationRequest, ConversationResponse, LlmConfig

from citewise.models.base import ModelRequest
from citewise.models.scripted import Part, ScriptedModel, answer, call
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects import validator
from test_dialects_run import policy_kb

TEXT = "Refunds are issued within 14 days of the return [1]."


class Searcher:
    """Searches the refund policy once, then answers citing it (stateless: it counts the
    tool results of the current question)."""

    name = "scripted-sf"

    async def stream(self, request: ModelRequest) -> AsyncIterator[Part]:
        from _models import question_and_turn

        _, done = question_and_turn(request)
        turns: list[list[Any]] = [[call("search_knowledge", query="refund days")],
                                  [answer(TEXT)]]
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("spacefrontiers"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0)
    with serve(create_app(config, model=Searcher)) as url:
        yield url


def _check_ours(body: dict[str, Any]) -> ConversationResponse:
    errors = sorted(validator("conversation").iter_errors(body), key=str)
    assert not errors, errors[0].message  # the seed's schema
    parsed = ConversationResponse.model_validate(body)  # and their model
    assert parsed.kind == "response" and parsed.answer == TEXT
    assert {d.source for d in parsed.search_documents} == {"documents"}
    # the file path moved into the document's metadata
    files = [d.document["source"] for d in parsed.search_documents]
    assert files[0].endswith("refunds.md") and len(set(files)) == len(files)
    assert any("14 days" in s.text for s in parsed.search_documents[0].snippets)
    return parsed


def test_conversation_format_is_their_conversation_response(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        r = http.post("/v1/ask", params={"format": "conversation"},
                      json={"question": "How fast are refunds?"})
        assert r.status_code == 200, r.text
        parsed = _check_ours(r.json())
        assert parsed.conversation_id == r.headers["X-Thread-Id"]
        # the citation still points into the document's snippets
        [cit] = r.json()["citations"]
        snippet = parsed.search_documents[cit["document_index"] - 1].snippets[cit["snippet_index"]]
        assert cit["excerpt"] in snippet.text


def test_their_client_posts_conversations(base: str) -> None:
    async def talk() -> tuple[ConversationResponse, ConversationResponse]:
        client = SearchApiClient(base_url=base, api_key="ignored-on-an-open-server",
                                 max_retries=1)
        try:
            request = ConversationRequest(query="How fast are refunds?",
                                          llm_config=LlmConfig(model_name="auto"))
            first = await client.post_conversations(request)
            again = await client.post_conversations(ConversationRequest(
                query="And how fast again?", conversation_id=first.conversation_id,
                llm_config=LlmConfig(model_name="auto")))
        finally:
            await client.connector.close()
        return first, again

    first, again = asyncio.run(talk())
    assert first.kind == "response" and first.answer == TEXT
    assert first.search_documents[0].source == "documents"
    assert again.conversation_id == first.conversation_id  # the thread went on
    with httpx.Client(base_url=base, timeout=30) as http:
        turns = http.get(f"/v1/threads/{first.conversation_id}").json()["turns"]
    assert [t["question"] for t in turns] == ["How fast are refunds?", "And how fast again?"]
