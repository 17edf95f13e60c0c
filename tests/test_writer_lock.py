"""The writer lock: writers share it; an open repairs (replays pending index work, embeds
missing vectors, rebuilds a lost or outdated index) only when it gets it exclusively — no
writer alive — and otherwise searches what is indexed at once. A process opening the
knowledge base while another ingests used to embed that ingest's chunks itself (minutes);
a write waits for a repairing open at most ``WAIT_S`` (then ``knowledge_base_busy``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from citewise.errors import Unavailable
from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.ingest import writer_lock
from citewise.knowledge.ingest.chunking import Chunker
from citewise.knowledge.ingest.pipeline import ingest_paths
from citewise.knowledge.ingest.writer_lock import LOCK_NAME, WriterLock
from citewise.knowledge.loaders import default_registry
from citewise.server.testing import serve
from citewise.store.sqlite import SQLiteStore
from test_knowledge import HashEmbedder
from test_server import make_app

WRITER = """
import sys
from citewise.knowledge.ingest.writer_lock import WriterLock
with WriterLock(sys.argv[1]).held():
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


@contextmanager
def writer_in_another_process(path: Path) -> Iterator[None]:
    with subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None and proc.stdin is not None
        try:
            assert proc.stdout.readline() == "held\n"
            yield
        finally:
            proc.stdin.close()
            proc.wait(30)


def test_writers_share_it_and_a_repairer_needs_it_alone(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = (WriterLock(tmp_path / LOCK_NAME) for _ in range(3))
    with a.held(), b.held():  # writers never wait for each other
        with a.held():  # nested: an ingest syncs its index under its own hold
            assert not c.try_acquire()
        entered, leave = threading.Event(), threading.Event()

        def other_thread() -> None:
            with a.held():  # shares this process's hold: does not wait
                entered.set()
                leave.wait(10)

        t = threading.Thread(target=other_thread)
        t.start()
        assert entered.wait(10)
    assert not c.try_acquire()  # the other thread still writes
    leave.set()
    t.join(10)
    assert c.try_acquire()  # no writer left: a repairer gets it alone
    monkeypatch.setattr(writer_lock, "WAIT_S", 0.2)
    with pytest.raises(Unavailable) as busy, WriterLock(tmp_path / LOCK_NAME).held():
        pass
    assert busy.value.code == "knowledge_base_busy"
    c.release()
    with a.held():
        pass


def _write_without_sync(data: Path, folder: Path) -> None:
    """What an ingest in progress leaves: documents and chunks committed, index work
    pending in the outbox."""
    with SQLiteStore(data / DB_NAME) as store:
        report = ingest_paths([folder], store=store, tenant="default", collection="default",
                              registry=default_registry(), chunker=Chunker())
        assert report.added and store.pending_index_ops()


def _two_folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A data dir, a folder ingested first and one another writer ingests."""
    data, first, second = tmp_path / "kb", tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "refunds.md").write_text("Refunds are paid within fourteen days.\n")
    (second / "parking.md").write_text("Visitors park in the north garage after noon.\n")
    return data, first, second


def test_an_open_during_another_processs_write_leaves_its_work_alone(tmp_path: Path) -> None:
    data, first, second = _two_folders(tmp_path)
    with KnowledgeBase.open(data, embedder=HashEmbedder()) as kb:  # type: ignore[arg-type]
        kb.ingest([first])
    _write_without_sync(data, second)
    with writer_in_another_process(data / LOCK_NAME):
        reader = HashEmbedder()
        with KnowledgeBase.open(data, embedder=reader) as kb:  # type: ignore[arg-type]
            assert reader.embedded == []  # nothing of the writer's ingest embedded here
            assert kb.store.pending_index_ops()  # its work is still the writer's
            hits = kb.search("refunds fourteen days", k=1)
            assert hits and hits[0].source.endswith("refunds.md")
            # A write of its own syncs its own document only (it embedded the other
            # writer's whole ingest in progress before answering).
            kb.ingest_bytes("pets.md", b"Cats sleep on the sofa all afternoon.\n")
            assert reader.embedded and all("garage" not in t for t in reader.embedded)
            assert {op.document_id for op in kb.store.pending_index_ops()} == {
                kb.find_document(second / "parking.md").id}  # type: ignore[union-attr]
    # The writer is gone without finishing: its leftovers are a crash's, and repaired.
    repairer = HashEmbedder()
    with KnowledgeBase.open(data, embedder=repairer) as kb:  # type: ignore[arg-type]
        assert repairer.embedded == []  # the open queued the embedding: workers do it
        kb.embed_pending()
        assert repairer.embedded and "north garage" in " ".join(repairer.embedded)
        assert kb.store.pending_index_ops() == []
        assert kb.check_consistency().ok
        assert kb.search("visitors garage", k=1)[0].source.endswith("parking.md")


def _one_document(tmp_path: Path) -> Path:
    """A knowledge base (lexical only) holding one document; its data dir."""
    data, docs = tmp_path / "kb", tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Coffee machines are descaled on Fridays.\n")
    with KnowledgeBase.open(data, dense=False) as kb:
        kb.ingest([docs])
    return data


def test_a_lost_index_is_rebuilt_by_the_first_open_without_a_writer(tmp_path: Path) -> None:
    data = _one_document(tmp_path)
    shutil.rmtree(data / "index" / "lexical")
    with writer_in_another_process(data / LOCK_NAME), \
            KnowledgeBase.open(data, dense=False) as kb:  # does not wait for the writer
        assert kb.search("descaled", k=1, mode="lexical") == []
    with KnowledgeBase.open(data, dense=False) as kb:
        assert kb.search("descaled", k=1)[0].source.endswith("a.md")


def test_a_rebuild_another_process_did_is_not_done_again(tmp_path: Path) -> None:
    data = _one_document(tmp_path)
    marker = data / "index" / "lexical" / "ANALYSIS"
    marker.unlink()  # an index of an older analysis
    stale = LexicalIndex(data / "index" / "lexical")  # opened before the other rebuilt it
    try:
        assert stale.outdated
        with KnowledgeBase.open(data, dense=False):  # another open rebuilds and marks it
            pass
        stale.refresh_state()  # what an open re-reads once it holds the lock
        assert not stale.outdated and not stale.created
    finally:
        stale.close()


def test_writes_hold_the_lock(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Coffee machines are descaled on Fridays.\n")
    seen: list[bool] = []
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        probe = WriterLock(tmp_path / "kb" / LOCK_NAME)
        for name in ("replace_documents", "delete_document"):
            real = getattr(kb.store, name)

            def spy(*args: object, _real: object = real) -> object:
                seen.append(probe.try_acquire())  # a repairer's view, mid-write
                return _real(*args)  # type: ignore[operator]

            setattr(kb.store, name, spy)
        kb.ingest([docs])
        assert kb.delete_document(kb.list_documents()[0].id)
    assert seen == [False, False]


def test_an_upload_during_a_repair_is_busy_and_the_server_keeps_serving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer_lock, "WAIT_S", 0.3)
    with serve(make_app(tmp_path)) as url, httpx.Client(base_url=url, timeout=30) as http:
        repairer = WriterLock(tmp_path / LOCK_NAME)
        assert repairer.try_acquire()
        try:
            r = http.post("/v1/documents", files={"file": ("a.md", b"# A\n\nSome text.\n")})
            assert r.status_code == 503 and r.json()["error"]["code"] == "knowledge_base_busy"
            assert http.get("/v1/documents").json()["documents"] == []  # nothing half-written
        finally:
            repairer.release()
        assert http.post("/v1/documents", files={"file": ("a.md", b"# A\n\nSome text.\n")}
                         ).status_code == 201


def test_a_long_lived_knowledge_base_replays_what_a_dead_writer_left(tmp_path: Path) -> None:
    # A write syncs only its own documents, and a process that never reopens (the server)
    # would keep a killed ingest's leftovers for ever: replay_leftovers takes them up —
    # unless a writer is alive, whose work in progress they are.
    data, first, second = _two_folders(tmp_path)
    embedder = HashEmbedder()
    with KnowledgeBase.open(data, embedder=embedder) as kb:  # type: ignore[arg-type]
        kb.ingest([first])
        _write_without_sync(data, second)  # another process's ingest, killed mid-way
        with writer_in_another_process(data / LOCK_NAME):
            assert kb.replay_leftovers() == 0  # a writer is alive: its work, not ours
            assert kb.store.pending_index_ops()
        assert kb.replay_leftovers() == 1  # no writer alive: the leftovers are a crash's
        kb.embed_pending()  # the server's workers do this
        assert kb.store.pending_index_ops() == [] and kb.check_consistency().ok
        assert "north garage" in " ".join(embedder.embedded)
        assert kb.search("visitors garage", k=1)[0].source.endswith("parking.md")
        assert kb.replay_leftovers() == 0


def test_the_server_replays_a_dead_writer_s_leftovers_now_and_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citewise.server import leases

    monkeypatch.setattr(leases, "REPLAY_EVERY_S", 0.2)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "parking.md").write_text("Visitors park in the north garage after noon.\n")
    app = make_app(tmp_path, run_lease_s=1.2)  # the maintenance loop wakes every 0.2 s
    with serve(app):
        store = app.state.citewise.services.store
        ingest_paths([docs], store=store, tenant="default", collection="default",
                     registry=default_registry(), chunker=Chunker())  # killed before its sync
        deadline = time.monotonic() + 10
        while store.pending_index_ops():
            assert time.monotonic() < deadline, "the leftovers were never replayed"
            time.sleep(0.1)
        kb = app.state.citewise.services.kb("default")
        assert kb.search("visitors garage", k=1, mode="lexical")[0].source.endswith(
            "parking.md")
