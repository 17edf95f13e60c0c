"""The progress line (``citewise.cli.progress.Meter``): rate, ETA, the current file, and
what it does on a terminal that reports no size or too small a one."""

from __future__ import annotations

import io
import os

import pytest

from citewise.cli import progress
from citewise.cli.progress import Meter


def test_a_log_line_names_the_current_file() -> None:
    out = io.StringIO()
    meter = Meter("chunks embedded", stream=out, tty=False, every_s=0)
    meter.file("/docs/manual/vacuum.html")
    meter(10, 100)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("10/100 chunks embedded (10%)")
    assert line.endswith(" · /docs/manual/vacuum.html")


def test_a_narrow_terminal_keeps_the_end_of_the_path_and_the_counts() -> None:
    meter = Meter("chunks embedded", stream=io.StringIO(), tty=False)
    meter.file("/usr/share/doc/postgresql-doc-15/html/sql-createaggregate.html")
    meter.done, meter.total = 5, 50
    line = meter.line(79)
    assert len(line) <= 79 and line.startswith("5/50 chunks embedded (10%)")
    assert line.endswith("…" + line.rsplit("…", 1)[1]) and line.endswith("aggregate.html")
    assert "postgresql-doc-15" not in line  # cut from the left
    assert meter.line(30).startswith("5/50")  # no room: the path goes, the counts stay


def test_a_terminal_that_reports_no_size_is_taken_as_100_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under ``script`` (and some CI ptys) the size is 0 x 0: every redraw lost its end.
    monkeypatch.setattr(progress.os, "get_terminal_size",
                        lambda fd: os.terminal_size((0, 0)))
    assert progress._columns() == 100
    out = io.StringIO()
    meter = Meter("files", stream=out, tty=True)
    meter(3, 3)
    assert out.getvalue().rstrip("\n").endswith("elapsed 0s")
