"""The embedder seam: what the vector indexes ask of a text-embedding model.

Apart from any model so that the indexes (embedded and PostgreSQL) and the embedders
(:mod:`.minilm`, the packaged default, and others beside it) depend on this contract
alone.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Embedder", "QueryVectors", "content_hash"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` identifies the model *and* its preprocessing: vectors are cached and stored
    under it, so two embedders whose vectors are not comparable must have different names.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """A ``(len(texts), dim)`` float32 matrix, each row of unit length."""
        ...


class QueryVectors:
    """Query texts' vectors, the last ``size`` kept (an agent searches the same question
    again). Thread-safe; the embedding itself runs outside the lock."""

    def __init__(self, embedder: Embedder, size: int = 256) -> None:
        from collections import OrderedDict

        self.embedder = embedder
        self.size = size
        self._lock = threading.Lock()
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()

    def __call__(self, text: str) -> NDArray[np.float32]:
        with self._lock:
            hit = self._vectors.get(text)
            if hit is not None:
                self._vectors.move_to_end(text)
                return hit
        # A model trained with a question's prefix apart from a passage's (e5) says so.
        embed_query = getattr(self.embedder, "embed_query", None)
        vec: NDArray[np.float32] = (embed_query(text) if embed_query is not None
                                    else self.embedder.embed([text])[0])
        with self._lock:
            self._vectors[text] = vec
            if len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vec


def content_hash(text: str) -> bytes:
    """The cache key of an embedded text (sha256 of its UTF-8 bytes, 32 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).digest()
