"""Turn the model's final text into a verified :class:`Answer`.

Markers ``[N]`` (N = one-based document number in the run's ledger) become ordered
:class:`CitationOccurrence` records whose ``excerpt`` is the verbatim span of the cited
snippet that best supports the claim. Markers that point at nothing are removed and
reported; claims that cite nothing are reported. This runs on every answer of every model.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from citewise.answer import Answer, CitationOccurrence, Issue, Snippet, Trajectory
from citewise.text import overlap, sentence_spans

if TYPE_CHECKING:
    from citewise.agent.state import RunSettings, RunState

__all__ = ["MARKER", "assemble_answer", "best_excerpt", "plain_text"]

MARKER = re.compile(r"\s?\[(\d{1,4})\]")
_MD = re.compile(r"(\*\*|__|`|^#{1,6}\s+|^\s*[-*+]\s+|^\s*>\s?)", re.MULTILINE)
SUPPORT_THRESHOLD = 0.5


def plain_text(text: str) -> str:
    """``text`` without citation markers and markdown emphasis."""
    return _MD.sub("", MARKER.sub("", text)).strip()


def best_excerpt(claim: str, snippet: Snippet) -> tuple[int, int, float]:
    """The sentence span of ``snippet.text`` that best supports ``claim``.

    Returns ``(start, end, score)`` relative to the snippet text; score is term overlap.
    """
    best = (0, len(snippet.text), 0.0)
    for a, b in sentence_spans(snippet.text):
        score = overlap(claim, snippet.text[a:b])
        if score > best[2]:
            best = (a, b, score)
    return best


def assemble_answer(
    state: RunState, text: str, *, settings: RunSettings, ended_by_tool: str | None
) -> tuple[Answer, list[Issue]]:
    """Build the Answer from ``text``; returns it with the issues found on the way."""
    issues: list[Issue] = []
    ledger = state.ledger
    cleaned: list[str] = []
    citations: list[CitationOccurrence] = []
    kept_sentences: list[str] = []
    for claim_index, (a, b) in enumerate(sentence_spans(text)):
        sentence = text[a:b]
        claim = MARKER.sub("", sentence).strip()
        sentence_cits: list[CitationOccurrence] = []

        def keep(m: re.Match[str], claim: str = claim, claim_index: int = claim_index,
                 out: list[CitationOccurrence] = sentence_cits) -> str:
            n = int(m.group(1))
            doc = ledger.document(n)
            if doc is None or not doc.snippets:
                issues.append(Issue(
                    code="invalid_citation_marker",
                    message=f"marker [{n}] does not refer to a retrieved document; removed",
                    details={"marker": n, "claim_index": claim_index},
                ))
                return ""
            s_i, (s, e, score) = max(
                ((i, best_excerpt(claim, snip)) for i, snip in enumerate(doc.snippets)),
                key=lambda x: x[1][2],
            )
            snip = doc.snippets[s_i]
            base = snip.source.start_char if snip.source else 0
            out.append(CitationOccurrence(
                citation_index=0, document_index=n, snippet_index=s_i,
                excerpt=snip.text[s:e], claim_index=claim_index,
                start_char=base + s, end_char=base + e, support=round(score, 4),
            ))
            return m.group(0)

        new_sentence = MARKER.sub(keep, sentence)
        supported = any((c.support or 0.0) >= SUPPORT_THRESHOLD for c in sentence_cits)
        if claim and not sentence_cits:
            issues.append(Issue(
                code="uncited_claim",
                message=f"claim {claim_index + 1} cites no source",
                details={"claim_index": claim_index, "claim": claim},
            ))
        elif sentence_cits and not supported:
            issues.append(Issue(
                code="unsupported_claim",
                message=f"claim {claim_index + 1} is not supported by the passages it cites",
                details={"claim_index": claim_index, "claim": claim,
                         "support": max(c.support or 0.0 for c in sentence_cits)},
            ))
        if settings.strict and (not sentence_cits or not supported):
            continue
        kept_sentences.append(new_sentence)
        citations.extend(sentence_cits)
    final_text = " ".join(kept_sentences) if settings.strict else _rebuild(text, issues)
    for i, c in enumerate(citations):
        c.citation_index = i
    cleaned.append(final_text)
    state.issues.extend(issues)
    answer = Answer(
        run_id=state.run_id,
        thread_id=state.thread_id,
        question=state.question,
        model=state.model,
        text=final_text,
        text_plain=plain_text(final_text),
        citations=citations,
        search_documents=ledger.documents,
        context_chunk_ids=list(ledger.context_chunk_ids),
        query=state.query,
        query_details=state.query_details,
        reasoning_trace=list(state.trace),
        usage=state.usage,
        issues=list(state.issues),
        ended_by_tool=ended_by_tool,
        tool_calls=list(state.tool_calls),
        trajectory=Trajectory(id=state.run_id),
    )
    return answer, issues


def _rebuild(text: str, issues: list[Issue]) -> str:
    """``text`` with invalid markers removed (valid ones untouched)."""
    bad = {i.details["marker"] for i in issues if i.code == "invalid_citation_marker"}
    if not bad:
        return text
    return MARKER.sub(lambda m: "" if int(m.group(1)) in bad else m.group(0), text)
