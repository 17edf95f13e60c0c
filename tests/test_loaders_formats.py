"""Format loaders on small real files written by the tests: PDF, HTML, DOCX, Latin-1, JSONL."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from citewise.errors import IngestError
from citewise.knowledge.loaders.base import LoadedDocument, Loader
from citewise.knowledge.loaders.docx import DocxLoader
from citewise.knowledge.loaders.html import HtmlLoader
from citewise.knowledge.loaders.jsonl import JsonLoader
from citewise.knowledge.loaders.pdf import PdfLoader


def load(loader: Loader, path: Path) -> LoadedDocument:
    doc = loader.load(path, path.read_bytes())
    _check_spans(doc)
    return doc


def _check_spans(doc: LoadedDocument) -> None:
    """Spans are sorted, non-overlapping, inside the text, and never start on a blank."""
    for spans in (doc.sections, doc.pages):
        prev_end = 0
        for start, end, _ in spans:
            assert prev_end <= start < end <= len(doc.text)
            assert not doc.text[start].isspace()
            prev_end = end


def section_of(doc: LoadedDocument, needle: str) -> str | None:
    at = doc.text.index(needle)
    return next((name for a, b, name in doc.sections if a <= at < b), None)


def page_of(doc: LoadedDocument, needle: str) -> int | None:
    at = doc.text.index(needle)
    return next((n for a, b, n in doc.pages if a <= at < b), None)


# -- PDF ------------------------------------------------------------------------------------


def _write_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.setTitle("Travel policy")
    c.setAuthor("Finance team")
    c.drawString(72, 720, "Economy class is required for flights under six hours.")
    c.showPage()
    c.showPage()  # page 2 is blank
    c.drawString(72, 720, "Hotel costs are reimbursed up to 150 euros per night.")
    c.drawString(72, 700, "Receipts must be submitted within 30 days.")
    c.showPage()
    c.save()


def test_pdf_pages_map_back_to_page_numbers(tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    _write_pdf(path)
    doc = load(PdfLoader(), path)
    assert doc.content_type == "application/pdf"
    assert doc.title == "Travel policy"
    assert doc.metadata["author"] == "Finance team"
    assert doc.metadata["page_count"] == 3
    assert page_of(doc, "Economy class") == 1
    assert page_of(doc, "Hotel costs") == 3 and page_of(doc, "within 30 days") == 3
    assert [n for _, _, n in doc.pages] == [1, 3]  # the blank page has no span
    start, end, _ = doc.pages[1]
    assert doc.text[start:end].startswith("Hotel costs are reimbursed")
    assert doc.text[start:end].endswith("within 30 days.")


def test_corrupt_pdf_is_a_typed_error(tmp_path: Path) -> None:
    good = tmp_path / "good.pdf"
    _write_pdf(good)
    data = good.read_bytes()
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(data[:40] + b"\x00garbage" * 20)
    for path, payload in ((broken, broken.read_bytes()), (tmp_path / "x.pdf", b"not a pdf")):
        with pytest.raises(IngestError) as err:
            PdfLoader().load(path, payload)
        assert err.value.code == "corrupt_file"
        assert err.value.details["path"] == str(path)


def test_a_producer_s_placeholder_title_is_no_title(tmp_path: Path) -> None:
    # reportlab writes "untitled" when nobody set a title: sources read "[1] untitled".
    from reportlab.pdfgen import canvas

    path = tmp_path / "gauge-manual.pdf"
    c = canvas.Canvas(str(path))
    c.drawString(72, 720, "Float gauge manual")
    c.drawString(72, 700, "The float gauge must be calibrated every 90 days.")
    c.showPage()
    c.save()
    doc = load(PdfLoader(), path)
    assert doc.title == "Float gauge manual"


def test_pdf_without_text_layer_is_empty(tmp_path: Path) -> None:
    from reportlab.pdfgen import canvas

    path = tmp_path / "scan.pdf"
    c = canvas.Canvas(str(path))
    c.rect(100, 100, 200, 200, fill=1)  # a "scan": drawing, no text
    c.showPage()
    c.save()
    with pytest.raises(IngestError) as err:
        PdfLoader().load(path, path.read_bytes())
    assert err.value.code == "empty_document"


# -- HTML -----------------------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html lang="en"><head>
<meta charset="windows-1252">
<title>Caf\xe9 guide &amp; FAQ</title>
<meta name="description" content="How the caf\xe9 works">
<link rel="canonical" href="https://example.org/cafe">
<style>p { color: red }</style><script>var tracking = "secret";</script>
</head><body>
<div class="cookie-banner">We use cookies</div>
<nav><a href="/">Home</a> | <a href="/menu">Menu</a></nav>
<main>
  <article>
    <header><h1 id="top">Opening   hours</h1></header>
    <p>We open at <b>8 am</b> on weekdays.<br>Weekends at 9 am.</p>
    <h2 id="pay">Payment</h2>
    <p>Cards and cash are accepted.</p>
    <ul><li>Visa</li><li>Mastercard</li></ul>
    <h3>Tips</h3>
    <table><tr><th>Service</th><th>Tip</th></tr><tr><td>Table</td><td>10%</td></tr></table>
    <pre>  menu --list
    coffee</pre>
    <aside>Related: our other shops</aside>
  </article>
</main>
<footer>(c) 2024 Caf\xe9</footer>
</body></html>
"""


def test_html_main_text_title_sections_and_anchors(tmp_path: Path) -> None:
    path = tmp_path / "cafe.html"
    path.write_bytes(PAGE.encode("cp1252"))
    doc = load(HtmlLoader(), path)
    assert doc.title == "Café guide & FAQ"
    assert doc.content_type == "text/html"
    text = doc.text
    for gone in ("cookies", "Home", "tracking", "color", "(c) 2024", "other shops"):
        assert gone not in text
    assert text.startswith("Opening hours\n\nWe open at 8 am on weekdays.\nWeekends at 9 am.")
    assert "Visa\nMastercard" in text
    assert "Service | Tip\nTable | 10%" in text
    assert "  menu --list\n    coffee" in text  # <pre> keeps its whitespace
    assert section_of(doc, "8 am") == "Opening hours"
    assert section_of(doc, "Cards and cash") == "Opening hours > Payment"
    assert section_of(doc, "10%") == "Opening hours > Payment > Tips"
    anchors = doc.metadata["anchors"]
    assert text[anchors["top"] :].startswith("Opening hours")
    assert text[anchors["pay"] :].startswith("Payment")
    assert doc.metadata["lang"] == "en"
    assert doc.metadata["description"] == "How the café works"
    assert doc.metadata["canonical_url"] == "https://example.org/cafe"
    assert doc.metadata["encoding"] == "windows-1252"


def test_html_without_main_uses_body_and_empty_page_is_typed(tmp_path: Path) -> None:
    path = tmp_path / "plain.htm"
    path.write_text("<html><body><header>Site</header><p>Just text.</p></body></html>")
    doc = load(HtmlLoader(), path)
    assert doc.text == "Just text."
    assert doc.title == "plain"
    empty = tmp_path / "empty.html"
    empty.write_text("<html><head><title>x</title></head><body><nav>menu</nav></body></html>")
    with pytest.raises(IngestError) as err:
        HtmlLoader().load(empty, empty.read_bytes())
    assert err.value.code == "empty_document"


# -- DOCX -----------------------------------------------------------------------------------


def _write_docx(path: Path, *, title: str | None = "Employee handbook") -> None:
    import docx

    d = docx.Document()
    if title:
        d.core_properties.title = title
    d.core_properties.author = "HR"
    d.add_heading("Leave", 1)
    d.add_paragraph("Employees get 25 days of paid leave per year.")
    d.add_heading("Sick leave", 2)
    d.add_paragraph("Report sickness before 10 am.")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Days"
    table.cell(0, 1).text = "Proof"
    table.cell(1, 0).text = "3+"
    table.cell(1, 1).text = "Doctor's note"
    d.add_heading("Equipment", 1)
    d.add_paragraph("Laptops are replaced every   four years.", style="List Bullet")
    d.save(str(path))


def test_docx_heading_sections_tables_and_metadata(tmp_path: Path) -> None:
    path = tmp_path / "handbook.docx"
    _write_docx(path)
    doc = load(DocxLoader(), path)
    assert doc.title == "Employee handbook"
    assert doc.metadata["author"] == "HR"
    assert section_of(doc, "25 days") == "Leave"
    assert section_of(doc, "before 10 am") == "Leave > Sick leave"
    assert section_of(doc, "Doctor's note") == "Leave > Sick leave"
    assert section_of(doc, "every four years") == "Equipment"
    assert "Days | Proof\n3+ | Doctor's note" in doc.text
    a, b, name = doc.sections[1]
    assert name == "Leave > Sick leave" and doc.text[a:b].startswith("Sick leave\n\nReport")
    assert [(doc.text[a:b], r) for a, b, r in doc.roles] == [
        ("Leave", "heading"), ("Sick leave", "heading"), ("Days | Proof\n3+ | Doctor's note",
                                                          "table"),
        ("Equipment", "heading"), ("Laptops are replaced every four years.", "list_item")]


def test_docx_title_falls_back_to_top_heading_and_corrupt_is_typed(tmp_path: Path) -> None:
    path = tmp_path / "untitled.docx"
    _write_docx(path, title=None)
    assert DocxLoader().load(path, path.read_bytes()).title == "Leave"
    for payload in (b"PK\x03\x04 truncated zip", b"plain bytes", path.read_bytes()[:300]):
        with pytest.raises(IngestError) as err:
            DocxLoader().load(tmp_path / "bad.docx", payload)
        assert err.value.code == "corrupt_file"


# -- plain text in Latin-1 (the store engineer's loader, checked against real bytes) --------


def test_latin1_text_file_decodes_with_exact_offsets(tmp_path: Path) -> None:
    from citewise.knowledge.loaders.text import TextLoader

    original = "Grüße aus Köln\n\nDer Preis beträgt 15 € nicht, sondern 15 Mark.\nÇa va, garçon?\n"
    original = original.replace("€", "EUR")  # Latin-1 has no euro sign
    path = tmp_path / "brief.txt"
    path.write_bytes(original.encode("latin-1"))
    doc = TextLoader().load(path, path.read_bytes())
    assert doc.text == original
    at = doc.text.index("garçon")
    assert doc.text[at : at + 6] == "garçon"
    assert doc.metadata["encoding"].replace("_", "-").lower() in {
        "latin-1", "iso-8859-1", "cp1252", "windows-1252", "iso8859-1", "latin1",
        "iso-8859-15", "cp1250", "iso8859-15",
    }


# -- JSON / JSONL ---------------------------------------------------------------------------

RECORDS = [
    {"id": 1, "title": "Refunds", "text": "Refunds are paid within 14 days.", "tags": ["billing"]},
    {"id": 2, "body": "Shipping is free above 50 euros.", "lang": "en"},
    {"id": 3, "note": "no text field here"},
    {"id": 4, "content": "Support answers within one working day.", "date": "2024-03-01"},
]


def test_jsonl_records_become_sections_with_metadata(tmp_path: Path) -> None:
    path = tmp_path / "faq.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n\n", encoding="utf-8")
    doc = load(JsonLoader(), path)
    assert doc.content_type == "application/jsonl"
    assert doc.metadata["record_count"] == 3 and doc.metadata["skipped_records"] == 1
    assert [name for _, _, name in doc.sections] == ["Refunds", "id=2", "id=4"]
    for (a, b, _), rec in zip(doc.sections, doc.metadata["records"], strict=True):
        assert (rec["start_char"], rec["end_char"]) == (a, b)
    rec = doc.metadata["records"][0]
    assert doc.text[rec["start_char"] : rec["end_char"]] == "Refunds are paid within 14 days."
    assert rec["tags"] == ["billing"] and rec["record"] == 1 and "text" not in rec
    assert doc.metadata["records"][2]["date"] == "2024-03-01"
    per_record = JsonLoader().split(path, path.read_bytes())
    assert [d.text for d in per_record] == [
        "Refunds are paid within 14 days.",
        "Shipping is free above 50 euros.",
        "Support answers within one working day.",
    ]
    assert per_record[1].metadata["lang"] == "en" and per_record[1].title == "id=2"


def test_json_array_wrapped_object_custom_field_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"items": [{"q": "What?", "answer": "This."}]}))
    doc = JsonLoader(text_fields=("answer",)).load(path, path.read_bytes())
    assert doc.text == "This." and doc.content_type == "application/json"
    assert doc.metadata["records"][0]["q"] == "What?"

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"text": broken\n')
    with pytest.raises(IngestError) as err:
        JsonLoader().load(bad, bad.read_bytes())
    assert err.value.code == "corrupt_file" and err.value.details["line"] == 2

    none = tmp_path / "none.jsonl"
    none.write_text('{"a": 1}\n[1, 2]\n')
    with pytest.raises(IngestError) as err:
        JsonLoader().load(none, none.read_bytes())
    assert err.value.code == "empty_document"

    scalar = tmp_path / "scalar.json"
    scalar.write_text("42")
    with pytest.raises(IngestError) as err:
        JsonLoader().load(scalar, scalar.read_bytes())
    assert err.value.code == "unsupported_structure"


def test_every_format_loader_satisfies_the_protocol() -> None:
    for loader in (PdfLoader(), HtmlLoader(), DocxLoader(), JsonLoader()):
        assert isinstance(loader, Loader)
        assert all(ext.startswith(".") and ext == ext.lower() for ext in loader.extensions)


def test_loaders_are_registered_as_entry_points() -> None:
    from citewise.knowledge.loaders import discover

    registry = discover()
    for name, ext in (("pdf", ".pdf"), ("html", ".html"), ("docx", ".docx"), ("jsonl", ".jsonl")):
        loader = registry.get(name)
        assert loader is not None, f"{name} is not registered under citewise.loaders"
        assert registry.for_path(f"x{ext}") is loader


def test_loaders_read_bytes_not_paths(tmp_path: Path) -> None:
    """The path only names the document: a loader must work on bytes it is handed."""
    buf = io.BytesIO()
    import docx

    d = docx.Document()
    d.add_paragraph("In memory.")
    d.save(buf)
    doc = DocxLoader().load(tmp_path / "never-written.docx", buf.getvalue())
    assert doc.text == "In memory." and "modified" not in doc.metadata
