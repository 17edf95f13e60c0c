"""A Doxygen API reference as a reader sees it (new-user review of libopus 1.3.1's,
Debian's ``libopus-doc``, 2026-12-04): the hover tooltips after each code fragment (another
symbol's signature and summary) were page text and were quoted as this page's; the
fragments, written as ``<div class="line">`` rather than ``<pre>``, were prose; "More..."
closed every brief description; "◆" opened every member's section path; the project's
title area and the "Typedefs | Functions" jump bar opened every page."""

from __future__ import annotations

from pathlib import Path

from tests._loaders import load

from citewise.knowledge.loaders.base import LoadedDocument

PAGE = """<!DOCTYPE html><html><head><title>Opus: Opus Encoder</title></head><body>
<div id="top"><div id="titlearea"><table><tr><td>
<div id="projectbrief">Opus audio codec (RFC 6716): API and operations manual</div>
<span id="projectnumber">1.3.1</span></td></tr></table></div></div>
<div class="header"><div class="summary">
<a href="#typedef-members">Typedefs</a> &#124;
<a href="#func-members">Functions</a></div>
<div class="headertitle"><div class="title">Opus Encoder</div></div></div>
<div class="contents">
<p>This page describes the process and functions used to encode Opus.
<a href="#details">More...</a></p>
<p>This can be done with:</p>
<div class="fragment"><div class="line"><span class="keywordtype">int</span> error;</div>
<div class="line">enc = <a class="code" href="#ga07">opus_encoder_create</a>(Fs, channels, \
application, &amp;error);</div>
<div class="ttc" id="a1"><div class="ttname"><a href="#ga07">opus_encoder_create</a></div>
<div class="ttdeci">OpusEncoder * opus_encoder_create(opus_int32 Fs, int channels)</div>
<div class="ttdoc">Allocates and initializes an encoder state.</div></div>
</div>
<p>From this point, enc can be used for encoding an audio stream.</p>
<h2 class="memtitle"><span class="permalink"><a href="#ga07">&#9670;&nbsp;</a></span>\
opus_encoder_create()</h2>
<p>The complexity is a value from 0 to 10.</p>
</div></body></html>"""


def _load(tmp_path: Path) -> LoadedDocument:
    page = tmp_path / "group__opus__encoder.html"
    page.write_text(PAGE, encoding="utf-8")
    return load(page)


def test_doxygens_tooltips_title_area_and_jump_links_are_not_text(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert "Allocates and initializes" not in doc.text  # the tooltip
    assert "Opus audio codec" not in doc.text and "1.3.1" not in doc.text
    assert "Typedefs" not in doc.text and "More..." not in doc.text
    assert "used to encode Opus." in doc.text


def test_a_fragment_is_code_and_a_members_section_has_no_mark(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    code = [doc.text[a:b] for a, b, role in doc.roles if role == "code"]
    assert code == ["int error;\nenc = opus_encoder_create(Fs, channels, application, &error);"]
    assert [name for _, _, name in doc.sections][-1] == "opus_encoder_create()"


def test_a_formulas_image_reads_as_its_tex() -> None:
    """Doxygen's own manual (new-user review, 2026-12-06): a formula is an image whose
    ``alt`` is its TeX, and "The distance between and is ." lost every one of them, as
    "this works only for the HTML, and RTF output" lost its "LaTeX" logo."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><head><meta name="generator" content="Doxygen 1.9.4"/></head><body>'
            '<div class="contents"><p>This works only for the HTML, <img class="formulaInl" '
            'alt="{\\LaTeX}" src="form_0.png"/> and RTF output. The distance between '
            '<img class="formulaInl" alt="$(x_1,y_1)$" src="form_1.png"/> and <img '
            'class="formulaInl" alt="$(x_2,y_2)$" src="form_2.png"/> is:</p><p class="formulaDsp">'
            '<img class="formulaDsp" alt="\\[\\sqrt{(x_2-x_1)^2+(y_2-y_1)^2}\\]" '
            'src="form_3.png"/></p><p>A cache of <img class="formulaInl" '
            'alt="$2^{(16+\\mbox{LOOKUP\\_CACHE\\_SIZE})}$" src="form_4.png"/> symbols costs '
            '$5, and <img src="doxygen.svg" alt="doxygen"/> made it.</p></div></body></html>')
    assert read_html(html)[0] == (
        "This works only for the HTML, LaTeX and RTF output. The distance between (x_1,y_1) "
        "and (x_2,y_2) is:\n\nsqrt{(x_2-x_1)^2+(y_2-y_1)^2}\n\nA cache of "
        "2^{(16+LOOKUP_CACHE_SIZE)} symbols costs $5, and made it.")


def test_the_manuals_go_to_the_next_section_line_is_navigation() -> None:
    """Every page of Doxygen's manual closes with "Go to the next section or return to the
    index.", links both (review, 2026-12-06); a sentence that says more stays."""
    from citewise.knowledge.loaders.html import read_html

    html = ('<html><body><div class="contents"><p>Click here for the output.</p><p>\n'
            'Go to the <a href="output.html">next</a> section or return to the\n'
            ' <a href="index.html">index</a>.\n </p><p>Back to the <a href="index.html">index'
            '</a>.</p><p>See the <a href="index.html">index</a> '
            'for the list of commands.</p></div></body></html>')
    assert read_html(html)[0] == ("Click here for the output.\n\nSee the index for the list "
                                  "of commands.")
