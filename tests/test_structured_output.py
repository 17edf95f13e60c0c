"""Structured output and verification: ``structured`` is parsed from the verified ``text``,
and a schema that refers to nothing is refused before the run starts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from citewise import Agent, KnowledgeBase
from citewise.agent.structured import check_schema
from citewise.errors import InvalidInput
from citewise.events import Event, RunFinished
from citewise.models.scripted import ScriptedModel, call

SCHEMA: dict[str, Any] = {"type": "object", "required": ["summary", "days"], "properties": {
    "summary": {"type": "string"}, "days": {"type": "integer"}}}
RAW = json.dumps({"summary": "Refunds are issued within 14 days of the return [1]. "
                             "The moon is cheese [7].", "days": 14})


def ask(tmp_path: Path, schema: dict[str, Any]) -> RunFinished:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text("# Refunds\n\nRefunds are issued within 14 days of the "
                                     "return.\n")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([docs])
        agent = Agent(kb, model=ScriptedModel([call("search_knowledge", query="refunds"), RAW]))

        async def go() -> list[Event]:
            return [e async for e in agent.stream("How long do refunds take?",
                                                  output_schema=schema)]

        last = asyncio.run(go())[-1]
    assert isinstance(last, RunFinished)
    return last


def test_structured_is_what_the_verified_text_says(tmp_path: Path) -> None:
    answer = ask(tmp_path, SCHEMA).answer
    assert "[7]" not in answer.text  # the marker of nothing retrieved is dropped
    assert answer.structured == json.loads(answer.text)
    assert answer.structured["summary"].endswith("The moon is cheese.")
    assert "citation_not_retrieved" in [i.code for i in answer.issues]


def test_a_rewrite_the_schema_refuses_keeps_the_models_value(tmp_path: Path) -> None:
    schema = {**SCHEMA, "properties": {**SCHEMA["properties"],
                                       "summary": {"type": "string", "pattern": r"\[7\]"}}}
    answer = ask(tmp_path, schema).answer
    assert answer.structured == json.loads(RAW)
    assert "structured_output_unverified" in [i.code for i in answer.issues]


@pytest.mark.parametrize("schema", [
    {"$ref": "#/definitions/nope"},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
    {"$dynamicRef": "#nowhere"},
    {"$ref": "https://example.com/schema.json"},
])
def test_a_schema_that_refers_to_nothing_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput) as info:
        check_schema(schema)
    assert info.value.code == "invalid_output_schema"


@pytest.mark.parametrize("schema", [
    {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"},
    {"type": "object", "properties": {"$ref": {"type": "string"}}},  # a property's name
    {"$dynamicAnchor": "node", "type": "object",
     "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}},
    {"$id": "https://x.test/r.json", "$defs": {"a": {"$anchor": "x"}}, "$ref": "#x"},
    {"properties": {"n": {"$id": "https://x.test/n.json", "$ref": "other.json"}}},
    # A "$ref" key inside data is not a reference; the metaschemas resolve offline.
    {"const": {"$ref": "#/nowhere"}},
    {"type": "object", "examples": [{"$ref": "#/x"}], "default": {"$ref": "#/y"}},
    {"enum": [{"$ref": "#/z"}]},
    {"$ref": "https://json-schema.org/draft/2020-12/schema"},
])
def test_schemas_that_resolve_are_accepted(schema: dict[str, Any]) -> None:
    check_schema(schema)
