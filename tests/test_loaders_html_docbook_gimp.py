"""GIMP's manual (DocBook XSL, ``gimp-help-en``; new-user review 2026-12-06): a picture's
short caption is a label, not a sentence to quote; a chapter's title is above its
sections, not beside them, and is then no chunk of its own (HTML loader 50)."""

from __future__ import annotations

from citewise.knowledge.ingest.chunking import chunk_text
from citewise.knowledge.loaders.html import read_html

FILTER = """<html><head><title>Color to Alpha</title></head><body><div class="sect2">
<div class="titlepage"><div><div><h3 class="title">Using Color to Alpha</h3></div></div></div>
<ol><li class="listitem"><p>Pick color, here the sky.</p>
<div class="mediaobject"><img src="ex7.png" /><div class="caption"><p>
“Color” from sky. Default thresholds.</p></div></div></li>
<li class="listitem"><p>With the default values of 0 and 1, only the background color
becomes fully transparent.</p>
<div class="mediaobject"><img src="ex6.png" /><div class="caption"><p>Original image with an
alpha channel. Color to alpha with default options: the color is white, and the colors
farthest away from it remain fully opaque.</p></div></div></li></ol>
<figure><img src="crop.png"/><figcaption>The resulting image.</figcaption></figure>
</div></body></html>"""

CHAPTER = """<html><head><title>Chapter 6</title></head><body><div class="chapter">
<div class="titlepage"><div><div><h2 class="title"><a id="out"></a>Chapter 6. Getting Images
out of GIMP</h2></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc"><dt><span
class="sect1"><a href="#files">1. Files</a></span></dt></dl></div>
<div class="sect1"><div class="titlepage"><div><div><h2 class="title" style="clear: both">
<a id="files"></a>1. Files</h2></div></div></div>
<p>GIMP is capable of reading and writing a large variety of graphics file formats.</p>
<div class="sect2"><div class="titlepage"><div><div><h3 class="title">1.1. Save / Export
Images</h3></div></div></div><p>Export writes the image in a format other programs read.</p>
</div></div></div></body></html>"""


def test_a_pictures_short_caption_is_a_label_and_a_long_one_prose() -> None:
    text, _title, _sections, _meta, roles = read_html(FILTER)
    labels = [text[a:b] for a, b, role in roles if role == "heading"]
    assert "“Color” from sky. Default thresholds." in labels  # DocBook's div.caption
    assert "The resulting image." in labels  # HTML's <figcaption>
    assert not any("Original image with an" in x for x in labels)  # past twelve words
    assert "only the background color becomes fully transparent" in " ".join(text.split())


def test_a_chapters_title_is_above_its_sections_and_no_chunk_of_its_own() -> None:
    text, _title, sections, _meta, roles = read_html(CHAPTER)
    paths = [path for _a, _b, path in sections]
    assert "Chapter 6. Getting Images out of GIMP > 1. Files" in paths, paths
    assert "Chapter 6. Getting Images out of GIMP > 1. Files > 1.1. Save / Export Images" \
        in paths, paths
    chunks = chunk_text("d", text, sections=sections, roles=roles)
    assert chunks and all("large variety" in c.text or "Export writes" in c.text
                          for c in chunks), [c.text for c in chunks]


def test_in_a_whole_books_page_a_chapter_stays_below_the_book() -> None:
    book = ('<html><body><div class="book"><div class="titlepage"><div><div><h1 class="title">'
            'The Book</h1></div></div></div><div class="chapter"><div class="titlepage"><div>'
            '<div><h2 class="title">Chapter 1. Start</h2></div></div></div><p>Begin here.</p>'
            '</div></div></body></html>')
    _text, _title, sections, _meta, _roles = read_html(book)
    assert [path for _a, _b, path in sections] == ["The Book", "The Book > Chapter 1. Start"]


def test_an_icon_without_alt_text_in_a_sentence_reads_by_its_name() -> None:
    """"the tool cursor tells you this by showing ." — GIMP's ``<span class="guiicon"><img
    src="…/clone-bad.png"/></span>`` left a hole in its sentence (review, 2026-12-06)."""
    text = read_html(
        "<html><head><title>Clone</title></head><body><p>The tool cursor tells you this by "
        "showing <span class='guiicon'><img src='images/toolbox/clone-bad.png' /></span>.</p>"
        "<p>Click <img src='../menu-left.png?v=2'> and pick Add Tab.</p>"
        "<p>A rule <img src='rule.png' alt=''> ends here.</p>"
        "<p><a href='/'><img src='logo.png'></a><br>2023/03/28</p>"
        "<p><img src='screenshot.png'></p><div class='mediaobject'><img src='ex.png'/>"
        "<div class='caption'><p>Cloned pixels are in the new layer.</p></div></div>"
        "</body></html>")[0]
    assert "by showing [image: clone-bad]." in text
    assert "Click [image: menu-left] and pick Add Tab." in text
    assert "A rule ends here." in " ".join(text.split())  # alt="" says: decoration
    assert "screenshot" not in text and "[image: ex]" not in text  # pictures of their own
    assert "logo" not in text  # a link's image: a logo (HAProxy's manual)
