"""Every ranking the extractive model makes, written down for study offline.

Used by ``bench/answers.py --capture FILE`` (and read by ``bench/rerank_offline.py``): each
call of the evidence ranking appends one JSON line — the question as scored, every
candidate sentence with its source, role, passage rank, context and score parts, and the
answerability of the ranking. The model's behaviour is unchanged (the functions it calls
are wrapped, not replaced), so a captured run is also a normal bench run. Re-scoring a
capture with other weights takes a second; a bench run takes minutes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["capturing"]


@contextmanager
def capturing(path: Path) -> Iterator[None]:
    import citewise.models.extractive as extractive

    rank, answerability = extractive.rank, extractive.answerability
    out = path.open("w", encoding="utf-8")
    last: dict[str, Any] = {}

    def ranked(question: str, sentences: Any, *, semantic: Any = None) -> Any:
        scored = rank(question, sentences, semantic=semantic)
        last.clear()
        last.update(question=question, scored=[
            {"text": x.sentence.text, "source": x.sentence.source, "role": x.sentence.role,
             "rank": x.sentence.rank, "before": x.sentence.before, "score": x.score,
             "parts": dict(x.parts)} for x in scored])
        return scored

    def answerable(question: str, scored: Any, observations: Any) -> float:
        value = float(answerability(question, scored, observations))
        out.write(json.dumps({**last, "answerability": value}, ensure_ascii=False) + "\n")
        return value

    extractive.rank, extractive.answerability = ranked, answerable  # type: ignore[assignment]
    try:
        yield
    finally:
        extractive.rank, extractive.answerability = rank, answerability  # type: ignore[assignment]
        out.close()
