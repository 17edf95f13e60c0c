"""A PDF manual in Texinfo's shape (new-user review of R's PDF manuals, 2026-12-05):
running heads that name the chapter ("Chapter 4: Ordered and unordered factors 19") glued
to the first sentence of 169 pages, footnote marks glued to their words ("limited3"), a
page's footnote between the two halves of a sentence over the page break, appendices
("Appendix B Invoking R" for the bookmark "B Invoking R") filed under the last chapter,
an index whose letter headings hid it, and a hyphen kept at a line's end quoted as
"--no-site- file". The fixture is drawn with reportlab in that shape: marks are small
digits raised above the baseline, as TeX sets them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from citewise.knowledge.loaders.base import LoadedDocument
from citewise.knowledge.loaders.pdf import PdfLoader

Piece = tuple[str, float, float]  # text, font size, rise


def _line(c: Any, y: float, parts: list[Piece]) -> None:
    x = 72.0
    text = c.beginText(x, y)
    for piece, size, rise in parts:
        text.setFont("Times-Roman", size)
        text.setTextOrigin(x, y + rise)
        text.textOut(piece)
        x += c.stringWidth(piece, "Times-Roman", size)
    c.drawText(text)


def _plain(*lines: str) -> list[list[Piece]]:
    return [[(line, 11, 0)] for line in lines]


PAGES: list[tuple[list[list[Piece]], list[list[Piece]], str]] = [
    # (body lines, footnote lines, foot)
    (_plain("An Introduction to Widgets"), [], ""),
    (_plain("Preface", "This manual introduces widgets."), [], "ii"),
    ([*_plain("1 Starting out"),
      [("Command lines entered at the console are limited", 11, 0), ("1", 7, 4),
       (" to about 4095 bytes.", 11, 0)],
      *_plain("The ordered() function creates ordered factors. For most purposes",
              "the only difference between ordered")],
     [[("1", 7, 4), (" some consoles will not allow you to enter more.", 9, 0)]], "1"),
    (_plain("An Introduction to Widgets 2",
            "and unordered factors is that the former are printed showing the order.",
            "Start it with --no-site-",
            "file to skip the site profile."), [], ""),
    (_plain("3 Going further", "This chapter goes further than the first."), [], "3"),
    (_plain("Chapter 3: Going further 4", "More widgets are described here."), [], ""),
    (_plain("Appendix B Invoking R", "R can be started with options."), [], "5"),
    (_plain("Appendix B: Invoking R 6", "Options are read from the command line."), [], ""),
    (_plain("Concept index", "A", "awk . . . . . . . . . . . . . . . . 3", "B",
            "binary files . . . . . . . . . . . 4, 5", "C",
            "console . . . . . . . . . . . . . 1", "command line . . . . . . . . . 6"), [], "7"),
    (_plain("Concept index 8", "Y", "yaml . . . . . . . . . . . . . . . . 7"), [], ""),
]
OUTLINE = [("1 Starting out", 2), ("3 Going further", 4), ("B Invoking R", 6),
           ("Concept index", 8)]


def _manual(path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter
    from reportlab.pdfgen import canvas

    raw = io.BytesIO()
    c = canvas.Canvas(raw)
    c.setTitle("An Introduction to Widgets")
    for index, (body, notes, foot) in enumerate(PAGES):
        for title, page in OUTLINE:
            if page == index:
                c.bookmarkPage(f"p{index}")
                c.addOutlineEntry(title, f"p{index}", level=0)
        for i, parts in enumerate(body):
            _line(c, 780 - 16 * i, parts)
        for i, parts in enumerate(notes):
            _line(c, 90 - 12 * i, parts)
        if foot:
            _line(c, 40, [(foot, 11, 0)])
        c.showPage()
    c.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw.getvalue())))
    writer.set_page_label(0, 1, style="/r")  # i, ii: the front matter
    writer.set_page_label(2, len(PAGES) - 1, style="/D", start=1)
    with path.open("wb") as out:
        writer.write(out)


def _load(tmp_path: Path) -> LoadedDocument:
    pdf = tmp_path / "widgets.pdf"
    _manual(pdf)
    return PdfLoader().load(pdf, pdf.read_bytes())


def test_chapter_heads_and_feet_that_carry_the_page_number_are_left_out(
        tmp_path: Path) -> None:
    doc = _load(tmp_path)
    for head in ("An Introduction to Widgets 2", "Chapter 3: Going further 4",
                 "Appendix B: Invoking R 6", "Concept index 8"):
        assert head not in doc.text
    assert not re.search(r"(?m)^\d+$", doc.text)  # no page number alone on its line
    # Nor the front matter's roman one, its printed label.
    assert "introduces widgets.\n\n" in doc.text and "\nii\n" not in doc.text
    # A chapter's title that starts with the page's own number is a title, not a head.
    assert "3 Going further\n\nThis chapter goes further" in doc.text
    assert "3 Going further" in [name for _, _, name in doc.sections]


def test_footnote_marks_leave_their_words_and_notes_are_paragraphs(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert "are limited to about 4095 bytes." in doc.text
    assert "limited1" not in doc.text
    # The sentence over the page break reads whole, before the page's note, and is on
    # the page it starts on.
    whole = ("For most purposes\nthe only difference between ordered\nand unordered factors "
             "is that the former are printed showing the order.")
    at = doc.text.index(whole)
    assert doc.text[at + len(whole):].startswith("\n\n1 some consoles will not allow you")
    page = next(n for a, b, n in doc.pages if a <= at < b)
    assert page == 3


def test_appendices_are_sections_and_the_index_is_left_out(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    options = doc.text.index("Options are read")
    assert [name for a, b, name in doc.sections if a <= options < b] == ["B Invoking R"]
    heading = next((a, b) for a, b, role in doc.roles if role == "heading"
                   and doc.text[a:b].endswith("Invoking R"))
    assert doc.text[heading[0]:heading[1]] == "Appendix B Invoking R"
    assert "awk" not in doc.text and "yaml" not in doc.text  # letter headings or not


def test_a_hyphen_kept_at_a_lines_end_keeps_the_word_on_one_line(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert "Start it with --no-site-file to skip" in " ".join(doc.text.split())
    assert "--no-site-file" in doc.text


def test_a_notes_mark_glued_to_its_first_word_is_set_apart(tmp_path: Path) -> None:
    """The dot guide's notes have no space after their mark: "6For completeness, we note
    …" was its stored text and its quote (Graphviz's review, 2026-12-06). Every note of a
    page reads "6 For …", and a sentence over the page break still reads whole above them."""
    from reportlab.pdfgen import canvas

    pdf = tmp_path / "dotguide.pdf"
    c = canvas.Canvas(str(pdf))
    for i, parts in enumerate([
            [("Nodes are drawn as ellipses", 11, 0), ("1", 7, 4), (".", 11, 0)],
            [("The escape sequence names the node", 11, 0), ("2", 7, 4), (". The parameter", 11, 0)]]):
        _line(c, 780 - 16 * i, parts)
    _line(c, 90, [("1", 7, 4), ("There is a way to implement custom node shapes.", 9, 0)])
    _line(c, 78, [("2", 7, 4), ("The escape sequence is an internal symbol.", 9, 0)])
    c.showPage()
    _line(c, 780, [("nodesep sets the minimum space between nodes.", 11, 0)])
    c.showPage()
    c.save()
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert "\n\n1 There is a way to implement custom node shapes.\n" in doc.text
    assert "\n2 The escape sequence is an internal symbol." in doc.text
    assert "1There" not in doc.text and "2The" not in doc.text
    assert "The parameter\nnodesep sets the minimum space between nodes.\n\n1 There" in doc.text
