"""The fusion choice travels from ``KnowledgeBase.open(fusion=...)`` / ``Retriever(fusion=...)``
to the ranking, over a real knowledge base (SQLite + tantivy + vectors in tmp_path).

A deterministic bag-of-words embedder stands in for MiniLM so the tests are fast; what is
tested is the plumbing and the scores a hybrid hit carries, not embedding quality."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import ConfigError
from citewise.knowledge.base import KnowledgeBase
from citewise.knowledge.retrieve.fusion import DEFAULT_FUSION, FUSION_METHODS, fuse
from citewise.knowledge.retrieve.retriever import Retriever

DOCS = {
    "refunds.txt": "Refunds\n\nMoney for returned goods is paid back within fourteen days.",
    "shipping.txt": "Shipping\n\nParcels leave the warehouse every weekday; delivery is free.",
    "security.txt": "Security\n\nLock the screen when leaving the desk. Passwords rotate yearly.",
    "garden.txt": "Garden\n\nTomatoes need full sun and regular watering in summer.",
    "returns.txt": "Returns\n\nReturned goods must be unused; refunds go to the original card.",
}


class BagOfWords:
    """A deterministic fake embedder (hashed words), the same in every process."""

    name = "fake-bow-fusion"
    dim = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.full((len(texts), self.dim), 1e-3, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(map(ord, word.strip(".,;"))) % self.dim] += 1.0
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    src = tmp_path / "docs"
    src.mkdir()
    for name, text in DOCS.items():
        (src / name).write_text(text, encoding="utf-8")
    return src


@pytest.fixture
def kb(tmp_path: Path, docs: Path) -> Iterator[KnowledgeBase]:
    base = KnowledgeBase.open(tmp_path / "kb", embedder=BagOfWords(), fusion="zscore")
    assert base.ingest([docs]).ok
    yield base
    base.close()


def test_knowledge_base_passes_its_fusion_to_every_search(kb: KnowledgeBase) -> None:
    assert kb.fusion == "zscore" and kb.for_tenant("other").fusion == "zscore"
    assert kb.dense is not None
    query = "refunds for returned goods"
    found = kb.retrieve(query, k=3)
    assert found.mode == "hybrid" and found.hits
    # the same two candidate lists, fused by hand with the chosen method, rank the same
    retriever = Retriever(kb.store, kb.index, kb.dense)
    lex = [(h.chunk_id, h.score) for h in retriever.retrieve(query, k=50, mode="lexical").hits]
    den = [(h.chunk_id, h.score) for h in retriever.retrieve(query, k=50, mode="dense").hits]
    want = fuse(lex, den, method="zscore", limit=3)
    assert [h.chunk_id for h in found.hits] == [f.chunk_id for f in want]
    assert [h.score for h in found.hits] == pytest.approx([f.score for f in want])


def test_default_fusion_scores_are_in_0_1_and_keep_provenance(
    tmp_path: Path, docs: Path
) -> None:
    base = KnowledgeBase.open(tmp_path / "kb2", embedder=BagOfWords())
    try:
        assert base.ingest([docs]).ok
        assert base.fusion == DEFAULT_FUSION == "rsf"
        found = base.retrieve("refunds returned goods money", k=5)
        assert found.hits and all(0.0 <= h.score <= 1.0 for h in found.hits)
        for hit, fused in zip(found.hits, found.fused, strict=True):
            assert hit.chunk_id == fused.chunk_id and hit.score == fused.score
            assert fused.lexical_rank is not None or fused.dense_rank is not None
        top = found.fused[0]
        # the best hit is first for both retrievers here, so it scores exactly 1.0
        assert top.lexical_rank == 1 and top.dense_rank == 1 and top.score == pytest.approx(1.0)
        assert top.lexical_score is not None and top.lexical_score > 1.0  # raw BM25 kept
        assert top.dense_score is not None and 0.0 < top.dense_score <= 1.0  # raw cosine kept
    finally:
        base.close()


def test_each_method_is_selectable_on_the_retriever(kb: KnowledgeBase) -> None:
    rankings = {}
    for method in FUSION_METHODS:
        retriever = Retriever(kb.store, kb.index, kb.dense, fusion=method)
        assert retriever.fusion == method
        rankings[method] = [h.chunk_id for h in retriever.search("refunds returned goods", k=3)]
        assert rankings[method], method
    assert Retriever(kb.store, kb.index, kb.dense).fusion == DEFAULT_FUSION


def test_bad_fusion_is_refused_before_anything_opens(tmp_path: Path, kb: KnowledgeBase) -> None:
    with pytest.raises(ConfigError) as err:
        KnowledgeBase.open(tmp_path / "never", fusion="borda")  # type: ignore[arg-type]
    assert err.value.code == "invalid_fusion"
    assert not (tmp_path / "never").exists()
    for kwargs in ({"fusion": "borda"}, {"rrf_k": 0}, {"dense_weight": -1.0}):
        with pytest.raises(ConfigError) as err2:
            Retriever(kb.store, kb.index, kb.dense, **kwargs)
        assert err2.value.code == "invalid_fusion", kwargs


def test_concurrent_dense_search_ranks_exactly_as_inline(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hybrid search runs its vector search on a pool thread beside the lexical one
    (with two or more cores); with the pool off it runs inline. Both must give the same
    hits, fused ranks and counts, and an error in the vector search must still surface."""
    from citewise.knowledge.retrieve import retriever as retrieval

    assert kb.dense is not None
    retriever = Retriever(kb.store, kb.index, kb.dense, fusion="rsf")
    queries = ["refunds for returned goods", "free delivery weekday", "screen passwords", "sun"]
    calls: list[int] = []
    real_submit = retrieval._submit_dense

    def counting(*args: object) -> object:
        calls.append(1)
        return real_submit(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(retrieval, "_submit_dense", counting)
    monkeypatch.setattr(retrieval, "_cores", lambda: 2)
    monkeypatch.setattr(retrieval, "_pool", None)
    pooled = [retriever.retrieve(q, k=4) for q in queries]
    assert len(calls) == len(queries) and retrieval._pool is not None
    monkeypatch.setattr(retrieval, "_dense_pool", lambda: None)
    inline = [retriever.retrieve(q, k=4) for q in queries]
    for a, b in zip(pooled, inline, strict=True):
        assert a.hits and a.hits == b.hits and a.fused == b.fused
        assert (a.retrieved, a.compared) == (b.retrieved, b.compared)

    def broken(*args: object, **kwargs: object) -> list[tuple[int, float]]:
        raise RuntimeError("vector search failed")

    monkeypatch.undo()  # the pool again
    monkeypatch.setattr(retrieval, "_cores", lambda: 2)
    monkeypatch.setattr(kb.dense, "search", broken)
    with pytest.raises(RuntimeError, match="vector search failed"):
        retriever.retrieve("refunds", k=2)
