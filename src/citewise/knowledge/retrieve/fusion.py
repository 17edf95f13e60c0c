"""Hybrid ranking: fusing lexical and dense results, and a reranker seam.

BM25 scores and cosines live on different scales, so a fusion method either ignores the
scores (ranks only) or puts them on a common scale first. :func:`fuse` offers four, chosen
by name (``Retriever(fusion=...)``, ``KnowledgeBase.open(fusion=...)``):

``"rrf"`` — reciprocal rank fusion (Cormack et al., 2009): ``sum_i w_i / (k + rank_i)``
  (rank 1 = best, ``k = 60``). Needs no calibration, but a clear winner and a near-tie
  look the same to it.
``"rsf"`` — relative score fusion (Weaviate's default hybrid fusion since 1.24): each
  retriever's scores min-max normalised over its own candidates to 0..1 (best = 1,
  worst = 0, not retrieved = 0), then their weighted mean.
``"dbsf"`` — distribution-based score fusion (Qdrant's DBSF): each retriever's scores
  mapped to 0..1 between mean - 3 sd and mean + 3 sd of its candidates (clipped; not
  retrieved = 0), then their weighted mean. Unlike min-max, a lone outlier does not
  squash the rest.
``"zscore"`` — each retriever's scores as z-scores over its candidates (not retrieved =
  that retriever's lowest z), then their weighted mean (CombSUM of z-scores, Montague &
  Aslam 2001).

Weights are relative: the score-based methods divide by their sum, so ``rsf`` and
``dbsf`` scores stay in 0..1 (two zero weights make every score 0). A retriever whose
candidates all score the same (one candidate, or ties) gives every candidate 1 and the
rest 0. Every method is O(candidates).
The relevance bench (``bench/relevance.py``) compares them with cross-validated weights;
the default (:data:`DEFAULT_FUSION`, ``"rsf"`` with weights 1:1) is the one that won there.
With ``rsf`` a hit's score reads directly: 1.0 = the top candidate of both retrievers,
0.5 = the top of one and not retrieved (or the bottom candidate) by the other.

A :class:`Reranker` (off by default) rescores the fused head with a model that reads
query and passage together. No cross-encoder ships with citewise; :class:`CrossEncoderReranker`
runs a local ONNX cross-encoder (e.g. an exported ms-marco-MiniLM) from a path you give.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from citewise.errors import ConfigError

__all__ = [
    "DEFAULT_FUSION",
    "FUSION_METHODS",
    "RRF_K",
    "CrossEncoderReranker",
    "Fused",
    "FusionMethod",
    "Reranker",
    "Row",
    "check_fusion",
    "fuse",
    "fuse_rows",
    "fused",
    "rerank",
    "rrf",
]

#: The constant of reciprocal rank fusion (the value of the original paper).
RRF_K = 60

FusionMethod = Literal["rrf", "rsf", "dbsf", "zscore"]
FUSION_METHODS: tuple[FusionMethod, ...] = ("rrf", "rsf", "dbsf", "zscore")
#: The fusion a hybrid search uses unless told otherwise: relative score fusion had the
#: best cross-validated nDCG@10 over both layouts of the relevance bench (``bench/README.md``,
#: "Relevance"; z-score fusion was a hair behind, RRF clearly last).
DEFAULT_FUSION: FusionMethod = "rsf"


@dataclass(frozen=True, slots=True)
class Fused:
    """One fused result: its fused score and where each retriever ranked it (1-based).

    ``score`` is what the fusion method computed (see the module docstring): for ``rrf``
    the sum of ``w / (k + rank)``; for ``rsf`` and ``dbsf`` the weighted mean of the
    normalised scores, in 0..1; for ``zscore`` the weighted mean of z-scores. Within one
    search, higher is better; across methods the numbers are not comparable.
    ``lexical_score`` / ``dense_score`` are the raw BM25 score and cosine.
    """

    chunk_id: int
    score: float
    lexical_rank: int | None = None
    dense_rank: int | None = None
    lexical_score: float | None = None
    dense_score: float | None = None
    rerank_score: float | None = None


def check_fusion(
    method: str, *, k: int = RRF_K, lexical_weight: float = 1.0, dense_weight: float = 1.0
) -> FusionMethod:
    """``method`` as a :data:`FusionMethod`, or a ``ConfigError`` (``invalid_fusion``)."""
    if method not in FUSION_METHODS:
        raise ConfigError(
            f"fusion must be one of {', '.join(FUSION_METHODS)}, got {method!r}",
            code="invalid_fusion",
        )
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"rrf k must be an integer >= 1, got {k!r}", code="invalid_fusion")
    weights = (lexical_weight, dense_weight)
    if not all(math.isfinite(w) and w >= 0 for w in weights):
        raise ConfigError(
            f"fusion weights must be finite and non-negative, got {weights}",
            code="invalid_fusion",
        )
    return method


#: One fused candidate before it becomes a :class:`Fused`: ``(-score, chunk_id, score,
#: lexical_rank, dense_rank, lexical_score, dense_score)``. A hybrid search ranks ~100
#: candidates and returns ~10: ranking plain tuples and building the frozen dataclass for
#: the returned head only is several times cheaper than a ``Fused`` per candidate.
Row = tuple[float, int, float, int | None, int | None, float | None, float | None]


def _first_ranks(results: Sequence[tuple[int, float]]) -> dict[int, tuple[int, float]]:
    """``chunk_id -> (rank, score)``; a chunk listed twice counts at its best rank only."""
    out: dict[int, tuple[int, float]] = {}
    for rank, (cid, score) in enumerate(results, start=1):
        if cid not in out:
            out[cid] = (rank, score)
    return out


def _parts(
    method: FusionMethod, ranked: dict[int, tuple[int, float]], weight: float, k: int
) -> tuple[dict[int, float], float]:
    """Each candidate's weighted part of the fused score (for ``rrf`` ``w / (k + rank)``,
    else the weighted normalised score), and the part of a chunk the retriever did not
    return."""
    if method == "rrf":
        return {cid: weight / (k + r) for cid, (r, _) in ranked.items()}, 0.0
    scores = [s for _, s in ranked.values()]
    if not scores:
        return {}, 0.0
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12 * max(1.0, abs(hi)):
        return dict.fromkeys(ranked, weight), 0.0  # no spread: every candidate 1, the rest 0
    if method == "rsf":
        scale = weight / (hi - lo)
        return {cid: (s - lo) * scale for cid, (_, s) in ranked.items()}, 0.0
    n = len(scores)
    mu = sum(scores) / n
    sd = math.sqrt(sum([(x - mu) * (x - mu) for x in scores]) / n)
    if sd <= 1e-12 * max(1.0, abs(mu)):  # rounding left no spread after all
        return dict.fromkeys(ranked, weight), 0.0
    if method == "zscore":
        scale = weight / sd
        # not retrieved: no better than the worst candidate the retriever did return
        return {cid: (s - mu) * scale for cid, (_, s) in ranked.items()}, (lo - mu) * scale
    # dbsf: mean - 3 sd -> 0, mean + 3 sd -> 1, clipped (at most ~0.3% of a normal
    # distribution lies outside, so clipping only tames outliers)
    offset, scale = mu - 3.0 * sd, 1.0 / (6.0 * sd)
    out: dict[int, float] = {}
    for cid, (_, s) in ranked.items():
        x = (s - offset) * scale
        out[cid] = 0.0 if x <= 0.0 else weight if x >= 1.0 else weight * x
    return out, 0.0


def fuse_rows(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    *,
    method: FusionMethod = DEFAULT_FUSION,
    k: int = RRF_K,
    lexical_weight: float = 1.0,
    dense_weight: float = 1.0,
) -> list[Row]:
    """:func:`fuse` as :data:`Row` tuples, best first (``fused(row)`` makes one a
    :class:`Fused`); the same ranking and the same scores, bit for bit."""
    method = check_fusion(method, k=k, lexical_weight=lexical_weight, dense_weight=dense_weight)
    lex = _first_ranks(lexical)
    den = _first_ranks(dense)
    lex_part, lex_floor = _parts(method, lex, lexical_weight, k)
    den_part, den_floor = _parts(method, den, dense_weight, k)
    total = 1.0 if method == "rrf" else (lexical_weight + dense_weight) or 1.0
    rows: list[Row] = []
    append = rows.append
    for cid, (rank, raw) in lex.items():
        dr = den.get(cid)
        if dr:
            score = (lex_part[cid] + den_part[cid]) / total
            append((-score, cid, score, rank, dr[0], raw, dr[1]))
        else:
            score = (lex_part[cid] + den_floor) / total
            append((-score, cid, score, rank, None, raw, None))
    for cid, (rank, raw) in den.items():
        if cid not in lex:
            score = (lex_floor + den_part[cid]) / total
            append((-score, cid, score, None, rank, None, raw))
    rows.sort(key=_FIRST)  # stable: ties keep first-seen (lexical, then dense) order
    return rows


_FIRST = itemgetter(0)


def fused(row: Row) -> Fused:
    """The :class:`Fused` of one :func:`fuse_rows` row."""
    # Positional on purpose: keyword construction of the frozen dataclass costs about
    # twice as much.
    return Fused(row[1], row[2], row[3], row[4], row[5], row[6])


def fuse(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    *,
    method: FusionMethod = DEFAULT_FUSION,
    k: int = RRF_K,
    lexical_weight: float = 1.0,
    dense_weight: float = 1.0,
    limit: int | None = None,
) -> list[Fused]:
    """Fuse two best-first ``(chunk_id, score)`` lists with ``method``, best first.

    ``k`` is used by ``rrf`` only. Ties keep lexical order first, then dense order. Each
    :class:`Fused` keeps both retrievers' ranks and raw scores.
    """
    rows = fuse_rows(
        lexical, dense, method=method, k=k,
        lexical_weight=lexical_weight, dense_weight=dense_weight,
    )
    return [fused(r) for r in (rows[:limit] if limit is not None else rows)]


def rrf(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    *,
    k: int = RRF_K,
    lexical_weight: float = 1.0,
    dense_weight: float = 1.0,
    limit: int | None = None,
) -> list[Fused]:
    """Reciprocal rank fusion: ``fuse(..., method="rrf")``.

    Kept for callers of the first API.
    """
    return fuse(
        lexical, dense, method="rrf", k=k,
        lexical_weight=lexical_weight, dense_weight=dense_weight, limit=limit,
    )


# -- reranking ------------------------------------------------------------------------------


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, passage) pairs together; higher is more relevant."""

    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


def rerank(
    query: str,
    fused: Sequence[Fused],
    texts: dict[int, str],
    reranker: Reranker,
    *,
    top_n: int = 50,
) -> list[Fused]:
    """Reorder the first ``top_n`` of ``fused`` by ``reranker``; the rest keep their order
    below them. Candidates without text are left where fusion put them (after the rest)."""
    head = [f for f in fused[:top_n] if f.chunk_id in texts]
    missing = [f for f in fused[:top_n] if f.chunk_id not in texts]
    if not head:
        return list(fused)
    scores = reranker.score(query, [texts[f.chunk_id] for f in head])
    if len(scores) != len(head):
        raise ConfigError(
            f"reranker {reranker.name!r} returned {len(scores)} scores for {len(head)} passages",
            code="reranker_failed",
        )
    rescored = [
        Fused(
            chunk_id=f.chunk_id,
            score=f.score,
            lexical_rank=f.lexical_rank,
            dense_rank=f.dense_rank,
            lexical_score=f.lexical_score,
            dense_score=f.dense_score,
            rerank_score=float(s),
        )
        for f, s in zip(head, scores, strict=True)
    ]
    # stable: equal reranker scores keep the fused order
    rescored.sort(key=lambda f: -(f.rerank_score or 0.0))
    return [*rescored, *missing, *fused[top_n:]]


class CrossEncoderReranker:
    """A local ONNX cross-encoder (BERT-style inputs; one logit, or two for [no, yes]).

    ``model_path`` is the ``.onnx`` file; ``tokenizer_path`` its ``tokenizer.json``
    (default: beside the model). Scores are ``sigmoid(logit)`` in 0..1.
    """

    def __init__(
        self,
        model_path: str | Path,
        tokenizer_path: str | Path | None = None,
        *,
        max_tokens: int = 512,
        batch_size: int = 16,
        threads: int = 2,
    ) -> None:
        self.model_path = Path(model_path)
        self.tokenizer_path = (
            Path(tokenizer_path) if tokenizer_path else self.model_path.with_name("tokenizer.json")
        )
        for what, path in (("model", self.model_path), ("tokenizer", self.tokenizer_path)):
            if not path.is_file():
                raise ConfigError(
                    f"cross-encoder {what} not found: {path}",
                    code="reranker_model_missing",
                    details={"path": str(path)},
                )
        self.name = f"cross-encoder:{self.model_path.stem}"
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: frozenset[str] = frozenset()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(self.tokenizer_path))
            tok.enable_truncation(max_length=self.max_tokens)
            tok.enable_padding()
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self._threads
            opts.log_severity_level = 3
            try:
                session = ort.InferenceSession(
                    str(self.model_path), sess_options=opts, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:  # onnxruntime raises its own exception types
                raise ConfigError(
                    f"cannot load cross-encoder {self.model_path}: {exc}",
                    code="reranker_model_invalid",
                ) from exc
            self._inputs = frozenset(i.name for i in session.get_inputs())
            self._tokenizer, self._session = tok, session

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        import numpy as np

        if not passages:
            return []
        self._load()
        out: list[float] = []
        for b in range(0, len(passages), self.batch_size):
            enc = self._tokenizer.encode_batch([(query, p) for p in passages[b : b + self.batch_size]])
            feeds: dict[str, Any] = {}
            ids = np.asarray([e.ids for e in enc], dtype=np.int64)
            if "input_ids" in self._inputs:
                feeds["input_ids"] = ids
            if "attention_mask" in self._inputs:
                feeds["attention_mask"] = np.asarray([e.attention_mask for e in enc], dtype=np.int64)
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.asarray([e.type_ids for e in enc], dtype=np.int64)
            logits = np.asarray(self._session.run(None, feeds)[0], dtype=np.float64)
            logits = logits.reshape(len(enc), -1)[:, -1]  # [no, yes] → yes; [score] → score
            out.extend(1.0 / (1.0 + math.exp(-float(x))) for x in logits)
        return out
