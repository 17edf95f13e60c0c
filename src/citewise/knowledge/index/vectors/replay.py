"""Keeping the vector index consistent with SQLite, the source of truth.

:class:`~citewise.knowledge.index.vectors.truth.VectorStore` holds every vector and an append-only
log of changes (``vec_log``). The saved index (:mod:`~citewise.knowledge.index.vectors.files`)
records the last log ``seq`` it contains. :func:`open_index` loads the files, then replays
the log after their ``seq``; when files are missing, damaged, of another model/dimension
or format, or the log has been pruned past them, it rebuilds from ``vec_chunks``. A crash
at any point therefore costs at most a rebuild, never a wrong answer.

Every vector enters the index with its chunk's tenant, read from the store's ``chunks``
table in the query that reads the vector (:meth:`VectorStore.tenant_vectors`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.knowledge.index.vectors.index import HNSWParams, VectorIndex

if TYPE_CHECKING:
    from citewise.knowledge.index.vectors.truth import VectorStore

__all__ = ["checkpoint", "file_name", "open_index", "rebuild", "replay"]


def open_index(
    store: VectorStore,
    model: str,
    dim: int,
    directory: Path,
    *,
    hnsw_threshold: int = 20_000,
    params: HNSWParams | None = None,
) -> tuple[VectorIndex, int]:
    """The index of ``model``'s vectors, consistent with ``store``; returns ``(index, seq)``.

    Loads the saved files and replays the log after them, or rebuilds from the stored
    vectors (and saves) when that is impossible. Call :func:`checkpoint` after writes.
    """
    name = file_name(model)
    loaded = VectorIndex.load(
        directory, name, model=model, dim=dim, hnsw_threshold=hnsw_threshold, params=params
    )
    if loaded is not None:
        index, seq = loaded
        log = store.log_since(model, seq)
        if log is not None:
            return index, replay(store, model, index, log, seq)
    return rebuild(store, model, dim, directory, hnsw_threshold=hnsw_threshold, params=params)


def replay(
    store: VectorStore,
    model: str,
    index: VectorIndex,
    log: Sequence[tuple[int, str, int]],
    seq: int,
) -> int:
    """Apply log entries to ``index``; returns the new seq."""
    import numpy as np

    # Net effect per chunk: only its last operation matters.
    last_op: dict[int, str] = {}
    for s, op, cid in log:
        last_op[cid] = op
        seq = max(seq, s)
    removed = [cid for cid, op in last_op.items() if op == "d"]
    index.remove(removed)
    added = [cid for cid, op in last_op.items() if op == "a"]
    if added:
        ids, tenants, blob = store.tenant_vectors(model, added)
        index.add(ids, np.frombuffer(blob, dtype="<f4").reshape(-1, index.dim), tenants)
    return seq


def rebuild(
    store: VectorStore,
    model: str,
    dim: int,
    directory: Path,
    *,
    hnsw_threshold: int = 20_000,
    params: HNSWParams | None = None,
) -> tuple[VectorIndex, int]:
    """Build the index from ``vec_chunks`` alone and save it."""
    import numpy as np

    with store.engine.begin() as conn:  # one snapshot: vectors and seq agree
        seq = store.last_seq(model, conn)
        ids, tenants, blob = store.tenant_vectors(model, None, conn)
    index = VectorIndex(dim, hnsw_threshold=hnsw_threshold, params=params)
    index.add(ids, np.frombuffer(blob, dtype="<f4").reshape(-1, dim), tenants)
    index.save(directory, file_name(model), seq, model)
    return index, seq


def checkpoint(
    store: VectorStore, model: str, index: VectorIndex, seq: int, directory: Path
) -> None:
    """Save ``index`` as of ``seq`` and prune the log it no longer needs."""
    index.save(directory, file_name(model), seq, model)
    store.prune_log(model, seq)


def file_name(model: str) -> str:
    """The stem of ``model``'s index files (a model name made safe for a file name)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in model)
    return f"vectors-{safe}"
