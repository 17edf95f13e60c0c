"""A file written whole or not at all (``citewise.atomic``): the vector index's files and
``citewise eval --save``'s report are written through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.atomic import write_atomic


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("old")

    def half(tmp: Path) -> None:
        tmp.write_text("half of the new")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_atomic(path, half)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    write_atomic(path, lambda tmp: tmp.write_text("new"))
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_each_writer_has_a_temporary_of_its_own(tmp_path: Path) -> None:
    seen: list[str] = []
    for _ in range(2):
        write_atomic(tmp_path / "a.npy", lambda tmp: (seen.append(tmp.name), tmp.write_bytes(b"x")))
    assert len(set(seen)) == 2 and all(n.startswith("a.npy.") and n.endswith(".tmp") for n in seen)
