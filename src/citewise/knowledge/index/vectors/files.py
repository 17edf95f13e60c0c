"""Saving and loading a :class:`~citewise.knowledge.index.vectors.index.VectorIndex`.

Beside the SQLite file (``index/vectors/``), per shard (tenant) a set of data files whose
names carry the log ``seq`` they were written at — ``.ids.npy`` + ``.vec.npy`` for an exact
shard, ``.hnsw`` (the hnswlib graph) + ``.slots.npy`` (slot → chunk id) for an HNSW one —
and one pointer, ``<name>.json``, written last by an atomic rename, that lists every
shard's files and the ``seq`` the whole index is consistent with. A crash before the
pointer is replaced leaves the previous generation in force; files no pointer names are
removed after it is. A shard unchanged since the last save keeps its files (a checkpoint
rewrites only the tenants that changed).

Anything unexpected on load (missing or damaged files, another model or dimension, the
format of an older version) makes :func:`load` return None: the caller rebuilds from
SQLite (:mod:`~citewise.knowledge.index.vectors.replay`), so the files are never trusted blindly.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.atomic import fsync_dir, write_atomic
from citewise.knowledge.index.vectors.shard import Shard

if TYPE_CHECKING:
    from citewise.knowledge.index.vectors.index import VectorIndex

__all__ = ["FORMAT", "load", "save"]

#: 2: one set of files per tenant shard (1 was a single unsharded index: rebuilt on open).
FORMAT = 2


def _key(tenant: str | None) -> str:
    if tenant is None:
        return "u"
    return "t" + hashlib.blake2b(tenant.encode("utf-8"), digest_size=8).hexdigest()


def _save_shard(shard: Shard, directory: Path, stem: str) -> dict[str, Any]:
    import numpy as np

    meta: dict[str, Any] = {"kind": shard.kind, "count": len(shard)}
    if shard.hnsw is None:
        ids_file = directory / f"{stem}.ids.npy"
        mat_file = directory / f"{stem}.vec.npy"
        write_atomic(ids_file, lambda p: _save_npy(p, shard.ids[: shard.n]))
        write_atomic(mat_file, lambda p: _save_npy(p, shard.mat[: shard.n]))
        meta["files"] = [ids_file.name, mat_file.name]
        return meta
    graph = directory / f"{stem}.hnsw"
    slots = directory / f"{stem}.slots.npy"
    pairs = np.asarray(list(shard.slot_ids.items()), dtype=np.int64).reshape(-1, 2)
    write_atomic(graph, lambda p: shard.hnsw.save_index(str(p)))
    write_atomic(slots, lambda p: _save_npy(p, pairs))
    meta["files"] = [graph.name, slots.name]
    meta["next_slot"] = shard.next_slot
    meta["capacity"] = int(shard.hnsw.get_max_elements())
    meta["params"] = {
        "m": shard.params.m,
        "ef_construction": shard.params.ef_construction,
        "ef_search": shard.params.ef_search,
    }
    return meta


#: A temporary file this old is a crashed writer's, and any save may remove it.
_STALE_TMP_S = 3600.0


def save(index: VectorIndex, directory: Path, name: str, seq: int, model: str) -> None:
    """Write ``index`` as of log ``seq``; the ``<name>.json`` pointer is replaced last."""
    directory.mkdir(parents=True, exist_ok=True)
    shards: list[dict[str, Any]] = []
    saved_now: list[tuple[Shard, tuple[int, str, dict[str, Any]]]] = []
    for tenant, shard in index.shards.items():
        prior = shard.saved
        where = str(directory / name)
        if (
            prior is not None
            and prior[0] == shard.version
            and prior[1] == where
            and all((directory / f).exists() for f in prior[2]["files"])
        ):
            meta = prior[2]  # unchanged since it was last written here: keep its files
        else:
            meta = _save_shard(shard, directory, f"{name}.{seq}.{_key(tenant)}")
            saved_now.append((shard, (shard.version, where, meta)))
        shards.append({"tenant": tenant, **meta})
    pointer_meta = {
        "format": FORMAT,
        "model": model,
        "dim": index.dim,
        "seq": seq,
        "count": len(index),
        "shards": shards,
    }
    pointer = directory / f"{name}.json"
    _fault("vectors:before_pointer")
    write_atomic(pointer, lambda p: p.write_text(json.dumps(pointer_meta), encoding="utf-8"))
    fsync_dir(directory)
    for shard, info in saved_now:
        shard.saved = info
    keep = {pointer.name, *(f for meta in shards for f in meta["files"])}
    for old in directory.glob(f"{name}.*"):  # data files of older generations
        if old.name not in keep and _older(old, name, seq):
            with contextlib.suppress(OSError):
                old.unlink()


def _older(path: Path, name: str, seq: int) -> bool:
    """Whether ``path`` is another generation's file this save may delete: one of an older
    log seq, or a temporary file left by a crash (an hour old). Another process saving the
    same index at once (two ingests of one knowledge base) writes files of its own seq and
    its own temporaries: those are not this save's to remove."""
    rest = path.name[len(name) + 1:]
    if rest.endswith(".tmp"):
        try:
            return time.time() - path.stat().st_mtime > _STALE_TMP_S
        except OSError:
            return False
    head = rest.split(".", 1)[0]
    return head.isdigit() and int(head) < seq


def load(
    index: VectorIndex, directory: Path, name: str, *, model: str
) -> tuple[VectorIndex, int] | None:
    """``(index, seq)``: the empty ``index`` filled from disk, or None when the files are
    absent, damaged, or for another model or width. (The caller makes the index, so this
    module needs only its type: :mod:`~citewise.knowledge.index.vectors.index` imports it.)"""
    try:
        meta = json.loads((directory / f"{name}.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta["model"] != model or meta["dim"] != index.dim:
            return None
        where = str(directory / name)
        for entry in meta["shards"]:
            tenant = entry["tenant"]
            if not (tenant is None or isinstance(tenant, str)) or tenant in index.shards:
                return None
            shard = _load_shard(index, directory, entry)
            if shard is None:
                return None
            shard.saved = (shard.version, where, {k: v for k, v in entry.items() if k != "tenant"})
            index.adopt_shard(tenant, shard)
        if len(index) != meta["count"]:
            return None  # one chunk id in two shards: not a file this code wrote
        return index, int(meta["seq"])
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, IndexError):
        return None


def _load_shard(index: VectorIndex, directory: Path, entry: dict[str, Any]) -> Shard | None:
    import numpy as np

    shard = Shard(index.dim, index.hnsw_threshold, index.params)
    files = [directory / f for f in entry["files"]]
    if entry["kind"] == "exact":
        ids = np.load(files[0])
        mat = np.load(files[1])
        if len(ids) != entry["count"] or mat.shape != (len(ids), index.dim):
            return None
        # as saved, exact even above this threshold (converting here would block the open)
        shard.add_exact([int(i) for i in ids], np.ascontiguousarray(mat, dtype=np.float32))
        return shard
    import hnswlib

    h = hnswlib.Index(space="ip", dim=index.dim)
    h.load_index(str(files[0]), max_elements=int(entry["capacity"]), allow_replace_deleted=True)
    pairs = np.load(files[1])
    if pairs.ndim != 2 or len(pairs) != entry["count"]:
        return None
    shard.adopt(h)
    shard.slot_ids = {int(s): int(c) for s, c in pairs.tolist()}
    shard.row = {c: s for s, c in shard.slot_ids.items()}
    shard.next_slot = int(entry["next_slot"])
    return shard


def _fault(point: str) -> None:
    """Die here when ``$CITEWISE_FAULT`` names this point (the crash tests; see sync.py)."""
    if os.environ.get("CITEWISE_FAULT") == point:
        os._exit(86)


def _save_npy(path: Path, array: Any) -> None:
    import numpy as np

    with open(path, "wb") as fh:  # a file object: np.save would append ".npy" to a name
        np.save(fh, array)


