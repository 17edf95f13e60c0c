"""``citewise ingest --watch`` as a real subprocess on a real folder: an edit, a new file and
a deletion are followed (seen through ``docs list`` and search), a watched folder that
vanishes (an unmounted drive) prunes nothing, and SIGINT ends it with status 0."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


class Watcher:
    """The command, with its output lines collected as they come."""

    def __init__(self, folder: Path, data: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "citewise", "ingest", "--watch", str(folder),
             "--data-dir", str(data), "--watch-interval", "0.2", "--debounce", "0.3"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "CITEWISE_DATA_DIR": str(data)})
        self.out: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.pumps = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.out.put),
                             daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self.err.append),
                             daemon=True),
        ]
        for t in self.pumps:
            t.start()

    @staticmethod
    def _pump(stream: object, put: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            put(line)  # type: ignore[operator]

    def next_sync(self, timeout: float = 60.0) -> str:
        """The next summary line the watcher prints (one per sync)."""
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"no sync within {timeout} s; stderr: {self.err}") from None

    def wait_watching(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(line.startswith("watching ") for line in self.err):
            assert self.proc.poll() is None, self.err
            assert time.monotonic() < deadline, self.err
            time.sleep(0.05)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=60)
        for t in self.pumps:  # every line read before the pipes close
            t.join(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code


def docs(data: Path) -> dict[str, str]:
    """``{file name: stored text}`` through ``citewise docs list/show``."""
    proc = subprocess.run([sys.executable, "-m", "citewise", "docs", "list", "--json",
                           "--data-dir", str(data)], capture_output=True, text=True,
                          timeout=120, check=True)
    out = {}
    for d in json.loads(proc.stdout)["documents"]:
        show = subprocess.run([sys.executable, "-m", "citewise", "docs", "show", d["id"],
                               "--text", "--json", "--data-dir", str(data)],
                              capture_output=True, text=True, timeout=120, check=True)
        out[Path(d["source"]).name] = json.loads(show.stdout)["text"]
    return out


def test_watch_follows_edits_additions_and_deletions(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "kayaks.txt").write_text("Kayaks need a spray deck.\n")
    (folder / "canoes.md").write_text("# Canoes\n\nCanoes carry three people.\n")
    (folder / "sub" / "tents.txt").write_text("Tents need pegs.\n")
    data = tmp_path / "kb"
    w = Watcher(folder, data)
    try:
        assert w.next_sync().split(" ", 1)[1].startswith("3 added")
        w.wait_watching()
        (folder / "kayaks.txt").write_text("Kayaks now need a paddle leash too.\n")
        (folder / "canoes.md").unlink()
        (folder / "sub" / "stoves.py").write_text("def light():\n    return 'flame'\n")
        line = w.next_sync()
        assert "1 added, 1 updated" in line and "1 removed" in line, line
        assert docs(data) == {"kayaks.txt": "Kayaks now need a paddle leash too.\n",
                              "tents.txt": "Tents need pegs.\n",
                              "stoves.py": "def light():\n    return 'flame'\n"}
        # The watched folder vanishing (an unmounted drive) prunes nothing …
        folder.rename(tmp_path / "away")
        time.sleep(2.0)  # ten polls
        (tmp_path / "away").rename(folder)
        # … and the watch goes on when it is back.
        (folder / "kayaks.txt").write_text("Kayaks, final: a paddle leash.\n")
        assert "1 updated, 2 unchanged" in w.next_sync()
        assert set(docs(data)) == {"kayaks.txt", "tents.txt", "stoves.py"}
    finally:
        code = w.stop()
    assert code == 0, w.err
    assert w.err[-1] == "stopped watching\n"
    assert not any(line.startswith(("error", "Traceback")) for line in w.err), w.err

    from citewise.knowledge.base import KnowledgeBase

    with KnowledgeBase.open(data, dense=False) as kb:
        assert kb.search("paddle leash")[0].source == str(folder / "kayaks.txt")
        assert kb.search("canoes carry people") == []


def test_a_watched_text_file_without_an_extension_is_read_once_per_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``watch`` follows what a folder ingest reads — notes with no extension too (nginx's
    "php", "upstream") — and a poll stays a ``stat`` per file: the first bytes are read
    again only when the file changes."""
    from citewise.cli import watch
    from citewise.knowledge.base import KnowledgeBase

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "upstream").write_text("Keep a client on one backend.\n")
    (folder / "program").write_bytes(b"\x7fELF\x00\x00")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        reads: list[str] = []
        sniff = kb.registry.for_file

        def counted(path: Path) -> object:
            reads.append(path.name)
            return sniff(path)

        monkeypatch.setattr(kb.registry, "for_file", counted)
        first = watch.snapshot([str(folder)], kb)
        assert [Path(p).name for p in first] == ["upstream"]
        assert sorted(reads) == ["program", "upstream"]
        watch.snapshot([str(folder)], kb)
        assert len(reads) == 2  # nothing changed: nothing read
        (folder / "upstream").write_text("Keep a returning client on one backend.\n")
        watch.snapshot([str(folder)], kb)
        assert reads[2:] == ["upstream"]


def test_a_watched_page_of_navigation_only_is_skipped_when_it_changes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Code review (2026-12-08): ``--watch`` passes the files that changed by name, and a
    site's search page (navigation and a script) failed every sync it was touched in,
    though a folder ingest skips it."""
    from argparse import Namespace

    from citewise.cli import watch
    from citewise.knowledge.base import KnowledgeBase

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body><p>Start with the tutorial.</p></body></html>")
    (site / "search.html").write_text("<html><body><nav><a href='index.html'>Home</a></nav>"
                                      "<script>search()</script></body></html>")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        now = watch.snapshot([str(site)], kb)
        watch._sync(kb, Namespace(collection="default"), [str(site)], {}, now)
        out, err = capsys.readouterr()
        assert "1 added" in out and "1 skipped" in out and "error" not in err, (out, err)
