"""``conversation``: the ``ConversationResponse`` of seed 003.

Validates against the seed's own JSON Schema (``schemas/dialects/conversation.schema.json``,
copied unchanged). Only the seed's fields are written — citewise's extra citation and
snippet fields (claim index, offsets, page…) stay in the ``citewise`` dialect — except
``error``, added on a failed run only (the seed has no error field; its schema allows it).

* ``conversation_id`` = the thread id; ``answer`` = the text with its ``[N]`` markers;
* ``citations[]``: ``citation_index`` (zero-based), ``document_index`` (one-based into
  ``search_documents``), ``snippet_index``, ``excerpt``;
* ``search_documents[].source`` is ``"documents"`` — the search service's name for a
  document index, the value its clients (``spacefrontiers-clients``' pydantic
  ``SearchDocument``) accept; the document's own source (its file path or URI) is in
  ``document.source``, beside ``id``, ``path`` and ``title``;
* ``search_documents[].snippets[].chunk_id`` is the 53-bit chunk id (fits int64);
* ``kind``: ``"response"`` (completed: what those clients' ``ConversationResponse``
  requires), ``"interrupt"`` (paused), ``"error"`` (failed or cancelled) — a client that
  knows only responses refuses the last two, as it would refuse an HTTP error;
* ``trajectory``: ``{id, feedback_token}``; ``id`` (the stored turn's int64) is not
  known to a serialiser and is left out.

The seed is a response, not a stream: ``stream`` yields exactly one ConversationResponse,
built from the run's terminal event.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.answer import Answer, SearchDocument, Snippet
from citewise.dialects.base import DataOnlySSE, Obj, answer_of
from citewise.events import ErrorEvent, Event, Interrupt, RunFinished, RunPaused

__all__ = ["ConversationDialect", "ConversationEncoder"]


def _kind(answer: Answer) -> str:
    if answer.status == "paused":
        return "interrupt"
    if answer.status in ("failed", "cancelled") or answer.error is not None:
        return "error"
    return "response"


#: ``SearchDocument.source`` names the index a hit came from; citewise has one: documents.
SOURCE = "documents"


def _snippet(snip: Snippet) -> Obj:
    out: Obj = {"field": snip.field, "text": snip.text, "score": snip.score}
    if snip.chunk_id is not None:
        out["chunk_id"] = snip.chunk_id
    if snip.source is not None:
        out["source"] = snip.source.model_dump(mode="json")
    if snip.evidence is not None:
        out["evidence"] = snip.evidence.model_dump(mode="json")
    return out


def _document(doc: SearchDocument) -> Obj:
    document = dict(doc.document)
    document.setdefault("source", doc.source)
    return {
        "source": SOURCE,
        "document": document,
        "score": doc.score,
        "snippets": [_snippet(s) for s in doc.snippets],
    }


class ConversationEncoder:
    """A response, not a stream: nothing until the terminal event, then the one response."""

    def __init__(self, dialect: ConversationDialect) -> None:
        self._dialect = dialect
        self.done = False

    def feed(self, ev: Event) -> list[Obj]:
        if self.done or not isinstance(ev, RunFinished | RunPaused | ErrorEvent):
            return []
        self.done = True
        return [self._dialect.final(answer_of(ev))]


class ConversationDialect(DataOnlySSE):
    name = "conversation"

    def encoder(self) -> ConversationEncoder:
        return ConversationEncoder(self)

    def final(self, answer: Answer, *, interrupts: Sequence[Interrupt] = ()) -> Obj:
        out: Obj = {
            "conversation_id": answer.thread_id,
            "kind": _kind(answer),
            "answer": answer.text,
            "model_name": answer.model or None,
            "citations": [
                {
                    "citation_index": c.citation_index,
                    "document_index": c.document_index,
                    "snippet_index": c.snippet_index,
                    "excerpt": c.excerpt,
                }
                for c in answer.citations
            ],
            "search_documents": [_document(d) for d in answer.search_documents],
            "query": answer.query.model_dump(mode="json") if answer.query else None,
            "query_details": (answer.query_details.model_dump(mode="json")
                              if answer.query_details else None),
            "trajectory": answer.trajectory.model_dump(mode="json") if answer.trajectory else None,
        }
        if answer.error is not None:
            out["error"] = answer.error.model_dump(mode="json")
        return out
