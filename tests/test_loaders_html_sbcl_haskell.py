"""What two new users' reviews of old and generated HTML manuals found (2026-12-07).

SBCL's one-page Texinfo manual stored its four indexes (789 rows of "rotate-byte: | |
sb-rotate-byte" and their "Jump to:" letter bars), which searches found, and read each
footnote's "(1)" label as a section of its own. The Haskell 98 Report sets its code as
``<tt>`` with ``<br>`` line ends and no-break-space indentation, 268 times: read as inline
text, a module's interface ran on as one line, a ``--`` comment swallowing the code after
it, and the indentation Haskell's syntax rests on was lost."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

TEXINFO_6 = """<html><body>
<h2 class="chapter">13 Threading</h2>
<p>Threads are part of the default build on x86[-64]/Linux only.<a id="DOCF1"
href="#FOOT1"><sup>1</sup></a></p>
<h2 class="appendix">Appendix B Function Index</h2>
<table><tr><th valign="top">Jump to: &nbsp; </th><td>
<a class="summary-letter" href="#Function-Index_fn_letter-R"><b>R</b></a>
 &nbsp; <a class="summary-letter" href="#Function-Index_fn_letter-W"><b>W</b></a></td></tr></table>
<table class="index-fn" border="0">
<tr><td></td><th align="left">Index Entry</th><td>&nbsp;</td><th align="left"> Section</th></tr>
<tr><th id="Function-Index_fn_letter-R">R</th><td></td><td></td></tr>
<tr><td></td><td valign="top"><a href="#index-rotate_002dbyte">rotate-byte</a>:</td>
<td>&nbsp;</td><td valign="top"><a href="#sb_002drotate_002dbyte">sb-rotate-byte</a></td></tr>
</table>
<div class="footnote">
<hr>
<h4 class="footnotes-heading">Footnotes</h4>
<h5><a id="FOOT1" href="#DOCF1">(1)</a></h5>
<p>Other platforms build threads with a flag.</p>
</div>
</body></html>"""

TEXINFO_7 = """<html><body>
<h2 class="appendix" id="Index">Index</h2>
<table class="cp-letters-header-printindex"><tr><th>Jump to: &nbsp; </th><td>
<a class="summary-letter-printindex" href="#Index_cp_letter-A"><b>A</b></a></td></tr></table>
<table class="cp-entries-printindex" border="0">
<tr><td class="printindex-index-entry"><a href="#index-alias">alias</a>:</td>
<td class="printindex-index-section"><a href="#Aliases">Aliases</a></td></tr>
</table>
<p>The index lists every builtin.</p>
</body></html>"""


def test_texinfo_s_indexes_and_their_jump_bars_are_no_text() -> None:
    for page in (TEXINFO_6, TEXINFO_7):
        text, _, _, _, _ = read_html(page)
        assert "rotate-byte" not in text and "alias" not in text, text
        assert "Jump to" not in text, text
    text, _, _, _, _ = read_html(TEXINFO_7)
    assert "The index lists every builtin." in text


def test_a_texinfo_footnote_s_label_is_written_on_its_note_s_line() -> None:
    text, _, sections, meta, _ = read_html(TEXINFO_6)
    assert "[1] Other platforms build threads with a flag." in text, text
    assert not any(title.endswith("(1)") for _, _, title in sections), sections
    assert meta["anchors"]["FOOT1"] == text.index("[1] Other platforms")


HASKELL = """<html><body>
<h2>18<tt>&nbsp;&nbsp;</tt>Maybe Utilities</h2><p>
<table border=2 cellpadding=3>
<tr><td>
<tt><br>
module&nbsp;Maybe(<br>
&nbsp;&nbsp;&nbsp;&nbsp;isJust,&nbsp;isNothing,<br>
<br>
&nbsp;&nbsp;&nbsp;&nbsp;--&nbsp;...and&nbsp;what&nbsp;the&nbsp;Prelude&nbsp;exports<br>
&nbsp;&nbsp;&nbsp;&nbsp;maybe<br>
&nbsp;&nbsp;)&nbsp;where<br>
</tt></td></tr></table>
<p>
The type constructor <tt>Maybe</tt> is defined in <tt>Prelude</tt>.
<tt><br>
isJust&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;::&nbsp;Maybe&nbsp;a&nbsp;-&gt;&nbsp;Bool<br>
isJust&nbsp;(Just&nbsp;a)&nbsp;=&nbsp;&nbsp;True<br>
</tt>
<p>A diagram's cells stay a row:
<table><tr><td><tt>smtpd<br>(8)</tt></td><td>-&gt;</td><td><tt>cleanup<br>(8)</tt></td></tr></table>
</body></html>"""

INTERFACE = ("module Maybe(\n    isJust, isNothing,\n\n    -- ...and what the Prelude exports\n"
             "    maybe\n  ) where")


def test_typewriter_text_with_line_breaks_is_a_code_display() -> None:
    text, _, _, _, roles = read_html(HASKELL)
    assert INTERFACE in text, text
    definition = "isJust       :: Maybe a -> Bool\nisJust (Just a) =  True"
    assert definition in text, text
    for code in (INTERFACE, definition):
        start = text.index(code)
        assert (start, start + len(code), "code") in roles, roles
    assert "The type constructor Maybe is defined in Prelude." in text
    assert "smtpd (8) | -> | cleanup (8)" in text, text


def test_an_unclosed_typewriter_element_is_no_display() -> None:
    """A ``<code>`` left open runs on through what follows (the Asymptote FAQ has one): its
    example, headings and paragraphs stay what they are."""
    page = ("<html><body><h2>Question 6.17. How do I draw (y-2)^2 = x-1?</h2><code>"
            "<br>Yes, use the parametric form <pre>y=t\nx=(t-2)^2+1\n</pre>See the example."
            "<h2>Question 6.18. Can an axis be reversed?</h2>Yes, with Linear(-1).<p>Or not."
            "</body></html>")
    text, _, sections, _, _ = read_html(page)
    assert "form\n y=t\nx=(t-2)^2+1\n\nSee the example." in text, text
    assert [title for _, _, title in sections][-1] == "Question 6.18. Can an axis be reversed?"
    assert "Yes, with Linear(-1).\n\nOr not." in text, text


BOXES = """<html><body>
<h2>4 Declarations and Bindings</h2>
<h3>4.2.1 Algebraic Datatype Declarations</h3>
<p>A strictness flag is written with "!".</p>
<table border=2 cellpadding=3>
<tr><td>
<h3>Translation:</h3>
A declaration of the form <tt>data cx => T u1 ... uk = ...</tt> translates to a function.
</td></tr></table>
<table border=2 cellpadding=3>
<tr><td><div align=center><img src="classes.gif" alt="Diagram of classes">
<h4>Figure 5</h4> </div>
<div align=center><h3>Standard Haskell Classes</h3></div>
</td></tr></table>
<h3>4.2.2 Type Synonym Declarations</h3>
<p>A type synonym declaration introduces a new type.</p>
<table><tr><td><h3>4.2.3 Datatype Renamings</h3><p>A newtype declaration renames.</p></td>
<td>A layout table's cells stay the page's.</td></tr></table>
</body></html>"""


def test_a_framed_box_s_own_headings_open_no_section() -> None:
    """The Report frames a translation and a figure in a one-cell table with a border;
    their headings ("Translation:", "Figure 5") were sections, the next numbered sections
    under them: "Translation: > 4.2.2 Type Synonym Declarations"."""
    text, _, sections, _, roles = read_html(BOXES)
    titles = [title for _, _, title in sections]
    assert titles == [
        "4 Declarations and Bindings",
        "4 Declarations and Bindings > 4.2.1 Algebraic Datatype Declarations",
        "4 Declarations and Bindings > 4.2.2 Type Synonym Declarations",
        "4 Declarations and Bindings > 4.2.3 Datatype Renamings"], titles
    start = text.index("Translation:")
    assert (start, start + len("Translation:"), "heading") in roles
    assert "Figure 5" in text and "translates to a function." in text


def test_a_display_keeps_the_anchors_inside_it_and_a_term_stays_a_term() -> None:
    """The Prelude's listings hold 192 instances' anchors, its index's link targets; a
    ``<dt>`` signature broken over two lines is the term of the description under it."""
    page = ("<html><body><h1>Prelude</h1><p>Intro.</p><tt>x&nbsp;=&nbsp;1<br>"
            "<a name='here'></a>&nbsp;&nbsp;y&nbsp;=&nbsp;2<br>z = 3</tt><p>After.</p>"
            "<dl><dt><code>orthographic(triple camera)<br>orthographic(real x)</code></dt>"
            "<dd><p>This projects from three to two dimensions.</p></dd></dl>"
            "<table class='index-table'><tr><td>Real data</td><td>42</td></tr></table>"
            "</body></html>")
    text, _, _, meta, roles = read_html(page)
    assert text[meta["anchors"]["here"]:].startswith("  y = 2\nz = 3"), text
    term = text.index("orthographic(triple camera)")
    assert [r for a, _, r in roles if a == term] == ["term"], roles
    assert "Real data | 42" in text, text


def test_a_page_in_a_frame_and_a_banner_keep_their_sections() -> None:
    """A page wrapped whole in a bordered one-cell table, and a banner that is a heading
    alone, are no boxes (the code review, 2026-12-07: every section was lost)."""
    page = ("<html><body><table border=1 width='100%'><tr><td><h1>Manual</h1><p>Intro text."
            "</p><h2>Install</h2><p>Run make.</p><h2>Usage</h2><p>Run it.</p></td></tr>"
            "</table><table border=1><tr><th><h3>Options</h3></th></tr></table>"
            "<p>None yet.</p></body></html>")
    _, _, sections, _, _ = read_html(page)
    assert [t for _, _, t in sections] == [
        "Manual", "Manual > Install", "Manual > Usage", "Manual > Usage > Options"], sections
