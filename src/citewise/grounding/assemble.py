"""Turn the model's final text into a verified :class:`Answer`. Runs on every answer.

Steps: split the text into claims (:mod:`.claims`); resolve each marker ``[N]`` against the
run's evidence ledger; pick, per marker, the verbatim window of the cited document that
best supports the claim (the ``excerpt``); check it (:mod:`.verify`); then decide.

* A marker naming no retrieved document, or a document whose snippets fail the verbatim
  check, is **dropped** from the text with a warning — never passed through.
* A marker whose passage shares (almost) nothing with the claim (support below
  ``Verifier.mismatch_threshold``) is a wrong marker: dropped with a warning that names the
  document that would support the claim, when one does.
* A claim that cites nothing gets ``uncited_claim``; one whose citations do not support it
  (or that quotes words its sources do not contain) gets ``unsupported_claim``.
* Default mode *marks*: the sentence stays, ``Answer.claims[i].status`` says what is wrong.
  Strict mode (``RunSettings.strict``) *removes* the sentence from the text (the claim stays
  in ``Answer.claims`` with ``removed`` true). With an output schema nothing is removed —
  removing words would break the JSON — and quotation checks are off (JSON is all quotes).

Sentences that assert nothing checkable — headings, lead-ins ending with ":", "I could not
find that in the documents" — are not claims and need no citation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from citewise._construct import trusted
from citewise.answer import (
    Answer,
    CitationOccurrence,
    Claim,
    DebugTranscript,
    Issue,
    SearchDocument,
    Trajectory,
)
from citewise.grounding.claims import (
    MARKER,
    DraftClaim,
    MarkerGroup,
    mask_json,
    plain_text,
    rebuild,
    says_no_answer,
    split_claims,
)
from citewise.grounding.declines import NO_ANSWER_ISSUE, not_in_sources
from citewise.grounding.relevance import (
    QuestionRelevance,
    noted,
    question_of,
    topical,
)
from citewise.grounding.repeated import excerpt_start, placed
from citewise.grounding.verify import (
    Excerpt,
    VerificationPass,
    Verifier,
    lexical_support,
)

if TYPE_CHECKING:
    from citewise.agent.state import RunSettings, RunState
    from citewise.grounding.ledger import EvidenceLedger

__all__ = ["MARKER", "assemble_answer", "plain_text"]

_DEFAULT = Verifier()
ClaimStatus = Literal["supported", "unsupported", "uncited"]
# The fields an assembled Answer reports as set (``model_fields_set``): those its
# constructor used to be given; kind, status, structured and error keep their defaults.
# The outputs of seed 001 (persona, UI commands, context, audio, image) are the
# RunOutputs hook's to fill, later: defaults here.
_OUTPUTS: dict[str, Any] = {"persona_id": "citewise", "persona": None, "ui_commands": [],
                            "audio": None, "image": None, "conversation": None}
_ANSWER_GIVEN = frozenset(Answer.model_fields) - {"kind", "status", "structured", "error",
                                                  "structured_citations", "answerability",
                                                  "confidence", *_OUTPUTS}


@dataclass(slots=True)
class _Cite:
    """One surviving marker occurrence of a claim, with its chosen excerpt."""

    group: MarkerGroup
    number: int
    excerpt: Excerpt | None = None
    score: float = 0.0  # how much of the claim the excerpt covers (a wrong marker: ~0)
    relevance: float = 1.0  # how much the excerpt addresses the question
    support: float = 0.0  # score × topical(relevance): what the answer reports


def assemble_answer(
    state: RunState,
    text: str,
    *,
    settings: RunSettings,
    ended_by_tool: str | None,
    verifier: Verifier | None = None,
) -> tuple[Answer, list[Issue]]:
    """Build the verified Answer from ``text``; returns it with the issues found.

    ``verifier`` carries the optional document-text provider and embedder; without one,
    snippets are checked against themselves and support is lexical. The issues are also
    appended to ``state.issues`` (the loop turns them into ``warning`` events).
    """
    check = (verifier or _DEFAULT).begin()
    v = check.verifier
    ledger = state.ledger
    structured = settings.output_schema is not None
    drafts = split_claims(mask_json(text) if structured else text)
    issues: list[Issue] = []
    gate = _SnippetGate(check, issues)

    # 1. Resolve every marker; collect candidate excerpts for each (claim, marker).
    cites: list[list[_Cite]] = []
    kept: dict[MarkerGroup, tuple[int, ...]] = {}
    requests: list[tuple[str, list[Excerpt]]] = []
    for d in drafts:
        mine: list[_Cite] = []
        for g in d.markers:
            survivors: list[int] = []
            for n in dict.fromkeys(g.numbers):  # "[1][1]" is one citation
                doc = ledger.document(n)
                if doc is None:
                    issues.append(_issue(
                        "citation_not_retrieved",
                        f"marker [{n}] names no document retrieved in this run "
                        f"({len(ledger.documents)} were); removed",
                        d, marker=n, retrieved=len(ledger.documents)))
                    continue
                if not d.is_claim:
                    issues.append(_issue("citation_without_claim",
                                         f"marker [{n}] is not attached to a claim; removed",
                                         d, marker=n))
                    continue
                usable = gate.usable(n, doc)
                if not usable:
                    issues.append(_issue(
                        "citation_unverifiable",
                        f"marker [{n}]: no passage of {doc.source} is verbatim in the stored "
                        "document; removed", d, marker=n))
                    continue
                survivors.append(n)
                mine.append(_Cite(g, n))
                requests.append((d.text, check.windows(d.text, doc, usable)))
            kept[g] = tuple(survivors)
        cites.append(mine)

    # 2. Score all pairs at once (one embedding batch per answer); a sentence the source
    # repeats is cited where its neighbouring claim's citation is (grounding.repeated).
    flat = [(k, c.number) for k, mine in enumerate(cites) for c in mine]
    best = iter(placed(check.best(requests), [r[1] for r in requests],
                       [n for _, n in flat], [k for k, _ in flat],
                       lambda n, e: excerpt_start(ledger.document(n), e)))
    for mine in cites:
        for c in mine:
            c.excerpt = next(best)
            c.score = check.score(c.excerpt) if c.excerpt is not None else 0.0
    relevance = _score_relevance(state, cites, v)
    if check.embed_error is not None or relevance.embed_error is not None:
        issues.append(Issue(code="support_embedding_failed", severity="info",
                            message="embedding similarity unavailable; support is lexical only",
                            details={"error": check.embed_error or relevance.embed_error}))

    # 3. Decide per claim.
    claims: list[Claim] = []
    keep: list[bool] = []
    claim_cites: list[list[_Cite]] = []
    for d, mine in zip(drafts, cites, strict=True):
        good: list[_Cite] = []
        for c in mine:
            doc = ledger.document(c.number)
            assert doc is not None  # resolved in step 1
            if c.excerpt is None or not check.excerpt_verbatim(
                    doc, doc.snippets[c.excerpt.snippet_index], c.excerpt):
                issues.append(_issue("excerpt_not_verbatim",
                                     f"marker [{c.number}]: the excerpt is not verbatim in "
                                     "the source; removed", d, marker=c.number))
            elif c.score < v.mismatch_threshold:
                issues.append(_mismatch(d, c, ledger, v.support_threshold))
            else:
                good.append(c)
        dropped = {(c.group, c.number) for c in mine} - {(c.group, c.number) for c in good}
        for g in d.markers:
            kept[g] = tuple(n for n in kept.get(g, ()) if (g, n) not in dropped)
        claim_cites.append(good)
        if not d.is_claim:
            keep.append(True)
            continue
        assert d.index is not None
        support = max((c.support for c in good), default=None)
        supported = support is not None and support >= v.support_threshold
        # Every citation verbatim and matching the claim, none about the question.
        off_topic = bool(good) and max(c.relevance for c in good) < relevance.off_topic
        cited_docs = [doc for doc in (ledger.document(n) for n in dict.fromkeys(
            c.number for c in good)) if doc is not None]
        bad_quotes = [] if structured else [
            q for q in d.quotes if not check.quote_found(q, cited_docs)]
        for q in bad_quotes:
            issues.append(_issue("quote_not_in_source",
                                 f"claim {d.index + 1} quotes words that are not in its "
                                 f"sources: \u201c{q}\u201d", d, quote=q))
        status: ClaimStatus
        if not d.numbers:
            status = "uncited"
            issues.append(_issue("uncited_claim", f"claim {d.index + 1} cites no source", d))
        elif supported and not bad_quotes:
            status = "supported"
        elif off_topic and not bad_quotes:
            status = "unsupported"
            issues.append(_issue(
                "off_topic_evidence",
                f"claim {d.index + 1}: the passages it cites do not address the question",
                d, relevance=round(max(c.relevance for c in good), 4),
                support=round(support or 0.0, 4)))
        else:
            status = "unsupported"
            reason = ("quote_not_in_source" if bad_quotes and supported
                      else "no_valid_citation" if not good else "low_support")
            issues.append(_issue(
                "unsupported_claim",
                f"claim {d.index + 1} is not supported by the passages it cites",
                d, reason=reason, support=round(support or 0.0, 4)))
        removed = settings.strict and not structured and status != "supported"
        keep.append(not removed)
        claims.append(trusted(Claim, {
            "index": d.index, "text": d.text, "start_char": None, "end_char": None,
            "status": status, "support": None if support is None else round(support, 4),
            "citation_indices": [], "removed": removed,
        }, {"index", "text", "status", "support", "removed"}))

    # 4. Write the text back and number the citations in reading order.
    final_text, spans = rebuild(text, drafts, keep, kept)
    if claims and all(c.removed for c in claims):
        issues.append(Issue(code="all_claims_removed",
                            message="strict mode removed every claim of the answer",
                            details={"claims": len(claims)}))
    if claims and not any(c.status == "supported" for c in claims) and any(
            good for good, d in zip(claim_cites, drafts, strict=True) if d.is_claim):
        # Verbatim, resolvable citations that bear out no sentence of the answer (any
        # model's): the documents do not answer. Strict mode, left with nothing, says so.
        # Otherwise said in the text too, at its end (the text before it may be streamed).
        final_text = (not_in_sources(question_of(state)) if all(c.removed for c in claims)
                      else noted(final_text))
        issues.append(Issue(code=NO_ANSWER_ISSUE,
                            message="no claim of the answer is supported by the retrieved "
                            "passages: the documents do not appear to answer the question",
                            details={"claims": len(claims), "off_topic": sum(
                                i.code == "off_topic_evidence" for i in issues)}))
    citations: list[CitationOccurrence] = []
    by_index = {c.index: c for c in claims}
    for d, good, span in zip(drafts, claim_cites, spans, strict=True):
        claim = by_index.get(d.index) if d.index is not None else None
        if claim is not None and span is not None:
            claim.start_char, claim.end_char = span
        if span is None or claim is None:
            continue
        for c in good:
            assert c.excerpt is not None
            doc = ledger.document(c.number)
            assert doc is not None
            claim.citation_indices.append(len(citations))
            citations.append(_occurrence(len(citations), c, doc, d.index))
    if not citations and not any(i.code == NO_ANSWER_ISSUE for i in issues) and any(
            not d.is_claim and says_no_answer(d.text) for d in drafts):
        issues.append(Issue(code=NO_ANSWER_ISSUE, severity="info",
                            message="the retrieved passages do not answer the question; "
                            "nothing is cited (the closest passages are in search_documents)",
                            details={"retrieved": len(ledger.documents)}))
    state.issues.extend(issues)
    # Every part below is typed and was validated where it entered the run (or is built
    # here): made as validation would make it (the test suite proves it), ~35 k
    # instructions less per answer. Lists are copied, as validation would copy them.
    answer = trusted(Answer, {
        "kind": "answer",
        "status": "completed",
        "run_id": state.run_id,
        "thread_id": state.thread_id,
        "question": state.question,
        "model": state.model,
        "text": final_text,
        "text_plain": plain_text(final_text),
        "citations": citations,
        "claims": claims,
        "search_documents": list(ledger.documents),
        "context_chunk_ids": list(ledger.context_chunk_ids),
        "query": state.query,
        "query_details": state.query_details,
        "reasoning_trace": list(state.trace),
        "usage": state.usage,
        "issues": list(state.issues),
        "ended_by_tool": ended_by_tool, "answerability": None, "confidence": None,
        "structured": None,
        "structured_citations": {},
        "tool_calls": list(state.tool_calls),
        "error": None,
        "trajectory": trusted(Trajectory, {"id": state.run_id, "feedback_token": None}, {"id"}),
        # A failed run is assembled without its settings: the transcript itself says
        # debug was on.
        "debug": DebugTranscript(requests=list(state.debug_requests))
        if settings.debug or state.debug_requests else None,
        **_OUTPUTS, "ui_commands": [],
    }, set(_ANSWER_GIVEN))
    return answer, issues


class _SnippetGate:
    """Mechanical snippet checks, each snippet checked and reported once per answer."""

    def __init__(self, check: VerificationPass, issues: list[Issue]) -> None:
        self.check = check
        self.issues = issues
        self._usable: dict[int, list[int]] = {}

    def usable(self, n: int, doc: SearchDocument) -> list[int]:
        if n in self._usable:
            return self._usable[n]
        out: list[int] = []
        for s_i, snip in enumerate(doc.snippets):
            problem = self.check.snippet_problem(doc, snip)
            if problem is None:
                out.append(s_i)
                continue
            self.issues.append(Issue(
                code=problem,
                message=f"passage {s_i} of document [{n}] ({doc.source}) is not verbatim "
                f"in the stored document ({problem}); it cannot be cited",
                details={"document_index": n, "snippet_index": s_i,
                         "chunk_id": snip.chunk_id},
            ))
        error = self.check.provider_error(doc)
        if error is not None:
            self.issues.append(Issue(
                code="verification_unavailable", severity="info",
                message=f"could not read document [{n}] to verify its passages: {error}",
                details={"document_index": n}))
        self._usable[n] = out
        return out


def _issue(code: str, message: str, d: DraftClaim, **details: Any) -> Issue:
    info: dict[str, Any] = {"claim": d.text}
    if d.index is not None:
        info["claim_index"] = d.index
    info.update(details)
    # Built from this module's own typed values (a checked draft, counts, scores).
    return trusted(Issue, {"code": code, "message": message, "severity": "warning",
                           "details": info}, {"code", "message", "details"})


def _mismatch(d: DraftClaim, c: _Cite, ledger: EvidenceLedger, threshold: float) -> Issue:
    """A wrong marker; name the retrieved document that would support the claim, if any."""
    details: dict[str, Any] = {"marker": c.number, "support": round(c.score, 4)}
    best_n, best_s = 0, threshold
    for n, doc in enumerate(ledger.documents, start=1):
        if n == c.number:
            continue
        s = max((lexical_support(d.text, snip.text) for snip in doc.snippets), default=0.0)
        if s >= best_s:
            best_n, best_s = n, s
    hint = ""
    if best_n:
        details["suggested_document_index"] = best_n
        hint = f" (document [{best_n}] would)"
    return _issue("citation_mismatch",
                  f"marker [{c.number}]: the cited passage does not support the claim{hint}; "
                  "removed", d, **details)


def _occurrence(i: int, c: _Cite, doc: SearchDocument, claim_index: int | None
                ) -> CitationOccurrence:
    ex = c.excerpt
    assert ex is not None
    start = excerpt_start(doc, ex)
    base = None if start is None else start - ex.start
    return CitationOccurrence(
        citation_index=i,
        document_index=c.number,
        snippet_index=ex.snippet_index,
        excerpt=ex.text,
        claim_index=claim_index,
        start_char=start,
        end_char=None if base is None else base + ex.end,
        support=round(c.support, 4),
        anchor=doc.snippets[ex.snippet_index].anchor_at(start),
    )


def _score_relevance(state: RunState, cites: list[list[_Cite]], v: Verifier
                     ) -> QuestionRelevance:
    """Set each citation's relevance to the question and its support (one embedding batch).
    A follow-up is judged against its rewritten form: "and for hashing?" alone names no
    subject."""
    judge = QuestionRelevance(question_of(state), state.ledger.documents, v.relevance_embed)
    scored = [(c, c.excerpt) for mine in cites for c in mine if c.excerpt is not None]
    picks = [(state.ledger.documents[c.number - 1], ex) for c, ex in scored]
    for (c, _), r in zip(scored, judge.excerpt_scores(picks), strict=True):
        c.relevance = r
    for c in (c for mine in cites for c in mine):
        c.support = c.score * topical(c.relevance, judge.off_topic)
    return judge
