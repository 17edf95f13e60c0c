"""pydantic-ai (``pydantic-ai-slim``) with ``FunctionModel`` on the shared scripted task.

Run time: ``agent.run``; first event: the first event of ``agent.run_stream_events`` (which
makes the model requests streamed, so the model also has a ``stream_function``). The model
functions are ``async``: FunctionModel runs a sync one in a worker thread, which would be
the benchmark's cost, not pydantic-ai's. The tool is ``tool_plain`` on a coroutine, so
pydantic-ai validates its arguments with the schema it derives.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

import harness
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel


def _done(messages: list[ModelMessage]) -> int:
    return sum(1 for m in messages for p in m.parts if isinstance(p, ToolReturnPart))


def factory(sleep: bool) -> Any:
    def make(n: int) -> Agent[None, str]:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            done = _done(messages)
            if done < n:
                return ModelResponse(parts=[ToolCallPart("lookup", {"query": "q"},
                                                         tool_call_id=f"call_{done}")])
            return ModelResponse(parts=[TextPart(harness.ANSWER)])

        async def respond_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
            done = _done(messages)
            if done < n:
                yield {0: DeltaToolCall(name="lookup", json_args='{"query": "q"}',
                                        tool_call_id=f"call_{done}")}
            else:
                yield harness.ANSWER

        agent: Agent[None, str] = Agent(FunctionModel(respond, stream_function=respond_stream))

        @agent.tool_plain
        async def lookup(query: str) -> str:
            """Look something up.

            Args:
                query: What to look up.
            """
            if sleep:
                await asyncio.sleep(harness.SLEEP_S)
            return harness.PAYLOAD

        return agent

    agents = {n: make(n) for n in (1, 3, 10)}

    class Runtime:
        async def run(self, n: int) -> tuple[str, int]:
            result = await agents[n].run(harness.QUESTION)
            return result.output, _done(result.all_messages())

        async def stream(self, n: int) -> AsyncIterator[Any]:
            async with agents[n].run_stream_events(harness.QUESTION) as events:
                async for ev in events:
                    yield ev

    return Runtime()


if __name__ == "__main__":
    harness.main("pydantic_ai", factory, {
        k: version(k) for k in ("pydantic-ai-slim", "pydantic-graph", "pydantic")})
