"""citewise as an MCP server: ``ask`` (a grounded answer with its citations, as structured
content) and ``search`` (passages with exact offsets) over one knowledge base.

Run it with ``citewise mcp [--data-dir DIR]`` (stdio). Tool failures are MCP tool errors
(``isError``) carrying citewise's stable code, e.g. ``[empty_question] the question is empty``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from citewise.errors import CitewiseError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from citewise.agent.runner import Agent
    from citewise.answer import Answer
    from citewise.knowledge.base import KnowledgeBase

__all__ = ["AskCitation", "AskResult", "SearchPassage", "SearchResult", "build_server",
           "serve_stdio"]

INSTRUCTIONS = (
    "citewise answers questions from the user's own documents. `ask` returns an answer whose "
    "sentences cite passages ([1], [2], …) and the verified citations (source, excerpt, "
    "character offsets). `search` returns matching passages without answering."
)


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


def ask_result(answer: Answer) -> AskResult:
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
                     issues=[i.code for i in answer.issues])


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
            answer = await the_agent.ask_async(question, thread_id=thread_id)
        except CitewiseError as exc:
            raise ToolError(f"[{exc.code}] {exc.message}") from None
        if answer.error is not None:
            raise ToolError(f"[{answer.error.code}] {answer.error.message}")
        return ask_result(answer)

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
