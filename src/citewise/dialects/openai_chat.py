"""``openai``: OpenAI Chat Completions objects for ``POST /v1/chat/completions``.

The agent answers as the assistant: ``content`` is the answer with its ``[N]`` markers, so
a plain client still sees where each claim comes from. Everything else travels in
fields an OpenAI client ignores:

* ``reasoning_content`` (on a chunk's ``delta`` / the ``message``): the agent's thoughts —
  the field OpenAI-compatible reasoning servers use;
* ``citewise`` — the documented extension:

  - on the finishing chunk / on the ``message``: ``{run_id, thread_id, status, text,
    citations[], search_documents[], context_chunk_ids[], issues[], trajectory,
    structured, interrupts[]}``, citewise's own JSON (``citations[].document_index`` is
    one-based into ``search_documents``; ``text`` is the verified answer, authoritative where
    verification changed the streamed text; ``structured`` only when the request gave an
    output schema; ``interrupts`` only on a paused run);
  - on a chunk with an empty ``delta``: ``{event: …}``, one citewise event (action,
    observation, citation, explain, warning) as progress for clients that want it.

Stream: a first chunk with ``role: assistant``; content / reasoning deltas; progress
chunks; a finishing chunk (``finish_reason: "stop"``, the extension); then a usage chunk
(``choices: []``, ``usage``) as with ``stream_options.include_usage``; then ``data: [DONE]``.
A paused run finishes the same way, with ``status: "paused"`` and its interrupts. A failed
run sends ``{"error": {message, type: "server_error", param: null, code, details}}`` (also
citewise's one error shape: ``code``, ``message``, ``details``) — the SDK raises
``APIError`` on it — and no finishing chunk.

Non-streaming: a ``chat.completion`` with the extension on the message and ``usage``; a
failed run's ``final`` is the ``{"error": …}`` body (the server picks the status code).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from citewise.answer import Answer, Usage
from citewise.dialects.base import SSE_MEDIA_TYPE, Obj, answer_of, encode, sse_frame
from citewise.events import (
    Action,
    AnswerDelta,
    Citation,
    ErrorEvent,
    Event,
    Explain,
    Interrupt,
    Observation,
    RunFinished,
    RunPaused,
    RunStarted,
    Thought,
    Warning,
    now,
)

__all__ = ["DEFAULT_MODEL_ID", "OpenAIChatDialect", "OpenAIChatEncoder", "extension"]

DEFAULT_MODEL_ID = "citewise"


def _usage(usage: Usage) -> Obj:
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens}


def _error(code: str, message: str, details: dict[str, Any]) -> Obj:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": code,
                      "details": details}}


def extension(answer: Answer, interrupts: Sequence[Interrupt] = ()) -> Obj:
    """The ``citewise`` extension object of a finished (or paused) answer."""
    sources = {i: d.source for i, d in enumerate(answer.search_documents, start=1)}
    out: Obj = {
        "run_id": answer.run_id,
        "thread_id": answer.thread_id,
        "status": answer.status,
        "text": answer.text,
        "citations": [{**c.model_dump(mode="json"), "source": sources.get(c.document_index, "")}
                      for c in answer.citations],
        "search_documents": [d.model_dump(mode="json") for d in answer.search_documents],
        "context_chunk_ids": list(answer.context_chunk_ids),
        "issues": [i.model_dump(mode="json") for i in answer.issues],
        "trajectory": answer.trajectory.model_dump(mode="json") if answer.trajectory else None,
    }
    if answer.structured is not None:
        out["structured"] = answer.structured
    if answer.status == "paused":
        out["interrupts"] = [i.model_dump(mode="json") for i in interrupts]
    return out


class OpenAIChatEncoder:
    """Stamps every chunk with the completion id and ``created`` of the run's first event;
    done after the usage chunk (or the error)."""

    def __init__(self, model: str) -> None:
        self.done = False
        self._model = model
        self._created: int | None = None
        self._run_id = ""

    def _chunk(self, delta: Obj | None, *, finish: str | None = None) -> Obj:
        choices = [] if delta is None else [
            {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]
        return {"id": f"chatcmpl-{self._run_id}", "object": "chat.completion.chunk",
                "created": self._created or 0, "model": self._model, "choices": choices}

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        if self._created is None:
            self._created, self._run_id = int(ev.ts.timestamp()), ev.run_id
        if isinstance(ev, RunStarted):
            return [self._chunk({"role": "assistant", "content": ""})]
        if isinstance(ev, Thought):
            return [self._chunk({"reasoning_content": ev.text})] if ev.text else []
        if isinstance(ev, AnswerDelta):
            return [self._chunk({"content": ev.text})] if ev.text else []
        if isinstance(ev, Action | Observation | Citation | Explain | Warning):
            return [{**self._chunk({}), "citewise": {"event": ev.model_dump(mode="json")}}]
        if isinstance(ev, ErrorEvent):
            self.done = True
            return [_error(ev.code, ev.message, ev.details)]
        if isinstance(ev, RunFinished | RunPaused):
            self.done = True
            answer = answer_of(ev)
            interrupts = ev.interrupts if isinstance(ev, RunPaused) else []
            return [{**self._chunk({}, finish="stop"), "citewise": extension(answer, interrupts)},
                    {**self._chunk(None), "usage": _usage(answer.usage)}]
        return []


class OpenAIChatDialect:
    name = "openai"
    media_type = SSE_MEDIA_TYPE
    terminator = "data: [DONE]\n\n"

    def __init__(self, model: str = DEFAULT_MODEL_ID) -> None:
        self.model = model

    def sse(self, obj: Obj) -> str:
        return sse_frame(obj)

    def encoder(self) -> OpenAIChatEncoder:
        return OpenAIChatEncoder(self.model)

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        return encode(self.encoder(), events)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        if answer.error is not None:
            return _error(answer.error.code, answer.error.message, answer.error.details)
        message: Obj = {"role": "assistant", "content": answer.text}
        thoughts = [e.thought for e in answer.reasoning_trace if e.thought]
        if thoughts:
            message["reasoning_content"] = "\n\n".join(thoughts)
        message["citewise"] = extension(answer, interrupts)
        return {
            "id": f"chatcmpl-{answer.run_id}",
            "object": "chat.completion",
            "created": int(now().timestamp()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop",
                         "logprobs": None}],
            "usage": _usage(answer.usage),
        }
