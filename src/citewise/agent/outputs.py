"""The answer's outputs beyond text (seed 001's final chunk): UI commands, the thread's
context, the persona, and where the spoken answer and the cited page's picture are.

Why a hook: these are facts about the finished answer that every wire format may show, so
they belong on the Answer — and a hook's ``on_answer`` is where the loop lets the host add
to it before the terminal event is written. The hook does no I/O (the loop stays pure):
the audio file and the PNG are made by the server when their URL is first fetched
(``citewise.server.media``), from the stored answer.

* ``ui_commands``: one ``open_citation`` per citation (payload: document id, start/end
  offsets, citation index, page), then any a tool returned beside its result — a tool
  returning a dict (or ``ToolResult.data``) with a ``ui_commands`` list of
  ``{command_id, payload, target_element_id?, metadata?}`` objects (camelCase accepted);
* ``conversation``: the thread's turns after this run — its earlier user/assistant messages
  as the model saw them, then this question and answer if it completed (a paused or failed
  run adds no turn; the host calls :meth:`RunOutputs.on_terminal` for those) — ids
  ``{thread}:{position}`` (stable: turns are only appended) and a short extractive summary;
* ``persona_id`` / ``persona``: the persona that answered, its definition when asked;
* ``audio`` / ``image``: only when the run asked for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from citewise.answer import (
    Answer,
    AudioOutput,
    ConversationContext,
    ConversationMessage,
    ImageOutput,
    UICommand,
)
from citewise.models.base import ToolMessage

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.events import Event
    from citewise.models.base import ToolCall

__all__ = ["RunOutputs", "conversation_of", "open_citation_commands", "pdf_citation"]

SUMMARY_CHARS = 240


def open_citation_commands(answer: Answer) -> list[UICommand]:
    """One ``open_citation`` command per citation of ``answer``."""
    out = []
    for c in answer.citations:
        doc = (answer.search_documents[c.document_index - 1]
               if 0 < c.document_index <= len(answer.search_documents) else None)
        payload: dict[str, Any] = {
            "documentId": str(doc.document.get("id", doc.source)) if doc else "",
            "startChar": c.start_char, "endChar": c.end_char,
            "citationIndex": c.citation_index, "documentIndex": c.document_index,
        }
        if doc is not None and c.snippet_index is not None and c.snippet_index < len(doc.snippets):
            page = doc.snippets[c.snippet_index].page
            if page is not None:
                payload["page"] = page
        out.append(UICommand(command_id="open_citation", target_element_id=f"citation-{c.citation_index}",
                             payload=payload, metadata={"source": doc.source if doc else ""}))
    return out


def _tool_commands(data: Any) -> list[UICommand]:
    raw = data.get("ui_commands") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        return []
    out = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        command = item.get("command_id", item.get("commandId"))
        if not isinstance(command, str) or not command:
            continue
        target = item.get("target_element_id", item.get("targetElementId"))
        payload, meta = item.get("payload"), item.get("metadata")
        out.append(UICommand(command_id=command,
                             target_element_id=target if isinstance(target, str) else None,
                             payload=payload if isinstance(payload, dict) else {},
                             metadata=meta if isinstance(meta, dict) else {}))
    return out


def conversation_of(state: RunState, answer: Answer) -> ConversationContext:
    """The thread after this run: earlier turns (from the run's messages), and this one
    when it completed (a paused or failed run adds no turn to its thread)."""
    from citewise.models.base import AssistantMessage, UserMessage

    pairs: list[tuple[str, str]] = []  # earlier (role, text): history precedes the question
    messages = state.messages
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    for m in messages[:last_user]:
        if isinstance(m, UserMessage) and isinstance(m.content, str):
            pairs.append(("user", m.content))
        elif isinstance(m, AssistantMessage) and isinstance(m.content, str) and not getattr(
                m, "tool_calls", None):
            pairs.append(("assistant", m.content))
    out = [ConversationMessage(id=f"{state.thread_id}:{i}", role=role, text=text)  # type: ignore[arg-type]
           for i, (role, text) in enumerate(pairs)]
    n = len(out)
    if answer.status == "completed":
        out.append(ConversationMessage(id=f"{state.thread_id}:{n}", role="user",
                                       text=state.question, created_at=state.started_at))
        out.append(ConversationMessage(id=f"{state.thread_id}:{n + 1}", role="assistant",
                                       text=answer.text))  # as the thread stores it
    questions = [m.text.strip().replace("\n", " ") for m in out if m.role == "user"]
    summary = f"{len(questions)} question{'s' if len(questions) != 1 else ''}: " + " | ".join(
        q if len(q) <= 80 else q[:79] + "…" for q in questions)
    if len(summary) > SUMMARY_CHARS:
        summary = summary[:SUMMARY_CHARS - 1] + "…"
    return ConversationContext(thread_id=state.thread_id, messages=out, summary=summary)


def pdf_citation(answer: Answer) -> tuple[int, str, int | None] | None:
    """(citation index, document id, page) of the first citation of a PDF document."""
    for c in answer.citations:
        if not 0 < c.document_index <= len(answer.search_documents):
            continue
        doc = answer.search_documents[c.document_index - 1]
        kind = str(doc.document.get("content_type", ""))
        if kind == "application/pdf" or doc.source.lower().endswith(".pdf"):
            page = None
            if c.snippet_index is not None and c.snippet_index < len(doc.snippets):
                page = doc.snippets[c.snippet_index].page
            return c.citation_index, str(doc.document.get("id", doc.source)), page
    return None


class RunOutputs:
    """Run hook adding the outputs above; one per agent (keyed by run id inside)."""

    def __init__(self, *, persona_id: str = "citewise", persona: dict[str, Any] | None = None,
                 audio: bool = False, image: bool = False, speech_engine: str = "espeak-ng",
                 language: str | None = None) -> None:
        self.persona_id = persona_id
        self.persona = persona
        self.audio = audio
        self.image = image
        self.speech_engine = speech_engine
        self.language = language

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        return ()

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        return ()

    def on_terminal(self, state: RunState, answer: Answer | None) -> None:
        """The host's call for every terminal event (a paused or failed run's answer is not
        assembled through the hooks): its persona and the thread's context."""
        if answer is None or answer.conversation is not None:
            return
        answer.persona_id = self.persona_id
        answer.persona = self.persona
        answer.conversation = conversation_of(state, answer)

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        answer.persona_id = self.persona_id
        answer.persona = self.persona
        # A tool's commands are read from the run's own tool results, which the run's
        # state keeps: a run paused after the tool and resumed by another process (or
        # agent) still shows them.
        answer.ui_commands = [*open_citation_commands(answer), *(
            command for m in state.messages if isinstance(m, ToolMessage)
            for command in _tool_commands(m.data))]
        answer.conversation = conversation_of(state, answer)
        if self.audio and answer.text_plain:
            answer.audio = AudioOutput(provider=self.speech_engine, text=answer.text_plain,
                                       url=f"/v1/runs/{state.run_id}/audio", format="wav",
                                       language=self.language)
        if self.image:
            found = pdf_citation(answer)
            if found is not None:
                index, doc_id, page = found
                c = answer.citations[index]
                answer.image = ImageOutput(
                    url=f"/v1/runs/{state.run_id}/image", metadata={
                        "documentId": doc_id, "page": page, "citationIndex": index,
                        "startChar": c.start_char, "endChar": c.end_char})
        return ()
