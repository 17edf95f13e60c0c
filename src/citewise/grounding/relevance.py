"""Does the cited text address the *question*? The second half of a claim's support.

A claim's support used to measure only how much of the claim its cited passage covers: a
verbatim quote covers itself, so any quote scored 1.0 — however unrelated to what was
asked (a licence's warranty disclaimer quoted for a question about a vacuum cleaner's
warranty period). Support now is ``coverage × topical(relevance)``: the claim must be in
the cited text *and* the cited text must be about the question.

``relevance`` (0..1, a heuristic) of an excerpt to the question is

* **lexical**: the share of the question's content terms found in the excerpt, each term
  weighted by how rare it is among the passages the run retrieved (a word every retrieved
  passage shares — the product's name, the document's title — says little about which
  sentence answers; a word none of them has is what the documents lack). Terms found
  only in the excerpt's neighbouring sentences count half: a quote may continue the
  sentence that names the subject. Question scaffolding ("how long does it take",
  "what happens") is not a content term.
* **semantic**, when an embedder is given: the cosine of question and excerpt, mapped
  from the range where MiniLM puts unrelated pairs (≤ 0.2) and answering pairs
  (≥ 0.5) onto 0..1; then relevance is the mean of the two. An excerpt that leans on the
  sentence before it ("It is enabled by default.", "Default: enabled") is embedded after
  that sentence, and one the next sentence leans on ("This is called backscatter mail.")
  before it: alone, it is near no question, and right answers were called off topic.

Calibrated by ``bench/off_topic.py`` on text nobody on the team wrote — Debian's
Apache-2.0, GPL-3, MPL-2.0 and LGPL-2.1 texts, 17 paraphrased questions whose answering
sentence is retrieved, and 12 questions they do not answer with the sentence a quoting
model would pick — with the packaged all-MiniLM-L6-v2 (hybrid retrieval, top 5). Cosines:
answering sentences 0.20–0.89 (median 0.5), the others −0.05–0.49 (the high ones are near
misses: "when was the MIT license published?"). With the embedder, :data:`OFF_TOPIC`
flagged 8 of the 12 and 1 of the 17 right answers; on words alone,
:data:`OFF_TOPIC_LEXICAL` flagged 4 of 12 and 1 of 17 (at 0.25, words alone would have
flagged 6 right answers: paraphrase). Below
the threshold an excerpt is ``off_topic_evidence``; from twice it up relevance no longer
lowers support. It is no proof the passage answers — a sentence can share every word of
the question and still not answer it — only a flag for a quote that plainly does not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from citewise.answer import SearchDocument
from citewise.grounding.declines import NOT_IN_SOURCES
from citewise.grounding.verify import EmbedFn, Excerpt, cosine, excerpt_spans
from citewise.knowledge.index.headings import innermost
from citewise.sentences import BULLET, ITEM_CHARS, LIST_ITEMS
from citewise.text import POINTING_WORDS, content_terms

if TYPE_CHECKING:
    from citewise.agent.state import RunState

__all__ = ["NOT_IN_SOURCES", "OFF_TOPIC", "OFF_TOPIC_LEXICAL", "UNSUPPORTED_NOTE",
           "QuestionRelevance", "neighbours", "noted", "question_of", "topical"]

#: Appended to an answer whose quotes or claims no retrieved passage bears out (outside
#: strict mode): a client that reads only the text — an OpenAI SDK, a chat UI — must not
#: take the closest passages for an answer. Worded as the decline (``declines``) opens:
#: both say the documents do not answer (Sphinx's review, 2026-12-06, met two wordings).
UNSUPPORTED_NOTE = ("(The documents do not answer this question: what it quotes are the "
                    "closest passages, and they do not answer it.)")


def noted(text: str) -> str:
    """``text`` with :data:`UNSUPPORTED_NOTE` after it, a blank line between. ``text`` is
    kept as it is, trailing whitespace and all, so that ``noted(text)[len(text):]`` is
    what a stream that has sent ``text`` still owes."""
    gap = "" if text.endswith("\n\n") or not text else "\n" if text.endswith("\n") else "\n\n"
    return f"{text}{gap}{UNSUPPORTED_NOTE}"

#: An excerpt whose relevance (lexical and semantic) is below this does not address the
#: question; from twice this on, its support is its coverage of the claim alone.
OFF_TOPIC = 0.25
#: The same without an embedder: words alone miss paraphrases, so only a quote that shares
#: (almost) nothing with the question is called off topic.
OFF_TOPIC_LEXICAL = 0.1
# MiniLM cosines: unrelated question/sentence pairs at or below _COS_LOW, answering ones
# at or above _COS_HIGH (see the module docstring).
_COS_LOW, _COS_HIGH = 0.2, 0.5
_NEIGHBOUR_WEIGHT = 0.5
# Where a question of several parts divides: "?", ";", or "and"/"or" before a question word.
_PARTS = re.compile(r"[?;]|,?\s+(?:and|or)\s+(?=(?:what|where|when|who|whom|whose|why|how|"
                    r"which|is|are|was|were|does|do|did|can|could|should|will)\b)",
                    re.IGNORECASE)
# Words that shape a question without saying what it is about ("how long does it take to
# get …", "what happens when …"): stemmed as content_terms stems them.
_SCAFFOLD = frozenset(content_terms(
    "happen happens happened work works mean means meaning get gets got take takes long "
    "know want wants need needs way ways thing things exactly actually possible kind "
    "someone something anything question answer tell know find done doing"))


def question_of(state: RunState) -> str:
    """What a run's evidence must address: its question, or for a follow-up the question
    rewritten with its thread's subject ("and for hashing?" alone names none)."""
    details = state.query_details
    return (details.rewritten_query if details is not None else None) or state.question


def topical(relevance: float, off_topic: float = OFF_TOPIC) -> float:
    """The factor relevance puts on support: 1 from ``2 × off_topic`` up, linear below, so
    an off-topic excerpt's support is below one half (unsupported) whatever it covers."""
    return min(1.0, max(0.0, relevance) / (2 * off_topic))


@dataclass(slots=True)
class QuestionRelevance:
    """Relevance of excerpts to one question, against the passages one run retrieved."""

    question: str
    documents: Sequence[SearchDocument]
    embed: EmbedFn | None = None
    #: Why ``embed`` failed, when it did (relevance then is lexical only).
    embed_error: str | None = None
    #: The off-topic threshold of the last :meth:`scores`: lexical or with embeddings.
    off_topic: float = OFF_TOPIC_LEXICAL
    _weights: dict[str, float] = field(default_factory=dict)
    _parts: list[frozenset[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        asked = _asked_terms(self.question)
        parts = [frozenset(_asked_terms(p)) for p in _PARTS.split(self.question)]
        # A question of several parts ("How fast are refunds, and where is my order?"):
        # a sentence answering one of them addresses the question.
        self._parts = [p for p in parts if p] if len([p for p in parts if p]) > 1 else []
        passages = {s.text for d in self.documents for s in d.snippets}
        bags = [set(content_terms(p)) for p in passages]
        n = len(bags)
        for t in asked:
            df = sum(1 for b in bags if t in b)
            # Smoothed: a word no passage has weighs at most ~2.4× one they all have, so
            # an answer in other words than the question's ("how fast" → "within 5
            # days") is not written off by its one missing word.
            self._weights[t] = 1.0 + math.log((n + 1) / (df + 1))

    @property
    def judged(self) -> bool:
        """False for a question with no content terms ("Why?"): nothing to judge by."""
        return bool(self._weights)

    def lexical(self, excerpt: str, context: str = "") -> float:
        """Weighted share of the question's terms in ``excerpt`` (``context``: half)."""
        if not self._weights:
            return 1.0
        own = set(content_terms(excerpt))
        near = set(content_terms(context)) - own if context else set()
        return max([self._coverage(self._weights.keys(), own, near),
                    *(self._coverage(p, own, near) for p in self._parts)])

    def _coverage(self, asked: Iterable[str], own: set[str], near: set[str]) -> float:
        weights = [(t, self._weights[t]) for t in asked]
        total = sum(w for _, w in weights)
        got = sum(w for t, w in weights if t in own)
        got += _NEIGHBOUR_WEIGHT * sum(w for t, w in weights if t in near)
        return min(1.0, got / total) if total > 0 else 1.0

    def excerpt_scores(self, picks: Sequence[tuple[SearchDocument, Excerpt]]) -> list[float]:
        """:meth:`scores` of excerpts of retrieved snippets, with their neighbours; an
        excerpt that leans on the sentence before it is embedded with that sentence."""
        items: list[tuple[str, str]] = []
        embedded: list[str] = []
        for doc, ex in picks:
            snippet = doc.snippets[ex.snippet_index]
            text = snippet.text
            spans = excerpt_spans(text)
            before, after = _around(text, ex.start, ex.end, spans)
            lead = _lead_in(text, ex.start, spans)
            # The entry it is under is what it speaks of: Privoxy's "Effect if unset: A
            # default value of 300 seconds is used." names socket-timeout only in its
            # heading, and the right answer was called off topic (review, 2026-12-07).
            entry = innermost(snippet.section)
            topic = _topic(text, ex.start, spans, before, ex.text)
            items.append((ex.text, f"{entry} {topic} {lead} {before} {after}".strip()))
            embedded.append(f"{lead} {ex.text}" if lead else
                            _with_antecedent(ex.text, before, after))
        return self.scores(items, embedded)

    def scores(self, items: Sequence[tuple[str, str]],
               embedded: Sequence[str] | None = None) -> list[float]:
        """Relevance of each ``(excerpt, context)``; one embedding batch for all.
        ``embedded``: what to embed for each excerpt, when not the excerpt itself."""
        lexical = [self.lexical(e, c) for e, c in items]
        if not self._weights or self.embed is None or not items or min(lexical) >= 1.0:
            return lexical  # (every question word in every excerpt: nothing to add)
        embedded = list(embedded) if embedded is not None else [e for e, _ in items]
        texts = list(dict.fromkeys([self.question, *embedded]))
        try:
            rows = [[float(x) for x in row] for row in self.embed(texts)]
            if len(rows) != len(texts):
                raise ValueError(f"embed returned {len(rows)} vectors for {len(texts)} texts")
        except Exception as exc:  # an embedder failing degrades relevance, not the run
            self.embed_error = f"{type(exc).__name__}: {exc}"
            return lexical
        vectors = dict(zip(texts, rows, strict=True))
        q = vectors[self.question]
        self.off_topic = OFF_TOPIC
        return [(lex + _semantic(cosine(q, vectors[e]))) / 2
                for lex, e in zip(lexical, embedded, strict=True)]


def _with_antecedent(excerpt: str, before: str, after: str) -> str:
    """``excerpt`` with the sentence it leans on, or that leans on it: after the sentence
    ``before`` it when it points back ("It is enabled by default.", "Default: enabled"),
    before the sentence ``after`` it when that one points back to it ("… flooded with
    undeliverable mail notifications." — "This is called backscatter mail."). Alone, its
    embedding is far from the question, and a right answer was called off topic."""
    if before and _LEANS.match(excerpt):
        return f"{before} {excerpt}"
    if after and _LEANS.match(after):
        return f"{excerpt} {after}"
    return excerpt


_LEANS = re.compile(rf"\s*(?:by default,?\s+)?(?:{POINTING_WORDS}|its|they|defaults?|the default)\b",
                    re.IGNORECASE)


def _lead_in(text: str, start: int, spans: Iterable[tuple[int, int]]) -> str:
    """The lead-in of the list whose item starts at ``start``: the sentence ending in ":"
    above the items before it ("… three default modules are loaded automatically:" over
    "mod_indexfile", "mod_dirlisting" …), or "" when ``start`` opens no line after such a
    run of one-line items. An item is what its lead-in introduces: alone, "mod_dirlisting"
    addresses no question, and a quoted list was called off topic from its second item on.
    A line-opening paragraph right under a lead-in ("Note the following:") is introduced by
    it too, and judged with it."""
    if not _opens_line(text, start):
        return ""
    before = [(a, b) for a, b in spans if b <= start]
    first = start  # where the list's first item begins
    for a, b in reversed(before[-LIST_ITEMS - 1:]):
        line = text[a:b].rstrip()
        if line.endswith(":"):
            # The items one a line, no blank line between them (a paragraph or a block
            # after the lead-in's first one is no item of its list).
            return "" if _BLANK_LINE.search(text, first, start) else line
        if not _opens_line(text, a) or len(line) > ITEM_CHARS or "\n" in line:
            return ""  # prose, not an item of a list
        first = a
    return ""


def _topic(text: str, start: int, spans: Iterable[tuple[int, int]], before: str,
           excerpt: str) -> str:
    """The first sentence of the paragraph (or list item) that ``start`` is in, when it is
    not ``before`` nor at ``start`` and the excerpt goes on with it (a word of its own in
    both, or the excerpt points back): what the paragraph speaks of. GNU Prolog's "By
    default vector max is set to 127." is two sentences under "sparse representation: an
    additional bit-vector is used …", and answering how large the sparse bit-vector is by
    default it was called off topic (review, 2026-12-07). A PDF's paragraphs have no blank
    line between them: without a word in common, every sentence under a heading would
    speak of its first one (code review, 2026-12-07)."""
    opens = max((m.end() for m in _BLANK_LINE.finditer(text, 0, start)), default=0)
    opens = max((m.start() for m in _ITEM_LINE.finditer(text, opens, start)), default=opens)
    first = next(((a, b) for a, b in spans if a >= opens), None)
    if first is None or first[1] > start or text[first[0]:first[1]] == before:
        return ""
    topic = text[first[0]:first[1]]
    if not (_LEANS.match(excerpt) or set(_asked_terms(topic)) & set(_asked_terms(excerpt))):
        return ""
    return topic


# A line that opens with a bullet or an item's number: an item of its own.
_ITEM_LINE = re.compile(rf"(?m)^{BULLET.pattern}(?=\S)")


def _opens_line(text: str, at: int) -> bool:
    """Whether ``at`` is where a line's text starts, after its bullet or number if any."""
    line = text.rfind("\n", 0, at) + 1
    return not text[line:at].strip() or BULLET.fullmatch(text, line, at) is not None


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _asked_terms(text: str) -> list[str]:
    return [t for t in dict.fromkeys(content_terms(text)) if len(t) > 1 and t not in _SCAFFOLD]


def _semantic(cos: float) -> float:
    return min(1.0, max(0.0, (cos - _COS_LOW) / (_COS_HIGH - _COS_LOW)))


def neighbours(text: str, start: int, end: int, spans: Iterable[tuple[int, int]]) -> str:
    """The sentences of ``text`` just before and after ``text[start:end]``."""
    before, after = _around(text, start, end, spans)
    return f"{before} {after}".strip()


def _around(text: str, start: int, end: int, spans: Iterable[tuple[int, int]]
            ) -> tuple[str, str]:
    before = after = ""
    for a, b in spans:
        if b <= start:
            before = text[a:b]
        elif a >= end and not after:
            after = text[a:b]
    return before, after
