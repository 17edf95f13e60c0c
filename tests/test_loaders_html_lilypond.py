"""LilyPond's manuals (Texinfo with LilyPond's own page frame, Debian's
``lilypond-doc-html``; new-user review 2026-12-06): the contents frame beside every page
is chrome, a list item's name in code over its paragraphs is a term (HTML loader 52), and
a passage links to its section's anchor rather than the page frame's."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.loaders.html import read_html

PAGE = """<html><head><title>Moving objects (LilyPond Learning Manual)</title></head><body>
<div id="main"><h4 class="subsection">5.6.1 Moving objects</h4>
<p>Some notation elements can overlap.</p><ul>
<li><code>force-hshift</code>

<a name="index-force_002dhshift-property"></a>

<p>The <code>force-hshift</code> property is a property of a <code>NoteColumn</code>. It is
specified in units appropriate to a note column, viz. the note head width.</p></li>
<li><code>extra offset</code> and more words here <p>Plain item text.</p></li>
</ul></div>
<div id="tocframe"><p class="toc_uplink"><a href="../web/manuals.html" title="Documentation
Index">&lt;&lt; Back to Documentation Index</a></p><h4 class="toc_header"><a href="index.html"
title="Start of the manual">LilyPond &mdash; Learning Manual v2.24.1 (stable-branch).</a></h4>
<div class="contents"><ul class="toc"><li><a href="installing.html">1. Installing</a></li>
<li><a href="tutorial.html">2. Tutorial</a></li></ul></div></div></body></html>"""


def test_the_contents_frame_is_no_text_of_the_page() -> None:
    text, _, sections, _, _ = read_html(PAGE)
    assert "Back to Documentation Index" not in text and "stable-branch" not in text
    assert [name for _, _, name in sections] == ["5.6.1 Moving objects"]


def test_a_list_items_name_in_code_over_its_paragraphs_is_a_term() -> None:
    text, _, _, _, roles = read_html(PAGE)
    terms = [text[start:end] for start, end, role in roles if role == "term"]
    assert terms == ["force-hshift"], terms  # a line of plain words with code is no label
    assert "force-hshift\n\nThe force-hshift property is a property of a NoteColumn." in text


def test_a_passage_links_to_its_sections_anchor_not_the_page_frames(tmp_path: Path) -> None:
    """``<div id="main"><a name="music-fragment-options"></a><h2>``: both ids are at the
    heading's first character, and the passage linked to "#main" (LilyPond's review)."""
    page = tmp_path / "music-fragment-options.html"
    page.write_text("<html><head><title>Options</title></head><body><div id='main'>"
                    "<a name='music-fragment-options'></a><h2>3.3 Music fragment options</h2>"
                    "<p>Set line width to size, expressed in unit.</p></div></body></html>")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([page])
        hits = kb.search("line width", k=1)
    assert [hit.anchor for hit in hits] == ["music-fragment-options"]


def test_a_generated_id_gives_way_to_the_sections_named_one(tmp_path: Path) -> None:
    """Sphinx's ``<section id="dynamic-contexts"><span id="id2"></span><h2>``: the
    innermost id at the heading is docutils' generated "id2", and citations linked to
    ``contexts.html#id2`` instead of the heading's permalink (coverage.py's review,
    2026-12-08). An index entry's "index-0" is no name either."""
    page = tmp_path / "contexts.html"
    page.write_text("<html><head><title>Contexts</title></head><body>"
                    "<section id='dynamic-contexts'><span id='id2'></span>"
                    "<h2>Dynamic contexts<a class='headerlink' href='#dynamic-contexts'>¶</a>"
                    "</h2><p>Dynamic contexts are found during execution.</p></section>"
                    "<section id='static-contexts'><span id='index-0'></span>"
                    "<span id='id1'></span><h2>Static contexts</h2>"
                    "<p>A static context is set by an option when you run coverage.</p>"
                    "</section></body></html>")
    with KnowledgeBase.open(tmp_path / "kb", dense=False, chunk_size=60,
                            chunk_overlap=0) as kb:
        kb.ingest([page])
        hits = {h.text.strip()[:7]: h.anchor for h in kb.search("contexts", k=5)}
    assert hits.get("Dynamic") == "dynamic-contexts", hits
    assert hits.get("Static ") == "static-contexts", hits
