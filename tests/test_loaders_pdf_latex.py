"""A LaTeX manual's PDF, as GNU Prolog's is (new-user review, 2026-12-07): 161 of its 378
bookmarks named no section (LaTeX draws "_" as a rule, so "set_prolog_flag/2" is "set
prolog flag/2" in the text), random/1's description was filed under random/3 (the
bookmark's function signature was looked for before its title line), a bulleted list and
the paragraph under it were one sentence, and a sentence over a page break lost its end
("…precedes its definition" / "(section 7.1.2, page 45).")."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.pdf import PdfLoader

PAGE_1 = [
    ("h", "8.22.1 set prolog flag/2", "set_prolog_flag/2"),
    ("r", "Templates", None),
    ("r", "set prolog flag(+flag, +term)", None),
    ("r", "Description", None),
    ("r", "set prolog flag(Flag, Value) sets the value of the Prolog flag Flag to Value.", None),
    ("r", "\u2022 on: the flag is set", None),
    ("r", "\u2022 off: the flag is reset", None),
    ("r", "Flags are kept for the session.", None),
    ("h", "8.25.3 random/1", "random/1"),
    ("r", "Templates", None),
    ("r", "random(-float)", None),
    ("r", "Description", None),
    ("r", "random(Number) unifies Number with a random floating point number.", None),
    ("h", "8.25.4 random/3", "random/3"),
    ("r", "Templates", None),
    ("r", "random(+number, +number, -number)", None),
    ("r", "Ports can also be an atom defining a shorthand:", None),
    ("r", "\u2022 full: equivalent to [call, exit, redo, fail, exception]", None),
    ("r", "\u2022 half: equivalent to [call, redo]", None),
    ("r", "When an unleashed port is encountered the debugger continues.", None),
    ("r", "There are two internal representations for an FD variable:", None),
    ("r", "\u2022 sparse representation: an additional bit-vector stores values included in",
     None),
    ("r", "0..vector max. By default vector max is set to 127. It is used by", None),
    ("r", "GNU Prolog's solver.", None),
    ("r", "A user-defined procedure is static by default unless a dynamic/1 directive", None),
    ("r", "precedes its definition", None),
]
PAGE_2 = ["(section 7.1.2, page 45). Adding a clause to a procedure makes it dynamic."]


def _manual(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 780
    for face, line, mark in PAGE_1:
        c.setFont("Helvetica-Bold" if face == "h" else "Helvetica", 10)
        if mark is not None:
            c.bookmarkPage(mark, top=y + 12)
            c.addOutlineEntry(mark, mark, level=0)
        c.drawString(72, y, line)
        y -= 26 if face == "h" else 15
    c.showPage()
    c.setFont("Helvetica", 10)
    c.drawString(72, 780, PAGE_2[0])
    c.save()


def test_a_latex_manuals_titles_lists_and_page_breaks(tmp_path: Path) -> None:
    path = tmp_path / "gprolog.pdf"
    _manual(path)
    doc = PdfLoader().load(path, path.read_bytes())
    text = doc.text
    where = {name: text[a:b] for a, b, name in doc.sections}
    assert list(where) == ["set_prolog_flag/2", "random/1", "random/3"]
    assert where["set_prolog_flag/2"].startswith("8.22.1 set prolog flag/2")
    assert "random(Number) unifies Number" in where["random/1"]
    assert where["random/3"].startswith("8.25.4 random/3")
    # The titles stand where they did, past the blank line set under a list above them.
    headings = [text[a:b] for a, b, role in doc.roles if role == "heading"]
    assert headings == ["8.22.1 set prolog flag/2", "8.25.3 random/1", "8.25.4 random/3"]
    assert "the flag is reset\n\nFlags are kept" in text
    # Each bullet's line is an item, with the lines its sentence goes on over ("0..vector
    # max.", "GNU Prolog's"); the paragraph under a list starts a sentence.
    items = [text[a:b] for a, b, role in doc.roles if role == "list_item"]
    assert items == ["\u2022 on: the flag is set", "\u2022 off: the flag is reset",
                     "\u2022 full: equivalent to [call, exit, redo, fail, exception]",
                     "\u2022 half: equivalent to [call, redo]",
                     "\u2022 sparse representation: an additional bit-vector stores values "
                     "included in\n0..vector max. By default vector max is set to 127. It is "
                     "used by\nGNU Prolog's solver."]
    assert "[call, redo]\n\nWhen an unleashed port" in text
    # The sentence over the page break is one: the page after it goes on with a bracket.
    assert "precedes its definition\n(section 7.1.2, page 45)." in text


def test_an_items_next_sentence_and_a_filled_line_go_on_with_it() -> None:
    """A second sentence inside a list is its item's, not a paragraph set apart mid-list;
    and a line is filled by the page's usual length, not its longest (a program's line):
    "… supported by" / "GNU Prolog …" is one sentence (code review, 2026-12-07)."""
    from citewise.knowledge.loaders._pdf_lists import list_items

    text, items, inserted = list_items(
        "Modes:\n• full: every port is traced.\nIt is the default.\n• half: some ports\n"
        "When an unleashed port is met the debugger goes on.")
    assert [text[a:b] for a, b in items] == [
        "• full: every port is traced.\nIt is the default.", "• half: some ports"]
    assert text.endswith("• half: some ports\n\nWhen an unleashed port is met the debugger "
                         "goes on.") and len(inserted) == 1
    prose = "Options are read in this order and the first one found wins over the others."
    page = (f"{prose}\n• sparse representation: an additional bit-vector is used and it is "
            "supported by\nGNU Prolog from version 1.4 on for all finite domain constraints of "
            f"the solver.\nFinally the result is printed.\n{prose}\n{prose}\n"
            "fd_set_vector_max(+integer) fd_vector_max(?integer) fd_max_integer(?integer) "
            "fd_min_integer(?integer)")
    text, items, _ = list_items(page)
    assert text[items[0][0]:items[0][1]].endswith("constraints of the solver.")
