"""The OpenAI-compatible provider against a small real HTTP server on 127.0.0.1.

The server (plain asyncio, in the test's own event loop) plays scripted behaviours:
stream SSE chunks, answer an HTTP status, stall, or stream slowly while watching for the
client to hang up. This proves retries, Retry-After, timeouts, error codes, cancellation
and the request guard without any model.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.errors import ModelError
from citewise.events import Event
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import ModelRequest, TextDelta, ToolCallPart, UsagePart, UserMessage
from citewise.models.fallback import FallbackModel
from citewise.models.openai_chat import OpenAIChatModel
from citewise.models.registry import allow_model_requests, resolve_model

Writer = asyncio.StreamWriter
Behaviour = Callable[[asyncio.StreamReader, Writer, dict[str, Any]], Awaitable[None]]
REQ = ModelRequest(messages=[UserMessage(content="How fast are refunds?")])


def chunk(delta: dict[str, Any] | None = None, usage: dict[str, int] | None = None,
          finish: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"choices": [] if delta is None else
                           [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        out["usage"] = usage
    return out


def sse(chunks: list[dict[str, Any]], delay: float = 0.0) -> Behaviour:
    async def play(reader: asyncio.StreamReader, w: Writer, body: dict[str, Any]) -> None:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"connection: close\r\n\r\n")
        for c in chunks:
            w.write(b"data: " + json.dumps(c).encode() + b"\n\n")
            await w.drain()
            if delay:
                await asyncio.sleep(delay)
        w.write(b"data: [DONE]\n\n")
        await w.drain()
    return play


def status(code: int, headers: dict[str, str] | None = None, body: bytes = b"") -> Behaviour:
    async def play(reader: asyncio.StreamReader, w: Writer, req: dict[str, Any]) -> None:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        payload = body or json.dumps({"error": {"message": f"status {code}"}}).encode()
        w.write(f"HTTP/1.1 {code} X\r\ncontent-length: {len(payload)}\r\n{extra}"
                "connection: close\r\n\r\n".encode() + payload)
        await w.drain()
    return play


def stall(seconds: float) -> Behaviour:
    async def play(reader: asyncio.StreamReader, w: Writer, req: dict[str, Any]) -> None:
        await asyncio.sleep(seconds)
    return play


class FakeServer:
    """Plays one behaviour per request, in order (the last one repeats)."""

    def __init__(self, behaviours: list[Behaviour]) -> None:
        self.behaviours = behaviours
        self.bodies: list[dict[str, Any]] = []
        self.sent_chunks = 0
        self.disconnected = asyncio.Event()
        self.port = 0

    async def _handle(self, reader: asyncio.StreamReader, w: Writer) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        self.bodies.append(json.loads(await reader.readexactly(length)))
        index = min(len(self.bodies), len(self.behaviours)) - 1
        try:
            await self.behaviours[index](reader, w, self.bodies[-1])
        except (ConnectionError, asyncio.CancelledError):
            self.disconnected.set()
        finally:
            w.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


@asynccontextmanager
async def serve(*behaviours: Behaviour) -> AsyncIterator[FakeServer]:
    fake = FakeServer(list(behaviours))
    server = await asyncio.start_server(fake._handle, "127.0.0.1", 0)
    fake.port = server.sockets[0].getsockname()[1]
    try:
        with allow_model_requests(["127.0.0.1"]):
            yield fake
    finally:
        server.close()
        await server.wait_closed()


def model(fake: FakeServer, **options: Any) -> OpenAIChatModel:
    m = resolve_model(f"openai-compat:{fake.url}#fake", **options)
    assert isinstance(m, OpenAIChatModel)
    return m


async def collect(m: Any, request: ModelRequest = REQ) -> list[Any]:
    return [p async for p in m.stream(request)]


TEXT = [chunk({"content": "Five "}), chunk({"content": "days."}, finish="stop"),
        chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 2})]


def test_streams_text_and_usage_and_sends_the_model_id() -> None:
    async def go() -> None:
        async with serve(sse(TEXT)) as fake:
            m = model(fake)
            parts = await collect(m)
            await m.aclose()
            assert parts == [TextDelta(text="Five "), TextDelta(text="days."),
                             UsagePart(input_tokens=9, output_tokens=2)]
            assert fake.bodies[0]["model"] == "fake" and fake.bodies[0]["stream"] is True
            assert m.name == "openai-compat:fake"
    asyncio.run(go())


def test_the_client_is_closed_when_its_event_loop_ends() -> None:
    holder: list[OpenAIChatModel] = []

    async def go() -> None:
        async with serve(sse(TEXT)) as fake:
            holder.append(model(fake))
            await collect(holder[0])
            assert not holder[0].provider._client.is_closed  # type: ignore[union-attr]
    asyncio.run(go())
    client = holder[0].provider._client
    assert client is not None and client.is_closed  # closed by asyncio.run's shutdown


def test_usage_is_estimated_when_the_server_reports_none() -> None:
    async def go() -> None:
        async with serve(sse(TEXT[:2])) as fake:
            parts = await collect(model(fake))
            usage = parts[-1]
            assert isinstance(usage, UsagePart)
            assert usage.output_tokens == 2 and usage.input_tokens > 0
    asyncio.run(go())


def test_non_streaming_mode() -> None:
    body = json.dumps({"choices": [{"message": {"content": "Five days."}}],
                       "usage": {"prompt_tokens": 4, "completion_tokens": 3}}).encode()
    async def go() -> None:
        async with serve(status(200, {"content-type": "application/json"}, body)) as fake:
            parts = await collect(model(fake, stream=False))
            assert parts == [TextDelta(text="Five days."), UsagePart(input_tokens=4,
                                                                     output_tokens=3)]
            assert "stream" not in fake.bodies[0]
    asyncio.run(go())


def test_503_with_retry_after_is_retried_after_the_wait() -> None:
    async def go() -> None:
        async with serve(status(503, {"retry-after": "0.3"}), sse(TEXT)) as fake:
            m = model(fake)
            t0 = time.perf_counter()
            parts = await collect(m)
            assert time.perf_counter() - t0 >= 0.3
            assert m.provider.attempts == 2 and len(fake.bodies) == 2
            assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == "Five days."
    asyncio.run(go())


@pytest.mark.parametrize(("code", "error_code", "attempts"), [
    (429, "model_rate_limited", 2),
    (500, "model_unavailable", 2),
    (401, "model_auth_failed", 1),
    (404, "model_request_rejected", 1),
])
def test_http_errors_map_to_codes(code: int, error_code: str, attempts: int) -> None:
    async def go() -> None:
        async with serve(status(code, {"retry-after": "0"})) as fake:
            m = model(fake, max_retries=1)
            with pytest.raises(ModelError) as err:
                await collect(m)
            assert err.value.code == error_code
            assert f"status {code}" in err.value.message  # the server's own message
            assert m.provider.attempts == attempts
    asyncio.run(go())


def test_a_long_retry_after_is_not_waited_for() -> None:
    async def go() -> None:
        async with serve(status(429, {"retry-after": "120"})) as fake:
            m = model(fake, max_retries=3, max_retry_after=5)
            t0 = time.perf_counter()
            with pytest.raises(ModelError) as err:
                await collect(m)
            assert time.perf_counter() - t0 < 2
            assert err.value.code == "model_rate_limited"
            assert err.value.details["retry_after"] == 120
    asyncio.run(go())


def test_a_stalled_server_times_out() -> None:
    async def go() -> None:
        async with serve(stall(5)) as fake:
            m = model(fake, timeout=0.3, max_retries=1, backoff=0.01)
            t0 = time.perf_counter()
            with pytest.raises(ModelError) as err:
                await collect(m)
            assert err.value.code == "model_timeout"
            assert m.provider.attempts == 2 and time.perf_counter() - t0 < 3
    asyncio.run(go())


def test_a_stream_that_stalls_midway_times_out() -> None:
    async def half(r: asyncio.StreamReader, w: Writer, b: dict[str, Any]) -> None:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
                b'data: {"choices": [{"index": 0, "delta": {"content": "Fi"}}]}\n\n')
        await w.drain()
        await asyncio.sleep(5)

    async def go() -> None:
        async with serve(half) as fake:
            seen: list[Any] = []

            async def consume() -> None:
                async for p in model(fake, timeout=0.3).stream(REQ):
                    seen.append(p)

            with pytest.raises(ModelError) as err:
                await consume()
            assert err.value.code == "model_timeout"
            assert seen == [TextDelta(text="Fi")]  # output already streamed is kept
    asyncio.run(go())


def test_unreachable_server_is_unavailable() -> None:
    async def go() -> None:
        async with serve(stall(0)) as fake:
            url = fake.url
        m = resolve_model(f"openai-compat:{url}#x", max_retries=1, backoff=0.01)
        with allow_model_requests(True), pytest.raises(ModelError) as err:
            await collect(m)
        assert err.value.code == "model_unavailable"
    asyncio.run(go())


def test_bad_sse_is_a_bad_response() -> None:
    async def garbage(r: asyncio.StreamReader, w: Writer, b: dict[str, Any]) -> None:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"connection: close\r\n\r\ndata: {not json\n\n")
        await w.drain()

    async def go() -> None:
        async with serve(garbage) as fake:
            with pytest.raises(ModelError) as err:
                await collect(model(fake))
            assert err.value.code == "model_bad_response"
    asyncio.run(go())


def test_closing_the_stream_closes_the_connection() -> None:
    many = [chunk({"content": f"t{i} "}) for i in range(200)]

    async def go() -> None:
        async with serve(sse(many, delay=0.02)) as fake:
            stream: Any = model(fake).stream(REQ)
            got = [await anext(stream), await anext(stream)]
            t0 = time.perf_counter()
            await stream.aclose()
            await asyncio.wait_for(fake.disconnected.wait(), 2)
            assert time.perf_counter() - t0 < 1
            assert got == [TextDelta(text="t0 "), TextDelta(text="t1 ")]
    asyncio.run(go())


def test_requests_are_blocked_unless_allowed() -> None:
    m = resolve_model("openai-compat:http://127.0.0.1:9/v1#x")
    for policy in (False, ["example.org"]):
        with allow_model_requests(policy), pytest.raises(ModelError) as err:
            asyncio.run(collect(m))
        assert err.value.code == "model_requests_blocked"


def test_fallback_moves_on_before_output_but_not_after() -> None:
    async def go() -> None:
        async with serve(status(503)) as down, serve(sse(TEXT)) as up:
            chain = FallbackModel([model(down, max_retries=0), model(up)])
            parts = await collect(chain)
            assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == "Five days."
            assert chain.served_by == "openai-compat:fake" and len(chain.failures) == 1
            assert chain.failures[0].code == "model_unavailable"
        async with serve(stall(5)) as a, serve(stall(5)) as b:
            chain = FallbackModel([model(a, timeout=0.2, max_retries=0),
                                   model(b, timeout=0.2, max_retries=0)])
            with pytest.raises(ModelError) as err:
                await collect(chain)
            assert err.value.code == "model_timeout"
            assert len(err.value.details["failures"]) == 2
    asyncio.run(go())


DOC = "Refunds are issued within 5 business days. Shipping is free above 75 EUR."


@tool
def lookup(ctx: RunContext, query: str) -> ToolResult:
    """Find passages.

    Args:
        query: what to look for
    """
    ctx.ledger.add([Hit(chunk_id=1, document_id="d1", source="/kb/policy.txt", text=DOC[:42],
                        start_char=0, end_char=42, field_length=len(DOC), score=1.0)])
    return ToolResult(text=f"[1] {DOC[:42]}")


def test_full_run_with_native_tool_calls_through_the_loop() -> None:
    turn1 = [chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                    "function": {"name": "lookup",
                                                 "arguments": '{"query": "refunds"}'}}]},
                   finish="tool_calls")]
    turn2 = [chunk({"content": "Refunds are issued within 5 business days [1]."},
                   finish="stop"),
             chunk(None, usage={"prompt_tokens": 30, "completion_tokens": 12})]
    bodies: list[dict[str, Any]] = []

    async def go() -> list[Event]:
        async with serve(sse(turn1), sse(turn2)) as fake:
            events = [e async for e in run_agent(
                RunState(run_id="r", thread_id="t", question="q",
                         messages=[UserMessage(content="How fast are refunds?")]),
                model=model(fake), tools=Toolset([lookup]))]
            bodies.extend(fake.bodies)
            return events
    events = asyncio.run(go())
    final = events[-1]
    assert final.kind == "run_finished", final
    assert final.answer.citations[0].excerpt == DOC[:42]
    assert bodies[0]["tools"][0]["function"]["name"] == "lookup"
    assert bodies[1]["messages"][-1] == {"role": "tool", "tool_call_id": "c1",
                                         "content": f"[1] {DOC[:42]}"}
    assert final.answer.usage.steps[1].input_tokens == 30


def test_model_failure_becomes_the_runs_terminal_error_code() -> None:
    async def go() -> list[Event]:
        async with serve(status(401)) as fake:
            state = RunState(run_id="r", thread_id="t", question="q",
                             messages=[UserMessage(content="q")])
            return [e async for e in run_agent(state, model=model(fake), tools=Toolset())]
    events = asyncio.run(go())
    assert events[-1].kind == "error" and events[-1].code == "model_auth_failed"


def test_tool_call_parts_are_emitted_once_per_call() -> None:
    calls = [chunk({"tool_calls": [{"index": i, "id": f"c{i}", "type": "function",
                                    "function": {"name": "lookup",
                                                 "arguments": json.dumps({"query": str(i)})}}
                                   for i in range(3)]}, finish="tool_calls")]

    async def go() -> None:
        async with serve(sse(calls)) as fake:
            parts = await collect(model(fake))
            got = [p.call.id for p in parts if isinstance(p, ToolCallPart)]
            assert got == ["c0", "c1", "c2"]
    asyncio.run(go())
