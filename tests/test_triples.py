"""The fast term builders make exactly what validation makes, and refuse wrong types."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from citewise import Agent, ScriptedModel, tool
from citewise._construct import trusted
from citewise.events import Explain, event_adapter
from citewise.models.base import ModelRequest, UserMessage
from citewise.models.scripted import call
from citewise.triples import IRI, Literal_, Triple, iri, lit, triple


def test_built_terms_equal_validated_ones() -> None:
    built = triple(iri("urn:a"), iri("urn:p"), lit(42, "urn:xsd:integer"), "urn:g")
    validated = Triple(s=IRI(i="urn:a"), p=IRI(i="urn:p"),
                       o=Literal_(v="42", dt="urn:xsd:integer"), g="urn:g")
    assert built == validated
    assert hash(built) == hash(validated)
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert Triple.model_validate_json(built.model_dump_json()) == built
    plain = lit("x")
    assert plain.model_fields_set == Literal_(v="x").model_fields_set == {"v"}
    assert triple(iri("urn:a"), iri("urn:p"), plain).model_fields_set == {"s", "p", "o"}


def test_iris_are_interned_and_frozen() -> None:
    assert iri("urn:citewise:x") is iri("urn:citewise:x")
    with pytest.raises(ValidationError, match="frozen"):
        iri("urn:citewise:x").i = "urn:other"


@pytest.mark.parametrize("bad", [
    lambda: iri(42),
    lambda: lit("x", dt=7),  # type: ignore[arg-type]
    lambda: triple(iri("urn:a"), lit("not a predicate"), iri("urn:b")),  # type: ignore[arg-type]
    lambda: triple("urn:a", iri("urn:p"), iri("urn:b")),  # type: ignore[arg-type]
])
def test_wrong_types_are_refused(bad: object) -> None:
    with pytest.raises(TypeError):
        bad()  # type: ignore[operator]


def test_trusted_request_matches_a_validated_one() -> None:
    values: dict[str, Any] = {"messages": [UserMessage(content="hi")], "tools": [], "output_schema": None,
              "step": 2}
    assert trusted(ModelRequest, dict(values)) == ModelRequest(**values)


def test_trusted_instances_share_one_every_field_set_safely() -> None:
    from citewise.answer import ToolCallRecord

    def record(call_id: str) -> ToolCallRecord:
        return trusted(ToolCallRecord, {"id": call_id, "name": "lookup",
                                        "arguments": {"q": call_id}, "is_error": False})

    a, b = record("a"), record("b")
    validated = ToolCallRecord(id="a", name="lookup", arguments={"q": "a"}, is_error=False)
    assert a.model_fields_set == validated.model_fields_set == set(ToolCallRecord.model_fields)
    assert a.model_fields_set is b.model_fields_set  # one set per class, not per instance
    a.is_error = True  # pydantic adds the name to the (shared) set: it is already there
    copy = b.model_copy(update={"name": "other"})
    assert copy.model_fields_set is not b.model_fields_set
    assert a.model_fields_set == b.model_fields_set == copy.model_fields_set
    assert (a.is_error, b.is_error, copy.name, b.name) == (True, False, "other", "lookup")
    assert b.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True) | {
        "id": "b", "arguments": {"q": "b"}}


def test_every_explain_event_of_a_run_survives_validation() -> None:
    @tool
    def lookup(query: str) -> str:
        """Look it up.

        Args:
            query: What to look up.
        """
        return "found " + query

    agent = Agent(model=ScriptedModel([call("lookup", query="q"), "Done."]), tools=[lookup])

    async def collect() -> list[Explain]:
        return [e async for e in agent.stream("What?") if isinstance(e, Explain)]

    import asyncio

    explains = asyncio.run(collect())
    assert len(explains) >= 3  # start, the tool call, the answer
    for ev in explains:
        again = event_adapter.validate_json(ev.model_dump_json())
        assert again == ev
        assert all(isinstance(t, Triple) for t in ev.triples)


def test_check_mode_catches_a_wrong_trusted_value() -> None:
    import citewise._construct as construct

    assert construct._CHECK  # the suite runs with CITEWISE_CHECK_TRUSTED=1 (conftest)
    with pytest.raises(AssertionError, match="differs"):
        trusted(ModelRequest, {"messages": [], "tools": [], "output_schema": None, "step": "2"})
