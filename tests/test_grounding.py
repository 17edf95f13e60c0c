"""Grounding: every answer's citations are verified before the user sees them.

Each bad case — a non-retrieved document, a wrong marker, a quote not in the source, a
snippet that is not verbatim in its document, an unsupported or uncited claim — is caught,
reported as a ``warning`` event and an ``Answer.issues`` entry, and (strict) removed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from citewise.agent.context import RunContext
from citewise.agent.loop import run_agent
from citewise.agent.state import RunSettings, RunState
from citewise.agent.tools import ToolResult, Toolset, tool
from citewise.answer import Answer
from citewise.events import Event
from citewise.grounding.assemble import assemble_answer
from citewise.grounding.claims import split_claims
from citewise.grounding.verify import Verifier, lexical_support
from citewise.knowledge.retrieve.hits import Hit
from citewise.models.base import UserMessage
from citewise.models.scripted import ScriptedModel, call, thought

DOCS = {
    "doc-refunds": (
        "Refund policy\n\nRefunds are issued within 5 business days of the return. "
        "Items bought on sale cannot be refunded. Store credit never expires."
    ),
    "doc-shipping": (
        "Shipping is free for orders above 75 EUR. Parcels leave the warehouse in Lyon "
        "every weekday at noon."
    ),
}
SOURCES = {"doc-refunds": "/kb/refunds.md", "doc-shipping": "/kb/shipping.md"}


def hit(doc_id: str, chunk_id: int, text: str | None = None, *,
        start: int | None = None) -> Hit:
    """A hit on the whole document (or on ``text`` placed at ``start``)."""
    full = DOCS[doc_id]
    body = full if text is None else text
    a = 0 if start is None else start
    return Hit(chunk_id=chunk_id, document_id=doc_id, source=SOURCES[doc_id], text=body,
               start_char=a, end_char=a + len(body), field_length=len(full), score=1.0,
               title=doc_id)


@tool
def lookup(ctx: RunContext, query: str) -> ToolResult:
    """Find passages.

    Args:
        query: what to look for
    """
    ctx.ledger.add([hit("doc-refunds", 11), hit("doc-shipping", 22)])
    return ToolResult(text="[1] refunds\n[2] shipping", data={"query": query})


def run(answer_text: str, *, strict: bool = False, debug: bool = False) -> list[Event]:
    model = ScriptedModel([[thought("look it up"), call("lookup", query="refunds")],
                           answer_text])
    question = "How do refunds and shipping work?"  # the answers below cover both
    state = RunState(run_id="run_g", thread_id="thr_g", question=question,
                     messages=[UserMessage(content=question)])

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=Toolset([lookup]),
                                           settings=RunSettings(strict=strict, debug=debug))]

    return asyncio.run(go())


def final(events: list[Event]) -> Answer:
    last = events[-1]
    assert last.kind == "run_finished", last
    return last.answer


def warnings(events: list[Event]) -> list[str]:
    return [e.code for e in events if e.kind == "warning"]


def streamed_text(events: list[Event]) -> str:
    return "".join(e.text for e in events if e.kind == "answer_delta")


GOOD = "Refunds are issued within 5 business days [1]."
SHIP = "Shipping is free for orders above 75 EUR [2]."


# -- a correct answer --------------------------------------------------------------------


def test_correct_answer_passes_without_warnings() -> None:
    events = run(f"{GOOD} {SHIP}")
    answer = final(events)
    assert warnings(events) == [] and answer.issues == []
    assert answer.text == f"{GOOD} {SHIP}"
    assert [c.document_index for c in answer.citations] == [1, 2]
    assert [c.citation_index for c in answer.citations] == [0, 1]
    first, second = answer.citations
    # the excerpt is the claim-specific sentence, verbatim at its offsets in the document
    assert first.excerpt == "Refunds are issued within 5 business days of the return."
    assert second.excerpt == "Shipping is free for orders above 75 EUR."
    for c in answer.citations:
        doc_id = answer.search_documents[c.document_index - 1].document["id"]
        assert c.start_char is not None and c.end_char is not None
        assert DOCS[doc_id][c.start_char : c.end_char] == c.excerpt
        assert c.support is not None and c.support >= 0.5
    assert [(c.index, c.status, c.citation_indices) for c in answer.claims] == [
        (0, "supported", [0]), (1, "supported", [1])]
    span = answer.claims[1]
    assert span.start_char is not None and span.end_char is not None
    assert answer.text[span.start_char : span.end_char] == SHIP
    # context (every chunk shown) and citations (what the answer rests on) stay apart
    assert answer.context_chunk_ids == [11, 22]
    assert [e.kind for e in events].count("citation") == 2


def test_one_document_cited_for_two_claims_and_marker_lists() -> None:
    text = ("Refunds are issued within 5 business days.[1] Items bought on sale cannot be "
            "refunded [1, 2].")
    answer = final(run(text))
    # "[1, 2]": doc 2 (shipping) shares nothing with the sale claim → dropped as wrong
    assert [c.document_index for c in answer.citations] == [1, 1]
    assert answer.citations[1].excerpt == "Items bought on sale cannot be refunded."
    assert answer.text.endswith("cannot be refunded [1].")
    assert answer.text == text.replace("[1, 2]", "[1]")
    assert [i.code for i in answer.issues] == ["citation_mismatch"]


# -- the four bad cases, caught, warned and (strict) removed -----------------------------

BAD = {
    # [3]: only two documents were retrieved
    "not_retrieved": ("Store credit never expires [3].",
                      ["citation_not_retrieved", "unsupported_claim"]),
    # [2] is the shipping document; the claim is about refunds (document 1)
    "wrong_marker": ("Items bought on sale cannot be refunded [2].",
                     ["citation_mismatch", "unsupported_claim"]),
    # the words match, the quotation does not: "hours" is not in the source
    "quote": ('Refunds are issued "within 5 business hours" [1].',
              ["quote_not_in_source", "unsupported_claim"]),
    # cites a real, relevant document but says more than it does
    "unsupported": ("Refunds are issued by the finance team in Berlin [1].",
                    ["unsupported_claim"]),
    "uncited": ("Refunds are issued within 5 business days.", ["uncited_claim"]),
    "wrong_number": ("Refunds are issued within 9 business days [1].", ["unsupported_claim"]),
    "negation": ("Items bought on sale can be refunded [1].", ["unsupported_claim"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_claim_is_warned_and_marked(case: str) -> None:
    bad, codes = BAD[case]
    events = run(f"{GOOD} {bad}")
    answer = final(events)
    assert warnings(events) == codes
    assert [i.code for i in answer.issues] == codes
    assert all(i.details["claim_index"] == 1 for i in answer.issues)
    assert answer.claims[0].status == "supported"
    assert answer.claims[1].status != "supported" and not answer.claims[1].removed
    # default mode marks: the sentence stays (bad markers do not)
    assert answer.text.startswith(GOOD) and len(answer.text) > len(GOOD)
    assert "[3]" not in answer.text
    if "citation_mismatch" in codes:
        assert "[2]" not in answer.text
        mismatch = next(i for i in answer.issues if i.code == "citation_mismatch")
        assert mismatch.details["suggested_document_index"] == 1


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_claim_is_removed_in_strict_mode(case: str) -> None:
    bad, codes = BAD[case]
    events = run(f"{GOOD} {bad}", strict=True)
    answer = final(events)
    assert warnings(events) == codes
    assert answer.text == GOOD
    assert streamed_text(events) == GOOD  # strict streams only the verified text
    assert [c.document_index for c in answer.citations] == [1]
    removed = answer.claims[1]
    assert removed.removed and removed.start_char is None and removed.citation_indices == []


def test_markdown_answer_in_llm_style() -> None:
    text = ("Based on the documents:\n\n1. Refunds are issued within 5 business days of "
            "the return. [1]\n2. Items bought on sale cannot be refunded [1][3].\n\n"
            "Parcels leave the warehouse in Lyon every weekday at noon.[2] Store credit "
            "expires after a year [1].")
    events = run(text)
    answer = final(events)
    assert warnings(events) == ["citation_not_retrieved", "unsupported_claim"]
    assert [(c.status, c.citation_indices) for c in answer.claims] == [
        ("supported", [0]), ("supported", [1]), ("supported", [2]), ("unsupported", [3])]
    assert answer.text == text.replace("[1][3]", "[1]")
    strict = final(run(text, strict=True))
    assert strict.text == text.replace("[1][3]", "[1]").replace(
        " Store credit expires after a year [1].", "")


def test_strict_keeps_paragraphs_apart() -> None:
    text = f"{GOOD}\n\nThe moon is made of cheese [1].\n\n{SHIP}"
    answer = final(run(text, strict=True))
    assert answer.text == f"{GOOD}\n\n{SHIP}"
    assert [c.citation_index for c in answer.citations] == [0, 1]


def test_strict_removing_everything_says_so() -> None:
    events = run("The moon is made of cheese [1].", strict=True)
    answer = final(events)
    assert answer.text == ""
    assert warnings(events)[-1] == "all_claims_removed"


def test_abstention_heading_and_lead_in_are_not_claims() -> None:
    from citewise.models.extractive import NO_ANSWER

    for text in (NO_ANSWER, "## Refunds\nAccording to the handbook:\n\n- " + GOOD,
                 f"{GOOD} I hope this helps! Let me know if you need more."):
        events = run(text, strict=True)
        # Saying the documents do not answer is reported as such, and is no claim.
        assert warnings(events) == (["no_answer_in_sources"] if text == NO_ANSWER else []), text
        assert final(events).text == text


# -- mechanical checks against the stored document text ----------------------------------


def state_with(*hits: Hit) -> RunState:
    state = RunState(run_id="run_m", thread_id="thr_m", question="q")
    state.ledger.add(hits)
    return state


def test_snippet_not_verbatim_at_its_offsets_cannot_be_cited() -> None:
    # The tool claims a passage sits at 0..N of the document; the document says otherwise.
    forged = "Refunds are issued within 1 business day of the return."
    state = state_with(hit("doc-refunds", 11, forged, start=15))
    text = "Refunds are issued within 1 business day of the return [1]."
    verifier = Verifier(document_text=DOCS.get)
    answer, issues = assemble_answer(state, text, settings=RunSettings(),
                                     ended_by_tool=None, verifier=verifier)
    assert [i.code for i in issues] == ["snippet_not_verbatim", "citation_unverifiable",
                                        "unsupported_claim"]
    assert answer.citations == [] and "[1]" not in answer.text
    # without a provider the snippet cannot be checked against the document: it passes
    answer, issues = assemble_answer(state_with(hit("doc-refunds", 11, forged, start=15)),
                                     text, settings=RunSettings(), ended_by_tool=None)
    assert issues == [] and answer.citations[0].excerpt == forged


def test_verbatim_snippet_passes_against_the_document() -> None:
    sentence = "Items bought on sale cannot be refunded."
    start = DOCS["doc-refunds"].index(sentence)
    state = state_with(hit("doc-refunds", 11, sentence, start=start))
    answer, issues = assemble_answer(state, f"{sentence[:-1]} [1].", settings=RunSettings(),
                                     ended_by_tool=None,
                                     verifier=Verifier(document_text=DOCS.get))
    assert issues == []
    c = answer.citations[0]
    assert (c.start_char, c.end_char) == (start, start + len(sentence))


def test_deleted_document_and_broken_provider() -> None:
    state = state_with(hit("doc-refunds", 11))
    _, issues = assemble_answer(state, GOOD, settings=RunSettings(), ended_by_tool=None,
                                verifier=Verifier(document_text=lambda _id: None))
    assert [i.code for i in issues] == ["document_missing", "citation_unverifiable",
                                        "unsupported_claim"]

    def broken(_id: str) -> str:
        raise OSError("disk gone")

    answer, issues = assemble_answer(state_with(hit("doc-refunds", 11)), GOOD,
                                     settings=RunSettings(), ended_by_tool=None,
                                     verifier=Verifier(document_text=broken))
    # cannot verify ≠ wrong: reported as info, the citation stays
    assert [(i.code, i.severity) for i in issues] == [("verification_unavailable", "info")]
    assert len(answer.citations) == 1


def test_snippet_with_inconsistent_offsets_is_refused_even_without_provider() -> None:
    bad = Hit(chunk_id=5, document_id="doc-refunds", source="/kb/refunds.md",
              text="Store credit never expires.", start_char=0, end_char=3,
              field_length=10, score=1.0)
    _, issues = assemble_answer(state_with(bad), "Store credit never expires [1].",
                                settings=RunSettings(), ended_by_tool=None)
    assert issues[0].code == "snippet_offsets_inconsistent"


# -- support score -----------------------------------------------------------------------


def test_lexical_support_heuristic() -> None:
    ev = "Refunds are issued within 5 business days of the return."
    assert lexical_support("Refunds are issued within 5 business days.", ev) == 1.0
    assert lexical_support("Refunds are issued within 7 business days.", ev) < 0.5
    assert lexical_support("Refunds are not issued within 5 business days.", ev) < 0.5
    assert lexical_support("The moon is made of cheese.", ev) == 0.0


def test_embeddings_credit_a_paraphrase() -> None:
    paraphrase = "Money comes back after five working days [1]."
    state = state_with(hit("doc-refunds", 11))
    _, issues = assemble_answer(state, paraphrase, settings=RunSettings(),
                                ended_by_tool=None)
    assert "unsupported_claim" in [i.code for i in issues]  # lexical only: no overlap

    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        # A stand-in embedder that knows the two sentences mean the same thing.
        calls.append(texts)
        same = ("money comes back", "refunds are issued within 5 business days of")
        return [[1.0, 0.0] if t.lower().startswith(same) else [0.0, 1.0] for t in texts]

    answer, issues = assemble_answer(state_with(hit("doc-refunds", 11)), paraphrase,
                                     settings=RunSettings(), ended_by_tool=None,
                                     verifier=Verifier(embed=embed))
    assert issues == []
    assert answer.citations[0].excerpt.startswith("Refunds are issued within 5")
    assert len(calls) == 1  # one batch per answer


def test_failing_embedder_falls_back_to_lexical() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("no model")

    answer, issues = assemble_answer(state_with(hit("doc-refunds", 11)), GOOD,
                                     settings=RunSettings(), ended_by_tool=None,
                                     verifier=Verifier(embed=embed))
    assert [i.code for i in issues] == ["support_embedding_failed"]
    assert answer.claims[0].status == "supported"


# -- structured output, trace, debug ------------------------------------------------------


def test_structured_answer_is_never_cut() -> None:
    text = '{"days": 5, "note": "refunds within 5 business days [1]", "x": "moon [9]"}'
    state = state_with(hit("doc-refunds", 11))
    settings = RunSettings(strict=True, output_schema={"type": "object"})
    answer, issues = assemble_answer(state, text, settings=settings, ended_by_tool=None)
    assert "citation_not_retrieved" in [i.code for i in issues]
    assert answer.text == text.replace(" [9]", "")


def test_reasoning_trace_and_debug_transcript() -> None:
    events = run(GOOD, debug=True)
    answer = final(events)
    thought_step, tool_step, answer_step = answer.reasoning_trace
    assert thought_step.type == "thought" and thought_step.thought == "look it up"
    assert thought_step.input_tokens > 0 and thought_step.duration_ms >= 0
    assert tool_step.type == "tool" and tool_step.tool == "lookup"
    assert tool_step.tool_input == {"query": "refunds"}
    assert tool_step.observation == "[1] refunds\n[2] shipping"
    assert answer_step.type == "answer" and answer_step.output_tokens > 0
    assert answer.debug is not None and len(answer.debug.requests) == 2
    assert answer.debug.requests[1]["messages"][-1]["content"] == "[1] refunds\n[2] shipping"
    assert final(run(GOOD)).debug is None


def test_failed_run_keeps_its_debug_transcript() -> None:
    model = ScriptedModel([call("lookup", query="x")])  # runs out of turns
    state = RunState(run_id="run_f", thread_id="thr_f", question="q")

    async def go() -> list[Event]:
        return [e async for e in run_agent(state, model=model, tools=Toolset([lookup]),
                                           settings=RunSettings(debug=True))]

    last = asyncio.run(go())[-1]
    assert last.kind == "error" and last.answer is not None
    assert last.answer.debug is not None and len(last.answer.debug.requests) == 2


# -- claim splitting -----------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("A claim about refunds. [1] Another about shipping [2].",
     [("A claim about refunds.", [1]), ("Another about shipping.", [2])]),
    ("Refunds take days.[1][2] Shipping is free.",
     [("Refunds take days.", [1, 2]), ("Shipping is free.", [])]),
    ("- refunds take days [1]\n- shipping is free [2]",
     [("refunds take days", [1]), ("shipping is free", [2])]),
    ("See [the guide](http://x) [1].", [("See [the guide](http://x).", [1])]),
])
def test_split_claims(text: str, expected: list[tuple[str, list[int]]]) -> None:
    got: list[tuple[str, Any]] = [(c.text, c.numbers) for c in split_claims(text)
                                  if c.is_claim]
    assert got == expected


def test_structured_answer_is_verified_on_its_string_values_only() -> None:
    """Keys and numbers are not evidence: a value that says nothing sourced is flagged."""
    from citewise.grounding.claims import mask_json

    text = '{"days": 5, "note": "within 5 business days [1]", "other": "The moon is cheese [1]."}'
    masked = mask_json(text)
    assert len(masked) == len(text)
    assert "days" not in masked.replace("business days", "")
    assert "within 5 business days [1]" in masked
