"""Every ranking the extractive model makes, written down for study offline.

Used by ``bench/answers.py --capture FILE`` (and read by ``bench/rerank_offline.py``): each
call of the evidence ranking appends one JSON line — the question as scored, every
candidate sentence with its source, role, passage rank, context and score parts, the
answerability of the ranking and the retrieved passages' text. The model's behaviour is
unchanged (the functions it calls are wrapped, not replaced), so a captured run is also a
normal bench run. Re-scoring a capture with other weights takes a second; a bench run
takes minutes.
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

    # The module's own names, looked up as the model looks them up (through its globals).
    names = vars(extractive)
    rank, answerability = names["rank"], names["answerability"]
    out = path.open("w", encoding="utf-8")
    last: dict[str, Any] = {}

    def ranked(question: str, sentences: Any, *, semantic: Any = None) -> Any:
        scored = rank(question, sentences, semantic=semantic)
        last.clear()
        last.update(question=question, scored=[
            {"text": x.sentence.text, "quote": x.sentence.quote or x.sentence.text,
             "source": x.sentence.source, "role": x.sentence.role,
             "rank": x.sentence.rank, "before": x.sentence.before,
             "section": x.sentence.section, "score": x.score,
             "parts": dict(x.parts)} for x in scored])
        return scored

    def answerable(question: str, scored: Any, observations: Any, unmentioned: Any = ()) -> float:
        value = float(answerability(question, scored, observations, unmentioned))
        # The retrieved passages too: a labelled sentence in them but in no candidate is a
        # sentence the candidates lost (a term glued to it was one, session 16).
        passages = [{"source": str(r.get("source", "")), "text": str(r.get("text", "")),
                     "section": str(r.get("section") or "")}
                    for o in observations for r in o.get("results", [])]
        out.write(json.dumps({**last, "answerability": value, "passages": passages,
                              "unmentioned": list(unmentioned),
                              "reported": [w for o in observations
                                           for w in o.get("unmentioned") or ()]},
                             ensure_ascii=False) + "\n")
        return value

    names.update(rank=ranked, answerability=answerable)
    try:
        yield
    finally:
        names.update(rank=rank, answerability=answerability)
        out.close()
