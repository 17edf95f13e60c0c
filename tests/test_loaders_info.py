"""GNU Info manuals (``grep.info.gz``): nodes rendered to text, headings and table items as
sections, examples as code, the node machinery (separators, "File:" lines, menus, the tag
table, "*note" references) left out. Every Debian machine has ``/usr/share/info``; a user
pointing citewise at it was told "no loader for .info files"."""

from __future__ import annotations

import gzip
from pathlib import Path

from citewise.knowledge.loaders import discover
from citewise.knowledge.loaders.info import InfoLoader, read_info

# grep's manual as makeinfo 6.8 writes it, abridged.
GREP = """This is grep.info, produced by makeinfo version 6.8 from grep.texi.

INFO-DIR-SECTION Text creation and manipulation
START-INFO-DIR-ENTRY
* grep: (grep).                 Print lines that match patterns.
END-INFO-DIR-ENTRY

\x1f
File: grep.info,  Node: Top,  Next: Invoking,  Up: (dir)

grep
****

‘grep’ prints lines that contain a match for one or more patterns.

* Menu:

* Invoking::                    Command-line options, environment, exit status.

\x1f
File: grep.info,  Node: Invoking,  Next: Exit Status,  Prev: Top,  Up: Top

2 Invoking ‘grep’
*****************

The general synopsis of the ‘grep’ command line is

     grep [OPTION...] [PATTERNS] [FILE...]

2.1.3 General Output Control
----------------------------

‘-c’
‘--count’
     Suppress normal output; instead print a count of matching lines for
     each input file.  With the ‘-v’ (‘--invert-match’) option, count
     non-matching lines.

     For example:

          grep -c pattern file

‘-m NUM’
‘--max-count=NUM’
     Stop after the first NUM selected lines.

   Normally the exit status is 0 if a line is selected; *note Exit
Status::, for more.

\x1f
File: grep.info,  Node: Index,  Prev: Invoking,  Up: Top

Index
*****

\x00\x08[index\x00\x08]
* Menu:

* --count:                               General Output Control.
                                                              (line  6)

\x1f
Tag Table:
Node: Top\x7f217
Node: Invoking\x7f2052
\x1f
End Tag Table
"""


def test_nodes_read_as_text_with_their_headings_and_items_as_sections() -> None:
    text, title, sections, _ = read_info(GREP)
    assert title == "grep"
    assert "File:" not in text and "Menu" not in text and "Tag Table" not in text
    assert "\x1f" not in text and "INFO-DIR" not in text and "(line  6)" not in text
    assert ("‘-c’\n‘--count’\nSuppress normal output; instead print a count of matching "
            "lines for each input file. With the ‘-v’ (‘--invert-match’) option, count "
            "non-matching lines.") in text, text
    assert "Normally the exit status is 0 if a line is selected; see Exit Status, for more." \
        in text
    titles = [t for _, _, t in sections]
    assert "2 Invoking ‘grep’ > 2.1.3 General Output Control > ‘-c’, ‘--count’" in titles
    assert "2 Invoking ‘grep’ > 2.1.3 General Output Control > ‘-m NUM’, ‘--max-count=NUM’" \
        in titles
    at = text.index("Suppress normal output")
    count = next(s for s in sections if s[2].endswith("‘--count’"))
    assert count[0] <= at < count[1]


def test_examples_are_code_and_an_items_second_paragraph_is_prose() -> None:
    text, _, _, roles = read_info(GREP)
    code = {text[a:b] for a, b, role in roles if role == "code"}
    assert "grep [OPTION...] [PATTERNS] [FILE...]" in code
    assert "grep -c pattern file" in code
    assert "For example:" in text and "For example:" not in code
    terms = {text[a:b] for a, b, role in roles if role == "term"}
    assert "‘-c’\n‘--count’" in terms


def test_an_info_file_inside_gz_and_a_split_manuals_part_are_loaded(tmp_path: Path) -> None:
    registry = discover()
    for name in ("grep.info.gz", "find.info-2.gz"):
        path = tmp_path / name
        path.write_bytes(gzip.compress(GREP.encode()))
        loader = registry.for_path(path)
        assert loader is not None, name
        doc = loader.load(path, path.read_bytes())
        assert doc.title == "grep" and "Suppress normal output" in doc.text
    # A file named so without a node is text as it is.
    plain = InfoLoader().load(Path("notes.info"), b"Just some notes.\n")
    assert plain.text == "Just some notes.\n" and plain.content_type == "text/plain"


def test_a_split_manuals_first_file_reads_as_its_preamble() -> None:
    # find.info.gz holds no node: they are in find.info-1 and find.info-2. It was an
    # "empty document" error for every split manual of /usr/share/info.
    first = ("This is find.info, produced by makeinfo version 6.8 from find.texi.\n\n"
             "This manual documents version 4.9.0 of the GNU utilities for finding\nfiles.\n"
             "INFO-DIR-SECTION Basics\nSTART-INFO-DIR-ENTRY\n* Finding files: (find).  "
             "Operating on files.\nEND-INFO-DIR-ENTRY\n\n\x1f\nIndirect:\nfind.info-1: 1201\n"
             "\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f1201\n\x1f\nEnd Tag Table\n")
    text = read_info(first)[0]
    assert "This manual documents version 4.9.0 of the GNU utilities for finding files." \
        in text, text
    assert "INFO-DIR" not in text and "Indirect" not in text and "Finding files:" not in text
