"""Provenance: a run's explain events are PROV-O, export to Turtle/JSON-LD and answer SPARQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, URIRef

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.errors import InvalidInput, NotFound
from citewise.events import Event, Explain
from citewise.grounding.provenance import (
    GRAPH,
    ProvenanceRecorder,
    claim_iri,
    export_provenance,
    provenance_dataset,
    run_provenance,
)
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import UserMessage
from citewise.models.scripted import ScriptedModel, call

DOCS = {
    "doc-a": "Tea was first drunk in China. It reached Europe in the 17th century.",
    "doc-b": "Coffee plants grow best at high altitude. Arabica needs cool nights.",
}

PREFIXES = """
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX cw: <urn:citewise:vocab#>
PREFIX dcterms: <http://purl.org/dc/terms/>
"""
# "Which documents does claim 1 derive from?" (claims are numbered from 0: this is the
# answer's second sentence)
CLAIM_DOCS = PREFIXES + """
SELECT ?source WHERE {
  <CLAIM> prov:wasDerivedFrom ?doc .
  ?doc a cw:Document ; dcterms:source ?source .
}"""


# rdflib 7.x's JSON-LD parser calls Dataset APIs rdflib itself has deprecated.
RDFLIB_INTERNALS = pytest.mark.filterwarnings("ignore::DeprecationWarning:rdflib.*")


@tool
def search(ctx: RunContext, query: str) -> ToolResult:
    """Search.

    Args:
        query: what to look for
    """
    hits = [
        Hit(chunk_id=100 + i, document_id=doc_id, source=f"/kb/{doc_id}.txt", text=text,
            start_char=0, end_char=len(text), field_length=len(text), score=1.0 - i / 10,
            title=doc_id.upper())
        for i, (doc_id, text) in enumerate(DOCS.items())
    ]
    ctx.ledger.add(hits)
    return ToolResult(text="two passages", data={"results": [{"chunk_id": 100}]})


ANSWER = ("Tea was first drunk in China [1]. Arabica needs cool nights [2]. "
          "Tea reached Europe in the 17th century [1].")


def run_events(run_id: str = "run_p") -> list[Event]:
    model = ScriptedModel([call("search", query="tea and coffee"), ANSWER])
    state = RunState(run_id=run_id, thread_id="thr_p", question="Where do tea and coffee "
                     "come from?", messages=[UserMessage(content="Where …?")])

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=Toolset([search]),
                                           settings=RunSettings(),
                                           hooks=[ProvenanceRecorder()])]

    return asyncio.run(go())


def select(graph: Graph | Dataset, query: str, claim: str = "") -> list[tuple[str, ...]]:
    """Run a SPARQL SELECT (``CLAIM`` stands for the claim IRI); rows as strings."""
    rows = graph.query(PREFIXES + query.replace("CLAIM", claim))
    return [tuple(str(term) for term in row) for row in rows]  # type: ignore[union-attr]


def documents_of_claim(graph: Graph | Dataset, run_id: str, index: int) -> set[str]:
    return {row[0] for row in select(graph, CLAIM_DOCS, claim_iri(run_id, index))}


def test_explain_events_are_inline_prov_triples() -> None:
    events = run_events()
    explains = [e for e in events if isinstance(e, Explain)]
    ids = [e.explain_id for e in explains]
    assert ids[0] == "urn:citewise:run:run_p"
    assert "urn:citewise:run:run_p:call:" in ids[1]
    assert ids[2:] == ["urn:citewise:run:run_p:query", "urn:citewise:run:run_p:answer",
                       *(claim_iri("run_p", i) for i in range(3))]
    for e in explains:
        assert e.graph == GRAPH and e.triples
        assert all(t.g == GRAPH for t in e.triples)
    # TrustGraph's term format on the wire
    wire = explains[0].model_dump(mode="json")["triples"][0]
    assert wire["s"] == {"t": "i", "i": "urn:citewise:run:run_p"}
    assert set(wire) == {"s", "p", "o", "g"}
    # explain events come before the citations and the terminal event
    kinds = [e.kind for e in events]
    assert kinds.index("explain") < kinds.index("action")
    assert max(i for i, k in enumerate(kinds) if k == "explain") < kinds.index("citation")


def test_turtle_export_answers_which_documents_claim_1_derives_from() -> None:
    events = run_events()
    turtle = export_provenance(events, "turtle")
    g = Graph().parse(data=turtle, format="turtle")
    assert documents_of_claim(g, "run_p", 1) == {"/kb/doc-b.txt"}
    assert documents_of_claim(g, "run_p", 0) == {"/kb/doc-a.txt"}
    # claim → chunk → document, and the tool call that retrieved the chunk
    rows = select(g, """
        SELECT ?chunk ?doc ?latency ?size ?input WHERE {
          <CLAIM> prov:wasDerivedFrom ?chunk .
          ?chunk a cw:Chunk ; prov:wasDerivedFrom ?doc .
          ?call prov:used ?chunk ; cw:latencyMs ?latency ; cw:resultSize ?size ;
                cw:input ?input .
        }""", claim_iri("run_p", 1))
    assert len(rows) == 1
    chunk, doc, latency, size, tool_input = rows[0]
    assert chunk == "urn:citewise:chunk:101"
    assert doc == "urn:citewise:document:doc-b"
    assert float(latency) >= 0 and int(size) == len("two passages")
    assert json.loads(tool_input) == {"query": "tea and coffee"}
    # the citation's excerpt, qualified
    excerpts = select(g, """SELECT ?excerpt WHERE {
        <CLAIM> prov:qualifiedDerivation ?d . ?d cw:excerpt ?excerpt }""",
                      claim_iri("run_p", 2))
    # "It reached Europe…" needs the sentence before it to say what "it" is
    assert excerpts == [(DOCS["doc-a"],)]
    # the answer derives from both documents and from the question
    derived = {r[0] for r in select(g, """
        SELECT ?x WHERE { <urn:citewise:run:run_p:answer> prov:wasDerivedFrom ?x }""")}
    assert {"urn:citewise:document:doc-a", "urn:citewise:document:doc-b",
            "urn:citewise:run:run_p:question"} <= derived


@RDFLIB_INTERNALS
def test_json_ld_keeps_the_named_graph_and_matches_turtle() -> None:
    events = run_events()
    ds = Dataset()
    ds.parse(data=export_provenance(events, "json-ld"), format="json-ld")
    graph = ds.graph(URIRef(GRAPH))
    assert len(graph) > 0
    assert documents_of_claim(graph, "run_p", 1) == {"/kb/doc-b.txt"}
    turtle = Graph().parse(data=export_provenance(events, "turtle"), format="turtle")
    assert len(graph) == len(turtle)


def test_stored_events_export_like_live_ones() -> None:
    events = run_events()
    stored = [json.loads(e.model_dump_json()) for e in events]
    live = provenance_dataset(events)
    again = provenance_dataset(stored)
    assert set(live.quads()) == set(again.quads())
    with pytest.raises(InvalidInput) as err:
        export_provenance(events, "rdf/xml")
    assert err.value.code == "unknown_format"
    with pytest.raises(InvalidInput):
        export_provenance([42])


@RDFLIB_INTERNALS
def test_provenance_of_a_stored_run(tmp_path: Path) -> None:
    from citewise.agent.runner import Agent
    from citewise.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "citewise.db")
    try:
        agent = Agent(model=ScriptedModel([call("search", query="tea"), ANSWER]),
                      tools=[search], store=store, hooks=[ProvenanceRecorder()])
        answer = agent.ask("Where does tea come from?")
        turtle = run_provenance(store, "default", answer.run_id, "turtle")
        g = Graph().parse(data=turtle, format="turtle")
        assert documents_of_claim(g, answer.run_id, 1) == {"/kb/doc-b.txt"}
        ds = Dataset()
        ds.parse(data=run_provenance(store, "default", answer.run_id, "json-ld"),
                 format="json-ld")
        assert documents_of_claim(ds.graph(URIRef(GRAPH)), answer.run_id, 0) == {
            "/kb/doc-a.txt"}
        with pytest.raises(NotFound):
            run_provenance(store, "other-tenant", answer.run_id)
    finally:
        store.close()
