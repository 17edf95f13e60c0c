"""Crash consistency: kill a real ingesting process, reopen, SQLite and the index agree.

Two ways to die: at named points between the phases of the outbox protocol
(``CITEWISE_FAULT``: the process ``os._exit``s there), and SIGKILL at random moments.
After every crash, reopening must leave every SQLite chunk searchable and no index entry
without its chunk — in the lexical index and in the vectors (dense retrieval is on, with a
fast deterministic embedder: the protocol, not the model, is under test).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.ingest.outbox import FAULT_ENV

# The embedder of every knowledge base here, parent and child processes alike.
EMBEDDER = """
import zlib
import numpy as np

class HashEmbedder:
    name = "crash-hash-128"
    dim = 128

    def embed(self, texts):
        out = np.full((len(texts), self.dim), 1e-3, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in set(text.lower().split()):
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)
"""
_ns: dict[str, object] = {}
exec(EMBEDDER, _ns)
HashEmbedder: type = _ns["HashEmbedder"]  # type: ignore[assignment]


def _open(data: Path, **kw: object) -> KnowledgeBase:
    return KnowledgeBase.open(data, embedder=HashEmbedder(), **kw)  # type: ignore[arg-type]


CHILD = EMBEDDER + """
import sys
from citewise.knowledge.base import KnowledgeBase
data, action, *paths = sys.argv[1:]
kb = KnowledgeBase.open(data, chunk_size=200, chunk_overlap=20, embedder=HashEmbedder())
print("ready", flush=True)
if action == "ingest":
    kb.ingest(paths)
else:
    for p in paths:
        doc = kb.find_document(p)
        if doc is not None:
            kb.delete_document(doc.id)
kb.close()
print("done", flush=True)
"""


def _corpus(folder: Path, n: int, *, version: int = 0, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        sentences = [
            " ".join(rng.choices(words, k=rng.randint(4, 12))).capitalize() + "."
            for _ in range(rng.randint(5, 40))
        ]
        sentences.insert(rng.randrange(len(sentences)), f"Marker zq{i}x{version} is here.")
        path = folder / f"doc{i:04d}.txt"
        path.write_text(" ".join(sentences))
        paths.append(path)
    return paths


def _child(data: Path, action: str, *paths: Path, fault: str | None = None) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop(FAULT_ENV, None)
    if fault:
        env[FAULT_ENV] = fault
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data), action, *map(str, paths)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _assert_consistent(data: Path) -> None:
    con = sqlite3.connect(data / DB_NAME)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    with _open(data, chunk_size=200, chunk_overlap=20) as kb:
        kb.embed_pending()  # the open queued what has no vector; a worker embeds it
        assert kb.store.pending_embed_jobs() == (0, 0)
        state = kb.check_consistency()
        assert state.ok, (
            len(state.missing_from_index), len(state.orphaned_in_index),
            len(state.missing_vectors), len(state.orphaned_vectors),
        )
        assert kb.store.pending_index_ops() == []
        # Every document's marker is found, in that very document.
        for doc in kb.list_documents(limit=10_000):
            marker = next(w for w in doc.text.split() if w.startswith("zq"))
            hits = kb.search(marker, k=1)
            assert hits and hits[0].document_id == doc.id, marker
            assert doc.text[hits[0].start_char : hits[0].end_char] == hits[0].text


@pytest.mark.parametrize(
    "fault", ["ingest:after_batch", "sync:adding", "sync:before_commit", "sync:after_commit"]
)
def test_crash_between_phases_of_ingest(tmp_path: Path, fault: str) -> None:
    data = tmp_path / "data"
    first = _corpus(tmp_path / "docs", 12)
    with _open(data, chunk_size=200, chunk_overlap=20) as kb:
        kb.ingest(first[:6])  # some documents exist before the crash
        old_ids = kb.store.list_chunk_ids()
    _corpus(tmp_path / "docs", 12, version=1)  # all files change: replacements + additions
    child = _child(data, "ingest", tmp_path / "docs", fault=fault)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 86, (out, err)  # it really died at the fault point
    assert "done" not in out
    _assert_consistent(data)
    with _open(data) as kb:
        # The SQLite transaction had committed at every one of these points.
        assert len(kb.list_documents()) == 12
        stale = old_ids - kb.store.list_chunk_ids()  # unchanged chunks keep their ids
        assert stale and not (stale & kb.index.all_chunk_ids())
        assert kb.search("zq3x1")[0].source == str(first[3])
        assert not kb.search("zq3x0", mode="lexical")  # dense always has a nearest


class _Counting:
    """The test embedder, remembering every text it is asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.name: str = self.inner.name
        self.dim: int = self.inner.dim
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> object:
        self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.mark.parametrize(
    "fault",
    [
        "sync:after_commit",  # lexical index committed, no embedding queued yet
        "sync:after_documents",  # embedding queued, the outbox ops not completed
        "dense:after_put",  # ops done; a worker's first batch of vectors in SQLite only
        "vectors:before_pointer",  # all committed; died saving the vector files (close)
    ],
)
def test_crash_mid_ingest_with_embeddings(tmp_path: Path, fault: str) -> None:
    data = tmp_path / "data"
    first = _corpus(tmp_path / "docs", 12)
    with _open(data, chunk_size=200, chunk_overlap=20) as kb:
        kb.ingest(first[:6])
        old_ids = kb.store.list_chunk_ids()
    _corpus(tmp_path / "docs", 12, version=1)  # every file changes
    child = _child(data, "ingest", tmp_path / "docs", fault=fault)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 86, (out, err)
    # What the crash left, before anything repairs it.
    con = sqlite3.connect(data / DB_NAME)
    try:
        chunk_ids = {r[0] for r in con.execute("SELECT id FROM chunks")}
        vec_ids = {r[0] for r in con.execute("SELECT chunk_id FROM vec_chunks")}
        pending = con.execute("SELECT count(*) FROM index_outbox").fetchone()[0]
    finally:
        con.close()
    assert (pending == 0) == (fault in ("vectors:before_pointer", "dense:after_put"))
    assert (vec_ids == chunk_ids) == (fault == "vectors:before_pointer")

    counting = _Counting()
    with KnowledgeBase.open(data, chunk_size=200, chunk_overlap=20, embedder=counting) as kb:  # type: ignore[arg-type]
        assert counting.texts == []  # an open queues, never embeds
        kb.embed_pending()
        state = kb.check_consistency()
        assert state.ok, (len(state.missing_vectors), len(state.orphaned_vectors))
        assert kb.dense is not None and kb.store.pending_index_ops() == []
        assert kb.dense.ids() == kb.dense.stored_ids() == kb.store.list_chunk_ids()
        stale = old_ids - chunk_ids  # the replaced chunks: gone from every index
        assert stale and not (stale & (kb.dense.stored_ids() | kb.index.all_chunk_ids()))
        # The repair embedded only chunks that had no stored vector.
        if vec_ids == chunk_ids:
            assert counting.texts == []
        else:
            assert 0 < len(counting.texts) <= len(chunk_ids - vec_ids)
        for doc in kb.list_documents(limit=100):
            marker = next(w for w in doc.text.split() if w.startswith("zq"))
            assert kb.search(marker, k=1)[0].document_id == doc.id
    _assert_consistent(data)  # and the vector files saved at that close load as they are


@pytest.mark.parametrize("fault", ["sync:before_commit", "sync:after_commit"])
def test_crash_mid_delete(tmp_path: Path, fault: str) -> None:
    data = tmp_path / "data"
    paths = _corpus(tmp_path / "docs", 5)
    with _open(data) as kb:
        kb.ingest(paths)
    child = _child(data, "delete", paths[1], paths[3], fault=fault)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 86, (out, err)
    _assert_consistent(data)
    with _open(data) as kb:
        assert kb.find_document(paths[1]) is None
        assert not kb.search("zq1x0", mode="lexical")


@pytest.mark.slow
def test_sigkill_at_random_moments(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rng = random.Random(20240501)
    # Measure one full ingest so the kills land inside it, not after it.
    _corpus(tmp_path / "docs", 150, seed=1)
    start = time.monotonic()
    child = _child(data, "ingest", tmp_path / "docs")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    ready = time.monotonic()
    _, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    duration = time.monotonic() - ready
    assert duration > 0 and ready > start
    _assert_consistent(data)

    killed_mid_run = 0
    for round_ in range(1, 7):
        _corpus(tmp_path / "docs", 150 + 10 * round_, version=round_, seed=round_)
        child = _child(data, "ingest", tmp_path / "docs")
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, duration * 1.1))
        if child.poll() is None:
            killed_mid_run += 1
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
        _assert_consistent(data)
    assert killed_mid_run >= 3  # most kills really interrupted an ingest
