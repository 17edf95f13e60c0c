"""ImageMagick's manual (XHTML 1.1 in ``.html`` files, Debian's ``imagemagick-6-doc``;
new-user review 2026-12-06): a self-closed ``<iframe …/>`` in the navigation bar made 64
of its 66 pages "no readable text", and a self-closed ``<a id=…/>`` in a heading stayed
open over the list below it; a paragraph of links into the page's parts, "•" between them,
is its contents (HTML loader 54)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests._loaders import load

from citewise.errors import IngestError
from citewise.knowledge.loaders.html import read_html

PAGE = """<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN"
"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html lang="en"><head><meta charset="utf-8"/><title>ImageMagick - Command-line Processing
</title></head><body><nav class="navbar"><a class="navbar-brand" href="index.html">Home</a>
<iframe src="https://github.com/sponsors/ImageMagick/button" title="Sponsor ImageMagick"
height="35" width="107" style="border: 0;"/></nav>
<main class="container"><div class="magick-header">
<p class="text-center"><a href="command-line-processing.html#anatomy">The Anatomy</a> •
<a href="command-line-processing.html#input">Input Filename</a> • <a
href="command-line-processing.html#output">Output Filename</a></p>
<h2><a class="anchor" id="anatomy"/>The Anatomy of the Command-line</h2>
<p>The ImageMagick command-line consists of</p><ol>
<li>one or more required input filenames.</li><li>zero, one, or more image settings.</li>
<li>zero or one output image filenames.</li></ol>
<p>See <a href="https://legacy.imagemagick.org/Usage/"/> for more, or
<a href=/docs/>the docs</a>.</p></div></main></body></html>"""


def test_a_self_closed_frame_hides_no_text_and_an_anchor_wraps_no_list() -> None:
    text, _, _, meta, _ = read_html(PAGE)
    assert "The ImageMagick command-line consists of" in text
    assert "1. one or more required input filenames.\n2. zero, one, or more image " \
           "settings.\n3. zero or one output image filenames." in text
    assert text[meta["anchors"]["anatomy"]:].startswith("The Anatomy of the Command-line")
    assert "See for more, or the docs." in " ".join(text.split())  # an unquoted href's "/"
    assert "Sponsor" not in text and "Home" not in text
    assert "Input Filename" not in text  # a bar of jumps into the page is its contents


def test_such_a_page_ingests(tmp_path: Path) -> None:
    page = tmp_path / "command-line-processing.html"
    page.write_text(PAGE, encoding="utf-8")
    assert "required input filenames" in load(page).text
    # An iframe its author left open hides the rest of the page, as in a browser.
    page.write_text(PAGE.replace('style="border: 0;"/>', 'style="border: 0;">'))
    with pytest.raises(IngestError):
        load(page)


OPTIONS = """<html><head><title>Options</title></head><body><h1>Command-line Options</h1>
<div style="margin: auto;"><h3><a class="anchor" id="sampling-factor"/>-sampling-factor
<i>factors</i></h3><p>Sampling factors used by JPEG encoders.</p></div>
<div style="margin: auto;"><h3><a class="anchor" id="set"/>-set <i>key value</i></h3>
<h3>+set <i>key</i></h3><p>Sets image attributes and properties for images in the current
image sequence.</p></div>
<h2>Related</h2><ul><li><a href="#a">A</a></li><li><a href="#b">B</a></li></ul>
<h2>Notes</h2><p>Options are read in order.</p></body></html>"""


def test_an_options_two_forms_head_one_section() -> None:
    """"-set key value" over "+set key": two ``<h3>``s over one description, which was
    filed under "+set key" alone, "-set key value" a section of its heading only."""
    text, _, sections, _, roles = read_html(OPTIONS)
    at = text.index("Sets image attributes")
    assert [name for start, end, name in sections if start <= at < end] == [
        "Command-line Options > -set key value, +set key"]
    assert [text[a:b] for a, b, role in roles if role == "heading"][2:4] == [
        "-set key value", "+set key"]
    at = text.index("Options are read")  # headings apart, a list left out between them
    assert [name for start, end, name in sections if start <= at < end] == [
        "Command-line Options > Notes"]


def test_a_cells_code_between_paragraphs_ends_the_sentence_before_it() -> None:
    """defines.html (review, 2026-12-08): a row's description of two paragraphs with a
    line of code between them was run on as one line, and "… with a single define:
    -define png:include-chunk=none,gAMA As a special case, …" was one quoted sentence.
    The row is read as blocks, as one with code of several lines is; a row of plain cells
    stays a row."""
    page = ("<html><body><table><tr><td>png:include-chunk=<i>chunks</i></td><td><p>Ancillary "
            "chunks to be included in the PNG output.</p><pre><code>-define png:include-chunk="
            "none,gAMA\n</code></pre><p>As a special case, the sRGB chunk is written "
            "instead.</p></td></tr><tr><td>png:bit-depth=<i>value</i></td><td>The bit depth "
            "of the image.</td></tr></table></body></html>")
    text, _, _, _, _ = read_html(page)
    assert ("the PNG output.\n\n-define png:include-chunk=none,gAMA\n\nAs a special case, "
            "the sRGB chunk is written instead.") in text
    assert "png:bit-depth=value | The bit depth of the image." in text
