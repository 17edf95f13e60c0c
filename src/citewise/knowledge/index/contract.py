"""The two search seams of a knowledge base: what retrieval and the outbox sync ask of a
lexical index and of a vector index.

Embedded (SQLite), they are folders beside the database file, derived from it:
:class:`~citewise.knowledge.index.lexical_tantivy.LexicalIndex` (tantivy) and
:class:`~citewise.knowledge.index.vectors.dense.DenseIndex` (the vector index). On PostgreSQL the
database holds both (:mod:`citewise.knowledge.postgres`), so replicas share them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from citewise.knowledge.index.vectors.dense import SyncStats
    from citewise.store.base import IndexOp, Store

__all__ = ["MENTIONS_FROM", "LexicalSearch", "VectorSearch"]

#: A tenant of fewer chunks reports no word as unmentioned: a few pages leave out most
#: words, and their absence says nothing about a question (a one-page manual never says
#: "column" and still answers "At what column does b64 wrap its output?").
MENTIONS_FROM = 200


class LexicalSearch(Protocol):
    """Ranked keyword search over one store's chunks."""

    def search(
        self,
        query: str,
        k: int,
        *,
        tenant: str,
        collections: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``k`` ``(chunk_id, score)`` of the tenant's chunks, best first."""
        ...

    def unmentioned(self, words: Sequence[str], *, tenant: str) -> list[str]:
        """Those of ``words`` (a question's keywords) that no chunk of the tenant contains:
        what a search engine shows as "Missing: …", and a sign the documents do not cover
        what is asked (the extractive model's abstention, issue #27). The whole tenant,
        whatever a search's filters; nothing for a tenant of fewer than
        :data:`MENTIONS_FROM` live chunks."""
        ...

    def all_chunk_ids(self) -> set[int]:
        """Every chunk id the index can find (a consistency check reads it)."""
        ...

    def close(self) -> None: ...


class VectorSearch(Protocol):
    """Chunk embeddings for one embedder, kept in step with the store's chunks."""

    def embed_query(self, text: str) -> NDArray[np.float32]: ...

    def search(
        self, query: str | NDArray[np.float32], k: int, *, tenant: str | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest chunks of ``tenant`` as ``(chunk_id, cosine)``, best first."""
        ...

    def count(self, tenant: str | None = None) -> int: ...

    def sync_documents(
        self,
        store: Store,
        ops: Iterable[IndexOp],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> SyncStats:
        """Make the vectors of the documents named in ``ops`` match their chunks."""
        ...

    def reconcile(
        self, store: Store, *, progress: Callable[[int, int], None] | None = None
    ) -> SyncStats:
        """Embed every chunk that has no vector, drop vectors whose chunk is gone."""
        ...

    # The embedding queue's side: workers embed leased blocks of chunks through these.
    def has_vectors(self, chunk_ids: Sequence[int]) -> set[int]:
        """Those of ``chunk_ids`` that have a stored vector."""
        ...

    def add_vectors(
        self, tenant: str, document_id: str, items: Sequence[tuple[int, str]]
    ) -> SyncStats:
        """Embed ``(chunk_id, text)`` of one document and commit them at once (a batch is
        durable when this returns: a worker killed later never recomputes it)."""
        ...

    def drop_stale(self, store: Store, document_ids: Sequence[str]) -> int:
        """Remove the vectors of these documents' chunks that are gone; embeds nothing."""
        ...

    def missing_vectors(self, store: Store) -> list[int]:
        """Chunk ids without a vector (vectors of gone chunks are dropped first)."""
        ...

    def queue_missing(self, store: Store, *, now: datetime) -> int:
        """Queue the embedding of the chunks :meth:`missing_vectors` finds, less those a
        worker stores meanwhile (checked in the enqueue's own statement); returns blocks
        queued. Embeds nothing."""
        ...

    def refresh(self) -> None:
        """Take in vectors stored by other processes (a no-op where the rows are the
        index)."""
        ...

    def checkpoint(self) -> None:
        """Make what is searchable durable now (a no-op where the database holds it)."""
        ...

    def ids(self) -> set[int]:
        """Chunk ids a search can return."""
        ...

    def stored_ids(self) -> set[int]:
        """Chunk ids with a stored vector."""
        ...

    def close(self) -> None: ...
