"""The page's HTTP side, without a browser, on a real server on loopback: the page and its
assets with their security headers (as HTTP headers), nothing loaded from another origin,
the size budget, ``/docs`` and ``/redoc`` served locally, the API additions the page uses
(thread rename, library status with PDF page spans), and the assets as package data."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import httpx
import pytest

from _web import ROOT, make_app
from citewise.server.routes.web import ASSETS
from citewise.server.testing import serve

WEB = resources.files("citewise.server") / "web"


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    with (serve(make_app(tmp_path_factory.mktemp("web-routes"))) as url,
          httpx.Client(base_url=url, timeout=60) as client):
        yield client


def test_page_and_assets_carry_the_security_headers(http: httpx.Client) -> None:
    for path in ["/", "/docs", "/redoc", *(f"/web/{name}" for name in ASSETS)]:
        r = http.get(path)
        assert r.status_code == 200, path
        csp = r.headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
        assert directives["script-src"] == "'self'"  # no unsafe-inline, no unsafe-eval
        assert directives["frame-ancestors"] == "'none'"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["content-type"].startswith(ASSETS.get(path.rsplit("/", 1)[-1], "text/html"))
    page = http.get("/").text
    assert '<meta name="viewport" content="width=device-width' in page
    assert "http-equiv" not in page  # headers are headers, not meta tags
    again = http.get("/web/app.js", headers={"If-None-Match": http.get("/web/app.js").headers["etag"]})
    assert again.status_code == 304


def test_unknown_assets_are_404_in_the_api_error_shape(http: httpx.Client) -> None:
    for path in ["/web/../app.py", "/web/nothing.js", "/web/index.html"]:
        r = http.get(path)
        assert r.status_code == 404
        assert r.json()["error"]["code"] == "not_found"


def test_every_asset_is_served_and_nothing_comes_from_another_origin() -> None:
    names = {p.name for p in WEB.iterdir() if p.is_file()}
    assert names == set(ASSETS) | {"index.html", "apiref.html"}
    for name in names:
        text = (WEB / name).read_text(encoding="utf-8")
        assert not re.search(r"(?:src|href)=\"(?:https?:)?//", text), name
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text, name
        assert "eval(" not in text and "new Function" not in text, name
    html = (WEB / "index.html").read_text(encoding="utf-8")
    assert "<script>" not in html and " style=" not in html
    assert re.search(r"\son[a-z]+=", html) is None  # no inline event handlers
    # Everything the page loads is a served asset.
    for ref in re.findall(r"(?:src|href)=\"/web/([^\"]+)\"", html):
        assert ref in ASSETS
    imports = {m for name in names if name.endswith(".js")
               for m in re.findall(r"from \"\./([^\"]+)\"", (WEB / name).read_text(encoding="utf-8"))}
    assert imports <= set(ASSETS)


def test_page_js_and_css_stay_under_150_kb() -> None:
    size = sum(len((WEB / n).read_bytes()) for n in ASSETS if n.endswith((".js", ".css")))
    assert size < 150 * 1024, size


def test_the_assets_are_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["citewise"]
    assert "server/web/*" in patterns


def test_config_tells_the_page_whether_a_key_is_needed(http: httpx.Client) -> None:
    r = http.get("/web/config.json")
    assert r.json()["auth_required"] is False and r.headers["cache-control"] == "no-store"


def test_rename_a_thread(http: httpx.Client) -> None:
    run = http.post("/v1/runs", json={"question": "anything at all?", "stream": False}).json()
    thread = run["thread_id"]
    before = http.get(f"/v1/threads/{thread}").json()
    r = http.patch(f"/v1/threads/{thread}", json={"title": "  Renamed \n thread "})
    assert r.status_code == 200 and r.json()["title"] == "Renamed thread"
    after = http.get(f"/v1/threads/{thread}").json()
    assert after["title"] == "Renamed thread" and after["updated_at"] == before["updated_at"]
    assert http.patch(f"/v1/threads/{thread}", json={"title": " "}).status_code in (400, 422)
    assert http.patch(f"/v1/threads/{thread}", json={"title": "x", "y": 1}).status_code == 422
    missing = http.patch("/v1/threads/thread_nope", json={"title": "x"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_thread"


def test_library_status_and_pdf_page_spans(http: httpx.Client, tmp_path: Path) -> None:
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    pdf = tmp_path / "manual.pdf"
    c = canvas.Canvas(str(pdf))
    for text in ["Page one is about lanterns.", "Page two is about compasses."]:
        c.drawString(72, 720, text)
        c.showPage()
    c.save()
    up = http.post("/v1/documents", files={"file": ("manual.pdf", pdf.read_bytes())})
    assert up.status_code == 201, up.text
    doc = up.json()["document"]
    lib = http.get("/v1/library").json()
    item = next(i for i in lib["items"] if i["id"] == doc["id"])
    assert item["searchable"] is True and item["chunks"] >= 1  # searchable when it returns
    # …and embedded a little later: the server embeds uploads in the background.
    deadline = time.monotonic() + 30
    while not item["embedded"] and time.monotonic() < deadline:
        time.sleep(0.1)
        lib = http.get("/v1/library").json()
        item = next(i for i in lib["items"] if i["id"] == doc["id"])
    assert item["embedded"] is True
    assert lib["documents"] == len(http.get("/v1/documents").json()["documents"])
    assert lib["chunks"] >= item["chunks"] and lib["dense"] is True
    status = http.get(f"/v1/library/{doc['id']}").json()
    text = http.get(f"/v1/documents/{doc['id']}", params={"text": "true"}).json()["text"]
    pages = {p["page"]: text[p["start_char"]:p["end_char"]] for p in status["pages"]}
    assert set(pages) == {1, 2}
    assert "lanterns" in pages[1] and "compasses" not in pages[1] and "compasses" in pages[2]
    missing = http.get("/v1/library/doc_nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_document"


@pytest.mark.slow
def test_citewise_serve_says_where_the_page_is_and_serves_it(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "citewise.cli.main", "serve", "--port", "0", "--data-dir",
         str(tmp_path), "--log-level", "warning"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        proc.stderr.readline()  # "citewise: serving … on http://127.0.0.1:PORT (…)"
        line = proc.stderr.readline()
        found = re.search(r"the web page is at (http://127\.0\.0\.1:\d+/)", line)
        assert found, line
        for _ in range(600):
            try:
                r = httpx.get(found.group(1), timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None
                subprocess.run(["sleep", "0.05"], check=True)
        assert r.status_code == 200 and '<textarea id="question"' in r.text
        assert "script-src 'self'" in r.headers["content-security-policy"]
    finally:
        proc.terminate()
        proc.wait(30)
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.mark.slow
def test_quickstart_says_how_to_open_the_page(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.cli.main import main

    assert main(["quickstart", "--data-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"citewise serve --data-dir {tmp_path / 'quickstart'}" in err
    assert "the web page: http://127.0.0.1:8080/" in err
