"""A PDF's examples are code (new-user review of gnuplot's manual, 2026-12-04): a PDF's
text layer has no ``<pre>``, so "set samples 500" read as a sentence like any other and
could be quoted first for a question about what a command does. Lines set in a
monospaced font (LaTeX's CMTT, Courier, a "Mono" face) now get the ``code`` role; a
document whose body is monospaced (a typewritten report) gets none."""

from __future__ import annotations

from pathlib import Path

from citewise import Agent, KnowledgeBase
from citewise.knowledge.loaders.pdf import PdfLoader

PROSE = [
    "The samples command sets how many points a function is sampled at.",
    "A higher sampling rate gives a smoother curve but takes longer to draw.",
    "For example, to sample a curve at five hundred points:",
]
CODE = ["set samples 500", "plot sin(x) with lines"]
AFTER = "The isosamples command sets the number of isolines on a surface."


def _page(path: Path, body_font: str = "Helvetica") -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 760
    for line in PROSE:
        c.setFont(body_font, 11)
        c.drawString(72, y, line)
        y -= 16
    for line in CODE:
        c.setFont("Courier", 11)
        c.drawString(90, y, line)
        y -= 16
    c.setFont(body_font, 11)
    c.drawString(72, y, AFTER)
    c.showPage()
    c.save()


def test_lines_in_a_monospaced_font_are_code(tmp_path: Path) -> None:
    pdf = tmp_path / "samples.pdf"
    _page(pdf)
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    code = [doc.text[a:b] for a, b, role in doc.roles if role == "code"]
    assert code == ["set samples 500\nplot sin(x) with lines"]  # one block, two lines
    assert all(line in doc.text for line in [*PROSE, AFTER])


def test_a_typewritten_document_has_no_code(tmp_path: Path) -> None:
    pdf = tmp_path / "memo.pdf"
    _page(pdf, body_font="Courier")
    doc = PdfLoader().load(pdf, pdf.read_bytes())
    assert [r for r in doc.roles if r[2] == "code"] == []


def test_an_answer_quotes_the_prose_not_the_example(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _page(docs / "samples.pdf")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        kb.ingest([docs])
        answer = Agent(kb).ask("What does the samples command set?")
    assert answer.citations
    first = answer.citations[0].excerpt
    assert first == PROSE[0], first
    # The example is a paragraph of its own: no quote runs from the lead-in through the
    # example into the next command's sentence.
    assert not any("500" in c.excerpt and "isosamples" in c.excerpt for c in answer.citations)
