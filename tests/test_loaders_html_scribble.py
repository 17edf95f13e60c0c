"""Scribble's pages, as Racket's documentation is built (new-user review of Debian's
``racket-doc`` 8.7, 2026-12-06): code, signatures and grammars drawn as tables of spacer
cells were read as rows of cells ("(tcp-listen | | port-no | | | | …"), the contents
sidebar opened every page ("► | 15 | Operating System"), and a margin note pointing into
another manual was quoted as the answer (a note that says something of its own is read).
The fixture keeps Scribble's markup as 8.7 writes it."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

H = '<span class="hspace">&nbsp;</span>'
H2 = '<span class="hspace">&nbsp;&nbsp;</span>'


def _cells(*cells: str) -> str:
    return "".join(f'<td valign="top">{c}</td>' for c in cells)


PAGE = f"""<html><head><title>15.3.1&nbsp;TCP</title>
<script type="text/javascript" src="../scribble-common.js"></script></head>
<body id="doc-racket-lang-org"><div class="tocset"><div class="tocview"><div
class="tocviewlist"><table cellspacing="0" cellpadding="0"><tr><td style="width: 1em;"><a
href="javascript:void(0);" class="tocviewtoggle">&#9658;</a></td><td>15&nbsp;</td><td><a
href="os.html" class="tocviewlink">Operating System</a></td></tr></table></div></div><div
class="tocsub"><div class="tocsubtitle">On this page:</div><table class="tocsublist"
cellspacing="0"><tr><td><a href="#tcp-listen" class="tocsubseclink">tcp-listen</a></td></tr>
</table></div></div><div class="maincolumn"><div class="main"><div class="navsettop"><span
class="navleft"><form class="searchform"><input class="searchbox" placeholder="...search
manuals..."/></form>&nbsp;&nbsp;<a href="index.html">top</a></span></div>
<h4 x-source-module="(lib scribblings/reference/reference.scrbl)">15.3.1&nbsp;TCP</h4>
<table cellspacing="0" cellpadding="0" class="defmodule"><tr><td align="left">{H}<span
class="RktPn">(</span>require<span class="stt"> </span>racket/tcp<span class="RktPn">)</span></td
><td align="right"><span class="RpackageSpec"><span class="Smaller">&nbsp;package:</span>
base</span></td></tr></table>
<blockquote class="refpara"><blockquote class="refcolumn"><blockquote class="refcontent"><p>
<span class="imageleft"><img src="magnify.png" alt="+"/></span><a href="x.html">Networking</a>
in The Racket Guide introduces sockets.</p></blockquote></blockquote></blockquote>
<blockquote class="refpara"><blockquote class="refcolumn"><blockquote class="refcontent"><p>
Use a custodian to close every listener at once.</p></blockquote></blockquote></blockquote>
<p>For information about TCP in general, see a book.</p>
<div class="SIntrapara"><blockquote class="SVInsetFlow"><table cellspacing="0"
cellpadding="0" class="boxed RBoxed"><tr><td><blockquote class="SubFlow"><div
class="RBackgroundLabel SIEHidden"><div class="RBackgroundLabelInner"><p>procedure</p></div>
</div><table cellspacing="0" cellpadding="0" class="prototype RForeground">
<tr>{_cells('<span class="RktPn">(</span><a name="tcp-listen"></a><a href="#tcp-listen" '
            'class="RktValDef RktValLink">tcp-listen</a>', H, "port-no",
            H, H)}</tr>
<tr>{_cells(H, H + '<span class="RktOpt">[</span>', "max-allow-wait", H, H)}</tr>
<tr>{_cells(H, H, 'reuse?<span class="RktOpt">]</span><span class="RktPn">)</span>', H,
            "&rarr;" + H + "tcp-listener?")}</tr></table></blockquote></td></tr>
<tr><td>{H2}port-no{H}:{H}listen-port-number?</td></tr>
<tr><td>{H2}max-allow-wait{H}:{H}exact-nonnegative-integer?{H}={H}4</td></tr>
<tr><td><table cellspacing="0" cellpadding="0" class="argcontract"><tr>{_cells(
    H2, "reuse?", H, ":", H, "any/c")}</tr></table></td></tr></table></blockquote></div>
<div class="SIntrapara">Creates a listening server at the port number specified by port-no.
If port-no is 0 the socket binds to an ephemeral port.</div>
<blockquote class="SCodeFlow"><table cellspacing="0" cellpadding="0" class="RktBlk">
<tr><td><span class="stt">&gt; </span>(define{H}(serve{H}port)</td></tr>
<tr><td>{H2}(tcp-listen{H}port))</td></tr></table></blockquote>
<table cellspacing="0" cellpadding="0" class="specgrammar"><tr><td align="right">flags</td>
<td><span class="stt">&nbsp;</span></td><td align="center">=</td><td><span
class="stt">&nbsp;</span></td><td>flag-string</td></tr><tr><td align="right"><span
class="stt">&nbsp;</span></td><td><span class="stt">&nbsp;</span></td><td
align="center">|</td><td><span class="stt">&nbsp;</span></td><td>(flag-string ...+)</td>
</tr></table>
<div class="navsetbottom"><span class="navleft"><a href="index.html">top</a></span></div>
</div></div></body></html>"""


def _read() -> tuple[str, list[tuple[int, int, str]]]:
    text, _, _, _, roles = read_html(PAGE)
    return text, roles


def test_a_definitions_box_opens_a_section_named_by_what_it_defines() -> None:
    """A Reference page was one section: quotes of two functions ran on as one paragraph,
    and no quote said which function it was about."""
    text, _, sections, _, _ = read_html(PAGE)
    assert [name for _, _, name in sections] == ["15.3.1 TCP", "15.3.1 TCP > tcp-listen"]
    start = sections[1][0]
    assert text[start:].startswith("(tcp-listen port-no")
    assert "Creates a listening server" in text[start:sections[1][1]]


def _role(text: str, roles: list[tuple[int, int, str]], quote: str) -> set[str]:
    at = text.index(quote)
    return {role for a, b, role in roles if a <= at < b}


def test_code_signatures_and_grammars_are_lines_of_code_not_rows_of_cells() -> None:
    text, roles = _read()
    signature = "(tcp-listen port-no\n  [max-allow-wait\n  reuse?]) → tcp-listener?\n\n"
    assert signature in text and _role(text, roles, "(tcp-listen") == {"code"}
    assert "> (define (serve port)\n  (tcp-listen port))" in text  # indented as shown
    assert _role(text, roles, "> (define") == {"code"}
    assert "flags = flag-string\n  | (flag-string ...+)" in text
    assert "| |" not in text and "| port-no" not in text  # no row of cells anywhere


def test_a_definitions_arguments_are_lines_of_text_its_default_quotable() -> None:
    text, roles = _read()
    for line in ("port-no : listen-port-number?",
                 "max-allow-wait : exact-nonnegative-integer? = 4",
                 "reuse? : any/c", "(require racket/tcp) package: base"):
        at = text.index(line)
        assert text[at - 2:at] == "\n\n" and text[at + len(line):at + len(line) + 2] == "\n\n"
        assert _role(text, roles, line) == set(), line  # text, not code nor a table


def test_the_sidebar_search_bars_background_label_and_margin_notes_are_left_out() -> None:
    text, _ = _read()
    assert text.startswith("15.3.1 TCP\n\n")
    for chrome in ("Operating System", "On this page", "search manuals", "top",
                   "procedure", "introduces sockets", "►"):
        assert chrome not in text, chrome
    assert "Creates a listening server at the port number specified by port-no." in text
    # A margin note without the icon says something of its own: it is read, a paragraph.
    assert "\n\nUse a custodian to close every listener at once.\n\n" in text
