"""Texinfo's HTML (makeinfo 6–7, as FFmpeg's manual is built): its table of contents is
chrome, its ``<a name>`` markers are the sections' anchors, and a bold line inside an
option's entry heads only the rest of that entry.

FFmpeg 5.1's manual (Debian's ``ffmpeg-doc``) kept its contents as text (three pages only
the line "Table of Contents", four one chapter's questions, which were quoted as an
answer), linked 46 of 52 citations to a contents entry's id (``#toc-Authors`` for
"4 Stream selection"), and filed nine options after ``-target`` under the "DV" caption of
its examples (new-user review, 2026-12-05). The fixture is modelled on those pages."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.html import HtmlLoader, extract_html

_TOC_ITEMS = """<ul class="no-bullet">
  <li><a id="toc-Synopsis" href="#Synopsis">1 Synopsis</a></li>
  <li><a id="toc-Usage" href="#Usage">2 Usage</a>
  <ul class="no-bullet">
    <li><a id="toc-Which-are-good-parameters" href="#Which-are-good-parameters">2.1 Which
    are good parameters for encoding high quality MPEG-4?</a></li>
    <li><a id="toc-How-do-I-encode" href="#How-do-I-encode">2.2 How do I encode
    <code>jpeg</code> files?</a></li>
  </ul></li>
  <li><a id="toc-Authors" href="#Authors">3 Authors</a></li>
</ul>"""

# Texinfo 7 wraps its contents in div.Contents_element; Texinfo 6 has no wrapper, only its
# heading's class and a <div class="contents"> (Doxygen's page itself is one of those).
_TOC7 = ('<div class="Contents_element" id="SEC_Contents"><h2 class="contents-heading">Table'
         f' of Contents</h2><div class="contents">{_TOC_ITEMS}</div></div>')
_TOC6 = ('<div class="contents"><h2 class="contents-heading">Table of Contents</h2>'
         f'<div class="contents">{_TOC_ITEMS}</div></div>')

_PAGE = """<!DOCTYPE html><html><head><title>ffmpeg Documentation</title></head><body>
<div class="container"><h1>ffmpeg Documentation</h1>
<a name="SEC_Top"></a>
{toc}
<a name="Synopsis"></a>
<h2 class="chapter">1 Synopsis<span class="pull-right"><a class="anchor hidden-xs"
href="#Synopsis" aria-hidden="true">#</a> <a class="anchor hidden-xs" href="#toc-Synopsis"
aria-hidden="true">TOC</a></span></h2>
<p>ffmpeg [global_options] {{[input_file_options] -i input_url}} output_url</p>
<a name="Usage"></a>
<h2 class="chapter">2 Usage</h2>
<a name="Main-options"></a>
<h3 class="section">2.1 Main options</h3>
<dl compact="compact">
<dt><samp>-target <var>type</var> (<em>output</em>)</samp></dt>
<dd><p>Specify target file type.</p>
<p>The parameters set for each target are as follows.</p>
<p><strong>VCD</strong></p><div class="example"><pre class="example">-f vcd -muxrate 1411200
</pre></div>
<p><strong>DV</strong></p><div class="example"><pre class="example">-f dv -s 720x576
</pre></div>
</dd>
<dt><samp>-stats_period <var>time</var> (<em>global</em>)</samp></dt>
<dd><p>Set period at which encoding progress/statistics are updated. Default is 0.5
seconds.</p></dd>
</dl>
<a name="Authors"></a>
<h2 class="chapter">3 Authors</h2>
<p>The FFmpeg developers.</p>
</div></body></html>"""


def test_a_texinfo_table_of_contents_is_not_text() -> None:
    for toc in (_TOC7, _TOC6):
        text, _, _, _ = extract_html(_PAGE.format(toc=toc))
        assert "Table of Contents" not in text, text[:300]
        assert "Which are good parameters" not in text and "1 Synopsis\n\nffmpeg [" in text
        assert text.startswith("ffmpeg Documentation\n\n1 Synopsis"), text[:100]


def test_a_list_of_links_with_a_paragraph_in_an_item_is_content() -> None:
    """Only a list of nothing but in-page links is contents: an item that says more is a
    list the page's text is made of."""
    items = _TOC_ITEMS.replace("files?</a>", "files?</a> Read this one first.")
    text, _, _, _ = extract_html(_PAGE.format(toc=items))
    assert "2.2 How do I encode jpeg files? Read this one first." in " ".join(text.split())


def test_named_anchors_point_at_their_sections_and_contents_ids_are_gone() -> None:
    text, _, _, meta = extract_html(_PAGE.format(toc=_TOC7))
    anchors = meta["anchors"]
    assert not any(name.startswith("toc-") for name in anchors), anchors
    assert text[anchors["Synopsis"]:].startswith("1 Synopsis")
    assert text[anchors["Main-options"]:].startswith("2.1 Main options")
    assert text[anchors["Authors"]:].startswith("3 Authors")


def test_a_bold_caption_inside_an_entry_heads_only_the_rest_of_it(tmp_path: Path) -> None:
    page = tmp_path / "ffmpeg.html"
    page.write_text(_PAGE.format(toc=_TOC7), encoding="utf-8")
    doc = HtmlLoader().load(page, page.read_bytes())

    def section_of(words: str) -> str:
        at = doc.text.index(words)
        return next(str(t) for a, b, t in doc.sections if a <= at < b)

    main = "ffmpeg Documentation > 2 Usage > 2.1 Main options"
    assert section_of("-f vcd") == f"{main} > VCD"
    assert section_of("-f dv") == f"{main} > DV"
    assert section_of("Set period at which") == main
    assert section_of("The FFmpeg developers.") == "ffmpeg Documentation > 3 Authors"


def test_a_blank_definition_category_is_not_text() -> None:
    """Octave's function definitions (``@deftypefn {} {}``) open with a category of ": "
    alone: stored, every signature began ": bsxfun (f, A, B)" and so did the answers that
    named it (new-user review, 2026-12-05). A named category says something and stays."""
    block = ('<dl class="first-deffn def"><dt id="index-strfind"><span class="category">{}'
             '</span><span><em>idx =</em> <strong>strfind</strong> <em>(str, pattern)</em>'
             '<a href="#index-strfind" class="copiable-anchor"> &para;</a></span></dt>'
             '<dd><p>Search for pattern in str.</p></dd></dl>')
    text, _, _, _ = extract_html(f"<html><body>{block.format(': ')}</body></html>")
    assert text == "idx = strfind (str, pattern)\n\nSearch for pattern in str."
    text, _, _, _ = extract_html(f"<html><body>{block.format('Function: ')}</body></html>")
    assert text.startswith("Function: idx = strfind (str, pattern)")


# The shape of GNU diffutils 3.8's manual (Texinfo 6.8, Debian's ``diffutils-doc``): a node's
# list of its sections (one entry or many), a subsubsection written as an <h4> like the
# subsection above it, and a footnote's marker as a link around a superscript.
_DIFFUTILS = """<html><body>
<span id="Invoking-cmp"></span><h2 class="chapter">12 Invoking cmp</h2>
<p>An exit status of 0 means no differences were found, 1 means some differences were
found, and 2 means trouble.</p>
<ul class="section-toc">
<li><a href="#cmp-Options" accesskey="1">Options to <code>cmp</code></a></li>
</ul>
<hr>
<span id="cmp-Options"></span><h3 class="section">12.1 Options to <code>cmp</code></h3>
<p>Below is a summary of all of the options that GNU <code>cmp</code> accepts.</p>
<span id="Showing-Which"></span><h4 class="subsection">12.1.1 Showing Which Sections</h4>
<p>These options request two kinds of information.</p>
<span id="Showing-C"></span><h4 class="subsubsection">12.1.1.1 Showing C Function Headings</h4>
<p>To show in which functions differences occur, use the -p option.</p>
<h4 class="subsection">12.1.2 Backups</h4>
<p>The name would be too long.<a id="DOCF1" href="#FOOT1"><sup>1</sup></a> The -z option
sets a suffix.</p>
</body></html>"""


def test_texinfo_section_lists_heading_depths_and_footnote_markers() -> None:
    text, _, sections, _ = extract_html(_DIFFUTILS)
    assert "means trouble.\n\n12.1 Options to cmp" in text  # the one-entry list is chrome
    assert "Options to cmp\n" not in text.replace("12.1 Options to cmp", "")
    paths = [path for _, _, path in sections]
    assert "12 Invoking cmp > 12.1 Options to cmp > 12.1.1 Showing Which Sections > 12.1.1.1 " \
        "Showing C Function Headings" in paths
    assert paths[-1] == "12 Invoking cmp > 12.1 Options to cmp > 12.1.2 Backups"
    assert "The name would be too long.[1] The -z option sets a suffix." in text
