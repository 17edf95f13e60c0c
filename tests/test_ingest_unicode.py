"""Ingest edge cases found in review: JSON Lines split at ``\\n`` only, lone surrogates (a
JSON escape of half an emoji, or a plugin loader's bad text) as per-file outcomes rather
than a crash of the whole batch, and HTML anchors at their element's first character."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.loaders import LoadedDocument, LoaderRegistry
from citewise.knowledge.loaders.html import extract_html
from citewise.knowledge.loaders.jsonl import JsonLoader
from citewise.knowledge.loaders.text import TextLoader

# -- JSON Lines: line separators inside strings ----------------------------------------------


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_jsonl_strings_may_hold_unicode_line_separators(
    tmp_path: Path, sep: str, newline: str
) -> None:
    # json.dumps(ensure_ascii=False) writes these raw, as JSON allows; only \n ends a line.
    records = [{"id": 1, "text": f"The warranty lasts 24 months.{sep}Batteries: 12 months."},
               {"id": 2, "text": "Returns are accepted within 30 days."}]
    path = tmp_path / "export.jsonl"
    path.write_bytes(newline.join(json.dumps(r, ensure_ascii=False) for r in records)
                     .encode() + newline.encode())
    doc = JsonLoader().load(path, path.read_bytes())
    assert doc.text == records[0]["text"] + "\n\n" + records[1]["text"]
    assert [r["record"] for r in doc.metadata["records"]] == [1, 2]
    assert [d.text for d in JsonLoader().split(path, path.read_bytes())] == [
        r["text"] for r in records
    ]


# -- lone surrogates -------------------------------------------------------------------------

SURROGATE_JSONL = (
    '{"id": 1, "title": "Cut \\ud83d", "tags": ["\\udc00"], '
    '"text": "Broken emoji \\ud83d here. The warranty lasts 24 months."}\n'
    '{"id": 2, "text": "A whole emoji \\ud83d\\ude00 stays one."}\n'
)


def test_jsonl_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(SURROGATE_JSONL)
    doc = JsonLoader().load(path, path.read_bytes())
    first = "Broken emoji \ufffd here. The warranty lasts 24 months."
    assert doc.text == first + "\n\nA whole emoji \U0001f600 stays one."
    assert doc.sections[0] == (0, len(first), "Cut \ufffd")
    assert doc.metadata["records"][0]["tags"] == ["\ufffd"]
    split = JsonLoader().split(path, path.read_bytes())
    assert split[0].title == "Cut \ufffd" and split[0].text == first
    whole = tmp_path / "b.json"  # the same in a .json array
    whole.write_text(json.dumps([{"text": "x \ud83d y"}]))
    assert JsonLoader().load(whole, whole.read_bytes()).text == "x \ufffd y"


def test_jsonl_with_a_lone_surrogate_does_not_stop_the_batch(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.jsonl").write_text(SURROGATE_JSONL)
    (src / "b.txt").write_text("Shipping is free above 75 EUR.")
    with KnowledgeBase.open(tmp_path / "data", dense=False) as kb:
        report = kb.ingest([src])
        assert not report.failed
        assert sorted(Path(p).name for p in report.added) == ["a.jsonl", "b.txt"]
        hits = kb.search("warranty months", k=3)
        assert hits and Path(hits[0].source).name == "a.jsonl"
        assert "\ufffd" in hits[0].text


class _Surrogates:
    """A plugin loader whose output holds a lone surrogate in one chosen place."""

    name = "surrogates"
    extensions: tuple[str, ...] = (".sur",)
    content_types: tuple[str, ...] = ("application/x-surrogates",)

    def load(self, path: Path, data: bytes) -> LoadedDocument:
        where = data.decode()
        bad = "bad \ud83d text"
        return LoadedDocument(
            text=bad if where == "text" else "Some perfectly fine text.",
            content_type="text/plain",
            title=bad if where == "title" else "ok",
            metadata={"note": bad} if where == "metadata" else {},
            sections=[(0, 4, bad)] if where == "section" else [],
        )


@pytest.mark.parametrize("where", ["text", "title", "metadata", "section"])
def test_a_loader_producing_lone_surrogates_fails_only_its_file(
    tmp_path: Path, where: str
) -> None:
    (tmp_path / "x.sur").write_text(where)
    (tmp_path / "ok.txt").write_text("This one is fine.")
    registry = LoaderRegistry([TextLoader(), _Surrogates()])
    with KnowledgeBase.open(tmp_path / "data", registry=registry, dense=False) as kb:
        report = kb.ingest([tmp_path / "x.sur", tmp_path / "ok.txt"])
        assert [(Path(f.path).name, f.code) for f in report.failed] == [("x.sur", "corrupt_file")]
        assert "U+D83D" in report.failed[0].message
        assert report.added == [str(tmp_path / "ok.txt")]
        # An upload takes the same path: a failure in the report, nothing written.
        upload = kb.ingest_bytes("up.sur", where.encode())
        assert [f.code for f in upload.failed] == ["corrupt_file"]
        assert kb.find_source("up.sur") is None
        assert [Path(d.source).name for d in kb.list_documents()] == ["ok.txt"]


# -- HTML anchors ----------------------------------------------------------------------------


def test_html_anchors_point_at_their_elements_first_character() -> None:
    html = (
        "<html><body><main><p>First paragraph.</p>"
        '<p>Price:<span id="price">42 EUR</span> per year.</p>'
        '<p>See <b>the</b><a id="link" href="#">install guide</a>.</p>'
        '<p>Gap <i id="spaced">   padded</i> word.</p>'
        '<pre id="install">pip install citewise</pre>'
        '<table><tr><td id="c1">Plan</td><td id="c2">Price</td></tr></table>'
        '<a id="empty"></a><h2 id="faq">FAQ</h2><div id="wrap"><pre>  indented</pre></div>'
        '<p id="last"></p></main></body></html>'
    )
    text, _, _, meta = extract_html(html)
    anchors = meta["anchors"]
    for ident, expect in (
        ("price", "42 EUR"), ("link", "install guide"), ("spaced", "padded"),
        ("install", "pip install"), ("c1", "Plan | Price"), ("c2", "Price"),
        ("empty", "FAQ"), ("faq", "FAQ"), ("wrap", "indented"),
    ):
        assert text[anchors[ident]:].startswith(expect), (ident, text[anchors[ident]:][:20])
    assert "last" not in anchors  # nothing follows it to point at
