"""Follow-ups in a thread search with the earlier turns' subject, for every model.

"And what does that do to hashing?" after a question about ``__eq__`` must not search for
``hashing`` alone: over Python's reference that finds ``hashlib`` (a hash *library*), not
what ``__eq__`` does to ``__hash__``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citewise.agent.followups import MAX_CARRIED, answer_subject, carry_into, rewrite
from citewise.agent.runner import Agent
from citewise.knowledge.base import KnowledgeBase
from citewise.models.scripted import ScriptedModel, call

DATAMODEL = """\
object.__eq__(self, other)

These are the so-called "rich comparison" methods. A rich comparison method may return the
singleton NotImplemented if it does not implement the operation for a given pair of
arguments. By default, __ne__() delegates to __eq__() and inverts the result unless it is
NotImplemented.

object.__hash__(self)

A class that overrides __eq__() and does not define __hash__() will have its __hash__()
implicitly set to None. When the __hash__() method of a class is None, instances of the
class will raise an appropriate TypeError when a program attempts to retrieve their hash
value.
"""

HASHLIB = """\
hashlib — Secure hashes and message digests

This module implements a common interface to many different secure hash and message digest
algorithms. Hashing passwords should use a key derivation function such as scrypt rather
than a plain hash. The hashing functions accept bytes-like objects.
"""

FIRST = "What does __eq__ return when the comparison is not implemented?"
FOLLOW = "And what does that do to hashing?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("followups")
    (root / "datamodel.txt").write_text(DATAMODEL)
    (root / "hashlib.txt").write_text(HASHLIB)
    base = KnowledgeBase.open(root / "kb", dense=False)
    assert len(base.ingest([root / "datamodel.txt", root / "hashlib.txt"]).added) == 2
    return base


def test_a_pronoun_follow_up_carries_the_earlier_subject() -> None:
    follow = rewrite(FOLLOW, [(FIRST, "A rich comparison method may return NotImplemented.")])
    assert follow is not None
    assert follow.carried[0] == "__eq__"  # identifiers first
    assert follow.rewritten.startswith(FOLLOW) and "__eq__" in follow.rewritten
    assert len(follow.carried) <= MAX_CARRIED
    assert "hashing" not in follow.carried  # what the follow-up says itself is not carried


def test_the_words_that_ask_are_no_subject_however_they_stem() -> None:
    # "possible" is an asking word, compared as the stemmer has it ("possibl"): with the
    # raw word, "Is it possible to rotate them daily by size?" named two things, so it
    # leaned back on nothing and lost the thread's subject (review, 2026-12-05).
    turns = [("How do I configure log rotation in postgres?",
              "Set log_rotation_age and log_rotation_size [1].")]
    follow = rewrite("Is it possible to rotate them daily by size?", turns)
    assert follow is not None and "postgres" in follow.carried


def test_ellipsis_and_chains() -> None:
    turns = [("How many vacation days do employees get per year?", "25 days [1].")]
    short = rewrite("and for contractors?", turns)
    assert short is not None and {"vacation", "days"} <= set(short.carried)
    # a follow-up of a follow-up keeps the thread's subject
    chain = rewrite("And do they expire?", [*turns, ("and for contractors?", "10 days [1].")])
    assert chain is not None and "vacation" in chain.carried and "contractors" in chain.carried


def test_a_demonstrative_before_an_earlier_noun_is_a_follow_up_however_long() -> None:
    # "that cache" names four things of its own, so it did not read as a follow-up: it was
    # searched without the earlier turn (its rewritten query was null).
    turns = [("How can I cache the results of an expensive function?",
              "Decorate it with @functools.lru_cache to wrap it with a memoizing callable [1].")]
    second = rewrite("What is the default size limit of that cache?", turns)
    assert second is not None and {"expensive", "function"} <= set(second.carried)
    third = rewrite("And how do I clear it?",
                    [*turns, ("What is the default size limit of that cache?",
                              "If maxsize is set to None, the LRU feature is disabled [1].")])
    assert third is not None and {"cache", "results"} <= set(third.carried)
    # A demonstrative naming something new is no reference back.
    assert rewrite("What is the default size limit of that deque in collections?",
                   turns) is None


def test_a_standalone_question_is_left_alone() -> None:
    turns = [(FIRST, "A rich comparison method may return NotImplemented.")]
    assert rewrite("How does hashlib hash passwords with scrypt?", turns) is None
    assert rewrite(FOLLOW, []) is None  # no earlier turn: nothing to lean on


def test_a_query_that_resolved_the_reference_is_kept() -> None:
    assert carry_into("hashing", ("__eq__", "comparison")) == "hashing __eq__ comparison"
    assert carry_into("__eq__ hashing", ("__eq__", "comparison")) == "__eq__ hashing"
    # Some of the carried words are not the subject: what it lacks is added.
    assert carry_into("attached database free disk space", ("VACUUM", "free", "disk")) == (
        "attached database free disk space VACUUM")


VACUUM = """\
The VACUUM command rebuilds the database file, repacking it into a minimal amount of disk
space. VACUUM needs as much as twice the size of the original database file in free disk
space. By default VACUUM works on the main database; to rebuild an attached database
instead, give its schema name after the command: VACUUM archive.
"""

FREELIST = """\
When you delete information from a database, the unused disk space is added to an
internal free-list and is reused the next time you insert data. The ATTACH DATABASE
statement adds another database file to the current connection under a schema name; an
attached database needs no free disk space of its own until it is written to.
"""


def test_a_chain_of_follow_ups_keeps_the_first_turns_subject(tmp_path: Path) -> None:
    """The third turn's keyword query took "free disk space" from the second turn, and
    that one carried word kept the thread's subject, VACUUM, out of the search (found
    over SQLite's manual, 2026-12-03)."""
    (tmp_path / "vacuum.txt").write_text(VACUUM)
    (tmp_path / "freelist.txt").write_text(FREELIST)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as base:
        assert len(base.ingest([tmp_path / "vacuum.txt", tmp_path / "freelist.txt"]).added) == 2
        agent = Agent(base, provenance=False)
        first = agent.ask("What does the VACUUM command do?")
        agent.ask("How much free disk space does it need?", thread_id=first.thread_id)
        third = agent.ask("and on an attached database?", thread_id=first.thread_id)
        details = third.query_details
        assert details is not None and details.queries
        assert all("VACUUM" in q for q in details.queries), details.queries
        # The VACUUM page comes first, not the page that shares the follow-up's own words.
        assert third.search_documents[0].source.endswith("vacuum.txt")


def test_extractive_follow_up_searches_with_the_antecedent(kb: KnowledgeBase) -> None:
    agent = Agent(kb, provenance=False)
    first = agent.ask(FIRST)
    assert first.query_details is not None and first.query_details.rewritten_query is None
    answer = agent.ask(FOLLOW, thread_id=first.thread_id)
    details = answer.query_details
    assert details is not None and details.rewritten_query is not None
    assert "__eq__" in details.rewritten_query and "__eq__" in details.carried_terms
    assert details.queries and all("__eq__" in q for q in details.queries)
    # the passage about __eq__ and __hash__ is found, not only the hash library's
    assert answer.search_documents[0].source.endswith("datamodel.txt")


def test_a_model_searching_the_bare_follow_up_gets_the_antecedent(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    model = ScriptedModel([
        call("search_knowledge", query="comparison __eq__ not implemented"), "x",
        # the follow-up's own words only, as a careless model would search
        call("search_knowledge", query="hashing"), "y",
    ])
    agent = Agent(kb, model=model, provenance=False)
    first = agent.ask(FIRST)
    answer = agent.ask(FOLLOW, thread_id=first.thread_id)
    assert answer.tool_calls[0].arguments["query"] == "hashing"  # what the model asked
    details = answer.query_details
    assert details is not None
    assert details.queries == [f"hashing {' '.join(details.carried_terms)}"]
    assert answer.search_documents[0].source.endswith("datamodel.txt")


def test_the_steps_show_the_query_a_follow_up_searched(kb: KnowledgeBase) -> None:
    """The step line showed the model's query, "hashing", while the search ran with the
    thread's subject added (new-user review, session 16): the observation says so."""
    import asyncio
    import io

    from citewise.cli.common import StepPrinter

    model = ScriptedModel([
        call("search_knowledge", query="comparison __eq__ not implemented"), "x",
        call("search_knowledge", query="hashing"), "y",
    ])
    agent = Agent(kb, model=model, provenance=False)
    first = agent.ask(FIRST)

    async def steps() -> str:
        out = io.StringIO()
        printer = StepPrinter(out)
        async for event in agent.stream(FOLLOW, thread_id=first.thread_id):
            printer(event)
        return out.getvalue()

    printed = asyncio.run(steps())
    assert '→ search_knowledge {"query": "hashing"}' in printed
    searched = next(line for line in printed.splitlines() if "Searched for:" in line)
    assert "hashing" in searched and "__eq__" in searched


CONNECTIONS = """\
# Server Configuration

## Connection Settings

### max_connections (integer)

Determines the maximum number of concurrent connections to the database server. The default
is typically 100 connections, but might be less if your kernel settings will not support it.
This parameter can only be set at server start.

### superuser_reserved_connections (integer)

Determines the number of connection slots that are reserved for connections by superusers.
"""

SETTING = """\
# Setting Parameters

## Parameter Interaction via the Configuration File

The most fundamental way to set these parameters is to edit the file postgresql.conf, which
is normally kept in the data directory. A default copy is installed when the database
cluster directory is initialized. Parameters that can only be set at server start, such as
shared_buffers and max_connections, take effect after a restart.
"""


def test_the_subject_of_the_last_answer_is_its_cited_sections_name(tmp_path: Path) -> None:
    """"How do I change it?" after "The default is typically 100 connections": the name
    is the cited section's, in neither the question nor the quote (new-user review of
    PostgreSQL's manual, 2026-12-03)."""
    (tmp_path / "connections.md").write_text(CONNECTIONS)
    (tmp_path / "setting.md").write_text(SETTING)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as base:
        assert len(base.ingest([tmp_path / "connections.md",
                                tmp_path / "setting.md"]).added) == 2
        agent = Agent(base, provenance=False)
        first = agent.ask("How many clients can be connected at once out of the box?")
        assert "typically 100 connections" in first.citations[0].excerpt
        assert answer_subject(first.model_dump()) == "max_connections"
        follow = agent.ask("How do I change it?", thread_id=first.thread_id)
        details = follow.query_details
        assert details is not None and details.carried_terms[0] == "max_connections"
        assert details.queries and all("max_connections" in q for q in details.queries)


def test_a_sections_name_is_carried_only_when_neither_question_names_a_thing() -> None:
    turns = [("How many clients can connect at once?", "The default is 100 connections [1].")]
    subject = "max_connections"
    follow = rewrite("How do I change it?", turns, subject)
    assert follow is not None and follow.carried[0] == "max_connections"
    assert len(follow.carried) <= MAX_CARRIED
    # The follow-up names its own setting; the earlier question named one; a man page's
    # part, a section number and a plain title name nothing.
    assert "max_connections" not in rewrite("And for work_mem?", turns, subject).carried
    named = [("What is the default of shared_buffers?", "128 megabytes [1].")]
    assert rewrite("How do I change it?", named, subject).carried[0] == "shared_buffers"
    assert rewrite("How do I change it?", turns, "").carried[0] == "clients"


def cited(excerpt: str, text: str, section: str | None = None) -> dict[str, Any]:
    return {"citation_index": 0, "document_index": 1, "snippet_index": 0, "excerpt": excerpt,
            "_snippet": {"text": text, "section": section}}


def answer_of(*citations: dict[str, Any]) -> dict[str, Any]:
    return {"citations": [{k: v for k, v in c.items() if k != "_snippet"} | {
        "document_index": n} for n, c in enumerate(citations, start=1)],
        "search_documents": [{"snippets": [c["_snippet"]]} for c in citations]}


def test_the_subject_is_the_name_above_a_quote_that_the_question_shares_most() -> None:
    listen = cited("The default value is localhost.",
                   "listen_addresses (string)\n\nSpecifies the TCP/IP addresses. "
                   "The default value is localhost.", "20.3.1. Connection Settings")
    conns = cited("The default is typically 100 connections.",
                  "max_connections (integer)\n\nThe default is typically 100 connections.",
                  "20.3.1. Connection Settings")
    both = answer_of(listen, conns)
    assert answer_subject(both, "How many connections by default?") == "max_connections"
    assert answer_subject(both, "What is the default?") == "listen_addresses"  # the first
    # A section named by an identifier; a man page's part, a section number, a sentence
    # above the quote, a plain title: no name.
    assert answer_subject(answer_of(cited("Off.", "Off.", "Options > wal_level (enum)"))) \
        == "wal_level"
    for text, section in (("OPTIONS\n\nOff.", "OPTIONS"), ("See 19.3.1.\n\nOff.", "19.3.1"),
                          ("It uses os.path.\n\nOff.", "Connection Settings")):
        assert answer_subject(answer_of(cited("Off.", text, section))) == ""


def test_an_answer_without_citations_has_no_subject() -> None:
    assert answer_subject({"citations": [], "search_documents": []}) == ""
    assert answer_subject({}) == ""
    assert answer_subject({"citations": [{"document_index": 3, "snippet_index": 0}],
                           "search_documents": []}) == ""
