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

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from citewise.answer import Answer, SearchDocument
from citewise.events import Event
from citewise.grounding.export import (
    ExportFormat,
    export_provenance,
    parse_provenance,
    provenance_dataset,
    run_provenance,
)
from citewise.grounding.prov_terms import (
    DATETIME,
    DEC,
    INT,
    TripleBuilder,
    arguments_json,
    chunk_iri,
    claim_iri,
    doc_iri,
    document_iri,
    int_lit,
    iri_segment,
    run_iri,
    snippet_iri,
    term_a,
    terms_c,
    terms_d,
    terms_p,
)
from citewise.grounding.vocab import CW, GRAPH, PROV
from citewise.triples import Triples

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

class _Run:
    """What the recorder keeps per live run: its IRI, and how much of the ledger it has
    already attributed to a call."""

    __slots__ = ("iri", "seen")

    def __init__(self, run_id: str, seen: int) -> None:
        self.iri = run_iri(run_id)
        self.seen = seen


class ProvenanceRecorder:
    """A :class:`~citewise.agent.hooks.RunHook` that emits PROV-O ``explain`` events.

    It keeps one small record per live run (its IRI, which ledger chunks it has
    attributed), so one recorder may serve many runs; it does no I/O.
    """

    _MAX_RUNS = 4096

    def __init__(self) -> None:
        self._runs: OrderedDict[str, _Run] = OrderedDict()

    def on_start(self, state: RunState, emit: Emitter) -> Sequence[Event]:
        r = self._start(state.run_id, len(state.ledger.context_chunk_ids))
        run = r.iri
        question = f"{run}:question"
        b = TripleBuilder()
        b.a(run, terms_p.Activity, terms_c.Run)
        b.lit(run, terms_p.startedAtTime, state.started_at.isoformat(), DATETIME)
        b.lit(run, terms_c.threadId, state.thread_id)
        if state.model:
            b.lit(run, terms_c.model, state.model)
        b.a(question, terms_p.Entity, terms_c.Question)
        b.lit(question, terms_p.value, state.question)
        b.add(run, terms_p.used, question)
        return [emit.explain(r.iri, b.triples)]

    def on_tool_result(
        self, state: RunState, call: ToolCall, result: ToolResult, duration_ms: float,
        emit: Emitter,
    ) -> Sequence[Event]:
        r = self._run(state)
        run = r.iri
        node = f"{run}:call:{iri_segment(call.id)}"
        out = f"{node}:result"
        chunks = self._chunks_of(state, r, result)
        p, c, a = terms_p, terms_c, term_a
        # One table, not a builder call per triple: this runs for every tool call.
        b = TripleBuilder([
            (node, a, p.Activity), (node, a, c.ToolCall),
            (node, terms_d.isPartOf, run),
            (node, c.tool, (call.name, None)),
            (node, c.step, int_lit(state.step)),
            (node, c.input, (arguments_json(call.arguments), None)),
            (node, c.latencyMs, (f"{duration_ms:.3f}", DEC)),
            (node, c.resultSize, int_lit(len(result.text))),
            (out, a, p.Entity), (out, a, c.ToolResult),
            (out, p.wasGeneratedBy, node),
            (node, c.resultCount, int_lit(len(chunks))),
        ])
        for doc_index, snippet_index, doc in chunks:
            snip = doc.snippets[snippet_index]
            chunk = snippet_iri(r.iri, doc_index, snippet_index, snip)
            document = doc_iri(doc)
            b.a(chunk, terms_p.Entity, terms_c.Chunk)
            b.add(node, terms_p.used, chunk)
            b.add(out, terms_p.hadMember, chunk)
            b.add(chunk, terms_p.wasDerivedFrom, document)
            b.lit(chunk, terms_c.documentIndex, doc_index, INT)
            if snip.source is not None:
                b.lit(chunk, terms_c.startChar, snip.source.start_char, INT)
                b.lit(chunk, terms_c.endChar, snip.source.end_char, INT)
            b.a(document, terms_p.Entity, terms_c.Document)
            b.lit(document, terms_d.source, doc.source)
            title = doc.document.get("title")
            if title:
                b.lit(document, terms_d.title, title)
        return [emit.explain(node, b.triples)]

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        r = self._runs.pop(state.run_id, None) or _Run(state.run_id, 0)
        run = r.iri
        node = node_iri = f"{run}:answer"
        events: list[Event] = []
        q = _query_triples(r, answer)
        if q is not None:
            events.append(emit.explain(f"{r.iri}:query", q))
        b = TripleBuilder()
        b.a(node, terms_p.Entity, terms_c.Answer)
        b.add(node, terms_p.wasGeneratedBy, run)
        b.add(node, terms_p.wasDerivedFrom, f"{run}:question")
        b.lit(node, terms_p.value, answer.text)
        b.lit(node, terms_c.issueCount, len(answer.issues), INT)
        b.lit(run, terms_p.endedAtTime, datetime.now(UTC).isoformat(), DATETIME)
        for c in answer.citations:
            for target in _cited(r, answer, c.document_index, c.snippet_index):
                b.add(node, terms_p.wasDerivedFrom, target)
        claims = [(claim, claim_iri(state.run_id, claim.index)) for claim in answer.claims]
        for claim, cnode in claims:
            if not claim.removed:
                b.add(node, terms_d.hasPart, cnode)
        events.append(emit.explain(node_iri, b.triples))
        for claim, cnode in claims:
            cb = TripleBuilder()
            cb.a(cnode, terms_p.Entity, terms_c.Claim)
            cb.lit(cnode, terms_p.value, claim.text)
            cb.lit(cnode, terms_c.claimIndex, claim.index, INT)
            cb.lit(cnode, terms_c.status, claim.status)
            cb.lit(cnode, terms_c.removed, claim.removed)
            if claim.support is not None:
                cb.lit(cnode, terms_c.support, f"{claim.support:.4f}", DEC)
            for k in claim.citation_indices:
                c = answer.citations[k]
                cit = f"{run}:citation:{k}"
                targets = _cited(r, answer, c.document_index, c.snippet_index)
                for target in targets:
                    cb.add(cnode, terms_p.wasDerivedFrom, target)
                cb.add(cnode, terms_p.qualifiedDerivation, cit)
                cb.a(cit, terms_p.Derivation)
                cb.add(cit, terms_p.entity, targets[0])
                cb.lit(cit, terms_c.citationIndex, k, INT)
                cb.lit(cit, terms_c.documentIndex, c.document_index, INT)
                cb.lit(cit, terms_c.excerpt, c.excerpt)
                if c.start_char is not None and c.end_char is not None:
                    cb.lit(cit, terms_c.startChar, c.start_char, INT)
                    cb.lit(cit, terms_c.endChar, c.end_char, INT)
                if c.support is not None:
                    cb.lit(cit, terms_c.support, f"{c.support:.4f}", DEC)
            events.append(emit.explain(cnode, cb.triples))
        return events

    # -- helpers --------------------------------------------------------------------------

    def _start(self, run_id: str, seen: int) -> _Run:
        r = self._runs[run_id] = _Run(run_id, seen)
        self._runs.move_to_end(run_id)
        while len(self._runs) > self._MAX_RUNS:
            self._runs.popitem(last=False)
        return r

    def _run(self, state: RunState) -> _Run:
        r = self._runs.get(state.run_id)
        return r if r is not None else self._start(state.run_id, 0)

    @staticmethod
    def _chunks_of(state: RunState, r: _Run, result: ToolResult
                   ) -> list[tuple[int, int, SearchDocument]]:
        """The ledger entries this call returned: its new chunks, plus any chunk id named
        in its structured result (a repeated hit is not new to the ledger)."""
        ledger = state.ledger
        ids = ledger.context_chunk_ids[r.seen:]
        r.seen = len(ledger.context_chunk_ids)
        named = _chunk_ids(result.data) if result.data is not None else ()
        for cid in named:
            if cid not in ids:
                ids.append(cid)
        out: list[tuple[int, int, SearchDocument]] = []
        for cid in ids:
            pos = ledger.position(cid)
            if pos is not None:
                out.append((pos[0], pos[1], ledger.documents[pos[0] - 1]))
        return out


def _cited(r: _Run, answer: Answer, doc_index: int, snippet_index: int | None) -> list[str]:
    """The chunk (when known) and the document a citation points at."""
    doc = answer.search_documents[doc_index - 1]
    out: list[str] = []
    if snippet_index is not None and snippet_index < len(doc.snippets):
        out.append(snippet_iri(r.iri, doc_index, snippet_index, doc.snippets[snippet_index]))
    out.append(doc_iri(doc))
    return out


def _query_triples(r: _Run, answer: Answer) -> Triples | None:
    """The query analysis: what was searched for, derived from the question."""
    searched = [str(c.arguments["query"]) for c in answer.tool_calls
                if isinstance(c.arguments.get("query"), str)]
    if answer.query is None and answer.query_details is None and not searched:
        return None
    node = f"{r.iri}:query"
    b = TripleBuilder()
    b.a(node, terms_p.Entity, terms_c.QueryAnalysis)
    b.add(node, terms_p.wasDerivedFrom, f"{r.iri}:question")
    b.add(node, terms_p.wasGeneratedBy, r.iri)
    if answer.query is not None:
        if answer.query.reformulated_query:
            b.lit(node, terms_c.reformulatedQuery, answer.query.reformulated_query)
        for kw in answer.query.keywords:
            b.lit(node, terms_c.keyword, kw)
        if answer.query.query_language:
            b.lit(node, terms_c.queryLanguage, answer.query.query_language)
    details = answer.query_details
    queries = list(details.queries) if details is not None and details.queries else searched
    for text in dict.fromkeys(queries):
        b.lit(node, terms_c.searchQuery, text)
    if details is not None and details.retrieved is not None:
        b.lit(node, terms_c.retrieved, details.retrieved, INT)
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
