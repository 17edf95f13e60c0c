"""``agentos``: AgentOS's response chunk stream (seed 001, ``AgentOSResponseChunkType``).

Every chunk carries the AgentOS base fields: ``type``, ``streamId`` (the run id),
``gmiInstanceId`` (the thread id: the conversation's agent instance), ``personaId``
(``"citewise"`` unless configured), ``isFinal`` and an ISO ``timestamp``. Mapping:

* run start → ``system_progress`` (``statusCode: "run_started"``);
* a complete thought (deltas are buffered) → ``system_progress`` (``statusCode:
  "thought"``); the thought is also the ``rationale`` of the tool calls that follow it;
* a tool call → ``tool_call_request`` (``toolCalls: [{id, name, arguments}]``);
* a tool result → ``tool_result_emission`` (``toolResult`` is the observation text,
  ``isSuccess``, ``errorMessage``);
* answer deltas → ``text_delta``;
* a warning → ``system_progress`` (``statusCode: "warning:<code>"``);
* a citation / explain event → ``metadata_update`` (``updates: {"citation": …}`` /
  ``{"explain": …}``), citewise's own JSON;
* the end → ``final_response`` (``isFinal: true``). A failed run first sends an ``error``
  chunk, then a ``final_response`` with ``error`` and ``finalResponseText: null``. A paused
  run ends with a ``final_response`` whose ``finalToolCalls`` are the calls awaiting
  approval and whose ``metadata.interrupts`` say how to decide them.

``usage`` is a CostAggregator (``promptTokens``, ``completionTokens``, ``totalTokens``,
``totalCostUSD``, per-model ``breakdown``); ``reasoningTrace`` entries use AgentOS's
``ReasoningEntryType`` names and, lacking per-step clocks, the chunk's timestamp;
``ragSources`` are every chunk shown to the model (RagRetrievedChunk); citations, issues
and the feedback trajectory ride in ``metadata``.

The seed's other final fields come from the Answer (see :mod:`citewise.agent.outputs`):
``finalUiCommands`` (always: one ``open_citation`` per citation, then a tool's own),
``updatedConversationContext`` (every run of an ``Agent``: the thread as AgentOS's
``ConversationContext.toJSON()`` writes it — ``sessionId``, ``messages`` with ids, roles and
text, ``sessionMetadata.summary`` — so ``ConversationContext.fromJSON`` reads it), and only
when the run asked: ``audioOutput`` (``"audio": true``), ``imageOutput`` (``"image": true``,
a PDF cited), ``activePersonaDetails`` (``"persona"``; then the final ``personaId`` is it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from citewise.answer import (
    Answer,
    AudioOutput,
    ConversationContext,
    ImageOutput,
    TraceEntry,
    UICommand,
    Usage,
)
from citewise.dialects.base import DataOnlySSE, Obj, answer_of, iso, millis
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

__all__ = ["AgentOSDialect", "AgentOSEncoder"]

_TRACE_TYPE = {
    "thought": "LLM_CALL_COMPLETE",
    "tool": "TOOL_EXECUTION_RESULT",
    "answer": "INTERACTION_END",
    "error": "ERROR",
}


class AgentOSEncoder:
    """Buffers thought deltas (a complete thought is one chunk, and the ``rationale`` of
    its step's tool calls). Never done: the ``final_response`` of a pause is followed by
    the resumed run's chunks when its log goes on."""

    done = False

    def __init__(self, dialect: AgentOSDialect) -> None:
        self._dialect = dialect
        self._thought: list[str] = []
        self._rationale: tuple[int, str] = (-1, "")  # (step, text): a thought explains its step

    def feed(self, ev: Event) -> list[Obj]:
        d = self._dialect
        hdr = d._base("", ev.run_id, ev.thread_id, ev.ts)
        if isinstance(ev, RunStarted):
            return [{**hdr, "type": "system_progress", "message": "Run started",
                     "statusCode": "run_started"}]
        if isinstance(ev, Thought):
            self._thought.append(ev.text)
            if ev.end_of_message:
                self._rationale = (ev.step, "".join(self._thought))
                self._thought = []
                if self._rationale[1]:
                    return [{**hdr, "type": "system_progress", "message": self._rationale[1],
                             "statusCode": "thought"}]
            return []
        if isinstance(ev, Action):
            chunk = {**hdr, "type": "tool_call_request",
                     "toolCalls": [{"id": ev.call_id, "name": ev.tool, "arguments": ev.input}]}
            if self._rationale[0] == ev.step and self._rationale[1]:
                chunk["rationale"] = self._rationale[1]
            return [chunk]
        if isinstance(ev, Observation):
            chunk = {**hdr, "type": "tool_result_emission", "toolCallId": ev.call_id,
                     "toolName": ev.tool, "toolResult": ev.text, "isSuccess": not ev.is_error}
            if ev.is_error:
                chunk["errorMessage"] = ev.text
            return [chunk]
        if isinstance(ev, AnswerDelta):
            return [{**hdr, "type": "text_delta", "textDelta": ev.text}] if ev.text else []
        if isinstance(ev, Warning):
            return [{**hdr, "type": "system_progress", "message": ev.message,
                     "statusCode": f"warning:{ev.code}"}]
        if isinstance(ev, Citation):
            return [{**hdr, "type": "metadata_update", "updates": {
                "citation": {**ev.citation.model_dump(mode="json"), "source": ev.source}}}]
        if isinstance(ev, Explain):
            return [{**hdr, "type": "metadata_update", "updates": {"explain": {
                "explainId": ev.explain_id, "graph": ev.graph,
                "triples": ev.triples.dump(exclude_none=True),
            }}}]
        if isinstance(ev, ErrorEvent):
            return [{**hdr, "type": "error", "code": ev.code, "message": ev.message,
                     "details": ev.details},
                    d._final(answer_of(ev), ev.ts, ())]
        if isinstance(ev, RunPaused):
            return [d._final(answer_of(ev), ev.ts, ev.interrupts)]
        if isinstance(ev, RunFinished):
            return [d._final(ev.answer, ev.ts, ())]
        return []


class AgentOSDialect(DataOnlySSE):
    name = "agentos"

    def __init__(self, persona_id: str = "citewise") -> None:
        self.persona_id = persona_id

    def _base(self, kind: str, run_id: str, thread_id: str, ts: datetime,
              *, final: bool = False) -> Obj:
        return {
            "type": kind,
            "streamId": run_id,
            "gmiInstanceId": thread_id,
            "personaId": self.persona_id,
            "isFinal": final,
            "timestamp": iso(ts),
        }

    def encoder(self) -> AgentOSEncoder:
        return AgentOSEncoder(self)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return self._final(answer, now(), interrupts)

    def _final(self, answer: Answer, ts: datetime, interrupts: Sequence[Interrupt]) -> Obj:
        failed = answer.error is not None
        paused = answer.status == "paused"
        out = self._base("final_response", answer.run_id, answer.thread_id, ts, final=True)
        if answer.persona_id != "citewise":  # the persona that answered (the run knew it)
            out["personaId"] = answer.persona_id
        out["finalResponseText"] = None if failed or paused else answer.text
        out["finalResponseTextPlain"] = None if failed or paused else answer.text_plain
        if paused:
            out["finalToolCalls"] = [{"id": i.call_id, "name": i.tool, "arguments": i.input}
                                     for i in interrupts]
        else:
            out["finalToolCalls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments}
                                     for c in answer.tool_calls]
        out["finalUiCommands"] = [_ui_command(c) for c in answer.ui_commands]
        if answer.audio is not None:
            out["audioOutput"] = _audio(answer.audio)
        if answer.image is not None:
            out["imageOutput"] = _image(answer.image)
        out["usage"] = _cost(answer.usage)
        out["reasoningTrace"] = [_trace(e, ts) for e in answer.reasoning_trace]
        sources = _rag_sources(answer)
        if sources:
            out["ragSources"] = sources
        if answer.error is not None:
            out["error"] = {"code": answer.error.code, "message": answer.error.message,
                            "details": answer.error.details}
        if answer.conversation is not None:
            out["updatedConversationContext"] = _context(answer.conversation, answer.persona_id)
        if answer.persona is not None:
            out["activePersonaDetails"] = _persona(answer.persona)
        meta: dict[str, Any] = {
            "threadId": answer.thread_id,
            "status": answer.status,
            "citations": [c.model_dump(mode="json") for c in answer.citations],
            "issues": [i.model_dump(mode="json") for i in answer.issues],
        }
        if answer.trajectory is not None:
            meta["trajectory"] = answer.trajectory.model_dump(mode="json")
        if answer.ended_by_tool:
            meta["endedByTool"] = answer.ended_by_tool
        if paused:
            meta["interrupts"] = [i.model_dump(mode="json") for i in interrupts]
        out["metadata"] = meta
        return out


def _ui_command(c: UICommand) -> Obj:
    out: Obj = {"commandId": c.command_id, "payload": c.payload}
    if c.target_element_id is not None:
        out["targetElementId"] = c.target_element_id
    if c.metadata:
        out["metadata"] = c.metadata
    return out


def _audio(a: AudioOutput) -> Obj:
    out: Obj = {"provider": a.provider, "textToSpeak": a.text, "url": a.url, "format": a.format}
    if a.language is not None:
        out["languageCode"] = a.language
    return out


def _image(i: ImageOutput) -> Obj:
    out: Obj = {"provider": i.provider, "format": i.format, "metadata": i.metadata}
    if i.url is not None:
        out["imageUrl"] = i.url
    if i.base64_data is not None:
        out["base64Data"] = i.base64_data
    return out


def _context(c: ConversationContext, persona_id: str) -> Obj:
    """AgentOS's ``ConversationContext`` as its ``toJSON()`` writes it (what ``fromJSON`` reads)."""
    messages: list[Obj] = []
    for m in c.messages:
        msg: Obj = {"id": m.id, "role": m.role, "content": m.text}
        if m.created_at is not None:
            msg["timestamp"] = millis(m.created_at)
        messages.append(msg)
    first = next((m.created_at for m in c.messages if m.created_at is not None), None)
    return {"sessionId": c.thread_id, "createdAt": millis(first) if first else 0,
            "messages": messages,
            "config": {"gmiInstanceId": c.thread_id, "activePersonaId": persona_id},
            "sessionMetadata": {"summary": c.summary, "threadId": c.thread_id,
                                "gmiInstanceId": c.thread_id, "activePersonaId": persona_id}}


def _persona(p: dict[str, Any]) -> Obj:
    """A persona definition as AgentOS's ``Partial<IPersonaDefinition>``."""
    out: Obj = {"id": p.get("id", ""), "name": p.get("name", p.get("id", ""))}
    for ours, theirs in (("description", "description"), ("version", "version"),
                         ("system_prompt", "baseSystemPrompt"), ("model", "defaultModelId"),
                         ("tools", "toolIds"), ("language", "defaultLanguage")):
        if p.get(ours) is not None:
            out[theirs] = p[ours]
    custom = {k: p[k] for k in ("guardrails", "retrieval") if p.get(k) is not None}
    if custom:
        out["customFields"] = custom
    return out


def _cost(usage: Usage) -> Obj:
    out: Obj = {
        "promptTokens": usage.input_tokens,
        "completionTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    }
    if usage.cost is not None:
        out["totalCostUSD"] = usage.cost
    by_model: dict[str, Obj] = {}
    for step in usage.steps:
        row = by_model.setdefault(step.model, {
            "providerId": "citewise", "modelId": step.model,
            "tokens": 0, "promptTokens": 0, "completionTokens": 0,
        })
        row["promptTokens"] += step.input_tokens
        row["completionTokens"] += step.output_tokens
        row["tokens"] += step.input_tokens + step.output_tokens
        if step.cost is not None:
            row["costUSD"] = row.get("costUSD", 0.0) + step.cost
    if by_model:
        out["breakdown"] = list(by_model.values())
    return out


def _trace(entry: TraceEntry, ts: datetime) -> Obj:
    if entry.type == "tool":
        message = f"{entry.tool}: {entry.observation or ''}".strip()
    else:
        message = entry.thought or entry.type
    return {
        "timestamp": iso(ts),
        "type": _TRACE_TYPE[entry.type],
        "message": message,
        "details": entry.model_dump(mode="json", exclude_none=True),
    }


def _rag_sources(answer: Answer) -> list[Obj]:
    out: list[Obj] = []
    for d_i, doc in enumerate(answer.search_documents, start=1):
        doc_id = str(doc.document.get("id", doc.source))
        for s_i, snip in enumerate(doc.snippets):
            meta: Obj = {"documentIndex": d_i, "snippetIndex": s_i}
            if snip.source is not None:
                meta["startChar"] = snip.source.start_char
                meta["endChar"] = snip.source.end_char
            for key, name in (("page", "page"), ("page_label", "pageLabel"),
                              ("section", "section"), ("line", "line"), ("anchor", "anchor")):
                value = getattr(snip, key)
                if value is not None:
                    meta[name] = value
            out.append({
                "id": str(snip.chunk_id) if snip.chunk_id is not None else f"{doc_id}#{s_i}",
                "content": snip.text,
                "originalDocumentId": doc_id,
                "source": doc.source,
                "metadata": meta,
                "relevanceScore": snip.score,
            })
    return out
