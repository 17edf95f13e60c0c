"""A file moved or renamed since it was ingested is that file, not a second document: its
document under the old path goes (``citewise.knowledge.ingest.moves``). Before, a folder
moved and ingested again was stored twice — every passage found twice — and ``--prune``
on the new folder could not see the old one."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.knowledge.base import KnowledgeBase
from test_ingest_paths import docs  # noqa: F401  (the folder: france.txt, sub/lemur.txt)
from test_knowledge import HashEmbedder


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    with KnowledgeBase.open(tmp_path / "kb", embedder=HashEmbedder()) as opened:
        yield opened


def _sources(kb: KnowledgeBase) -> list[str]:
    return sorted(d.source for d in kb.list_documents())


def test_a_moved_folder_is_stored_once_under_its_new_path(
        kb: KnowledgeBase, docs: Path, tmp_path: Path) -> None:  # noqa: F811
    assert len(kb.ingest([docs], wait=True).added) == 2
    manuals = tmp_path / "manuals"
    docs.rename(manuals)
    report = kb.ingest([manuals], wait=True)
    assert sorted(report.added) == [str(manuals / "france.txt"), str(manuals / "sub/lemur.txt")]
    assert sorted(report.moved) == [(str(docs / "france.txt"), str(manuals / "france.txt")),
                                    (str(docs / "sub/lemur.txt"),
                                     str(manuals / "sub/lemur.txt"))]
    assert "2 moved" in report.summary()
    assert report.to_dict()["moved"][0] == {"from": str(docs / "france.txt"),
                                            "to": str(manuals / "france.txt")}
    assert _sources(kb) == [str(manuals / "france.txt"), str(manuals / "sub/lemur.txt")]
    hits = [h.source for h in kb.search("capital of France", k=5)]
    assert hits[0] == str(manuals / "france.txt") and len(hits) == len(set(hits)) == 2
    assert kb.check_consistency().ok


def test_a_renamed_file_is_found_by_meaning_under_its_new_name_only(
        kb: KnowledgeBase, docs: Path) -> None:  # noqa: F811
    kb.ingest([docs], wait=True)
    (docs / "france.txt").rename(docs / "paris.txt")
    report = kb.ingest([docs], wait=True)
    assert report.moved == [(str(docs / "france.txt"), str(docs / "paris.txt"))]
    assert report.unchanged == [str(docs / "sub/lemur.txt")]
    hits = [h.source for h in kb.search("capital of France", mode="dense", k=5)]
    assert hits[0] == str(docs / "paris.txt") and str(docs / "france.txt") not in hits
    assert kb.check_consistency().ok


def test_a_copy_keeps_both_and_other_kinds_of_sameness_move_nothing(
        kb: KnowledgeBase, docs: Path, tmp_path: Path) -> None:  # noqa: F811
    kb.ingest([docs])
    copy = tmp_path / "copy"
    shutil.copytree(docs, copy)
    report = kb.ingest([copy])  # the originals are still there: a copy, not a move
    assert report.moved == [] and len(_sources(kb)) == 4
    shutil.rmtree(copy)
    # The same bytes in another collection, or uploaded under a name, are no move.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (docs / "france.txt").rename(elsewhere / "france.txt")
    assert kb.ingest([elsewhere], collection="geo").moved == []
    assert kb.ingest_bytes("france.txt", b"Paris is the capital of France.\n").moved == []
    assert str(docs / "france.txt") in _sources(kb)
    # A file renamed and edited at once is a new file; the old one waits for --prune.
    (docs / "sub" / "lemur.txt").rename(docs / "sub" / "lemurs.txt")
    (docs / "sub" / "lemurs.txt").write_text("Lemurs live on Madagascar and nearby islands.\n")
    assert kb.ingest([docs]).moved == []
    assert str(docs / "sub" / "lemur.txt") in _sources(kb)
    assert kb.ingest([docs], prune=True).removed == [str(docs / "france.txt"),
                                                     str(docs / "sub" / "lemur.txt")]


def test_cli_ingest_names_each_moved_file(tmp_path: Path, docs: Path,  # noqa: F811
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.cli.main import main

    data = tmp_path / "data"
    assert main(["ingest", str(docs), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    manuals = tmp_path / "manuals"
    docs.rename(manuals)
    assert main(["ingest", str(manuals), "--data-dir", str(data)]) == 0
    out, err = capsys.readouterr()
    assert "2 added" in out and "2 moved (the document under the old path removed)" in out
    assert f"moved: {docs / 'france.txt'} -> {manuals / 'france.txt'}" in err
    with KnowledgeBase.open(data, dense=False) as kb:
        assert _sources(kb) == [str(manuals / "france.txt"), str(manuals / "sub/lemur.txt")]


def test_an_ingest_stopped_halfway_finds_the_rest_of_the_move_when_run_again(
        kb: KnowledgeBase, docs: Path, tmp_path: Path) -> None:  # noqa: F811
    """Code review (2026-12-08): only the files an ingest *added* were looked at, so a
    move whose first ingest was stopped — or ``cp -r docs manuals``, ingest, ``rm -r docs``
    — kept the old documents for good; the files now seen unchanged count too."""
    kb.ingest([docs])
    manuals = tmp_path / "manuals"
    shutil.copytree(docs, manuals)
    assert kb.ingest([manuals]).moved == []  # a copy: the originals are still there
    shutil.rmtree(docs)
    again = kb.ingest([manuals])
    assert again.added == [] and len(again.unchanged) == 2
    assert sorted(old for old, _ in again.moved) == [str(docs / "france.txt"),
                                                     str(docs / "sub/lemur.txt")]
    assert _sources(kb) == [str(manuals / "france.txt"), str(manuals / "sub/lemur.txt")]


def test_two_files_with_the_same_bytes_are_paired_by_name(
        kb: KnowledgeBase, docs: Path, tmp_path: Path) -> None:  # noqa: F811
    (docs / "Readme.html").write_text("<html><body><p>Install it first.</p></body></html>")
    shutil.copy(docs / "Readme.html", docs / "index.html")
    kb.ingest([docs])
    manuals = tmp_path / "manuals"
    docs.rename(manuals)
    moved = dict(kb.ingest([manuals]).moved)
    assert moved[str(docs / "index.html")] == str(manuals / "index.html")
    assert moved[str(docs / "Readme.html")] == str(manuals / "Readme.html")


def test_a_file_missing_under_a_folder_that_is_gone_up_to_the_top_is_no_move(
        tmp_path: Path) -> None:
    """An unmounted drive (its files under ``/media/…``, the folders gone up to the top)
    and a copy of them ingested from elsewhere: the drive's documents stay."""
    from citewise.knowledge.ingest.moves import _within

    (tmp_path / "new").mkdir()
    assert _within(str(tmp_path / "gone" / "p.txt"), str(tmp_path / "new" / "p.txt"))
    assert not _within("/citewise-no-such-drive/docs/p.txt", str(tmp_path / "new" / "p.txt"))
    assert not _within(str(tmp_path / "gone" / "p.txt"), "/elsewhere/p.txt")
