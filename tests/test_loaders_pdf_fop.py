"""A PDF manual made by Apache FOP, as Erlang/OTP's are (new-user review of ten of them,
2026-12-04, 618 pages): 220 of 1,410 bookmarks became sections, since a page prints
"1.7.8  Recovery of Transactions" for the bookmark "Recovery of Transactions" and a
function's bookmark "abort/1" is its signature's line; 523 pages opened with their
chapter's title as a running head, some inside a sentence going on over the page; a name
in the code font alone on a line was set apart as an example, cutting its sentence; FOP's
bold faces set "ﬁ" as a ligature. The fixture is a small manual in that shape."""

from __future__ import annotations

from pathlib import Path

from citewise.knowledge.loaders.base import LoadedDocument
from citewise.knowledge.loaders.pdf import PdfLoader

# Each page: (running head or None, bookmark (title, level) or None, lines); a line in
# brackets is set in Courier.
PAGES: list[tuple[str | None, tuple[str, int] | None, list[str]]] = [
    ("1.1  Introduction", ("Introduction", 0), ["1.1  Introduction",
                                  "Mnesia is a distributed database for Erlang programs."]),
    ("1.1  Introduction", ("Scope", 1), [
        "1.1.1  Scope",
        "This guide describes how to build applications that keep their state in the"]),
    ("1.1  Introduction", None, [
        "database, and how to start it from the shell.",
        "Before it reads a table, a program waits for it with the function",
        "[mnesia:wait_for_tables/2.]",
        "Loading a large table from disc takes a while."]),
    ("mnesia", ("mnesia", 0), ["mnesia", "Erlang module", "[abort(Reason) -> no_return()]",
                               "Makes the transaction silently return the tuple "
                               "{aborted, Reason}."]),
    ("mnesia", None, ["[start() -> ok]", "Starts Mnesia on the local node.",
                      "[1> mnesia:start().]", "ok", "[2> mnesia:info().]"]),
]
OUTLINE_EXTRA = {3: [("abort/1", 1)], 4: [("start/0", 1)]}


def _manual(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for number, (head, mark, lines) in enumerate(PAGES):
        y = 800
        if head is not None:
            c.setFont("Helvetica", 10)
            c.drawString(72, y, head)
        y -= 40
        marks = ([mark] if mark else []) + OUTLINE_EXTRA.get(number, [])
        for i, (title, level) in enumerate(marks):
            key = f"p{number}m{i}"
            c.bookmarkPage(key)
            c.addOutlineEntry(title, key, level=level)
        for line in lines:
            code = line.startswith("[")
            c.setFont("Courier" if code else "Helvetica", 11)
            c.drawString(72, y, line.strip("[]") if code else line)
            y -= 20
        c.setFont("Helvetica", 9)
        c.drawString(72, 40, f"Ericsson AB. All Rights Reserved.: Mnesia | {number + 1}")
        c.showPage()
    c.save()


def _load(tmp_path: Path) -> LoadedDocument:
    pdf = tmp_path / "mnesia.pdf"
    _manual(pdf)
    return PdfLoader().load(pdf, pdf.read_bytes())


def test_numbered_titles_and_functions_bookmarks_are_sections(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert [name for _, _, name in doc.sections] == [
        "Introduction", "Introduction > Scope", "mnesia", "mnesia > abort/1",
        "mnesia > start/0"]
    headings = [doc.text[a:b] for a, b, role in doc.roles if role == "heading"]
    assert headings == ["1.1  Introduction", "1.1.1  Scope", "mnesia",
                        "abort(Reason) -> no_return()", "start() -> ok"]


def test_chapter_heads_are_left_out_and_a_sentence_goes_on_over_the_page(
        tmp_path: Path) -> None:
    doc = _load(tmp_path)
    assert doc.text.count("Introduction") == 1 and doc.text.count("mnesia\n") == 1
    # The page break inside a sentence is a line break, not a paragraph's blank line.
    assert ("applications that keep their state in the\ndatabase, and how to start it from "
            "the shell.") in doc.text
    assert [n for _, _, n in doc.pages] == [1, 2, 3, 4, 5]


def test_a_name_in_the_code_font_inside_a_sentence_is_not_set_apart(tmp_path: Path) -> None:
    doc = _load(tmp_path)
    sentence = "waits for it with the function\nmnesia:wait_for_tables/2.\nLoading"
    assert sentence in doc.text
    at = doc.text.index("mnesia:wait_for_tables")
    assert not any(a <= at < b for a, b, role in doc.roles if role == "code")
    # An example stays code, and a result too short to tell its font ("ok") stays in it.
    assert "1> mnesia:start().\nok\n2> mnesia:info()." in doc.text
    start = doc.text.index("1> mnesia:start()")
    assert any(a == start and role == "code" for a, b, role in doc.roles)


def test_ligatures_are_their_letters() -> None:
    from citewise.knowledge.loaders.pdf import _clean

    assert _clean("Conﬁguration of the ﬂoor, Shuﬄed") == "Configuration of the floor, Shuffled"


def test_what_the_fop_rules_leave_alone() -> None:
    from citewise.knowledge.loaders._pdf_fonts import in_prose
    from citewise.knowledge.loaders._pdf_layout import headings, strip_running

    # "HTTP/2" is a bookmark's title, not a function's arity.
    _, found = headings(["Intro\nHTTP/2\nIt multiplexes streams."], [(0, "HTTP/2", 1)])
    assert [name for *_, name in found] == ["HTTP/2"]
    # A title that opens one later page alone (a second "Options", no bookmark there) is
    # that page's heading, not a running head.
    entries = [(0, "Options", 1), (0, "Files", 2)]
    texts = ["Options\n-v prints more.", "Files\nThe file is read.", "Options\n-q prints less."]
    assert strip_running(texts, entries)[2].startswith("Options")
    # A command after "type" is an example, not a name inside the sentence.
    line = "To build and install the program, type"
    assert in_prose(f"{line}\nmake install\nIt installs into /usr.",
                    frozenset({"make install"})) == frozenset({"make install"})
