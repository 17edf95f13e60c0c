"""Content the HTML and DOCX loaders used to drop silently: class/id words inside a page's
main content, and DOCX content controls, nested tables and tracked insertions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests._loaders import docx_append, docx_built

from citewise.errors import IngestError
from citewise.knowledge.loaders.base import LoadedDocument
from citewise.knowledge.loaders.html import HtmlLoader, extract_html

# -- HTML -----------------------------------------------------------------------------------

RESTAURANT = (
    "<html><body><nav>Home About</nav><main><p>We are open from noon.</p>"
    '<section class="menu"><ul><li>Margherita pizza costs 9 euros.</li></ul></section>'
    '<section id="cookies"><p>This site stores one session cookie for 30 days.</p></section>'
    "</main><footer>(c) 2026</footer></body></html>"
)


def test_html_main_content_keeps_sections_named_like_chrome() -> None:
    text, _, _, _ = extract_html(RESTAURANT)
    assert text == (
        "We are open from noon.\n\nMargherita pizza costs 9 euros.\n\n"
        "This site stores one session cookie for 30 days."
    )


@pytest.mark.parametrize(
    "wrap",
    [
        "<main>{}</main>",
        "<article>{}</article>",
        '<div role="main">{}</div>',
        '<div class="page"><main><div class="content">{}</div></main></div>',
    ],
)
def test_html_only_structural_chrome_is_dropped_inside_main_content(wrap: str) -> None:
    inner = (
        '<div class="social share ads banner sidebar"><p>Share this recipe with friends.</p></div>'
        "<nav>Previous | Next</nav><script>var x = 1;</script><style>p {}</style>"
        "<template><p>Template row</p></template><p hidden>Hidden note</p>"
        "<aside>Related posts</aside><p>Bake for 12 minutes.</p>"
    )
    html = f"<html><body><div class='ads'>Buy now</div>{wrap.format(inner)}</body></html>"
    text, _, _, _ = extract_html(html)
    assert text == "Share this recipe with friends.\n\nBake for 12 minutes."


def test_html_without_main_still_drops_named_chrome() -> None:
    html = (
        '<html><body><div class="cookie-banner">We use cookies</div>'
        '<div id="sidebar"><p>Popular posts</p></div><p>Doors open at 7.</p>'
        '<ul class="social-links"><li>Follow us</li></ul></body></html>'
    )
    assert extract_html(html)[0] == "Doors open at 7."


def test_html_without_main_whose_body_is_all_named_chrome_keeps_its_text(tmp_path: Path) -> None:
    path = tmp_path / "menu.html"
    path.write_text(
        "<html><body><nav>Home</nav>"
        '<div class="menu"><h1>Our menu</h1><p>Margherita pizza costs 9 euros.</p></div>'
        '<div id="cookies"><p>Session cookie for 30 days.</p></div></body></html>'
    )
    doc = HtmlLoader().load(path, path.read_bytes())
    assert doc.text == "Our menu\n\nMargherita pizza costs 9 euros.\n\nSession cookie for 30 days."
    assert doc.sections == [(0, len(doc.text), "Our menu")]


def test_html_empty_main_falls_back_to_the_body_text() -> None:
    html = "<html><body><main></main><p>Rendered outside main.</p></body></html>"
    assert extract_html(html)[0] == "Rendered outside main."


def test_html_page_of_only_structural_chrome_is_still_empty(tmp_path: Path) -> None:
    path = tmp_path / "chrome.html"
    path.write_text("<html><body><nav>Home</nav><main><script>x()</script></main></body></html>")
    with pytest.raises(IngestError) as err:
        HtmlLoader().load(path, path.read_bytes())
    assert err.value.code == "empty_document"


# -- DOCX -----------------------------------------------------------------------------------


def _xml(fragment: str) -> Any:
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    return parse_xml(f"<w:body {nsdecls('w')}>{fragment}</w:body>")[0]


def test_html_every_article_of_a_page_without_main_is_kept() -> None:
    # A blog's or a news site's index page: only the first article was stored.
    text, _, sections, _ = extract_html(
        "<html><body><nav>Home</nav>"
        "<article><h2>Opening hours</h2><p>We open at noon.</p>"
        "<article><p>A reader wrote: great pizza.</p></article></article>"
        "<article><h2>Prices</h2><p>Margherita costs 9 euros.</p></article>"
        "<footer>(c) 2026</footer></body></html>")
    assert text == ("Opening hours\n\nWe open at noon.\n\nA reader wrote: great pizza.\n\n"
                    "Prices\n\nMargherita costs 9 euros.")
    assert [name for _, _, name in sections] == ["Opening hours", "Prices"]


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _sdt(content: str) -> str:
    return f'<w:sdt><w:sdtPr><w:alias w:val="field"/></w:sdtPr><w:sdtContent>{content}</w:sdtContent></w:sdt>'


def _para(inner: str) -> str:
    return f"<w:p>{inner}</w:p>"


def _tbl(*rows: str) -> str:
    grid = '<w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>'
    return f"<w:tbl><w:tblPr/>{grid}{''.join(rows)}</w:tbl>"


def _tr(*cells: str) -> str:
    return "<w:tr>" + "".join(f"<w:tc>{c}</w:tc>" for c in cells) + "</w:tr>"


def _load_docx(tmp_path: Path, build: Any) -> LoadedDocument:
    return docx_built(tmp_path, build)


def _append(d: Any, fragment: str) -> None:
    docx_append(d, _xml(fragment))


def test_docx_inline_content_control_keeps_the_sentence_whole(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        p = d.add_paragraph("Visitor badge colour is ")
        p._p.append(_xml(_sdt(_run("orange"))))
        p.add_run(" this year.")

    doc = _load_docx(tmp_path, build)
    assert doc.text == "Visitor badge colour is orange this year."


def test_docx_an_empty_content_control_s_prompt_is_not_text(tmp_path: Path) -> None:
    prompt = ('<w:sdt><w:sdtPr><w:showingPlcHdr/></w:sdtPr><w:sdtContent>'
              + _run("Click or tap here to enter text.") + "</w:sdtContent></w:sdt>")

    def build(d: Any) -> None:
        p = d.add_paragraph("Approved by: ")
        p._p.append(_xml(prompt))
        _append(d, _sdt(_para(_run("Signed."))))

    doc = _load_docx(tmp_path, build)
    assert doc.text == "Approved by:\n\nSigned."


def test_docx_block_content_controls_keep_document_order_and_headings(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        d.add_heading("Access", 1)
        d.add_paragraph("Badges are collected at reception.")
        nested_control = _sdt(_para(_run("Bikes go in the yard.")))
        _append(d, _sdt(_para(_run("Parking is free after 6 pm.")) + nested_control))
        d.add_paragraph("Lost badges cost 5 euros.")

    doc = _load_docx(tmp_path, build)
    assert doc.text == (
        "Access\n\nBadges are collected at reception.\n\nParking is free after 6 pm.\n\n"
        "Bikes go in the yard.\n\nLost badges cost 5 euros."
    )
    assert doc.sections == [(0, len(doc.text), "Access")]


def test_docx_heading_inside_a_content_control_opens_a_section(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        d.add_paragraph("Preface text.")
        heading = d.add_heading("Scope", 1)
        heading._p.addprevious(_xml(_sdt("")))  # an sdt wrapper to move the heading into
        sdt = heading._p.getprevious()
        sdt.find("{*}sdtContent").append(heading._p)
        d.add_paragraph("Applies to all staff.")

    doc = _load_docx(tmp_path, build)
    assert doc.text == "Preface text.\n\nScope\n\nApplies to all staff."
    assert doc.sections == [(15, len(doc.text), "Scope")]


def test_docx_tracked_insertions_count_and_deletions_do_not(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        p = d.add_paragraph("The deadline is ")
        p._p.append(_xml('<w:del w:id="1" w:author="a"><w:r><w:delText>Monday</w:delText></w:r></w:del>'))
        p._p.append(_xml(f'<w:ins w:id="2" w:author="a">{_run("Friday")}</w:ins>'))
        p.add_run(".")

    doc = _load_docx(tmp_path, build)
    assert doc.text == "The deadline is Friday."


def test_docx_content_controls_in_cells_and_nested_tables(tmp_path: Path) -> None:
    nested = _tbl(_tr(_para(_run("Tier")), _para(_run("Price"))), _tr(_para(_run("Gold")), _para(_run("90"))))
    outer = _tbl(
        _tr(_para(_run("Plan")), _para(_run("Details"))),
        _tr(
            _sdt(_para(_run("Annual"))),
            _para(_run("Billed ") + _sdt(_run("yearly"))) + nested + _para(_run("VAT included.")),
        ),
        _tr(_para(_run("Support")), _para(_run("Email"))),
    )

    doc = _load_docx(tmp_path, lambda d: _append(d, outer))
    assert doc.text == (
        "Plan | Details\n"
        "Annual | Billed yearly VAT included.\n"
        "Tier | Price\n"
        "Gold | 90\n"
        "Support | Email"
    )


def test_docx_rows_and_cells_wrapped_in_content_controls(tmp_path: Path) -> None:
    wrapped_cell = _sdt(f"<w:tc>{_para(_run('Clerk'))}</w:tc>")
    table = _tbl(
        _tr(_para(_run("Name")), _para(_run("Role"))),
        _sdt(_tr(_para(_run("Ana")), _para(_run("Chair")))),  # a repeating-section row
        f"<w:tr><w:tc>{_para(_run('Bo'))}</w:tc>{wrapped_cell}</w:tr>",
    )
    doc = _load_docx(tmp_path, lambda d: _append(d, table))
    assert doc.text == "Name | Role\nAna | Chair\nBo | Clerk"


def test_docx_merged_cells_read_as_before(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        t = d.add_table(rows=3, cols=3)
        t.cell(0, 0).merge(t.cell(0, 1)).text = "Wide"
        t.cell(0, 2).text = "x"
        t.cell(1, 0).merge(t.cell(2, 0)).text = "Tall"
        for r in (1, 2):
            for c in (1, 2):
                t.cell(r, c).text = f"{r}{c}"

    doc = _load_docx(tmp_path, build)
    assert doc.text == "Wide | x\nTall | 11 | 12\nTall | 21 | 22"


def test_docx_document_of_only_deleted_text_is_empty(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        p = d.add_paragraph()
        p._p.append(_xml('<w:del w:id="1" w:author="a"><w:r><w:delText>Gone</w:delText></w:r></w:del>'))

    with pytest.raises(IngestError) as err:
        _load_docx(tmp_path, build)
    assert err.value.code == "empty_document"


def test_html_without_main_keeps_a_section_whose_id_is_its_titles_words() -> None:
    # Django's sessions page (Sphinx, no <main>): a section's id and a method's id have
    # "cookie" in them because their titles do; they were dropped as cookie banners.
    html = (
        '<html><body><div class="cookie-banner">We use cookies</div>'
        '<div id="cookie-consent"><h3>Consent</h3><p>Accept all</p></div>'
        '<div class="section" id="s-using-cookie-based-sessions">'
        "<h3>Using cookie-based sessions</h3><p>Set SESSION_ENGINE to signed_cookies.</p>"
        '<dl class="py method"><dt class="sig sig-object py" '
        'id="django.contrib.sessions.backends.base.SessionBase.set_test_cookie">'
        "set_test_cookie()</dt><dd><p>Sets a test cookie.</p></dd></dl></div>"
        "</body></html>"
    )
    text = extract_html(html)[0]
    assert "We use cookies" not in text and "Accept all" not in text
    assert "Using cookie-based sessions" in text
    assert "Set SESSION_ENGINE to signed_cookies." in text
    assert "set_test_cookie()" in text and "Sets a test cookie." in text
