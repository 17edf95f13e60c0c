"""``citewise search``: the passages a query finds, on a knowledge base made by ``citewise
ingest`` — the HTTP API's JSON shape, tenant and source filters, exact offsets, and typed
one-line errors (new-user reviews, 2026-12-05, reached for it and found no such command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewise.cli.main import main
from citewise.server.schemas import SearchResponse


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "tents.md").write_text("# Tents\n\nAir tents daily after rain.\n\n## Poles\n\n"
                                  "Carry two spare poles on every trip.\n")
    (src / "stoves.txt").write_text("Light stoves outdoors only. Spare poles do not burn.\n")
    (src / "acme.txt").write_text("Acme carries spare poles in its canoes.\n")
    kb = tmp_path / "kb"
    for args in ([str(src / "tents.md"), str(src / "stoves.txt")],
                 [str(src / "acme.txt"), "--tenant", "acme"]):
        code, _, err = run(capsys, "ingest", *args, "--data-dir", str(kb))
        assert code == 0, err
    return kb


def test_search_prints_passages_best_first_with_their_place(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "spare poles", "--data-dir", str(data))
    assert code == 0, err
    blocks = out.split("\n[")
    assert out.startswith("[1] ") and blocks[1].startswith("2] ")
    assert "tents.md — Tents > Poles — line 5  (score " in blocks[0]
    assert "Carry two spare poles on every trip." in out and "Acme" not in out


def test_search_json_is_the_http_shape_with_exact_offsets(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "spare poles", "-k", "1", "--json",
                         "--source", "*.txt", "--data-dir", str(data))
    assert code == 0, err
    hits = SearchResponse.model_validate(json.loads(out)).hits
    assert len(hits) == 1 and hits[0].source.endswith("stoves.txt")
    text = Path(hits[0].source).read_text()
    assert text[hits[0].start_char:hits[0].end_char] == hits[0].text
    code, out, err = run(capsys, "search", "canoes", "--tenant", "acme", "--json",
                         "--data-dir", str(data))
    assert [h["source"].rsplit("/", 1)[-1] for h in json.loads(out)["hits"]] == ["acme.txt"]


def test_search_errors_are_one_line_with_a_code(tmp_path: Path, data: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "poles", "--data-dir", str(tmp_path / "none"))
    assert code == 2 and err.strip().endswith("[no_knowledge_base]") and not out
    code, _, err = run(capsys, "search", "poles", "-k", "0", "--data-dir", str(data))
    assert code == 2 and err.strip().endswith("[invalid_k]")
    code, _, err = run(capsys, "search", "   ", "--data-dir", str(data))
    assert code == 2 and err.strip().endswith("[empty_query]")
    # A word no passage has finds nothing by words (by meaning, the nearest passages).
    code, out, _ = run(capsys, "search", "zeppelin", "--mode", "lexical", "--data-dir", str(data))
    assert code == 0 and out == "no passage found\n"


def test_a_source_that_names_no_document_is_said_with_the_ones_named_alike(
        data: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Sphinx's review (2026-12-06): ``--source quickstart.html`` from another folder than
    the one ingested from printed "no passage found" and nothing else; the relative path
    was read from the current folder, as ingest reads it."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "search", "poles", "--source", "tents.md",
                         "--data-dir", str(data))
    assert code == 0 and out == "no passage found\n"
    assert f"no document's source is {tmp_path / 'tents.md'}" in err
    assert f"documents named tents.md: {tmp_path / 'src' / 'tents.md'}" in err
    code, out, err = run(capsys, "search", "poles", "--source", "src/tents.md",
                         "--data-dir", str(data))
    assert code == 0 and "Carry two spare poles" in out and not err
    # A document that is there but holds no match: nothing to say about its name.
    code, out, err = run(capsys, "search", "zeppelin", "--mode", "lexical", "--source",
                         "src/tents.md", "--data-dir", str(data))
    assert out == "no passage found\n" and not err


def test_search_does_not_wrap_inside_a_hyphenated_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """diffutils' review (2026-12-05) copied "--ignore-space-\\nchange" out of the output."""
    src = tmp_path / "diff.txt"
    options = [f"--ignore-{'space-' * (i % 4)}change-{i}" for i in range(40)]
    src.write_text("To ignore white space use " + ", ".join(options) + ".\n")
    code, _, err = run(capsys, "ingest", str(src), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "white space", "--full", "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    shown = {w.strip(",.") for w in out.split()}
    assert all(option in shown for option in options[:12]), out  # the passage's first lines


def test_an_html_pages_passage_says_its_element_not_a_line_of_extracted_text(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"line 89" of an HTML page's stored text was line 442 of the page (GIMP's review,
    2026-12-06): a page's passage says the element it is at, as a citation does."""
    page = tmp_path / "poles.html"
    page.write_text("<html><head><title>Poles</title></head><body>\n\n\n\n<h1>Poles</h1>"
                    "<p>Intro.</p>\n\n\n<h2 id='spares'>Spares</h2>\n\n<p>Carry two spare "
                    "poles on every trip.</p></body></html>")
    code, _, err = run(capsys, "ingest", str(page), "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    code, out, err = run(capsys, "search", "spare poles", "--data-dir", str(tmp_path / "kb"))
    assert code == 0, err
    first = out.splitlines()[0]
    assert "poles.html — Poles > Spares — #spares  (score " in first, first
    assert "line " not in out
