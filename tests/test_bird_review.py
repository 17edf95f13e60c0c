"""What a new user met on BIRD's user's guide (Debian's ``bird2-doc``, review of
2026-12-06): its RPKI options each end with the same sentence, "A keyword keep suppresses
updating this value by a cache server.", then their own default. An answer that quoted
``expire``'s sentence and "Default: 7200 seconds" cited ``refresh``'s copy of the sentence,
the first one in the passage, so the citation said refresh defaults to 7200 seconds."""

from __future__ import annotations

from pathlib import Path

from tests._answers import ask_over

SAME = "A keyword keep suppresses updating this value by a cache server."
PAGE = f"""# RPKI

refresh [keep] num

Time to wait before polling the cache again. {SAME}
Default: 3600 seconds

retry [keep] num

Time between a failed query and the next attempt. {SAME}
Default: 600 seconds

expire [keep] num

Received records are deleted if the client could not refresh data for this time period.
{SAME}
Default: 7200 seconds
"""
def test_a_repeated_sentence_is_cited_where_the_answer_took_it_beside_its_neighbour(
        tmp_path: Path) -> None:
    answer = ask_over(tmp_path, {"rpki.md": PAGE},
                      "How long are received records kept when the cache cannot be refreshed, "
                      "by default?")
    assert [c.excerpt for c in answer.citations] == [SAME, "Default: 7200 seconds"]
    first, default = answer.citations
    copies = [i for i in range(len(PAGE)) if PAGE.startswith(SAME, i)]
    assert len(copies) == 3
    # expire's copy, the one right before its default: not refresh's, the first.
    assert first.start_char == copies[2] and default.start_char == PAGE.index("Default: 7200")
    assert PAGE[first.start_char:first.end_char] == SAME  # verbatim at its offsets


def test_a_repeated_excerpt_moves_only_beside_a_neighbour_found_in_one_place() -> None:
    from dataclasses import replace

    from citewise.grounding.repeated import placed
    from citewise.grounding.verify import Excerpt

    def ex(start: int, text: str) -> Excerpt:
        return Excerpt(0, start, start + len(text), text, 1.0)

    copies = [ex(10, SAME), ex(200, SAME), ex(400, SAME)]
    after = ex(300, "It is a default.")

    def at(_number: int, e: Excerpt) -> int:
        return e.start

    # Alone, or beside another document's claim, it stays at the first copy.
    assert placed([copies[0]], [copies], [1], [0], at) == [copies[0]]
    assert placed([copies[0], after], [copies, [after]], [1, 2], [0, 1], at)[0] == copies[0]
    # Beside a neighbour found in one place: the copy nearest it, on either side (an answer
    # may quote a section backwards: "Alpha is ignored … This value is read once …").
    assert placed([copies[0], after], [copies, [after]], [1, 1], [0, 1], at)[0] == copies[1]
    near = ex(350, "It is a default.")
    assert placed([near, copies[0]], [[near], copies], [1, 1], [0, 1], at)[1] == copies[2]
    # The similarity an embedder gave the chosen copy goes with the words.
    scored = replace(copies[0], semantic=0.8)
    moved = placed([scored, after], [copies, [after]], [1, 1], [0, 1], at)[0]
    assert moved is not None and (moved.start, moved.semantic) == (200, 0.8)
    # A neighbour found in several places itself anchors nothing.
    twice = [after, ex(500, "It is a default.")]
    assert placed([copies[0], after], [copies, twice], [1, 1], [0, 1], at)[0] == copies[0]


def test_a_repeated_sentence_quoted_after_its_neighbour_stays_in_its_section() -> None:
    """The answer's order need not be the page's: quoting alpha's last sentence, then its
    repeated one, must cite alpha's copy, not beta's that comes after (code review)."""
    from citewise.agent.state import RunSettings, RunState
    from citewise.grounding.assemble import assemble_answer
    from citewise.grounding.verify import Verifier
    from citewise.knowledge.retrieve.hits import Hit

    read = "This value is read once at startup."
    page = (f"## alpha\n\nAlpha sets the retry budget. {read}\n\nAlpha is ignored in passive "
            f"mode.\n\n## beta\n\nBeta sets the backoff. {read}\n\nBeta doubles after each "
            "failure.\n")
    state = RunState(run_id="r", thread_id="t", question="When is alpha read and ignored?")
    state.ledger.add([Hit(chunk_id=1, document_id="d", source="/kb/p.md", text=page,
                          start_char=0, end_char=len(page), field_length=len(page), score=1.0)])
    answer, _ = assemble_answer(state, f"Alpha is ignored in passive mode. [1] {read} [1]",
                                settings=RunSettings(), ended_by_tool=None,
                                verifier=Verifier(document_text=lambda _: page))
    assert [c.start_char for c in answer.citations] == [page.index("Alpha is ignored"),
                                                       page.index(read)]
