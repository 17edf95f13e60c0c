"""Of two sentences much alike in meaning, the one from the passage the search put first
is quoted: three new-user reviews of one session (coverage.py, Ghostscript, ImageMagick,
2026-12-08) saw the answer quote a lower passage's sentence while the first passage held
the answer (gs04, gs08, cv10, im15, im17, im26). The passage's rank weighs 0.03 a place,
was 0.015: evidence@1 on the tune split's captured rankings 624 → 632 of 1,231, held out
745 → 757 (bench/README.md)."""

from __future__ import annotations

from collections.abc import Sequence

from citewise.models.sentence_candidates import candidates
from citewise.models.sentence_rank import rank

FIRST = "The cache is written to disk when the program exits normally."
LOWER = "The cache is saved to disk whenever the program ends."


def _passages() -> list[dict[str, object]]:
    filler = [{"text": f"Unrelated passage number {i} about fonts.", "source": f"p{i}.html",
               "title": f"Page {i}", "document_index": i + 2} for i in range(4)]
    return [{"results": [
        {"text": FIRST, "source": "manual.html", "title": "Manual", "document_index": 1},
        *filler,
        {"text": LOWER, "source": "notes.html", "title": "Notes", "document_index": 9}]}]


def test_a_near_tie_in_meaning_goes_to_the_passage_searched_first() -> None:
    sentences = candidates(_passages())
    ranks = {s.text: s.rank for s in sentences}
    assert ranks[FIRST] == 0 and ranks[LOWER] == 5

    def scorer(question: str, texts: Sequence[str]) -> list[float]:
        # The lower passage's sentence is a little more like the question in meaning.
        return [0.55 if t == LOWER else 0.40 if t == FIRST else 0.1 for t in texts]

    best = rank("What happens to the cache when the program stops?", sentences,
                semantic=scorer)[0]
    assert best.sentence.text == FIRST
