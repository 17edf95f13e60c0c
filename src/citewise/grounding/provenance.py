"""Provenance: PROV-O triples for every step of a run, emitted as ``explain`` events.

:class:`ProvenanceRecorder` is a :class:`~citewise.agent.hooks.RunHook`. It writes, in the
named graph ``urn:graph:retrieval`` (seed 000, TrustGraph's query-time explainability
graph), in the term format of :mod:`citewise.triples`:

* on start — the run (``prov:Activity``) and the question it ``prov:used``;
* after each tool call — the call (input, latency, result size, ``dcterms:isPartOf`` the
  run), every chunk it returned (``prov:used`` by the call) and, for each chunk,
  ``prov:wasDerivedFrom`` the document it was cut from;
* on the answer — the query analysis, the answer (``prov:wasGeneratedBy`` the run,
  ``prov:wasDerivedFrom`` the question and every cited chunk and document) and each claim
  (``prov:wasDerivedFrom`` its chunks and documents, with one qualified
  ``prov:Derivation`` per citation holding the excerpt and its offsets).

IRIs are stable, so the same run always yields the same nodes: ``urn:citewise:run:{run}``,
``…:claim:{i}`` (``i`` = ``Claim.index``, zero-based), ``…:call:{id}``, ``…:citation:{k}``,
``urn:citewise:chunk:{chunk_id}``, ``urn:citewise:document:{doc_id}``. citewise's own
properties live under ``urn:citewise:vocab#``.

:func:`export_provenance` turns explain events (objects, stored JSON, or triples) into
Turtle, JSON-LD, TriG or N-Quads with rdflib; :func:`run_provenance` does it for a stored
run (both live in :mod:`.export` and are re-exported here).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from citewise._construct import trusted
from citewise.answer import Answer, SearchDocument, Snippet
from citewise.events import Event
from citewise.grounding.export import (
    ExportFormat,
    export_provenance,
    parse_provenance,
    provenance_dataset,
    run_provenance,
)
from citewise.grounding.vocab import CW, DCT, GRAPH, PROV, RDF_TYPE, XSD
from citewise.triples import Triple, iri, lit

if TYPE_CHECKING:
    from citewise.agent.emitter import Emitter
    from citewise.agent.state import RunState
    from citewise.agent.tools import ToolResult
    from citewise.models.base import ToolCall

__all__ = [
    "CW",
    "GRAPH",
    "PROV",
    "ExportFormat",
    "ProvenanceRecorder",
    "chunk_iri",
    "claim_iri",
    "document_iri",
    "export_provenance",
    "parse_provenance",
    "provenance_dataset",
    "run_iri",
    "run_provenance",
]

# -- IRIs -------------------------------------------------------------------------------


def _q(value: object) -> str:
    # Ids are ours (hex, ints) but may come from users: keep every IRI well-formed.
    return quote(str(value), safe="-._~")


def run_iri(run_id: str) -> str:
    return f"urn:citewise:run:{_q(run_id)}"


def claim_iri(run_id: str, index: int) -> str:
    return f"{run_iri(run_id)}:claim:{index}"


def chunk_iri(chunk_id: int) -> str:
    return f"urn:citewise:chunk:{chunk_id}"


def document_iri(document_id: str) -> str:
    return f"urn:citewise:document:{_q(document_id)}"


def _snippet_iri(run_id: str, doc_index: int, snippet_index: int, snip: Snippet) -> str:
    if snip.chunk_id is not None:
        return chunk_iri(snip.chunk_id)
    # A tool-made snippet without a chunk id is still a node, scoped to this run.
    return f"{run_iri(run_id)}:document:{doc_index}:snippet:{snippet_index}"


def _doc_iri(doc: SearchDocument) -> str:
    return document_iri(str(doc.document.get("id", doc.source)))


# -- the hook ---------------------------------------------------------------------------


class _Builder:
    """Collects triples for one explain event.

    Triples are built with :func:`~citewise._construct.trusted` from interned terms: their
    parts are :func:`iri` / :func:`lit` terms by construction (mypy-checked here), and each
    step makes a dozen of them — validating each again was most of a step's cost.
    """

    __slots__ = ("triples",)

    def __init__(self) -> None:
        self.triples: list[Triple] = []

    def add(self, s: str, p: str, o: str) -> None:
        self.triples.append(trusted(Triple, {"s": iri(s), "p": iri(p), "o": iri(o), "g": GRAPH},
                                    set(_SPOG)))

    def lit(self, s: str, p: str, value: object, dt: str | None = None) -> None:
        if isinstance(value, bool):
            value, dt = ("true" if value else "false"), XSD + "boolean"
        self.triples.append(trusted(Triple, {"s": iri(s), "p": iri(p), "o": lit(value, dt),
                                             "g": GRAPH}, set(_SPOG)))

    def a(self, s: str, *types: str) -> None:
        for t in types:
            self.add(s, RDF_TYPE, t)


_SPOG = ("s", "p", "o", "g")


class ProvenanceRecorder:
    """A :class:`~citewise.agent.hooks.RunHook` that emits PROV-O ``explain`` events.

    It keeps one small counter per live run (which ledger chunks it has attributed), so
    one recorder may serve many runs; it does no I/O.
    """

    _MAX_RUNS = 4096

    def __init__(self) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        run = run_iri(state.run_id)
        question = f"{run}:question"
        b = _Builder()
        b.a(run, PROV + "Activity", CW + "Run")
        b.lit(run, PROV + "startedAtTime", state.started_at.isoformat(), XSD + "dateTime")
        b.lit(run, CW + "threadId", state.thread_id)
        if state.model:
            b.lit(run, CW + "model", state.model)
        b.a(question, PROV + "Entity", CW + "Question")
        b.lit(question, PROV + "value", state.question)
        b.add(run, PROV + "used", question)
        self._mark(state.run_id, len(state.ledger.context_chunk_ids))
        return [emit.explain(run, b.triples)]

    def on_tool_result(
        self, state: RunState, call: ToolCall, result: ToolResult, duration_ms: float,
        emit: Emitter,
    ) -> Sequence[Event]:
        run = run_iri(state.run_id)
        node = f"{run}:call:{_q(call.id)}"
        out = f"{node}:result"
        b = _Builder()
        b.a(node, PROV + "Activity", CW + "ToolCall")
        b.add(node, DCT + "isPartOf", run)
        b.lit(node, CW + "tool", call.name)
        b.lit(node, CW + "step", state.step, XSD + "integer")
        b.lit(node, CW + "input", json.dumps(call.arguments, sort_keys=True, default=str,
                                             ensure_ascii=False))
        b.lit(node, CW + "latencyMs", f"{duration_ms:.3f}", XSD + "decimal")
        b.lit(node, CW + "resultSize", len(result.text), XSD + "integer")
        b.a(out, PROV + "Entity", CW + "ToolResult")
        b.add(out, PROV + "wasGeneratedBy", node)
        chunks = self._chunks_of(state, result)
        b.lit(node, CW + "resultCount", len(chunks), XSD + "integer")
        for doc_index, snippet_index, doc in chunks:
            snip = doc.snippets[snippet_index]
            chunk = _snippet_iri(state.run_id, doc_index, snippet_index, snip)
            document = _doc_iri(doc)
            b.a(chunk, PROV + "Entity", CW + "Chunk")
            b.add(node, PROV + "used", chunk)
            b.add(out, PROV + "hadMember", chunk)
            b.add(chunk, PROV + "wasDerivedFrom", document)
            b.lit(chunk, CW + "documentIndex", doc_index, XSD + "integer")
            if snip.source is not None:
                b.lit(chunk, CW + "startChar", snip.source.start_char, XSD + "integer")
                b.lit(chunk, CW + "endChar", snip.source.end_char, XSD + "integer")
            b.a(document, PROV + "Entity", CW + "Document")
            b.lit(document, DCT + "source", doc.source)
            title = doc.document.get("title")
            if title:
                b.lit(document, DCT + "title", title)
        return [emit.explain(node, b.triples)]

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        self._seen.pop(state.run_id, None)
        run = run_iri(state.run_id)
        node = f"{run}:answer"
        events: list[Event] = []
        q = _query_triples(state.run_id, answer)
        if q:
            events.append(emit.explain(f"{run}:query", q))
        b = _Builder()
        b.a(node, PROV + "Entity", CW + "Answer")
        b.add(node, PROV + "wasGeneratedBy", run)
        b.add(node, PROV + "wasDerivedFrom", f"{run}:question")
        b.lit(node, PROV + "value", answer.text)
        b.lit(node, CW + "issueCount", len(answer.issues), XSD + "integer")
        b.lit(run, PROV + "endedAtTime", datetime.now(UTC).isoformat(), XSD + "dateTime")
        for c in answer.citations:
            for target in self._cited(state.run_id, answer, c.document_index, c.snippet_index):
                b.add(node, PROV + "wasDerivedFrom", target)
        for claim in answer.claims:
            if not claim.removed:
                b.add(node, DCT + "hasPart", claim_iri(state.run_id, claim.index))
        events.append(emit.explain(node, b.triples))
        for claim in answer.claims:
            cb = _Builder()
            cnode = claim_iri(state.run_id, claim.index)
            cb.a(cnode, PROV + "Entity", CW + "Claim")
            cb.lit(cnode, PROV + "value", claim.text)
            cb.lit(cnode, CW + "claimIndex", claim.index, XSD + "integer")
            cb.lit(cnode, CW + "status", claim.status)
            cb.lit(cnode, CW + "removed", claim.removed)
            if claim.support is not None:
                cb.lit(cnode, CW + "support", f"{claim.support:.4f}", XSD + "decimal")
            for k in claim.citation_indices:
                c = answer.citations[k]
                cit = f"{run}:citation:{k}"
                targets = self._cited(state.run_id, answer, c.document_index, c.snippet_index)
                for target in targets:
                    cb.add(cnode, PROV + "wasDerivedFrom", target)
                cb.add(cnode, PROV + "qualifiedDerivation", cit)
                cb.a(cit, PROV + "Derivation")
                cb.add(cit, PROV + "entity", targets[0])
                cb.lit(cit, CW + "citationIndex", k, XSD + "integer")
                cb.lit(cit, CW + "documentIndex", c.document_index, XSD + "integer")
                cb.lit(cit, CW + "excerpt", c.excerpt)
                if c.start_char is not None and c.end_char is not None:
                    cb.lit(cit, CW + "startChar", c.start_char, XSD + "integer")
                    cb.lit(cit, CW + "endChar", c.end_char, XSD + "integer")
                if c.support is not None:
                    cb.lit(cit, CW + "support", f"{c.support:.4f}", XSD + "decimal")
            events.append(emit.explain(cnode, cb.triples))
        return events

    # -- helpers --------------------------------------------------------------------------

    def _mark(self, run_id: str, seen: int) -> None:
        self._seen[run_id] = seen
        self._seen.move_to_end(run_id)
        while len(self._seen) > self._MAX_RUNS:
            self._seen.popitem(last=False)

    def _chunks_of(self, state: RunState, result: ToolResult
                   ) -> list[tuple[int, int, SearchDocument]]:
        """The ledger entries this call returned: its new chunks, plus any chunk id named
        in its structured result (a repeated hit is not new to the ledger)."""
        ledger = state.ledger
        start = self._seen.get(state.run_id, 0)
        ids = list(ledger.context_chunk_ids[start:])
        self._mark(state.run_id, len(ledger.context_chunk_ids))
        for cid in _chunk_ids(result.data):
            if cid not in ids:
                ids.append(cid)
        out: list[tuple[int, int, SearchDocument]] = []
        for cid in ids:
            pos = ledger.position(cid)
            if pos is not None:
                out.append((pos[0], pos[1], ledger.documents[pos[0] - 1]))
        return out

    def _cited(self, run_id: str, answer: Answer, doc_index: int,
               snippet_index: int | None) -> list[str]:
        """The chunk (when known) and the document a citation points at."""
        doc = answer.search_documents[doc_index - 1]
        out: list[str] = []
        if snippet_index is not None and snippet_index < len(doc.snippets):
            out.append(_snippet_iri(run_id, doc_index, snippet_index,
                                    doc.snippets[snippet_index]))
        out.append(_doc_iri(doc))
        return out


def _query_triples(run_id: str, answer: Answer) -> list[Triple]:
    """The query analysis: what was searched for, derived from the question."""
    run = run_iri(run_id)
    node = f"{run}:query"
    searched = [str(c.arguments["query"]) for c in answer.tool_calls
                if isinstance(c.arguments.get("query"), str)]
    if answer.query is None and answer.query_details is None and not searched:
        return []
    b = _Builder()
    b.a(node, PROV + "Entity", CW + "QueryAnalysis")
    b.add(node, PROV + "wasDerivedFrom", f"{run}:question")
    b.add(node, PROV + "wasGeneratedBy", run)
    if answer.query is not None:
        if answer.query.reformulated_query:
            b.lit(node, CW + "reformulatedQuery", answer.query.reformulated_query)
        for kw in answer.query.keywords:
            b.lit(node, CW + "keyword", kw)
        if answer.query.query_language:
            b.lit(node, CW + "queryLanguage", answer.query.query_language)
    details = answer.query_details
    queries = list(details.queries) if details is not None and details.queries else searched
    for text in dict.fromkeys(queries):
        b.lit(node, CW + "searchQuery", text)
    if details is not None and details.retrieved is not None:
        b.lit(node, CW + "retrieved", details.retrieved, XSD + "integer")
    return b.triples


def _chunk_ids(data: Any, depth: int = 0) -> list[int]:
    """Every int under a ``chunk_id`` key of a tool's structured result."""
    if depth > 4:
        return []
    out: list[int] = []
    if isinstance(data, Mapping):
        cid = data.get("chunk_id")
        if isinstance(cid, int) and not isinstance(cid, bool):
            out.append(cid)
        for v in data.values():
            if isinstance(v, Mapping | list):
                out.extend(_chunk_ids(v, depth + 1))
    elif isinstance(data, list):
        for v in data:
            out.extend(_chunk_ids(v, depth + 1))
    return out
