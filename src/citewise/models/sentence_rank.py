"""Which retrieved sentence answers the question: the extractive model's evidence choice.

Why this exists: choosing the sentence with the most words in common with the question
quotes the wrong sentence for most real questions (issue #27). A question names an entity
(a setting, a command, a document) *and* asks something about it (its default, what happens
if, what it is, whether it may, how to). The sentence that repeats the entity's name is
usually its heading, its signature or the notice naming the document; the sentence that
answers is often the one *after* it ("The default is 1 GB."), sharing one word or none.

So every sentence of every retrieved chunk is scored on (weights in :data:`WEIGHTS`, set on
the ``tune`` split of ``bench/data/answers``):

* **lexical evidence** — the idf-weighted share of the question's content terms it has,
  where words of the document's title or file name (the entity) weigh half: naming the
  document is not answering about it; "how long" / "how many" are what is asked, not
  what it is about;
* **context** — the same share for its paragraph before it, from its heading on (the
  setting a "The default is 1 GB." sentence belongs to), weighing more when the sentence
  leans on it (a default, "This", "It");
* **what is asked** (:mod:`.question_intent`) — a "default" question wants a sentence that states
  a default (not "more than the default"), a limit question a number, "How long / big /
  many …?" a value in the unit asked for (:mod:`.quantities`), "What is X?" the
  sentence whose subject is X ("A crate is …"; other cues for definitions matched too
  much to help);
  a "how do I" question does not want the sentence saying why a setting is useful
  ("Logging to stdout is useful when …") over the one saying what to set;
* **meaning** — cosine similarity under the packaged MiniLM
  (:mod:`.sentence_similarity`) for a shortlist of the best-scoring sentences (all of
  them would cost too much per question on a CPU; a few places go to the best without
  their routing, :data:`UNROUTED`), averaged over the whole question and the question
  less the words of the sentence's own document's title; a sentence that points back
  ("This is because …") counts half alone, half together with the sentence before it
  in its paragraph (:func:`compared_texts`);
* **routing** — a sentence of the document whose title or file name the question names
  (:mod:`.sentence_routing`: a look-alike page is not the page named);
* **section** — the same share for the innermost part of its passage's section path (an
  identifier's parts too: ``KillUserProcesses=``): of two sibling sections saying nearly
  the same ("Invoked as an interactive non-login shell", "Invoked non-interactively"), the
  one whose heading the question names (+2 of 164 on ``tune``, none lost, the same for any
  weight from 0.3 to 0.6; 2026-12-03);
* **substance** — words beyond the question's and the title's ("Some background on X."
  says nothing), a little: the sentence that answers a yes/no question restates it ("Will
  my ON DELETE triggers run on TRUNCATE?" — "TRUNCATE will not fire any ON DELETE
  triggers …"), and at 0.2 it lost to neighbours with more words of their own (0.2 → 0.05:
  evidence@1 on ``tune`` 171 → 185 of 386, held out 270 → 277 of 578; 2026-12-05);
* **structure** — headings and questions (an FAQ's) are context only, never candidates;
  navigation bars, notices (copyright, licence), version-change notes, table rows, code
  and glued run-on "sentences" rank below prose; code only when the question asks for it.

The candidates themselves, verbatim slices of the retrieved text with their context, come
from :mod:`.sentence_candidates`.

:func:`citewise.models.answerability.answerability` says how likely the best sentences
answer at all; the threshold below which the model abstains (``extractive.ANSWERABLE``)
was calibrated on ``tune``.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from citewise.knowledge.index.headings import innermost
from citewise.knowledge.retrieve.query import function_words
from citewise.models.quantities import HOW
from citewise.models.question_intent import (
    answered,
    defined_subject,
    defines,
    intent,
    intent_score,
)
from citewise.models.sentence_candidates import Sentence, candidates
from citewise.models.sentence_routing import document_terms, routing
from citewise.models.sentence_structure import structure_penalty
from citewise.models.switches import DASHES, named_switches, writes
from citewise.text import POINTING_WORDS, content_terms, name_terms

__all__ = [
    "SHORTLIST",
    "WEIGHTS",
    "Scored",
    "SemanticScorer",
    "Sentence",
    "candidates",
    "compared_texts",
    "intent",
    "rank",
    "stated_text",
    "structure_penalty",
]

#: cosine similarities of the question with each text, 0..1-ish.
SemanticScorer = Callable[[str, Sequence[str]], Sequence[float]]

#: How many of the best sentences by words are also compared by meaning (MiniLM): their
#: embeddings are most of an answer's time. 20 → 15 cost one question of 169 on the tuned-on
#: corpora (evidence@1 92 → 91, document@1 157 → 158) and cut p50 159 → 123 ms at 10.7k chunks.
SHORTLIST = 15
@dataclass(slots=True)
class Scored:
    sentence: Sentence
    score: float
    parts: dict[str, float] = field(default_factory=dict)


_ANAPHORA = re.compile(rf"(?:{POINTING_WORDS}|its|otherwise|the default|if not|"
                      r"if (?:omitted|unset|none)|when (?:omitted|unset))\b", re.I)


# -- scoring ----------------------------------------------------------------------------------

#: How much each part of a sentence's score counts (tuned on the ``tune`` split). "rank"
#: is a place of the sentence's passage in its search: 0.015 → 0.03 when three reviews saw
#: the answer quote a lower passage's sentence while the first held the answer (evidence@1
#: on the captured rankings: tune 624 → 632 of 1,231, held out 745 → 757; 2026-12-08).
WEIGHTS: dict[str, float] = {
    "lexical": 0.5, "context_leaning": 0.3, "context": 0.25, "intent": 1.5, "routing": 0.6,
    "structure": 1.0, "rank": 0.03, "length": 0.1, "semantic": 0.8, "substance": 0.05,
    "section": 0.4, "defines": 0.4,
}
_ENTITY = 0.5  # a word of the document's title or file name: naming it is not answering
_SUBSTANCE = 6  # new content words that make a sentence informative enough
_LONG = 350  # characters; longer "sentences" are mostly several glued by the splitter


def _combine(parts: dict[str, float]) -> float:
    return sum(WEIGHTS.get(k, 0.0) * v for k, v in parts.items())


def stated_text(sentence: Sentence, asks: frozenset[str]) -> str:
    """What ``sentence`` states as an answer to a question asking ``asks``
    (:func:`.question_intent.intent`): asked a default, a description with its default on
    the line above it is quoted with it (``Sentence.with_default``), and states it:
    rsyslog's "This setting specifies how often files are to be polled for new data." under
    "type: integer | default: 10 | …" (review, 2026-12-07)."""
    return sentence.with_default if "default" in asks and sentence.with_default else sentence.text


def rank(question: str, sentences: Sequence[Sentence], *,
         semantic: SemanticScorer | None = None) -> list[Scored]:
    """``sentences`` scored for ``question``, best first (see the module docstring)."""
    if not sentences:
        return []
    asked = set(content_terms(" ".join(HOW.findall(question))))  # "how long": intent
    asked |= function_words(question)  # another language's "de", "les": not its subject
    q_terms = [t for t in dict.fromkeys(content_terms(question)) if t not in asked]
    asks = intent(question)
    defined = defined_subject(question)
    code_wanted = "code" in asks
    letters = _switch_letters(question)
    sent_terms = [_own_case(content_terms(s.text), s.text, letters) for s in sentences]
    before_terms = [_own_case(content_terms(s.before), s.before, letters) for s in sentences]
    # A sentence that carries its definition's term (the first, and those that point back
    # at it: ``Sentence.term``) is scored by the term in place of its section: an HTML
    # list's entry is no section ("Octave:bad-alloc" over "Indicates that memory couldn't
    # be allocated." lost to the entry below it, Octave's review, 2026-12-05).
    leaves = [s.term or s.section for s in sentences]
    sections = {x: _own_case(_section_terms(x), innermost(x), letters)
                for x in set(leaves)}  # a few per page
    section_terms = [sections[x] for x in leaves]
    option = _ASKS_OPTION.match(question)
    options = frozenset((option.group(1),)) if option else frozenset()
    entry = {x: bool(options & _leaf_options(x)) for x in sections} if options else {}
    n = len(sentences)
    df = {t: sum(t in st for st in sent_terms) for t in q_terms}
    # A term that no retrieved sentence has still counts in the total: a question about
    # something the passages never mention covers little of itself anywhere.
    idf = {t: math.log(1.0 + n / (1 + df[t])) for t in q_terms}
    names = {s.source: document_terms(s.title, s.source) for s in sentences}
    routed = routing(question, q_terms, names, {s.source: s.title for s in sentences})

    def share(have: frozenset[str], entity: frozenset[str]) -> float:
        total = sum(idf[t] * (_ENTITY if t in entity else 1.0) for t in q_terms)
        got = sum(idf[t] * (_ENTITY if t in entity else 1.0) for t in q_terms if t in have)
        return got / total if total else 0.0

    best: dict[str, Scored] = {}
    for k, s in enumerate(sentences):
        entity = names[s.source]
        stated = stated_text(s, asks)
        answers = answered(asks, stated)
        # A sentence that leans on what came before ("The default is 1 GB.", "This is on
        # by default") is about its context's subject: the context weighs more then.
        leans = bool(answers) or _ANAPHORA.match(s.text) is not None
        context = share(before_terms[k] - sent_terms[k], entity)
        section = share(section_terms[k] - entity, entity)  # the part, not the document
        if entry.get(leaves[k]):
            section = 1.0  # the entry of the option the question names ("-l" of "-l[octnum]")
        parts = {
            "lexical": share(sent_terms[k], entity),
            "context_leaning": context if leans else 0.0,
            "context": 0.0 if leans else context,
            "intent": intent_score(asks, answers, stated),
            "routing": routed.get(s.source, 0.0),
            "defines": 1.0 if defined and defines(s.text, defined) else 0.0,
            "section": section,
            "structure": -structure_penalty(s, code_wanted, "version" in asks),
            "rank": -float(s.rank),
            "length": -max(0.0, len(s.text) - _LONG) / _LONG,
            # An answer says something beyond the question's and the title's words
            # ("Some background on fjords." says nothing about how they form).
            "substance": min(1.0, len(sent_terms[k] - set(q_terms) - entity) / _SUBSTANCE),
        }
        scored = Scored(s, _combine(parts), parts)
        if s.text not in best or scored.score > best[s.text].score:
            best[s.text] = scored
    out = sorted(best.values(), key=lambda x: x.score, reverse=True)
    if semantic is not None:
        short = _shortlist(out)
        # Meaning is compared twice: with the whole question, and with the question less
        # the words of the sentence's own document's title — an embedding, too, finds a
        # title notice close to a question that names the title. What is asked then counts.
        # (Masked with every retrieved title, a question lost words another page's title
        # has: "Can I share an Rc between threads?" became "Can I share an between".)
        texts = [compared_texts(x.sentence) for x in short]

        def meaning(asked: str, members: Sequence[int]) -> list[float]:
            # A sentence that points back: the mean of it alone and with what it points at.
            alone = [texts[i][0] for i in members]
            paired = [i for i in members if len(texts[i]) > 1]
            sims = [float(v) for v in semantic(asked, alone + [texts[i][1] for i in paired])]
            out = dict(zip(members, sims, strict=False))
            for i, v in zip(paired, sims[len(alone):], strict=False):
                out[i] = (out[i] + v) / 2
            return [out[i] for i in members]

        try:
            whole = meaning(question, range(len(short)))
            topical = list(whole)
            masks = {src: _masked(question, set(names[src]))
                     for src in {x.sentence.source for x in short}}  # one per document
            groups: dict[str, list[int]] = {}
            for i, x in enumerate(short):
                groups.setdefault(masks[x.sentence.source], []).append(i)
            for masked, members in groups.items():
                if masked != question:
                    for i, v in zip(members, meaning(masked, members), strict=False):
                        topical[i] = float(v)
        except Exception:
            whole = topical = []
        for x, full, sim in zip(short, whole, topical, strict=False):
            x.parts["semantic"] = (full + sim) / 2
            x.score = _combine(x.parts)
            x.parts["similarity"] = full  # for answerability; no weight in the score
        chosen = {id(x) for x in short}
        out = sorted(short, key=lambda x: x.score, reverse=True) + [
            x for x in out if id(x) not in chosen]
    return out


#: Of the shortlist, how many places go to the best sentences by their score less the
#: routing: a question whose words a page's title has ("release build" and "Customizing
#: Builds with Release Profiles") gave every sentence of that page +0.6, and they filled
#: the shortlist (the Rust book's review, 2026-12-04: the answer ranked 17th, was never
#: compared by meaning, and the question was declined).
UNROUTED = 5


def compared_texts(s: Sentence) -> tuple[str, ...]:
    """Every text of ``s`` that :func:`rank` compares with a question by meaning — what a
    chunk's embedding job embeds ahead of any question (:mod:`.sentence_vectors`): the
    sentence, and for one that points back ("This is because …", "It is usually best to
    …") also the sentence with the one before it in its paragraph
    (:attr:`Sentence.previous`; never a heading, a term or a lead-in). Alone, such a
    sentence says nothing of what it is about, and the sentence it points at — which names
    the subject, not the answer — won the why-questions; compared only as the pair, it
    inherited its neighbour's likeness to the question, and "This is a common mistake …"
    won as often as it lost. Half of each (``rank``): evidence@1 +2 on the tune split, +2
    held out, no abstention changed (2026-12-06, bench/README.md)."""
    if s.previous and _ANAPHORA.match(s.text):
        return (s.text, f"{s.text} {s.previous}")
    return (s.text,)


def _shortlist(out: list[Scored]) -> list[Scored]:
    """The :data:`SHORTLIST` best of ``out`` (sorted), :data:`UNROUTED` of them the best
    without routing when routing alone keeps them out."""
    head = out[:SHORTLIST - UNROUTED]
    taken = {id(x) for x in head}
    # nlargest is sorted(…, reverse=True)[:n], ties included, without sorting them all.
    unrouted = heapq.nlargest(
        UNROUTED, (x for x in out if id(x) not in taken),
        key=lambda x: x.score - WEIGHTS["routing"] * x.parts.get("routing", 0.0))
    taken |= {id(x) for x in unrouted}
    rest = [x for x in out if id(x) not in taken]
    return head + unrouted + rest[:SHORTLIST - len(head) - len(unrouted)]


def _section_terms(section: str) -> frozenset[str]:
    """The words of the innermost part of a section path ("OPTIONS > --partial"), an
    identifier's parts too: "KillUserProcesses=" is about killing a user's processes,
    "max_connections" about connections."""
    return name_terms(innermost(section))


# An option as a question or an entry names it: "-l", "--partial" (not "x-ray", "e-mail").
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
# A question that asks what an option is or does ("What does tar --update do …?"), not one
# that names it on the way ("How many redirects will curl chase with -L?" is answered in
# --max-redirs's entry, "… into days for -mtime?" in -atime's).
_ASKS_OPTION = re.compile(r"^\s*what(?:'s|\s+(?:is|are|does|do))\s+(?:[\w'’]+\s+){0,3}?"
                          + _OPTION.pattern, re.I)


def _switch_letters(question: str) -> dict[str, tuple[str, ...]]:
    """The one-letter switches ``question`` names, by the word an index makes of each:
    ``{"c": ("-c",)}``."""
    out: dict[str, tuple[str, ...]] = {}
    for switch, _, _ in named_switches(question):
        letter = switch[1].lower()
        # Not a letter the question also writes as a word in the other case: "compile C code
        # with gcc -c" asks about C as well ("I" and "A" are the pronoun and the article).
        other = switch[1].swapcase()
        if len(switch) == 2 and switch not in out.get(letter, ()) and (
                other in "IA" or re.search(rf"(?<![\w.'’-]){other}(?![\w'’.-])", question)
                is None):
            out[letter] = (*out.get(letter, ()), switch)
    return out


def _own_case(terms: Iterable[str], text: str, letters: dict[str, tuple[str, ...]]
              ) -> frozenset[str]:
    """``terms`` of ``text`` less the letter of a switch the question names
    (:func:`_switch_letters`) where ``text`` does not write that switch in its case: "c" is
    a word of "the -C switch" and of "C code", but neither is about "-c" (perl's "-C"
    entry was quoted for "What does perl's -c switch do?", 2026-12-07)."""
    have = frozenset(terms)
    drop = {t for t, switches in letters.items() if t in have} if letters else set()
    if drop:
        written = text.translate(DASHES)
        drop = {t for t in drop if not any(writes(written, x) for x in letters[t])}
    return have - drop if drop else have


def _leaf_options(section: str) -> frozenset[str]:
    """The options an entry's title names when it starts with one: "-l[octnum]" is "-l",
    "-d, -dt" is both, "--partial" itself; a title that is no option names none."""
    leaf = innermost(section).lstrip()
    return frozenset(_OPTION.findall(leaf)) if leaf.startswith("-") else frozenset()


def _masked(question: str, named: set[str]) -> str:
    """``question`` without its words whose term is in ``named`` (or itself when that
    would leave no content word)."""
    kept = [w for w in question.split()
            if not (set(content_terms(w)) & named)]
    text = " ".join(kept)
    return text if content_terms(text) else question
