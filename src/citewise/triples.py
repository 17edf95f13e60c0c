"""RDF terms and triples in TrustGraph's wire format (``../shared/seeds/reference/Triple.yaml``).

An IRI is ``{"t": "i", "i": "urn:…"}``, a literal ``{"t": "l", "v": "…"}`` (optionally with a
datatype ``dt`` or language ``lang``); ``g`` names the graph, absent for the default graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from json.encoder import encode_basestring as _encode_str
from typing import Annotated, Any, Literal, overload

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, SerializationInfo
from pydantic_core import core_schema, to_json

from citewise._construct import trusted

__all__ = ["IRI", "Lit", "Literal_", "Row", "Term", "Triple", "Triples", "fresh_iri", "iri",
           "lit", "triple"]


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


# -- an explain event's triples ---------------------------------------------------------

#: A literal as a row holds it: its lexical value and its datatype IRI (or None).
Lit = tuple[str, str | None]
#: One triple as a builder writes it: subject IRI, predicate IRI, and the object, an IRI
#: (a string) or a :data:`Lit`. The graph is the :class:`Triples`'.
Row = tuple[str, str, "str | Lit"]


class Triples(Sequence[Triple]):
    """The triples of an explain event: a sequence of :class:`Triple`.

    Provenance writes a dozen triples per step and most runs never read them as objects:
    they are serialised (to the event log, to a stream) or dropped. So a builder hands over
    plain rows of strings (:meth:`from_rows`); the :class:`Triple` objects are made the
    first time the sequence is read, and serialising goes from the rows straight to
    JSON-ready dicts. Made from triples (``Triples(triples)``, or validation of a list), it
    simply holds them. Either way it reads, compares and serialises as the list of triples.
    """

    __slots__ = ("_graph", "_items", "_rows")

    def __init__(self, triples: Iterable[Triple] = ()) -> None:
        self._items: list[Triple] | None = list(triples)
        self._rows: list[Row] | None = None
        self._graph: str | None = None

    @classmethod
    def from_rows(cls, rows: list[Row], graph: str | None) -> Triples:
        """Triples from rows that typed code built (strings and :data:`Lit` tuples only),
        every one in ``graph``. The rows are kept, not copied."""
        self = cls.__new__(cls)
        self._items, self._rows, self._graph = None, rows, graph
        return self

    # -- the sequence -----------------------------------------------------------------

    def _triples(self) -> list[Triple]:
        items = self._items
        if items is None:
            items = self._items = _materialise(self._rows or [], self._graph)
        return items

    @overload
    def __getitem__(self, index: int) -> Triple: ...
    @overload
    def __getitem__(self, index: slice) -> list[Triple]: ...
    def __getitem__(self, index: int | slice) -> Triple | list[Triple]:
        return self._triples()[index]

    def __len__(self) -> int:
        rows = self._rows
        return len(rows) if self._items is None and rows is not None else len(self._triples())

    def __iter__(self) -> Iterator[Triple]:
        return iter(self._triples())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Triples):
            if self._items is None and other._items is None:
                return self._rows == other._rows and self._graph == other._graph
            return self._triples() == other._triples()
        if isinstance(other, list):
            return self._triples() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, which is unhashable

    def __repr__(self) -> str:
        if self._items is None:  # a repr (a log line, a debugger) need not build them
            return f"Triples.from_rows({self._rows!r}, {self._graph!r})"
        return f"Triples({self._items!r})"

    # -- serialisation ----------------------------------------------------------------

    def dump(self, *, exclude_none: bool = False) -> list[dict[str, Any]]:
        """What ``[t.model_dump(mode="json", exclude_none=...) for t in self]`` returns,
        without making the triples when they are still rows."""
        if self._items is not None or self._rows is None:
            return [t.model_dump(mode="json", exclude_none=exclude_none)
                    for t in self._triples()]
        g = self._graph
        out: list[dict[str, Any]] = []
        append = out.append
        if exclude_none:
            for s, p, o in self._rows:
                term = {"t": "i", "i": o} if type(o) is str else (
                    {"t": "l", "v": o[0]} if o[1] is None else {"t": "l", "v": o[0], "dt": o[1]})
                row: dict[str, Any] = {"s": {"t": "i", "i": s}, "p": {"t": "i", "i": p}, "o": term}
                if g is not None:
                    row["g"] = g
                append(row)
            return out
        for s, p, o in self._rows:
            append({"s": {"t": "i", "i": s}, "p": {"t": "i", "i": p},
                    "o": {"t": "i", "i": o} if type(o) is str else
                         {"t": "l", "v": o[0], "dt": o[1], "lang": None},
                    "g": g})
        return out

    def to_json(self) -> str:
        """The JSON of the list of triples, exactly as pydantic writes it (compact, non-ASCII
        kept), made from the rows with the standard library's C string encoder when the
        triples are still rows: about half of pydantic's cost for the same triples."""
        rows = self._rows
        if self._items is not None or rows is None:
            return to_json(self._triples()).decode()
        enc = _encode_str
        tail = ',"g":' + ("null" if self._graph is None else enc(self._graph)) + "}"
        iris: dict[str, str] = {}  # a step's subjects and predicates repeat: encode each once
        parts: list[str] = []
        add = parts.extend
        for s, p, o in rows:
            if (st := iris.get(s)) is None:
                st = iris[s] = '{"t":"i","i":' + enc(s) + "}"
            if (pt := iris.get(p)) is None:
                pt = iris[p] = '{"t":"i","i":' + enc(p) + "}"
            if isinstance(o, str):
                if (ot := iris.get(o)) is None:
                    ot = iris[o] = '{"t":"i","i":' + enc(o) + "}"
                add((',{"s":', st, ',"p":', pt, ',"o":', ot, tail))
            else:
                add((',{"s":', st, ',"p":', pt, ',"o":{"t":"l","v":', enc(o[0]), ',"dt":',
                     "null" if o[1] is None else enc(o[1]), ',"lang":null}', tail))
        if parts:
            parts[0] = "{" + parts[0][2:]  # the first row has no comma before it
        text = "[" + "".join(parts) + "]"
        if not text.isascii():
            try:
                text.encode()
            except UnicodeEncodeError:  # a lone surrogate: pydantic's own error, as before
                return to_json(self._triples()).decode()
        return text

    def _serialise(self, info: SerializationInfo) -> list[dict[str, Any]]:
        if info.exclude_unset or info.exclude_defaults or info.by_alias:
            # Rare options that depend on each triple's fields-set: let pydantic decide.
            return [t.model_dump(mode=info.mode, exclude_unset=info.exclude_unset,
                                 exclude_defaults=info.exclude_defaults,
                                 exclude_none=info.exclude_none, by_alias=info.by_alias)
                    for t in self._triples()]
        return self.dump(exclude_none=info.exclude_none)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler
                                     ) -> core_schema.CoreSchema:
        # Validated as a list of Triple (so its JSON Schema is that list's), then held as
        # Triples; Triples given as such were built by typed code and pass as they are.
        def wrap(value: Any, validate: Callable[[Any], list[Triple]]) -> Triples:
            return value if type(value) is Triples else Triples(validate(value))

        return core_schema.no_info_wrap_validator_function(
            wrap, handler.generate_schema(list[Triple]),
            serialization=core_schema.plain_serializer_function_ser_schema(
                cls._serialise, info_arg=True))


def _materialise(rows: list[Row], g: str | None) -> list[Triple]:
    fields = {"s", "p", "o", "g"} if g is not None else {"s", "p", "o"}
    out: list[Triple] = []
    for s, p, o in rows:
        obj = fresh_iri(o) if isinstance(o, str) else lit(o[0], o[1])
        out.append(trusted(Triple, {"s": fresh_iri(s), "p": iri(p), "o": obj, "g": g}, fields))
    return out
