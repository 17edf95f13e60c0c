"""The terms of citewise's provenance: node IRIs, the vocabulary as interned terms, and
the builder that turns them into triples (see :mod:`citewise.grounding.provenance`)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from urllib.parse import quote

from citewise._construct import trusted
from citewise.answer import SearchDocument, Snippet
from citewise.grounding.vocab import CW, DCT, GRAPH, PROV, RDF_TYPE, XSD
from citewise.triples import IRI, Literal_, Triple, fresh_iri, iri, lit

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
    "node_term",
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
# A step makes a dozen triples; building their terms from strings each time (concatenating
# the namespace, hashing, looking the IRI up) cost more than the triples themselves. The
# vocabulary's terms are made once, a run's own nodes once per node.


class _Vocab:
    """The interned IRI terms of one namespace: ``terms_p.used`` is ``iri(PROV + "used")``."""

    def __init__(self, base: str) -> None:
        self._base = base

    def __getattr__(self, name: str) -> IRI:
        term = iri(self._base + name)
        setattr(self, name, term)  # the next lookup is a plain attribute
        return term


terms_p, terms_c, terms_d = _Vocab(PROV), _Vocab(CW), _Vocab(DCT)
term_a = iri(RDF_TYPE)
INT, DEC, DATETIME, BOOL = XSD + "integer", XSD + "decimal", XSD + "dateTime", XSD + "boolean"
# Every triple has all four fields set. One shared set: triples are frozen, so pydantic never
# adds to it, and model_copy copies it before changing it.
_SPOG = {"s", "p", "o", "g"}
#: The IRI term of a node named once or twice in a run (not worth the intern cache).
node_term = fresh_iri


# json.dumps with options builds a new encoder on every call.
arguments_json = json.JSONEncoder(sort_keys=True, default=str, ensure_ascii=False).encode


@lru_cache(maxsize=1024)
def int_lit(value: int) -> Literal_:
    # Steps, counts and indexes repeat in every run; their literals are frozen, so shared.
    return lit(value, INT)


# -- the hook ---------------------------------------------------------------------------


class TripleBuilder:
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
            o = lit("true" if value else "false", BOOL)
        elif dt is INT and type(value) is int:
            o = int_lit(value)
        else:
            o = lit(value, dt)
        self.triples.append(trusted(Triple, {"s": s, "p": p, "o": o, "g": GRAPH}, _SPOG))

    def a(self, s: IRI, *types: IRI) -> None:
        for t in types:
            self.add(s, term_a, t)
