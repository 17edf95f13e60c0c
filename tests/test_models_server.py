"""Integration: citewise's OpenAI-compatible provider against a REAL server.

``python -m llama_cpp.server`` serves the packaged SmolLM2-135M GGUF on 127.0.0.1 (one
server per module); a misbehaving proxy in front of it injects a 503 with Retry-After,
a stall, and observes cancellation. Skipped (with the reason) only when llama-cpp-python
or its server extras are not installed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _llama_server import MisbehavingProxy, llama_server, server_unavailable_reason
from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.errors import ModelError
from citewise.events import TERMINAL_KINDS, Event
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import (
    ModelRequest,
    SystemMessage,
    TextDelta,
    ToolCallPart,
    ToolSpec,
    UsagePart,
    UserMessage,
)
from citewise.models.local import smollm2_path
from citewise.models.openai_chat import OpenAIChatModel
from citewise.models.react_text import TextReActModel
from citewise.models.registry import allow_model_requests, resolve_model

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(server_unavailable_reason() is not None,
                       reason=server_unavailable_reason() or ""),
]

DOC = "Refunds are issued within 5 business days. Shipping is free above 75 EUR."
SEARCH = ToolSpec(name="search", description="Search the knowledge base.",
                  parameters={"type": "object", "properties": {"query": {"type": "string"}},
                              "required": ["query"]})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(smollm2_path(), log=log) as url:
        yield url


@pytest.fixture
def proxy(server: str) -> Iterator[MisbehavingProxy]:
    with MisbehavingProxy(server) as p, allow_model_requests(["127.0.0.1"]):
        yield p


def _model(url: str, **options: Any) -> OpenAIChatModel:
    options.setdefault("temperature", 0.0)
    m = resolve_model(f"openai-compat:{url}#smollm2", **options)
    assert isinstance(m, OpenAIChatModel)
    return m


def _req(question: str = "Say hello in five words.", **kw: Any) -> ModelRequest:
    return ModelRequest(messages=[SystemMessage(content="You are brief."),
                                  UserMessage(content=question)], **kw)


async def _collect(m: Any, req: ModelRequest) -> list[Any]:
    return [p async for p in m.stream(req)]


def test_streams_token_by_token_with_usage(server: str) -> None:
    with allow_model_requests(["127.0.0.1"]):
        streamed = asyncio.run(_collect(_model(server, max_tokens=24), _req()))
        exact = asyncio.run(_collect(_model(server, max_tokens=24, stream=False), _req()))
    deltas = [p for p in streamed if isinstance(p, TextDelta)]
    assert len(deltas) > 3 and all(d.channel == "answer" for d in deltas)
    text = "".join(d.text for d in deltas)
    assert text.strip()
    # Same greedy completion both ways; the non-streamed one carries the server's usage.
    assert "".join(p.text for p in exact if isinstance(p, TextDelta)) == text
    est, real = streamed[-1], exact[-1]
    assert isinstance(est, UsagePart) and isinstance(real, UsagePart)
    assert real.input_tokens > 10 and 0 < real.output_tokens <= 24
    assert abs(est.output_tokens - real.output_tokens) <= 2  # one delta ≈ one token
    assert real.input_tokens / 3 < est.input_tokens < real.input_tokens * 3


def test_native_tool_call_when_the_server_is_told_to_call(server: str) -> None:
    m = _model(server, tool_choice={"type": "function", "function": {"name": "search"}})
    with allow_model_requests(["127.0.0.1"]):
        parts = asyncio.run(_collect(m, _req("How fast are refunds?", tools=[SEARCH])))
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert len(calls) == 1 and calls[0].name == "search"
    assert isinstance(calls[0].arguments.get("query"), str)  # grammar-constrained JSON args


@tool
def search(ctx: RunContext, query: str) -> ToolResult:
    """Search the knowledge base.

    Args:
        query: what to look for
    """
    ctx.ledger.add([Hit(chunk_id=1, document_id="d1", source="/kb/policy.txt", text=DOC[:42],
                        start_char=0, end_char=42, field_length=len(DOC), score=1.0)])
    return ToolResult(text=f"[1] {DOC[:42]}")


def _run(model: Any, tools: list[Any], settings: RunSettings) -> list[Event]:
    state = RunState(run_id="r", thread_id="t", question="How fast are refunds?",
                     messages=[SystemMessage(content="Answer from the knowledge base."),
                               UserMessage(content="How fast are refunds?")])

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=Toolset(tools),
                                           settings=settings)]
    return asyncio.run(go())


def test_text_react_fallback_runs_to_a_terminal_event(proxy: MisbehavingProxy) -> None:
    react = TextReActModel(_model(proxy.url, max_tokens=96, stop=["\nObservation:"]),
                           max_parse_failures=1)
    events = _run(react, [search], RunSettings(max_steps=4))
    terminal = [e for e in events if e.kind in TERMINAL_KINDS]
    assert len(terminal) == 1 and events[-1] is terminal[0]
    assert len(proxy.seen) >= 1 and set(proxy.seen) == {"pass"}
    # A 135M model may or may not follow the protocol; both outcomes are typed.
    if events[-1].kind == "run_finished":
        answer = events[-1].answer
        assert answer.text.strip() and answer.usage.total_tokens > 0
        assert answer.citations or answer.issues  # grounded, or the issues say why not
    else:
        assert getattr(events[-1], "code", None) in {"model_output_unparseable", "max_steps_exceeded"}


def test_structured_output_is_schema_valid(server: str) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 80},
                                               "days": {"type": "integer"}},
              "required": ["answer", "days"]}
    m = _model(server, response_format="json_object", max_tokens=96)
    with allow_model_requests(["127.0.0.1"]):
        events = _run(m, [], RunSettings(output_schema=schema, max_repairs=1))
    final = events[-1]
    assert final.kind == "run_finished", final
    assert set(final.answer.structured) == {"answer", "days"}
    assert isinstance(final.answer.structured["days"], int)


def test_503_with_retry_after_is_retried(proxy: MisbehavingProxy) -> None:
    proxy.plan(("status", 503, {"Retry-After": "1"}), "pass")
    m = _model(proxy.url, max_tokens=8, max_retries=2)
    t0 = time.perf_counter()
    parts = asyncio.run(_collect(m, _req()))
    assert time.perf_counter() - t0 >= 1.0  # Retry-After honoured
    assert proxy.seen == ["status", "pass"] and m.provider.attempts == 2
    assert any(isinstance(p, TextDelta) and p.text for p in parts)


def test_persistent_503_fails_with_model_unavailable(proxy: MisbehavingProxy) -> None:
    proxy.plan(*[("status", 503, {"Retry-After": "0"})] * 3)
    with pytest.raises(ModelError) as err:
        asyncio.run(_collect(_model(proxy.url, max_retries=2), _req()))
    assert err.value.code == "model_unavailable" and err.value.details["attempts"] == 3


def test_a_stalled_server_times_out(proxy: MisbehavingProxy) -> None:
    proxy.plan(("stall", 30))
    t0 = time.perf_counter()
    with pytest.raises(ModelError) as err:
        asyncio.run(_collect(_model(proxy.url, timeout=0.5, max_retries=0), _req()))
    assert err.value.code == "model_timeout" and time.perf_counter() - t0 < 5


def test_closing_the_stream_hangs_up_on_the_server(proxy: MisbehavingProxy) -> None:
    m = _model(proxy.url, max_tokens=400)

    async def go() -> list[Any]:
        stream: Any = m.stream(_req("Write a long story about a lighthouse keeper."))
        got = [await anext(stream) for _ in range(3)]
        await stream.aclose()
        return got

    got = asyncio.run(go())
    assert len(got) == 3
    assert proxy.hangup.wait(5) and proxy.client_hangups == 1


def test_fallback_from_a_dead_server_to_the_real_one(proxy: MisbehavingProxy,
                                                     tmp_path: Path) -> None:
    dead = f"openai-compat:http://127.0.0.1:{_closed_port()}/v1#x"
    chain = resolve_model(f"{dead}|openai-compat:{proxy.url}#smollm2", max_retries=0,
                          max_tokens=8)
    parts = asyncio.run(_collect(chain, _req()))
    assert any(isinstance(p, TextDelta) for p in parts)
    assert chain.name == "openai-compat:smollm2"


def _closed_port() -> int:
    from _llama_server import free_port

    return free_port()
