"""The final ``Answer`` and the records it is made of.

A superset of the five seed response formats: seed 003's ``ConversationResponse``
(citations, search documents, snippets, query analysis, trajectory), seed 004's
``IAnswerResponse`` (thread, structured, issues, usage, ended-by-tool, debug), seed 001's
final chunk (tool calls, usage/cost, reasoning trace, RAG sources) and the error shape
shared by all of them. Every offset counts Unicode code points; ``end_char`` is exclusive.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Answer",
    "AudioOutput",
    "CitationOccurrence",
    "Claim",
    "ConversationContext",
    "ConversationMessage",
    "DebugTranscript",
    "ErrorInfo",
    "ImageOutput",
    "Issue",
    "Query",
    "QueryDetails",
    "SearchDocument",
    "Snippet",
    "SnippetEvidence",
    "SnippetSource",
    "StepUsage",
    "ToolCallRecord",
    "TraceEntry",
    "Trajectory",
    "UICommand",
    "Usage",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)


class SnippetSource(_Model):
    """Where a snippet sits in the stored document text."""

    start_char: int = Field(ge=0, description="First code point of the snippet in the document text.")
    end_char: int = Field(ge=0, description="One past the last code point (exclusive).")
    field_length: int = Field(ge=0, description="Length of the whole document text in code points.")


class SnippetEvidence(_Model):
    """The best sentence-level window for the query inside a snippet (verbatim)."""

    text: str = Field(description="The evidence text, verbatim from the snippet.")
    start_char: int = Field(ge=0, description="Offset of the evidence relative to `Snippet.text`.")
    score: float = Field(description="How well the window matches the query (higher is better).")


class Snippet(_Model):
    """One passage of a retrieved document."""

    field: str = Field(default="text", description="The document field the snippet comes from.")
    text: str = Field(description="The passage, verbatim from the stored document text.")
    score: float = Field(default=0.0, description="Retrieval score of this passage.")
    chunk_id: int | None = Field(
        default=None, description="Stable chunk id (53-bit content hash, JSON-safe)."
    )
    source: SnippetSource | None = Field(default=None, description="Offsets into the document.")
    evidence: SnippetEvidence | None = Field(default=None, description="Best window for the query.")
    page: int | None = Field(default=None, description="One-based page number, when known.")
    page_label: str | None = Field(
        default=None, description="The page's printed label when it is not its number (a "
        "PDF's page labels: `iv` in the front matter, `12` on the 20th page).")
    section: str | None = Field(default=None, description="Section path (e.g. `Intro > Scope`).")
    line: int | None = Field(default=None, description="One-based line of `start_char`.")
    anchor: str | None = Field(
        default=None, description="Id of the page element nearest before the snippet "
        "(HTML): link to it as `page.html#anchor`.")
    anchors: dict[str, int] = Field(
        default_factory=dict, description="Ids of the page elements that start inside the "
        "snippet (HTML), each with its offset in the document text: where a citation of "
        "part of the snippet links to (`CitationOccurrence.anchor`).")

    def anchor_at(self, start_char: int | None) -> str | None:
        """The id of the page element nearest at or before ``start_char`` (an offset in the
        document text): one inside the snippet, else the snippet's own :attr:`anchor`."""
        if start_char is not None:
            inside = [(at, ident) for ident, at in self.anchors.items() if at <= start_char]
            if inside:
                return max(inside)[1]
        return self.anchor


class SearchDocument(_Model):
    """A retrieved document with the snippets the run saw from it."""

    source: str = Field(description="The document's source: a file path or URI.")
    document: dict[str, Any] = Field(
        default_factory=dict, description="Document metadata (`id`, `path`, `title`, …)."
    )
    score: float = Field(default=0.0, description="Best score among its snippets.")
    snippets: list[Snippet] = Field(default_factory=list, description="Passages, in first-seen order.")


class CitationOccurrence(_Model):
    """One citation marker in the answer text, in order of appearance."""

    citation_index: int = Field(ge=0, description="Zero-based position among markers in the answer.")
    document_index: int = Field(ge=1, description="One-based index into `search_documents`.")
    snippet_index: int | None = Field(
        default=None, ge=0, description="Zero-based index into that document's snippets."
    )
    excerpt: str = Field(description="The claim-specific quote from the snippet (verbatim).")
    claim_index: int | None = Field(
        default=None, ge=0, description="Zero-based index of the claim (sentence) it supports."
    )
    start_char: int | None = Field(
        default=None, ge=0, description="Offset of `excerpt` in the document text."
    )
    end_char: int | None = Field(default=None, ge=0, description="End of `excerpt` (exclusive).")
    support: float | None = Field(
        default=None, description="Heuristic support of the claim, as an answer to the "
        "question, by this excerpt (0-1): how much of the claim it covers times how much it "
        "addresses the question. Not a proof."
    )
    anchor: str | None = Field(
        default=None, description="Id of the page element nearest before the excerpt "
        "(HTML): link to it as `page.html#anchor` to land on what is quoted."
    )


class Claim(_Model):
    """One checkable sentence of the answer and the verdict of citation verification.

    Added for grounding (issue 4). In the default mode every claim stays in ``Answer.text``
    and this record *marks* the unsupported ones; in strict mode they are removed from the
    text and kept here with ``removed`` true, so nothing disappears without a trace.
    """

    index: int = Field(
        ge=0,
        description="Zero-based position among the claims of the model's draft; the same "
        "number as `CitationOccurrence.claim_index` and the provenance IRI `…:claim:{index}`.",
    )
    text: str = Field(description="The claim without citation markers and markdown.")
    start_char: int | None = Field(
        default=None, ge=0, description="Offset of the sentence in `Answer.text`; None if removed."
    )
    end_char: int | None = Field(
        default=None, ge=0, description="End of the sentence in `Answer.text` (exclusive)."
    )
    status: Literal["supported", "unsupported", "uncited"] = Field(
        description="`supported`: a citation supports it; `unsupported`: it cites, but nothing "
        "cited supports it (or a quote is not in the source); `uncited`: it cites nothing."
    )
    support: float | None = Field(
        default=None, description="Best heuristic support score among its citations (0-1)."
    )
    citation_indices: list[int] = Field(
        default_factory=list, description="Positions of its citations in `Answer.citations`."
    )
    removed: bool = Field(default=False, description="Strict mode removed it from the text.")


class Query(_Model):
    """Query analysis (seed 003's classifier state)."""

    original_query: str = Field(default="", description="The question as asked.")
    reformulated_query: str = Field(default="", description="The query actually searched first.")
    keywords: list[str] = Field(default_factory=list, description="Content keywords.")
    related_queries: list[str] = Field(default_factory=list, description="Other queries tried.")
    query_language: str | None = Field(default=None, description="ISO 639-1 code, when detected.")
    date_expression: str | None = Field(
        default=None, description="Unresolved date expression, resolved at request time."
    )
    date: tuple[datetime, datetime] | None = Field(
        default=None, description="(start, end) the date expression resolved to."
    )
    filters: dict[str, Any] = Field(default_factory=dict, description="Metadata filters applied.")
    knowledge_source: str | None = Field(default=None, description="Collection searched.")
    content_type: str | None = Field(default=None, description="Content type asked for.")
    instruction: str | None = Field(default=None, description="Output instruction, if any.")
    title: str | None = Field(default=None, description="Short title for the question.")
    classified_aspects: list[str] = Field(default_factory=list, description="Aspects detected.")
    is_event: bool = Field(default=False, description="The question is about an event.")
    is_recent: bool = Field(default=False, description="The question asks for recent material.")


class QueryDetails(_Model):
    """Counts of the search stage."""

    query: str | None = Field(default=None, description="The main query searched.")
    queries: list[str] = Field(default_factory=list, description="Every query searched.")
    incomplete_queries: list[str] = Field(default_factory=list, description="Queries that failed.")
    retrieved: int | None = Field(default=None, ge=0, description="Hits retrieved over all queries.")
    selected: int | None = Field(default=None, ge=0, description="Snippets shown to the model.")
    compared: int | None = Field(default=None, ge=0, description="Candidates compared when ranking.")
    planning_fallback: bool = Field(default=False, description="Query planning fell back.")
    ranking_fallback: bool = Field(default=False, description="Ranking fell back to lexical only.")
    rewritten_query: str | None = Field(
        default=None, description="A follow-up question rewritten with its thread's earlier "
        "turns (their subject carried in), searched in its place; None for a standalone one.")
    carried_terms: list[str] = Field(
        default_factory=list, description="The words of earlier turns `rewritten_query` "
        "carries in; each search that lacks them has them appended.")
    unmentioned: list[str] = Field(
        default_factory=list, description="Words of the searches that no document of the "
        "knowledge base contains (a search engine's \"Missing: …\"); English questions, "
        "knowledge bases of 200 chunks or more.")


class StepUsage(_Model):
    """Tokens and cost of one model call."""

    step: int = Field(ge=0, description="Zero-based step of the run.")
    model: str = Field(default="", description="Model that served the step.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    cost: float | None = Field(default=None, description="Cost in `currency`, when priced.")


class Usage(_Model):
    """Tokens of the run: the sum over its steps, plus the breakdown."""

    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens over all steps.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens over all steps.")
    total_tokens: int = Field(default=0, ge=0, description="input + output.")
    cost: float | None = Field(default=None, description="Total cost, when the model is priced.")
    currency: str = Field(default="USD", description="Currency of `cost`.")
    steps: list[StepUsage] = Field(default_factory=list, description="Per model call.")


class TraceEntry(_Model):
    """One step of the reasoning trace (seed 001)."""

    step: int = Field(ge=0, description="Zero-based step.")
    type: Literal["thought", "tool", "answer", "error"] = Field(description="Kind of entry.")
    thought: str | None = Field(default=None, description="The model's reasoning, if any.")
    tool: str | None = Field(default=None, description="Tool called.")
    tool_input: dict[str, Any] | None = Field(default=None, description="Arguments of the call.")
    observation: str | None = Field(default=None, description="Short summary of the result.")
    duration_ms: float = Field(default=0.0, ge=0, description="Wall time of the step.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens of the step.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens of the step.")


class ToolCallRecord(_Model):
    """A tool call the run made (seed 001's finalToolCalls)."""

    id: str = Field(description="Call id.")
    name: str = Field(description="Tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Validated arguments.")
    is_error: bool = Field(default=False, description="The call failed.")


class Issue(_Model):
    """A warning attached to the answer (seed 004's issues)."""

    code: str = Field(description="Stable machine-readable code.")
    message: str = Field(description="Human-readable explanation.")
    severity: Literal["warning", "info"] = Field(default="warning", description="Severity.")
    details: dict[str, Any] = Field(default_factory=dict, description="Structured details.")


class ErrorInfo(_Model):
    """The one error shape: code, message, details."""

    code: str = Field(description="Stable machine-readable code.")
    message: str = Field(description="Human-readable message.")
    details: dict[str, Any] = Field(default_factory=dict, description="Structured details.")


class Trajectory(_Model):
    """Identifies the retrieval of this run, for feedback."""

    id: str = Field(description="Trajectory id (the run id).")
    feedback_token: str | None = Field(default=None, description="Signed, expiring rating capability.")


class DebugTranscript(_Model):
    """Exactly what was sent to and received from the model; only when asked for."""

    requests: list[dict[str, Any]] = Field(default_factory=list, description="Model requests in order.")


class UICommand(_Model):
    """A command for the page that shows the answer (seed 001's ``UICommand``): every
    citation opens its passage (``open_citation``), and a tool may return its own."""

    command_id: str = Field(description="What to do, e.g. `open_citation`.")
    target_element_id: str | None = Field(default=None, description="The page element meant.")
    payload: dict[str, Any] = Field(default_factory=dict, description="The command's arguments.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Where it came from.")


class AudioOutput(_Model):
    """The answer spoken (seed 001's ``AudioOutputConfig``), when asked for."""

    provider: str = Field(description="The speech engine (`espeak-ng`).")
    text: str = Field(description="What is spoken: the answer's `text_plain`.")
    url: str = Field(description="Same-server URL of the audio file.")
    format: str = Field(default="wav", description="Audio file format.")
    language: str | None = Field(default=None, description="Language code of the voice.")


class ImageOutput(_Model):
    """The first cited PDF passage as a picture (seed 001's ``ImageOutputConfig``)."""

    provider: str = Field(default="pypdfium2", description="What renders it.")
    url: str | None = Field(default=None, description="Same-server URL of the PNG.")
    base64_data: str | None = Field(default=None, description="The PNG itself, base64.")
    format: str = Field(default="png", description="Image format.")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Document id, page, span offsets, citation index.")


class ConversationMessage(_Model):
    """One message of a thread."""

    id: str = Field(description="Stable id: `{thread id}:{position}`.")
    role: Literal["user", "assistant"] = Field(description="Who wrote it.")
    text: str = Field(description="The question, or the answer text.")
    created_at: datetime | None = Field(default=None, description="When, when known.")


class ConversationContext(_Model):
    """A thread's turns after this run (seed 001's ``updatedConversationContext``)."""

    thread_id: str = Field(description="The thread.")
    messages: list[ConversationMessage] = Field(default_factory=list, description="Oldest first.")
    summary: str = Field(default="", description="A short extractive summary of the thread.")


class Answer(_Model):
    """The finished answer of a run."""

    kind: Literal["answer"] = Field(default="answer", description="Discriminant.")
    status: Literal["completed", "paused", "failed", "cancelled"] = Field(
        default="completed", description="How the run ended."
    )
    run_id: str = Field(description="The run that produced this answer.")
    thread_id: str = Field(description="The thread the turn was stored in.")
    question: str = Field(default="", description="The question asked.")
    model: str = Field(default="", description="The model that answered.")
    text: str = Field(default="", description="Markdown with citation markers like `[1]`.")
    text_plain: str = Field(default="", description="`text` without markdown and markers.")
    citations: list[CitationOccurrence] = Field(
        default_factory=list, description="Ordered occurrences the answer rests on."
    )
    claims: list[Claim] = Field(
        default_factory=list,
        description="Every checkable sentence with its verification verdict (see `Claim`).",
    )
    search_documents: list[SearchDocument] = Field(
        default_factory=list, description="Every document retrieved in the run (one-based)."
    )
    context_chunk_ids: list[int] = Field(
        default_factory=list, description="Every chunk shown to the model."
    )
    query: Query | None = Field(default=None, description="Query analysis.")
    query_details: QueryDetails | None = Field(default=None, description="Search-stage counts.")
    reasoning_trace: list[TraceEntry] = Field(default_factory=list, description="Steps in order.")
    usage: Usage = Field(default_factory=Usage, description="Tokens and cost.")
    issues: list[Issue] = Field(default_factory=list, description="Warnings of the run.")
    answerability: float | None = Field(
        default=None, ge=0.0, le=1.0, description="The answering model's estimate that "
        "the passages it found answer the question at all (0..1, a heuristic on that "
        "model's own scale): below its threshold it declines. Null for a model that makes "
        "no such estimate (a language model: its claims' verification speaks instead).")
    confidence: float | None = Field(
        default=None, ge=0.0, le=1.0, description="For an answer given, the answering "
        "model's estimate of the chance that its first citation states the answer (the "
        "`extractive` model's is calibrated on held-out questions of the answers bench); "
        "below its threshold the answer carries a `weak_evidence` issue. Null for a "
        "decline and for a model that makes no such estimate.")
    ended_by_tool: str | None = Field(default=None, description="Tool that ended the run, if any.")
    structured: Any = Field(default=None, description="Schema-valid value when one was asked for.")
    structured_citations: dict[str, list[int]] = Field(
        default_factory=dict, description="Each leaf value of `structured`, by JSON Pointer "
        "(`/year`, `/authors/0`), to the `citations` it rests on (empty: nothing supports it, "
        "and an `unsupported_value` issue says so).")
    tool_calls: list[ToolCallRecord] = Field(default_factory=list, description="Tool calls made.")
    error: ErrorInfo | None = Field(default=None, description="Why the run failed, if it did.")
    trajectory: Trajectory | None = Field(default=None, description="Feedback handle.")
    debug: DebugTranscript | None = Field(default=None, description="Model transcript, if asked.")
    persona_id: str = Field(default="citewise", description="The persona that answered.")
    persona: dict[str, Any] | None = Field(
        default=None, description="That persona's definition, when the run asked for one.")
    ui_commands: list[UICommand] = Field(
        default_factory=list, description="Commands for the page: one `open_citation` per "
        "citation, then any a tool returned.")
    audio: AudioOutput | None = Field(default=None, description="The answer spoken, if asked.")
    image: ImageOutput | None = Field(default=None, description="The cited PDF region, if asked.")
    conversation: ConversationContext | None = Field(
        default=None, description="The thread's turns after this run.")
