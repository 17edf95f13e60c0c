"""With an output schema, every leaf value of ``structured`` cites what it rests on.

Asked for ``{"year": integer}``, a model answered ``{"year": 1889}`` with no citation: a
number has nowhere to put a marker. Now each leaf (number, date, boolean, string) maps by
JSON Pointer to citation indices, a value no retrieved text holds is ``unsupported_value``,
and a citation made for a value is verbatim at its offsets like every other.
"""

from __future__ import annotations

from typing import Any

import pytest

from citewise.agent.runner import Agent
from citewise.answer import Answer
from citewise.grounding.values import pointers
from citewise.knowledge.base import KnowledgeBase
from citewise.models.scripted import ScriptedModel, call

EIFFEL = """\
# Eiffel Tower

The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It
is named after the engineer Gustave Eiffel, whose company designed and built the tower.

Construction of the tower was completed on 31 March 1889, in time for the Exposition
Universelle. Visitors climb 1,665 steps to reach the top.
"""

APACHE = """\
   7. Disclaimer of Warranty. Unless required by applicable law or
      agreed to in writing, Licensor provides the Work (and each
      Contributor provides its Contributions) on an "AS IS" BASIS,
      WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or
      implied, including, without limitation, any warranties or conditions
      of TITLE, NON-INFRINGEMENT, MERCHANTABILITY, or FITNESS FOR A
      PARTICULAR PURPOSE.
"""

YEAR = {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("structured")
    (root / "eiffel.md").write_text(EIFFEL)
    (root / "apache-2.0.txt").write_text(APACHE)
    base = KnowledgeBase.open(root / "kb", dense=False)
    assert len(base.ingest([root / "eiffel.md", root / "apache-2.0.txt"]).added) == 2
    return base


def ask(kb: KnowledgeBase, question: str, reply: str, schema: dict[str, Any],
        query: str | None = None) -> Answer:
    model = ScriptedModel([call("search_knowledge", query=query or question), reply])
    answer = Agent(kb, model=model, provenance=False).ask(question, output_schema=schema)
    assert answer.status == "completed", answer.error
    return answer


def verbatim(kb: KnowledgeBase, answer: Answer) -> None:
    for c in answer.citations:
        doc = answer.search_documents[c.document_index - 1]
        text = kb.document_text(str(doc.document["id"]))
        assert text is not None and c.start_char is not None and c.end_char is not None
        assert text[c.start_char:c.end_char] == c.excerpt


def unsupported(answer: Answer) -> list[str]:
    return [i.details["pointer"] for i in answer.issues if i.code == "unsupported_value"]


def test_a_number_with_no_marker_is_cited_from_the_retrieved_text(kb: KnowledgeBase) -> None:
    answer = ask(kb, "When was the Eiffel Tower completed?", '{"year": 1889}', YEAR)
    assert answer.structured == {"year": 1889}
    assert answer.structured_citations == {"/year": [0]}
    assert "1889" in answer.citations[0].excerpt and "completed" in answer.citations[0].excerpt
    verbatim(kb, answer)
    assert unsupported(answer) == []


def test_a_number_no_passage_holds_is_unsupported(kb: KnowledgeBase) -> None:
    answer = ask(kb, "When was the Eiffel Tower completed?", '{"year": 1890}', YEAR)
    assert answer.structured_citations == {"/year": []}
    assert unsupported(answer) == ["/year"]
    assert answer.citations == []


def test_dates_and_grouped_numbers_are_compared_by_value(kb: KnowledgeBase) -> None:
    schema = {"type": "object", "properties": {
        "completed": {"type": "string", "format": "date"}, "steps": {"type": "integer"},
        "opened": {"type": "string"}}}
    reply = '{"completed": "1889-03-31", "steps": 1665, "opened": "1889-05-06"}'
    answer = ask(kb, "When was the tower completed and how many steps does it have?",
                 reply, schema, query="tower completed steps")
    links = answer.structured_citations
    assert set(links) == {"/completed", "/steps", "/opened"}
    assert "31 March 1889" in answer.citations[links["/completed"][0]].excerpt
    assert "1,665" in answer.citations[links["/steps"][0]].excerpt
    assert links["/opened"] == [] and unsupported(answer) == ["/opened"]
    verbatim(kb, answer)


def test_a_string_with_markers_links_to_its_claims_citations(kb: KnowledgeBase) -> None:
    schema = {"type": "object", "properties": {"designer": {"type": "string"},
                                               "city": {"type": "string"}}}
    reply = '{"designer": "Gustave Eiffel, whose company designed and built the tower [1]", ' \
            '"city": "Paris"}'
    answer = ask(kb, "Who designed the Eiffel Tower, and where is it?", reply, schema,
                 query="Eiffel Tower designed")
    assert answer.claims[0].status == "supported"
    links = answer.structured_citations
    assert links["/designer"] == answer.claims[0].citation_indices != []
    assert "Paris" in answer.citations[links["/city"][0]].excerpt  # found, not marked
    assert unsupported(answer) == []


def test_a_boolean_rests_on_the_sentence_about_it(kb: KnowledgeBase) -> None:
    schema = {"type": "object", "properties": {"warranty": {"type": "boolean"}}}
    q = "Does the Licensor give any warranties for the Work?"
    right = ask(kb, q, '{"warranty": false}', schema)
    assert "WITHOUT WARRANTIES" in right.citations[right.structured_citations["/warranty"][0]].excerpt
    assert unsupported(right) == []
    wrong = ask(kb, q, '{"warranty": true}', schema)
    assert wrong.structured_citations == {"/warranty": []}
    assert unsupported(wrong) == ["/warranty"]


def test_extractive_structured_answer_cites_its_value(kb: KnowledgeBase) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}},
              "required": ["answer"]}
    answer = Agent(kb, provenance=False).ask("When was the construction of the tower completed?",
                                             output_schema=schema)
    assert answer.status == "completed"
    links = answer.structured_citations
    assert list(links) == ["/answer"] and links["/answer"]
    assert links["/answer"] == sorted({i for c in answer.claims for i in c.citation_indices})
    verbatim(kb, answer)


def test_pointers_escape_as_rfc_6901() -> None:
    assert list(pointers({"a/b": [1, {"m~n": True}], "c": None})) == [
        ("/a~1b/0", 1), ("/a~1b/1/m~0n", True)]


def test_quotes_fill_a_year_for_the_extractive_path(kb: KnowledgeBase) -> None:
    """``{"year": integer}`` filled from the extractive model's quotes, then cited: the
    helper ``models/quote_values.py``'s ``fill`` is to call for a scalar property."""
    from citewise.grounding.values import UNFILLED, link_values, value_from_quotes

    quote = "Construction of the tower was completed on 31 March 1889, in time for the " \
            "Exposition Universelle. [1]"
    assert value_from_quotes({"type": "integer"}, "year", [quote]) == 1889
    assert value_from_quotes({"type": "integer"}, "steps",
                             ["Visitors climb 1,665 steps to reach the top. [1]"]) == 1665
    assert value_from_quotes({"type": "string", "format": "date"}, "completed",
                             [quote]) == "1889-03-31"
    assert value_from_quotes({"type": "integer"}, "year", ["No year here. [1]"]) is UNFILLED
    # the filled value, as the extractive model would answer it, is cited like any other
    answer = ask(kb, "When was the Eiffel Tower completed?", '{"year": 1889}', YEAR)
    assert answer.structured_citations["/year"] == [0]
    assert link_values(answer, {"year": 1889}, _ledger(answer), "When?") == []


def _ledger(answer: Answer) -> Any:
    from citewise.grounding.ledger import EvidenceLedger

    return EvidenceLedger(documents=answer.search_documents)
