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
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
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
from citewise.triples import IRI, Literal_, Triple, iri, lit

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

_SAFE = re.compile(r"[A-Za-z0-9._~-]*")


def _q(value: object) -> str:
    # Ids are ours (hex, ints) but may come from users: keep every IRI well-formed.
    text = str(value)
    return text if _SAFE.fullmatch(text) else quote(text, safe="-._~")


def run_iri(run_id: str) -> str:
    return f"urn:citewise:run:{_q(run_id)}"


def claim_iri(run_id: str, index: int) -> str:
    return f"{run_iri(run_id)}:claim:{index}"


def chunk_iri(chunk_id: int) -> str:
    return f"urn:citewise:chunk:{chunk_id}"


def document_iri(document_id: str) -> str:
    return f"urn:citewise:document:{_q(document_id)}"


def _snippet_iri(run: str, doc_index: int, snippet_index: int, snip: Snippet) -> str:
    if snip.chunk_id is not None:
        return chunk_iri(snip.chunk_id)
    # A tool-made snippet without a chunk id is still a node, scoped to this run.
    return f"{run}:document:{doc_index}:snippet:{snippet_index}"


def _doc_iri(doc: SearchDocument) -> str:
    return document_iri(str(doc.document.get("id", doc.source)))


# -- terms ------------------------------------------------------------------------------
# A step makes a dozen triples; building their terms from strings each time (concatenating
# the namespace, hashing, looking the IRI up) cost more than the triples themselves. The
# vocabulary's terms are made once, a run's own nodes once per node.


class _Vocab:
    """The interned IRI terms of one namespace: ``_P.used`` is ``iri(PROV + "used")``."""

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, name: str) -> IRI:
        term = iri(self._base + name)
        setattr(self, name, term)  # the next lookup is a plain attribute
        return term


_P, _C, _D = _Vocab(PROV), _Vocab(CW), _Vocab(DCT)
_A = iri(RDF_TYPE)
_INT, _DEC, _DATETIME, _BOOL = XSD + "integer", XSD + "decimal", XSD + "dateTime", XSD + "boolean"
# Every triple has all four fields set. One shared set: triples are frozen, so pydantic never
# adds to it, and model_copy copies it before changing it.
_SPOG = {"s", "p", "o", "g"}
_I = {"i"}


def _node(value: str) -> IRI:
    """The IRI term of a node named once or twice in a run (not worth the intern cache)."""
    return trusted(IRI, {"t": "i", "i": value}, _I)


# json.dumps with options builds a new encoder on every call.
_arguments_json = json.JSONEncoder(sort_keys=True, default=str, ensure_ascii=False).encode


@lru_cache(maxsize=1024)
def _int_lit(value: int) -> Literal_:
    # Steps, counts and indexes repeat in every run; their literals are frozen, so shared.
    return lit(value, _INT)


# -- the hook ---------------------------------------------------------------------------


class _Builder:
    """Collects triples for one explain event.

    Triples are built with :func:`~citewise._construct.trusted` from terms made by
    :func:`iri` / :func:`lit` (mypy-checked here): validating each again was most of a
    step's cost.
    """

    __slots__ = ("triples",)

    def __init__(self) -> None:
        self.triples: list[Triple] = []

    def add(self, s: IRI, p: IRI, o: IRI) -> None:
        self.triples.append(trusted(Triple, {"s": s, "p": p, "o": o, "g": GRAPH}, _SPOG))

    def lit(self, s: IRI, p: IRI, value: object, dt: str | None = None) -> None:
        if isinstance(value, bool):
            o = lit("true" if value else "false", _BOOL)
        elif dt is _INT and type(value) is int:
            o = _int_lit(value)
        else:
            o = lit(value, dt)
        self.triples.append(trusted(Triple, {"s": s, "p": p, "o": o, "g": GRAPH}, _SPOG))

    def a(self, s: IRI, *types: IRI) -> None:
        for t in types:
            self.add(s, _A, t)


class _Run:
    """What the recorder keeps per live run: its IRI, and how much of the ledger it has
    already attributed to a call."""

    __slots__ = ("iri", "seen", "term")

    def __init__(self, run_id: str, seen: int) -> None:
        self.iri = run_iri(run_id)
        self.term = _node(self.iri)
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
        run = r.term
        question = _node(f"{r.iri}:question")
        b = _Builder()
        b.a(run, _P.Activity, _C.Run)
        b.lit(run, _P.startedAtTime, state.started_at.isoformat(), _DATETIME)
        b.lit(run, _C.threadId, state.thread_id)
        if state.model:
            b.lit(run, _C.model, state.model)
        b.a(question, _P.Entity, _C.Question)
        b.lit(question, _P.value, state.question)
        b.add(run, _P.used, question)
        return [emit.explain(r.iri, b.triples)]

    def on_tool_result(
        self, state: RunState, call: ToolCall, result: ToolResult, duration_ms: float,
        emit: Emitter,
    ) -> Sequence[Event]:
        r = self._run(state)
        node_iri = f"{r.iri}:call:{_q(call.id)}"
        node, out = _node(node_iri), _node(f"{node_iri}:result")
        b = _Builder()
        b.a(node, _P.Activity, _C.ToolCall)
        b.add(node, _D.isPartOf, r.term)
        b.lit(node, _C.tool, call.name)
        b.lit(node, _C.step, state.step, _INT)
        b.lit(node, _C.input, _arguments_json(call.arguments))
        b.lit(node, _C.latencyMs, f"{duration_ms:.3f}", _DEC)
        b.lit(node, _C.resultSize, len(result.text), _INT)
        b.a(out, _P.Entity, _C.ToolResult)
        b.add(out, _P.wasGeneratedBy, node)
        chunks = self._chunks_of(state, r, result)
        b.lit(node, _C.resultCount, len(chunks), _INT)
        for doc_index, snippet_index, doc in chunks:
            snip = doc.snippets[snippet_index]
            chunk = iri(_snippet_iri(r.iri, doc_index, snippet_index, snip))
            document = iri(_doc_iri(doc))
            b.a(chunk, _P.Entity, _C.Chunk)
            b.add(node, _P.used, chunk)
            b.add(out, _P.hadMember, chunk)
            b.add(chunk, _P.wasDerivedFrom, document)
            b.lit(chunk, _C.documentIndex, doc_index, _INT)
            if snip.source is not None:
                b.lit(chunk, _C.startChar, snip.source.start_char, _INT)
                b.lit(chunk, _C.endChar, snip.source.end_char, _INT)
            b.a(document, _P.Entity, _C.Document)
            b.lit(document, _D.source, doc.source)
            title = doc.document.get("title")
            if title:
                b.lit(document, _D.title, title)
        return [emit.explain(node_iri, b.triples)]

    def on_answer(self, state: RunState, answer: Answer, emit: Emitter) -> Sequence[Event]:
        r = self._runs.pop(state.run_id, None) or _Run(state.run_id, 0)
        run = r.term
        node_iri = f"{r.iri}:answer"
        node = _node(node_iri)
        events: list[Event] = []
        q = _query_triples(r, answer)
        if q:
            events.append(emit.explain(f"{r.iri}:query", q))
        b = _Builder()
        b.a(node, _P.Entity, _C.Answer)
        b.add(node, _P.wasGeneratedBy, run)
        b.add(node, _P.wasDerivedFrom, _node(f"{r.iri}:question"))
        b.lit(node, _P.value, answer.text)
        b.lit(node, _C.issueCount, len(answer.issues), _INT)
        b.lit(run, _P.endedAtTime, datetime.now(UTC).isoformat(), _DATETIME)
        for c in answer.citations:
            for target in _cited(r, answer, c.document_index, c.snippet_index):
                b.add(node, _P.wasDerivedFrom, target)
        claims = [(claim, _node(claim_iri(state.run_id, claim.index))) for claim in answer.claims]
        for claim, cnode in claims:
            if not claim.removed:
                b.add(node, _D.hasPart, cnode)
        events.append(emit.explain(node_iri, b.triples))
        for claim, cnode in claims:
            cb = _Builder()
            cb.a(cnode, _P.Entity, _C.Claim)
            cb.lit(cnode, _P.value, claim.text)
            cb.lit(cnode, _C.claimIndex, claim.index, _INT)
            cb.lit(cnode, _C.status, claim.status)
            cb.lit(cnode, _C.removed, claim.removed)
            if claim.support is not None:
                cb.lit(cnode, _C.support, f"{claim.support:.4f}", _DEC)
            for k in claim.citation_indices:
                c = answer.citations[k]
                cit = _node(f"{r.iri}:citation:{k}")
                targets = _cited(r, answer, c.document_index, c.snippet_index)
                for target in targets:
                    cb.add(cnode, _P.wasDerivedFrom, target)
                cb.add(cnode, _P.qualifiedDerivation, cit)
                cb.a(cit, _P.Derivation)
                cb.add(cit, _P.entity, targets[0])
                cb.lit(cit, _C.citationIndex, k, _INT)
                cb.lit(cit, _C.documentIndex, c.document_index, _INT)
                cb.lit(cit, _C.excerpt, c.excerpt)
                if c.start_char is not None and c.end_char is not None:
                    cb.lit(cit, _C.startChar, c.start_char, _INT)
                    cb.lit(cit, _C.endChar, c.end_char, _INT)
                if c.support is not None:
                    cb.lit(cit, _C.support, f"{c.support:.4f}", _DEC)
            events.append(emit.explain(cnode.i, cb.triples))
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


def _cited(r: _Run, answer: Answer, doc_index: int, snippet_index: int | None) -> list[IRI]:
    """The chunk (when known) and the document a citation points at."""
    doc = answer.search_documents[doc_index - 1]
    out: list[IRI] = []
    if snippet_index is not None and snippet_index < len(doc.snippets):
        out.append(iri(_snippet_iri(r.iri, doc_index, snippet_index,
                                    doc.snippets[snippet_index])))
    out.append(iri(_doc_iri(doc)))
    return out


def _query_triples(r: _Run, answer: Answer) -> list[Triple]:
    """The query analysis: what was searched for, derived from the question."""
    searched = [str(c.arguments["query"]) for c in answer.tool_calls
                if isinstance(c.arguments.get("query"), str)]
    if answer.query is None and answer.query_details is None and not searched:
        return []
    node = _node(f"{r.iri}:query")
    b = _Builder()
    b.a(node, _P.Entity, _C.QueryAnalysis)
    b.add(node, _P.wasDerivedFrom, _node(f"{r.iri}:question"))
    b.add(node, _P.wasGeneratedBy, r.term)
    if answer.query is not None:
        if answer.query.reformulated_query:
            b.lit(node, _C.reformulatedQuery, answer.query.reformulated_query)
        for kw in answer.query.keywords:
            b.lit(node, _C.keyword, kw)
        if answer.query.query_language:
            b.lit(node, _C.queryLanguage, answer.query.query_language)
    details = answer.query_details
    queries = list(details.queries) if details is not None and details.queries else searched
    for text in dict.fromkeys(queries):
        b.lit(node, _C.searchQuery, text)
    if details is not None and details.retrieved is not None:
        b.lit(node, _C.retrieved, details.retrieved, _INT)
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
