"""citewise as an MCP server: ``ask`` (a grounded answer with its citations, as structured
content), ``resume`` (continue a run that paused for a human) and ``search`` (passages with
exact offsets) over one knowledge base.

A run that pauses (a tool that needs approval, an external tool) comes back from ``ask`` with
``status: paused``, its ``run_id`` and its ``interrupts`` (:class:`citewise.events.Interrupt`,
each with the ``response_schema`` of the decisions it takes); ``resume`` takes the run id and
one :class:`citewise.agent.state.Decision` per interrupt — the body of
``POST /v1/runs/{id}/resume`` — and answers like ``ask`` (it may pause again).

Run it with ``citewise mcp [--data-dir DIR]`` (stdio). Tool failures are MCP tool errors
(``isError``) carrying citewise's stable code, e.g. ``[empty_question] the question is empty``
or ``[invalid_decision] …``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, WithJsonSchema

from citewise.agent.state import Decision
from citewise.errors import CitewiseError, RunFailure, UsageError
from citewise.events import ErrorEvent, Interrupt, RunPaused

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from citewise.agent.runner import Agent
    from citewise.answer import Answer
    from citewise.events import Event
    from citewise.knowledge.base import KnowledgeBase

__all__ = ["MAX_DECISIONS", "AskCitation", "AskResult", "SearchPassage", "SearchResult",
           "ask_result", "build_server", "parse_decisions", "run_to_result", "serve_stdio"]

INSTRUCTIONS = (
    "citewise answers questions from the user's own documents. `ask` returns an answer whose "
    "sentences cite passages ([1], [2], …) and the verified citations (source, excerpt, "
    "character offsets). When a tool call needs a human, the result has status `paused` and "
    "its `interrupts` (tool, proposed input, reason, and the JSON Schema of an acceptable "
    "decision): ask the user, then call `resume` with the run_id and one decision per "
    "interrupt. `search` returns matching passages without answering."
)

#: Decisions per ``resume`` call, as ``POST /v1/runs/{id}/resume`` takes them.
MAX_DECISIONS = 100

# `decisions` is checked here, not by the MCP SDK, so that a bad one is answered with
# citewise's code (`invalid_decision`) rather than the SDK's generic argument error; the
# advertised schema is still exactly the Decision's.
Decisions = Annotated[Any, WithJsonSchema({
    "type": "array", "minItems": 1, "maxItems": MAX_DECISIONS,
    "items": Decision.model_json_schema(),
    "description": "One decision per interrupt of the paused run.",
})]
_DECISIONS: TypeAdapter[list[Decision]] = TypeAdapter(list[Decision])


class AskCitation(BaseModel):
    """One citation of the answer."""

    marker: int = Field(description="The number N of the marker [N] in the answer.")
    source: str = Field(description="The cited document's source (path or URI).")
    title: str | None = Field(default=None, description="The document's title, when known.")
    excerpt: str = Field(description="The verbatim quote that supports the claim.")
    start_char: int | None = Field(default=None, description="Offset of the excerpt in the "
                                   "document text (code points).")
    end_char: int | None = Field(default=None, description="End of the excerpt (exclusive).")
    support: float | None = Field(default=None, description="Heuristic support score (0-1).")


class AskResult(BaseModel):
    """The structured content of ``ask``."""

    answer: str = Field(description="The answer, with citation markers like [1].")
    citations: list[AskCitation] = Field(default_factory=list, description="In text order.")
    status: str = Field(description="completed, paused, failed or cancelled.")
    run_id: str = Field(description="The run, for feedback and the event log.")
    thread_id: str = Field(description="Pass it back to ask a follow-up in the same thread.")
    issues: list[str] = Field(default_factory=list, description="Warning codes of the run.")
    interrupts: list[Interrupt] = Field(
        default_factory=list, description="When paused: one per tool call held back for a "
        "human; answer each with a decision (its response_schema) through `resume`.")


class SearchPassage(BaseModel):
    """One passage found by ``search``."""

    source: str = Field(description="The document's source (path or URI).")
    title: str | None = Field(default=None, description="The document's title, when known.")
    text: str = Field(description="The passage, verbatim.")
    start_char: int = Field(description="Offset of the passage in the document text.")
    end_char: int = Field(description="End of the passage (exclusive).")
    score: float = Field(description="Retrieval score (higher is better).")
    chunk_id: int = Field(description="Stable chunk id.")


class SearchResult(BaseModel):
    """The structured content of ``search``."""

    query: str = Field(description="The query searched.")
    results: list[SearchPassage] = Field(default_factory=list, description="Best first.")


def ask_result(answer: Answer, interrupts: Sequence[Interrupt] = ()) -> AskResult:
    """The structured content of ``ask``/``resume`` for a run that ended or paused."""
    docs = answer.search_documents
    cits: list[AskCitation] = []
    for c in answer.citations:
        doc = docs[c.document_index - 1] if 0 < c.document_index <= len(docs) else None
        cits.append(AskCitation(
            marker=c.document_index, source=doc.source if doc else "",
            title=(doc.document.get("title") if doc else None) or None, excerpt=c.excerpt,
            start_char=c.start_char, end_char=c.end_char, support=c.support))
    return AskResult(answer=answer.text, citations=cits, status=answer.status,
                     run_id=answer.run_id, thread_id=answer.thread_id,
                     issues=[i.code for i in answer.issues], interrupts=list(interrupts))


def parse_decisions(raw: Any) -> list[Decision]:
    """``resume``'s decisions as :class:`Decision` objects; ``invalid_decision`` when they
    do not have its shape. Whether they fit the run's interrupts is checked on resume."""
    try:
        decisions = _DECISIONS.validate_python(raw)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        where = "decisions" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                                      for p in first["loc"])
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise UsageError(f"invalid decisions: {where}: {first['msg']}{more}",
                         code="invalid_decision",
                         details={"errors": [e["msg"] for e in errors[:20]]}) from None
    if len(decisions) > MAX_DECISIONS:
        raise UsageError(f"at most {MAX_DECISIONS} decisions per resume",
                         code="invalid_decision", details={"max": MAX_DECISIONS})
    return decisions


async def run_to_result(events: AsyncIterator[Event]) -> AskResult:
    """Drive a run (new or resumed) to its terminal event: its result when it finished or
    paused; a refused run raises its ``UsageError``, a failed one a ``RunFailure`` with
    the run's code."""
    terminal: Event | None = None
    async for event in events:
        if event.is_terminal:
            terminal = event
    if isinstance(terminal, ErrorEvent):
        raise RunFailure(terminal.message, code=terminal.code, details=terminal.details)
    answer: Answer | None = getattr(terminal, "answer", None)
    if answer is None:  # every run ends with a terminal event carrying an answer
        raise RunFailure("the run ended without an answer", code="run_lost")
    if answer.error is not None:
        raise RunFailure(answer.error.message, code=answer.error.code,
                         details=answer.error.details)
    interrupts = terminal.interrupts if isinstance(terminal, RunPaused) else []
    return ask_result(answer, interrupts)


def build_server(kb: KnowledgeBase, *, model: str = "extractive",
                 agent: Agent | None = None) -> MCPServer[Any]:
    """An MCP server over ``kb`` (``agent`` overrides the default ``Agent(kb, model=…)``)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from citewise import __version__
    from citewise.agent.runner import Agent

    the_agent = agent or Agent(kb, model=model)
    server: MCPServer[Any] = MCPServer("citewise", version=__version__,
                                       instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(name="ask", title="Ask the documents")
    async def ask(question: str, thread_id: str | None = None) -> AskResult:
        """Answer a question from the knowledge base, with verified citations.

        Args:
            question: The question, in natural language.
            thread_id: Continue this thread (from an earlier answer) instead of a new one.
        """
        try:
            return await run_to_result(the_agent.stream(question, thread_id=thread_id))
        except CitewiseError as exc:
            raise ToolError(f"[{exc.code}] {exc.message}") from None

    @server.tool(name="resume", title="Resume a paused run")
    async def resume(run_id: str, decisions: Decisions) -> AskResult:
        """Continue a run that `ask` (or `resume`) left paused, with one decision per
        interrupt; answers like `ask` (and may pause again).

        Args:
            run_id: The paused run's run_id.
            decisions: One per interrupt: {"interrupt_id", "action"} where action is approve
                (run the call), reject (with an optional "message" the model is told), edit
                (run it with new arguments in "input") or result (the output of a call the
                host executed, in "result"); each interrupt's response_schema lists the
                actions it takes.
        """
        try:
            parsed = parse_decisions(decisions)
            return await run_to_result(the_agent.resume(run_id, parsed))
        except CitewiseError as exc:
            raise ToolError(f"[{exc.code}] {exc.message}") from None

    @server.tool(name="search", title="Search the documents")
    async def search(query: str, k: int = 5) -> SearchResult:
        """Find passages of the knowledge base that match a query (no answer is written).

        Args:
            query: What to look for, in natural language or keywords.
            k: How many passages to return (1-50).
        """
        if not query.strip():
            raise ToolError("[empty_query] the query is empty")
        try:
            hits = kb.search(query, k=max(1, min(k, 50)))
        except CitewiseError as exc:
            raise ToolError(f"[{exc.code}] {exc.message}") from None
        return SearchResult(query=query, results=[SearchPassage(
            source=h.source, title=h.title, text=h.text, start_char=h.start_char,
            end_char=h.end_char, score=h.score, chunk_id=h.chunk_id) for h in hits])

    return server


async def serve_stdio(kb: KnowledgeBase, *, model: str = "extractive") -> None:
    """Serve MCP over this process's stdin/stdout until the client hangs up."""
    await build_server(kb, model=model).run_stdio_async()
