"""Structured answers cite every value: each leaf of ``structured`` is tied to citations.

Asked for ``{"year": integer}``, a model answers ``{"year": 1889}``: no citation marker
has anywhere to go, so the value used to reach the caller with no citation at all. Here
every leaf value — string, number, boolean, date — is linked to the citation(s) it rests on
(``Answer.structured_citations``, a map from JSON Pointer to citation indices), and a value
no retrieved text supports gets an ``unsupported_value`` warning, as a claim would.

A leaf is linked, in this order:

1. a string holding claims (``"… 1889 [1]"``): to those claims' citations (verified as any
   claim is; an unsupported one is already reported as ``unsupported_claim``);
2. otherwise to the sentence that *contains the value* — among the answer's cited excerpts
   first, then among every passage the run retrieved (that sentence becomes a new
   citation, verbatim at its offsets like every other). "Contains" is normalised: numbers
   by value (``1,889`` = ``1889`` = ``1 889``; "five" = 5), dates by calendar day (ISO
   ``1889-03-31`` = "31 March 1889" = "March 31, 1889"), strings up to case and spacing
   (a long string by word coverage, as a claim's support). Of several such sentences, the
   one most about the question and the value's key (``/year`` → "year") wins;
3. a boolean has no words to find: it rests on the sentence most about the question and
   its key, when that sentence addresses them, and a sentence that says "not" stands for
   ``false``. A boolean the best sentence contradicts is unsupported.

A heuristic like every support score: finding 1889 in a sentence about the tower's
completion is evidence, not proof, that the year asked for is 1889.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from citewise.answer import Answer, CitationOccurrence, Issue
from citewise.grounding.claims import plain_text, segments
from citewise.grounding.relevance import (
    OFF_TOPIC_LEXICAL,
    QuestionRelevance,
    neighbours,
    topical,
)
from citewise.grounding.verify import (
    SUPPORT_THRESHOLD,
    Excerpt,
    Verifier,
    excerpt_spans,
    lexical_support,
    negated,
    numbers_in,
)

if TYPE_CHECKING:
    from citewise.grounding.ledger import EvidenceLedger
    from citewise.grounding.verify import VerificationPass

__all__ = ["UNFILLED", "link_values", "pointers", "value_from_quotes"]

#: What :func:`value_from_quotes` returns when the quotes hold no value of the type.
UNFILLED: Any = object()
# A boolean rests on a sentence at least this much about the question and its key.
_BOOLEAN_RELEVANCE = 0.4
_YEAR = re.compile(r"\b(1[0-9]{3}|2[0-9]{3})\b")

def _words(text: str) -> list[str]:
    return text.split()


_MONTHS = {m: i for i, m in enumerate(_words(
    "january february march april may june july august september october november "
    "december"), start=1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MON = r"(january|february|march|april|may|june|july|august|september|october|november|" \
       r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DATES = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "ymd"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON},?\s+(\d{{4}})\b", re.I), "dmy"),
    (re.compile(rf"\b{_MON}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), "mdy"),
    (re.compile(r"\b(\d{4})-(\d{2})\b(?!-)"), "ym"),
    (re.compile(rf"\b{_MON}\s+(\d{{4}})\b", re.I), "my"),
]
_NUMBER_WORDS = {w: i for i, w in enumerate(_words(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"))}
_KEY_SPLIT = re.compile(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])")


@dataclass(slots=True)
class _Sentence:
    document_index: int
    snippet_index: int
    start: int  # in the snippet
    end: int
    text: str
    context: str


def pointers(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of ``value`` with its JSON Pointer (RFC 6901), in document order."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from pointers(v, f"{prefix}/{str(k).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from pointers(v, f"{prefix}/{i}")
    elif value is not None:
        yield prefix, value


def link_values(answer: Answer, value: Any, ledger: EvidenceLedger, question: str,
                verifier: Verifier | None = None) -> list[Issue]:
    """Fill ``answer.structured_citations`` for ``value`` (appending to
    ``answer.citations`` the sentences values rest on that no marker cited); returns the
    ``unsupported_value`` issues, which the caller reports."""
    check = (verifier or Verifier()).begin()
    sentences = _sentences(ledger, check)
    issues: list[Issue] = []
    links: dict[str, list[int]] = {}
    for pointer, leaf in pointers(value):
        key = " ".join(_KEY_SPLIT.split(pointer.rsplit("/", 1)[-1])) if pointer else ""
        found = _claim_citations(answer, leaf) if isinstance(leaf, str) else None
        if found is not None:
            links[pointer] = found
            continue
        # The key joins the question's (last) part: "/year" asks what the question asks.
        judge = QuestionRelevance(f"{question.rstrip().rstrip('?')} {key}".strip(),
                                  ledger.documents)
        cited, why = _find(answer, leaf, sentences, judge)
        links[pointer] = cited
        if not cited:
            issues.append(Issue(
                code="unsupported_value",
                message=f"structured value at {pointer or '/'} ({leaf!r}) is in no "
                        f"retrieved passage{'' if why is None else f' ({why})'}",
                details={"pointer": pointer, "value": leaf, "reason": why or "not_found"}))
    answer.structured_citations = links
    return issues


def _claim_citations(answer: Answer, leaf: str) -> list[int] | None:
    """The citations of the claims written inside the string ``leaf``; None if it holds
    none (then the string itself is looked for in the passages)."""
    # Claims are cut from the JSON text, escapes and all ("…\\n…"): compare both forms.
    body = f"{plain_text(leaf)}\0{plain_text(json.dumps(leaf, ensure_ascii=False)[1:-1])}"
    mine = [c for c in answer.claims if c.text and c.text in body]
    if not mine:
        return None
    out = sorted({i for c in mine for i in c.citation_indices})
    return out if out or not any(c.status == "uncited" for c in mine) else None


def _find(answer: Answer, leaf: Any, sentences: list[_Sentence], judge: QuestionRelevance
          ) -> tuple[list[int], str | None]:
    """Citation indices of the sentence supporting ``leaf`` (a new one when needed)."""
    if isinstance(leaf, bool):
        pool = sentences
    else:
        match = _matcher(leaf)
        pool = [s for s in sentences if match(s.text)]
    if not pool:
        return [], None
    ranked = sorted(pool, key=lambda s: -judge.lexical(s.text, s.context))
    best = ranked[0]
    relevance = judge.lexical(best.text, best.context)
    if isinstance(leaf, bool):
        if relevance < _BOOLEAN_RELEVANCE:
            return [], "no passage states it"
        if negated(best.text) == leaf:
            return [], "the passage most about it says the opposite"
    for c in answer.citations:  # already cited: point at that citation
        if (c.document_index, c.snippet_index) == (best.document_index, best.snippet_index) \
                and c.excerpt and (c.excerpt in best.text or best.text in c.excerpt):
            return [c.citation_index], None
    snip = answer.search_documents[best.document_index - 1].snippets[best.snippet_index]
    start = None if snip.source is None else snip.source.start_char + best.start
    i = len(answer.citations)
    answer.citations.append(CitationOccurrence(
        citation_index=i, document_index=best.document_index,
        snippet_index=best.snippet_index, excerpt=best.text, claim_index=None,
        start_char=start, end_char=None if start is None else start + len(best.text),
        support=round(topical(max(relevance, OFF_TOPIC_LEXICAL), OFF_TOPIC_LEXICAL), 4),
        anchor=snip.anchor_at(start)))
    return [i], None


def _matcher(leaf: Any) -> Any:
    if isinstance(leaf, int | float):
        return lambda text: _has_number(text, float(leaf))
    text = str(leaf)
    day = _dates(text)
    if day and _whole_date(text):
        return lambda t: bool(day & _dates(t))
    needle = " ".join(text.casefold().split())
    if len(needle.split()) <= 6:
        return lambda t: needle in " ".join(t.casefold().split())
    return lambda t: lexical_support(text, t) >= SUPPORT_THRESHOLD


def _has_number(text: str, value: float) -> bool:
    for n in numbers_in(text):
        try:
            if float(n) == value:
                return True
        except ValueError:  # a CJK numeral
            continue
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return any(_NUMBER_WORDS.get(w) == value for w in words)


def _dates(text: str) -> set[tuple[int, int, int]]:
    """Calendar dates (day 0: a month) written in ``text``, in any of the usual forms."""
    out: set[tuple[int, int, int]] = set()
    for pattern, order in _DATES:
        for m in pattern.finditer(text):
            g = m.groups()
            try:
                if order == "ymd":
                    y, mo, d = int(g[0]), int(g[1]), int(g[2])
                elif order == "dmy":
                    y, mo, d = int(g[2]), _MONTHS[g[1].lower()], int(g[0])
                elif order == "mdy":
                    y, mo, d = int(g[2]), _MONTHS[g[0].lower()], int(g[1])
                elif order == "ym":
                    y, mo, d = int(g[0]), int(g[1]), 0
                else:
                    y, mo, d = int(g[1]), _MONTHS[g[0].lower()], 0
            except (KeyError, ValueError):
                continue
            if 1 <= mo <= 12 and 0 <= d <= 31:
                out.add((y, mo, d))
                if d:
                    out.add((y, mo, 0))  # "31 March 1889" says "March 1889" too
    return out


def _whole_date(text: str) -> bool:
    """``text`` is a date and nothing else ("1889-03-31", "March 1889")."""
    return any(p.fullmatch(text.strip().rstrip(".")) for p, _ in _DATES)


def _sentences(ledger: EvidenceLedger, check: VerificationPass) -> list[_Sentence]:
    """Every sentence of every retrieved passage that is verbatim in its document."""
    out: list[_Sentence] = []
    for d_i, doc in enumerate(ledger.documents, start=1):
        for s_i, snip in enumerate(doc.snippets):
            if check.snippet_problem(doc, snip) is not None:
                continue
            spans = excerpt_spans(snip.text)
            # Whole sentences too: a long one is cut at its line breaks (a list), and
            # hard-wrapped prose (a licence's plain text) is one sentence for all that.
            for a, b in spans + [seg for seg in segments(snip.text) if seg not in spans]:
                ex = Excerpt(s_i, a, b, snip.text[a:b], 1.0)
                if not check.excerpt_verbatim(doc, snip, ex):
                    continue
                out.append(_Sentence(d_i, s_i, a, b, ex.text,
                                     neighbours(snip.text, a, b, spans)))
    return out


def value_from_quotes(schema: dict[str, Any], key: str, quotes: list[str]) -> Any:
    """A value of the scalar ``schema`` read from ``quotes`` (best first), or
    :data:`UNFILLED`: how an answer made only of quotes fills ``{"year": integer}``.

    An integer or number is the first one the quotes write (a year — four digits — first
    when the key or the schema says "year"), a ``date`` string the first calendar day,
    a boolean whether the best quote says "not"; :func:`link_values` then cites the
    sentence it came from. Nothing is invented: no such value in the quotes, UNFILLED.
    """
    kind = schema.get("type")
    wants_year = "year" in key.lower() or "year" in str(schema.get("description", "")).lower()
    for quote in quotes:
        text = plain_text(quote)
        if kind in ("integer", "number"):
            if wants_year:
                m = _YEAR.search(text)
                if m:
                    return int(m.group(1))
                continue
            for n in sorted(numbers_in(text), key=text.find):
                try:
                    num = float(n)
                except ValueError:
                    continue
                if kind == "number" or num.is_integer():
                    return int(num) if num.is_integer() else num
        elif kind == "string" and schema.get("format") == "date":
            days = sorted(d for d in _dates(text) if d[2])
            if days:
                y, mo, d = days[0]
                return f"{y:04d}-{mo:02d}-{d:02d}"
        elif kind == "boolean":
            return not negated(text)
    return UNFILLED

