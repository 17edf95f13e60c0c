"""A PDF manual's running heads and outline (new-user review of the gnuplot 5.4 manual,
2026-12-04): every page's "24 gnuplot 5.4" was glued to its first sentence, no chunk had
a section, and the bullets came out as U+0088. The fixture is a small manual made with
reportlab in that shape: a running head with the page number, an outline of two levels,
a title line over each entry."""

from __future__ import annotations

from pathlib import Path

from citewise import Agent, KnowledgeBase
from citewise.knowledge.loaders.pdf import PdfLoader

ENTRIES = [
    ("Plotting styles", 0, ["The plot command draws data and functions in a style."]),
    ("Circles", 1, ["The circles style plots a circle with an explicit radius at each point.",
                    "\x88 The radius is given in the units of the x axis."]),
    ("Samples", 1, ["By default, sampling is set to 100 points.",
                    "A higher sampling rate gives a smoother curve but takes longer."]),
    ("Isosamples", 1, ["The isosample rate sets the number of isolines on a surface.",
                       "The default is 10 isolines in each direction."]),
    ("Commands", 0, ["Each command is described in a section of its own."]),
    ("Print", 1, ["The print command evaluates expressions and prints the results."]),
]


def _manual(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.setTitle("gnuplot 5.4")
    for number, (title, level, lines) in enumerate(ENTRIES, start=1):
        head = f"{number} gnuplot 5.4" if number % 2 == 0 else f"gnuplot 5.4 {number}"
        c.drawString(72, 800, head)
        key = f"s{number}"
        c.bookmarkPage(key)
        c.addOutlineEntry(title, key, level=level)
        c.drawString(72, 760, title)
        for i, line in enumerate(lines):
            c.drawString(72, 730 - 20 * i, line)
        c.showPage()
    c.save()


def test_running_heads_are_left_out_and_the_outline_makes_sections(tmp_path: Path) -> None:
    pdf = tmp_path / "gnuplot.pdf"
    _manual(pdf)
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert "gnuplot 5.4" not in doc.text
    assert "The radius is given" in doc.text
    names = [name for _, _, name in doc.sections]
    assert names == ["Plotting styles", "Plotting styles > Circles", "Plotting styles > Samples",
                     "Plotting styles > Isosamples", "Commands", "Commands > Print"]
    for (start, _, name), (h0, h1, role) in zip(doc.sections, doc.roles, strict=True):
        assert role == "heading" and doc.text[h0:h1] == name.rsplit(" > ", 1)[-1]
        assert h0 == start
    samples = next(s for s in doc.sections if s[2].endswith("Samples"))
    assert doc.text[samples[0]:samples[1]].strip().endswith("takes longer.")
    # A running head is gone, the page's own first line (its title) is not, and the title
    # is a paragraph of its own.
    assert "takes longer.\n\nIsosamples\n\nThe isosample rate" in doc.text
    # Pages are still pages.
    assert [n for _, _, n in doc.pages] == [1, 2, 3, 4, 5, 6]


def test_c1_control_characters_are_no_text() -> None:
    from citewise.knowledge.loaders.pdf import _clean

    assert _clean("The\x88 radius\x9f is given.\x85") == "The radius is given."
    # At a line's start U+0088 is LaTeX's itemize bullet as pypdf reads its font (gnuplot's
    # and GNU Prolog's manuals): a bullet (test_loaders_pdf_latex.py).
    assert _clean("Modes:\n\x88 full: all ports\n  \x88 half: some") == (
        "Modes:\n• full: all ports\n  • half: some")


def test_texs_spacing_accents_join_their_letters() -> None:
    # gnuplot's manual: "Hans-Bernhard Br¨oker", "P´eter Juh´asz", "J´erˆome Lodewyck".
    from citewise.knowledge.loaders.pdf import _clean

    assert _clean("Br¨oker, P´eter Juh´asz, J´erˆome, Fran¸cois") == (
        "Bröker, Péter Juhász, Jérôme, François")
    # An accent alone, or before what has no accented form, stays as it is.
    assert _clean("a ´ b, x¨1, ´q") == "a ´ b, x¨1, ´q"


def test_words_hyphenated_at_a_lines_end_are_joined_where_the_document_spells_them() -> None:
    # gnuplot's manual: "isosur-\nface", "com-\nmands" (88 breaks); the index read
    # "isosur" and "face". A compound the document writes with its hyphen keeps it, and
    # so does a word it never spells whole — on one line ("--no-site-file" was quoted as
    # "--no-site- file", R's manual).
    from citewise.knowledge.loaders._pdf_layout import dehyphenate

    pages = ["An isosur-\nface is drawn. Every isosurface has a level.",
             "Functions are user-\ndefined. A user-defined function, com-\npletes."]
    assert dehyphenate(pages) == [
        "An isosurface is drawn. Every isosurface has a level.",
        "Functions are user-defined. A user-defined function, com-pletes."]


def test_a_heading_that_recurs_without_a_number_is_kept(tmp_path: Path) -> None:
    from reportlab.pdfgen import canvas

    pdf = tmp_path / "notes.pdf"
    c = canvas.Canvas(str(pdf))
    for i in range(4):
        c.drawString(72, 800, "Summary")
        c.drawString(72, 780, f"Meeting {i} agreed on item {i}.")
        c.showPage()
    c.save()
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert doc.text.count("Summary") == 4 and doc.sections == []


def test_an_answer_quotes_without_the_running_head_and_names_its_section(
        tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _manual(docs / "gnuplot.pdf")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask("What is the sampling set to by default?")
    assert answer.citations
    first = answer.citations[0]
    assert "sampling is set to 100 points" in first.excerpt and "5.4" not in first.excerpt
    snippet = answer.search_documents[first.document_index - 1].snippets[0]
    assert snippet.section == "Plotting styles > Samples" and snippet.page == 3


def test_contents_and_index_pages_are_left_out_a_data_sheet_is_not(tmp_path: Path) -> None:
    # gnuplot's 19 contents pages (527 dot-leader lines) and 8 index pages were chunks
    # matching every question about a title, and answering none.
    from reportlab.pdfgen import canvas

    pages = [
        ["Contents", *(f"Section {i} " + ". " * 30 + f"{i + 3}" for i in range(1, 9))],
        # A contents page of chapter titles only, without leaders: next to the one above.
        [f"Chapter title {i} {i + 3}" for i in range(1, 9)],
        ["Samples", "By default, sampling is set to 100 points.", "It can be changed."],
        # A data sheet: every line ends with a number, none is a contents line.
        ["Rated voltage 240", "Rated current 16", "Weight in grams 850", "Height in mm 120",
         "Width in mm 80"],
        ["Index", *(f"term{i}, {i}, {i + 40}, {i + 90}" for i in range(1, 12))],
    ]
    pdf = tmp_path / "manual.pdf"
    c = canvas.Canvas(str(pdf))
    for lines in pages:
        for i, line in enumerate(lines):
            c.drawString(72, 780 - 18 * i, line)
        c.showPage()
    c.save()
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert [n for _, _, n in doc.pages] == [3, 4]
    assert "sampling is set to 100 points" in doc.text and "Rated current 16" in doc.text
    assert "Section 1" not in doc.text and "term3" not in doc.text


def test_an_even_pages_foot_that_names_its_chapter_after_the_number_is_left_out() -> None:
    """Sphinx's LaTeX sets an even page's foot as its number then its chapter ("28 Chapter
    4. Source packages") and an odd page's as its section then its number ("4.13. Embedded
    code copies 29"); the even feet, 89 of them, stayed in the Debian Policy Manual's text
    (review, 2026-12-07). A footnote that opens with its number stays."""
    from citewise.knowledge.loaders._pdf_layout import strip_running

    # Five chapters of four pages: no foot's shape recurs on a fifth of the pages.
    chapters = ["Source packages", "Control files", "Maintainer scripts", "Shared libraries",
                "Documentation"]
    entries = [(0, title, 1 + 4 * i) for i, title in enumerate(chapters)]
    said = ["Packages build in a clean chroot", "Upstream tarballs keep their names",
            "Copies of libraries are avoided", "Scripts must be idempotent",
            "Builds should be reproducible", "Patches go in a folder",
            "Fields are case-insensitive", "Every field has a value", "Scripts exit with zero",
            "Errors stop the upgrade", "Libraries have a SONAME", "Symbols files list them",
            "Manuals are compressed", "Examples are installed", "Changelogs are kept",
            "Menus are optional", "Daemons log to syslog", "Users get home folders",
            "Cron jobs are files", "Fonts are shared"]
    bodies = [f"{line.rstrip('.')}.\n{n} A footnote about it." for n, line in enumerate(said)]
    pages = []
    for i, body in enumerate(bodies):
        number, chapter = 27 + i, 4 + i // 4
        foot = (f"{number} Chapter {chapter}. {chapters[i // 4]}" if number % 2 == 0
                else f"{chapter}.{i}. Section {i} of it {number}")
        pages.append(f"{body}\n{foot}")
    assert strip_running(pages, entries) == bodies


def test_a_foot_names_its_part_by_a_letter_too() -> None:
    """"12 Appendix A. Glossary" is an appendix's foot as "28 Chapter 4. Source packages" is
    a chapter's; "3 Chapter 2 explains the rest." is a footnote (code review, 2026-12-07)."""
    from citewise.knowledge.loaders._pdf_layout import _page_number

    titles = frozenset({"glossary", "source packages"})
    assert _page_number("12 Appendix A. Glossary", foot=True, titles=titles) == 12
    assert _page_number("28 Chapter 4. Source packages", foot=True, titles=titles) == 28
    assert _page_number("3 Chapter 2 explains the rest.", foot=True, titles=titles) is None
