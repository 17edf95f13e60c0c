"""``trustgraph``: TrustGraph's agent service response (seed 000).

Streaming, one object per chunk:

* thought deltas → ``chunk-type: thought`` (``end-of-message`` on the thought's last delta);
* a tool call → ``chunk-type: action`` whose ``content`` is the tool name;
* a tool result → ``chunk-type: observation``;
* answer deltas → ``chunk-type: answer``;
* an explain event → ``message_type: explain`` with ``explain_id`` / ``explain_graph`` /
  ``explain_triples`` (terms in TrustGraph's wire form: ``{"t":"i","i":…}``,
  ``{"t":"l","v":…,"dt"?,"ln"?}``);
* the end → ``chunk-type: final-answer`` carrying the complete, verified answer text
  (authoritative: it may differ from the streamed deltas where verification removed a
  bad marker), with ``end-of-dialog: true``;
* a failure → ``chunk-type: error`` with ``error: {message, code}`` and ``end-of-dialog``.

TrustGraph has no pause: a paused run ends with an ``error`` chunk whose code is
``run_paused`` and whose message names the pending approvals (resume through citewise's
own API). Run start, citations and warnings have no TrustGraph chunk and are not sent;
provenance reaches TrustGraph clients through the explain messages.

Non-streaming (legacy): ``{"answer", "thought", "observation"}`` — the thoughts and the
observations of the run joined by blank lines; a failed or paused run is
``{"error": {"message", "code"}}``.

**TrustGraph 2.x** (:class:`CurrentEncoder`): the format TrustGraph's own clients parse
today — ``trustgraph-base``'s socket clients and its gateway's ``AgentResponseTranslator``
read ``message_type`` (``thought`` / ``action`` / ``observation`` / ``answer`` /
``explain`` / ``error``) with ``content``, ``end_of_message`` and ``end_of_dialog``, and
never look at ``chunk-type``. The seed's format stays the ``trustgraph`` dialect; this one
is what ``/api/v1/socket`` speaks, and the REST route when asked (``?format=current``).
Their clients build the answer by joining the ``answer`` chunks, so the last chunk
(``end_of_dialog``) carries only what the deltas have not said yet — the verified text,
which may differ from the streamed deltas, is in its ``citewise`` field (the Answer JSON),
beside TrustGraph's ``in_token`` / ``out_token`` / ``model``. A failure or a pause is one
``error`` chunk, ``error: {type, message, code}`` (their clients raise on it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citewise.answer import Answer
from citewise.dialects.base import DataOnlySSE, Obj
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
    Thought,
)
from citewise.triples import IRI, Literal_, Term, Triple, Triples

__all__ = ["CurrentEncoder", "TrustGraphCurrentDialect", "TrustGraphDialect", "TrustGraphEncoder",
           "current_final", "term_json", "triple_json", "triples_json"]


def term_json(term: Term) -> Obj:
    """A term in TrustGraph's compact wire form (its language key is ``ln``)."""
    if isinstance(term, IRI):
        return {"t": "i", "i": term.i}
    out: Obj = {"t": "l", "v": term.v}
    if isinstance(term, Literal_) and term.dt:
        out["dt"] = term.dt
    if isinstance(term, Literal_) and term.lang:
        out["ln"] = term.lang
    return out


def triple_json(triple: Triple) -> Obj:
    out: Obj = {"s": term_json(triple.s), "p": term_json(triple.p), "o": term_json(triple.o)}
    if triple.g:
        out["g"] = triple.g
    return out


def triples_json(triples: Triples) -> list[Obj]:
    """``[triple_json(t) for t in triples]``, from the rows when the triples are still rows
    (see :class:`~citewise.triples.Triples`): those never have a language tag."""
    out = triples.dump(exclude_none=True)
    for t in out:
        for term in (t["s"], t["p"], t["o"]):
            if "lang" in term:
                term["ln"] = term.pop("lang")
    return out


def _chunk(chunk_type: str, content: str, *, eom: bool, eod: bool = False) -> Obj:
    return {
        "chunk-type": chunk_type,
        "content": content,
        "message_type": "chunk",
        "end-of-message": eom,
        "end-of-dialog": eod,
    }


def _error(code: str, message: str, *, streaming: bool) -> Obj:
    err = {"message": message, "code": code}
    if not streaming:
        return {"error": err}
    return {**_chunk("error", message, eom=True, eod=True), "error": err}


def _paused_message(interrupts: Sequence[Interrupt]) -> str:
    tools = ", ".join(f"{i.tool} ({i.id})" for i in interrupts) or "a pending decision"
    return f"The run is paused waiting for approval of {tools}."


class TrustGraphEncoder:
    """Stateless: one chunk per event that has a TrustGraph counterpart. Never done: a
    paused run's ``error`` chunk ends the dialog, but its resumed log maps on."""

    done = False

    def feed(self, event: Event) -> list[Obj]:
        if isinstance(event, Thought):
            if event.text or event.end_of_message:
                return [_chunk("thought", event.text, eom=event.end_of_message)]
        elif isinstance(event, Action):
            return [_chunk("action", event.tool, eom=True)]
        elif isinstance(event, Observation):
            return [_chunk("observation", event.text, eom=True)]
        elif isinstance(event, AnswerDelta):
            if event.text or event.end_of_message:
                return [_chunk("answer", event.text, eom=event.end_of_message)]
        elif isinstance(event, Explain):
            return [{
                "chunk-type": "explain",
                "content": "",
                "message_type": "explain",
                "explain_id": event.explain_id,
                "explain_graph": event.graph,
                "explain_triples": triples_json(event.triples),
                "end-of-message": True,
                "end-of-dialog": False,
            }]
        elif isinstance(event, RunFinished):
            return [_chunk("final-answer", event.answer.text, eom=True, eod=True)]
        elif isinstance(event, RunPaused):
            return [_error("run_paused", _paused_message(event.interrupts), streaming=True)]
        elif isinstance(event, ErrorEvent):
            return [_error(event.code, event.message, streaming=True)]
        # run_started, citation, warning: no TrustGraph counterpart.
        return []


def _current(message_type: str, content: str = "", *, eom: bool = True, eod: bool = False,
             **extra: Any) -> Obj:
    out: Obj = {"message_type": message_type}
    if content:  # (TrustGraph's translator leaves an empty content out)
        out["content"] = content
    return {**out, "end_of_message": eom, "end_of_dialog": eod, **extra}


def _current_error(code: str, message: str) -> Obj:
    # `type` is what TrustGraph's clients map to an exception class; citewise's code beside.
    error = {"type": "agent-error", "message": message, "code": code}
    return _current("error", eom=True, eod=True, error=error)


def _current_end(answer: Answer, content: str) -> Obj:
    extra: Obj = {"in_token": answer.usage.input_tokens, "out_token": answer.usage.output_tokens}
    if answer.model:
        extra["model"] = answer.model
    return _current("answer", content, eom=True, eod=True, **extra,
                    citewise=answer.model_dump(mode="json"))


def current_final(answer: Answer, interrupts: Sequence[Interrupt] = ()) -> Obj:
    """A whole run as one TrustGraph 2.x chunk (a request that did not ask to stream)."""
    if answer.status == "paused":
        return _current_error("run_paused", _paused_message(interrupts))
    if answer.error is not None:
        return _current_error(answer.error.code, answer.error.message)
    return _current_end(answer, answer.text)


class CurrentEncoder:
    """TrustGraph 2.x chunks (see the module notes); remembers the answer text streamed so
    far, so that the last chunk completes it rather than repeating it. Done after the
    chunk with ``end_of_dialog``: a TrustGraph request ends there."""

    def __init__(self) -> None:
        self.done = False
        self._said = ""

    def feed(self, event: Event) -> list[Obj]:
        if self.done:
            return []
        if isinstance(event, Thought):
            if event.text or event.end_of_message:
                return [_current("thought", event.text, eom=event.end_of_message,
                                 message_id=event.message_id)]
        elif isinstance(event, Action):
            return [_current("action", event.tool)]
        elif isinstance(event, Observation):
            return [_current("observation", event.text)]
        elif isinstance(event, AnswerDelta):
            if event.text or event.end_of_message:
                self._said += event.text
                return [_current("answer", event.text, eom=event.end_of_message,
                                 message_id=event.message_id)]
        elif isinstance(event, Explain):
            return [_current("explain", explain_id=event.explain_id, explain_graph=event.graph,
                             explain_triples=triples_json(event.triples))]
        elif isinstance(event, RunFinished):
            self.done = True
            text = event.answer.text
            rest = text[len(self._said):] if text.startswith(self._said) else ""
            return [_current_end(event.answer, rest)]
        elif isinstance(event, RunPaused):
            self.done = True
            return [_current_error("run_paused", _paused_message(event.interrupts))]
        elif isinstance(event, ErrorEvent):
            self.done = True
            return [_current_error(event.code, event.message)]
        return []


class TrustGraphDialect(DataOnlySSE):
    name = "trustgraph"

    def encoder(self) -> TrustGraphEncoder:
        return TrustGraphEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        if answer.status == "paused":
            return _error("run_paused", _paused_message(interrupts), streaming=False)
        if answer.error is not None:
            return _error(answer.error.code, answer.error.message, streaming=False)
        thoughts = [e.thought for e in answer.reasoning_trace if e.type == "thought" and e.thought]
        observations = [e.observation for e in answer.reasoning_trace
                        if e.type == "tool" and e.observation]
        out: dict[str, Any] = {"answer": answer.text}
        if thoughts:
            out["thought"] = "\n\n".join(thoughts)
        if observations:
            out["observation"] = "\n\n".join(observations)
        return out



class TrustGraphCurrentDialect(DataOnlySSE):
    """TrustGraph 2.x as a dialect object for the TrustGraph routes (not in the registry:
    ``?format=trustgraph`` stays the seed's format)."""

    name = "trustgraph-current"

    def encoder(self) -> CurrentEncoder:
        return CurrentEncoder()

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        return current_final(answer, interrupts)
