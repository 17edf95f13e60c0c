"""``--embedder NAME``: the knowledge base remembers the model it was opened with, so a
later command (or the server) embeds and searches with the same vectors without being told;
an unknown name is refused before anything changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.cli.main import main
from citewise.errors import ConfigError
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.index.embedders.registry import EMBEDDER_SETTING


def test_the_chosen_embedder_is_remembered(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "stoves.md").write_text("# Stoves\n\nThe Flint stove burns butane.\n")
    with KnowledgeBase.open(tmp_path / "kb", embedder_name="minilm-128") as kb:
        kb.ingest([tmp_path / "docs"])
        chosen = kb.dense.embedder.name  # type: ignore[union-attr]
        assert chosen.endswith("-128t")
        assert kb.store.get_setting(EMBEDDER_SETTING) == "minilm-128"
    with KnowledgeBase.open(tmp_path / "kb") as kb:  # not told again
        assert kb.dense.embedder.name == chosen  # type: ignore[union-attr]
        assert kb.search("which fuel does the Flint stove use", k=1, mode="dense")


def test_an_unknown_embedder_changes_nothing(tmp_path: Path) -> None:
    KnowledgeBase.open(tmp_path / "kb", embedder_name="minilm").close()
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open(tmp_path / "kb", embedder_name="word2vec")
    assert err.value.code == "unknown_embedder"
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        assert kb.store.get_setting(EMBEDDER_SETTING) == "minilm"


def test_the_cli_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# A\n\nSome text.\n")
    code = main(["ingest", str(tmp_path / "a.md"), "--data-dir", str(tmp_path / "kb"),
                 "--embedder", "word2vec"])
    err = capsys.readouterr().err
    assert code != 0
    assert err.strip().splitlines()[-1].endswith("[unknown_embedder]")
    assert "Traceback" not in err
