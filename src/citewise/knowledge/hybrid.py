"""Hybrid ranking: reciprocal rank fusion of lexical and dense results, and a reranker seam.

RRF (Cormack et al., 2009) scores a document ``sum_i w_i / (k + rank_i)`` over the
rankings it appears in (rank 1 = best, ``k = 60``). It needs no score calibration — BM25
scores and cosines live on different scales — and a document both retrievers agree on
rises above one only a single retriever likes. Per-ranking weights let a deployment lean
on the retriever that suits its documents (the relevance bench in ``bench/`` measures it).

A :class:`Reranker` (off by default) rescores the fused head with a model that reads
query and passage together. No cross-encoder ships with citewise; :class:`CrossEncoderReranker`
runs a local ONNX cross-encoder (e.g. an exported ms-marco-MiniLM) from a path you give.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from citewise.errors import ConfigError

__all__ = [
    "RRF_K",
    "CrossEncoderReranker",
    "Fused",
    "Reranker",
    "rerank",
    "rrf",
]

#: The constant of reciprocal rank fusion (the value of the original paper).
RRF_K = 60


@dataclass(frozen=True, slots=True)
class Fused:
    """One fused result: its RRF score and where each retriever ranked it (1-based)."""

    chunk_id: int
    score: float
    lexical_rank: int | None = None
    dense_rank: int | None = None
    lexical_score: float | None = None
    dense_score: float | None = None
    rerank_score: float | None = None


def rrf(
    lexical: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    *,
    k: int = RRF_K,
    lexical_weight: float = 1.0,
    dense_weight: float = 1.0,
    limit: int | None = None,
) -> list[Fused]:
    """Fuse two best-first ``(chunk_id, score)`` lists. Ties keep lexical order first.

    A chunk listed twice in one list counts at its best rank only.
    """
    if k < 1 or lexical_weight < 0 or dense_weight < 0:
        raise ConfigError("rrf needs k >= 1 and non-negative weights", code="invalid_fusion")
    lex_rank: dict[int, tuple[int, float]] = {}
    for rank, (cid, score) in enumerate(lexical, start=1):
        lex_rank.setdefault(cid, (rank, score))
    dense_rank: dict[int, tuple[int, float]] = {}
    for rank, (cid, score) in enumerate(dense, start=1):
        dense_rank.setdefault(cid, (rank, score))
    order = list(dict.fromkeys([*lex_rank, *dense_rank]))
    fused: list[Fused] = []
    for cid in order:
        lr = lex_rank.get(cid)
        dr = dense_rank.get(cid)
        score = (lexical_weight / (k + lr[0]) if lr else 0.0) + (
            dense_weight / (k + dr[0]) if dr else 0.0
        )
        fused.append(
            Fused(
                chunk_id=cid,
                score=score,
                lexical_rank=lr[0] if lr else None,
                dense_rank=dr[0] if dr else None,
                lexical_score=lr[1] if lr else None,
                dense_score=dr[1] if dr else None,
            )
        )
    position = {cid: i for i, cid in enumerate(order)}
    fused.sort(key=lambda f: (-f.score, position[f.chunk_id]))
    return fused[:limit] if limit is not None else fused


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
