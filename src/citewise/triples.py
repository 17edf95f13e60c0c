"""RDF terms and triples in TrustGraph's wire format (``../shared/seeds/reference/Triple.yaml``).

An IRI is ``{"t": "i", "i": "urn:…"}``, a literal ``{"t": "l", "v": "…"}`` (optionally with a
datatype ``dt`` or language ``lang``); ``g`` names the graph, absent for the default graph.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from citewise._construct import trusted

__all__ = ["IRI", "Literal_", "Term", "Triple", "fresh_iri", "iri", "lit", "triple"]


class IRI(BaseModel):
    """An IRI term."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    t: Literal["i"] = Field(default="i", description="Term type: IRI.")
    i: str = Field(description="The IRI.")


class Literal_(BaseModel):
    """A literal term."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    t: Literal["l"] = Field(default="l", description="Term type: literal.")
    v: str = Field(description="The lexical value.")
    dt: str | None = Field(default=None, description="Datatype IRI (e.g. xsd:integer), if typed.")
    lang: str | None = Field(default=None, description="Language tag, if any.")


Term = Annotated[IRI | Literal_, Field(discriminator="t")]


class Triple(BaseModel):
    """One subject-predicate-object statement, optionally in a named graph."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    s: Term = Field(description="Subject.")
    p: Term = Field(description="Predicate.")
    o: Term = Field(description="Object.")
    g: str | None = Field(default=None, description="Named graph IRI; absent = default graph.")


_TERMS = frozenset({IRI, Literal_})
# Fields-sets shared by every term of a kind: terms are frozen, so pydantic never adds to
# them (and model_copy copies before it changes one).
_I, _V, _V_DT = {"i"}, {"v"}, {"v", "dt"}


@lru_cache(maxsize=8192)
def iri(value: str) -> IRI:
    """The IRI term ``value`` (interned: terms are frozen, and a run names the same
    predicates, classes and nodes over and over)."""
    return fresh_iri(value)


def fresh_iri(value: str) -> IRI:
    """The IRI term ``value``, not interned: for a node named once or twice (a run's own
    nodes), which would only push reusable terms out of :func:`iri`'s cache."""
    if not isinstance(value, str):
        raise TypeError(f"an IRI is a string, not {type(value).__name__}")
    return trusted(IRI, {"t": "i", "i": value}, _I)


def lit(value: object, dt: str | None = None) -> Literal_:
    """A literal of ``str(value)``, typed by the datatype IRI ``dt`` when given."""
    if dt is not None and not isinstance(dt, str):
        raise TypeError(f"a datatype is an IRI string, not {type(dt).__name__}")
    return trusted(Literal_, {"t": "l", "v": str(value), "dt": dt, "lang": None},
                   _V_DT if dt is not None else _V)


def triple(s: IRI | Literal_, p: IRI, o: IRI | Literal_, g: str | None = None) -> Triple:
    """The triple ``(s, p, o)`` in graph ``g`` from terms made by :func:`iri` / :func:`lit`
    (or validated ones)."""
    if type(s) not in _TERMS or type(p) is not IRI or type(o) not in _TERMS:
        raise TypeError("a triple's terms are IRI or Literal_ (its predicate an IRI)")
    return trusted(Triple, {"s": s, "p": p, "o": o, "g": g},
                  {"s", "p", "o", "g"} if g is not None else {"s", "p", "o"})
