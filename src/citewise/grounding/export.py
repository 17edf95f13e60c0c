"""Export a run's provenance (its ``explain`` events) with rdflib.

Formats: Turtle (the union of all graphs: Turtle has no named graphs, and every citewise
triple is in ``urn:graph:retrieval`` anyway), JSON-LD, TriG and N-Quads (graph names kept).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from citewise.errors import InvalidInput, NotFound
from citewise.events import Explain
from citewise.grounding.vocab import PREFIXES
from citewise.triples import IRI, Literal_, Triple

if TYPE_CHECKING:
    from rdflib import Dataset, URIRef

    from citewise.store.base import Store

__all__ = [
    "ExportFormat",
    "export_provenance",
    "parse_provenance",
    "provenance_dataset",
    "run_provenance",
]

ExportFormat = Literal["turtle", "json-ld", "trig", "nquads"]
_FORMATS: dict[str, str] = {"turtle": "turtle", "ttl": "turtle", "json-ld": "json-ld",
                            "jsonld": "json-ld", "trig": "trig", "nquads": "nquads"}
_PREFIXES = PREFIXES


def _triples_of(items: Iterable[Any]) -> Iterable[Triple]:
    for item in items:
        if isinstance(item, Triple):
            yield item
            continue
        if isinstance(item, Explain):
            yield from _in_graph(item)
            continue
        data = getattr(item, "data", None)
        kind = getattr(item, "kind", None)
        if isinstance(data, Mapping) and isinstance(kind, str):  # a stored EventRecord
            item = data
        elif isinstance(kind, str):  # another event object
            continue
        if not isinstance(item, Mapping):
            raise InvalidInput(f"not an explain event or a triple: {type(item).__name__}",
                               code="invalid_provenance_input")
        if "kind" in item:
            if item["kind"] == "explain":
                yield from _in_graph(Explain.model_validate(item))
            continue
        yield Triple.model_validate(item)


def _in_graph(event: Explain) -> Iterable[Triple]:
    for t in event.triples:
        yield t if t.g is not None else t.model_copy(update={"g": event.graph})


def provenance_dataset(items: Iterable[Any]) -> Dataset:
    """An rdflib ``Dataset`` (named graphs kept) of the explain events or triples given.

    ``items`` may mix :class:`~citewise.events.Explain` events, stored events (dicts or
    ``EventRecord``), :class:`~citewise.triples.Triple` objects and their dicts; other
    events are skipped, so a run's whole event log can be passed as is.
    """
    from rdflib import Dataset, Literal, URIRef

    ds = Dataset(default_union=True)
    for prefix, ns in _PREFIXES.items():
        ds.bind(prefix, ns)
    for t in _triples_of(items):
        graph = ds.graph(URIRef(t.g)) if t.g else ds.default_graph
        obj: URIRef | Literal
        if t.o.t == "i":
            obj = URIRef(t.o.i)
        else:
            obj = Literal(t.o.v, lang=t.o.lang, datatype=URIRef(t.o.dt) if t.o.dt else None)
        graph.add((_iri_of(t.s), _iri_of(t.p), obj))
    return ds


def _iri_of(term: IRI | Literal_) -> URIRef:
    from rdflib import URIRef

    if term.t != "i":
        raise InvalidInput("a subject or predicate must be an IRI",
                           code="invalid_provenance_input", details={"term": term.v})
    return URIRef(term.i)


def export_provenance(items: Iterable[Any], format: str = "turtle") -> str:
    """Serialize provenance as ``turtle``, ``json-ld``, ``trig`` or ``nquads``.

    Turtle has no named graphs, so it holds the union of all graphs (every citewise triple
    is in ``urn:graph:retrieval`` anyway); JSON-LD, TriG and N-Quads keep the graph names.
    """
    fmt = _FORMATS.get(format.lower())
    if fmt is None:
        raise InvalidInput(f"unknown provenance format {format!r}; use one of "
                           "turtle, json-ld, trig, nquads", code="unknown_format",
                           details={"format": format})
    ds = provenance_dataset(items)
    with _quiet_rdflib():
        if fmt == "turtle":
            from rdflib import Graph

            g = Graph()
            for prefix, ns in _PREFIXES.items():
                g.bind(prefix, ns)
            for named in ds.graphs():
                for triple in named:
                    g.add(triple)
            return g.serialize(format="turtle")
        if fmt == "json-ld":
            return ds.serialize(format="json-ld", context=dict(_PREFIXES), auto_compact=True)
        return ds.serialize(format=fmt)


def parse_provenance(data: str, format: str = "turtle") -> Dataset:
    """Parse exported provenance back into an rdflib ``Dataset`` (for queries and tests)."""
    from rdflib import Dataset

    fmt = _FORMATS.get(format.lower())
    if fmt is None:
        raise InvalidInput(f"unknown provenance format {format!r}", code="unknown_format")
    ds = Dataset(default_union=True)
    with _quiet_rdflib():
        ds.parse(data=data, format=fmt)
    return ds


@contextmanager
def _quiet_rdflib() -> Iterator[None]:
    # rdflib 7.x's own JSON-LD/TriG/N-Quads plugins call Dataset APIs it has deprecated;
    # those warnings are about rdflib's internals, not our use (which stays checked).
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"rdflib(\.|$)")
        yield


def run_provenance(store: Store, tenant: str, run_id: str, format: str = "turtle") -> str:
    """The stored run's provenance (its explain events) as ``format``; ``citewise explain``."""
    if store.get_run(tenant, run_id) is None:
        raise NotFound(f"unknown run {run_id!r}", code="unknown_run")
    records = []
    after = 0
    while True:
        page = store.read_events(tenant, run_id, after=after, limit=1000)
        records.extend(page)
        if len(page) < 1000:
            break
        after = page[-1].seq
    return export_provenance(records, format)
