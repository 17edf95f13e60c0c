"""The extractive model fills an output schema's numbers, dates and yes/no values from
the sentences it quotes (``grounding.values.value_from_quotes``), and the loop cites each
(``structured_citations``): asked for ``{"year": integer}`` it used to give up and answer
in prose, failing ``structured_output_invalid``."""

from __future__ import annotations

from typing import Any

import pytest

from citewise.agent.runner import Agent
from citewise.grounding.relevance import NOT_IN_SOURCES
from citewise.knowledge.base import KnowledgeBase
from citewise.models.extractive import NO_ANSWER
from citewise.models.quote_values import UNFILLABLE, fill

EIFFEL = """\
# Eiffel Tower

The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It
is named after the engineer Gustave Eiffel, whose company designed and built the tower.

Construction of the tower was completed on 31 March 1889, in time for the Exposition
Universelle. Visitors climb 1,665 steps to reach the top.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("values")
    (root / "eiffel.md").write_text(EIFFEL)
    base = KnowledgeBase.open(root / "kb", dense=False)
    assert len(base.ingest([root / "eiffel.md"]).added) == 1
    return base


def _verbatim(kb: KnowledgeBase, answer: Any) -> None:
    for c in answer.citations:
        doc = answer.search_documents[c.document_index - 1]
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None and text[c.start_char:c.end_char] == c.excerpt


def test_an_integer_year_is_filled_from_its_quote_and_cited(kb: KnowledgeBase) -> None:
    schema = {"type": "object", "properties": {"year": {"type": "integer"}},
              "required": ["year"]}
    answer = Agent(kb, provenance=False).ask("When was construction of the tower completed?",
                                             output_schema=schema)
    assert answer.status == "completed", answer.error
    assert answer.structured == {"year": 1889}
    cited = answer.structured_citations["/year"]
    assert cited and "1889" in answer.citations[cited[0]].excerpt
    assert not [i for i in answer.issues if i.code == "unsupported_value"]
    _verbatim(kb, answer)


def test_a_string_and_a_number_fill_together(kb: KnowledgeBase) -> None:
    schema = {"type": "object",
              "properties": {"answer": {"type": "string"}, "steps": {"type": "integer"}},
              "required": ["answer", "steps"]}
    answer = Agent(kb, provenance=False).ask("How many steps do visitors climb to the top?",
                                             output_schema=schema)
    assert answer.status == "completed", answer.error
    assert answer.structured is not None and answer.structured["steps"] == 1665
    assert "1,665 steps" in answer.structured["answer"]
    assert answer.structured_citations["/steps"]


QUOTES = ["Construction of the tower was completed on 31 March 1889. [1]"]


def test_fill_reads_scalars_and_refuses_what_quotes_do_not_hold() -> None:
    year = {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]}
    assert fill(year, "answer", QUOTES) == {"year": 1889}
    date = {"type": "object", "properties": {"on": {"type": "string", "format": "date"}},
            "required": ["on"]}
    assert fill(date, "answer", QUOTES) == {"on": "1889-03-31"}
    count = {"type": "object", "properties": {"count": {"type": "integer"}},
             "required": ["count"]}

    assert fill(count, "answer", ["No number is written here. [1]"]) is UNFILLABLE
    nested = {"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]}
    assert fill(nested, "answer", QUOTES) is UNFILLABLE
    # optional values the quotes do not hold are left out; a boolean is never guessed
    loose = {"type": "object", "properties": {"year": {"type": "integer"},
                                              "open": {"type": "boolean"},
                                              "tags": {"type": "array"}}}
    assert fill(loose, "answer", ["The tower opened in 1889. [1]"]) == {"year": 1889}
    assert fill(loose, "answer", ["No number is written here. [1]"]) is UNFILLABLE


def test_the_no_answer_wording_is_the_grounding_one() -> None:
    assert NO_ANSWER == NOT_IN_SOURCES
