"""A table whose cell is a sentence is prose (Doxygen review, 2026-12-04). Table rows rank
below prose (a row of a data-type table answers little on its own), but some generators
put their prose in tables: Doxygen's parameter tables state defaults and limits there
("[in] | x | opus_int32: Allowed values: 0 Disable DTX (default)."), and DocBook's HTML
sets every Note and Caution as a table (the Debian Reference: "For FAT filesystems by its
design, the maximum file size is (2^32 - 1) bytes"). A row whose last cell is a sentence of
six words or more is judged as prose; rows the splitter ran together are still a table."""

from __future__ import annotations

import pytest

from pathlib import Path

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
