"""``openai-responses``: OpenAI Responses API objects for ``POST /v1/responses``.

Why a second OpenAI dialect: the Responses API is where OpenAI's SDKs put citations —
``file_citation`` annotations on the output text — and server-side tool calls as output
items, so a stock ``client.responses.create`` / ``client.responses.stream`` shows the
agent's steps and sources without knowing citewise. The mapping:

* the run is one ``response`` (``id`` ``resp_<run id>``, ``conversation.id`` the thread);
* a thought is a ``reasoning`` item (``reasoning_text`` deltas);
* a ``search_knowledge`` call is a ``file_search_call`` item (its query in ``queries``),
  any other tool an ``mcp_call`` item with ``server_label: "citewise"`` — both are tools
  the *server* ran, so a client has nothing to execute (a ``function_call`` item would
  ask it to); the observation is the call's ``output`` (file search: the ``citewise``
  extension of the item);
* the answer is one assistant ``message`` with one ``output_text`` part: the verified
  text with its ``[n]`` markers, and one ``file_citation`` annotation per citation —
  ``file_id`` the document id, ``filename`` its source, ``index`` the offset in the output
  text of the ``[`` of the citation's marker; the exact source offsets are the
  annotation's ``citewise`` extension (``start_char``/``end_char``/``excerpt``/…);
* a paused run completes with one ``mcp_approval_request`` item per interrupt (resume it
  with ``POST /v1/runs/{run_id}/resume``), a failed run streams ``response.failed`` (not
  streamed: the ``{"error": …}`` body, status 500, as chat completions);
* the response carries the ``citewise`` extension of :mod:`~citewise.dialects.openai_chat`.

Offsets (``index``) count code points, as every citewise offset does (Python's ``str``
indexes them; a JavaScript client converts for surrogate pairs). Streamed text is the
model's deltas; verification may still change it (strict mode drops
sentences), so ``response.output_text.done``, the annotations and ``response.completed``
carry the verified text — what the SDK's final response holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from citewise.answer import Answer, Usage
from citewise.dialects.base import SSE_MEDIA_TYPE, Obj, answer_of, encode, sse_frame
from citewise.dialects.markers import document_id, marker_spans
from citewise.dialects.openai_chat import DEFAULT_MODEL_ID, extension
from citewise.events import (
    Action,
    AnswerDelta,
    ErrorEvent,
    Event,
    Interrupt,
    Observation,
    RunFinished,
    RunPaused,
    RunStarted,
    Thought,
    now,
)

__all__ = ["SEARCH_TOOL", "ResponsesDialect", "ResponsesEncoder", "file_citations", "usage_of"]

SEARCH_TOOL = "search_knowledge"
SERVER_LABEL = "citewise"


def usage_of(usage: Usage) -> Obj:
    return {"input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.total_tokens}


def file_citations(answer: Answer) -> list[Obj]:
    """One ``file_citation`` per citation whose marker is in ``answer.text``."""
    out: list[Obj] = []
    spans = marker_spans(answer.text, answer.citations)
    for c, span in zip(answer.citations, spans, strict=True):
        if span is None:
            continue
        doc = answer.search_documents[c.document_index - 1] if (
            0 < c.document_index <= len(answer.search_documents)) else None
        out.append({"type": "file_citation", "file_id": document_id(answer, c.document_index),
                    "filename": doc.source if doc is not None else "", "index": span[0],
                    "citewise": {**c.model_dump(mode="json"), "marker_end": span[1]}})
    return out


def _message(answer: Answer, status: str = "completed") -> Obj:
    return {"id": f"msg_{answer.run_id}", "type": "message", "role": "assistant",
            "status": status, "content": [_text_part(answer)]}


def _text_part(answer: Answer) -> Obj:
    return {"type": "output_text", "text": answer.text, "annotations": file_citations(answer),
            "logprobs": []}


def _approvals(interrupts: Sequence[Interrupt]) -> list[Obj]:
    return [{"id": i.id, "type": "mcp_approval_request", "name": i.tool,
             "arguments": json.dumps(i.input), "server_label": SERVER_LABEL}
            for i in interrupts]


def _tool_item(call_id: str, tool: str, args: dict[str, Any]) -> Obj:
    if tool == SEARCH_TOOL:
        query = args.get("query")
        return {"id": f"fs_{call_id}", "type": "file_search_call",
                "queries": [query] if isinstance(query, str) else [], "status": "in_progress",
                "results": None}
    return {"id": f"mcp_{call_id}", "type": "mcp_call", "name": tool,
            "arguments": json.dumps(args), "server_label": SERVER_LABEL, "status": "in_progress"}


def _finish_tool(item: Obj, text: str, is_error: bool) -> Obj:
    done = {**item, "status": "failed" if is_error else "completed"}
    if item["type"] == "file_search_call":
        done["citewise"] = {"observation": text}
    elif is_error:
        done["error"] = {"type": "mcp_tool_execution_error", "content": text}
    else:
        done["output"] = text
    return done


def _response(model: str, answer: Answer | None, *, run_id: str, thread_id: str,
              created: float, status: str, output: list[Obj]) -> Obj:
    out: Obj = {
        "id": f"resp_{run_id}", "object": "response", "created_at": created,
        "status": status, "model": model, "output": output, "parallel_tool_calls": False,
        "tool_choice": "auto", "tools": [], "error": None, "incomplete_details": None,
        "instructions": None, "metadata": {}, "temperature": None, "top_p": None,
        "conversation": {"id": thread_id},
    }
    if answer is not None:
        out["usage"] = usage_of(answer.usage)
        if answer.error is not None:
            out["error"] = {"code": answer.error.code, "message": answer.error.message}
    return out


class ResponsesEncoder:
    """Numbers the events (``sequence_number``) and the output items (``output_index``),
    keeps each open item; done after ``response.completed`` / ``response.failed``."""

    def __init__(self, model: str) -> None:
        self.done = False
        self._model = model
        self._seq = 0
        self._run_id = self._thread_id = ""
        self._created = 0.0
        self._items: list[Obj] = []           # every output item so far, latest form
        self._open: dict[str, int] = {}       # thought message id / call id / "answer" → index
        self._texts: dict[str, list[str]] = {}

    def _ev(self, kind: str, **fields: Any) -> Obj:
        self._seq += 1
        return {"type": kind, "sequence_number": self._seq, **fields}

    def _resp(self, status: str, answer: Answer | None = None) -> Obj:
        return _response(self._model, answer, run_id=self._run_id, thread_id=self._thread_id,
                         created=self._created, status=status, output=list(self._items))

    def _add(self, key: str, item: Obj) -> Obj:
        self._open[key] = len(self._items)
        self._items.append(item)
        return self._ev("response.output_item.added", output_index=len(self._items) - 1,
                        item=item)

    def _done(self, key: str, item: Obj) -> Obj:
        index = self._open.pop(key)
        self._items[index] = item
        return self._ev("response.output_item.done", output_index=index, item=item)

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        if not self._run_id:
            self._run_id, self._thread_id = ev.run_id, ev.thread_id
            self._created = _seconds(ev.ts)
        if isinstance(ev, RunStarted):
            return [self._ev("response.created", response=self._resp("in_progress")),
                    self._ev("response.in_progress", response=self._resp("in_progress"))]
        if isinstance(ev, Thought):
            return self._thought(ev)
        if isinstance(ev, Action):
            item = _tool_item(ev.call_id, ev.tool, ev.input)
            out = [self._add(ev.call_id, item)]
            kind = "file_search_call" if item["type"] == "file_search_call" else "mcp_call"
            out.append(self._ev(f"response.{kind}.in_progress", output_index=len(self._items) - 1,
                                item_id=item["id"]))
            if kind == "file_search_call":
                out.append(self._ev("response.file_search_call.searching",
                                    output_index=len(self._items) - 1, item_id=item["id"]))
            return out
        if isinstance(ev, Observation):
            out = []
            if ev.call_id not in self._open:  # a resumed run's approved call
                out.append(self._add(ev.call_id, _tool_item(ev.call_id, ev.tool, {})))
            index = self._open[ev.call_id]
            item = _finish_tool(self._items[index], ev.text, ev.is_error)
            kind = "file_search_call" if item["type"] == "file_search_call" else "mcp_call"
            end = "failed" if ev.is_error and kind == "mcp_call" else "completed"
            out.append(self._ev(f"response.{kind}.{end}", output_index=index, item_id=item["id"]))
            out.append(self._done(ev.call_id, item))
            return out
        if isinstance(ev, AnswerDelta):
            out = self._open_message() if "answer" not in self._open else []
            if ev.text:
                out.append(self._ev("response.output_text.delta", item_id=f"msg_{self._run_id}",
                                    output_index=self._open["answer"], content_index=0,
                                    delta=ev.text, logprobs=[]))
            return out
        if isinstance(ev, ErrorEvent):
            self.done = True
            return [self._ev("response.failed", response=self._resp("failed", answer_of(ev)))]
        if isinstance(ev, RunFinished | RunPaused):
            self.done = True
            return self._finish(answer_of(ev), ev.interrupts if isinstance(ev, RunPaused) else [])
        return []  # citations, explain, warnings: in the final response's extension

    def _thought(self, ev: Thought) -> list[Obj]:
        key = f"thought:{ev.message_id}"
        item_id = f"rs_{ev.message_id}"
        out: list[Obj] = []
        if key not in self._open:
            out.append(self._add(key, {"id": item_id, "type": "reasoning", "summary": [],
                                       "content": [], "status": "in_progress"}))
            self._texts[key] = []
        index = self._open[key]
        if ev.text:
            self._texts[key].append(ev.text)
            out.append(self._ev("response.reasoning_text.delta", item_id=item_id,
                                output_index=index, content_index=0, delta=ev.text))
        if ev.end_of_message:
            text = "".join(self._texts.pop(key))
            out.append(self._ev("response.reasoning_text.done", item_id=item_id,
                                output_index=index, content_index=0, text=text))
            out.append(self._done(key, {"id": item_id, "type": "reasoning", "summary": [],
                                        "content": [{"type": "reasoning_text", "text": text}],
                                        "status": "completed"}))
        return out

    def _open_message(self) -> list[Obj]:
        item_id = f"msg_{self._run_id}"
        added = self._add("answer", {"id": item_id, "type": "message", "role": "assistant",
                                     "status": "in_progress", "content": []})
        part = self._ev("response.content_part.added", item_id=item_id,
                        output_index=self._open["answer"], content_index=0,
                        part={"type": "output_text", "text": "", "annotations": [],
                              "logprobs": []})
        return [added, part]

    def _finish(self, answer: Answer, interrupts: Sequence[Interrupt]) -> list[Obj]:
        out: list[Obj] = []
        for key in [k for k in self._open if k.startswith("thought:")]:  # never closed
            out.append(self._done(key, {**self._items[self._open[key]], "status": "incomplete"}))
        if answer.text and "answer" not in self._open:
            out += self._open_message()
            out.append(self._ev("response.output_text.delta", item_id=f"msg_{answer.run_id}",
                                output_index=self._open["answer"], content_index=0,
                                delta=answer.text, logprobs=[]))
        if "answer" in self._open:
            index, item_id = self._open["answer"], f"msg_{answer.run_id}"
            part = _text_part(answer)
            out.append(self._ev("response.output_text.done", item_id=item_id,
                                output_index=index, content_index=0, text=answer.text,
                                logprobs=[]))
            for i, note in enumerate(part["annotations"]):
                out.append(self._ev("response.output_text.annotation.added", item_id=item_id,
                                    output_index=index, content_index=0, annotation_index=i,
                                    annotation=note))
            out.append(self._ev("response.content_part.done", item_id=item_id,
                                output_index=index, content_index=0, part=part))
            out.append(self._done("answer", _message(answer)))
        for item in _approvals(interrupts):
            out.append(self._add(item["id"], item))
            out.append(self._done(item["id"], item))
        response = self._resp("completed", answer)
        response["completed_at"] = _seconds(now())
        response["citewise"] = extension(answer, interrupts)
        out.append(self._ev("response.completed", response=response))
        return out


def _seconds(ts: datetime) -> float:
    return round(ts.timestamp(), 3)


class ResponsesDialect:
    name = "openai-responses"
    media_type = SSE_MEDIA_TYPE
    terminator = ""

    def __init__(self, model: str = DEFAULT_MODEL_ID) -> None:
        self.model = model

    def sse(self, obj: Obj) -> str:
        # OpenAI names each frame after its type; the SDK reads `data` either way.
        return sse_frame(obj, event=str(obj.get("type", "")) or None)

    def encoder(self) -> ResponsesEncoder:
        return ResponsesEncoder(self.model)

    def stream(self, events: Iterable[Event]) -> Iterator[Obj]:
        return encode(self.encoder(), events)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        if answer.error is not None:
            return {"error": {"message": answer.error.message, "type": "server_error",
                              "param": None, "code": answer.error.code,
                              "details": answer.error.details}}
        output = _trace_items(answer)
        if answer.text:
            output.append(_message(answer))
        output += _approvals(interrupts)
        created = _seconds(now())
        out = _response(self.model, answer, run_id=answer.run_id, thread_id=answer.thread_id,
                        created=created, status="completed", output=output)
        out["completed_at"] = created
        out["citewise"] = extension(answer, interrupts)
        return out


def _trace_items(answer: Answer) -> list[Obj]:
    """Reasoning and tool items of a finished run, from its trace (ids: its tool calls in
    order where they match, else the step)."""
    calls = list(answer.tool_calls)
    out: list[Obj] = []
    for e in answer.reasoning_trace:
        if e.thought and e.type in ("thought", "tool"):
            out.append({"id": f"rs_{answer.run_id}_{e.step}", "type": "reasoning", "summary": [],
                        "content": [{"type": "reasoning_text", "text": e.thought}],
                        "status": "completed"})
        if e.type == "tool" and e.tool:
            match = next((c for c in calls if c.name == e.tool), None)
            if match is not None:
                calls.remove(match)
            call_id = match.id if match is not None else f"{answer.run_id}_{e.step}"
            item = _tool_item(call_id, e.tool, e.tool_input or {})
            out.append(_finish_tool(item, e.observation or "",
                                    bool(match is not None and match.is_error)))
    return out
