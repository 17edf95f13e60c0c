"""A table whose cell is a sentence is prose (Doxygen review, 2026-12-04). Table rows rank
below prose (a row of a data-type table answers little on its own), but some generators
put their prose in tables: Doxygen's parameter tables state defaults and limits there
("[in] | x | opus_int32: Allowed values: 0 Disable DTX (default)."), and DocBook's HTML
sets every Note and Caution as a table (the Debian Reference: "For FAT filesystems by its
design, the maximum file size is (2^32 - 1) bytes"). A row whose last cell is a sentence of
six words or more is judged as prose; rows the splitter ran together are still a table."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.models.sentence_rank import Sentence, rank, structure_penalty


def _cell(text: str) -> Sentence:
    return Sentence(1, 0, text, "", "ch09.en.html", "Chapter 9. System tips", True,
                    role="table")


@pytest.mark.parametrize("text", [
    "[in] | x | opus_int32: Allowed values: 0 Disable DTX (default).",
    # A Markdown pipe table's row closes with a pipe: its last cell is still the sentence.
    "| `max_widgets` | 64 | How many widgets one account may own. |",
    "Note\nFor FAT filesystems by its design, the maximum file size is (2^32 - 1) bytes.",
])
def test_a_row_ending_in_a_sentence_is_prose(text: str) -> None:
    assert structure_penalty(_cell(text), code_wanted=False) == 0.0


@pytest.mark.parametrize("text", [
    "character varying(n), varchar(n) | variable-length with limit | text",
    "--keep-within INTERVAL | keep all archives within this time interval",
    "-a | text | IP address to serve on.\n--livereload | text | Enable the live reloading "
    "in the development server.",  # two rows run together
])
def test_other_rows_are_still_a_table(text: str) -> None:
    assert structure_penalty(_cell(text), code_wanted=False) >= 0.25


def test_a_notes_sentence_beats_prose_that_only_mentions_the_words() -> None:
    note = _cell("Note\nFor FAT filesystems by its design, the maximum file size is "
                 "(2^32 - 1) bytes = (4GiB - 1 byte).")
    prose = Sentence(1, 0, "When a data is too big to backup as a single file, you can "
                     "backup its content after splitting it into chunks.", "",
                     "ch10.en.html", "Chapter 10. Data management", True)
    best = rank("What is the largest single file I can copy onto a FAT32 drive?",
                [prose, note])[0]
    assert best.sentence is note


README = """\
# Widget service

## Limits

Each account has limits.

| Setting | Default | Meaning |
|---|---|---|
| `max_widgets` | 64 | How many widgets one account may own. |
| `timeout` | 30 s | How long a request may take before it is cancelled. |

The limits apply per account.
"""
PAGE = """<html><head><title>Widget limits</title></head><body><h1>Widget limits</h1>
<p>Each account has limits.</p>
<table><tr><th>Setting</th><th>Default</th><th>Meaning</th></tr>
<tr><td><code>max_widgets</code></td><td>64</td><td>How many widgets one account may own.</td></tr>
<tr><td><code>timeout</code></td><td>30 s</td><td>How long a request may take before it is
cancelled.</td></tr></table>
<p>The limits apply per account.</p></body></html>"""
RST = """\
Limits
======

Each account has limits.

=============  =======  ====================================================
Setting        Default  Meaning
=============  =======  ====================================================
max_widgets    64       How many widgets one account may own.
timeout        30 s     How long a request may take before it is cancelled.
=============  =======  ====================================================

The limits apply per account.
"""
ADOC = """\
= Widget service

== Limits

Each account has limits.

[cols="1,1,3",options="header"]
|===
|Setting |Default |Meaning
|max_widgets |64 |How many widgets one account may own.
|timeout |30 s |How long a request may take before it is cancelled.
|===

The limits apply per account.
"""


@pytest.mark.parametrize(("name", "body", "header"), [
    ("README.md", README, "| Setting | Default | Meaning |"),
    ("limits.html", PAGE, "Setting | Default | Meaning"),
    ("limits.rst", RST, "Setting | Default | Meaning"),
    ("limits.adoc", ADOC, "Setting | Default | Meaning"),
])
def test_a_tables_header_row_is_a_heading_and_the_row_under_it_answers(
        tmp_path: Path, name: str, body: str, header: str) -> None:
    """A settings table's header names its columns ("Setting | Default | Meaning"); asked
    "What is the default timeout?", citewise quoted that header for its word "Default"
    instead of the row of ``timeout`` (2026-12-07). A Markdown table's header line, an
    HTML table's row of <th> cells, an rST table's head and an AsciiDoc table's header row
    are headings: context for the rows, never the answer; the rule line under a Markdown
    header is not on the page."""
    from citewise import Agent, KnowledgeBase
    from citewise.knowledge.loaders import default_registry

    path = tmp_path / "docs" / name
    path.parent.mkdir()
    path.write_text(body, encoding="utf-8")
    loader = default_registry().for_path(path)
    assert loader is not None
    doc = loader.load(path, path.read_bytes())
    at = doc.text.index(header)
    assert (at, at + len(header), "heading") in doc.roles
    if name.endswith(".md"):
        rule = doc.text.index("|---|")
        assert (rule, rule + len("|---|---|---|"), "hidden") in doc.roles
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([path.parent])
        answer = Agent(kb).ask("What is the default timeout?")
    assert answer.citations, answer.text
    assert "30 s" in answer.citations[0].excerpt, answer.citations[0].excerpt
    assert "Setting" not in answer.citations[0].excerpt


def _roles(name: str, body: str, tmp_path: Path) -> list[tuple[str, str]]:
    from citewise.knowledge.loaders import default_registry

    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    loader = default_registry().for_path(path)
    assert loader is not None
    doc = loader.load(path, path.read_bytes())
    return [(doc.text[a:b], role) for a, b, role in doc.roles]


@pytest.mark.parametrize(("attributes", "header"), [
    ('[options="header"]', True), ("[%header]", True), ("[opts=header]", True),
    ("[%noheader]", False), ('[cols="1,1",options="noheader"]', False),
    ("", True),  # AsciiDoc's implicit header: the first line's cells over a blank line
    ('[options="header"]\n.Limits', True), ("[%noheader]\n.Limits", False),  # a title between
])
def test_an_asciidoc_tables_header_is_as_its_attributes_say(
        tmp_path: Path, attributes: str, header: bool) -> None:
    """A code review (2026-12-07): ``[%noheader]`` was read as AsciiDoc's implicit header,
    and ``opts=header`` not at all."""
    body = f"= T\n\n{attributes}\n|===\n|a |b\n\n|1 |2\n|3 |4\n|===\n".replace("\n\n\n", "\n\n")
    assert (("a | b", "heading") in _roles("t.adoc", body, tmp_path)) is header


def test_a_markdown_header_is_a_table_only_over_a_rule_of_as_many_cells(tmp_path: Path) -> None:
    """A setext heading with a pipe in it (".help([option | boolean])" over "---") is no
    table; a header's and its rule's trailing blanks are no part of their spans (code
    review, 2026-12-07)."""
    body = ("# T\n\n.help([option | boolean])\n---------------------------\n\nText.\n\n"
            "| a | b |  \n|---|---|  \n| 1 | 2 |\n")
    roles = _roles("t.md", body, tmp_path)
    assert (".help([option | boolean])", "heading") in roles
    assert not any(role == "table" and text.startswith(".help") for text, role in roles)
    assert ("| a | b |", "heading") in roles and ("|---|---|", "hidden") in roles


THEAD = PAGE.replace("<table><tr><th>Setting</th><th>Default</th><th>Meaning</th></tr>",
                     "<table><thead><tr><th>Setting</th><th>Default</th><th>Meaning</th></tr>"
                     "</thead><tbody>").replace("</td></tr></table>", "</td></tr></tbody></table>")
SHORT = ("<html><head><title>Widget limits</title></head><body><h1>Widget limits</h1>\n"
         "<p>Each account has limits.</p>\n<table><tr><th>Setting</th><th>Default</th></tr>\n"
         "<tr><td>timeout</td><td>30 s</td></tr>\n<tr><td>retries</td><td>5</td></tr></table>\n"
         "<p>The limits apply per account.</p></body></html>")


@pytest.mark.parametrize(("name", "body"), [("limits.rst", RST), ("README.md", README),
                                            ("limits.adoc", ADOC), ("limits.html", PAGE),
                                            ("thead.html", THEAD), ("short.html", SHORT)])
def test_every_row_under_a_header_is_a_candidate_under_it(
        tmp_path: Path, name: str, body: str) -> None:
    """A code review (2026-12-07): an rST table's header, a heading outside any table span,
    ran into the rows under it up to the first full stop, and the first row was never
    quoted. Each row is a candidate, with the header as its context; the paragraph after
    the table is under its section's heading again, not the header."""
    from citewise.knowledge.ingest.chunking import chunk_text
    from citewise.knowledge.loaders import default_registry
    from citewise.models.sentence_candidates import candidates

    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    loader = default_registry().for_path(path)
    assert loader is not None
    doc = loader.load(path, path.read_bytes())
    chunks = chunk_text("d", doc.text, sections=doc.sections, roles=doc.roles)
    found = candidates([{"results": [
        {"text": c.text, "roles": [list(r) for r in c.roles], "source": name,
         "document_index": 1} for c in chunks]}])
    rows = [s for s in found if "max_widgets" in s.text or "timeout" in s.text]
    if name != "short.html":  # (a <thead> over a <tbody>: the header still heads them)
        assert len(rows) == 2 and all("Default" in s.before for s in rows), rows
    else:  # a row too short to assert is neither an answer nor the next one's heading
        assert not any("retries" in s.text or "retries" in s.before for s in found)
    after = next(s for s in found if s.text == "The limits apply per account.")
    assert "Default" not in after.before and "max_widgets" not in after.before
    assert after.before in ("Limits", "Widget limits", "Widget service Limits")
