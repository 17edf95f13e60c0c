"""What a new user's review of the Debian FAQ as Word documents found (16 DOCX chapters that
LibreOffice 7.4 wrote, 2026-12-07): each chapter's table of contents and running title were
text that searches found, code paragraphs lost their spacing and read as prose, and the
bullets Word numbers (``w:numPr``) were no list items while LibreOffice's "List Heading"
(a term) was one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import parse_xml
from tests._loaders import docx_append, docx_built

from citewise.knowledge.loaders.base import LoadedDocument

_NS = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')


def _load(tmp_path: Path, build: Any) -> LoadedDocument:
    return docx_built(tmp_path, build, "chapter.docx")


def _append(d: Any, xml: str) -> None:
    docx_append(d, parse_xml(xml))


def _field_link(text: str, target: str) -> str:
    """A paragraph whose text is a HYPERLINK field, as LibreOffice writes a link."""
    run = '<w:r><w:fldChar w:fldCharType="{}"/></w:r>'
    return (f"<w:p {_NS}>" + run.format("begin")
            + f'<w:r><w:instrText xml:space="preserve"> HYPERLINK {target}</w:instrText></w:r>'
            + run.format("separate") + f"<w:r><w:t>{text}</w:t></w:r>" + run.format("end")
            + "</w:p>")


def _anchor_link(text: str, anchor: str, page: str = "") -> str:
    """A paragraph of Word's own table of contents: a link to a bookmark, its page after."""
    tail = f"<w:r><w:tab/></w:r><w:r><w:t>{page}</w:t></w:r>" if page else ""
    return (f'<w:p {_NS}><w:hyperlink w:anchor="{anchor}"><w:r><w:t>{text}</w:t></w:r>'
            f"</w:hyperlink>{tail}</w:p>")


def _styled(d: Any, name: str) -> None:
    if name not in [s.name for s in d.styles]:
        d.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)


def test_a_table_of_contents_is_no_text_in_either_editor_s_form(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        _styled(d, "TOC 1")
        d.add_paragraph("Contents", style="TOC Heading")
        d.add_paragraph("1. Getting started\t3", style="TOC 1")
        d.add_paragraph("Table of Contents")
        for i, title in enumerate(("8.1. Which tools manage packages?", "8.2. How do I list files?",
                                   "8.3. Which package owns a file?")):
            _append(d, _field_link(title, f'"pkgtools.html" \\l "sec{i}"'))
        for title, anchor in (("Install", "_Toc1"), ("Upgrade", "_Toc2"), ("Remove", "_Toc3")):
            _append(d, _anchor_link(title, anchor, page="4"))
        d.add_heading("8.1. Which tools manage packages?", 1)
        d.add_paragraph("dpkg is the main package management program.")

    doc = _load(tmp_path, build)
    assert doc.text == ("8.1. Which tools manage packages?\n\n"
                        "dpkg is the main package management program."), doc.text


def test_links_to_the_web_and_two_links_into_the_document_are_text(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        for site in ("https://www.debian.org/", "https://lists.debian.org/",
                     "https://bugs.debian.org/"):
            _append(d, _field_link(site, f'"{site}"'))
        _append(d, _anchor_link("See the section on upgrades.", "_Toc9"))
        _append(d, _anchor_link("See the section on removal.", "_Toc8"))

    doc = _load(tmp_path, build)
    assert doc.text.split("\n\n") == [
        "https://www.debian.org/", "https://lists.debian.org/", "https://bugs.debian.org/",
        "See the section on upgrades.", "See the section on removal."]


def test_code_paragraphs_keep_their_spacing_and_are_one_code_block(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        _styled(d, "Preformatted Text")
        d.add_paragraph("The apt command replaces these:")
        for line in (" apt-get upgrade       ->  apt upgrade",
                     " apt-get dist-upgrade  ->  apt full-upgrade"):
            d.add_paragraph(line, style="Preformatted Text")
        d.add_paragraph("The full upgrade may remove packages.")

    doc = _load(tmp_path, build)
    code = " apt-get upgrade       ->  apt upgrade\n apt-get dist-upgrade  ->  apt full-upgrade"
    assert code in doc.text, doc.text
    start = doc.text.index(code)
    assert (start, start + len(code), "code") in doc.roles
    assert not any(r == "code" and a > start + len(code) for a, _, r in doc.roles)


def test_numbered_paragraphs_are_items_and_a_definition_term_is_a_term(tmp_path: Path) -> None:
    numbered = ('<w:p {ns}><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="{n}"/></w:numPr>'
                "</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>")

    def build(d: Any) -> None:
        _styled(d, "List Heading")
        _styled(d, "List Contents")
        d.add_paragraph("Package A depends on Package B:")
        _append(d, numbered.format(ns=_NS, n=1, text="if B must be installed for A to run."))
        _append(d, numbered.format(ns=_NS, n=0, text="Numbering switched off is prose."))
        d.add_paragraph("stable", style="List Heading")
        d.add_paragraph("The released distribution.", style="List Contents")

    doc = _load(tmp_path, build)
    roles = {doc.text[a:b]: r for a, b, r in doc.roles}
    assert roles == {"if B must be installed for A to run.": "list_item", "stable": "term"}


def test_a_running_title_and_a_bar_of_links_are_no_text(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        banner = d.add_table(rows=2, cols=3)
        banner.cell(0, 1).text = "Chapter 8. Package tools"
        d.add_heading("Chapter 8. Package tools", 1)
        d.add_paragraph("Use dpkg.")
        table = d.add_table(rows=1, cols=2)
        table.cell(0, 0).text = "dpkg"
        table.cell(0, 1).text = "low level"
        bar = ('<w:tbl {ns}><w:tblPr/><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/>'
               '</w:tblGrid><w:tr><w:tc><w:p><w:hyperlink r:id="rId99"><w:r><w:t>Prev</w:t></w:r>'
               '</w:hyperlink></w:p></w:tc><w:tc><w:p><w:hyperlink w:anchor="top"><w:r>'
               "<w:t>Next</w:t></w:r></w:hyperlink></w:p></w:tc></w:tr></w:tbl>")
        _append(d, bar.format(ns=_NS))

    doc = _load(tmp_path, build)
    assert doc.text == "Chapter 8. Package tools\n\nUse dpkg.\n\ndpkg | low level", doc.text


# -- what the first version got wrong (its code review, 2026-12-07) --------------------------

def test_links_mid_text_stay_text_with_their_roles(tmp_path: Path) -> None:
    """Three section links under "See also:" are the text's, not a table of contents; two
    bulleted links keep their role."""
    bullet = ('<w:p {ns}><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'
              '</w:pPr><w:hyperlink w:anchor="{a}"><w:r><w:t>{t}</w:t></w:r></w:hyperlink></w:p>')

    def build(d: Any) -> None:
        d.add_heading("Networking", 1)
        d.add_paragraph("Configure the interface first. See also:")
        for title, anchor in (("Firewall rules", "fw"), ("DNS settings", "dns"),
                              ("Proxy configuration", "proxy")):
            _append(d, _anchor_link(title, anchor))
        d.add_paragraph("Related sections:")
        for title, anchor in (("Installing", "inst"), ("Upgrading", "up")):
            _append(d, bullet.format(ns=_NS, a=anchor, t=title))

    doc = _load(tmp_path, build)
    assert "See also:\n\nFirewall rules\n\nDNS settings\n\nProxy configuration" in doc.text
    roles = {doc.text[a:b]: r for a, b, r in doc.roles}
    assert roles.get("Installing") == roles.get("Upgrading") == "list_item", doc.roles


def test_a_contents_line_whose_link_field_ends_early_is_contents(tmp_path: Path) -> None:
    """LibreOffice ends a link's field before a part in another font ("… inside
    dists/stable/main?"); the rest is still drawn as the link."""
    early = (f"<w:p {_NS}>"
             '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
             '<w:r><w:instrText xml:space="preserve"> HYPERLINK "faq.html" \\l "dirs"</w:instrText>'
             '</w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
             '<w:r><w:t xml:space="preserve">6.8. What are the directories inside </w:t></w:r>'
             '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
             '<w:r><w:rPr><w:rStyle w:val="InternetLink"/></w:rPr><w:t>dists/stable/main?</w:t>'
             "</w:r></w:p>")

    def build(d: Any) -> None:
        d.add_paragraph("Table of Contents")
        _append(d, _field_link("6.7. Which distributions are there?", '"faq.html" \\l "a"'))
        _append(d, early)
        _append(d, _field_link("6.9. Where is the source code?", '"faq.html" \\l "b"'))
        d.add_heading("6.7. Which distributions are there?", 2)
        d.add_paragraph("Three.")

    doc = _load(tmp_path, build)
    assert doc.text == "6.7. Which distributions are there?\n\nThree.", doc.text


def test_a_text_file_s_preformatted_paragraphs_are_prose(tmp_path: Path) -> None:
    """A text file LibreOffice converts is all "Preformatted Text": no listing, its
    paragraphs apart."""
    def build(d: Any) -> None:
        _styled(d, "Preformatted Text")
        for line in ("Installing the tool", "Run the installer. The default is /opt/tool.",
                     "Uninstalling", "Delete the directory."):
            d.add_paragraph(line, style="Preformatted Text")

    doc = _load(tmp_path, build)
    assert doc.text == ("Installing the tool\n\nRun the installer. The default is /opt/tool."
                        "\n\nUninstalling\n\nDelete the directory."), doc.text
    assert not doc.roles


def test_a_listing_keeps_its_blank_lines_and_two_listings_stay_two(tmp_path: Path) -> None:
    def build(d: Any) -> None:
        _styled(d, "Preformatted Text")
        d.add_paragraph("Two stanzas, then a command:")
        for line in ("Package: eg-tools", "", "Package: eg-doc"):
            d.add_paragraph(line, style="Preformatted Text")
        d.add_paragraph("")
        d.add_paragraph("$ make", style="Preformatted Text")

    doc = _load(tmp_path, build)
    assert doc.text == ("Two stanzas, then a command:\n\nPackage: eg-tools\n\nPackage: eg-doc"
                        "\n\n$ make"), doc.text
    codes = [doc.text[a:b] for a, b, r in doc.roles if r == "code"]
    assert codes == ["Package: eg-tools\n\nPackage: eg-doc", "$ make"], codes


def test_a_table_of_web_addresses_is_text(tmp_path: Path) -> None:
    def cell(text: str, rid: str) -> str:
        return (f'<w:tc><w:p><w:hyperlink r:id="{rid}"><w:r><w:t>{text}</w:t></w:r>'
                "</w:hyperlink></w:p></w:tc>")

    rows = "".join(f"<w:tr>{cell(name, 'rId1')}{cell(url, 'rId2')}</w:tr>" for name, url in (
        ("Debian mirror", "http://deb.debian.org"), ("Ubuntu archive", "http://archive.ubuntu.com"),
        ("Fedora mirror", "http://mirror.fedora.org")))

    def build(d: Any) -> None:
        d.add_paragraph("Official download mirrors:")
        _append(d, f'<w:tbl {_NS}><w:tblPr/><w:tblGrid><w:gridCol w:w="2000"/>'
                   f'<w:gridCol w:w="2000"/></w:tblGrid>{rows}</w:tbl>')

    doc = _load(tmp_path, build)
    assert "Debian mirror | http://deb.debian.org\nUbuntu archive" in doc.text, doc.text


def test_contents_whose_first_line_links_elsewhere_are_contents(tmp_path: Path) -> None:
    """LibreOffice points a contents' chapter line at another file ("1. Definitions and
    overview"): the run of the chapter's own links after it is still the contents (the
    second code review: the FAQ's index kept every question's title)."""
    def build(d: Any) -> None:
        d.add_paragraph("An abstract of the FAQ, as prose.")
        d.add_paragraph("Table of Contents")
        _append(d, _field_link("1. Definitions and overview", '"basic-defs.html"'))
        for i, title in enumerate(("1.1. What is this FAQ?", "1.2. What is Debian?",
                                   "1.3. What is Linux?")):
            _append(d, _field_link(title, f'"index.html" \\l "q{i}"'))
        d.add_heading("Chapter 1", 1)
        d.add_paragraph("Text.")

    doc = _load(tmp_path, build)
    assert doc.text == "An abstract of the FAQ, as prose.\n\nChapter 1\n\nText.", doc.text
