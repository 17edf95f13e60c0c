"""An explain event's triples kept as rows (``Triples.from_rows``) read, compare and
serialise exactly as the same triples held as objects: the rows are a cost saving only."""

from __future__ import annotations

import copy
import json
import pickle
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic_core import PydanticSerializationError, to_json
from tests.test_provenance import run_events

from citewise.dialects.trustgraph import triple_json, triples_json
from citewise.events import Explain, event_adapter, event_json
from citewise.grounding.prov_terms import TripleBuilder
from citewise.triples import IRI, Literal_, Triple, Triples, iri, lit, triple

XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
GRAPH = "urn:graph:retrieval"
TS = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _rows_and_objects() -> tuple[Triples, list[Triple]]:
    b = TripleBuilder()
    b.a("urn:n", "urn:Class", "urn:Other")
    b.add("urn:n", "urn:p", "urn:o")
    b.lit("urn:n", "urn:count", 3, XSD_INT)
    b.lit("urn:n", "urn:flag", False)
    b.lit("urn:n", "urn:text", "ünïcode \"quoted\"\n")
    objects = [
        triple(iri("urn:n"), iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
               iri("urn:Class"), GRAPH),
        triple(iri("urn:n"), iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
               iri("urn:Other"), GRAPH),
        triple(iri("urn:n"), iri("urn:p"), iri("urn:o"), GRAPH),
        triple(iri("urn:n"), iri("urn:count"), lit(3, XSD_INT), GRAPH),
        triple(iri("urn:n"), iri("urn:flag"),
               lit("false", "http://www.w3.org/2001/XMLSchema#boolean"), GRAPH),
        triple(iri("urn:n"), iri("urn:text"), lit("ünïcode \"quoted\"\n"), GRAPH),
    ]
    return b.triples, objects


def _event(triples: Triples | list[Triple]) -> Explain:
    return Explain.model_validate({"run_id": "r", "thread_id": "t", "seq": 1, "ts": TS,
                                   "explain_id": "urn:n", "triples": triples})


def test_rows_read_as_the_triples_they_stand_for() -> None:
    rows, objects = _rows_and_objects()
    assert len(rows) == len(objects) and rows._items is None  # len does not build them
    assert rows == objects and rows == Triples(objects) and list(rows) == objects
    assert rows[3] == objects[3] and rows[-2:] == objects[-2:]
    assert all(isinstance(t, Triple) for t in rows)
    assert rows[3].o == Literal_(v="3", dt=XSD_INT)
    assert rows[3].o.model_fields_set == objects[3].o.model_fields_set
    assert rows[0].s == IRI(i="urn:n")
    assert rows != objects[:-1] and rows != Triples(objects[:-1])


def test_rows_serialise_exactly_as_objects() -> None:
    rows, objects = _rows_and_objects()
    by_rows, by_objects = _event(rows), _event(objects)
    assert isinstance(by_objects.triples, Triples) and by_rows == by_objects
    assert by_rows.model_dump_json() == by_objects.model_dump_json()
    for options in ({}, {"mode": "json"}, {"exclude_none": True},
                    {"mode": "json", "exclude_none": True}, {"exclude_unset": True},
                    {"exclude_defaults": True}, {"by_alias": True}):
        kwargs: dict[str, Any] = options
        assert by_rows.model_dump(**kwargs) == by_objects.model_dump(**kwargs), options
    # What the dialects use, equal to dumping each triple.
    for exclude_none in (False, True):
        assert rows.dump(exclude_none=exclude_none) == [
            t.model_dump(mode="json", exclude_none=exclude_none) for t in objects]
    assert triples_json(rows) == [triple_json(t) for t in objects]


def test_serialising_does_not_build_the_objects() -> None:
    rows, _ = _rows_and_objects()
    _event(rows).model_dump_json()
    rows.dump(exclude_none=True)
    assert rows._items is None


def test_rows_survive_the_wire_and_copies() -> None:
    rows, objects = _rows_and_objects()
    ev = _event(rows)
    again = event_adapter.validate_json(ev.model_dump_json())
    assert isinstance(again, Explain) and again == ev and again.triples == objects
    assert Explain.model_validate(json.loads(ev.model_dump_json())) == ev
    assert pickle.loads(pickle.dumps(ev)) == ev
    assert copy.deepcopy(ev) == ev and ev.model_copy(deep=True) == ev
    assert repr(_rows_and_objects()[0]).startswith("Triples.from_rows([('urn:n', ")
    assert repr(Triples(objects)).startswith("Triples([Triple(")


def test_the_json_of_rows_is_pydantics_byte_for_byte() -> None:
    b = TripleBuilder()
    awkward = 'quote " backslash \\ newline \n tab \t nul \x00 bell \x07 del \x7f é 中 \u2028 😀'
    b.lit("urn:n", "urn:text", awkward)
    b.add("urn:n:ü", "urn:p", 'urn:o"')
    b.lit("urn:n", "urn:count", 7, XSD_INT)
    rows = b.triples
    assert rows.to_json() == to_json(list(b.triples)).decode()
    in_no_graph = Triples.from_rows(list(b.rows), None)
    assert in_no_graph.to_json() == to_json(list(Triples.from_rows(list(b.rows), None))).decode()
    assert Triples().to_json() == "[]" == Triples.from_rows([], GRAPH).to_json()
    objects = Triples(list(rows))
    assert objects.to_json() == rows.to_json()


def test_a_lone_surrogate_fails_as_pydantic_fails() -> None:
    b = TripleBuilder()
    b.lit("urn:n", "urn:text", "broken \ud800 text")
    with pytest.raises(PydanticSerializationError):
        b.triples.to_json()
    with pytest.raises(PydanticSerializationError):
        event_json(_event(b.triples))


def test_event_json_is_model_dump_json_made_once() -> None:
    events = run_events()
    for ev in events:
        text = event_json(ev)
        assert text == ev.model_dump_json()
        assert event_json(ev) is text  # the service's second write of the same event
    first = events[0]
    twin = first.model_copy()
    assert event_json(twin) == event_json(first)
    twin.seq = 99  # another object: never the remembered text of the first
    assert json.loads(event_json(twin))["seq"] == 99


def test_a_language_tag_keeps_its_trustgraph_key() -> None:
    tagged = Triple(s=IRI(i="urn:a"), p=IRI(i="urn:p"), o=Literal_(v="thé", lang="fr"))
    assert triples_json(Triples([tagged])) == [triple_json(tagged)]
    assert triples_json(Triples([tagged]))[0]["o"] == {"t": "l", "v": "thé", "ln": "fr"}


def test_bad_triples_are_still_refused() -> None:
    with pytest.raises(ValueError, match="triples"):
        Explain.model_validate({"run_id": "r", "thread_id": "t", "explain_id": "x",
                                "triples": [{"s": {"t": "i", "i": "urn:a"}}]})
    with pytest.raises(ValueError, match="triples"):
        Explain.model_validate({"run_id": "r", "thread_id": "t", "explain_id": "x",
                                "triples": "not a list"})


def test_every_explain_of_a_run_serialises_as_its_objects() -> None:
    explains = [e for e in run_events() if isinstance(e, Explain)]
    assert len(explains) >= 4
    assert all(e.triples._items is None for e in explains)  # from the recorder: still rows
    dumped = [e.model_dump_json() for e in explains]
    trustgraph = [triples_json(e.triples) for e in explains]
    for ev, text, tg in zip(explains, dumped, trustgraph, strict=True):
        objects = list(ev.triples)  # built now
        assert text == ev.model_copy(update={"triples": Triples(objects)}).model_dump_json()
        assert tg == [triple_json(t) for t in objects]
    kinds = {str(t.p.model_dump()["i"]).rsplit("#", 1)[-1] for e in explains for t in e.triples}
    assert {"startChar", "input", "latencyMs", "excerpt"} <= kinds  # chunks, calls, claims
