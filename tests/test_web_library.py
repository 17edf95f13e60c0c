"""The library in a real Chromium: several files uploaded through the file picker, each
with its progress and outcome (a refused one shows its error code, the API's own); the
stored one becomes searchable and answers a question; filter, re-ingest, delete, counts.
And a document full of markup (``<script>``, ``<img onerror>``) renders inert, as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from _web import ask, ready, screenshot, serve_with

pytestmark = pytest.mark.slow

TRAILS = ("# Trail guide\n\nThe Ridge trail is closed every winter from December to March.\n\n"
          "Dogs are welcome on the Lake trail when kept on a leash.\n")
HOSTILE = ('Gift cards never expire <img src="/nothing.png" onerror="window.__pwned = 1"> '
           "and <script>window.__pwned = 2</script> can be used online.\n\n"
           "<b>Bold?</b> No: tags here are just text.\n")
BINARY = bytes(range(256)) * 8


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_with(tmp_path_factory.mktemp("web-lib"), {})


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def library_counts(http: httpx.Client) -> str:
    lib = http.get("/v1/library").json()
    docs, chunks = lib["documents"], lib["chunks"]
    return f"{docs} document{'s' * (docs != 1)} · {chunks} chunk{'s' * (chunks != 1)}"


def test_upload_several_then_searchable_filter_reingest_delete(
        base: str, http: httpx.Client, page_of: Any, tmp_path: Path) -> None:
    good = tmp_path / "trails.md"
    good.write_text(TRAILS, encoding="utf-8")
    gear = tmp_path / "gear.txt"
    gear.write_text("Every tent is seam-sealed before it is rented out.\n", encoding="utf-8")
    bad = tmp_path / "firmware.bin"
    bad.write_bytes(BINARY)
    refused = http.post("/v1/documents", files={"file": ("firmware.bin", BINARY)})
    assert refused.status_code >= 400
    code = refused.json()["error"]["code"]

    page, console = page_of(base, viewport={"width": 1280, "height": 760})
    ready(page)
    page.click("#nav-library")
    page.set_input_files("#file-input", [str(good), str(bad), str(gear)])
    page.wait_for_selector("#uploads li[data-name='trails.md'][data-status='added']")
    page.wait_for_selector("#uploads li[data-name='gear.txt'][data-status='added']")
    row = page.locator("#uploads li[data-name='firmware.bin'][data-status='error']")
    row.wait_for()
    assert row.get_attribute("data-code") == code and code in row.inner_text()
    # The browser logs the refused upload's 4xx: the one error this test expects.
    assert len(console.errors) == 1 and "Failed to load resource" in console.errors[0]
    console.errors.clear()
    doc = page.locator("#doc-list li[data-source='trails.md']")
    doc.wait_for()
    assert "searchable" in doc.locator(".badges").inner_text().split()
    assert "embedded" in doc.locator(".badges").inner_text().split()
    page.wait_for_function("t => document.querySelector('#lib-counts').textContent === t",
                           arg=library_counts(http))
    assert (page.locator("#uploads li .outcome").first.inner_text() == "added"
            or page.locator("#uploads progress").first.get_attribute("value") == "1")
    screenshot(page, "library.png")
    # Searchable for real: a question is answered from it, citing it.
    page.click("#nav-ask")
    ask(page, "When is the Ridge trail closed?")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    page.locator(".turn button.cite").first.click()
    page.wait_for_selector("#viewer-text mark.cite-active")
    assert page.inner_text("#viewer-meta").startswith("trails.md")
    assert "December to March" in page.inner_text("#viewer-text mark.cite-active")
    # Filter, re-ingest (a new version under the same name), delete.
    page.click("#nav-library")
    page.fill("#doc-filter", "nomatch")
    page.wait_for_selector("#doc-list li.muted")
    assert page.locator("#doc-list li.doc-row").count() == 0
    page.fill("#doc-filter", "trail")
    assert page.locator("#doc-list .doc-name").all_inner_texts() == ["trails.md"]
    newer = tmp_path / "v2.md"
    newer.write_text(TRAILS + "\nThe Pass trail opens in June.\n", encoding="utf-8")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Re-ingest trails.md").click()
    chooser.value.set_files(str(newer))
    page.wait_for_selector("#uploads li[data-name='trails.md'][data-status='updated']")
    docs = {d["source"]: d for d in http.get("/v1/documents").json()["documents"]}
    assert sorted(docs) == ["gear.txt", "trails.md"] and "Pass trail" in http.get(
        f"/v1/documents/{docs['trails.md']['id']}", params={"text": "true"}).json()["text"]
    delete = page.locator("#doc-list li[data-source='trails.md']").get_by_role("button", name="Delete")
    delete.click()
    page.get_by_role("button", name="Confirm delete").click()
    page.wait_for_selector("#doc-list li[data-source='trails.md']", state="detached")
    assert [d["source"] for d in http.get("/v1/documents").json()["documents"]] == ["gear.txt"]
    page.fill("#doc-filter", "")
    page.wait_for_function("t => document.querySelector('#lib-counts').textContent === t",
                           arg=library_counts(http))


def test_markup_in_a_document_renders_inert(base: str, http: httpx.Client, page_of: Any) -> None:
    r = http.post("/v1/documents", files={"file": ("gift-cards.txt", HOSTILE.encode())})
    assert r.status_code == 201, r.text
    page, _ = page_of(base)
    ready(page)
    ask(page, "Do gift cards expire?")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    answer_text = page.inner_text(".turn .answer")
    assert "<script>" in answer_text or "<img" in answer_text  # shown as text
    page.locator(".turn button.cite").first.click()
    page.wait_for_selector("#viewer-text mark.cite-active")
    viewer = page.inner_text("#viewer-text")
    assert '<img src="/nothing.png" onerror="window.__pwned = 1">' in viewer
    assert "<script>window.__pwned = 2</script>" in viewer and "<b>Bold?</b>" in viewer
    page.locator(".turn .how > summary").click()
    page.locator(".turn .steps > summary").click()
    assert page.evaluate("window.__pwned") is None
    # No element came out of the document's text anywhere on the page.
    assert page.locator("main img, #viewer img, main script, #viewer script, main b, #viewer b").count() == 0


def _pdf(*pages: str) -> bytes:
    """A PDF of one line a page."""
    import io

    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    out = io.BytesIO()
    c = canvas.Canvas(out)
    for line in pages:
        c.drawString(72, 720, line)
        c.showPage()
    c.save()
    return out.getvalue()


def test_a_pdf_citation_shows_its_page_with_the_span(base: str, http: httpx.Client,
                                                     page_of: Any, tmp_path: Path) -> None:
    pdf = _pdf("The burner must be cleaned after every trip.",
               "The fuel canister is replaced every forty hours of burning.")
    up = http.post("/v1/documents", files={"file": ("stove-manual.pdf", pdf)})
    assert up.status_code == 201, up.text
    doc_id = up.json()["document"]["id"]
    text = http.get(f"/v1/documents/{doc_id}", params={"text": "true"}).json()["text"]
    page, _ = page_of(base)
    ready(page)
    ask(page, "When is the fuel canister replaced?")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    run_id = page.evaluate("document.querySelector('.turn').dataset.runId")
    citation = http.get(f"/v1/runs/{run_id}").json()["answer"]["citations"][0]
    page.locator(".turn button.cite").first.click()
    page.wait_for_selector("#viewer-text mark.cite-active")
    cited = text[citation["start_char"]:citation["end_char"]]
    assert page.text_content("#viewer-text mark.cite-active") == cited
    assert "page 2" in page.inner_text("#viewer-meta")
    shown = page.inner_text("#viewer-text")
    assert "Page 2" in shown and "forty hours" in shown and "burner" not in shown  # that page only


def test_a_pdf_citation_names_its_printed_page(base: str, http: httpx.Client,
                                               page_of: Any, tmp_path: Path) -> None:
    import io

    from pypdf import PdfReader, PdfWriter

    raw = _pdf("This handbook is for owners of the Ember stove.",
               "The flue of the Ember stove is swept once every autumn.")
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(raw)))
    writer.set_page_label(0, 0, style="/r")  # the preface is page i, the first chapter 1
    writer.set_page_label(1, 1, style="/D", start=1)
    pdf = io.BytesIO()
    writer.write(pdf)
    up = http.post("/v1/documents", files={"file": ("ember.pdf", pdf.getvalue())})
    assert up.status_code == 201, up.text
    page, _ = page_of(base)
    ready(page)
    ask(page, "How often is the flue of the Ember stove swept?")
    page.wait_for_selector(".turn .answer[aria-busy=false] button.cite")
    assert "page 1 (PDF page 2)" in page.inner_text(".turn .sources-list")
    page.locator(".turn button.cite").first.click()
    page.wait_for_selector("#viewer-text mark.cite-active")
    assert "page 1 (PDF page 2)" in page.inner_text("#viewer-meta")
    assert "Page 1 (PDF page 2)" in page.inner_text("#viewer-text")  # the page's own note


def test_drop_files_on_the_library(base: str, http: httpx.Client, page_of: Any) -> None:
    page, _ = page_of(base)
    ready(page)
    page.click("#nav-library")
    # A real drop event carrying two files, as the browser makes one from a drag.
    page.eval_on_selector("#drop-zone", """zone => {
        const data = new DataTransfer();
        data.items.add(new File(["Kayaks are rented by the hour.\\n"], "kayaks.txt", {type: "text/plain"}));
        data.items.add(new File(["Bikes are rented by the day.\\n"], "bikes.txt", {type: "text/plain"}));
        zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true}));
        zone.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true}));
    }""")
    for name in ("kayaks.txt", "bikes.txt"):
        page.wait_for_selector(f"#uploads li[data-name='{name}'][data-status='added']")
        page.wait_for_selector(f"#doc-list li[data-source='{name}']")
    sources = {d["source"] for d in http.get("/v1/documents").json()["documents"]}
    assert {"kayaks.txt", "bikes.txt"} <= sources
