"""A man page's own macros (``.de``), read as roff reads them (man loader 10).

New-user review of Tcl 8.6's manual (``tcl8.6-doc``, 2026-12-05): every page defines its
quoting macros (``.QW args ,`` prints “args”,), its code displays (``.CS`` … ``.CE``) and its
C arguments (``.AP "unsigned int" size in``) itself, and the loader skipped definitions and
calls alike: "If the last formal argument has the name then a call …", examples as prose,
six of thirty answers lost. Debian names these pages ``proc.3tcl.gz``, which was refused.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from citewise.knowledge.loaders import discover
from citewise.knowledge.loaders.man import read_man

# Tcl's man.macros, as every page of tcl8.6-doc carries them (abridged to what is used).
MACROS = r""".de AP
.ie !"\\$4"" .TP \\$4
.el \{\
.   ie !"\\$2"" .TP \\n()Cu
.   el          .TP 15
.\}
.ta \\n()Au \\n()Bu
.ie !"\\$3"" \{\
\&\\$1 \\fI\\$2\\fP (\\$3)
.\".b
.\}
.el \{\
.br
.ie !"\\$2"" \{\
\&\\$1	\\fI\\$2\\fP
.\}
.el \{\
\&\\fI\\$1\\fP
.\}
.\}
..
.de CS
.RS
.nf
.ta .25i .5i .75i 1i
..
.de CE
.fi
.RE
..
.de QW
.ie '\\*(lq'"' ``\\$1''\\$2
.\"" fix emacs highlighting
.el \\*(lq\\$1\\*(rq\\$2
..
.de PQ
.ie '\\*(lq'"' (``\\$1''\\$2)\\$3
.\"" fix emacs highlighting
.el (\\*(lq\\$1\\*(rq\\$2)\\$3
..
"""

PROC = MACROS + r""".TH proc n "" Tcl "Tcl Built-In Commands"
.SH NAME
proc \- Create a Tcl procedure
.SH SYNOPSIS
.nf
\fBproc \fIname args body\fR
.SH DESCRIPTION
If the last formal argument has the name
.QW \fBargs\fR ,
then a call to the procedure may contain more actual arguments.
Sort the list in increasing order
.PQ smallest "items first" .
This is the default.
.SH EXAMPLES
.PP
It returns the string
.QW OK
to the caller.
.CS
\fBproc\fR printSumProduct {x y} {
    return "OK"
}
.CE
.SH ARGUMENTS
.AP "unsigned int" size in
Size in bytes of the memory block to allocate.
.AP char *ptr in
Pointer to memory block to free.
"""


def test_a_pages_own_quoting_macros_keep_their_words() -> None:
    text = read_man(PROC)[0]
    assert "If the last formal argument has the name “args”, then a call to the procedure" \
        in text, text
    # As groff prints it: the page forgot the space before "items first".
    assert "Sort the list in increasing order (“smallest”items first). This is the default." \
        in text, text
    assert "It returns the string “OK” to the caller." in text


def test_a_pages_own_code_display_is_code_line_for_line() -> None:
    text, _, _, roles = read_man(PROC)
    code = 'proc printSumProduct {x y} {\n        return "OK"\n    }'
    assert code in text, text
    at = text.index("proc printSumProduct")
    assert any(a <= at < b and role == "code" for a, b, role in roles)


def test_c_arguments_are_items_and_a_heading_fills_again() -> None:
    # The SYNOPSIS's ".nf" has no ".fi": groff's .SH fills again, and so does the loader
    # (the arguments were code, their tags never taken; DESCRIPTION's first line was one).
    text, _, sections, _ = read_man(PROC)
    assert "ARGUMENTS\n\nunsigned int size (in)\n    Size in bytes of the memory block to " \
        "allocate.\n\nchar *ptr (in)\n    Pointer to memory block to free." in text, text
    titles = [t for _, _, t in sections]
    assert "ARGUMENTS > unsigned int size (in)" in titles and "ARGUMENTS > char *ptr (in)" \
        in titles
    assert "DESCRIPTION\n\nIf the last formal argument" in text


def test_a_hostile_pages_macros_are_bounded_by_what_they_write() -> None:
    # A review of the change (2026-12-05): the budget counted lines, so a macro doubling its
    # arguments each call never ended, and one long line called 5,000 times wrote 100 MB.
    looping = ".TH loop 1\n.de X\nagain\n.X\n..\n.SH NAME\nloop \\- a hostile page\n.X\n"
    text = read_man(looping)[0]
    assert text.startswith("NAME\n\nloop - a hostile page again again")
    assert len(text) <= 110_000
    doubling = ".TH x 1\n.SH NAME\n.de X\n.X \\\\$* \\\\$*\n..\n.X a\n"
    assert len(read_man(doubling)[0]) <= 110_000
    wide = ".TH x 1\n.SH NAME\n.de X\n" + "word " * 4000 + "\n..\n" + ".X\n" * 5000
    assert len(read_man(wide)[0]) <= 8 * len(wide) + 110_000
    many = ".TH x 1\n.SH NAME\n.de X\n" + "\\\\$1 " * 4000 + "\n..\n.X " + "a" * 40_000 + "\n"
    assert len(read_man(many)[0]) <= 110_000  # refused before it is written: not 150 MB
    nested = ".TH x 1\n.SH NAME\n" + ".if n " * 16_000 + "x\n"  # conditions in a row
    assert read_man(nested)[0].startswith("NAME")


def test_each_el_pairs_with_its_own_ie() -> None:
    # One "else" slot, overwritten by .if and by an inner .ie, printed both branches.
    page = (".TH x 1\n.SH NAME\n.ie n .if t troff-only\n.el nroff-else\n"
            ".ie n \\{\\\n.ie t inner-troff\n.el inner-nroff\n.\\}\n.el outer-else\nend\n")
    text = read_man(page)[0]
    assert "nroff-else" not in text and "outer-else" not in text and "troff-only" not in text
    assert "inner-nroff end" in text, text


def test_appends_a_custom_end_and_the_macros_own_name() -> None:
    page = (".TH x 1\n.de X END\nfirst \\\\$0\n.END\n.am X\nsecond\n..\n.SH NAME\n.X\n")
    assert read_man(page)[0] == "NAME\n\nfirst X second"


def test_a_pages_own_option_macro_and_a_code_display_after_a_paragraph() -> None:
    # Tk's pages define .OP (man(7)'s is an option's synopsis): theirs is used. Tcl's .CS
    # opens with ".RS", no indent given: no DocBook term (DocBook writes ".RS 4").
    page = MACROS + (".de OP\n.LP\n.nf\nCommand-Line Name:\t\\\\fB\\\\$1\\\\fR\n.fi\n.IP\n..\n"
                     ".TH button n\n.SH \"WIDGET-SPECIFIC OPTIONS\"\n.OP \\-command command "
                     "Command\nSpecifies a Tcl command.\n.SH EXAMPLE\n.PP\nIf you create a "
                     "script whose first line is\n.CS\n#!/usr/bin/wish\n.CE\nthen it runs.\n")
    text, _, sections, _ = read_man(page)
    assert "Command-Line Name:" in text and "-command" in text
    assert [t for _, _, t in sections if t.startswith("EXAMPLE")] == ["EXAMPLE"], sections


def test_the_structure_macros_keep_their_meaning_when_a_page_redefines_them() -> None:
    # Old pod2man pages define ".Sh" as a bold paragraph; mdoc's section stays one.
    page = ".TH x 1\n.de SH\n.B \\\\$1\n..\n.SH OPTIONS\nText.\n"
    assert read_man(page)[2][0][2] == "OPTIONS"


def test_debians_tcl_page_names_are_man_pages(tmp_path: Path) -> None:
    registry = discover()
    path = tmp_path / "proc.3tcl.gz"
    path.write_bytes(gzip.compress(PROC.encode()))
    loader = registry.for_path(path)
    assert loader is not None
    doc = loader.load(path, path.read_bytes())
    assert "“args”" in doc.text and doc.title == "proc(n)"


def test_a_refusal_names_the_format_inside_the_gz(tmp_path: Path) -> None:
    # "citewise does not read .gz files" was the refusal of proc.3tcl.gz: it reads them.
    from citewise import KnowledgeBase

    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        bad = kb.ingest_bytes("notes.3zz.gz", gzip.compress(PROC.encode()))
    assert [f.code for f in bad.failed] == ["unsupported_format"]
    assert "does not read .3zz files (inside .gz)" in bad.failed[0].message
