"""Static embeddings in model2vec's format: a vector per vocabulary token, no transformer.

A text's vector is the mean of its tokens' rows, L2-normalised — a table lookup and a sum,
so embedding runs at the tokenizer's speed (thousands of chunks per second on one core)
instead of the transformer's (tens). The price is quality: word order and context are gone,
what is left is a well-weighted bag of sub-words (see ``bench/README.md`` "Ingest" for the
numbers next to MiniLM).

The folder layout is model2vec's (``StaticModel.from_pretrained`` loads it, and this class
loads what model2vec saves): ``model.safetensors`` with one float tensor ``embeddings``
(vocabulary × dim), ``tokenizer.json`` (a Hugging Face tokenizer) and ``config.json``.
Tokens are taken without special tokens and unknown tokens are dropped, as model2vec does.
The safetensors file is read with numpy alone (its format is a JSON header and raw
little-endian arrays), so neither ``safetensors`` nor ``model2vec`` is needed to run it.

Heavy imports (numpy, tokenizers) happen inside functions so ``import citewise`` stays light.
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["StaticEmbedder", "read_safetensors", "safetensors_shapes", "write_safetensors"]

#: safetensors dtype names ↔ numpy little-endian dtypes (the ones this module writes/reads).
_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I8": "i1", "I32": "<i4", "I64": "<i8"}

#: Texts are cut at this many tokens, like model2vec's default ``max_length``; a chunk of
#: 800 characters is ~130–200 tokens, so nothing citewise writes is cut.
MAX_TOKENS = 512
#: Texts embedded at once (their gathered token rows, ~256 x 200 x 1 kB = 50 MB, are the peak).
_BLOCK = 256


def _header(data: bytes, path: str | Path) -> tuple[dict[str, Any], int]:
    """The JSON header of a safetensors file and where its data starts."""
    bad = ConfigError(f"not a safetensors file: {path}", code="embedding_model_invalid",
                      details={"path": str(path)})
    if len(data) < 8:
        raise bad
    (size,) = struct.unpack("<Q", data[:8])
    try:
        header = json.loads(data[8 : 8 + size])
    except ValueError as exc:
        raise bad from exc
    if not isinstance(header, dict):
        raise bad
    return header, 8 + size


def safetensors_shapes(path: str | Path) -> dict[str, list[int]]:
    """Each tensor's shape, from the header alone (the data is not read)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"embedding model file not found: {p}", code="embedding_model_missing",
                          details={"path": str(p)})
    with p.open("rb") as f:
        head = f.read(8)
        size = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
        header, _ = _header(head + f.read(min(size, 100_000_000)), p)
    return {k: list(v["shape"]) for k, v in header.items() if k != "__metadata__"}


def read_safetensors(path: str | Path) -> dict[str, NDArray[Any]]:
    """Every tensor of a ``.safetensors`` file as a numpy array (copied out of the file)."""
    import numpy as np

    data = Path(path).read_bytes()
    header, base = _header(data, path)
    out: dict[str, NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec.get("dtype", ""))
        if dtype is None:
            raise ConfigError(
                f"unsupported tensor type {spec.get('dtype')!r} in {path}",
                code="embedding_model_invalid", details={"path": str(path), "tensor": name},
            )
        start, end = spec["data_offsets"]
        arr = np.frombuffer(data, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize,
                            offset=base + start)
        out[name] = arr.reshape(spec["shape"]).copy()
    return out


def write_safetensors(
    path: str | Path, tensors: Mapping[str, NDArray[Any]], metadata: Mapping[str, str] | None = None
) -> None:
    """Write ``tensors`` as a ``.safetensors`` file (the format model2vec and HF read)."""
    import numpy as np

    names = {np.dtype(v): k for k, v in _DTYPES.items()}
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    blobs: list[bytes] = []
    offset = 0
    for name, arr in tensors.items():
        a = np.ascontiguousarray(arr)
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        blob = a.tobytes()
        header[name] = {"dtype": names[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the format pads the header to 8 bytes
    with Path(path).open("wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


class StaticEmbedder:
    """A model2vec-format static model: mean of token vectors, then L2 norm. Thread-safe.

    ``name`` must identify the table: vectors are stored under it, so two different tables
    (another source model, dimension or weighting) need different names.
    """

    def __init__(self, model_dir: str | Path, *, name: str) -> None:
        self.model_dir = Path(model_dir)
        self.name = name
        self._config()
        shape = safetensors_shapes(self.model_dir / "model.safetensors").get("embeddings")
        if shape is None or len(shape) != 2:
            raise ConfigError(
                f"{self.model_dir} has no 2-d 'embeddings' tensor",
                code="embedding_model_invalid", details={"path": str(self.model_dir)},
            )
        self.dim: int = shape[1]
        self._lock = threading.Lock()
        self._table: Any = None
        self._tokenizer: Any = None
        self._unk: int | None = None

    def _config(self) -> dict[str, Any]:
        path = self.model_dir / "config.json"
        if not path.is_file():
            raise ConfigError(
                f"static embedding model not found: {self.model_dir}",
                code="embedding_model_missing", details={"path": str(self.model_dir)},
            )
        try:
            config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ConfigError(f"{path} is not JSON", code="embedding_model_invalid",
                              details={"path": str(path)}) from exc
        return config

    def _load(self) -> None:
        with self._lock:
            if self._table is not None:
                return
            import numpy as np
            from tokenizers import Tokenizer

            tensors = read_safetensors(self.model_dir / "model.safetensors")
            table = tensors.get("embeddings")
            if table is None or table.ndim != 2:
                raise ConfigError(
                    f"{self.model_dir} has no 2-d 'embeddings' tensor",
                    code="embedding_model_invalid", details={"path": str(self.model_dir)},
                )
            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            if table.shape[0] < tokenizer.get_vocab_size():
                raise ConfigError(
                    f"{self.model_dir}: {table.shape[0]} vectors for a vocabulary of "
                    f"{tokenizer.get_vocab_size()}", code="embedding_model_invalid",
                    details={"path": str(self.model_dir)},
                )
            self.dim = int(table.shape[1])
            self._unk = tokenizer.token_to_id("[UNK]")
            self._tokenizer = tokenizer
            self._table = np.ascontiguousarray(table, dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """A ``(len(texts), dim)`` float32 matrix of unit rows; a text with no known token
        (empty, only symbols the vocabulary lacks) gets the zero vector."""
        import numpy as np

        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # In blocks: the gathered rows of a block (tokens × dim floats) are the peak memory.
        for i in range(0, len(texts), _BLOCK):
            out[i : i + _BLOCK] = self._embed_block(texts[i : i + _BLOCK])
        return out

    def _embed_block(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids_per_text = [e.ids for e in encodings]
        if self._unk is not None:
            unk = self._unk
            ids_per_text = [[i for i in ids if i != unk] for ids in ids_per_text]
        lengths = np.fromiter((len(ids) for ids in ids_per_text), dtype=np.int64,
                              count=len(ids_per_text))
        flat = np.fromiter((i for ids in ids_per_text for i in ids), dtype=np.int64,
                           count=int(lengths.sum()))
        nonempty = lengths > 0
        if flat.size:
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
            out[nonempty] = np.add.reduceat(self._table[flat], starts, axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        result: NDArray[np.float32] = np.divide(
            out, norms, out=np.zeros_like(out), where=norms > 0
        ).astype(np.float32, copy=False)
        return result
