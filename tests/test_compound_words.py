"""Two words of a question that a document writes as one ("back up" / "backup") meet in
the lexical search. Xapian's guide says "Backup Strategies" and "to perform a backup";
"What is the easiest way to back up a Xapian database?" found none of its passages, and
the answer quoted the replication page (new-user review, 2026-12-07)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.retrieve.query import compounds

ADMIN = """# Backup Strategies

## Summary

The simplest way to perform a backup is to temporarily halt modifications, take a copy of
all files in the database directory, and then allow modifications to resume.

## Detail

A consistent copy of the files is all a restore needs.
"""

REPLICATION = """# Replication

A client that falls too far behind the master goes back to a full copy of the database.
It can take a while to catch up, and the database it reads stays up to date only as often
as the client runs.
"""

QUESTION = "What is the easiest way to back up a Xapian database?"


def test_adjacent_words_are_searched_joined_too() -> None:
    assert compounds(QUESTION) == ["easiestway", "backup"]
    assert compounds("How do I set-up the time out for a log in?") == [
        "setup", "timeout", "login"]
    # A function word first, or second unless it is a verb's particle: no join.
    assert compounds("how to do it and re-index") == ["reindex"]
    assert compounds("data base, then base") == ["database"]  # punctuation parts them
    assert compounds("pg_dump back-up's") == []  # parts of an identifier or a clitic
    # A name is no part of a compound ("Ant on" is no "anton"), unless hyphenated.
    assert compounds("How do I run Ant on Windows?") == ["runant"]
    assert compounds("Set-up and Time out") == ["setup"]
    # A sentence's first word is no name (second code review, 2026-12-07).
    assert compounds("Back up a database. Log in fails.") == ["backup", "login"]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "admin_notes.md").write_text(ADMIN, encoding="utf-8")
    (folder / "replication.md").write_text(REPLICATION, encoding="utf-8")
    return folder


def _first(kb: KnowledgeBase) -> str:
    return Path(kb.search(QUESTION, k=2, mode="lexical")[0].source).name


def test_back_up_finds_the_backup_page(docs: Path, tmp_path: Path) -> None:
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        assert _first(kb) == "admin_notes.md"


def test_a_name_before_a_particle_is_not_joined_into_a_rarer_word(tmp_path: Path) -> None:
    """"How do I run Ant on Windows?" searched "anton" too, and a credits page ("Thanks to
    Anton Keller") ranked first by that one rare word (code review, 2026-12-07)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "install.md").write_text("# Installing Ant\n\nOn Windows use ant.bat; then run "
                                     "ant from any folder to build.\n")
    (docs / "credits.md").write_text("# Credits\n\nThanks to Anton Keller for the manual.\n")
    for n in range(6):  # the question's own words are common, as in a real manual
        (docs / f"task{n}.md").write_text(f"# Task {n}\n\nRun this task with Ant on any "
                                          "system, Windows included.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        found = [Path(h.source).name for h in kb.search("How do I run Ant on Windows?", k=8,
                                                        mode="lexical")]
    assert "credits.md" not in found, found


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_finds_it_the_same_way(pg_url: str, docs: Path) -> None:
    with KnowledgeBase.open_postgres(pg_url, dense=False) as kb:
        kb.ingest([docs])
        assert _first(kb) == "admin_notes.md"
