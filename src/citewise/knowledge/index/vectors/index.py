"""The dense vector index: one shard per tenant, each exact while small, HNSW above.

A knowledge base's vectors belong to tenants (a chunk's tenant is its document's). The
index keeps each tenant's vectors in a shard of their own
(:class:`~citewise.knowledge.index.vectors.shard.Shard`): a search for one tenant looks at that
tenant's shard only, so another tenant's chunk can never come back, and no candidate has
to be read from SQLite to find out whose it is. A vector whose chunk is not in the store
(yet, or any more) sits in the ``None`` shard, which only a search of every tenant sees.

Persistence and crash consistency (SQLite is the truth): :mod:`~citewise.knowledge.index.vectors.files`
saves and loads the shards, :mod:`~citewise.knowledge.index.vectors.replay` rebuilds the index
from SQLite or replays the vector log after the saved state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.errors import InvalidInput
from citewise.knowledge.index.vectors import files
from citewise.knowledge.index.vectors.shard import Allow, HNSWParams, Shard, check_query

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Allow", "HNSWParams", "VectorIndex"]

#: The shard of vectors whose chunk's tenant is unknown (not in the store).
UNKNOWN: str | None = None


class VectorIndex:
    """An in-memory chunk id → vector index, sharded by tenant; see the module docstring.

    Not thread-safe: :class:`~citewise.knowledge.index.vectors.dense.DenseIndex` serialises access."""

    def __init__(
        self, dim: int, *, hnsw_threshold: int = 20_000, params: HNSWParams | None = None
    ) -> None:
        if dim < 1:
            raise InvalidInput("dimension must be positive", code="invalid_dimension")
        self.dim = dim
        self.hnsw_threshold = hnsw_threshold
        self.params = params or HNSWParams()
        self.shards: dict[str | None, Shard] = {}
        self._tenant: dict[int, str | None] = {}  # chunk id -> its shard

    # -- introspection --------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """``"exact"`` or ``"hnsw"`` (of the largest shard; ``"exact"`` when empty)."""
        if not self.shards:
            return "exact"
        return max(self.shards.values(), key=len).kind

    def __len__(self) -> int:
        return len(self._tenant)

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._tenant

    def ids(self) -> list[int]:
        return list(self._tenant)

    def tenant_of(self, chunk_id: int) -> str | None:
        """The tenant whose shard holds ``chunk_id`` (None: unknown or absent)."""
        return self._tenant.get(chunk_id)

    def shard(self, tenant: str | None) -> Shard | None:
        return self.shards.get(tenant)

    def new_shard(self, tenant: str | None) -> Shard:
        shard = Shard(self.dim, self.hnsw_threshold, self.params)
        self.shards[tenant] = shard
        return shard

    def adopt_shard(self, tenant: str | None, shard: Shard) -> None:
        """Install a loaded shard (persistence)."""
        self.shards[tenant] = shard
        for cid in shard.row:
            self._tenant[cid] = tenant

    # -- writes ---------------------------------------------------------------------------

    def add(
        self,
        chunk_ids: Sequence[int],
        vectors: NDArray[np.float32],
        tenants: Sequence[str | None] | None = None,
    ) -> None:
        """Insert or replace the vectors of ``chunk_ids`` (rows should be unit length);
        ``tenants[i]`` owns ``chunk_ids[i]`` (all :data:`UNKNOWN` when not given)."""
        import numpy as np

        vecs = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        if len(chunk_ids) != len(vecs) or (tenants is not None and len(tenants) != len(vecs)):
            raise InvalidInput("ids and vectors differ in length", code="vector_shape_mismatch")
        if not len(vecs):
            return
        groups: dict[str | None, list[int]] = {}
        moved: list[int] = []
        for i, cid in enumerate(chunk_ids):
            tenant = tenants[i] if tenants is not None else UNKNOWN
            groups.setdefault(tenant, []).append(i)
            if cid in self._tenant and self._tenant[cid] != tenant:
                moved.append(cid)  # now known to belong elsewhere: leaves its old shard
        if moved:
            self.remove(moved)
        for tenant, rows in groups.items():
            shard = self.shards.get(tenant) or self.new_shard(tenant)
            if len(rows) == len(vecs):
                shard.add(chunk_ids, vecs)
            else:
                shard.add([chunk_ids[i] for i in rows], np.ascontiguousarray(vecs[rows]))
            for i in rows:
                self._tenant[chunk_ids[i]] = tenant

    def remove(self, chunk_ids: Sequence[int]) -> int:
        """Remove ``chunk_ids`` (unknown ids are ignored). Returns how many were removed."""
        groups: dict[str | None, list[int]] = {}
        for cid in dict.fromkeys(chunk_ids):
            if cid in self._tenant:
                groups.setdefault(self._tenant.pop(cid), []).append(cid)
        removed = 0
        for tenant, ids in groups.items():
            shard = self.shards[tenant]
            removed += shard.remove(ids)
            if not len(shard):
                del self.shards[tenant]
        return removed

    # -- search ---------------------------------------------------------------------------

    def search(
        self,
        query: NDArray[np.float32],
        k: int = 10,
        *,
        tenant: str | None = None,
        allow: Allow = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks of ``tenant`` (every tenant's when None) as
        ``(chunk_id, cosine)``, best first; ``allow`` restricts them further."""
        q = check_query(query, self.dim)
        if tenant is not None:
            shard = self.shards.get(tenant)
            return [] if shard is None else shard.search(q, k, allow)
        if len(self.shards) == 1:
            return next(iter(self.shards.values())).search(q, k, allow)
        merged = [hit for shard in self.shards.values() for hit in shard.search(q, k, allow)]
        merged.sort(key=lambda hit: -hit[1])
        return merged[:k]

    # -- persistence (see files.py) ------------------------------------------------------

    def save(self, directory: Path, name: str, seq: int, model: str) -> None:
        """Write the index as of log ``seq``; the ``<name>.json`` pointer is replaced last."""
        files.save(self, directory, name, seq, model)

    @classmethod
    def load(
        cls,
        directory: Path,
        name: str,
        *,
        model: str,
        dim: int,
        hnsw_threshold: int = 20_000,
        params: HNSWParams | None = None,
    ) -> tuple[VectorIndex, int] | None:
        """``(index, seq)`` from disk, or None when absent, damaged or for another model."""
        index = cls(dim, hnsw_threshold=hnsw_threshold, params=params)
        return files.load(index, directory, name, model=model)
