"""SWI-Prolog's manual, as ``swi-prolog-doc`` 9.0.4 writes it (new-user review,
2026-12-07): footnotes written inside their sentence and shown on hover, a bold "Warning"
paragraph over its note, a determinism tag before a predicate's anchor, and format/2's
directives as a letter in code over its description. The fixture keeps the manual's
markup (unclosed ``<p>`` and all)."""

from __future__ import annotations

from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>SWI-Prolog 9.0.4 Reference Manual: Section 4.32</title></head>
<body><h2 id="sec:format"><a id="sec:4.32.2"><span class="sec-nr">4.32.2</span>
<span class="sec-title">Format</span></a></h2>
<p>The format family of predicates is the most versatile and
portable<sup class="fn">142<span class="fn-text">Unfortunately not covered by any
standard.</span></sup> way to produce textual output.
<dl class="latex">
<dt class="pubdef"><span
class="pred-tag">[det]</span><a id="dicts_join/4"><strong>dicts_join</strong>(<var>+Key,
+Dicts1, +Dicts2, -Dicts</var>)</a></dt>
<dd class="defbody">Join two lists of dicts.</dd>
<dt class="pubdef"><span
class="pred-tag">[det]</span><a id="dicts_slice/3"><strong>dicts_slice</strong>(<var>+Keys,
+DictsIn, -DictsOut</var>)</a></dt>
<dd class="defbody"><var>DictsOut</var> is a list of Dicts only containing values for
<var>Keys</var>.</dd>
</dl>
<ul>
<li><code>D</code><br>
Same as <b>d</b>, but makes large values easier to read by inserting a comma every three
digits.
<li><code>e</code><br>
Output the next argument as a floating point number in exponential notation.
</ul>
<p><b>Warning</b>

<p>The general purpose string interpolation implemented by this library should
<b>not</b> be used to create strings for a formal language such as HTML.

<h3 id="sec:strings-pred">Predicates</h3>
<p>string/4 formats a string.
</body></html>"""


def _read() -> tuple[str, list[tuple[int, int, str]], dict[str, int], list[tuple[int, int, str]]]:
    text, _, sections, meta, roles = read_html(PAGE)
    return text, sections, meta["anchors"], roles


def test_a_footnote_inside_its_sentence_is_set_apart_after_the_paragraph() -> None:
    text, *_ = _read()
    assert ("the most versatile and portable[142] way to produce textual output.\n\n"
            "[142] Unfortunately not covered by any standard.") in text
    assert "portable142" not in text


def test_a_bold_warning_paragraph_labels_its_note_and_opens_no_section() -> None:
    text, sections, *_ = _read()
    assert "Warning: The general purpose string interpolation" in text
    assert all("Warning" not in title for *_, title in sections)
    assert [title for *_, title in sections][-1] == "4.32.2 Format > Predicates"


def test_a_predicates_anchor_points_at_its_term_with_the_tag_before_it() -> None:
    text, _, anchors, _ = _read()
    assert text[anchors["dicts_slice/3"]:].startswith("[det]dicts_slice(")
    assert text[anchors["dicts_join/4"]:].startswith("[det]dicts_join(")


def test_a_directive_letter_in_code_over_its_text_is_a_term() -> None:
    text, _, _, roles = _read()
    at = text.index("D\nSame as d")
    assert (at, at + 1, "term") in roles
    at = text.index("e\nOutput the next")
    assert (at, at + 1, "term") in roles


def _note(n: int, text: str, inner: str = "") -> str:
    return f'<sup class="fn">{n}<span class="fn-text">{inner}{text}</span></sup>'


def test_a_note_goes_after_its_paragraph_not_after_the_blocks_that_follow() -> None:
    """The code review (2026-12-07): ODBC's ``odbc_fetch/3`` cites a note in the loose text
    of a description followed by a list of options; the note landed between the option
    ``next`` and "Fetch the next row.", inside its term."""
    note = _note(6, "This atom was selected to emphasise the similarity to read.")
    page = (f"<dl><dt>odbc_fetch(+Statement)</dt><dd>Fetch a row or end_of_file{note} after "
            "the data. Option is one of:<dl><dt>next</dt><dd>Fetch the next row.</dd></dl>"
            "</dd></dl>")
    text, _, _, _, roles = read_html(f"<html><body>{page}</body></html>")
    assert ("end_of_file[6] after the data. Option is one of:\n\n[6] This atom was selected "
            "to emphasise the similarity to read.\n\nnext\nFetch the next row.") in text, text
    term = text.index("next\nFetch")
    assert (term, term + 4, "term") in roles


def test_a_tables_role_ends_before_the_note_a_cell_cites() -> None:
    text, _, _, _, roles = read_html(
        f"<html><body><table><tr><td>A{_note(1, 'Row A is odd.')}</td><td>B</td></tr><tr>"
        "<td>C</td><td>D</td></tr></table><p>After.</p></body></html>")
    assert text == "A[1] | B\nC | D\n\n[1] Row A is odd.\n\nAfter.", text
    assert (0, len("A[1] | B\nC | D"), "table") in roles


def test_the_ids_inside_a_note_point_at_it_and_no_note_is_lost() -> None:
    """An index links into notes (``examineprog.html#idx:clause2:1118``); a note cited by
    a page's last loose text, or by a heading, is written too."""
    indexed = _note(2, "see the index.", '<a id="idx:clause2:1118"></a>')
    text, _, _, meta, _ = read_html(
        f"<html><body><h2>Title{_note(1, 'About the title.')}</h2><p>Para one.</p>"
        f"<p>Uses clause{indexed}.</p>"
        f"Loose text{_note(3, 'The last note.')} here.</body></html>")
    anchors = meta["anchors"]
    assert text[anchors["idx:clause2:1118"]:].startswith("[2] see the index.")
    assert "[1] About the title." in text and text.index("[1] About") < text.index("Para one")
    assert text.endswith("Loose text[3] here.\n\n[3] The last note."), text


def test_a_second_names_id_stays_at_that_name() -> None:
    text, _, _, meta, _ = read_html(
        '<html><body><dl><dt><b><a id="one"></a>rdf_current_ns/1, <a id="two"></a>'
        "rdf_register_ns/2</b></dt><dd>Namespaces.</dd></dl></body></html>")
    assert text[meta["anchors"]["one"]:].startswith("rdf_current_ns/1")
    assert text[meta["anchors"]["two"]:].startswith("rdf_register_ns/2")


def test_a_bold_note_word_over_nothing_is_no_label_and_an_items_number_stays() -> None:
    text, _, sections, _, _ = read_html(
        '<html><body><p><b>Note</b></p><p><img src="a.png"></p><h2>Next</h2><p>Body.</p>'
        "<ol><li><p><b>Note</b></p><p>Do x.</p></li><li><p>Two</p></li></ol></body></html>")
    assert all(not title.startswith("Note: ") for *_, title in sections), sections
    assert "1. Note: Do x." in text and "2. Two" in text, text


def test_only_an_items_first_line_break_ends_its_label_and_its_number_is_no_term() -> None:
    text, _, _, _, roles = read_html(
        "<html><body><ol><li><code>D</code><br>Same as d.</li></ol><ul><li><code>R0-&gt;16"
        "</code><br><code>R0&gt;&gt;16</code><br>Shift R0.</li></ul></body></html>")
    at = text.index("D\nSame")
    assert text.startswith("1. D\nSame as d.") and (at, at + 1, "term") in roles, (text, roles)
    first = text.index("R0->16")
    terms = [r for r in roles if r[2] == "term" and r[0] >= first]
    assert terms == [(first, first + len("R0->16"), "term")], (text, roles)
