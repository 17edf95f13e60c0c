"""LangChain 1.x ``create_agent`` (a LangGraph graph underneath) on the shared scripted task (``harness.py``).

Run time: ``graph.ainvoke``; first event: the first chunk of ``graph.astream`` (default
``stream_mode="updates"``: the model node's update). The tool is a ``@tool`` coroutine, so
LangChain validates its arguments with the schema it derives.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

import harness
from langchain.agents import create_agent
from langchain_core.tools import tool
from lc_model import BenchChatModel, count_result


def factory(sleep: bool) -> Any:
    @tool
    async def lookup(query: str) -> str:
        """Look something up.

        Args:
            query: What to look up.
        """
        if sleep:
            await asyncio.sleep(harness.SLEEP_S)
        return harness.PAYLOAD

    graphs: dict[int, Any] = {n: create_agent(BenchChatModel(n=n), [lookup]) for n in (1, 3, 10)}

    def inputs() -> dict[str, Any]:
        return {"messages": [("user", harness.QUESTION)]}

    class Runtime:
        async def run(self, n: int) -> tuple[str, int]:
            out = await graphs[n].ainvoke(inputs())
            return count_result(out["messages"])

        def stream(self, n: int) -> AsyncIterator[Any]:
            stream: AsyncIterator[Any] = graphs[n].astream(inputs())
            return stream

    return Runtime()


if __name__ == "__main__":
    harness.main("langchain", factory, {
        k: version(k) for k in ("langchain", "langgraph", "langchain-core")})
