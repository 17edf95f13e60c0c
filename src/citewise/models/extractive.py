"""``extractive``: the embedded default model. Deterministic, no generated words, no server.

Policy, one step per model call:

1. search the knowledge base with the question (plus the earlier turn's keywords for a
   short follow-up) — ``search_knowledge``;
2. score every sentence of the results as an answer to the question
   (:mod:`citewise.models.sentence_rank`: words, context, what is asked, meaning under the
   packaged embedder, document routing, structure) and the answerability of the best;
3. if that is below :data:`ANSWERABLE`, search again with the question's keywords;
4. answer with the best evidence sentence (and a second one only when it scores nearly as
   well), each quoted verbatim and followed by its citation marker — or, when the
   answerability stays below the threshold, say plainly that the documents do not answer
   (:data:`NO_ANSWER`, or its translation for a question in another language —
   :mod:`citewise.grounding.declines`; nothing cited; the assembler adds
   ``no_answer_in_sources``).

It never writes a word of its own into a claim: every sentence of an answer is a substring
of a cited snippet (less the snippet's own bracketed footnotes, which would read as
citation markers, and permalink marks at its edges), so verification can only pass or
report a missing document. Passages are cut as answers are
(:func:`citewise.grounding.claims.segments`): a quoted list item is one claim with its own
marker, and a list item or any other sentence without a full stop is written as a markdown
list item, so it never runs on into the next claim.

Asked for structured output, it fills the schemas an answer of quotes can fill
(:mod:`.quote_values`). It cannot invent values: for any other shape, or a required value
no quote holds, it says so in a thought and answers in prose, and the run ends
``structured_output_invalid`` after its repairs, without searching again.

A follow-up in a thread is searched with its thread's subject (``agent/followups.py``);
the sentences found are scored against that searched query too, not the bare follow-up.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator
from typing import Any

from citewise.grounding.claims import segments
from citewise.grounding.declines import NOT_IN_SOURCES, listed, not_in_sources
from citewise.models import people, quantities
from citewise.models.absent_words import Absent, absent_words
from citewise.models.answerability import answerability, unnamed, unstated
from citewise.models.base import (
    EvidencePart,
    Message,
    ModelRequest,
    Part,
    TextDelta,
    ToolCall,
    ToolCallPart,
    ToolMessage,
    UsagePart,
    UserMessage,
)
from citewise.models.confidence import confidence, margin
from citewise.models.question_intent import intent
from citewise.models.quote_values import CANNOT_FILL, UNFILLABLE, fill
from citewise.models.quote_writing import Quote, render
from citewise.models.sentence_rank import candidates, rank
from citewise.models.sentence_similarity import minilm_scorer, scorer_for
from citewise.models.thread_repeats import earlier_answers, not_repeated
from citewise.text import content_terms, plain_terms

__all__ = ["ANSWERABLE", "NO_ANSWER", "WEAK", "ExtractiveModel", "create"]

#: The abstention's wording in English (other languages: ``declines.not_in_sources``): the
#: one grounding uses when strict mode removes every claim.
NO_ANSWER = NOT_IN_SOURCES
#: Below this answerability the model abstains (calibrated on the ``tune`` split of
#: ``bench/data/answers``; see ``bench/README.md``).
ANSWERABLE = 0.45
#: Below this confidence (:mod:`.confidence`) an answer is given but flagged
#: ``weak_evidence``: on the ``tune`` split such answers were wrong four times in five
#: (``bench/weak_threshold.py``, ``bench/README.md``).
WEAK = 0.30
_CLOSE = 0.08  # a second quote only when it scores nearly as well as the first
_TIE = 0.02  # a quote and the same with its completing sentence score alike within this
_SEARCH = "search_knowledge"
# What the best passage lacks, as a decline's thought says it (answerability.unstated).
_LACKS = {quantities.NUMBER: "states no number", quantities.YEAR: "states no year",
          people.PERSON: "names no one"}


class ExtractiveModel:
    """Answers by quoting the knowledge base. See the module docstring for the policy."""

    def __init__(self, *, max_sentences: int = 2, k: int = 12,
                 answerable: float = ANSWERABLE, weak: float = WEAK,
                 semantic: bool = True) -> None:
        self.max_sentences = max_sentences
        self.k = k
        self.answerable = answerable
        self.weak = weak
        self.semantic = semantic

    @property
    def name(self) -> str:
        return "extractive"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        question, history, observations = _read(request.messages)
        can_search = any(t.name == _SEARCH for t in request.tools)
        candidates, answerable, absent = self._candidates(question, observations)
        said = earlier_answers(request.messages[:_turn_start(request.messages)])
        candidates = not_repeated(candidates, said, _CLOSE, question,
                                  _scoring_question(question, observations))
        if can_search and not observations:
            query = _search_query(question, history)
            yield TextDelta(channel="thought", text=f"I will search the knowledge base for: {query}")
            yield _call(request.step, query, self.k)
        elif can_search and len(observations) == 1 and answerable < self.answerable:
            query = _keywords_query(question, history)
            yield TextDelta(
                channel="thought",
                text=(f"The evidence is weak (answerability {answerable:.2f}); searching "
                      f"again for: {query}"),
            )
            yield _call(request.step, query, self.k)
        else:
            best = candidates[0].score if candidates else 0.0
            chosen = _distinct([c for c in candidates if c.score >= best - _CLOSE]
                               )[: self.max_sentences]
            chosen = _cover_parts(question, candidates, chosen, self.max_sentences + 1)
            answerable = min(1.0, max(0.0, answerable))
            if not chosen or answerable < self.answerable:
                yield EvidencePart(answerability=answerable, abstain_below=self.answerable)
                missing = [] if absent.named else unnamed(question, observations)
                lacks = unstated(_scoring_question(question, observations),
                                 candidates[0].text) if candidates else None
                unsaid = (f"; no document contains {listed(absent.named)}" if absent.named
                          else f"; no passage found mentions {listed(missing)}" if missing
                          else f"; the best passage found {_LACKS[lacks]}" if lacks
                          else "")
                shown, limit = _apart(answerable, self.answerable)
                yield TextDelta(channel="thought", text=(
                    f"No passage answers the question (answerability {shown}, "
                    f"below {limit}{unsaid})."))
                yield TextDelta(channel="answer",
                                text=not_in_sources(question, absent.named, missing))
            else:
                # Counted as the answer cites them: a quote of two sentences is two.
                quoted = sum(max(1, len(segments(c.text))) for c in chosen)
                ahead = margin((c.words, c.score) for c in candidates)
                sure = confidence(answerable, ahead, candidates[0].rank)
                yield EvidencePart(answerability=answerable, abstain_below=self.answerable,
                                   confidence=sure, weak_below=self.weak)
                yield TextDelta(
                    channel="thought",
                    text=(f"Answering from {quoted} evidence sentence(s) "
                          f"(answerability {answerable:.2f}, confidence {sure:.2f})."),
                )
                pieces = render(chosen)
                if request.output_schema is not None:
                    value = fill(request.output_schema, "".join(pieces),
                                 [f"{c.text} [{c.document_index}]" for c in chosen])
                    if value is not UNFILLABLE:
                        pieces = [json.dumps(value, ensure_ascii=False)]
                    else:
                        yield TextDelta(channel="thought", text=CANNOT_FILL)
                for piece in pieces:
                    yield TextDelta(channel="answer", text=piece)
        prompt = sum(len(getattr(m, "content", "")) for m in request.messages) // 4
        yield UsagePart(input_tokens=prompt, output_tokens=0)

    def _candidates(self, question: str, observations: list[dict[str, Any]]
                    ) -> tuple[list[Quote], float, Absent]:
        """The sentences of the results best first, the answerability of the best, and the
        words of the question that no document contains."""
        sentences = candidates(observations)
        if not sentences:
            return [], 0.0, Absent([], [])
        question = _scoring_question(question, observations)
        scorer = scorer_for(question) if self.semantic else None
        scored = rank(question, sentences, semantic=scorer)
        # Whether a word carries the question's meaning is judged on MiniLM's scale.
        absent = absent_words(question, observations, minilm_scorer() if self.semantic else None)
        defaults = _defaults_above(scored) if "default" in intent(question) else {}
        return ([Quote(round(x.score, 6), x.sentence.document_index,
                       _with_default(x.sentence.quote or x.sentence.text,
                                     defaults.get(x.sentence.document_index, {})),
                       x.sentence.section,
                       x.sentence.term, x.sentence.code, x.sentence.lead,
                       x.sentence.items, x.sentence.rank)
                 for x in scored],
                answerability(question, scored, observations, absent.counted), absent)


def _defaults_above(scored: list[Any]) -> dict[int, dict[str, str]]:
    """Asked a default: per document, each description that has its default on a line
    above it, and the two as one quote (``Sentence.with_default``)."""
    out: dict[int, dict[str, str]] = {}
    for x in scored:
        if x.sentence.with_default:
            out.setdefault(x.sentence.document_index, {})[x.sentence.text] = \
                x.sentence.with_default
    return out


def _with_default(quote: str, defaults: dict[str, str]) -> str:
    """``quote`` after the default above its first sentence, if it has one — a sentence
    quoted alone or with the one after it alike, so the two are one quote and not the
    description twice ("Default value: true When tlimswitch … [1] When tlimswitch …",
    code review, 2026-12-06)."""
    for text, with_default in defaults.items():
        if quote.startswith(text) and with_default.endswith(text):
            return with_default + quote[len(text):]
    return quote


#: Words that join the parts of one question ("which fuel does X burn, and Y?").
_PARTS = re.compile(r",|;|\b(?:and|or|as well as|versus|vs)\b", re.IGNORECASE)
_NAME = re.compile(r"\b(?:[A-Z][\w-]*|\w*[_.\d]\w*)")


def _cover_parts(question: str, candidates: list[Quote], chosen: list[Quote],
                 limit: int) -> list[Quote]:
    """For a question of several parts, add the best sentence for each part the chosen
    ones leave out: a part is a name the question gives (a capitalised word past its first,
    or an identifier: "the Flint stove … and the Cinder stove?", "pg_dump or pg_restore")
    that few candidate sentences share, found in a candidate but in none of the chosen. A
    question of one part keeps its one or two quotes."""
    if not chosen or not _PARTS.search(question):
        return chosen
    names = {t for w in _NAME.findall(question.split(None, 1)[-1]) for t in content_terms(w)}
    pool = [set(content_terms(c.text)) for c in candidates]
    rare = {t for t in names
            if 0 < sum(t in words for words in pool) <= max(1, len(pool) // 3)}
    if len(rare) < 2:
        # One name is no question of parts ("Out of the box, which severity does Python's
        # logging let through?"): a sentence added for "Python" answered nothing asked.
        return chosen
    covered = set().union(*(set(content_terms(c.text)) for c in chosen))
    picked = list(chosen)
    for cand, words in zip(candidates, pool, strict=True):
        if len(picked) >= limit:
            break
        if not _repeats(cand, picked) and (words & rare) - covered:
            picked.append(cand)
            covered |= words
    return picked


def _repeats(cand: Quote, chosen: list[Quote]) -> bool:
    """Whether ``cand`` quotes what a chosen one already does: the same text, or text one
    holds (a sentence, and the same sentence quoted with the one before it)."""
    words = cand.words
    return any(words in c.words or c.words in words for c in chosen)


def _distinct(candidates: list[Quote]) -> list[Quote]:
    """``candidates`` without those repeating an earlier one (a chunk's overlap brings a
    sentence twice, once with its neighbour: "--progress … [1] This gives a bored user
    something to watch. [1] --progress … [1]")."""
    out: list[Quote] = []
    for cand in candidates:
        held = next((i for i, c in enumerate(out) if c.words in cand.words), None)
        if held is not None and cand.score >= out[held].score - _TIE:
            # The sentence with the one that completes it ("… hidden files.\n\nDefault:
            # enabled"), scored as well as the sentence alone: the fuller quote answers more.
            out[held] = cand
        elif not _repeats(cand, out):
            out.append(cand)
    return out


def _scoring_question(question: str, observations: list[dict[str, Any]]) -> str:
    """What the found sentences answer: the question, plus the words its searches added
    (a follow-up's search carries its thread's subject — "How is it harvested?" searched
    as "… saffron" — and so does this model's keyword retry after a short follow-up).
    Scored against the bare follow-up, sentences that name the subject look off-topic."""
    have = set(content_terms(question))
    extra: list[str] = []
    for observation in observations:
        searched = observation.get("query")
        if not isinstance(searched, str):
            continue
        for word in plain_terms(searched):
            stems = set(content_terms(word))
            if stems and not stems <= have:
                have |= stems
                extra.append(word)
    return f"{question.rstrip()} {' '.join(extra)}" if extra else question


def _call(step: int, query: str, k: int) -> ToolCallPart:
    return ToolCallPart(call=ToolCall(id=f"call_s{step}", name=_SEARCH,
                                      arguments={"query": query, "k": k}))


def _turn_start(messages: list[Message]) -> int:
    """Where this turn's tool calls begin (earlier turns come without theirs)."""
    return next((i for i, m in enumerate(messages)
                 if isinstance(m, ToolMessage) or getattr(m, "tool_calls", None)),
                len(messages))


def _read(messages: list[Message]) -> tuple[str, list[str], list[dict[str, Any]]]:
    """The current question, earlier questions, and this turn's search results. The
    question is the last user message before the turn's first tool call: one after it is
    the loop's own (a structured-output repair prompt), not a new question (earlier turns
    come as questions and answers, without their tool calls)."""
    first_call = _turn_start(messages)
    last_user = max((i for i, m in enumerate(messages[:first_call])
                     if isinstance(m, UserMessage)), default=-1)
    question = messages[last_user].content if last_user >= 0 else ""
    history = [m.content for m in messages[:last_user] if isinstance(m, UserMessage)]
    observations = [
        m.data for m in messages[last_user + 1 :]
        if isinstance(m, ToolMessage) and m.name == _SEARCH and isinstance(m.data, dict)
    ]
    return question, history, observations


def _search_query(question: str, history: list[str]) -> str:
    """The question itself (the retriever drops its stopwords and embeds it whole: the
    whole question finds the answering passage more often than its keywords), with the
    previous question's keywords after a short follow-up ("and for contractors?")."""
    if history and len(_plain_terms(question)) < 3:
        return _keywords_query(question, history)
    return question.strip()


def _keywords_query(question: str, history: list[str]) -> str:
    words = _unique(t for t in _plain_terms(question))
    if len(words) < 3 and history:
        # A short follow-up ("and for contractors?") leans on the previous question.
        words += [w for w in _unique(_plain_terms(history[-1])) if w not in words]
    return " ".join(words) or question.strip()


def _plain_terms(text: str) -> list[str]:
    # Contractions leave no stray "s"/"t", and "read-only" keeps its "only".
    return plain_terms(text)


def _unique(words: Any) -> list[str]:
    out: list[str] = []
    for w in words:
        if w not in out:
            out.append(w)
    return out


def create(spec: str = "") -> ExtractiveModel:
    """Entry point for ``--model extractive``."""
    return ExtractiveModel()


def _apart(value: float, limit: float) -> tuple[str, str]:
    """``value`` and ``limit`` written with as many decimals as it takes to tell them
    apart: "answerability 0.45, below 0.45" said nothing (Ghostscript's review,
    2026-12-08); it reads "0.4497, below 0.4500"."""
    for digits in (2, 3, 4):
        shown, bound = f"{value:.{digits}f}", f"{limit:.{digits}f}"
        if shown != bound:
            break
    return shown, bound
