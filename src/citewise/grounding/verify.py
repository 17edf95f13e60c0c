"""Citation verification: mechanical checks and a heuristic support score.

Two kinds of check run on every answer:

* **Mechanical** (exact, no judgement): a cited snippet is verbatim at its offsets in the
  stored document text (when a ``document_text`` provider is given; without one, the
  excerpt must lie inside the snippet text the run retrieved), the excerpt is verbatim, and
  a quotation in a claim appears verbatim in a cited source.
* **Support** (a heuristic, *not* proof): how much of a claim a cited passage covers.
  The lexical part is the share of the claim's content terms found in the passage
  (:func:`citewise.text.overlap`), cut to 40 % when the claim has a number the passage lacks or
  when exactly one of them is negated — the two cheap tells of a claim that reuses a
  passage's words but not its meaning. With an ``embed`` function the score is blended with
  the cosine similarity of claim and passage, which credits paraphrases. The assembler then
  multiplies it by how much the passage addresses the *question*
  (:mod:`citewise.grounding.relevance`, embedding with ``relevance_embed``): a verbatim
  quote covers itself, and must still be about what was asked. A high score means
  the passage *probably* says what the claim says; a low one that it probably does not.
  Neither is a guarantee: treat the score as a flag for review, not as a verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from citewise.answer import SearchDocument, Snippet
from citewise.grounding.claims import MARKER_GROUP, segments, unfenced
from citewise.text import APOSTROPHES, content_terms, terms

__all__ = [
    "MISMATCH_THRESHOLD",
    "SUPPORT_THRESHOLD",
    "DocumentText",
    "EmbedFn",
    "Excerpt",
    "Verifier",
    "cosine",
    "excerpt_spans",
    "lexical_support",
    "negated",
    "numbers_in",
]

#: ``document_text(document_id)`` → the stored text of that document, or None if unknown.
DocumentText = Callable[[str], str | None]
#: ``embed(texts)`` → one vector per text (any iterable of floats, e.g. numpy rows).
EmbedFn = Callable[[list[str]], Iterable[Iterable[float]]]

#: A claim is supported when one of its citations scores at least this.
SUPPORT_THRESHOLD = 0.5
#: A citation scoring below this shares (almost) nothing with its claim: a wrong marker.
MISMATCH_THRESHOLD = 0.2

_PENALTY = 0.4
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Thousands written with a comma, a (narrow, no-break, thin or plain) space or an
# apostrophe between groups of three: "10 000", "10\u202f000", "10'000" and "10,000" are
# all 10000, as words and as numbers.
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[, \u00a0\u2009\u202f'’]\d{3})+(?![\d,])")
_GROUP_SEPARATOR = re.compile(r"[, \u00a0\u2009\u202f'’]")
_NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither"})
# CJK negation markers are parts of words, not words (返品できません, 不可以, 없다): a
# claim and its evidence are compared by which of these they contain.
_CJK_NEGATIONS = ("ない", "ません", "なかった", "不", "没", "沒", "无", "無", "非", "未", "别",
                  "別", "勿", "않", "못", "없")
# CJK numerals: "三次" and "五次" overlap in every bigram but one, as "3" and "5" would.
_CJK_NUMERAL = re.compile("[〇一二三四五六七八九十百千万萬億亿两兩]+")
# Typographic apostrophes: "don’t" in a source and "don't" in a claim are one word.
_QUOTE_CHARS = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "′": "'", "“": '"', "”": '"',
                              "„": '"', "«": '"', "»": '"', "\u00a0": " "})
# A sentence longer than this is split at its line breaks (lists and tables rarely have
# full stops), so an excerpt stays specific to the claim.
_LONG_SENTENCE = 300


def lexical_support(claim: str, evidence: str) -> float:
    """Heuristic support of ``claim`` by ``evidence`` from their words alone (0..1)."""
    c_terms, c_numbers, c_negated = _features(claim)
    e_terms, e_numbers, e_negated = _features(evidence)
    # :func:`citewise.text.overlap` of the canonical texts.
    score = len(c_terms & e_terms) / len(c_terms) if c_terms else 0.0
    # Each tell alone keeps even a full word overlap below SUPPORT_THRESHOLD.
    if c_numbers - e_numbers:
        score *= _PENALTY
    if c_negated != e_negated:
        score *= _PENALTY
    return score


@lru_cache(maxsize=8192)
def _features(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """What :func:`lexical_support` compares of a text: its content terms, numbers and
    whether it says no, of its canonical form. Cached: every window of a snippet is
    compared with every claim of an answer (~350 comparisons an answer, most of the
    verification's time when each one tokenised both texts again)."""
    canonical = _canonical(text)
    return (frozenset(content_terms(canonical)), frozenset(_numbers(canonical)),
            _negated(canonical))


@dataclass(frozen=True, slots=True)
class Excerpt:
    """The window of one snippet that best supports a claim."""

    snippet_index: int
    start: int  # relative to the snippet text
    end: int
    text: str
    lexical: float
    semantic: float | None = None

    def score(self, embed_weight: float) -> float:
        if self.semantic is None:
            return self.lexical
        return (1 - embed_weight) * self.lexical + embed_weight * max(0.0, self.semantic)


@dataclass(slots=True)
class Verifier:
    """Checks citations. One instance may serve many runs; it keeps no per-run state.

    ``document_text`` gives the stored text of a document by id (the host wires
    ``KnowledgeBase.document_text``); ``embed`` adds embedding similarity to the support
    score. Both are optional: without them the checks are against the retrieved snippets
    and the score is lexical.
    """

    document_text: DocumentText | None = None
    embed: EmbedFn | None = None
    support_threshold: float = SUPPORT_THRESHOLD
    mismatch_threshold: float = MISMATCH_THRESHOLD
    embed_weight: float = 0.5
    max_windows: int = 3  # windows per snippet compared by embedding
    #: Embeds the question and the chosen excerpts (one small batch per answer) for the
    #: question-relevance half of support (:mod:`citewise.grounding.relevance`).
    relevance_embed: EmbedFn | None = None

    def begin(self) -> VerificationPass:
        """A pass over one answer (it caches document texts and embeddings)."""
        return VerificationPass(self)


@dataclass(slots=True)
class VerificationPass:
    """The checks of one answer, with the caches they share."""

    verifier: Verifier
    _texts: dict[str, str | None] = field(default_factory=dict)
    _failed: dict[str, str] = field(default_factory=dict)
    #: Why ``embed`` failed, when it did (the scores then fall back to lexical).
    embed_error: str | None = None

    # -- mechanical -----------------------------------------------------------------------

    def document_text(self, doc: SearchDocument) -> str | None:
        """The stored text of ``doc`` (None without a provider or when it is unknown)."""
        provider = self.verifier.document_text
        doc_id = _doc_id(doc)
        if provider is None:
            return None
        if doc_id not in self._texts:
            try:
                self._texts[doc_id] = provider(doc_id)
            except Exception as exc:  # a broken provider must not break the answer
                self._failed[doc_id] = f"{type(exc).__name__}: {exc}"
                self._texts[doc_id] = None
        return self._texts[doc_id]

    def provider_error(self, doc: SearchDocument) -> str | None:
        """Why the provider could not give ``doc``'s text, if it raised."""
        return self._failed.get(_doc_id(doc))

    def snippet_problem(self, doc: SearchDocument, snippet: Snippet) -> str | None:
        """A code saying why ``snippet`` cannot be cited, or None when it is verbatim."""
        src = snippet.source
        if src is not None and src.end_char - src.start_char != len(snippet.text):
            return "snippet_offsets_inconsistent"
        if self.verifier.document_text is None:
            return None
        text = self.document_text(doc)
        if text is None:
            if self.provider_error(doc) is not None:
                return None  # cannot check; reported once as `verification_unavailable`
            return "document_missing"
        if src is None:
            return "snippet_offsets_missing"
        if text[src.start_char : src.end_char] != snippet.text:
            return "snippet_not_verbatim"
        return None

    def excerpt_verbatim(self, doc: SearchDocument, snippet: Snippet, ex: Excerpt) -> bool:
        """The excerpt is in the snippet at its offsets, and in the document at its own."""
        if snippet.text[ex.start : ex.end] != ex.text or not ex.text:
            return False
        text = self.document_text(doc)
        if text is None or snippet.source is None:
            return True
        base = snippet.source.start_char
        return text[base + ex.start : base + ex.end] == ex.text

    def quote_found(self, quote: str, docs: Sequence[SearchDocument]) -> bool:
        """``quote`` appears verbatim (up to case, spacing and quote style) in a source."""
        needle = _normal(quote).rstrip(".,;:!?")
        if not needle:
            return True
        for doc in docs:
            haystacks = [s.text for s in doc.snippets]
            full = self.document_text(doc)
            if full is not None:
                haystacks.append(full)
            if any(needle in _normal(h) for h in haystacks):
                return True
        return False

    # -- support --------------------------------------------------------------------------

    def windows(self, claim: str, doc: SearchDocument,
                snippet_indices: Iterable[int]) -> list[Excerpt]:
        """Candidate excerpts for ``claim`` from the given snippets, best lexical first —
        only those that hold the claim word for word when any does (a quote cites the
        sentence it quotes: "protected: Other processes can only read the table." was cited
        by "Any process can read or write to the table. protected", as like it in words;
        Erlang's review, 2026-12-05), or its sentence after the label it names first
        ("protected: …") where the label stands just before it. A claim no window holds so
        (a paraphrase, a label that names another entry) is scored as before."""
        out: list[Excerpt] = []
        quoted: list[Excerpt] = []
        label, _, rest = claim.partition(": ")
        whole = _words_in(_normal(claim)) if len(claim) >= _QUOTED_CHARS else None
        after = (_words_in(_normal(rest)) if rest and len(label) <= 60
                 and len(rest) >= _QUOTED_CHARS else None)
        named = _words_in(_normal(label)) if after else None
        for s_i in snippet_indices:
            text = doc.snippets[s_i].text
            spans = _sentences(text)
            cands = list(spans)
            cands += [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
            # A long sentence cut at its line breaks (a list) may be hard-wrapped prose (a
            # licence's plain text): the whole sentence is a candidate too.
            cands += [seg for seg in segments(text) if seg not in spans]
            # A sentence of several lines may be items listed without bullets (HTML's
            # <ul>): a claim quoting one item is cited by its line, not by the list.
            known = set(cands)
            cands += [line for a, b in spans if "\n" in text[a:b]
                      for line in _lines(text, a, b) if line not in known]
            scored = [
                Excerpt(s_i, a, b, text[a:b], lexical_support(claim, text[a:b]))
                for a, b in cands
            ]
            # Best first; among equals the shorter window is the more specific quote.
            scored.sort(key=lambda e: (-e.lexical, e.end - e.start, e.start))
            out.extend(scored[: self.verifier.max_windows])
            whole_here = whole is not None and whole.search(_normal(text)) is not None
            if not whole_here and (after is None or after.search(_normal(text)) is None):
                continue  # the claim is quoted nowhere in this snippet: no window to look at
            for e in scored:
                window = _normal(e.text)
                if (whole_here and whole is not None and whole.search(window)) or (
                        after is not None and named is not None and after.search(window)
                        and named.search(_normal(text[max(0, e.start - _LABEL_REACH):e.end]))):
                    quoted.append(e)
        if quoted:
            out = quoted
        out.sort(key=lambda e: (-e.lexical, e.end - e.start))
        return out

    def best(self, requests: Sequence[tuple[str, list[Excerpt]]]) -> list[Excerpt | None]:
        """The best excerpt per ``(claim, candidates)``, blending in embeddings if any.

        All texts are embedded in one batch so a real embedder is called once per answer.
        """
        v = self.verifier
        if v.embed is not None:
            texts: list[str] = []
            for claim, cands in requests:
                texts.append(claim)
                texts.extend(e.text for e in cands)
            unique = list(dict.fromkeys(texts))
            try:
                vectors = _embed(v.embed, unique) if unique else {}
            except Exception as exc:  # an embedder failing degrades the score, not the run
                self.embed_error = f"{type(exc).__name__}: {exc}"
            else:
                requests = [
                    (claim, [_with_semantic(e, vectors, claim) for e in cands])
                    for claim, cands in requests
                ]
        results: list[Excerpt | None] = []
        for _claim, cands in requests:
            if not cands:
                results.append(None)
                continue
            results.append(max(cands, key=lambda e: (e.score(v.embed_weight),
                                                     -(e.end - e.start))))
        return results

    def score(self, ex: Excerpt) -> float:
        return ex.score(self.verifier.embed_weight)


# -- helpers ------------------------------------------------------------------------------


def _doc_id(doc: SearchDocument) -> str:
    return str(doc.document.get("id", doc.source))


def _canonical(text: str) -> str:
    """``text`` with one apostrophe and digit groups joined ("10 000" → "10000")."""
    text = text.translate(APOSTROPHES)
    return _GROUPED.sub(lambda m: _GROUP_SEPARATOR.sub("", m.group(0)), text)


def _numbers(text: str) -> set[str]:
    """The numbers of ``text``, already :func:`_canonical` (lexical_support's hot path)."""
    found = {m.group(0).replace(",", "") for m in _NUMBER.finditer(text)}
    if not text.isascii():
        found.update(_CJK_NUMERAL.findall(text))
    return found


def _negated(text: str) -> bool:
    """Whether ``text``, already :func:`_canonical`, says no."""
    words = terms(text)
    if any(w in _NEGATIONS or w.endswith("n't") for w in words) or "n't" in text.lower():
        return True
    return not text.isascii() and any(m in text for m in _CJK_NEGATIONS)


_QUOTED_CHARS = 12  # a claim this long found word for word in a window is quoted from it
_LABEL_REACH = 300  # characters before a quoted window its label may stand in (a term)


def _words_in(needle: str) -> re.Pattern[str]:
    """A pattern finding ``needle`` as whole words ("30 seconds." is not in "30 seconds
    unless")."""
    return re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)")


def _normal(text: str) -> str:
    # A claim's quote has lost its marker groups (``plain_text``): a source's own
    # footnotes ("days[2] in") go too, or a faithful quote of it would not be found.
    return " ".join(MARKER_GROUP.sub(" ", text).translate(_QUOTE_CHARS).split()).casefold()


def _sentences(text: str) -> list[tuple[int, int]]:
    # Cut as an answer is cut (list items, abbreviations, footnotes), so an excerpt is the
    # source's counterpart of one claim.
    out: list[tuple[int, int]] = []
    for a, b in segments(text):
        a, b = unfenced(text, a, b)  # a markdown code block: its code, not its fences
        a, b = _unquoted(text, a, b)
        if b - a <= _LONG_SENTENCE or "\n" not in text[a:b]:
            out.append((a, b))
            continue
        out.extend(_lines(text, a, b))
    return out or [(0, len(text))]


# A docstring's quotes at a sentence's edge are its markers, no part of what it says: the
# excerpt of a docstring's last sentence kept its closing quotes, which the answer's quote
# of it had not (a review of comment evidence, 2026-12-06).
_DOC_QUOTES_OPEN = re.compile(r"""[rRuUbB]{0,2}(?:\"\"\"|''')[ \t]*""")
_DOC_QUOTES_CLOSE = re.compile(r"""[ \t]*(?:\"\"\"|''')\Z""")


def _unquoted(text: str, a: int, b: int) -> tuple[int, int]:
    m = _DOC_QUOTES_OPEN.match(text, a, b)
    if m and m.end() < b:
        a = m.end()
    m = _DOC_QUOTES_CLOSE.search(text, a, b)
    if m and m.start() > a:
        b = m.start()
    return a, b


def _lines(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The lines of ``text[a:b]``, trimmed (blank ones left out)."""
    out: list[tuple[int, int]] = []
    pos = a
    for m in re.finditer(r"\n", text[a:b]):
        out.extend(_strip(text, pos, a + m.start()))
        pos = a + m.end()
    out.extend(_strip(text, pos, b))
    return out


def _strip(text: str, a: int, b: int) -> list[tuple[int, int]]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    a, b = _unquoted(text, a, b)  # a docstring's line
    return [(a, b)] if b > a else []


def _embed(fn: EmbedFn, texts: list[str]) -> dict[str, list[float]]:
    rows = [[float(x) for x in row] for row in fn(texts)]
    if len(rows) != len(texts):
        raise ValueError(f"embed returned {len(rows)} vectors for {len(texts)} texts")
    return dict(zip(texts, rows, strict=True))


def _with_semantic(e: Excerpt, vectors: dict[str, list[float]], claim: str) -> Excerpt:
    return Excerpt(e.snippet_index, e.start, e.end, e.text, e.lexical,
                   _cosine(vectors[claim], vectors[e.text]))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


#: Public names for :mod:`citewise.grounding.relevance` and :mod:`.values`.
cosine = _cosine
excerpt_spans = _sentences


def negated(text: str) -> bool:
    """Whether ``text`` says no (the tell :func:`lexical_support` compares)."""
    return _negated(_canonical(text))


def numbers_in(text: str) -> set[str]:
    """The numbers written in ``text``, digit groups joined ("1,889" → "1889")."""
    return _numbers(_canonical(text))
