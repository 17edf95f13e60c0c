"""A passage stored word for word in two documents is returned once, the better ranked:
Ghostscript's documentation ships index.html as a byte-for-byte copy of Readme.html, and
every Readme passage took two of an answer's twelve places (review, 2026-12-08); the
answer to a question about image formats ranked 14th and 15th, once per copy."""

from __future__ import annotations

from pathlib import Path

from citewise import KnowledgeBase


def test_a_passage_in_two_documents_is_one_hit(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    page = ("<html><head><title>Readme</title></head><body><h1>Formats</h1><p>GhostPDL reads "
            "JPEG, PNG and TIFF images directly.</p></body></html>")
    (docs / "Readme.html").write_text(page)
    (docs / "index.html").write_text(page)
    (docs / "other.html").write_text("<html><body><p>PNG output is written by the png16m "
                                     "device.</p></body></html>")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert len(kb.ingest([docs]).added) == 3
        hits = kb.search("PNG images", k=3)
    texts = [h.text for h in hits]
    assert len(texts) == len(set(texts)) == 2
    assert {h.source.rsplit("/", 1)[1] for h in hits} & {"Readme.html", "index.html"}
    assert any(h.source.endswith("other.html") for h in hits)
