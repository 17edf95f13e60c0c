"""Measure answers on your own knowledge base: ``citewise eval`` and ``bench/answers.py``.

Why it exists: a citation can be exact (the quote is verbatim at its offsets) and still
quote the wrong sentence. Only labelled questions tell the two apart, and only the user's
own documents tell whether citewise answers *their* questions. This module is the one
definition of the metrics, shared by the CLI and the bench, so a number in
``bench/README.md`` and a user's number mean the same thing.

A question file is JSON Lines, one object per line::

    {"id": "q1", "question": "How long do refunds take?",
     "expected": ["Refunds are paid within 14 days."],   # or "unanswerable"
     "kind": "limits", "document": "policies/refunds.md", "split": "tune"}

``expected`` lists sentences of the stored text that answer the question (any one is
enough). ``kind``, ``document`` (the expected source: the stored source exactly, or a
trailing part of its path such as the file name) and ``split`` are optional.

**Matching, precisely.** Text is compared with every run of whitespace collapsed to one
space, a table's cell separator (" | ") counting as one, and Markdown's links, code spans
and emphasis read as a rendered page shows them ("[GPL](https://…)" is "GPL",
"`csv`" is "csv", "*must*" is "must"; nothing else is normalised: case, quotes and punctuation count). A
citation's *sentence* is the stored text of its document around its offsets, extended on
both sides to sentence boundaries (:func:`sentence_extent`: a blank line, a list bullet at
the start of a line, or ``.``/``!``/``?`` — optionally closed by a quote or bracket —
followed by whitespace and a character that is not lower case; a single line break is not
a boundary, nor is the full stop of "e.g.", "i.e.", "vs." or "cf."), and not past the
start of a list item the loader marked in the cited passage, nor of a table's row
(:func:`item_bounded`: HTML lists are stored without bullets, one item a line, and each
item is quoted alone, so one item's citation is that item, not the list glued into a
sentence; a row is quoted alone too, and a row without a full stop is not its neighbours'
sentence — Jinja's review, 2026-12-05, saw one row's quote matched as six). An expected
sentence is **matched** by a citation when, in the cited document, an occurrence of it is
covered by the citation's sentence for at least :data:`MATCH_COVERAGE` (half) of its
characters and the citation's own characters are partly inside it — so a citation that
contains it, equals it or quotes a part of it matches, and one that quotes a neighbouring
sentence does not (even where no boundary splits the two, as before a sentence starting in
lower case). An expected sentence that the question's ``document`` holds matches there
only: CMake's pages for the C, C++, CUDA … standards share their sentences word for word,
and the C page's copy answers no C++ question.

Metrics (over the questions that have a label of that kind):

* **evidence@1** — the first citation matches an expected sentence (answerable questions);
* **evidence@any** — some citation does;
* **document@1** — the first citation's document is the expected ``document``;
* an answer **abstains** when it has no citation or its ``issues`` carry
  ``no_answer_in_sources``; **abstention precision** = abstentions on unanswerable
  questions / abstentions, **recall** = the same / unanswerable questions, and **false
  abstention** = abstentions on answerable questions / answerable questions;
* **weak evidence** — of the answers given (not abstaining), those flagged
  ``weak_evidence`` and the share of them that are wrong (an unanswerable question, or a
  first citation that is not the answer), beside the same share of the unflagged: a flag
  worth reading is wrong far more often than the rest;
* **latency** — wall time of each ``Agent.ask``, p50 and p99 by nearest rank.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewise.evaluation_match import (
    MATCH_COVERAGE,
    covered,
    item_bounded,
    locate,
    normalised,
    sentence_extent,
    shown,
    source_matches,
)
from citewise.evaluation_questions import (
    UNANSWERABLE,
    EvalQuestion,
    label_forms,
    load_questions,
    parse_questions,
)
from citewise.evaluation_questions import (
    norm as _norm,
)
from citewise.evaluation_texts import StoredTexts
from citewise.grounding.declines import NO_ANSWER_ISSUE, declined
from citewise.grounding.weak_evidence import WEAK_EVIDENCE

if TYPE_CHECKING:
    from citewise.answer import Answer, CitationOccurrence
    from citewise.knowledge.base import KnowledgeBase

__all__ = [
    "ABSTAIN_ISSUE",
    "MATCH_COVERAGE",
    "UNANSWERABLE",
    "WEAK_ISSUE",
    "EvalQuestion",
    "QuestionResult",
    "StoredTexts",
    "abstained",
    "evaluate",
    "item_bounded",
    "load_questions",
    "locate",
    "metrics",
    "missing_labels",
    "parse_questions",
    "score_answer",
    "sentence_extent",
    "summarise",
]

#: The issue code with which an answer says its sources do not answer the question.
ABSTAIN_ISSUE = NO_ANSWER_ISSUE
#: The issue code with which an answer says its evidence is weak (answered all the same).
WEAK_ISSUE = WEAK_EVIDENCE
#: Asked once before the timed questions (see :func:`evaluate`).
WARM_UP = "What are these documents about?"



@dataclass(slots=True)
class QuestionResult:
    """How one answer scored. The booleans are None where the metric does not apply."""

    id: str
    question: str
    kind: str | None
    split: str | None
    answerable: bool
    abstained: bool
    evidence_at_1: bool | None
    evidence_any: bool | None
    document_at_1: bool | None
    latency_ms: float
    citations: int
    first_source: str | None = None
    first_sentence: str | None = None
    issues: list[str] = field(default_factory=list)
    error: str | None = None
    answerability: float | None = None  # the model's estimates (``Answer.answerability``,
    confidence: float | None = None  # ``Answer.confidence``)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _citation_match(answer: Answer, c: CitationOccurrence, expected: Sequence[str],
                    texts: StoredTexts, document: str | None = None) -> tuple[bool, str | None, str]:
    """Whether citation ``c`` matches an expected sentence (a sentence of the question's
    ``document`` only there); its source and sentence."""
    doc = answer.search_documents[c.document_index - 1]
    if document is not None and not source_matches(doc.source, document):
        own = texts.of(document)  # a copy of a sentence of its own answers another question
        expected = [e for e in expected if own is None or not locate(own[0], e, index=own[1])]
    got = texts.get(str(doc.document.get("id", "")))
    if got is None:  # the document is gone: compare the excerpt alone
        quote = _norm(c.excerpt)
        ok = any(form in quote or (quote in form and len(quote) >= MATCH_COVERAGE * len(form))
                 for e in expected for form in label_forms(e))
        return ok, doc.source, c.excerpt
    text, index = got
    if c.start_char is not None and c.end_char is not None:
        span = (c.start_char, c.end_char)
    else:  # no offsets: where the excerpt is in the text, if it is
        found = locate(text, c.excerpt, index=index)
        span = found[0] if found else (0, 0)
    extent = sentence_extent(text, *span) if span[1] > span[0] else span
    terms: list[int] = []
    if span[1] > span[0] and c.snippet_index is not None and c.snippet_index < len(doc.snippets):
        chunk = doc.snippets[c.snippet_index].chunk_id
        extent = item_bounded(text, extent, span, texts.item_starts(chunk))
        terms = texts.term_ends(chunk)
    # The quote itself must be part of the occurrence: its sentence, widened over a next
    # one that starts in lower case ("… (3 hours). max-ncache-ttl cannot exceed …"), is
    # not the answer when the characters quoted are all in the sentence before (BIND's
    # review, 2026-12-05; one bench question of 1,024 matched so).
    ok = any(covered(extent, occ) >= MATCH_COVERAGE
             and (span[1] <= span[0] or min(span[1], occ[1]) > max(span[0], occ[0]))
             for e in expected for occ in locate(text, e, index=index))
    # Shown as stored, its whitespace collapsed: not as matched (``_norm`` drops markdown's
    # backticks, and a Sphinx page's ":py:meth:`~Queue.get`" is text that has them —
    # eval showed ":py:meth:~Queue.get" beside ask's quote; review, 2026-12-06).
    return ok, doc.source, shown(text, extent, span, terms) or c.excerpt


def abstained(answer: Answer) -> bool:
    """Whether the answer says the documents do not answer: no citation, or the issue
    (:func:`citewise.grounding.declines.declined`)."""
    return declined(answer)


def score_answer(q: EvalQuestion, answer: Answer, texts: StoredTexts | KnowledgeBase,
                 latency_ms: float) -> QuestionResult:
    """Score one answer against its question's labels."""
    if not isinstance(texts, StoredTexts):
        texts = StoredTexts(texts)
    abst = abstained(answer)
    r = QuestionResult(id=q.id, question=q.question, kind=q.kind, split=q.split,
                       answerable=q.answerable, abstained=abst, evidence_at_1=None,
                       evidence_any=None, document_at_1=None, latency_ms=round(latency_ms, 2),
                       citations=len(answer.citations),
                       issues=sorted({i.code for i in answer.issues}),
                       error=answer.error.code if answer.error is not None else None,
                       answerability=answer.answerability, confidence=answer.confidence)
    matches = [_citation_match(answer, c, q.expected or (), texts, q.document)
               for c in answer.citations]
    if matches:
        r.first_source, r.first_sentence = matches[0][1], matches[0][2]
    if q.expected is not None:
        r.evidence_at_1 = bool(matches) and matches[0][0] and not abst
        r.evidence_any = any(m[0] for m in matches) and not abst
        if q.document is not None:
            r.document_at_1 = (bool(matches) and not abst and matches[0][1] is not None
                               and source_matches(matches[0][1], q.document))
    return r


def missing_labels(kb: KnowledgeBase, questions: Sequence[EvalQuestion],
                   absent: dict[str, str] | None = None,
                   elsewhere: dict[str, list[tuple[str, str]]] | None = None,
                   ambiguous: dict[str, list[str]] | None = None,
                   ) -> dict[str, list[str]]:
    """Expected sentences found nowhere they can match: ``{question id: [sentence, …]}``.
    A label that is not in the stored text can never be matched, so it is a broken label —
    or its document is not stored at all (not ingested, or its ingest failed): those
    questions' ids and documents go into ``absent``. A label that is not in the question's
    named ``document`` but in another document can match a citation of that one (only a
    sentence the named document holds is bound to it): not missing, but said in
    ``elsewhere`` (``{question id: [(sentence, its first document's source), …]}``), as
    document@1 still asks for the named one (Doxygen's review, 2026-12-06: "they cannot
    match" was said of a label that matched). A ``document`` that names several stored
    documents ("index.html" of six folders) goes into ``ambiguous`` with their sources:
    document@1 counts a citation of any of them (rsyslog's review, 2026-12-07)."""
    docs: list[tuple[str, str]] = []
    offset = 0
    while True:
        page = kb.list_documents(limit=500, offset=offset)
        docs += [(d.source, normalised(d.text)[0]) for d in page]
        if len(page) < 500:
            break
        offset += 500
    out: dict[str, list[str]] = {}
    for q in questions:
        named = [(src, flat) for src, flat in docs
                 if q.document is None or source_matches(src, q.document)]
        pool = [flat for _, flat in named]
        if q.document is not None and len(named) > 1 and ambiguous is not None:
            ambiguous[q.id] = [src for src, _ in named]
        lost = [e for e in q.expected or () if not any(
            form in flat for flat in pool for form in label_forms(e))]
        if pool and q.document is not None:
            found = {e: next((src for src, flat in docs
                              if any(form in flat for form in label_forms(e))), None)
                     for e in lost}
            lost = [e for e in lost if found[e] is None]
            moved = [(e, src) for e, src in found.items() if src is not None]
            if moved and elsewhere is not None:
                elsewhere[q.id] = moved
        if lost:
            out[q.id] = lost
            if not pool and q.document is not None and absent is not None:
                absent[q.id] = q.document
    return out


# -- running and summarising ------------------------------------------------------------


def evaluate(kb: KnowledgeBase, questions: Sequence[EvalQuestion], *,
             model: str = "extractive", strict: bool = False, warm_up: bool = True,
             progress: Callable[[int, int], None] | None = None,
             on_answer: Callable[[EvalQuestion, Answer, float], None] | None = None,
             texts: StoredTexts | None = None) -> list[QuestionResult]:
    """Ask every question with ``Agent(kb, model=…)`` and score the answers.

    The runs are recorded in a scratch store in a temporary folder, not in the knowledge
    base's own: measuring must not fill the user's threads with a few hundred runs. With
    ``warm_up`` a question that is none of them (:data:`WARM_UP`) is asked first, unscored
    and untimed, so the latencies are those of a running process (the embedder loaded)
    rather than of a cold start, and no question gains from a cache the warm-up filled.
    ``on_answer(question, answer, latency_ms)`` sees each answer once it is scored (the
    bench scores it a second time against other labels, through the same ``texts``).
    """
    from citewise.agent.runner import Agent
    from citewise.agent.state import RunSettings
    from citewise.store.sqlite import SQLiteStore

    texts = StoredTexts(kb) if texts is None else texts
    results: list[QuestionResult] = []
    with tempfile.TemporaryDirectory(prefix="citewise-eval-") as tmp:
        store = SQLiteStore(Path(tmp) / "runs.db")
        try:
            agent = Agent(kb, model=model, store=store, settings=RunSettings(strict=strict))
            if warm_up:
                agent.ask(WARM_UP)
            for n, q in enumerate(questions, 1):
                t0 = time.perf_counter()
                answer = agent.ask(q.question)
                ms = (time.perf_counter() - t0) * 1000
                results.append(score_answer(q, answer, texts, ms))
                if on_answer is not None:
                    on_answer(q, answer, ms)
                if progress is not None:
                    progress(n, len(questions))
        finally:
            store.close()
    return results


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _percentile(values: Sequence[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)], 2)


def metrics(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """The metrics of one group of results (see the module docstring)."""
    ans = [r for r in results if r.answerable]
    una = [r for r in results if not r.answerable]
    docs = [r for r in ans if r.document_at_1 is not None]
    abst = [r for r in results if r.abstained]
    lat = [r.latency_ms for r in results]
    # Answers given, flagged ``weak_evidence`` or not, and how often each is wrong: the
    # first quote not the answer, or a question the documents do not answer.
    weak = [r for r in results if not r.abstained and WEAK_ISSUE in r.issues]
    sure = [r for r in results if not r.abstained and WEAK_ISSUE not in r.issues]
    return {
        "questions": len(results),
        "answerable": len(ans),
        "unanswerable": len(una),
        "evidence_at_1": _ratio(sum(bool(r.evidence_at_1) for r in ans), len(ans)),
        "evidence_any": _ratio(sum(bool(r.evidence_any) for r in ans), len(ans)),
        "document_at_1": _ratio(sum(bool(r.document_at_1) for r in docs), len(docs)),
        "with_document": len(docs),
        "abstained": len(abst),
        "abstention_precision": _ratio(sum(not r.answerable for r in abst), len(abst)),
        "abstention_recall": _ratio(sum(r.abstained for r in una), len(una)),
        "false_abstention": _ratio(sum(r.abstained for r in ans), len(ans)),
        "weak_flagged": len(weak),
        "weak_wrong": _ratio(sum(not r.evidence_at_1 for r in weak), len(weak)),
        "unflagged_wrong": _ratio(sum(not r.evidence_at_1 for r in sure), len(sure)),
        "errors": sum(r.error is not None for r in results),
        "latency_ms_p50": _percentile(lat, 50),
        "latency_ms_p99": _percentile(lat, 99),
    }


def summarise(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """``{"all": …, "by_kind": {kind: …}, "by_split": {split: …}}`` of :func:`metrics`."""
    def grouped(key: Callable[[QuestionResult], str | None]) -> dict[str, Any]:
        names = sorted({k for r in results if (k := key(r)) is not None})
        return {n: metrics([r for r in results if key(r) == n]) for n in names}

    return {"all": metrics(results), "by_kind": grouped(lambda r: r.kind),
            "by_split": grouped(lambda r: r.split)}
