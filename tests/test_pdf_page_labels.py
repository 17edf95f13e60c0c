"""A PDF's printed page labels: a book numbers its pages from its first chapter (its front
matter in roman numerals), and a citation of "page 3" sent the reader to the page printed
"1". The label is what the book and the viewer show; the number stays (a viewer's
``#page=3``)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from citewise import Agent, KnowledgeBase
from citewise.answer import Answer
from citewise.knowledge.loaders.pdf import PdfLoader, _page_labels

PAGES = [
    ["Preface", "This handbook is for owners of the Ember stove."],
    ["Safety notes", "Keep children away from the glass door while it is hot."],
    ["Servicing", "The boiler must be serviced by an engineer every twelve months."],
    ["Fuel", "Burn only dry hardwood logs in the Ember stove."],
]


def _book(path: Path, *, labelled: bool) -> None:
    from pypdf import PdfReader, PdfWriter
    from reportlab.pdfgen import canvas

    raw = io.BytesIO()
    c = canvas.Canvas(raw)
    c.setTitle("Ember stove handbook")
    for title, line in PAGES:
        c.drawString(72, 760, title)
        c.drawString(72, 730, line)
        c.showPage()
    c.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw.getvalue())))
    if labelled:
        writer.set_page_label(0, 1, style="/r")  # i, ii
        writer.set_page_label(2, 3, style="/D", start=1)  # 1, 2
    with path.open("wb") as out:
        writer.write(out)


def test_the_labels_that_differ_from_the_page_numbers_are_kept(tmp_path: Path) -> None:
    pdf = tmp_path / "ember.pdf"
    _book(pdf, labelled=True)
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert doc.metadata["page_labels"] == {"1": "i", "2": "ii", "3": "1", "4": "2"}
    _book(pdf, labelled=False)
    assert "page_labels" not in PdfLoader().load(pdf, pdf.read_bytes()).metadata


def test_a_damaged_label_tree_leaves_the_numbers() -> None:
    class Damaged:
        @property
        def page_labels(self) -> list[str]:
            raise KeyError("/Nums")

    class Short:
        page_labels = ("i",)

    assert _page_labels(Damaged(), 4) == {}
    assert _page_labels(Short(), 4) == {}


def _asked(tmp_path: Path, question: str) -> tuple[Answer, str, Path]:
    """``question`` asked over the labelled book, the answer and its plain printout."""
    from citewise.cli.common import print_answer

    docs = tmp_path / "docs"
    docs.mkdir()
    _book(docs / "ember.pdf", labelled=True)
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask(question)
    plain = io.StringIO()
    print_answer(answer, None, plain)
    return answer, plain.getvalue(), docs / "ember.pdf"


def test_a_citation_names_the_printed_page(tmp_path: Path) -> None:
    answer, text, pdf = _asked(tmp_path, "How often does the boiler need a service?")
    first = answer.citations[0]
    assert "every twelve months" in first.excerpt
    doc = answer.search_documents[first.document_index - 1]
    snippet = doc.snippets[first.snippet_index or 0]
    assert (snippet.page, snippet.page_label) == (3, "1")
    assert "page_labels" not in doc.document  # the page's label travels, not the book's
    assert f"[1] {pdf} (page 1, PDF page 3)" in text


def test_the_closest_passages_of_a_declined_answer_name_their_page(tmp_path: Path) -> None:
    # They showed the file and section only (new-user review of R's PDF manuals).
    answer, text, _ = _asked(tmp_path, "How do I configure middleware in Django?")
    assert not answer.citations and answer.search_documents
    assert "Closest passages (they do not answer it):" in text
    shown = re.search(r"^\[1\] .*ember\.pdf \(page (\w+), PDF page (\d)\)", text, re.M)
    assert shown is not None, text
    assert (shown.group(1), shown.group(2)) in {("i", "1"), ("ii", "2"), ("1", "3"), ("2", "4")}
