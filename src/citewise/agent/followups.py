"""Follow-up questions: a thread's question rewritten with its earlier turns before search.

"And what does that do to hashing?" asked after a question about ``__eq__`` searches for
``hashing`` alone unless something carries ``__eq__`` in. A language model may do it in
its own query; the extractive model, and a model that does not, would not. So the host
does it, for every model, deterministically and without a model call:

1. a question is a **follow-up** when its thread has earlier turns and it leans on them —
   it opens with a connective ("and …", "what about …", "how about …", "also …"), or
   refers back with a pronoun or demonstrative ("it", "that", "those", "this one") while
   naming little of its own, or names at most one thing at all ("and for contractors?");
2. its **antecedent** is the salient words of the previous question (already rewritten,
   when that was a follow-up too), falling back to the previous answer's first sentence
   when the question names nothing: identifiers first (``__eq__``, ``os.path``,
   ``Config.load``, ``HTTP/2``), then the other content words, at most :data:`MAX_CARRIED`,
   leaving out what the new question already says;
   when neither question names an identifier but a quote of the previous answer sits
   under a name ("How many connections does it allow by default?" answered from under
   ``max_connections (integer)``), that name is the subject and comes first
   (:func:`answer_subject`);
3. the **rewritten query** is the question followed by those words; it is reported in
   ``QueryDetails.rewritten_query`` and every search of the run that lacks all of them
   gets them appended (:func:`carry_into`), whatever query the model chose.

A heuristic: a follow-up that changes the subject while saying "it" gets the old subject
added to its search. That costs ranking a little; a lost antecedent costs the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citewise.knowledge.index.headings import innermost
from citewise.text import STOPWORDS, content_terms, name_terms

__all__ = ["MAX_CARRIED", "FollowUp", "answer_subject", "carry_into", "rewrite"]

#: At most this many words are carried from earlier turns into a search.
MAX_CARRIED = 5

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CONNECTIVE = re.compile(
    r"^\W*(?:and|also|but|so|then|or|plus|what\s+about|how\s+about|what\s+if|same\s+for|"
    r"and\s+for|and\s+if|and\s+what|and\s+how|as\s+for|in\s+that\s+case)\b", re.IGNORECASE)
_ANAPHORA = _words(
    "it its it's itself that this these those they them their theirs he she him her his "
    "one ones there such former latter same above previous")
_WORD = re.compile(r"[A-Za-z_][\w]*(?:[./:-][\w]+)*(?:\(\))?|\d[\w.]*")
_IDENTIFIER = re.compile(r"_|\(\)|[./:]|\d|[a-z][A-Z]|^[A-Z]{2,}")


def _is_name(word: str) -> bool:
    """An identifier that names something: ``max_connections``, ``os.path``, ``HTTP/2``;
    not a section's number ("19.3.1") nor a version alone."""
    return (word[:1].isalpha() or word[:1] == "_") and _IDENTIFIER.search(word) is not None


# Words that ask rather than name (kept out of a carried antecedent).
_ASKING = _words(
    "happen happens happened work works mean means get gets take takes know want need "
    "way thing things exactly actually possible used use uses using")
_ASKING_TERMS = frozenset(content_terms(" ".join(_ASKING)))  # as the stemmer has them


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A follow-up question and the search query it stands for."""

    question: str
    rewritten: str
    carried: tuple[str, ...]


def rewrite(question: str, history: Sequence[tuple[str, str]],
            subject: str | Callable[[], str] = "") -> FollowUp | None:
    """The follow-up ``question`` rewritten with ``history`` (earlier ``(question,
    answer)`` turns, oldest first); None when it stands on its own. ``subject`` is what the
    last answer was about where its text does not say (:func:`answer_subject`), or a
    function that finds it, called only when it is needed (it reads the last run)."""
    previous: str | None = None
    last_answer = ""
    for q, a in history:
        # Each earlier question as it was searched: a chain of follow-ups keeps its subject.
        step = _rewrite_one(q, previous, a) if previous is not None else None
        previous = step.rewritten if step is not None else q
        last_answer = a
    if previous is None:
        return None
    return _rewrite_one(question, previous, last_answer, subject)


def answer_subject(answer: Mapping[str, Any], question: str = "") -> str:
    """The name an answer (as JSON) is about where its quotes do not say it, or "". A
    manual's answer often quotes "The default is typically 100 connections" under the
    name ``max_connections (integer)``, and "How do I change it?" asks about that name,
    in neither the question nor the quote (new-user review, 2026-12-03). The names are
    each quote's innermost section and the term line just above its paragraph (a
    definition list's term, as PostgreSQL's manual lists its parameters); the one sharing
    most words with ``question`` is taken, the first quote's on a tie."""
    asked = name_terms(question)
    best, best_shared = "", -1
    citations = answer.get("citations")
    for citation in citations if isinstance(citations, list) else []:
        for name in _cited_names(answer, citation):
            shared = len(name_terms(name) & asked)
            if shared > best_shared:
                best, best_shared = name, shared
    return best


_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_TERM_WORDS = 8


def _cited_names(answer: Mapping[str, Any], citation: Any) -> list[str]:
    try:
        doc = answer["search_documents"][citation["document_index"] - 1]
        snippet = doc["snippets"][citation["snippet_index"]]
        section, text, excerpt = snippet.get("section"), snippet["text"], citation["excerpt"]
        at = text.find(excerpt) if excerpt else -1
    except (KeyError, IndexError, TypeError, AttributeError):
        return []
    heads = [innermost(section)] if isinstance(section, str) else []
    before = _PARAGRAPH.split(text[:at]) if at > 0 else []
    if len(before) >= 2:  # the paragraph above the quote's, when it is a term's line
        term = before[-2].strip()
        if len(term.split()) <= _TERM_WORDS and not term.endswith((".", "!", "?", ":")):
            heads.append(term)
    # A man page's part ("OPTIONS") names nothing; nor does a section's number.
    return [w for head in heads if not head.isupper()
            for w in _salient(head, set()) if _is_name(w)]


def carry_into(query: str, carried: Sequence[str]) -> str:
    """``query`` with the ``carried`` words it lacks appended, unless it names the thread's
    subject — the first carried word, an identifier when there is one — already: a model
    that resolved the reference itself keeps its own query. Having *some* carried word is
    not enough: the extractive model's keyword query for "and on an attached database?"
    took "free disk space" from the turn before and lost that turn's subject, VACUUM."""
    if not carried:
        return query
    have = set(content_terms(query))
    if set(content_terms(carried[0])) <= have:
        return query
    missing = [w for w in carried if not set(content_terms(w)) <= have]
    return f"{query.rstrip()} {' '.join(missing)}"


def _rewrite_one(question: str, previous: str, answer: str,
                 subject: str | Callable[[], str] = "") -> FollowUp | None:
    if not _leans_back(question) and not _points_back(question, f"{previous} {answer}"):
        return None
    own = set(content_terms(question))
    carried = _salient(previous, own)
    if not carried:
        first = re.split(r"(?<=[.!?])\s", answer.strip(), maxsplit=1)[0]
        carried = _salient(re.sub(r"\[\d+(?:,\s*\d+)*\]", "", first), own)
    if subject and not any(_IDENTIFIER.search(w) for w in carried) and not any(
            _is_name(m.group(0)) for m in _WORD.finditer(question)):
        # Only when neither question names a thing.
        name = subject() if callable(subject) else subject
        named = [w for w in _salient(name, own) if _is_name(w)]
        carried = [*named, *(w for w in carried if w not in named)][:MAX_CARRIED]
    if not carried:
        return None
    return FollowUp(question, f"{question.strip()} {' '.join(carried)}", tuple(carried))


def _leans_back(question: str) -> bool:
    words = [w.lower() for w in re.findall(r"[\w']+", question)]
    named = [t for t in content_terms(question) if len(t) > 1 and t not in _ASKING_TERMS]
    if _CONNECTIVE.match(question) or len(named) <= 1:
        return True
    return any(w in _ANAPHORA for w in words) and len(named) <= 3


_DEMONSTRATIVE = re.compile(r"\b(?:this|that|these|those|the\s+same)\s+([A-Za-z][\w-]*)",
                            re.IGNORECASE)


def _points_back(question: str, before: str) -> bool:
    """A demonstrative before a noun the earlier turn used ("the default size of *that
    cache*", "can *this function* …"): a reference back however much else it names."""
    earlier = set(content_terms(before))
    return any(set(content_terms(m.group(1))) & earlier
               for m in _DEMONSTRATIVE.finditer(question))


def _salient(text: str, exclude: set[str]) -> list[str]:
    """The words of ``text`` worth carrying: identifiers first, then content words."""
    idents: list[str] = []
    plain: list[str] = []
    seen: set[str] = set()
    for i, m in enumerate(_WORD.finditer(text)):
        word = m.group(0).removesuffix("()")
        low = word.lower()
        stems = set(content_terms(word))
        if (low in STOPWORDS or low in _ANAPHORA or low in _ASKING or len(word) < 2
                or not stems or stems & exclude or low in seen):
            continue
        seen.add(low)
        # A capital that only starts the sentence marks nothing.
        if _IDENTIFIER.search(word) or (i > 0 and word[0].isupper()):
            idents.append(word)
        else:
            plain.append(word)
    return (idents + plain)[:MAX_CARRIED]
