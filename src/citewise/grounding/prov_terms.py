"""The terms of citewise's provenance: node IRIs, the vocabulary, and the builder that
turns them into an explain event's triples (see :mod:`citewise.grounding.provenance`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from pydantic_core import to_json

from citewise.answer import SearchDocument, Snippet
from citewise.grounding.vocab import CW, DCT, GRAPH, PROV, RDF_TYPE, XSD
from citewise.triples import Lit, Row, Triples

__all__ = [
    "BOOL",
    "DATETIME",
    "DEC",
    "INT",
    "TripleBuilder",
    "arguments_json",
    "chunk_iri",
    "claim_iri",
    "doc_iri",
    "document_iri",
    "int_lit",
    "iri_segment",
    "run_iri",
    "snippet_iri",
    "term_a",
    "terms_c",
    "terms_d",
    "terms_p",
]

# -- IRIs -------------------------------------------------------------------------------

_SAFE = re.compile(r"[A-Za-z0-9._~-]*")


def iri_segment(value: object) -> str:
    # Ids are ours (hex, ints) but may come from users: keep every IRI well-formed.
    text = str(value)
    return text if _SAFE.fullmatch(text) else quote(text, safe="-._~")


def run_iri(run_id: str) -> str:
    return f"urn:citewise:run:{iri_segment(run_id)}"


def claim_iri(run_id: str, index: int) -> str:
    return f"{run_iri(run_id)}:claim:{index}"


def chunk_iri(chunk_id: int) -> str:
    return f"urn:citewise:chunk:{chunk_id}"


def document_iri(document_id: str) -> str:
    return f"urn:citewise:document:{iri_segment(document_id)}"


def snippet_iri(run: str, doc_index: int, snippet_index: int, snip: Snippet) -> str:
    if snip.chunk_id is not None:
        return chunk_iri(snip.chunk_id)
    # A tool-made snippet without a chunk id is still a node, scoped to this run.
    return f"{run}:document:{doc_index}:snippet:{snippet_index}"


def doc_iri(doc: SearchDocument) -> str:
    return document_iri(str(doc.document.get("id", doc.source)))


# -- terms ------------------------------------------------------------------------------
# A builder writes rows of plain strings (see citewise.triples.Triples): a step makes a
# dozen triples, and making term and triple objects for each was most of a step's cost.


class _Vocab:
    """The IRIs of one namespace: ``terms_p.used`` is ``PROV + "used"``, joined once."""

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, name: str) -> str:
        value = self._base + name
        setattr(self, name, value)  # the next lookup is a plain attribute
        return value


terms_p, terms_c, terms_d = _Vocab(PROV), _Vocab(CW), _Vocab(DCT)
term_a = RDF_TYPE
INT, DEC, DATETIME, BOOL = XSD + "integer", XSD + "decimal", XSD + "dateTime", XSD + "boolean"
_TRUE: Lit = ("true", BOOL)
_FALSE: Lit = ("false", BOOL)


def arguments_json(arguments: Mapping[str, Any]) -> str:
    """A call's arguments as compact JSON, top-level keys sorted (equal calls, equal
    literals); pydantic-core's encoder, a quarter of ``json.dumps``' cost here."""
    if len(arguments) > 1:
        arguments = dict(sorted(arguments.items()))
    return to_json(arguments, fallback=str).decode()


@lru_cache(maxsize=1024)
def int_lit(value: int) -> Lit:
    # Steps, counts and indexes repeat in every run.
    return (str(value), INT)


# -- the hook ---------------------------------------------------------------------------


class TripleBuilder:
    """Collects the rows of one explain event's triples (all in ``urn:graph:retrieval``)."""

    __slots__ = ("rows",)

    def __init__(self, rows: list[Row] | None = None) -> None:
        self.rows: list[Row] = [] if rows is None else rows

    def add(self, s: str, p: str, o: str) -> None:
        """The triple ``s p o`` whose object is the IRI ``o``."""
        self.rows.append((s, p, o))

    def lit(self, s: str, p: str, value: object, dt: str | None = None) -> None:
        """The triple ``s p "value"`` (typed ``dt``; a bool is always ``xsd:boolean``)."""
        o: Lit
        if isinstance(value, bool):
            o = _TRUE if value else _FALSE
        elif dt is INT and type(value) is int:
            o = int_lit(value)
        else:
            o = (str(value), dt)
        self.rows.append((s, p, o))

    def a(self, s: str, *types: str) -> None:
        for t in types:
            self.rows.append((s, term_a, t))

    @property
    def triples(self) -> Triples:
        return Triples.from_rows(self.rows, GRAPH)
