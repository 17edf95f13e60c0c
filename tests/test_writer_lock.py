"""The writer lock: a process opening a knowledge base while another process writes it
searches what is indexed and leaves the writer's pending work alone (it used to embed the
other ingest's chunks itself, minutes of work, before answering); once no writer is
alive, pending work is a crash's and the next open repairs it."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.chunking import Chunker
from citewise.knowledge.ingest import ingest_paths
from citewise.knowledge.loaders import default_registry
from citewise.knowledge.writer_lock import LOCK_NAME, WriterLock
from citewise.store.sqlite import SQLiteStore
from test_knowledge import HashEmbedder

HOLDER = """
import sys
from citewise.knowledge.writer_lock import WriterLock
lock = WriterLock(sys.argv[1])
assert lock.try_acquire()
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


def test_one_holder_at_a_time_and_reentrant(tmp_path: Path) -> None:
    a, b = WriterLock(tmp_path / LOCK_NAME), WriterLock(tmp_path / LOCK_NAME)
    with a.held():
        with a.held():  # an ingest syncs under its own hold
            assert not b.try_acquire()
        assert not b.try_acquire()
        got: list[bool] = []
        t = threading.Thread(target=lambda: got.append(a.try_acquire()))
        t.start()
        t.join()
        assert got == [False]  # another thread of this process waits its turn too
    assert b.try_acquire()
    assert not a.try_acquire()
    b.release()
    assert a.try_acquire()
    a.release()


def _write_without_sync(data: Path, folder: Path) -> None:
    """What an ingest in progress leaves: documents and chunks committed, index work
    pending in the outbox."""
    with SQLiteStore(data / DB_NAME) as store:
        report = ingest_paths([folder], store=store, tenant="default", collection="default",
                              registry=default_registry(), chunker=Chunker())
        assert report.added and store.pending_index_ops()


def test_an_open_during_another_processs_write_leaves_its_work_alone(tmp_path: Path) -> None:
    data, first, second = tmp_path / "kb", tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "refunds.md").write_text("Refunds are paid within fourteen days.\n")
    (second / "parking.md").write_text("Visitors park in the north garage after noon.\n")
    with KnowledgeBase.open(data, embedder=HashEmbedder()) as kb:  # type: ignore[arg-type]
        kb.ingest([first])
    _write_without_sync(data, second)
    with subprocess.Popen([sys.executable, "-c", HOLDER, str(data / LOCK_NAME)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        try:
            assert holder.stdout.readline() == "held\n"
            reader = HashEmbedder()
            with KnowledgeBase.open(data, embedder=reader) as kb:  # type: ignore[arg-type]
                assert reader.embedded == []  # nothing of the writer's ingest embedded here
                assert kb.store.pending_index_ops()  # its work is still the writer's
                hits = kb.search("refunds fourteen days", k=1)
                assert hits and hits[0].source.endswith("refunds.md")
        finally:
            holder.stdin.close()
            holder.wait(30)
    # The writer is gone without finishing: its leftovers are a crash's, and repaired.
    repairer = HashEmbedder()
    with KnowledgeBase.open(data, embedder=repairer) as kb:  # type: ignore[arg-type]
        assert repairer.embedded and "north garage" in " ".join(repairer.embedded)
        assert kb.store.pending_index_ops() == []
        assert kb.check_consistency().ok
        assert kb.search("visitors garage", k=1)[0].source.endswith("parking.md")


def test_a_lost_index_is_rebuilt_after_the_writer_finishes(tmp_path: Path) -> None:
    import shutil

    data, docs = tmp_path / "kb", tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Coffee machines are descaled on Fridays.\n")
    with KnowledgeBase.open(data, dense=False) as kb:
        kb.ingest([docs])
    shutil.rmtree(data / "index" / "lexical")
    lock = WriterLock(data / LOCK_NAME)
    assert lock.try_acquire()
    opened: list[KnowledgeBase] = []
    t = threading.Thread(target=lambda: opened.append(KnowledgeBase.open(data, dense=False)),
                         daemon=True)
    t.start()
    t.join(0.5)
    assert t.is_alive() and not opened  # with no index at all, it waits for the writer
    lock.release()
    t.join(60)
    with opened[0] as kb:
        assert kb.search("descaled", k=1)[0].source.endswith("a.md")


@pytest.mark.parametrize("action", ["ingest", "delete"])
def test_writes_hold_the_lock(tmp_path: Path, action: str) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Coffee machines are descaled on Fridays.\n")
    seen: list[bool] = []
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        if action == "delete":
            kb.ingest([docs])
        probe = WriterLock(tmp_path / "kb" / LOCK_NAME)
        real = kb.store.delete_document if action == "delete" else kb.store.replace_documents

        def spy(*args: object) -> object:
            seen.append(probe.try_acquire())  # another holder's view, mid-write
            return real(*args)  # type: ignore[operator]

        name = "delete_document" if action == "delete" else "replace_documents"
        setattr(kb.store, name, spy)
        if action == "delete":
            assert kb.delete_document(kb.list_documents()[0].id)
        else:
            kb.ingest([docs])
    assert seen == [False]
