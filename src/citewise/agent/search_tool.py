"""The built-in ``search_knowledge`` tool: searches the knowledge base, records every hit
in the run's evidence ledger and numbers it for citation."""

from __future__ import annotations

from typing import Annotated, Any, Protocol

from pydantic import Field

from citewise.agent.context import RunContext
from citewise.agent.prompts import wrap_untrusted
from citewise.agent.tools import Tool, ToolResult, tool
from citewise.knowledge.hits import Hit

__all__ = ["Searcher", "make_search_tool"]


class Searcher(Protocol):
    """What the tool needs of a knowledge base."""

    def search(self, query: str, *, k: int = 5, filters: dict[str, Any] | None = None) -> list[Hit]: ...


def make_search_tool(kb: Searcher) -> Tool:
    """A ``search_knowledge`` tool bound to ``kb``."""

    def search_knowledge(
        ctx: RunContext,
        query: Annotated[str, Field(min_length=1, max_length=2000)],
        filters: dict[str, Any] | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 5,
    ) -> ToolResult:
        """Search the user's knowledge base for passages relevant to a query.

        Args:
            query: What to look for, in natural language or keywords.
            filters: Optional metadata filters, e.g. {"collection": "handbook"}.
            k: How many passages to return (1-50).
        """
        hits = kb.search(query, k=k, filters=filters)
        entries = ctx.ledger.add(hits)
        details = ctx.extra.setdefault("search", {"queries": [], "retrieved": 0})
        details["queries"].append(query)
        details["retrieved"] += len(hits)
        if not hits:
            return ToolResult(text="No passages matched.", data={"query": query, "results": []})
        lines: list[str] = []
        results: list[dict[str, Any]] = []
        for hit, entry in zip(hits, entries, strict=True):
            where = hit.title or hit.source
            lines.append(f"[{entry.document_index}] {where}\n{hit.text}")
            results.append({
                "document_index": entry.document_index,
                "snippet_index": entry.snippet_index,
                "chunk_id": hit.chunk_id,
                "score": hit.score,
                "source": hit.source,
                "text": hit.text,
            })
        text = wrap_untrusted("\n\n".join(lines))
        return ToolResult(text=text, data={"query": query, "results": results})

    return tool(search_knowledge)
