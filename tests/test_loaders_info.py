"""GNU Info manuals (``grep.info.gz``): nodes rendered to text, headings and table items as
sections, examples as code, the node machinery (separators, "File:" lines, menus, the tag
table, "*note" references) left out. Every Debian machine has ``/usr/share/info``; a user
pointing citewise at it was told "no loader for .info files"."""

from __future__ import annotations

import gzip
from pathlib import Path

from tests._sections import section_at

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

   Normally the exit status is 0 if a line is selected (*note Exit
Status::).  *Note Usage::, for examples; the options are described in
*note Invoking::.

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
    # References as makeinfo's HTML reads them: @pxref, @xref, @ref.
    assert ("Normally the exit status is 0 if a line is selected (see Exit Status). See "
            "Usage, for examples; the options are described in Invoking.") in text, text
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


# The review of this loader on sed's, diffutils' and grep's manuals (2026-12-05), abridged.
REVIEWED = """\x1f
File: sed.info,  Node: Options,  Up: Top

2.2 Command-Line Options
========================

‘-i[SUFFIX]’
‘--in-place[=SUFFIX]’
     This option specifies that files are to be edited in-place.

     Be cautious of using ‘-n’ with ‘-i’: the former disables automatic
     printing of lines and the latter changes the file in-place without a
     backup.  Used carelessly the output file will be empty:
          # WRONG USAGE: 'FILE' will be truncated.
          sed -ni 's/foo/bar/' FILE

‘kB’
     kilobyte: 10^3 = 1000.
‘k’
‘K’
‘KiB’
     kibibyte: 2^10 = 1024.

   In the above table, the suffixes are case sensitive.

  2. How do I search a file that is null-terminated?

     Use the ‘-z’ option (*note Other Options::).  Thus, you can
     search such a file.

   ---------- Footnotes ----------

   (1) Note that GNU ‘sed’ creates the backup file whether or not any
output is actually changed.

\x1f
File: diff.info,  Node: patch Messages,  Up: Top

10.1 Messages and Questions from 'patch'
----------------------------------------

* Menu:

* More or Fewer Lines::         When changes do not apply exactly.
* Reversed Patches::            Applying reversed patches.

   'patch' exits with status 0 if all hunks are applied successfully.

\x1f
File: diff.info,  Node: GNU Free Documentation License,  Up: Top

Appendix A GNU Free Documentation License
*****************************************

     Everyone is permitted to copy and distribute verbatim copies
     of this license document, but changing it is not allowed.
"""


def test_lead_ins_items_with_no_blank_line_after_tables_menus_and_the_licence() -> None:
    text, _, sections, roles = read_info(REVIEWED)

    def section_of(words: str) -> str:
        at = text.index(words)
        return [t for a, b, t in sections if a <= at < b][-1]

    def role_of(words: str) -> str | None:
        at = text.index(words)
        return next((r for a, b, r in roles if a <= at < b), None)

    # A lead-in over its example, with no blank line: prose in its item, then code.
    assert section_of("Be cautious of using").endswith("‘-i[SUFFIX]’, ‘--in-place[=SUFFIX]’")
    assert role_of("Be cautious of using") is None
    assert "# WRONG USAGE: 'FILE' will be truncated.\nsed -ni 's/foo/bar/' FILE" in text
    assert role_of("sed -ni") == "code"
    # Items with no blank line between them are items each.
    assert section_of("kibibyte").endswith("‘k’, ‘K’, ‘KiB’")
    assert role_of("‘KiB’") == "term"
    # The text after a table is its section's, not the last item's; so is a footnote.
    assert section_of("In the above table") == "2.2 Command-Line Options"
    assert section_of("(1) Note that GNU") == "2.2 Command-Line Options"
    # A numbered item's later paragraph is prose, its reference read as HTML reads it.
    assert "Use the ‘-z’ option (see Other Options). Thus, you can search such a file." \
        in text and role_of("Use the ‘-z’") is None
    # The text after a menu is kept; the menu is not.
    assert "'patch' exits with status 0 if all hunks are applied successfully." in text
    assert "Reversed Patches" not in text and "Menu" not in text
    # The licence is a notice.
    assert role_of("Everyone is permitted to copy") == "notice"


# A second review (read-only, on all 48 manuals of /usr/share/info), abridged.
SECOND = """\x1f
File: python.info,  Node: Built-in Functions,  Up: Top

5.2 Built-in Functions
======================

 -- Function: len (s)

     Return the length (the number of items) of an object.

     The argument may be a sequence or a collection.

‘-u’
‘--unique’

     Normally, output only the first of a sequence of lines that compare
     equal.

  15. How can I match across lines?

     Standard grep cannot do this, as it is fundamentally line-based.

* Menu:

* Introduction::
 -- The Detailed Node Listing --
Introduction
* Overview::                   What it does.

\x1f
File: coreutils.info,  Node: Copying Existing Permissions,  Up: Top

27.2.2 Copying Existing Permissions
-----------------------------------

   You can base a file’s permissions on its existing permissions.
"""


def test_definitions_terms_over_a_blank_line_listings_and_split_manuals(tmp_path: Path) -> None:
    text, _, sections, roles = read_info(SECOND)

    def role_of(words: str) -> str | None:
        at = text.index(words)
        return next((r for a, b, r in roles if a <= at < b), None)

    def section_of(words: str) -> str:
        at = text.index(words)
        return [t for a, b, t in sections if a <= at < b][-1]

    # A definition (@deffn) is an item; its paragraphs are prose, not code.
    assert section_of("The argument may be").endswith("> Function: len (s)")
    assert role_of("The argument may be") is None and role_of("Function: len") == "term"
    # A term with a blank line under it is still an item.
    assert section_of("Normally, output only").endswith("‘-u’, ‘--unique’")
    assert role_of("Normally, output only") is None
    # The paragraphs of a list's fifteenth item are prose.
    assert role_of("Standard grep cannot") is None
    # A detailed node listing is menu, not text; a section named "Copying …" no licence.
    assert "Detailed Node Listing" not in text and "Overview" not in text
    assert role_of("You can base a file") is None
    # A split manual's first file: many nodes in its tag table, a DEL byte each, is no
    # binary file; hostile layouts end quickly.
    tags = "".join(f"Node: Node {n}\x7f{n * 100}\n" for n in range(300))
    first = ("This is find.info, produced by makeinfo.\n\nThis manual documents find.\n\n"
             f"\x1f\nIndirect:\nfind.info-1: 1201\n\x1f\nTag Table:\n(Indirect)\n{tags}"
             "\x1f\nEnd Tag Table\n")
    doc = InfoLoader().load(tmp_path / "find.info", first.encode())
    assert "This manual documents find." in doc.text
    menu = "\x1f\nFile: x.info,  Node: Top\n\nTop\n***\n\n* Menu:\n\n* A::\n" + "\n" * 40_000
    assert read_info(menu + "   The text after it.\n")[0].endswith("The text after it.")
    stair = "\x1f\nFile: x.info,  Node: Top\n\n" + "\n".join(" " * (5 * i) + "x"
                                                            for i in range(1200))
    assert read_info(stair)[0].count("x") >= 1200


def test_a_multitables_rows_keep_their_columns() -> None:
    # sed's table of BRE and ERE syntax: each row's cells wrap over lines; read as prose it
    # ran into "literal ‘+’ (plus $ echo 'a+b=c' > foo $ echo …".
    node = ("\x1f\nFile: sed.info,  Node: BRE vs ERE,  Up: Top\n\n5.2 Basic and Extended\n"
            "======================\n\n"
            "Desired pattern      Basic (BRE) Syntax         Extended (ERE) Syntax\n\n"
            "--------------------------------------------------------------------------\n"
            "literal ‘+’ (plus         $ echo 'a+b=c' > foo       $ echo 'a+b=c' > foo\n"
            "sign)                     $ sed -n '/a+b/p' foo      $ sed -E -n '/a\\+b/p' foo\n"
            "\n   The rest is prose.  It has two spaces between sentences.\n")
    text, _, _, roles = read_info(node)
    rows = ("literal ‘+’ (plus         $ echo 'a+b=c' > foo       $ echo 'a+b=c' > foo\n"
            "sign)                     $ sed -n '/a+b/p' foo      $ sed -E -n '/a\\+b/p' foo")
    assert rows in text, text
    tables = {text[a:b] for a, b, role in roles if role == "table"}
    assert any(rows in t for t in tables), tables
    assert "Desired pattern      Basic (BRE) Syntax" in text
    assert "The rest is prose. It has two spaces between sentences." in text


# grep's ‘GREP_COLORS’ item holds a table of its own (makeinfo nests it five columns in),
# then goes on in its own text; a list inside an item, then the item's next paragraph.
NESTED = """\x1f
File: grep.info,  Node: Environment Variables,  Up: Invoking

2.2 Environment Variables
=========================

‘GREP_COLORS’
     This variable controls how the ‘--color’ option highlights output.

     Supported capabilities are as follows.

     ‘sl=’
          SGR substring for whole selected lines.  The default is empty.

     ‘cx=’
          SGR substring for whole context lines.

     Note that boolean capabilities have no ‘=’ part.

        • One item of a list in the item's text.

     The item's text again, after its list.

‘LC_ALL’
     These variables specify the locale.

   Back in the section's own text.
"""


def test_a_table_in_an_items_text_is_nested_in_that_item_and_the_item_goes_on_after_it() -> None:
    text, _, sections, roles = read_info(NESTED)
    where = {}
    for start, stop, path in sections:
        for probe in ("The default is empty.", "whole context lines", "boolean capabilities",
                      "One item of a list", "The item's text again", "specify the locale",
                      "section's own text"):
            if start <= text.index(probe) < stop:
                where[probe] = path
    top = "2.2 Environment Variables"
    colors = f"{top} > ‘GREP_COLORS’"
    # Before, ‘sl=’ and ‘cx=’ were items of the section beside ‘GREP_COLORS’, and the text
    # after them was the section's, or code.
    assert where["The default is empty."] == f"{colors} > ‘sl=’"
    assert where["whole context lines"] == f"{colors} > ‘cx=’"
    assert where["boolean capabilities"] == colors
    assert where["One item of a list"] == colors
    assert where["The item's text again"] == colors
    assert where["specify the locale"] == f"{top} > ‘LC_ALL’"
    assert where["section's own text"] == top
    code = [text[a:b] for a, b, role in roles if role == "code"]
    assert not code, code
    assert "Note that boolean capabilities have no ‘=’ part." in text
    assert "The item's text again, after its list." in text


# Python's manual as Sphinx writes it to Info: a "See also" rubric in an option's text;
# find's maintainers' manual: an advisory quoted as an example, its titles underlined.
RUBRICS = """\x1f
File: python.info,  Node: Command line,  Up: Top

3.1.1 Command line
------------------

 -- Program Option: -m <module-name>

     Search ‘sys.path’ for the named module and execute it.

     See also
     ........

     PEP 338 – Executing modules as scripts.

‘-c <command>’
     Execute the Python code in COMMAND.

   An advisory:

     I. BACKGROUND
     =============

     The GNU project discovered the problem.
"""


def test_a_rubric_in_an_items_text_is_its_sub_section_and_an_examples_title_is_code() -> None:
    text, _, sections, roles = read_info(RUBRICS)


    option = "3.1.1 Command line > Program Option: -m <module-name>"
    # Before, "See also" was a section beside the chapter's, and ended the option's item.
    assert section_at(text, sections, "PEP 338") == f"{option} > See also"
    assert section_at(text, sections, "Execute the Python code") == "3.1.1 Command line > ‘-c <command>’"
    headings = {text[a:b] for a, b, role in roles if role == "heading"}
    assert "See also" in headings and "I. BACKGROUND" not in headings
    code = {text[a:b] for a, b, role in roles if role == "code"}
    assert any(c.startswith("I. BACKGROUND\n=============") for c in code), code
    assert section_at(text, sections, "The GNU project") == "3.1.1 Command line"


def test_definitions_whose_lines_wrap_are_siblings_not_nested() -> None:
    # liboctave's manual (a review of the change, 2026-12-05): two wrapped " -- :" lines
    # per block recorded their text at column 1, never closed, and each definition nested
    # in the one before — 22 levels deep, path strings growing quadratically.
    block = (" -- : V {0}1 (const V &A,\n          double S)\n -- : V {0}2 (double S,\n"
             "          const V &A)\n\n")
    source = ("\x1f\nFile: t.info,  Node: Top,  Up: (dir)\n\n1 Ops\n*****\n\n"
              + "".join(block.format(f) for f in ("add", "mul", "div")))
    _, _, sections, _ = read_info(source)
    paths = [p for _, _, p in sections]
    assert len(paths) == 4 and all(p.count(" > ") <= 1 for p in paths), paths
    # Bullets at the margin, with their lines unindented, are siblings too.
    bullets = ("\x1f\nFile: t.info,  Node: Top,  Up: (dir)\n\n1 Ops\n*****\n\n"
               + "".join(f"- point {i}\nmore words\n\n" for i in range(50))
               + " -- : V last (x)\n     Does it.\n")
    _, _, sections, _ = read_info(bullets)
    assert sections[-1][2] == "1 Ops > V last (x)"


GUILE = ("\x1f\nFile: guile.info,  Node: Foreign Functions,  Up: Foreign Function Interface\n\n"
         "6.19.5 Foreign Functions\n------------------------\n\n"
         " -- Scheme Procedure: pointer->procedure return_type func_ptr arg_types\n"
         "          [#:return-errno?=#f]\n"
         " -- C Function: scm_pointer_to_procedure (return_type, func_ptr,\n"
         "          arg_types)\n\n"
         "     Make a foreign function.\n\n"
         "     ARG_TYPES should be a list of foreign types.  ‘return_type’ should\n"
         "     be a foreign type.  *Note Foreign Types::, for more information on\n"
         "     foreign types.\n\n"
         " -- Scheme Procedure: make-regexp pat flag...\n"
         "     Compile the regular expression described by PAT.  The following\n"
         "     values may be supplied:\n\n"
         "      -- Variable: regexp/icase\n"
         "          Consider uppercase and lowercase letters to be the same when\n"
         "          matching.\n\n"
         "      -- Variable: regexp/newline\n"
         "          If a newline appears in the target string, then permit the\n"
         "          ‘^’ operator to match after it.\n\n"
         " -- Exception Type: &error\n"
         "     An exception type denoting errors.\n"
         " -- Scheme Procedure: make-error\n"
         " -- Scheme Procedure: error? obj\n"
         "     Constructor and predicate for ‘&error’ exception objects.\n\n"
         "   Suppose you wrote a script starting\nlike this:\n"
         "     #!/usr/local/bin/guile -e main -s\n     !#\n     (define (main args)\n"
         "       (newline))\n"
         "   The intended meaning is clear: load the file, and then call ‘main’ on\n"
         "the command-line arguments.\n")


def test_guiles_definitions_wrapped_nested_and_run_together_are_each_an_entry() -> None:
    """Guile's reference manual (new-user review, 2026-12-07): a definition's line that
    wraps lost its "[#:return-errno?=#f]" and its text after was kept as code with a raw
    "*Note"; a definition in an item's text ("-- Variable: regexp/icase"), or one right
    after another's text, ran into its description; an example with prose right after it
    was glued to it ("(newline)) The intended meaning is clear: …")."""
    text, _, sections, roles = read_info(GUILE)
    assert ("\n\nScheme Procedure: pointer->procedure return_type func_ptr arg_types "
            "[#:return-errno?=#f]\nC Function: scm_pointer_to_procedure (return_type, "
            "func_ptr, arg_types)\n\nMake a foreign function.") in text
    assert ("‘return_type’ should be a foreign type. See Foreign Types, for more "
            "information on foreign types.") in text
    assert "\n\nVariable: regexp/icase\nConsider uppercase and lowercase letters" in text
    assert "\n\nVariable: regexp/newline\nIf a newline appears" in text
    assert ("An exception type denoting errors.\n\nScheme Procedure: make-error\n"
            "Scheme Procedure: error? obj\nConstructor and predicate") in text
    assert "(newline))\n\nThe intended meaning is clear: load the file" in text
    code = [text[a:b] for a, b, role in roles if role == "code"]
    assert code == ["#!/usr/local/bin/guile -e main -s\n!#\n(define (main args)\n  (newline))"]
    assert section_at(text, sections, "Consider uppercase").endswith(
        "> Scheme Procedure: make-regexp pat flag... > Variable: regexp/icase")


def test_a_split_manuals_table_of_parts_is_no_text() -> None:
    """Guile's guile.info.gz (review, 2026-12-07) was stored as plain text: its preamble,
    its "Indirect:" table of parts and "Local Variables:" — no node, so no Info file."""
    main = ("This is guile.info, produced by makeinfo version 6.8 from guile.texi.\n\nThis "
            "manual documents Guile version 3.0.8.\n\n\x1f\nIndirect:\nguile.info-1: 722\n"
            "guile.info-2: 306701\n\x1f\nTag Table:\n(Indirect)\nNode: Top\x7f722\n\x1f\nEnd "
            "Tag Table\n\n\x1f\nLocal Variables:\ncoding: utf-8\nEnd:\n")
    doc = InfoLoader().load(Path("guile.info"), main.encode())
    assert doc.text == ("This is guile.info, produced by makeinfo version 6.8 from "
                        "guile.texi.\n\nThis manual documents Guile version 3.0.8."), doc.text


def test_the_code_reviews_info_layouts_read_as_before_or_better() -> None:
    """The code review of the Guile mends (2026-12-07), on GNU manuals: a bullet's wrapped
    line was read as an example (coreutils' "• Lines that do not start with numbers (all
    considered to be" over "equal)."); a definition's category with punctuation or a digit
    was no definition ("-- Method on Array<T>:", "-- 2to3fixer:"); a lead-in over a
    table's first term made the term's text code (sed's "They operate as follows:" over
    "‘D’"); an example's lines became a table item (paste's)."""
    node = "\x1f\nFile: t.info,  Node: Top,  Up: (dir)\n\n1 Ops\n*****\n\n"
    text, _, _, roles = read_info(
        node + "   • Matching lines normally use ‘:’ as a separator between prefix\n"
        "     fields and actual line content.\n   • Context lines use ‘-’ instead.\n\n"
        " -- Method on Array<T>: int length (void) const\n     Return the length.\n\n"
        " -- 2to3fixer: apply\n\n     Removes usage of ‘apply()’.\n\n"
        "   They operate as follows:\n‘D’\n     _deletes_ line from the pattern space, and\n"
        "     restarts the cycle.\n\n"
        "   Take lines sequentially from each file:\n     $ paste num2 let3\n     1       a\n"
        "     2       b\n             c\n")
    kinds = {(role, text[a:b].split("\n")[0]) for a, b, role in roles}
    assert ("list_item", "• Matching lines normally use ‘:’ as a separator between prefix "
            "fields and actual line content.") in kinds
    assert ("term", "Method on Array<T>: int length (void) const") in kinds
    assert ("term", "2to3fixer: apply") in kinds and ("term", "‘D’") in kinds
    assert ("code", "$ paste num2 let3") in kinds
    assert not any(role == "code" and ("deletes" in t or "apply()" in t)
                   for role, t in kinds)
    assert "They operate as follows:\n\n‘D’\n_deletes_ line from the pattern space" in text


def test_a_list_set_in_past_the_margin_is_a_list_not_code() -> None:
    """The second code review (2026-12-07): the Debian Policy Manual's list of
    Rules-Requires-Root values, bullets at column 8 with their lines at 10, was read as code
    once a bullet's lines were measured from its text."""
    node = "\x1f\nFile: x.info,  Node: N,  Up: Top\n\nN\n*\n\n"
    text, _, _, roles = read_info(
        node + "The field can consist of exactly one of the following items:\n\n"
        "        - ‘no’: Declares that neither root nor fakeroot is required.\n"
        "          Package builders may choose to invoke any target.\n\n"
        "        - ‘binary-targets’ (default): Declares that the package will\n"
        "          need the root.\n")
    assert [(role, text[a:b]) for a, b, role in roles if role != "heading"] == [
        ("list_item", "- ‘no’: Declares that neither root nor fakeroot is required. Package "
                      "builders may choose to invoke any target."),
        ("list_item", "- ‘binary-targets’ (default): Declares that the package will need the "
                      "root.")]
