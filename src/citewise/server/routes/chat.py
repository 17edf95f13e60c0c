"""OpenAI-compatible ``GET /v1/models`` and ``POST /v1/chat/completions`` (issue 7).

An OpenAI client pointed at ``http://HOST:PORT/v1`` talks to the agent as to a chat model:

* model ids: ``citewise`` (the agent), ``citewise-strict`` (the agent removing every
  sentence its sources do not support);
* the **last message** must be the user's: it is the question. Earlier ``user`` /
  ``assistant`` messages become the history of a new thread (one turn per user message,
  answered by the assistant message after it); ``system`` / ``developer`` / ``tool``
  messages are ignored (citewise's own instructions keep answers grounded). To continue a
  stored thread instead, send the extension ``{"citewise": {"thread_id": "…"}}`` (in the
  OpenAI SDK: ``extra_body=``); earlier messages are then ignored, the thread has them;
* the answer is the assistant message, with ``[N]`` citation markers in its text, so a
  plain client still sees sources; citations, search documents, issues and the thread id
  are in the ``citewise`` extension field (see :mod:`citewise.dialects.openai_chat`);
* ``stream: true`` answers SSE chunks ending with ``data: [DONE]``; the usage chunk
  (``choices: []``) only with ``stream_options.include_usage``, as OpenAI does;
* a failed run: status 500 with ``{"error": {message, type, param, code, details}}`` (and
  ``x-should-retry: false``) or, streaming, an ``error`` frame; the SDK raises either way.

Other OpenAI parameters (``temperature``, ``tools``, …) are accepted and ignored.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from citewise.dialects.base import Obj
from citewise.dialects.openai_chat import OpenAIChatDialect
from citewise.errors import InvalidInput, NotFound
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.formats import SSE_DOC, check_request, respond_in
from citewise.server.run_options import RunOptions

__all__ = ["MODELS", "ChatCompletionRequest", "history_of", "router"]

router = APIRouter(prefix="/v1", tags=["openai"], responses=ERRORS)

MODELS: dict[str, bool] = {"citewise": False, "citewise-strict": True}
"""The agent's chat model ids, with whether each runs in strict mode."""

_CREATED = int(time.time())


def _integral(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


#: A step count: a strict int that also takes ``5.0`` (JSON Schema's ``integer`` admits it).
Steps = Annotated[int, Field(ge=1, le=100), BeforeValidator(_integral)]


class ModelInfo(BaseModel):
    """One model, as OpenAI's ``GET /v1/models`` lists it."""

    id: str = Field(description="Model id for `model` in a chat completion request.")
    object: Literal["model"] = Field(default="model", description="Always `model`.")
    created: int = Field(description="Unix time (seconds) the model became available.")
    owned_by: str = Field(default="citewise", description="Always `citewise`.")


class ModelList(BaseModel):
    """The agent's model ids."""

    object: Literal["list"] = Field(default="list", description="Always `list`.")
    data: list[ModelInfo] = Field(description="Every model id.")


class ContentPart(BaseModel):
    """One part of a message's content; only `text` parts are understood."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str = Field(max_length=64, description="Part type; `text` is the one supported.")
    text: str | None = Field(default=None, description="The text of a `text` part.")


class ChatMessage(BaseModel):
    """One message of the conversation."""

    model_config = ConfigDict(extra="allow", strict=True)

    role: Literal["system", "developer", "user", "assistant", "tool", "function"] = Field(
        description="Who wrote it; the last message must be the user's question.")
    content: str | list[ContentPart] | None = Field(
        default=None, description="Text, or a list of content parts.")
    name: str | None = Field(default=None, max_length=256, description="Ignored.")


class StreamOptions(BaseModel):
    """OpenAI's stream options."""

    model_config = ConfigDict(extra="allow", strict=True)

    include_usage: bool = Field(default=False,
                                description="Send a last chunk with `usage` and no choices.")


class CitewiseOptions(BaseModel):
    """The ``citewise`` request extension."""

    model_config = ConfigDict(extra="forbid", strict=True)

    thread_id: str | None = Field(default=None, min_length=1, max_length=128, description=(
        "Continue this stored thread (earlier `messages` are then ignored)."))
    strict: bool | None = Field(default=None,
                                description="Override the strictness the model id implies.")
    max_steps: Steps | None = Field(default=None,
                                  description="Model calls (at most the server's limit).")
    output_schema: dict[str, Any] | None = Field(
        default=None, description="JSON Schema the answer must follow.")


class ChatCompletionRequest(BaseModel):
    """OpenAI's chat completion request (other OpenAI parameters are accepted, ignored)."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str = Field(min_length=1, max_length=128, description="`citewise` or `citewise-strict`.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=1000,
                                        description="The conversation; the last is the question.")
    stream: bool = Field(default=False, description="Answer with SSE chunks.")
    stream_options: StreamOptions | None = Field(default=None, description="Stream options.")
    citewise: CitewiseOptions | None = Field(default=None,
                                             description="citewise's request extension.")


def _models() -> ModelList:
    return ModelList(data=[ModelInfo(id=m, created=_CREATED) for m in MODELS])


def _strict_of(model: str) -> bool:
    if model not in MODELS:
        raise NotFound(f"the model {model!r} does not exist; use one of {', '.join(MODELS)}",
                       code="model_not_found", details={"model": model, "allowed": list(MODELS)})
    return MODELS[model]


def _text(message: ChatMessage) -> str:
    if message.content is None:
        return ""
    if isinstance(message.content, str):
        return message.content
    parts = []
    for part in message.content:
        if part.type != "text" or part.text is None:
            raise InvalidInput(f"content parts of type {part.type!r} are not supported "
                               "(only text)", code="unsupported_content",
                               details={"type": part.type})
        parts.append(part.text)
    return "\n".join(parts)


def history_of(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    """(question, answer) turns of earlier messages: each user message is answered by the
    assistant message(s) after it, joined by a blank line; a user message without one keeps
    an empty answer; an assistant message before any user message is dropped."""
    turns: list[tuple[str, str]] = []
    for message in messages:
        if message.role == "user":
            turns.append((_text(message), ""))
        elif message.role == "assistant" and turns:
            question, answer = turns[-1]
            text = _text(message)
            turns[-1] = (question, f"{answer}\n\n{text}" if answer else text)
    return turns


@router.get("/models", response_model=ModelList, summary="List the agent's model ids (OpenAI)")
async def list_models(who: Caller) -> ModelList:
    """OpenAI-compatible: `citewise` and `citewise-strict`."""
    return _models()


@router.get("/models/{model}", response_model=ModelInfo, summary="One model id (OpenAI)")
async def get_model(
    model: Annotated[str, Path(min_length=1, max_length=128, description="Model id.")],
    who: Caller,
) -> ModelInfo:
    _strict_of(model)
    return ModelInfo(id=model, created=_CREATED)


@router.post("/chat/completions", summary="Chat completion by the agent (OpenAI)",
             responses={200: {"description": "A `chat.completion`, or SSE "
                                             "`chat.completion.chunk`s ending in `[DONE]`",
                              "content": {"application/json": {"schema": {"type": "object"}},
                                          "text/event-stream": SSE_DOC}}})
async def chat_completions(body: ChatCompletionRequest, request: Request, state: State,
                           who: Caller) -> Response:
    """Ask the agent through OpenAI's chat completion API (see the module notes)."""
    strict = _strict_of(body.model)
    ext = body.citewise or CitewiseOptions()
    last = body.messages[-1]
    if last.role != "user":
        raise InvalidInput("the last message must be the user's question",
                           code="invalid_messages", details={"role": last.role})
    question = _text(last)
    check_request(state, question, ext.output_schema)  # before a thread is written
    options = RunOptions(strict=strict if ext.strict is None else ext.strict,
                         max_steps=ext.max_steps, output_schema=ext.output_schema)
    turns = history_of(body.messages[:-1]) if ext.thread_id is None else []
    include_usage = bool(body.stream_options and body.stream_options.include_usage)

    def keep(obj: Obj) -> bool:  # the usage chunk only when asked for, as OpenAI does
        return include_usage or not (obj.get("choices") == [] and "usage" in obj)

    wants_sse = body.stream or "text/event-stream" in request.headers.get("accept", "")
    return await respond_in(state, who.tenant, question, OpenAIChatDialect(model=body.model),
                            stream=wants_sse, thread_id=ext.thread_id, history=turns,
                            options=options, keep=keep)
