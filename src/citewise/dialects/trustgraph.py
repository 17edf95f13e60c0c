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

__all__ = ["TrustGraphDialect", "TrustGraphEncoder", "term_json", "triple_json", "triples_json"]


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

