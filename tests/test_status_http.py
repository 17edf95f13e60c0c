"""Uploads on a real server (issue 23): a relative path as ``source`` keeps two README.md
of two folders apart, and ``GET /v1/status`` shows the embedding catching up."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from citewise.server.testing import serve
from test_server import make_app


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(make_app(tmp_path_factory.mktemp("status"))) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def test_two_readmes_uploaded_with_their_paths_stay_two_documents(http: httpx.Client) -> None:
    made = []
    for folder in ("app", "lib"):
        body = f"# {folder}\n\nThe {folder} folder holds the {folder} code.\n".encode()
        r = http.post("/v1/documents", files={"file": ("README.md", body)},
                      data={"source": f"{folder}/README.md"})
        assert r.status_code == 201, r.text
        made.append(r.json()["document"])
    assert [d["source"] for d in made] == ["app/README.md", "lib/README.md"]
    assert made[0]["id"] != made[1]["id"]
    again = http.post("/v1/documents", files={"file": ("README.md", b"# app\n\nThe app folder "
                                                      b"holds the app code.\n")},
                      data={"source": "app/README.md"})
    assert again.status_code == 200 and again.json()["status"] == "unchanged"
    for bad in ("/etc/README.md", "a/../README.md", "a//README.md"):
        r = http.post("/v1/documents", files={"file": ("README.md", b"x y z\n")},
                      data={"source": bad})
        assert r.status_code == 422 and "invalid_source" in r.text, (bad, r.text)
    sources = [d["source"] for d in http.get("/v1/documents").json()["documents"]]
    assert sorted(s for s in sources if s.endswith("README.md")) == [
        "app/README.md", "lib/README.md"]


def test_status_shows_the_tenants_chunks_and_the_embedding_catching_up(
        http: httpx.Client) -> None:
    r = http.post("/v1/documents", files={"file": ("kites.md", b"# Kites\n\nRed kites fly "
                                                   b"over the northern hills in spring.\n")})
    assert r.status_code == 201, r.text
    # Searchable by keyword as soon as the upload returned.
    hits = http.post("/v1/search", json={"query": "northern hills kites"})
    assert hits.status_code == 200 and "kites.md" in hits.text
    deadline = time.monotonic() + 60
    while True:
        status = http.get("/v1/status").json()
        assert status["tenant"] == "default" and status["documents"] >= 1
        assert status["chunks"] >= 1 and status["dense"] is True and status["failed_jobs"] == 0
        assert status["embedded"] + status["not_embedded"] == status["chunks"]
        if status["not_embedded"] == 0 and status["pending_jobs"] == 0:
            break  # the server's workers embedded it
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
