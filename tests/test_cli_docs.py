"""``citewise docs list | show | rm | stats`` on a real knowledge base made by ``citewise
ingest``: tenant-scoped, the HTTP API's JSON shapes, and typed one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citewise.cli.main import main
from citewise.server.schemas import DocumentInfo, DocumentList


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def kb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A data dir with two documents of tenant ``default`` and one of ``acme``."""
    src = tmp_path / "src"
    (src / "team").mkdir(parents=True)
    (src / "tents.md").write_text("# Tents\n\nAir tents daily after rain.\n\n## Poles\n\n"
                                  "Carry two spare poles.\n")
    (src / "stoves.txt").write_text("Light stoves outdoors only.\n")
    (src / "team" / "acme.txt").write_text("Acme keeps its own notes on canoes.\n")
    data = tmp_path / "kb"
    for args in ([str(src / "tents.md"), str(src / "stoves.txt")],
                 [str(src / "team" / "acme.txt"), "--tenant", "acme"]):
        code, _, err = run(capsys, "ingest", *args, "--data-dir", str(data))
        assert code == 0, err
    return data, src


def test_list_is_tenant_scoped_in_the_http_shape(kb: tuple[Path, Path],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data, src = kb
    listed = DocumentList.model_validate(as_json(capsys, "docs", "list", "--data-dir", str(data)))
    assert sorted(d.source for d in listed.documents) == [str(src / "stoves.txt"),
                                                          str(src / "tents.md")]
    assert all(d.text is None for d in listed.documents)  # as GET /v1/documents
    tents = next(d for d in listed.documents if d.source.endswith("tents.md"))
    assert tents.title == "Tents" and tents.content_type == "text/markdown"
    assert tents.length == len((src / "tents.md").read_text())
    acme = as_json(capsys, "docs", "list", "--tenant", "acme", "--data-dir", str(data))
    assert [d["source"] for d in acme["documents"]] == [str(src / "team" / "acme.txt")]
    code, out, _ = run(capsys, "docs", "list", "--data-dir", str(data))
    assert code == 0
    head, *rows = [line.split("\t") for line in out.splitlines()]
    assert head == ["id", "collection", "type", "chars", "source", "title"]
    assert {r[0] for r in rows} == {d.id for d in listed.documents}
    assert {r[4] for r in rows} == {d.source for d in listed.documents}
    assert {(r[4], r[5]) for r in rows} == {(d.source, d.title) for d in listed.documents}
    page = as_json(capsys, "docs", "list", "--limit", "1", "--offset", "1",
                   "--data-dir", str(data))
    assert [d["id"] for d in page["documents"]] == [listed.documents[1].id]


def test_show_by_id_or_path(kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, src = kb
    by_path = DocumentInfo.model_validate(as_json(capsys, "docs", "show", str(src / "tents.md"),
                                                  "--text", "--data-dir", str(data)))
    assert by_path.text == (src / "tents.md").read_text()  # the text offsets index
    by_id = as_json(capsys, "docs", "show", by_path.id, "--data-dir", str(data))
    assert by_id["id"] == by_path.id and by_id["text"] is None
    code, out, _ = run(capsys, "docs", "show", by_path.id, "--data-dir", str(data))
    assert code == 0
    assert f"id:           {by_path.id}" in out
    assert "chunks:" in out and "  Tents > Poles\n" in out  # its sections
    # The text alone, to grep it or read it at a citation's offsets (review, session 16).
    code, out, _ = run(capsys, "docs", "show", by_path.id, "--text-only", "--data-dir",
                       str(data))
    assert code == 0 and out == (src / "tents.md").read_text()
    # Another tenant's document is unknown to this one.
    code, _, err = run(capsys, "docs", "show", by_path.id, "--tenant", "acme",
                       "--data-dir", str(data))
    assert code != 0
    assert err == f"error: unknown document {by_path.id!r} [unknown_document]\n"


def test_rm_checks_every_name_first(kb: tuple[Path, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.knowledge.base import KnowledgeBase

    data, src = kb
    docs = as_json(capsys, "docs", "list", "--data-dir", str(data))["documents"]
    ids = [d["id"] for d in docs]
    tents = next(d["id"] for d in docs if d["source"].endswith("tents.md"))
    code, _, err = run(capsys, "docs", "rm", tents, "no-such-doc", "--data-dir", str(data))
    assert code != 0
    assert err == "error: unknown document 'no-such-doc' [unknown_document]\n"
    assert len(as_json(capsys, "docs", "list", "--data-dir", str(data))["documents"]) == 2
    removed = as_json(capsys, "docs", "rm", tents, str(src / "stoves.txt"), tents,
                      "--data-dir", str(data))
    assert sorted(r["id"] for r in removed["removed"]) == sorted(ids)
    assert as_json(capsys, "docs", "list", "--data-dir", str(data))["documents"] == []
    with KnowledgeBase.open(data, dense=False) as kb_:
        assert kb_.search("spare poles") == []  # gone from the index as well
        assert kb_.for_tenant("acme").search("canoes")  # another tenant's is kept


def test_stats(kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    data, src = kb
    got = as_json(capsys, "docs", "stats", "--data-dir", str(data))
    chars = len((src / "tents.md").read_text()) + len((src / "stoves.txt").read_text())
    assert got["tenant"] == "default" and got["documents"] == 2
    assert got["characters"] == chars and got["chunks"] >= 2
    assert got["content_types"] == {"text/markdown": 1, "text/plain": 1}
    assert got["collections"] == {"default": 2}
    code, out, _ = run(capsys, "docs", "stats", "--tenant", "acme", "--data-dir", str(data))
    assert code == 0 and "documents:   1\n" in out
    # The options may come before the action too, as `ask` and `ingest` take them right
    # after the command (Click's review, 2026-12-05); the action's own still win.
    code, out, _ = run(capsys, "docs", "--data-dir", str(data), "--tenant", "acme", "stats")
    assert code == 0 and "documents:   1\n" in out
    code, out, _ = run(capsys, "docs", "--tenant", "acme", "stats", "--tenant", "default",
                       "--data-dir", str(data))
    assert code == 0 and "documents:   2\n" in out


def test_errors_are_one_line_and_create_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing-here"
    for args in (["list"], ["show", "abc"], ["stats"]):
        code, out, err = run(capsys, "docs", *args, "--data-dir", str(missing))
        assert code != 0 and out == ""
        assert err == (f"error: no knowledge base in {missing}; run `citewise ingest PATH` "
                       "first [no_knowledge_base]\n")
    # The real command, as a user runs it: the same one line, no traceback.
    proc = subprocess.run([sys.executable, "-m", "citewise", "docs", "rm", "abc"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CITEWISE_DATA_DIR": str(missing)})
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("error: ") and proc.stderr.endswith("[no_knowledge_base]\n")
    assert not missing.exists()


def test_an_html_pages_anchors_are_counted_unless_its_text_is_shown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "ferns.html"
    page.write_text("<html><body><h1 id='top'>Ferns</h1><p id='water'>Water weekly.</p>"
                    "</body></html>")
    data = tmp_path / "kb"
    code, _, err = run(capsys, "ingest", str(page), "--data-dir", str(data))
    assert code == 0, err
    code, out, _ = run(capsys, "docs", "show", str(page), "--data-dir", str(data))
    assert code == 0
    assert '  anchors: "2 element ids (shown with --text)"' in out
    assert "anchors" not in as_json(capsys, "docs", "show", str(page),
                                    "--data-dir", str(data))["metadata"]
    full = as_json(capsys, "docs", "show", str(page), "--text", "--data-dir", str(data))
    assert full["text"][full["metadata"]["anchors"]["water"]:].startswith("Water weekly.")


def test_show_takes_a_files_bare_name_when_one_document_has_it(
        kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``docs show gimp-tool-text.html`` from another folder than ingest's was an unknown
    document (GIMP's review, 2026-12-06): a bare name that one document's file has shows
    it, as does a relative path one document's ends with; a name several have, or a path
    none has, is unknown and names the documents of that name; ``rm`` never removes by a
    bare name or a partial path."""
    data, src = kb
    monkeypatch.chdir(tmp_path)  # not the folder the files were ingested from
    shown = as_json(capsys, "docs", "show", "tents.md", "--data-dir", str(data))
    assert shown["source"] == str(src / "tents.md")
    other = tmp_path / "other"
    other.mkdir()
    (other / "tents.md").write_text("# Other tents\n\nPitch them on grass.\n")
    code, _, err = run(capsys, "ingest", str(other / "tents.md"), "--data-dir", str(data))
    assert code == 0, err
    for args in (("show", "tents.md"), ("rm", "tents.md"), ("show", "docs/tents.md")):
        code, _, err = run(capsys, "docs", *args, "--data-dir", str(data))
        assert code != 0 and "[unknown_document]" in err, (args, err)
        assert str(src / "tents.md") in err and str(other / "tents.md") in err, (args, err)
    # A relative path that one document's ends with names it (as eval's questions do:
    # "docs show scalc/guide/wildcards.html", LibreOffice's review, 2026-12-06).
    monkeypatch.chdir(src / "team")  # where "other/tents.md" is no file
    shown = as_json(capsys, "docs", "show", "other/tents.md", "--data-dir", str(data))
    assert shown["source"] == str(other / "tents.md")
    code, _, err = run(capsys, "docs", "rm", "other/tents.md", "--data-dir", str(data))
    assert code != 0 and "[unknown_document]" in err  # never removed by a partial path
    code, _, err = run(capsys, "docs", "rm", "stoves.txt", "--data-dir", str(data))
    assert code != 0 and f"documents of that name: {src / 'stoves.txt'}" in err
    assert len(as_json(capsys, "docs", "list", "--data-dir", str(data))["documents"]) == 3


def test_an_unknown_name_many_documents_share_says_how_many(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Twenty READMEs: ``docs show README.md`` listed three of them and no word of the
    other seventeen (a new user's review, 2026-12-07)."""
    for name in ("fetch", "glob", "semver", "tar", "debug"):
        (tmp_path / "docs" / name).mkdir(parents=True)
        (tmp_path / "docs" / name / "README.md").write_text(f"# {name}\n\nA library.\n")
    data = tmp_path / "data"
    code, _, err = run(capsys, "ingest", str(tmp_path / "docs"), "--data-dir", str(data))
    assert code == 0, err
    code, _, err = run(capsys, "docs", "show", "README.md", "--data-dir", str(data))
    assert code != 0 and "[unknown_document]" in err, err
    assert err.count("README.md, ") + err.count("README.md,") >= 2 and ", and 2 more)" in err, err
