"""Request and response bodies of the HTTP API (they make the OpenAPI document)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from citewise.agent.state import Decision
from citewise.answer import Answer
from citewise.events import Interrupt

if TYPE_CHECKING:
    from citewise.knowledge.retrieve.hits import Hit

__all__ = [
    "AskRequest",
    "DocumentInfo",
    "DocumentList",
    "FeedbackCreated",
    "FeedbackInfo",
    "FeedbackList",
    "FeedbackRequest",
    "Health",
    "HitInfo",
    "ResumeRequest",
    "RunInfo",
    "RunRequest",
    "SearchRequest",
    "SearchResponse",
    "ThreadDetail",
    "ThreadInfo",
    "ThreadList",
    "TurnInfo",
    "UploadResult",
    "document_metadata",
    "hit_info",
]

RunStatus = Literal["running", "paused", "completed", "failed", "cancelled"]
_ID = Field(min_length=1, max_length=128)


class _Request(BaseModel):
    # Strict: `"stream": 0` or `"k": "5"` is refused, as the JSON Schema says, not coerced.
    model_config = ConfigDict(extra="forbid", strict=True)


class AskRequest(_Request):
    """One question. The answer comes as JSON, or as SSE with ``stream`` or
    ``Accept: text/event-stream``."""

    question: str = Field(min_length=1, max_length=1_000_000,
                          description="The question (limit: the server's max_question_chars).")
    thread_id: str | None = Field(default=None, min_length=1, max_length=128,
                                  description="Continue this thread (its turns are context).")
    stream: bool = Field(default=False, description="Answer with an SSE stream of events.")
    strict: bool = Field(default=False, description="Remove unsupported sentences.")
    max_steps: int | None = Field(default=None, ge=1, le=100,
                                  description="Model calls (at most the server's limit).")
    output_schema: dict[str, Any] | None = Field(
        default=None, description="JSON Schema the answer must follow (`Answer.structured`).")
    persona: str | None = Field(default=None, min_length=1, max_length=64, description=(
        "Answer as this persona (`GET /v1/personas`); default: the built-in `citewise`."))
    audio: bool = Field(default=False, description=(
        "Also speak the answer (`Answer.audio`: `GET /v1/runs/{id}/audio`, a WAV)."))
    image: bool = Field(default=False, description=(
        "Also picture the first cited PDF passage (`Answer.image`: `GET /v1/runs/{id}/image`)."))


class RunRequest(AskRequest):
    """An agent run: streamed by default; ``background`` answers 202 at once."""

    stream: bool = Field(default=True, description="Stream the run's events as SSE.")
    background: bool = Field(
        default=False, description="Answer 202 with the run id; attach to /events later.")


class ResumeRequest(_Request):
    """Decisions for every interrupt of a paused run."""

    decisions: list[Decision] = Field(min_length=1, max_length=100,
                                      description="One decision per pending interrupt.")
    stream: bool = Field(default=True, description="Stream the continued run as SSE.")
    background: bool = Field(default=False, description="Answer 202 at once.")


class RunInfo(BaseModel):
    """A run and, once it ended, its answer."""

    run_id: str = Field(description="Run id.")
    thread_id: str = Field(description="Thread of the run.")
    status: RunStatus = Field(description="Where the run stands.")
    question: str = Field(default="", description="The question of the run.")
    last_seq: int = Field(default=0, ge=0, description="Seq of the last durable event.")
    events_url: str = Field(description="Where to stream (or replay) its events.")
    created_at: datetime | None = Field(default=None, description="When the run started.")
    updated_at: datetime | None = Field(default=None, description="Last change.")
    interrupts: list[Interrupt] = Field(default_factory=list,
                                        description="Pending decisions of a paused run.")
    answer: Answer | None = Field(default=None, description="The answer, once it ended.")


class CancelResult(BaseModel):
    """The outcome of a cancel request."""

    run_id: str = Field(description="Run id.")
    status: Literal["running", "paused", "completed", "failed", "cancelled", "cancelling"] = Field(
        description="The run's status after the request (`cancelling`: asked, not yet done).")


class ThreadInfo(BaseModel):
    """A conversation thread."""

    id: str = Field(description="Thread id.")
    title: str | None = Field(default=None, description="Title (the first question).")
    created_at: datetime = Field(description="Creation time.")
    updated_at: datetime = Field(description="Last turn.")


class TurnInfo(BaseModel):
    """One question and its answer in a thread."""

    run_id: str = Field(description="The run that answered.")
    question: str = Field(description="The question.")
    answer: str = Field(description="The answer text.")
    created_at: datetime = Field(description="When it was answered.")


class ThreadDetail(ThreadInfo):
    """A thread with its turns, oldest first."""

    turns: list[TurnInfo] = Field(default_factory=list, description="Turns, oldest first.")


class ThreadList(BaseModel):
    threads: list[ThreadInfo] = Field(description="Most recently updated first.")


def document_metadata(metadata: dict[str, Any] | None, *, text: bool) -> dict[str, Any]:
    """A document's loader metadata as the API and ``citewise docs`` show it: an HTML page's
    ``anchors`` (element id → offset, ~48 KB for a page of Python's library reference) and a
    PDF's ``page_labels`` (one per page of a book whose numbering starts after its front
    matter) only with its text, which they describe — a listing of a hundred pages carried
    megabytes."""
    return {k: v for k, v in (metadata or {}).items() if text or k not in _WITH_TEXT}


_WITH_TEXT = frozenset(("anchors", "page_labels"))


class DocumentInfo(BaseModel):
    """A stored document (its text only when asked for)."""

    id: str = Field(description="Document id.")
    collection: str = Field(description="Collection.")
    source: str = Field(description="Where it came from (the uploaded file's name).")
    title: str | None = Field(default=None, description="Title found by the loader.")
    content_type: str = Field(description="MIME type of the original.")
    content_hash: str = Field(description="SHA-256 of the original bytes.")
    length: int = Field(ge=0, description="Length of the stored text in code points.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Loader metadata.")
    created_at: datetime | None = Field(default=None, description="First ingest.")
    updated_at: datetime | None = Field(default=None, description="Last change.")
    text: str | None = Field(default=None, description="The stored text (`?text=true`).")


class UploadResult(BaseModel):
    """What an upload did."""

    status: Literal["added", "updated", "unchanged"] = Field(description="Outcome.")
    document: DocumentInfo = Field(description="The stored document.")


class DocumentList(BaseModel):
    documents: list[DocumentInfo] = Field(description="Documents, in store order.")


_Name = Annotated[str, Field(min_length=1, max_length=256)]
_Names = _Name | Annotated[list[_Name], Field(min_length=1, max_length=100)]


class SearchFilters(_Request):
    collection: _Names | None = Field(default=None, description="Collection(s).")
    document_id: _Names | None = Field(default=None, description="Document id(s).")


class SearchRequest(_Request):
    """A knowledge-base search."""

    query: str = Field(min_length=1, max_length=2000, description="What to look for.")
    k: int = Field(default=5, ge=1, le=50, description="How many passages.")
    filters: SearchFilters | None = Field(default=None, description="Metadata filters.")


class HitInfo(BaseModel):
    """One passage; ``text == document_text[start_char:end_char]``."""

    chunk_id: int = Field(description="Stable chunk id.")
    document_id: str = Field(description="Document id.")
    source: str = Field(description="Document source.")
    title: str | None = Field(default=None, description="Document title.")
    text: str = Field(description="The passage, verbatim.")
    start_char: int = Field(ge=0, description="Offset in the document text.")
    end_char: int = Field(ge=0, description="End offset (exclusive).")
    score: float = Field(description="BM25 score (higher is better).")
    page: int | None = Field(default=None, description="One-based page.")
    page_label: str | None = Field(default=None, description="The page's printed label, "
                                   "when it is not its number (a PDF's page labels).")
    anchor: str | None = Field(default=None, description="Id of the page element nearest "
                               "before the passage (HTML).")
    section: str | None = Field(default=None, description="Section path.")
    line: int | None = Field(default=None, description="One-based line of start_char.")


class SearchResponse(BaseModel):
    hits: list[HitInfo] = Field(description="Best first.")


def hit_info(hit: Hit, source: str) -> HitInfo:
    """What the API says of a search hit (``source``: its document's, as shown)."""
    return HitInfo(chunk_id=hit.chunk_id, document_id=hit.document_id, source=source,
                   title=hit.title, text=hit.text, start_char=hit.start_char,
                   end_char=hit.end_char, score=hit.score, page=hit.page,
                   page_label=hit.page_label, anchor=hit.anchor, section=hit.section,
                   line=hit.line)


class FeedbackRequest(_Request):
    """A rating, allowed by the answer's ``trajectory.feedback_token``."""

    token: str = Field(min_length=1, max_length=4096, description="The answer's feedback token.")
    rating: int = Field(ge=0, le=3, description="0 (useless) to 3 (exactly right).")
    run_id: str | None = Field(default=None, min_length=1, max_length=128,
                               description="The run meant (must be the token's).")
    document_index: int | None = Field(default=None, ge=1, le=10_000,
                                       description="Rate one document (one-based).")
    snippet_index: int | None = Field(default=None, ge=0, le=10_000,
                                      description="Rate one passage of it (zero-based).")
    comment: str | None = Field(default=None, max_length=4000, description="Free text.")


class FeedbackCreated(BaseModel):
    id: int = Field(description="Id of the stored rating.")
    run_id: str = Field(description="The rated run.")


class FeedbackInfo(BaseModel):
    id: int = Field(description="Rating id.")
    run_id: str = Field(description="The rated run.")
    rating: int = Field(description="0-3.")
    document_index: int | None = Field(default=None, description="Rated document.")
    snippet_index: int | None = Field(default=None, description="Rated passage.")
    comment: str | None = Field(default=None, description="Comment.")
    created_at: datetime = Field(description="When.")


class FeedbackList(BaseModel):
    feedback: list[FeedbackInfo] = Field(description="Oldest first.")


class Health(BaseModel):
    status: Literal["ok", "ready"] = Field(description="`ok` (alive) or `ready` (serving).")
    version: str = Field(description="citewise version.")
