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
