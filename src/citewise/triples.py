"""RDF terms and triples in TrustGraph's wire format (``../shared/seeds/reference/Triple.yaml``).

An IRI is ``{"t": "i", "i": "urn:…"}``, a literal ``{"t": "l", "v": "…"}`` (optionally with a
datatype ``dt`` or language ``lang``); ``g`` names the graph, absent for the default graph.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["IRI", "Literal_", "Term", "Triple", "iri", "lit"]


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


def iri(value: str) -> IRI:
    return IRI(i=value)


def lit(value: object, dt: str | None = None) -> Literal_:
    return Literal_(v=str(value), dt=dt)
