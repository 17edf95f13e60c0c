"""The body a stock AI SDK ``useChat`` sends, accepted by ``/v1/runs?format=ai-sdk``.

Why: the AI SDK's default chat transport POSTs ``{id, messages, trigger, messageId}``
(plus whatever the page's ``body`` option adds) with no special Accept header, and reads
the UI message stream back. A page pointed at ``/v1/runs?format=ai-sdk`` therefore works
without a custom ``prepareSendMessagesRequest``:

* the last user message's text parts are the question;
* ``id`` (the chat id) is the thread: a chat citewise knows continues with its stored turns
  (the page's copy of earlier messages is then ignored); a new one becomes a thread with
  that id, whose history is the earlier messages (each user message answered by the
  assistant text after it), so a page that outlived a server still has its context;
* ``trigger`` ``regenerate-message`` asks again: the page has dropped the answer it
  regenerates, and the last message is the user's again;
* citewise's own switches (``strict``, ``max_steps``, ``output_schema``) may ride in the
  same body (``useChat({transport: new DefaultChatTransport({body: {...}})})``).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citewise.errors import InvalidInput

if TYPE_CHECKING:
    from citewise.server.deps import AppState
    from citewise.server.manager import LiveRun

__all__ = ["UseChatRequest", "question_and_history", "start_chat", "thread_for_chat"]


class UIPart(BaseModel):
    """One part of a UI message; ``text`` parts are read, the others ignored."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str = Field(max_length=128, description="`text`, `reasoning`, `file`, …")
    text: str | None = Field(default=None, description="The text of a text part.")


class UIMessageIn(BaseModel):
    """One ``UIMessage`` as the page holds it."""

    model_config = ConfigDict(extra="allow", strict=True)

    id: str | None = Field(default=None, max_length=256, description="Message id.")
    role: Literal["system", "user", "assistant"] = Field(description="Who wrote it.")
    parts: list[UIPart] = Field(default_factory=list, max_length=1000,
                                description="The message's parts.")


class UseChatRequest(BaseModel):
    """The AI SDK default transport's request body."""

    model_config = ConfigDict(extra="allow", strict=True)

    id: str = Field(min_length=1, max_length=128, description="The chat id: the thread.")
    messages: list[UIMessageIn] = Field(min_length=1, max_length=1000,
                                        description="The chat so far; the last is the user's.")
    trigger: Literal["submit-message", "regenerate-message"] | None = Field(
        default=None, description="Why the page sends (a new message, or a regeneration).")
    messageId: str | None = Field(default=None, max_length=256,  # the wire name
                                  description="The message being regenerated, if any.")
    strict: bool = Field(default=False, description="Remove unsupported sentences.")
    max_steps: int | None = Field(default=None, ge=1, le=100, description="Model calls.")
    output_schema: dict[str, Any] | None = Field(default=None,
                                                 description="JSON Schema of the answer.")


def _text(message: UIMessageIn) -> str:
    return "\n".join(p.text for p in message.parts if p.type == "text" and p.text)


def question_and_history(body: UseChatRequest) -> tuple[str, list[tuple[str, str]]]:
    """The question (the last message, the user's) and the earlier turns."""
    last = body.messages[-1]
    if last.role != "user":
        raise InvalidInput("the last message must be the user's question",
                           code="invalid_messages", details={"role": last.role})
    turns: list[tuple[str, str]] = []
    for m in body.messages[:-1]:
        if m.role == "user":
            turns.append((_text(m), ""))
        elif m.role == "assistant" and turns:
            q, a = turns[-1]
            turns[-1] = (q, f"{a}\n\n{_text(m)}" if a else _text(m))
    return _text(last), turns


async def thread_for_chat(state: AppState, tenant: str, body: UseChatRequest,
                          history: list[tuple[str, str]]) -> str:
    """The chat's thread: the stored one, or a new one with ``history`` as its turns."""
    from citewise.store.base import TurnRecord

    store = state.services.store

    def ensure() -> None:
        if store.get_thread(tenant, body.id) is not None:
            return
        first = history[0][0] if history else _text(body.messages[-1])
        store.create_thread(tenant, body.id, title=first[:80] or None)
        for i, (question, answer) in enumerate(history, start=1):
            store.add_turn(tenant, TurnRecord(thread_id=body.id, run_id=f"imported_{i}",
                                              question=question, answer=answer,
                                              created_at=datetime.now(UTC)))

    await asyncio.to_thread(ensure)
    return body.id


async def start_chat(state: AppState, tenant: str, body: UseChatRequest) -> LiveRun:
    """Start the run a ``useChat`` request asks for (refusals before a thread is written)."""
    from citewise.server.formats import check_request
    from citewise.server.run_options import RunOptions

    question, history = question_and_history(body)
    check_request(state, question, body.output_schema)
    thread_id = await thread_for_chat(state, tenant, body, history)
    return await state.manager.start(tenant, question, thread_id=thread_id, options=RunOptions(
        strict=body.strict, max_steps=body.max_steps, output_schema=body.output_schema))
