"""The built-in ``search_knowledge`` tool: searches the knowledge base, records every hit
in the run's evidence ledger and numbers it for citation.

Also here: the question's analysis for ``RunState.query`` (:func:`analyze_question`) and
:class:`SearchDetailsRecorder`, the run hook that keeps ``RunState.query_details`` (every
query searched, candidates retrieved / compared, snippets selected) up to date.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from pydantic import Field

from citewise.agent.context import RunContext
from citewise.agent.prompts import wrap_untrusted
from citewise.agent.tools import Tool, ToolResult, tool
from citewise.answer import Issue, Query, QueryDetails
from citewise.errors import InvalidInput
from citewise.knowledge.retrieve.hits import Hit

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.answer import Answer
    from citewise.events import Event
    from citewise.models.base import ToolCall

__all__ = ["NOT_TAGGED", "NO_DOCUMENT_CONTAINS", "SEARCHED", "SearchDetailsRecorder", "Searcher",
           "analyze_question", "make_search_tool"]

_TOOL = "search_knowledge"


class Searcher(Protocol):
    """What the tool needs of a knowledge base."""

    def search(self, query: str, *, k: int = 5, filters: dict[str, Any] | None = None) -> list[Hit]: ...


#: How an observation starts when the search ran another query than the one asked for (a
#: follow-up's carried words): the steps show what was searched, not only what was asked.
SEARCHED = "Searched for: "
#: How an observation says which of the query's words no document contains.
NO_DOCUMENT_CONTAINS = "No document contains: "
#: How an observation says that a ``#tag`` of the question found nothing as a tag.
NOT_TAGGED = "Nothing matched as tagged "


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
        text, applied, inline_tags = _filters(ctx, query, filters)
        searched = ""  # said first in the observation when it is not the query asked for
        if ctx.carried_terms:  # a follow-up: its thread's subject goes into every search
            from citewise.agent.followups import carry_into

            carried = carry_into(text, ctx.carried_terms)
            if carried != text:
                query, text = carry_into(query, ctx.carried_terms), carried
                searched = f"{SEARCHED}{query} (the thread's subject added)\n\n"
        hits, counts = _search(kb, text, k, applied)
        if not hits and inline_tags and applied is not None:
            # "What does a #cmakedefine line become?": a "#word" that finds nothing as a
            # tag, and that the documents write themselves, is a word of the question
            # (CMake review, 2026-12-04). "#gloves" with nothing tagged so stays a filter.
            kept = [t for t in applied.get("tags", ()) if t not in inline_tags]
            others = {key: v for key, v in applied.items() if key != "tags"}
            rest = ({**others, "tags": kept} if kept else others) or None
            words = " ".join((text, *inline_tags))
            found, found_counts = _search(kb, words, k, rest)
            from citewise.knowledge.retrieve.filters import hashtags

            written = {t.lower() for t in inline_tags}
            if any(written & {t.lower() for t in hashtags(h.text)} for h in found):
                text, hits, counts, applied = words, found, found_counts, rest
                searched += f"{NOT_TAGGED}{', '.join(inline_tags)}: searched as words.\n\n"
        # The passages' sentences as embedded with their chunks: ranking them (the
        # extractive model) then embeds the question alone (citewise.knowledge.index.sentences).
        stored = getattr(kb, "load_sentence_vectors", None)
        if callable(stored) and hits:
            stored([h.chunk_id for h in hits])
        # Words no document contains ("Missing: bcrypt"), said before the passages: a sign
        # the documents do not cover what is asked (the extractive model's abstention).
        absent = getattr(kb, "unmentioned", None)
        missing = list(absent(text)) if callable(absent) else []
        if missing:
            counts["unmentioned"] = missing
            searched += f"{NO_DOCUMENT_CONTAINS}{', '.join(missing)}\n\n"
        entries = ctx.ledger.add(hits)
        details = ctx.extra.setdefault("search", {"queries": [], "retrieved": 0})
        details["queries"].append(query)
        details["retrieved"] += len(hits)
        if not hits:
            # A filter the question wrote inline ("#billing", "collection:faq") may be why:
            # say which, so a reader sees it was not the words that found nothing.
            within = f" the filters {_said(applied)}" if applied else ""
            return ToolResult(text=f"{searched}No passages matched{within}.",
                              data={"query": query, "results": [], **counts})
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
                "title": hit.title,
                "section": hit.section,
                "text": hit.text,
                # For evidence choice (never shown to a language model: ``text`` above is).
                "roles": [list(r) for r in hit.roles],
            })
        text = searched + wrap_untrusted("\n\n".join(lines))
        return ToolResult(text=text, data={"query": query, "results": results, **counts})

    return tool(search_knowledge)


def _search(kb: Searcher, text: str, k: int, filters: dict[str, Any] | None
            ) -> tuple[list[Hit], dict[str, Any]]:
    """The hits for ``text`` and the counts an observation carries."""
    retrieve = getattr(kb, "retrieve", None)
    if not callable(retrieve):
        hits = kb.search(text, k=k, filters=filters)
        return hits, {"retrieved": len(hits), "compared": len(hits), "ranking_fallback": False}
    found = retrieve(text, k=k, filters=filters)  # a KnowledgeBase: the ranking's counts too
    counts: dict[str, Any] = {"retrieved": found.retrieved, "compared": found.compared,
                              "ranking_fallback": found.ranking_fallback}
    backlog = getattr(kb, "embedding_backlog", lambda: None)()
    if backlog is not None:  # vectors still being computed (issue 23): say so
        counts["not_embedded"], counts["chunks"] = backlog
    return list(found.hits), counts


def _filters(ctx: RunContext, query: str, given: dict[str, Any] | None
             ) -> tuple[str, dict[str, Any] | None, tuple[str, ...]]:
    """The text to search, the filters to search with, and the tags among them written as
    ``#billing`` (none when the tool's ``filters`` name tags). Inline filter
    terms (``collection:handbook``, ``#tag``, ``after:2024-01-01``) apply wherever they are
    written: in the question (its analysis, ``ctx.query``) or in this search's query; the
    tool's own ``filters`` argument wins over both, the query's over the question's. A
    question's date *expression* ("last year") is not a filter: it says what the answer is
    about, not when a document was written."""
    from citewise.knowledge.retrieve.filters import (
        extract_inline_filters,
        hashtags,
        parse_filters,
    )

    text, inline = extract_inline_filters(query)
    asked = parse_filters(ctx.query.filters) if ctx.query is not None else None
    own = parse_filters(given)
    merged = (asked.merged(inline) if asked is not None else inline).merged(own)
    said = {t.lower() for t in hashtags(
        f"{query} {ctx.query.original_query if ctx.query is not None else ''}")}
    hashed = () if own.tags else tuple(t for t in merged.tags if t.lower() in said)
    return (text.strip() or query), (merged.to_dict() or None), hashed


def _said(filters: dict[str, Any]) -> str:
    """``{"tags": ["array"]}`` as ``tags: array``."""
    return "; ".join(f"{key}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
                     for key, v in filters.items())


def analyze_question(question: str) -> tuple[Query | None, QueryDetails]:
    """``RunState.query`` (keywords, reformulation, language, dates resolved now, inline
    filters) and the empty ``query_details`` the searches then fill. A question whose
    inline filters do not parse (``after:2024-05-01 before:2024-01-01``) is still asked:
    it just has no analysis, and ``planning_fallback`` says so."""
    from citewise.knowledge.retrieve.query import analyze

    try:
        query = analyze(question, now=datetime.now(UTC))
    except InvalidInput:
        return None, QueryDetails(planning_fallback=True, retrieved=0, compared=0, selected=0)
    return query, QueryDetails(query=query.reformulated_query, retrieved=0, compared=0,
                               selected=0)


class SearchDetailsRecorder:
    """Run hook: after each ``search_knowledge`` call, adds it to ``state.query_details``
    (so they survive a pause: they live in the run's state, not in the tool)."""

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        return ()

    def on_tool_result(self, state: RunState, call: ToolCall, result: ToolResult,
                       duration_ms: float, emit: Emitter) -> Sequence[Event]:
        if call.name != _TOOL:
            return ()
        d = state.query_details or QueryDetails()
        data = result.data if isinstance(result.data, dict) else None
        query = call.arguments.get("query")
        if data is None or not isinstance(data.get("results"), list):
            if isinstance(query, str):  # the search failed (bad filter, timeout, …)
                update: dict[str, Any] = {
                    "incomplete_queries": list(dict.fromkeys([*d.incomplete_queries, query]))}
                state.query_details = d.model_copy(update=update)
            return ()
        searched = str(data.get("query", query))
        state.query_details = d.model_copy(update={
            "query": d.query or searched,
            "queries": list(dict.fromkeys([*d.queries, searched])),
            "retrieved": (d.retrieved or 0) + int(data.get("retrieved", len(data["results"]))),
            "compared": (d.compared or 0) + int(data.get("compared", len(data["results"]))),
            "selected": len(state.ledger.context_chunk_ids),
            "ranking_fallback": d.ranking_fallback or bool(data.get("ranking_fallback")),
            "unmentioned": list(dict.fromkeys(
                [*d.unmentioned, *(w for w in data.get("unmentioned") or () if isinstance(w, str))])),
        })
        missing = data.get("not_embedded")
        if missing and not any(i.code == "embedding_incomplete" for i in state.issues):
            state.issues.append(Issue(
                code="embedding_incomplete", severity="info",
                message=f"{missing} of {data.get('chunks')} chunks are not embedded yet: "
                        "keyword search covered every chunk, vector search only the "
                        "embedded ones",
                details={"not_embedded": missing, "chunks": data.get("chunks")}))
        return ()

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        return ()
