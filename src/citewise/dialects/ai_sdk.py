"""``ai-sdk``: the Vercel AI SDK's UI message stream (protocol ``v1``).

Why: a stock ``useChat`` front end (React, Vue, Svelte) reads this stream through its
default transport, so the agent's answer, its steps and its sources show up in any AI SDK
app without a custom parser. Every chunk is one SSE ``data:`` frame; the stream ends with
``data: [DONE]`` and is served with the header ``x-vercel-ai-ui-message-stream: v1``.

* run start → ``start`` (``messageId`` ``msg_<run id>``, ``messageMetadata`` the run and
  thread ids) and ``start-step``; each further model step → ``finish-step`` + ``start-step``;
* a thought → ``reasoning-start`` / ``reasoning-delta`` / ``reasoning-end``;
* a tool call → ``tool-input-start`` / ``tool-input-delta`` (the JSON arguments) /
  ``tool-input-available``, its result → ``tool-output-available`` (or
  ``tool-output-error``): ``dynamic`` tools (the page declares none of the agent's) that
  the server ran (``providerExecuted``), so the page never executes them;
* the answer → ``text-start`` / ``text-delta`` / ``text-end``; the ``text-end`` waits for
  verification and carries ``citations`` (``startIndex``/``endIndex``: the supported
  sentence in the text, in UTF-16 code units as JavaScript indexes strings; ``citedText``
  the verbatim excerpt);
* each cited document → one ``source-document`` part (``sourceId`` the document id,
  ``filename`` its source); ``providerMetadata.citewise`` holds its citations' exact
  offsets into the stored document (code points);
* a warning → a ``data-citewise-warning`` part, provenance → transient
  ``data-citewise-explain`` chunks;
* the end → ``finish`` (``finishReason`` ``stop``; ``tool-calls`` for a paused run, after
  one ``tool-approval-request`` per interrupt; ``error`` after an ``error`` chunk) with
  ``messageMetadata``: status, run and thread ids, issues (and the interrupts).

Not streamed, the answer is the assistant ``UIMessage`` those chunks build.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Sequence
from typing import Any

from citewise.answer import Answer
from citewise.dialects.base import DataOnlySSE, Obj, answer_of
from citewise.dialects.markers import document_id, marker_spans
from citewise.events import (
    Action,
    AnswerDelta,
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
)

__all__ = ["HEADERS", "AiSdkDialect", "AiSdkEncoder", "source_documents", "text_citations"]

#: The response headers of a UI message stream (the AI SDK's ``UI_MESSAGE_STREAM_HEADERS``).
HEADERS = {"x-vercel-ai-ui-message-stream": "v1", "cache-control": "no-cache",
           "x-accel-buffering": "no"}

_TOOL = {"dynamic": True, "providerExecuted": True}


def _utf16(text: str, index: int) -> int:
    """A code-point offset of ``text`` as a UTF-16 offset (JavaScript's string index)."""
    head = text[:index]
    return len(head) + sum(1 for ch in head if ord(ch) > 0xFFFF)


def _media_type(doc_meta: dict[str, Any], source: str) -> str:
    given = doc_meta.get("content_type")
    if isinstance(given, str) and given:
        return given
    return mimetypes.guess_type(source)[0] or "text/plain"


def _source(answer: Answer, index: int) -> Obj:
    doc = answer.search_documents[index - 1]
    title = doc.document.get("title")
    return {"type": "source", "sourceType": "document", "id": document_id(answer, index),
            "mediaType": _media_type(doc.document, doc.source),
            "title": title if isinstance(title, str) and title else doc.source,
            "filename": doc.source}


def text_citations(answer: Answer) -> list[Obj]:
    """The ``citations`` of the answer's ``text-end``: one per citation."""
    out: list[Obj] = []
    spans = marker_spans(answer.text, answer.citations)
    claims = {c.index: c for c in answer.claims}
    for c, marker in zip(answer.citations, spans, strict=True):
        if not 0 < c.document_index <= len(answer.search_documents):
            continue
        cite: Obj = {"source": _source(answer, c.document_index), "citedText": c.excerpt}
        claim = claims.get(c.claim_index) if c.claim_index is not None else None
        span = ((claim.start_char, claim.end_char) if claim is not None
                and claim.start_char is not None and claim.end_char is not None else marker)
        if span is not None:
            cite["startIndex"] = _utf16(answer.text, span[0])
            cite["endIndex"] = _utf16(answer.text, span[1])
        out.append(cite)
    return out


def source_documents(answer: Answer) -> list[Obj]:
    """One ``source-document`` chunk per cited document, in order of first citation."""
    by_doc: dict[int, list[Obj]] = {}
    for c in answer.citations:
        if 0 < c.document_index <= len(answer.search_documents):
            by_doc.setdefault(c.document_index, []).append(
                {"citationIndex": c.citation_index, "startChar": c.start_char,
                 "endChar": c.end_char, "excerpt": c.excerpt})
    out: list[Obj] = []
    for index, cites in by_doc.items():
        src = _source(answer, index)
        out.append({"type": "source-document", "sourceId": src["id"],
                    "mediaType": src["mediaType"], "title": src["title"],
                    "filename": src["filename"],
                    "providerMetadata": {"citewise": {"documentIndex": index,
                                                      "citations": cites}}})
    return out


def _metadata(answer: Answer, interrupts: Sequence[Interrupt] = ()) -> Obj:
    meta: Obj = {"runId": answer.run_id, "threadId": answer.thread_id,
                 "status": answer.status,
                 "issues": [i.model_dump(mode="json") for i in answer.issues]}
    if interrupts:
        meta["interrupts"] = [i.model_dump(mode="json") for i in interrupts]
        meta["resumeUrl"] = f"/v1/runs/{answer.run_id}/resume"
    return meta


class AiSdkEncoder:
    """Keeps the open reasoning and text parts, the tool calls seen and the step; done
    after ``finish``."""

    def __init__(self) -> None:
        self.done = False
        self._step = -1
        self._step_has_tools = False
        self._reasoning: set[str] = set()
        self._text: str | None = None
        self._calls: set[str] = set()

    def _next_step(self, step: int) -> list[Obj]:
        if step <= self._step:
            return []
        self._step, self._step_has_tools = step, False
        return [{"type": "finish-step"}, {"type": "start-step"}]

    def _call(self, call_id: str, tool: str, args: dict[str, Any]) -> list[Obj]:
        self._calls.add(call_id)
        self._step_has_tools = True
        return [{"type": "tool-input-start", "toolCallId": call_id, "toolName": tool, **_TOOL},
                {"type": "tool-input-delta", "toolCallId": call_id,
                 "inputTextDelta": json.dumps(args)},
                {"type": "tool-input-available", "toolCallId": call_id, "toolName": tool,
                 "input": args, **_TOOL}]

    def feed(self, ev: Event) -> list[Obj]:
        if self.done:
            return []
        if isinstance(ev, RunStarted):
            self._step = 0
            return [{"type": "start", "messageId": f"msg_{ev.run_id}",
                     "messageMetadata": {"runId": ev.run_id, "threadId": ev.thread_id}},
                    {"type": "start-step"}]
        if isinstance(ev, Thought):
            out = self._next_step(ev.step)
            rid = f"rs_{ev.message_id}"
            if rid not in self._reasoning:
                self._reasoning.add(rid)
                out.append({"type": "reasoning-start", "id": rid})
            if ev.text:
                out.append({"type": "reasoning-delta", "id": rid, "delta": ev.text})
            if ev.end_of_message:
                self._reasoning.discard(rid)
                out.append({"type": "reasoning-end", "id": rid})
            return out
        if isinstance(ev, Action):
            return [*self._next_step(ev.step), *self._call(ev.call_id, ev.tool, ev.input)]
        if isinstance(ev, Observation):
            out = [] if ev.call_id in self._calls else self._call(ev.call_id, ev.tool, {})
            if ev.is_error:
                out.append({"type": "tool-output-error", "toolCallId": ev.call_id,
                            "errorText": ev.text, **_TOOL})
            else:
                out.append({"type": "tool-output-available", "toolCallId": ev.call_id,
                            "output": ev.text, **_TOOL})
            return out
        if isinstance(ev, AnswerDelta):
            return self._answer_delta(f"txt_{ev.message_id}", ev.text)
        if isinstance(ev, Warning):
            return [{"type": "data-citewise-warning",
                     "data": {"code": ev.code, "message": ev.message, "details": ev.details}}]
        if isinstance(ev, Explain):
            return [{"type": "data-citewise-explain", "transient": True,
                     "data": {"explainId": ev.explain_id, "graph": ev.graph,
                              "triples": ev.triples.dump(exclude_none=True)}}]
        if isinstance(ev, RunFinished | RunPaused | ErrorEvent):
            self.done = True
            return self._end(ev)
        return []  # citations: with the text-end and the sources, once verified

    def _answer_delta(self, text_id: str, text: str) -> list[Obj]:
        out: list[Obj] = []
        if self._text is None:
            if self._step_has_tools:  # the answer is its own model call
                out += [{"type": "finish-step"}, {"type": "start-step"}]
                self._step_has_tools = False
            self._text = text_id
            out.append({"type": "text-start", "id": text_id})
        if text:
            out.append({"type": "text-delta", "id": self._text, "delta": text})
        return out

    def _end(self, ev: RunFinished | RunPaused | ErrorEvent) -> list[Obj]:
        answer = answer_of(ev)
        out: list[Obj] = [{"type": "reasoning-end", "id": r} for r in sorted(self._reasoning)]
        if isinstance(ev, ErrorEvent):
            if self._text is not None:
                out.append({"type": "text-end", "id": self._text})
            out += [{"type": "error", "errorText": f"{ev.message} [{ev.code}]"},
                    {"type": "finish-step"},
                    {"type": "finish", "finishReason": "error",
                     "messageMetadata": {**_metadata(answer),
                                         "error": {"code": ev.code, "message": ev.message,
                                                   "details": ev.details}}}]
            return out
        if answer.text and self._text is None:
            out += self._answer_delta(f"txt_{answer.run_id}", answer.text)
        if self._text is not None:
            out.append({"type": "text-end", "id": self._text, "citations": text_citations(answer)})
        out += source_documents(answer)
        interrupts = ev.interrupts if isinstance(ev, RunPaused) else []
        for i in interrupts:
            if i.call_id not in self._calls:
                out += self._call(i.call_id, i.tool, i.input)
            out.append({"type": "tool-approval-request", "approvalId": i.id,
                        "toolCallId": i.call_id, "reason": i.reason or None})
            if out[-1]["reason"] is None:
                del out[-1]["reason"]
        out += [{"type": "finish-step"},
                {"type": "finish", "finishReason": "tool-calls" if interrupts else "stop",
                 "messageMetadata": _metadata(answer, interrupts)}]
        return out


class AiSdkDialect(DataOnlySSE):
    name = "ai-sdk"
    terminator = "data: [DONE]\n\n"
    #: Sent with the stream (the route merges a dialect's ``headers``).
    headers = HEADERS

    def encoder(self) -> AiSdkEncoder:
        return AiSdkEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        """The assistant ``UIMessage`` (``id``, ``role``, ``parts``, ``metadata``)."""
        parts: list[Obj] = []
        calls = list(answer.tool_calls)
        for e in answer.reasoning_trace:
            if e.thought:
                parts.append({"type": "reasoning", "text": e.thought, "state": "done"})
            if e.type == "tool" and e.tool:
                match = next((c for c in calls if c.name == e.tool), None)
                if match is not None:
                    calls.remove(match)
                part: Obj = {"type": "dynamic-tool", "toolName": e.tool,
                             "toolCallId": match.id if match else f"{answer.run_id}_{e.step}",
                             "input": e.tool_input or {}, "providerExecuted": True}
                if match is not None and match.is_error:
                    part.update(state="output-error", errorText=e.observation or "")
                else:
                    part.update(state="output-available", output=e.observation or "")
                parts.append(part)
        if answer.text:
            parts.append({"type": "text", "text": answer.text, "state": "done",
                          "citations": text_citations(answer)})
        for src in source_documents(answer):
            parts.append({k: v for k, v in src.items()})
        for i in interrupts:
            parts.append({"type": "dynamic-tool", "toolName": i.tool, "toolCallId": i.call_id,
                          "input": i.input, "state": "approval-requested",
                          "approval": {"id": i.id}, "providerExecuted": True})
        meta = _metadata(answer, interrupts)
        if answer.error is not None:
            meta["error"] = answer.error.model_dump(mode="json")
        return {"id": f"msg_{answer.run_id}", "role": "assistant", "parts": parts,
                "metadata": meta}
