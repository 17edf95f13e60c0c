"""mdoc details that lose or garble words when ignored: the predefined names (``.Ux``)
and spacing mode (``.Sm off``), as OpenSSH's pages use them."""

from __future__ import annotations

from functools import partial

from citewise.knowledge.loaders.man import render_man

_SSH = """.Dd $Mdocdate: January 1 2026 $
.Dt TUNNEL 1
.Os
.Sh NAME
.Nm tunnel
.Nd secure tunnels
.Sh DESCRIPTION
X11 connections, arbitrary TCP ports and
.Ux Ns -domain
sockets can also be forwarded.
It connects to
.Ar destination ,
given as either
.Sm off
.Oo user @ Oc hostname
.Sm on
or a URI of the form
.Sm off
.No tunnel:// Oo user @ Oc hostname Op : port .
.Sm on
The user must prove who they are.
Ported from
.Ox
and
.Bx .
"""


def test_predefined_names_print_their_word() -> None:
    text, _, _ = render_man(_SSH)
    assert "TCP ports and UNIX-domain sockets can also be forwarded." in text
    assert "Ported from OpenBSD and BSD." in text


def test_spacing_mode_off_joins_the_words_and_punctuation_closes_the_brackets() -> None:
    text, _, _ = render_man(_SSH)
    assert "given as either [user@]hostname or a URI of the form tunnel://[user@]hostname[:port]." in text
    assert "The user must prove who they are." in text  # spacing is back on after .Sm on


def test_punctuation_inside_a_quote_stays_inside() -> None:
    text, _, _ = render_man(".Dd x\n.Dt A 1\n.Sh DESCRIPTION\nUse\n.Op Fl a , Fl b\nnow.\n")
    assert "Use [-a, -b] now." in text


_CONFIG = """.Dd x
.Dt CONF 5
.Sh DESCRIPTION
.Bl -tag -width Ds
.It Fl D Xo
.Sm off
.Oo Ar bind_address : Oc
.Ar port
.Sm on
.Xc
Forwards a port.
See
.Sx PATTERNS
for more.
.It Xo Ic attach-session
.Op Fl d
.Op Fl t Ar target
.Xc
.D1 Pq alias: Ic attach
If run from outside
.Nm ,
attach.
.El
The list may be obtained using
.Qq ssh -Q cipher .
Fingerprints are shown by
.Xr keygen 1 :
.Pp
.Dl $ keygen -l -f key
.Pp
Each
.Sq n
is an integer \\*(Ge 1; a dot is written
.Ql . ,
closing it.
"""


def test_extended_item_tags_sections_quotes_and_displays() -> None:
    text, _, _ = render_man(".Nm conf\n" + _CONFIG)
    assert "-D [bind_address:]port\n    Forwards a port. See PATTERNS for more." in text
    assert "attach-session [-d] [-t target]\n    (alias: attach)\n" in text
    assert "If run from outside conf, attach." in text  # ``.Nm ,``: the name, then ","
    assert 'may be obtained using "ssh -Q cipher".' in text
    assert "keygen(1):\n\n$ keygen -l -f key\n\nEach" in text
    assert "is an integer ≥ 1; a dot is written ‘.’, closing it." in text
    assert "Xo" not in text and "Xc" not in text


def test_man_strings_tables_and_nested_indents() -> None:
    source = (".TH FIND 1\n.ds Sd \\fISed\\fP\n.SH DESCRIPTION\n\\*(Sd is a stream editor.\n"
              ".TS\nl l l .\nFeature\tAdded in\tAlso occurs in\n\\-files0\\-from\t4.9.0\n"
              "\\-newerXY\t4.3.3\tBSD\n.TE\n"
              ".TP\n.B \\-\\-backup\nMakes backups.\n.RS\n.TP\nnone\nNever.\n.RE\n"
              ".TP\n.B \\-\\-add\\-file\nAdds a file.\n"
              '.TP\n.B "\\-\\-show\\\\-limits"\nShows the limits.\n')
    text, _, _ = render_man(source)
    assert "Sed is a stream editor." in text
    assert ("Feature | Added in | Also occurs in\n-files0-from | 4.9.0\n"
            "-newerXY | 4.3.3 | BSD") in text
    # .RE goes back to where .RS started: the next option is not nested under --backup.
    assert "\n--add-file\n    Adds a file." in text
    assert "\n--show-limits\n    Shows the limits." in text  # ``\\-`` in a macro is "-"


def test_references_and_standard_exit_sentences() -> None:
    source = (".Dd x\n.Dt SCP 1\n.Sh NAME\n.Nm scp\n.Sh EXIT STATUS\n.Ex -std scp\n"
              ".Sh STANDARDS\n.Rs\n.%A T. Ylonen\n.%A C. Lonvick\n.%D January 2006\n"
              ".%R RFC 4251\n.%T The Secure Shell (SSH) Protocol Architecture\n.Re\n")
    text, _, _ = render_man(source)
    assert "The scp utility exits 0 on success, and >0 if an error occurs." in text
    assert ("T. Ylonen and C. Lonvick, The Secure Shell (SSH) Protocol Architecture, "
            "RFC 4251, January 2006.") in text


def test_an_unclosed_table_or_item_tag_loses_no_text() -> None:
    """A page that never closes its ``.TS`` or its ``.It … Xo`` keeps what follows."""
    text, _, sections = render_man(".TH A 1\n.SH ONE\n.TS\nl l .\na\tb\n.SH TWO\nAfter it.\n")
    assert "a | b" in text and "After it." in text
    assert [name for _, _, name in sections] == ["ONE", "TWO"]
    text, _, _ = render_man(".Dd x\n.Dt B 1\n.Sh ONE\n.Bl -tag\n.It Xo Fl v\n.Ar level\n"
                            ".Sh TWO\nStill here.\n")
    assert "-v level" in text and "Still here." in text


_KEYWORDS = """.Dd $Mdocdate: January 1 2026 $
.Dt TUNNEL_CONFIG 5
.Os
.Sh NAME
.Nm tunnel_config
.Nd tunnel configuration file
.Sh DESCRIPTION
.Bl -tag -width Ds
.It Cm KeepAliveSeconds
Sets how long the client waits before it checks the server.
The default is 0, which sends no checks.
.It Cm Compression
Whether to compress.
.El
"""


def test_an_item_tag_is_a_term_and_its_description_a_candidate() -> None:
    from citewise.knowledge.loaders.man import read_man
    from citewise.models.sentence_rank import candidates

    text, _, sections, roles = read_man(_KEYWORDS)
    tag = text.index("KeepAliveSeconds")
    assert (tag, tag + len("KeepAliveSeconds"), "term") in roles
    # and a sub-section: citations say "DESCRIPTION > KeepAliveSeconds", not "DESCRIPTION"
    assert [n for _, _, n in sections] == [
        "NAME", "DESCRIPTION", "DESCRIPTION > KeepAliveSeconds", "DESCRIPTION > Compression"]
    found = candidates([{"results": [{"document_index": 1, "text": text, "title": "",
                                      "source": "tunnel_config.5",
                                      "roles": [list(r) for r in roles]}]}])
    described = next(s for s in found if "Sets how long" in s.text)
    assert described.text.startswith("KeepAliveSeconds") and described.asserts
    default = next(s for s in found if s.text == "The default is 0, which sends no checks.")
    assert "KeepAliveSeconds" in default.before


def test_groff_conditions_take_the_groff_branch() -> None:
    # mawk(1) defines its quotes for groff only; the other branch printed ``\n'' (session 16).
    source = (".TH MINI 1\n.ie \\n(.g .ds `` \\(lq\n.el       .ds `` ``\n"
              ".ie \\n(.g .ds '' \\(rq\n.el       .ds '' ''\n.SH DESCRIPTION\n"
              "Initially, RS = \\*(``\\en\\*('' and records are lines.\n")
    text, _, _ = render_man(source)
    assert "Initially, RS = “\\n” and records are lines." in text


def _section_of(rendered: tuple[str, object, list[tuple[int, int, str]]], phrase: str) -> str:
    """The innermost section of ``render_man``'s text where ``phrase`` is."""
    text, _, sections = rendered
    at = text.index(phrase)
    return [n for a, b, n in sections if a <= at < b][-1]


def test_a_paragraph_after_the_last_option_is_its_sections_again() -> None:
    # df(1): the block-size paragraph after ".TP --version" was cited as
    # "OPTIONS > --version" (new-user review, session 18).
    page = (".TH DF 1\n.SH OPTIONS\n.TP\n\\fB\\-h\\fR, \\fB\\-\\-human\\-readable\\fR\n"
            "print sizes in powers of 1024\n.TP\n\\fB\\-\\-version\\fR\n"
            "output version information and exit\n.PP\n"
            "Display values are in units of the first available SIZE.\n.sp\nMore of it.\n"
            ".SH BUGS\n.TP\n\\-x\nan option\n.sp\nstill the option's\n")
    section_of = partial(_section_of, render_man(page))

    assert section_of("output version") == "OPTIONS > --version"
    assert section_of("Display values") == "OPTIONS"
    assert section_of("More of it") == "OPTIONS"
    assert section_of("still the option's") == "BUGS > -x"  # .sp is no new margin


def test_a_macro_closed_with_blanks_after_the_dot_ends_there() -> None:
    # util-linux's pages (Asciidoctor) close ".  am URL" with ".  ."; read as still open, the
    # block swallowed the rest of fstab(5), which then failed as empty (new-user review).
    page = (".TH FSTAB 5\n.de URL\n\\fI\\\\$2\\fP <\\\\$1>\\\\$3\n..\n"
            ".if \\n[.g] \\{\\\n.  mso www.tmac\n.  am URL\n.    ad l\n.  .\n.\\}\n"
            ".SH DESCRIPTION\nThe file fstab contains descriptive information about the "
            "filesystems the system can mount.\n")
    text, _, _ = render_man(page)
    assert "The file fstab contains descriptive information" in text
    assert "ad l" not in text and "mso" not in text


_TIMER = """.TH "SYSTEMD\\&.TIMER" "5"
.SH "OPTIONS"
.PP
Timer unit files must include a [Timer] section\\&. The options are the following:
.PP
\\fIAccuracySec=\\fR
.RS 4
Specify the accuracy the timer shall elapse with\\&. Defaults to 1min\\&.
.TS
allbox tab(:);
lB lB.
T{
Setting
T}:T{
Meaning
T}
.TE
.RE
.PP
\\fIPersistent=\\fR
.RS 4
Takes a boolean argument\\&. If true, the time when the service unit was last triggered is stored on disk\\&.
.sp
Defaults to
\\fIfalse\\fR\\&.
.RE
.PP
Also see the [Install] section\\&.
.PP
\\fBmask \\fR\\fB\\fIUNIT\\fR\\fR\\fB\\&...\\fR
.RS 4
Mask one or more units, as specified on the command line\\&.
.RE
.SH "SEE ALSO"
.PP
systemd(1)
"""


def test_a_docbook_term_over_an_indented_body_is_an_item() -> None:
    # systemd's pages (made from DocBook) write an option as ".PP", its name, ".RS 4" and
    # its description: every citation said only "OPTIONS", and "Defaults to false." had
    # no subject (new-user review, 2026-12-03).
    rendered = render_man(_TIMER)
    text = rendered[0]
    section_of = partial(_section_of, rendered)

    assert section_of("Specify the accuracy") == "OPTIONS > AccuracySec="
    assert section_of("Defaults to 1min") == "OPTIONS > AccuracySec="
    assert section_of("Defaults to false") == "OPTIONS > Persistent="
    assert section_of("Also see the [Install]") == "OPTIONS"  # back at the margin
    assert section_of("The options are the following") == "OPTIONS"  # a lead-in, no term
    # systemctl's commands end with their arguments' ellipsis, no full stop.
    assert section_of("Mask one or more units") == "OPTIONS > mask UNIT..."
    assert "Setting | Meaning" in text and "T{" not in text and "T}" not in text
