"""Sentence vectors: each chunk's candidate sentences, embedded once, with the chunk.

Why stored: the extractive model compares a question with the sentences of the passages
it retrieved (~16 of them), and embedding those per question was ~65 % of an answer's
time on a 2-core machine (bench/README.md, "Sentences that point back, and where an
answer's time goes"). They depend on the chunk alone, not on the question, so the chunk's
embedding job computes them (:mod:`citewise.knowledge.ingest.embed_worker`) and an answer
loads those of the chunks its search returned (:mod:`citewise.knowledge.index.sentences`).

A row is one chunk's texts and their vectors under one model name; the model's user keys
them by text, so a row cut by an older cutter is never wrong, only unused. The SQL is
:mod:`citewise.store._sql_sentences`, the same for SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

__all__ = ["ChunkSource", "SentenceRow", "SentenceVectorRecords"]


@dataclass(frozen=True, slots=True)
class ChunkSource:
    """What a chunk's sentences are cut from: its stored text, role spans and section."""

    id: int
    text: str
    roles: tuple[tuple[int, int, str], ...]
    section: str | None


@dataclass(frozen=True, slots=True)
class SentenceRow:
    """One chunk's sentence texts and their vectors (float32 little-endian, row-major,
    ``len(texts)`` rows)."""

    chunk_id: int
    texts: tuple[str, ...]
    vectors: bytes


class SentenceVectorRecords(Protocol):
    """The store's part: rows of ``sentence_vectors``."""

    def block_sources(self, document_id: str, block: int) -> list[ChunkSource]:
        """The chunks of one embedding job's block, in order, as their sentences are cut."""
        ...

    def sentence_vector_ids(self, model: str, chunk_ids: Sequence[int]) -> set[int]:
        """Those of ``chunk_ids`` that have a row under ``model``."""
        ...

    def put_sentence_vectors(self, model: str, rows: Sequence[SentenceRow]) -> int:
        """Store ``rows`` in one transaction (a chunk deleted meanwhile is skipped, a chunk
        that has a row keeps it); returns how many were written."""
        ...

    def get_sentence_vectors(self, model: str, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        """The rows of ``chunk_ids`` under ``model`` (chunks without one are absent)."""
        ...

    def sentence_vector_counts(self, model: str) -> dict[str, int]:
        """``{tenant: chunks with a row under model}`` (tenants with none are absent)."""
        ...

    def queue_sentence_vectors(self, model: str, *, now: datetime) -> int:
        """Queue an embedding job for every block with a chunk that has no row under
        ``model`` (a knowledge base made before sentence vectors); a block with a job
        already is left as it is. Returns the jobs queued."""
        ...
