"""One vector index shard: exact search while small, HNSW above a threshold.

A :class:`~citewise.knowledge.index.vectors.index.VectorIndex` keeps one shard per tenant, so a
search never looks at (nor filters out) another tenant's vectors.

Vectors are unit length, so cosine similarity is the inner product.

* **Exact** (below ``hnsw_threshold``): one float32 matrix; a query is one mat-vec product
  and an ``argpartition``. Perfect recall, and at 20k x 384 it costs well under 2 ms.
* **HNSW** (at or above it): hnswlib, inner-product space. Chosen over faiss (its HNSW
  cannot remove vectors) and usearch (not installed here): hnswlib marks elements deleted
  and, with ``allow_replace_deleted``, reuses their slots, and filters during the search.
  hnswlib labels are our own slot numbers, not chunk ids, and a removed element's vector
  is overwritten with zeros before it is marked deleted — so a deleted chunk leaves
  neither its id nor its vector in the saved file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.errors import InvalidInput

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Allow", "HNSWParams", "Shard"]

#: A filter on chunk ids: a set of allowed ids or a predicate.
Allow = Collection[int] | Callable[[int], bool] | None


@dataclass(frozen=True, slots=True)
class HNSWParams:
    """HNSW build/search parameters.

    Measured on the 97k-vector synthetic 384-d bench corpus (``bench/retrieval.py``),
    recall@10 vs exact: M 24 / ef_construction 100 builds ~3x faster than M 32 / 200 and
    reaches 0.992 at ef_search 32, 0.996 at 40, 0.998 at 50 and 0.999 at 64 (1.0 at 40
    and 50 on the bench's own 200 recall queries). A search costs about its ef (the nodes
    it expands) and is the hybrid path's largest single cost; a hybrid search asks for
    ``retrieval.CANDIDATES`` (40) candidates, so ef_search 40 is the cheapest setting it
    can use (ef 50 with 50 candidates was ~0.3 ms slower per search, with the same
    relevance on ``bench/relevance.py``). M 16 was faster still, but its recall at ef 64
    varied between builds (0.992-0.999): too close to the 0.99 goal.
    """

    m: int = 24
    ef_construction: int = 100
    ef_search: int = 40
    threads: int = 1  # per query: a server runs many queries at once
    build_threads: int = -1  # bulk inserts: every core


class Shard:
    """An in-memory id → vector index; see the module docstring."""

    def __init__(self, dim: int, hnsw_threshold: int, params: HNSWParams) -> None:
        import numpy as np

        self.dim = dim
        self.hnsw_threshold = hnsw_threshold
        self.params = params
        #: Bumped by every change, so a checkpoint can keep the files of an unchanged shard.
        self.version = 0
        #: ``(version, where, file meta)`` of the last save (set by ``vector_files``).
        self.saved: tuple[int, str, dict[str, Any]] | None = None
        # exact backend: rows [0, n) of mat are live; ids[row] is the chunk id
        self.mat: NDArray[np.float32] = np.zeros((0, dim), dtype=np.float32)
        self.ids: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.n = 0
        self.row: dict[int, int] = {}  # chunk id -> row (exact) or slot label (hnsw)
        # hnsw backend
        self.hnsw: Any = None
        self.slot_ids: dict[int, int] = {}  # slot label -> chunk id
        self.next_slot = 0
        self._ef = 0

    @property
    def kind(self) -> str:
        return "exact" if self.hnsw is None else "hnsw"

    def __len__(self) -> int:
        return len(self.row)

    # -- writes ---------------------------------------------------------------------------

    def add(self, chunk_ids: Sequence[int], vecs: NDArray[np.float32]) -> None:
        """Insert or replace; ``vecs`` is a C-contiguous float32 ``(len(chunk_ids), dim)``."""
        if not len(vecs):
            return
        self.version += 1
        if self.hnsw is None and len(self.row) + len(vecs) >= self.hnsw_threshold:
            self._to_hnsw(extra=len(vecs))
        if self.hnsw is None:
            self.add_exact(chunk_ids, vecs)
        else:
            self._add_hnsw(chunk_ids, vecs)

    def remove(self, chunk_ids: Sequence[int]) -> int:
        """Remove ``chunk_ids`` (unknown ids are ignored). Returns how many were removed."""
        import numpy as np

        gone = [cid for cid in dict.fromkeys(chunk_ids) if cid in self.row]
        if not gone:
            return 0
        self.version += 1
        if self.hnsw is None:
            for cid in gone:
                row = self.row.pop(cid)
                last = self.n - 1
                if row != last:  # keep rows [0, n) dense: move the last row into the hole
                    moved = int(self.ids[last])
                    self.mat[row] = self.mat[last]
                    self.ids[row] = moved
                    self.row[moved] = row
                self.mat[last] = 0.0
                self.ids[last] = 0
                self.n -= 1
        else:
            slots = [self.row.pop(cid) for cid in gone]
            zeros = np.zeros((len(slots), self.dim), dtype=np.float32)
            self.hnsw.add_items(zeros, np.asarray(slots, dtype=np.uint64))  # scrub the data
            for slot in slots:
                self.hnsw.mark_deleted(slot)
                del self.slot_ids[slot]
        return len(gone)

    def add_exact(self, chunk_ids: Sequence[int], vecs: NDArray[np.float32]) -> None:
        import numpy as np

        new = [i for i, cid in enumerate(chunk_ids) if cid not in self.row]
        need = self.n + len(new)
        if need > len(self.mat):
            cap = max(need, 2 * len(self.mat), 64)
            mat = np.zeros((cap, self.dim), dtype=np.float32)
            mat[: self.n] = self.mat[: self.n]
            ids = np.zeros(cap, dtype=np.int64)
            ids[: self.n] = self.ids[: self.n]
            self.mat, self.ids = mat, ids
        for i, cid in enumerate(chunk_ids):
            row = self.row.get(cid)
            if row is None:
                row = self.n
                self.n += 1
                self.row[cid] = row
                self.ids[row] = cid
            self.mat[row] = vecs[i]

    def new_hnsw(self, capacity: int) -> Any:
        import hnswlib

        index = hnswlib.Index(space="ip", dim=self.dim)
        index.init_index(
            max_elements=max(capacity, 1024),
            M=self.params.m,
            ef_construction=self.params.ef_construction,
            allow_replace_deleted=True,
        )
        self.adopt(index)
        return index

    def adopt(self, index: Any) -> None:
        """Use ``index`` (new or loaded) as this shard's HNSW graph."""
        index.set_num_threads(self.params.threads)
        index.set_ef(self.params.ef_search)
        self._ef = self.params.ef_search
        self.hnsw = index

    def _to_hnsw(self, extra: int) -> None:
        import numpy as np

        ids = [int(i) for i in self.ids[: self.n]]
        mat = self.mat[: self.n].copy()
        self.new_hnsw(int((len(ids) + extra) * 1.25))
        self.row.clear()
        self.mat = np.zeros((0, self.dim), dtype=np.float32)
        self.ids = np.zeros(0, dtype=np.int64)
        self.n = 0
        self._add_hnsw(ids, mat)

    def _add_hnsw(self, chunk_ids: Sequence[int], vecs: NDArray[np.float32]) -> None:
        import numpy as np

        h = self.hnsw
        update_rows = [i for i, cid in enumerate(chunk_ids) if cid in self.row]
        if update_rows:
            slots = np.asarray([self.row[chunk_ids[i]] for i in update_rows], dtype=np.uint64)
            h.add_items(vecs[update_rows], slots)
        new_rows = [i for i, cid in enumerate(chunk_ids) if cid not in self.row]
        if not new_rows:
            return
        deleted = h.get_current_count() - len(self.slot_ids)
        free_needed = max(0, len(new_rows) - deleted)
        if h.get_current_count() + free_needed > h.get_max_elements():
            h.resize_index(int((h.get_current_count() + free_needed) * 1.5))
        slots_list = list(range(self.next_slot, self.next_slot + len(new_rows)))
        self.next_slot += len(new_rows)
        h.add_items(
            vecs if len(new_rows) == len(vecs) else vecs[new_rows],
            np.asarray(slots_list, dtype=np.uint64),
            num_threads=_build_threads(self.params.build_threads),
            replace_deleted=True,
        )
        for i, slot in zip(new_rows, slots_list, strict=True):
            self.row[chunk_ids[i]] = slot
            self.slot_ids[slot] = chunk_ids[i]

    # -- search ---------------------------------------------------------------------------

    def search(
        self, q: NDArray[np.float32], k: int, allow: Allow = None
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks as ``(chunk_id, cosine)``, best first (``q`` is a
        float32 vector of the right dimension)."""
        import numpy as np

        if k <= 0 or not self.row:
            return []
        pred = _predicate(allow)
        if self.hnsw is None:
            # einsum, not ``@``: a mat-vec this small is memory-bound, and BLAS would wake
            # its thread pool for it — measured here 5.5 ms instead of 0.3 ms at 3k x 384
            # on a busy 2-core machine (einsum runs single-threaded, vectorised).
            scores = np.einsum("ij,j->i", self.mat[: self.n], q)
            if allow is not None and not callable(allow):
                wanted = np.fromiter(allow, dtype=np.int64, count=len(allow))
                scores = np.where(np.isin(self.ids[: self.n], wanted), scores, -np.inf)
            elif pred is not None:
                keep = np.fromiter((pred(int(c)) for c in self.ids[: self.n]), bool, self.n)
                scores = np.where(keep, scores, -np.inf)
            kk = min(k, self.n)
            top = np.argpartition(-scores, kk - 1)[:kk]
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(int(self.ids[r]), float(scores[r])) for r in top if np.isfinite(scores[r])]
        slot_ids = self.slot_ids
        flt: Callable[[int], bool] | None = None
        if pred is not None:
            # A Python call per candidate the graph search considers: only for explicit
            # ``allow`` filters, never on the plain (tenant-sharded) search path.
            def flt(slot: int) -> bool:
                cid = slot_ids.get(slot)
                return cid is not None and pred(cid)

        kk = min(k, len(self.row))
        ef = max(self.params.ef_search, kk)
        if ef != self._ef:
            self.hnsw.set_ef(ef)
            self._ef = ef
        while True:
            try:
                # num_threads=1: one query gains nothing from a thread pool, and on a
                # shared machine waking one costs more than the search.
                labels, dists = self.hnsw.knn_query(q, k=kk, num_threads=1, filter=flt)
                break
            except RuntimeError:  # fewer than kk elements pass the filter
                if kk == 1:
                    return []
                kk = max(1, kk // 2)
        return [
            (cid, 1.0 - float(dist))
            for slot, dist in zip(labels[0].tolist(), dists[0].tolist(), strict=True)
            if (cid := slot_ids.get(slot)) is not None
        ]


def _build_threads(wanted: int) -> int:
    """``wanted``, or every core this process may use when it is not positive. (hnswlib
    reads ``num_threads <= 0`` as the index's *query* thread count, which is 1 here: a
    bulk insert then ran on one core.)"""
    if wanted > 0:
        return wanted
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _predicate(allow: Allow) -> Callable[[int], bool] | None:
    if allow is None:
        return None
    if callable(allow):
        return allow
    allowed = allow if isinstance(allow, (set, frozenset)) else set(allow)
    return allowed.__contains__


def check_query(query: Any, dim: int) -> NDArray[np.float32]:
    """``query`` as a flat float32 vector of dimension ``dim`` (else a typed error)."""
    import numpy as np

    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if q.shape[0] != dim:
        raise InvalidInput(
            f"query has dimension {q.shape[0]}, index has {dim}", code="vector_shape_mismatch"
        )
    return q
