"""Sentence vectors computed with a chunk's embedding, loaded when a search returns it.

Why here, and through an entry point: which texts of a chunk an answer compares with a
question is the extractive model's business (``citewise.models``), and the knowledge
base may not import the models (``.importlinter``). So the models register a
:class:`SentenceEncoder` in the ``citewise.sentence_encoders`` entry-point group — the
built-in ``minilm`` is registered that way too, as the loaders and models are — and the
knowledge base only stores what it computes and hands it back:

* the chunk's embedding job (:mod:`citewise.knowledge.ingest.embed_worker`) cuts each
  chunk's sentences with :meth:`SentenceEncoder.texts` and stores their vectors
  (:mod:`citewise.store.sentence_vectors`);
* the search tool calls :func:`load` with the chunks a search returned, and the encoder
  puts their vectors where its scorer looks first (:meth:`SentenceEncoder.remember`).

``CITEWISE_SENTENCE_VECTORS=off`` computes none (an ingest then embeds ~40 % less, and
every answer embeds its sentences itself, as before); another value names the encoder.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any, Protocol

from citewise.store.sentence_vectors import ChunkSource, SentenceRow

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np
    from numpy.typing import NDArray

    from citewise.store.base import Store

__all__ = ["GROUP", "SentenceEncoder", "encode", "load", "queue_missing", "sentence_encoder"]

#: The entry-point group of sentence encoders (``create() -> SentenceEncoder | None``).
GROUP = "citewise.sentence_encoders"
_DEFAULT = "minilm"
_OFF = frozenset({"0", "off", "no", "false", "none"})
_log = logging.getLogger(__name__)
_CHOSEN: dict[str, SentenceEncoder | None] = {}
_LOCK = threading.Lock()


class SentenceEncoder(Protocol):
    """Cuts a chunk into the texts a question is compared with, and embeds them."""

    #: The name its vectors are stored under: another model, or another cut, another name.
    model: str
    dim: int

    def texts(self, source: ChunkSource) -> list[str]:
        """The chunk's texts as an answer compares them (distinct, in order)."""
        ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Their vectors, one row each."""
        ...

    def remember(self, vectors: Mapping[str, NDArray[np.float32]]) -> None:
        """Stored vectors, by text, for the scorer to use instead of embedding."""
        ...


def sentence_encoder() -> SentenceEncoder | None:
    """The encoder ``CITEWISE_SENTENCE_VECTORS`` names (``minilm`` unless set), created
    once per process; None when it is off, unknown, or its model is not installed."""
    name = os.environ.get("CITEWISE_SENTENCE_VECTORS", _DEFAULT).strip().lower() or _DEFAULT
    if name in _OFF:
        return None
    with _LOCK:
        if name not in _CHOSEN:
            _CHOSEN[name] = _create(name)
        return _CHOSEN[name]


def _create(name: str) -> SentenceEncoder | None:
    for ep in metadata.entry_points(group=GROUP):
        if ep.name == name:
            try:
                encoder: SentenceEncoder | None = ep.load()()
            except Exception as exc:  # a plugin's failure costs speed, never an answer
                _log.warning("sentence encoder %r cannot be created: %s", name, exc)
                return None
            return encoder
    _log.warning("no sentence encoder named %r (entry points %s)", name, GROUP)
    return None


def encode(encoder: SentenceEncoder, sources: Sequence[ChunkSource]) -> list[SentenceRow]:
    """One row per chunk (one with no text too: it is done, and is not queued again — so
    is a chunk whose cut fails, logged: it would fail again at every open)."""
    import numpy as np

    texts = [_texts(encoder, s) for s in sources]
    flat = list(dict.fromkeys(t for ts in texts for t in ts))
    vectors = np.ascontiguousarray(encoder.embed(flat), dtype="<f4") if flat else None
    row_of = {t: i for i, t in enumerate(flat)}
    rows: list[SentenceRow] = []
    for s, ts in zip(sources, texts, strict=True):
        block = (vectors[[row_of[t] for t in ts]].tobytes()
                 if vectors is not None and ts else b"")
        rows.append(SentenceRow(s.id, tuple(ts), block))
    return rows


def _texts(encoder: SentenceEncoder, source: ChunkSource) -> list[str]:
    try:
        return encoder.texts(source)
    except Exception as exc:  # an answer then embeds this chunk's sentences itself
        _log.warning("the sentences of chunk %d cannot be cut: %s", source.id, exc)
        return []


def load(store: Store, encoder: SentenceEncoder, chunk_ids: Sequence[int]) -> int:
    """Hand the stored vectors of ``chunk_ids`` to ``encoder``; returns how many texts.
    A row that does not read as its texts' vectors is left out (it only costs speed)."""
    import numpy as np

    found: dict[str, Any] = {}
    for row in store.get_sentence_vectors(encoder.model, chunk_ids):
        if not row.texts or len(row.vectors) != len(row.texts) * encoder.dim * 4:
            continue
        matrix = np.frombuffer(row.vectors, dtype="<f4").reshape(len(row.texts), encoder.dim)
        found.update(zip(row.texts, matrix, strict=True))
    encoder.remember(found)
    return len(found)


def queue_missing(store: Store, *, now: datetime) -> int:
    """Queue the jobs of chunks without sentence vectors (a knowledge base made before
    them, or by a process without the encoder): what opening a knowledge base does, beside
    queueing the chunks without a vector. Returns the jobs queued (0 without an encoder)."""
    encoder = sentence_encoder()
    return 0 if encoder is None else store.queue_sentence_vectors(encoder.model, now=now)
