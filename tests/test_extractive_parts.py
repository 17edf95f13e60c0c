"""A question of several parts gets a quote for each part it names: "Which fuel does the
Flint stove burn, and the Cinder stove?" quoted only the Cinder sentence (the best one),
and the Flint half went unanswered with full confidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise import Agent, KnowledgeBase

GEAR = ("# Stove guide\n\n"
        "## Fuels\n\n"
        "- The Ember stove burns white gas and kerosene\n"
        "- The Flint stove burns butane canisters only\n"
        "- The Cinder stove burns dry wood and pine cones\n\n"
        "## Care\n\n"
        "Clean the jet of a stove after every trip. Store fuel away from the tent.\n")


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Agent:
    root = tmp_path_factory.mktemp("parts")
    (root / "docs").mkdir()
    (root / "docs" / "stoves.md").write_text(GEAR, encoding="utf-8")
    kb = KnowledgeBase.open(root / "kb", dense=False)
    kb.ingest([root / "docs"])
    return Agent(kb)


def _quoted(agent: Agent, question: str) -> list[str]:
    return [c.excerpt for c in agent.ask(question).citations]


def test_each_named_part_gets_its_quote(agent: Agent) -> None:
    quoted = _quoted(agent, "Which fuel does the Flint stove burn, and the Cinder stove?")
    assert any("Flint" in q for q in quoted) and any("Cinder" in q for q in quoted)
    assert not any("Ember" in q for q in quoted)  # not asked about
    three = _quoted(agent, "What do the Ember, Flint and Cinder stoves burn?")
    assert {n for n in ("Ember", "Flint", "Cinder") if any(n in q for q in three)} == {
        "Ember", "Flint", "Cinder"}


def test_a_question_of_one_part_keeps_its_one_quote(agent: Agent, tmp_path: Path) -> None:
    quoted = _quoted(agent, "Which fuel does the Flint stove burn?")
    assert quoted and all("Flint" in q for q in quoted)


def test_one_name_behind_a_comma_is_no_question_of_parts(agent: Agent) -> None:
    # "Out of the box, which severity does Python's logging let through?" got a third
    # quote for "Python", about open()'s encoding (new-user review, session 16).
    quoted = _quoted(agent, "After a trip, what should I clean on the Flint stove?")
    assert quoted == ["Clean the jet of a stove after every trip."]  # not its fuel too
