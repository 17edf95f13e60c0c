"""The scripted chat model shared by the LangGraph and LangChain scripts (langchain-core).

Same policy as every runtime's model in this benchmark: count the tool results so far and
ask for one more ``lookup`` call until ``n`` are done, then answer. ``bind_tools`` returns
the model itself (there is no provider to tell). Usage metadata is reported like a real
provider's, as the citewise model does.
"""

from __future__ import annotations

from typing import Any

import harness
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class BenchChatModel(BaseChatModel):
    n: int = 1

    @property
    def _llm_type(self) -> str:
        return "bench"

    def bind_tools(self, tools: Any, **kwargs: Any) -> BenchChatModel:
        return self

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        done = sum(1 for m in messages if isinstance(m, ToolMessage))
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        if done < self.n:
            msg = AIMessage(content="", usage_metadata=usage, tool_calls=[
                {"name": "lookup", "args": {"query": "q"}, "id": f"call_{done}", "type": "tool_call"}])
        else:
            msg = AIMessage(content=harness.ANSWER, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return self._reply(messages)

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return self._reply(messages)


def count_result(messages: list[BaseMessage]) -> tuple[str, int]:
    calls = sum(1 for m in messages if isinstance(m, ToolMessage))
    last = messages[-1]
    return str(last.content), calls
