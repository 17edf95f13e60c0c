"""A PDF without an outline whose numbered titles are set in bold, as Graphviz's guides are
(new-user review of ``graphviz-doc``, 2026-12-06): it had no sections at all, its titles
were terms, and "3.1 Initial Configuration:" named a sentence three lines below it as if
it were an option's. Such titles are its sections now; a PDF with an outline keeps the
outline's."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.pdf import PdfLoader

LINES = [
    ("b", "1 Introduction"),
    ("r", "Neato draws undirected graphs as springs."),
    ("b", "3 Adjusting Layouts"),
    ("r", "Layouts can be tuned in three ways."),
    ("b", "3.1 Initial Configuration"),
    ("r", "If no options are given, neato always makes the same drawing."),
    ("r", "Random initial placement can yield different layouts. It is"),
    ("r", "sometimes reasonable to make several trial layouts."),
    ("b", "4 Eliminating Overlaps"),
    ("r", "The overlap attribute removes node overlaps. To remove them:"),
    ("b", "1. Set overlap"),
    ("r", "Give the graph the attribute overlap=false."),
    ("b", "2 Previous Steps"),
    ("r", "A title whose number goes back is no section."),
]


def _guide(path: Path, *, outline: bool) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 780
    for face, line in LINES:
        c.setFont("Helvetica-Bold" if face == "b" else "Helvetica", 11)
        if outline and face == "b":
            key = line.split()[0]
            c.bookmarkPage(key, top=y + 12)
            c.addOutlineEntry(line, key, level=0)
        c.drawString(72, y, line)
        y -= 28 if face == "b" else 16
    c.save()


def test_numbered_bold_titles_are_the_sections_of_a_pdf_without_an_outline(
        tmp_path: Path) -> None:
    path = tmp_path / "neatoguide.pdf"
    _guide(path, outline=False)
    doc = PdfLoader().load(path, path.read_bytes())
    assert [name for _, _, name in doc.sections] == [
        "1 Introduction", "3 Adjusting Layouts", "3 Adjusting Layouts > 3.1 Initial Configuration",
        "4 Eliminating Overlaps"]
    start = doc.text.index("3.1 Initial Configuration")
    roles = {role for a, b, role in doc.roles if a <= start < b}
    assert roles == {"heading"}  # no longer a term that names the sentences below it
    section = next(s for s in doc.sections if s[2].endswith("3.1 Initial Configuration"))
    assert "sometimes reasonable" in doc.text[section[0]:section[1]]
    # A numbered step ("1. Set overlap") and a number that goes back are no sections: the
    # last section runs on over both (code review, 2026-12-06).
    assert "A title whose number goes back" in doc.text[doc.sections[-1][0]:]


def test_a_pdf_with_an_outline_keeps_the_outlines_sections(tmp_path: Path) -> None:
    path = tmp_path / "guide.pdf"
    _guide(path, outline=True)
    doc = PdfLoader().load(path, path.read_bytes())
    assert [name for _, _, name in doc.sections] == [
        "1 Introduction", "3 Adjusting Layouts", "3.1 Initial Configuration",
        "4 Eliminating Overlaps", "1. Set overlap", "2 Previous Steps"]


def test_urws_medium_weight_is_bold() -> None:
    """The dot guide's headings are set in "NimbusRomNo9L-Medi", URW's Times bold, which
    the bold check did not know (Graphviz's review, 2026-12-06): its sections were none."""
    from citewise.knowledge.loaders._pdf_fonts import _BOLD

    for face in ("ABCDEF+NimbusRomNo9L-Medi", "NimbusRomNo9L-MediItal", "Roboto-Medium",
                 "CMBX10", "Helvetica-Bold"):
        assert _BOLD.search(face), face
    for face in ("ABCDEF+NimbusRomNo9L-Regu", "NimbusRomNo9L-ReguItal", "Times-Roman",
                 "NimbusMonL-Regu"):
        assert not _BOLD.search(face), face


def test_a_numbered_bold_title_is_one_after_a_url_and_before_a_lower_case_name(
        tmp_path: Path) -> None:
    """The dot guide's "2.1 Node Shapes" followed a URL with no full stop, and "1 Basic
    Graph Drawing" preceded "dot draws directed graphs.", a sentence that opens with its
    program's lower-case name: neither was a title, so 2 of its 16 sections were missing
    (Graphviz's review, 2026-12-06). A bold line with a section number is a title wherever
    it stands; an unnumbered bold line there still is not."""
    from reportlab.pdfgen import canvas

    path = tmp_path / "dotguide.pdf"
    c = canvas.Canvas(str(path))
    y = 780
    for face, line in [
            ("r", "dot User's Manual, January 5, 2015 2"),
            ("b", "1 Basic Graph Drawing"),
            ("r", "dot draws directed graphs. It reads attributed graph text files."),
            ("b", "2 Drawing Attributes"),
            ("r", "For more attributes, you should refer to the web site, specifically"),
            ("r", "www.graphviz.org/doc/info/attrs.html"),
            ("b", "2.1 Node Shapes"),
            ("r", "Nodes are drawn, by default, with shape=ellipse, width=.75, height=.5"),
            ("r", "and labeled by the node name, which is set in"),
            ("b", "Times Roman"),
            ("r", "by default."),
            ("r", "Figure 5: Example Graph Drawing"),
            ("b", "3 Graph Drawing"),
            ("b", "3.1 Basic Commands"),
            ("r", "The remainder of this memo gives a synopsis of features."),
            ("b", "3.2 Index vectors; selecting and modifying subsets of a data"),
            ("b", "set"),
            ("r", "Subsets of the elements of a vector may be selected."),
    ]:
        c.setFont("Helvetica-Bold" if face == "b" else "Helvetica", 11)
        c.drawString(72, y, line)
        y -= 16
    c.save()
    doc = PdfLoader().load(path, path.read_bytes())
    assert [name for _, _, name in doc.sections] == [
        "1 Basic Graph Drawing", "2 Drawing Attributes", "2 Drawing Attributes > 2.1 Node Shapes",
        "3 Graph Drawing", "3 Graph Drawing > 3.1 Basic Commands"]
    # A title over a numbered one is two titles; one over the unnumbered rest of its own
    # line is not cut from it (it stays in the text of the section before).
    assert "subsets of a data\nset\nSubsets of" in doc.text[doc.sections[-1][0]:]
    shapes = doc.sections[2]
    assert doc.text[shapes[0]:shapes[1]].startswith("2.1 Node Shapes\n")
    at = doc.text.index("Times Roman")
    assert doc.text[at - 2:at] != "\n\n" and not {role for a, b, role in doc.roles if a <= at < b}


def test_a_bold_contents_page_names_no_sections(tmp_path: Path) -> None:
    """A contents entry in bold ends in its page's number ("1 Definition of CRC 2"): read
    as a title, it became a section and the chapters' own titles, their numbers going back,
    none (zlib's crc-doc.1.0.pdf: 22 sections became 9; code review, 2026-12-06)."""
    from reportlab.pdfgen import canvas

    path = tmp_path / "guide.pdf"
    c = canvas.Canvas(str(path))
    for page in (
            [("b", "Contents"), ("b", "1 Basic Graph Drawing 2"), ("r", "1.1 Attributes 2"),
             ("b", "2 Drawing Attributes 3"), ("r", "2.1 Node Shapes 3")],
            [("b", "1 Basic Graph Drawing"), ("r", "dot draws directed graphs. It reads files."),
             ("b", "1.1 Attributes"), ("r", "Attributes are set in the file.")],
            [("b", "2 Drawing Attributes"), ("r", "Nodes are drawn as ellipses by default."),
             ("b", "2.1 Node Shapes"), ("r", "Shapes are many.")]):
        y = 780
        for face, line in page:
            c.setFont("Helvetica-Bold" if face == "b" else "Helvetica", 11)
            c.drawString(72, y, line)
            y -= 16
        c.showPage()
    c.save()
    doc = PdfLoader().load(path, path.read_bytes())
    assert [name for _, _, name in doc.sections] == [
        "1 Basic Graph Drawing", "1 Basic Graph Drawing > 1.1 Attributes",
        "2 Drawing Attributes", "2 Drawing Attributes > 2.1 Node Shapes"]
