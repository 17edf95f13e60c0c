"""``POST /v1/documents`` edge cases on a real server: a long file name keeps the extension
its loader is chosen by, a second ``file`` part is refused (nothing stored) rather than
silently dropped, and a JSON Lines upload holding a lone surrogate is stored, not a 500."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from citewise.server.routes.documents import safe_name
from citewise.server.testing import serve
from test_server import make_app

MAX_NAME = 200  # the longest stored upload name


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(make_app(tmp_path_factory.mktemp("docs"))) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client


def _sources(http: httpx.Client) -> list[str]:
    docs = http.get("/v1/documents", params={"limit": 1000}).json()["documents"]
    return [d["source"] for d in docs]


def test_safe_name_shortens_the_stem_and_keeps_the_extension() -> None:
    assert safe_name("../x/notes.md") == "notes.md"
    assert safe_name("short.md") == "short.md"
    long_a, long_b = "n" * 247 + "a.md", "n" * 247 + "b.md"
    a, b = safe_name(long_a), safe_name(long_b)
    assert len(a) == MAX_NAME and a.endswith(".md")
    assert a != b  # names that differ only past the cut stay two documents
    assert safe_name(long_a) == a  # the same name maps to the same document
    assert safe_name("d" * 300 + ".tar.gz").endswith(".tar.gz")
    assert len(safe_name("x" * 300)) == MAX_NAME


def test_upload_with_a_long_name_keeps_its_extension(http: httpx.Client) -> None:
    name = "n" * 247 + ".md"
    r = http.post("/v1/documents", files={"file": (name, b"# Long\n\nlongname text\n")})
    assert r.status_code == 201, r.text
    source = r.json()["document"]["source"]
    assert source.endswith(".md") and len(source) <= MAX_NAME
    assert r.json()["document"]["metadata"]["loader"] == "markdown"
    again = http.post("/v1/documents", files={"file": (name, b"# Long\n\nlongname text\n")})
    assert again.json()["status"] == "unchanged"


def test_upload_with_two_file_parts_is_refused_and_stores_nothing(http: httpx.Client) -> None:
    before = _sources(http)
    r = http.post("/v1/documents", files=[("file", ("one.md", b"# One\n\nfirst part\n")),
                                          ("file", ("two.md", b"# Two\n\nsecond part\n"))])
    assert r.status_code == 422, r.text
    assert r.json()["error"] == {
        "code": "validation_error",
        "message": "form field(s) given more than once: file",
        "details": {"fields": ["file"]},
    }
    twice = http.post("/v1/documents", files={"file": ("three.md", b"# Three\n\nthird\n")},
                      data={"collection": ["a", "b"]})
    assert twice.status_code == 422 and twice.json()["error"]["details"] == {
        "fields": ["collection"]}
    assert _sources(http) == before


def test_upload_of_jsonl_with_a_lone_surrogate(http: httpx.Client) -> None:
    data = (b'{"id": 1, "text": "Broken emoji \\ud83d here. Warranty lasts 24 months."}\n'
            b'{"id": 2, "text": "Returns are accepted within 30 days."}\n')
    r = http.post("/v1/documents", files={"file": ("export.jsonl", data)})
    assert r.status_code == 201, r.text
    doc = http.get(f"/v1/documents/{r.json()['document']['id']}", params={"text": "true"})
    assert doc.json()["text"].startswith("Broken emoji \ufffd here.")


def test_an_html_pages_anchors_come_with_its_text_not_in_listings(http: httpx.Client) -> None:
    page = (b"<html><head><title>Ferns</title></head><body><h1 id='top'>Ferns</h1>"
            b"<p id='water'>Water ferns weekly.</p></body></html>")
    up = http.post("/v1/documents", files={"file": ("ferns.html", page)})
    assert up.status_code in (200, 201), up.text
    doc_id = up.json()["document"]["id"]
    assert "anchors" not in up.json()["document"]["metadata"]
    listed = [d for d in http.get("/v1/documents").json()["documents"] if d["id"] == doc_id]
    assert listed and "anchors" not in listed[0]["metadata"]
    assert "anchors" not in http.get(f"/v1/documents/{doc_id}").json()["metadata"]
    full = http.get(f"/v1/documents/{doc_id}", params={"text": "true"}).json()
    anchors = full["metadata"]["anchors"]
    assert full["text"][anchors["water"]:].startswith("Water ferns weekly.")
