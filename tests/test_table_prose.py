"""A table whose cell is a sentence is prose (Doxygen review, 2026-12-04). Table rows rank
below prose (a row of a data-type table answers little on its own), but some generators
put their prose in tables: Doxygen's parameter tables state defaults and limits there
("[in] | x | opus_int32: Allowed values: 0 Disable DTX (default)."), and DocBook's HTML
sets every Note and Caution as a table (the Debian Reference: "For FAT filesystems by its
design, the maximum file size is (2^32 - 1) bytes"). A row whose last cell is a sentence of
six words or more is judged as prose; rows the splitter ran together are still a table."""

from __future__ import annotations

import pytest

from citewise.models.sentence_rank import Sentence, rank, structure_penalty


def _cell(text: str) -> Sentence:
    return Sentence(1, 0, text, "", "ch09.en.html", "Chapter 9. System tips", True,
                    role="table")


@pytest.mark.parametrize("text", [
    "[in] | x | opus_int32: Allowed values: 0 Disable DTX (default).",
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
