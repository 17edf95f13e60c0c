"""Query analysis: from a question to seed 003's ``Query`` and ``QueryDetails``.

Pure functions, no model calls: everything here is deterministic and cheap enough to run
on every request.

* language: the dominant script decides (Cyrillic → ``ru``/``uk``, Han → ``zh``, kana →
  ``ja``, Hangul → ``ko``, …); Latin text is scored against stopword lists of en, de, fr,
  es, it, nl and pt (a word shared by several languages counts for each in part).
* the question is stripped of inline filters (``collection:x``, ``#tag``), an output
  instruction ("answer in two sentences") and its date expression → ``reformulated_query``;
* ``keywords``: its words without the language's stopwords, in order, deduplicated;
* ``related_queries``: the keyword-only form, and the parts of a comparison ("A vs B")
  or of a multi-question;
* the date expression is kept as written and resolved against ``now`` by :func:`resolve`,
  which a cached ``Query`` is passed through again on every request.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from citewise.answer import Query, QueryDetails
from citewise.knowledge.retrieve.dates import find_date_expression, resolve_date_expression
from citewise.knowledge.retrieve.filters import Filters, extract_inline_filters, parse_filters
from citewise.text import STOPWORDS, content_terms

__all__ = ["analyze", "compounds", "details", "detect_language", "filters_of", "function_words",
           "keywords", "resolve"]

# A word: letters and digits, joined by apostrophes, hyphens and underscores ("isn't",
# "read-only", "pg_dump": an identifier is one keyword, as the question wrote it); or a
# letter named by its symbols ("C++", "C#": the indexes read it as one word, see
# citewise.text.symbol_names).
_WORD = re.compile(r"[A-Za-z](?:\+\+|#)(?![A-Za-z_+#])|[^\W_]+(?:['’_-][^\W_]+)*", re.UNICODE)
# An English contraction's tail: "what's" is the keyword "what" (a stopword), "isn't" is
# "is" ("not" is a stopword too); "won't"/"can't"/"shan't"/"ain't" are nothing but that.
_CLITIC = re.compile(r"['’](?:s|re|ve|ll|d|m)$|n['’]t$", re.IGNORECASE)
# French and Italian elide an article or pronoun before a vowel: "l'annuler", "d'un",
# "qu'il", "jusqu'à", "dell'utente".
_ELIDED = re.compile(r"^(?:[ldjnmstc]|qu|jusqu|lorsqu|puisqu|dell|all|nell|sull|dall|un"
                     r"|quest|quell)['’](?=\w)", re.I)
_JOINS = re.compile(r"['’-]")
_NEGATED = frozenset(("won't", "can't", "shan't", "ain't", "won’t", "can’t", "shan’t", "ain’t"))
# Han, kana and Hangul are written without spaces: split a "word" where the script changes,
# and drop hiragana-only runs (particles and endings such as "とは", "ですか").
_CJK_RUNS = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]+|[\u30a0-\u30ff]+|[\u3040-\u309f]+|"
                       r"[\uac00-\ud7af]+|[^\u3040-\u30ff\u4e00-\u9fff\u3400-\u4dbf\uac00-\ud7af]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP: dict[str, frozenset[str]] = {
    "en": frozenset(STOPWORDS)
    | _words(
        "the is are was were what which who how why when where does did do can could should "
        "would will of to in on for with and or not this that these those it its an a vs versus"
    ),
    "de": _words(
        "der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind "
        "war waren wird werden wie was wer wo wann warum welche welcher welches ich du er sie "
        "es wir ihr mit von zu zum zur im in auf für bei nach aus über unter vor auch noch nur "
        "kann können muss müssen soll sollen hat haben gibt mein meine dein unser sich dass"
    ),
    "fr": _words(
        "le la les un une des du de et ou mais ne pas est sont était été sera comment que qui "
        "quoi où quand pourquoi quel quelle quels quelles je tu il elle nous vous ils elles avec "
        "pour dans sur par au aux ce cette ces mon ma mes son sa ses leur leurs se qu est-ce "
        "peut peuvent faut fait y en a combien ai as avez ont suis es êtes sommes être avoir "
        "dois doit puis peux on si ne plus tout tous toute toutes votre vos notre nos me te "
        "lui moi ça cela ceci comme aussi sans sous entre vers chez alors donc car ni "
        # an elided article or pronoun: "l'annuler", "d'un dépôt", "qu'il"
        "l d j n s c m t jusqu lorsqu puisqu"
    ),
    "es": _words(
        "el la los las un una unos unas y o pero no es son era fue será cómo como qué que "
        "quién quien dónde donde cuándo cuando por porqué cuál cual cuáles yo tú él ella "
        "nosotros ellos ellas con para en sobre del al lo le les se su sus mi mis este esta "
        "estos estas hay puede pueden tiene tienen a de"
    ),
    "it": _words(
        "il lo la i gli le un uno una e o ma non è sono era come che chi dove quando perché "
        "quale quali io tu lui lei noi voi loro con per in su da del della dei delle al alla "
        "nel nella questo questa si può hanno ha di a l dell all nell sull dall quest quell"
    ),
    "nl": _words(
        "de het een en of maar niet is zijn was waren wordt hoe wat wie waar wanneer waarom "
        "welke ik jij hij zij wij jullie met van voor op in aan bij naar uit over dat die dit "
        "deze kan kunnen moet heeft hebben er ook nog"
    ),
    "pt": _words(
        "o a os as um uma e ou mas não é são era foi como que quem onde quando porque qual "
        "quais eu tu ele ela nós eles elas com para em sobre do da dos das no na nos nas "
        "ao este esta isso pode podem tem têm de"
    ),
}
# Letters that only (or mostly) one of the Latin-script languages uses.
_HINTS = {"de": "äöüß", "es": "ñ¿¡", "fr": "çœèêëîôû", "pt": "ãõ", "it": "ìò"}

_SCRIPTS: list[tuple[str, tuple[tuple[int, int], ...]]] = [
    ("ko", ((0xAC00, 0xD7AF), (0x1100, 0x11FF), (0x3130, 0x318F))),
    ("ja", ((0x3040, 0x30FF),)),
    ("zh", ((0x4E00, 0x9FFF), (0x3400, 0x4DBF))),
    ("ru", ((0x0400, 0x04FF),)),
    ("el", ((0x0370, 0x03FF),)),
    ("ar", ((0x0600, 0x06FF),)),
    ("he", ((0x0590, 0x05FF),)),
    ("hi", ((0x0900, 0x097F),)),
    ("th", ((0x0E00, 0x0E7F),)),
]

_INSTRUCTION = re.compile(
    r"[,;:–—-]?\s*\b(?:"
    r"(?:please\s+)?(?:answer|respond|reply|write)\s+(?:in|with|as|using)\s+[^,.;?!]+"
    r"|in\s+(?:one|two|three|four|five|\d+)\s+(?:sentences?|words?|paragraphs?|bullet\s+points?|bullets?)"
    r"|as\s+an?\s+(?:table|list|bullet(?:ed)?\s+list|numbered\s+list|summary)"
    r"|in\s+bullet\s+points|in\s+a\s+table"
    r"|step[-\s]by[-\s]step"
    r"|(?:(?:explain|describe|answer|summari[sz]e)\s+)?(?:briefly|in\s+detail|simply)"
    r"|be\s+brief|keep\s+it\s+short"
    r")\b",
    re.IGNORECASE,
)
_ASPECTS: list[tuple[str, re.Pattern[str]]] = [
    ("comparison", re.compile(r"\b(?:vs\.?|versus|compare[ds]?|comparison|difference between|"
                              r"differ(?:ence|s)?|better than|worse than)\b", re.I)),
    ("definition", re.compile(r"^\s*(?:what\s+(?:is|are)\s+(?:an?\s+|the\s+)?\w+\s*\??$|"
                              r"define\b|definition of|meaning of)", re.I)),
    ("how_to", re.compile(r"\bhow\s+(?:do|does|can|could|should|to|would)\b", re.I)),
    ("reason", re.compile(r"\bwhy\b", re.I)),
    ("quantity", re.compile(r"\bhow\s+(?:many|much|long|often|far|big|large)\b|\bnumber of\b", re.I)),
    ("time", re.compile(r"\bwhen\b|\bwhat\s+(?:date|time|year)\b", re.I)),
    ("location", re.compile(r"\bwhere\b", re.I)),
    ("person", re.compile(r"\bwho(?:m|se)?\b", re.I)),
    ("list", re.compile(r"^\s*list\b|\bwhich\s+\w+\s+(?:are|were)\b|\bexamples? of\b|"
                        r"\btypes? of\b|\bwhat\s+are\s+the\b", re.I)),
    ("summary", re.compile(r"\bsummar(?:y|ise|ize)\b|\boverview\b", re.I)),
    ("yes_no", re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|"
                          r"have|had)\b", re.I)),
]
_EVENT = re.compile(
    r"\b(?:what\s+happened|when\s+did|when\s+was|event|incident|outage|accident|launch(?:ed)?|"
    r"release[ds]?|announce[ds]?|election|meeting|conference)\b",
    re.I,
)
_RECENT = re.compile(
    r"\b(?:latest|recent(?:ly)?|newest|current(?:ly)?|nowadays|up[-\s]to[-\s]date|today|"
    r"this\s+week|right\s+now)\b",
    re.I,
)
_SPLIT_VS = re.compile(r"\s+(?:vs\.?|versus)\s+", re.I)
_BETWEEN = re.compile(r"\bdifference\s+between\s+(.+?)\s+and\s+(.+?)[?.!]*$", re.I)


# -- language ---------------------------------------------------------------------------------


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or None when there is too little to tell."""
    counts: dict[str, int] = {}
    latin = 0
    for ch in text:
        if not ch.isalpha():
            continue
        cp = ord(ch)
        if cp < 0x0250:
            latin += 1
            continue
        for lang, ranges in _SCRIPTS:
            if any(a <= cp <= b for a, b in ranges):
                counts[lang] = counts.get(lang, 0) + 1
                break
    if counts and max(counts.values()) >= latin:
        lang = max(counts, key=lambda k: counts[k])
        if lang == "zh" and counts.get("ja"):
            return "ja"  # Japanese mixes kanji with kana
        if lang == "ru" and any(ch in "іїєґІЇЄҐ" for ch in text):
            return "uk"
        return lang
    # "sont-ils", "l'annuler": the parts are the words a stopword list has; an English
    # contraction first loses its tail ("don't" is "do", not "don" and a French "t").
    words = [p for w in _WORD.findall(text.lower()) if w not in _NEGATED
             for p in _JOINS.split(_CLITIC.sub("", w)) if p]
    scores = dict.fromkeys(_STOP, 0.0)
    for word in words:
        owners = [lang for lang, stop in _STOP.items() if word in stop]
        for lang in owners:
            scores[lang] += 1.0 / len(owners)
    lowered = text.lower()
    for lang, letters in _HINTS.items():
        scores[lang] += 0.75 * sum(lowered.count(ch) for ch in letters)
    best = max(scores, key=lambda k: scores[k])
    if scores[best] < 0.5:
        return None
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == ranked[1]:
        return "en" if scores["en"] == ranked[0] else None
    return best


def function_words(question: str) -> frozenset[str]:
    """The function words of ``question``'s language when that is not English ("de",
    "les", the "l" of "l'annuler" in French), as :func:`citewise.text.content_terms` would
    make terms of them: what the evidence ranking must not count as what the question is
    about (new-user review of a French handbook, 2026-12-04: "de" and "les" routed
    questions to pages titled with them). Empty for English, whose are left out anyway."""
    language = detect_language(question)
    if language is None or language == "en" or language not in _STOP:
        return frozenset()
    return _function_terms(language)


@functools.lru_cache(maxsize=16)
def _function_terms(language: str) -> frozenset[str]:
    words = _STOP[language]
    return words | frozenset(t for w in words for t in content_terms(w))


def keywords(text: str, language: str | None = None) -> list[str]:
    """Content words in order of appearance, lower-cased, without stopwords/duplicates."""
    stop = _STOP.get(language or "en", _STOP["en"]) | _STOP["en"]
    out: list[str] = []
    for word in _WORD.findall(text):
        if word.lower() in _NEGATED:
            continue
        word = _CLITIC.sub("", word)
        if language in ("fr", "it"):
            word = _ELIDED.sub("", word)  # "l'annuler" is "annuler", "dell'utente" "utente"
        for run in _CJK_RUNS.findall(word):
            w = unicodedata.normalize("NFC", run.lower())
            cjk = ord(w[0]) >= 0x3040
            if cjk and all(0x3040 <= ord(ch) <= 0x309F for ch in w):
                continue  # hiragana only
            if w in stop or (len(w) < 2 and not w.isdigit() and not cjk) or w in out:
                continue
            out.append(w)
    return out


# Two words of a question, written apart or hyphenated, that a document may write as one:
# "back up" / "backup", "set-up" / "setup", "time out" / "timeout", "file name" /
# "filename". Only letters; the first a content word, the second one too or a verb's
# particle ("up", "out", "in"): "and re-index" is no "andre", "how to" no "howto"; and not
# a name ("How do I run Ant on Windows?" is no "anton", a credits page's "Anton Keller":
# code review, 2026-12-07), unless hyphenated ("Set-up").
_PAIR = re.compile(r"(?<![\w'’-])([A-Za-z]{2,})[ -](?=([A-Za-z]{2,})(?![\w'’]))")
_COMPOUND_CHARS = 24
_PARTICLES = frozenset(("up", "down", "in", "out", "on", "off", "over", "back", "away"))


def _opens_sentence(text: str, at: int) -> bool:
    """Whether the word at ``at`` opens its sentence (its capital is no name's): nothing
    but spaces, quotes or brackets back to the text's start or a sentence's end."""
    i = at - 1
    while i >= 0 and not text[i].isalnum() and text[i] not in ".!?:":
        i -= 1
    return i < 0 or text[i] in ".!?:"


def compounds(text: str) -> list[str]:
    """Adjacent words of ``text`` joined, lower-cased, as a document may write them as one
    word ("back up" → "backup"): the lexical search looks for them too. Xapian's guide says
    "Backup Strategies" and "to perform a backup", and "What is the easiest way to back up a
    Xapian database?" found no passage of it (new-user review, 2026-12-07). A joined word
    that no document has matches nothing; the pair's own words are searched as before."""
    out: dict[str, None] = {}
    for m in _PAIR.finditer(text):
        first, second = m.group(1).lower(), m.group(2).lower()
        joined = first + second
        named = (m.group(1)[:1].isupper() and text[m.end(1)] != "-"
                 and not _opens_sentence(text, m.start(1)))
        if (named or first in STOPWORDS or (second in STOPWORDS and second not in _PARTICLES)
                or len(joined) > _COMPOUND_CHARS):
            continue
        out[joined] = None
    return list(out)


# -- analysis ---------------------------------------------------------------------------------


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:-–—")


def _related(reformulated: str, kws: Sequence[str]) -> list[str]:
    out: list[str] = []
    if kws:
        out.append(" ".join(kws))
    questions = [q.strip() for q in re.split(r"(?<=\?)\s+|;\s*", reformulated) if q.strip()]
    if len(questions) > 1:
        out.extend(questions)
    m = _BETWEEN.search(reformulated)
    parts = [m.group(1), m.group(2)] if m else _SPLIT_VS.split(reformulated)
    if len(parts) == 2 and all(p.strip() for p in parts):
        out.extend(_clean(p).rstrip("?.!") for p in parts)
    seen = {reformulated.lower().rstrip("?.! ")}
    related: list[str] = []
    for q in out:
        key = q.lower().rstrip("?.! ")
        if key and key not in seen:
            seen.add(key)
            related.append(q)
    return related[:4]


def _title(text: str) -> str | None:
    words = text.rstrip("?.! ").split()
    if not words:
        return None
    title = " ".join(words[:10])
    if len(title) > 80:
        title = title[:79].rsplit(" ", 1)[0] + "…"
    return title[0].upper() + title[1:]


def analyze(
    question: str,
    *,
    now: datetime | None = None,
    filters: Mapping[str, Any] | None = None,
    knowledge_source: str | None = None,
) -> Query:
    """Analyse ``question``; ``filters`` are the request's (see ``query_filters``).

    Request filters win over inline ones. ``now`` (default: the current UTC time)
    resolves the date expression into ``Query.date``.
    """
    original = question
    text, inline = extract_inline_filters(question)
    request = parse_filters(filters)
    merged = inline.merged(request)
    instructions = [_clean(m.group(0)) for m in _INSTRUCTION.finditer(text)]
    text = _INSTRUCTION.sub(" ", text)
    found = find_date_expression(text)
    expression = found[0] if found else None
    if found:
        text = text[: found[1]] + " " + text[found[2] :]
    reformulated = _clean(text)
    if reformulated.endswith((" ?", " .")):
        reformulated = reformulated[:-2] + reformulated[-1]
    language = detect_language(reformulated or original)
    kws = keywords(reformulated, language)
    aspects = [name for name, pattern in _ASPECTS if pattern.search(reformulated)]
    if expression and "time" not in aspects:
        aspects.append("time")
    collection = knowledge_source or (merged.collections[0] if len(merged.collections) == 1 else None)
    query = Query(
        original_query=original,
        reformulated_query=reformulated or _clean(original),
        keywords=kws,
        related_queries=_related(reformulated, kws),
        query_language=language,
        date_expression=expression,
        filters=merged.to_dict(),
        knowledge_source=collection,
        content_type=merged.content_types[0] if merged.content_types else None,
        instruction="; ".join(instructions) or None,
        title=_title(reformulated),
        classified_aspects=aspects,
        is_event=bool(_EVENT.search(reformulated)),
        is_recent=bool(_RECENT.search(original)),
    )
    return resolve(query, now)


def resolve(query: Query, now: datetime | None = None) -> Query:
    """``query`` with its date expression resolved against ``now`` (request time).

    Use on a cached ``Query``: "last month" is recomputed, and so is ``is_recent`` (the
    question says "latest"/"recent"/…, or its range starts within the last 62 days).
    """
    now = now or datetime.now(UTC)
    worded = bool(_RECENT.search(query.original_query))
    if not query.date_expression:
        return query.model_copy(update={"date": None, "is_recent": worded})
    span = resolve_date_expression(query.date_expression, now)
    recent = worded or (span is not None and span[0] >= now - timedelta(days=62))
    return query.model_copy(update={"date": span, "is_recent": recent})


def filters_of(query: Query) -> Filters:
    """The filters to search with: the query's, narrowed by its resolved date range
    (explicit date filters win over the date expression)."""
    filters = parse_filters(query.filters)
    if query.date is not None:
        filters = filters.with_dates(*query.date)
    return filters


def details(
    query: Query | None,
    *,
    queries: Sequence[str] = (),
    incomplete: Sequence[str] = (),
    retrieved: int | None = None,
    selected: int | None = None,
    compared: int | None = None,
    planning_fallback: bool = False,
    ranking_fallback: bool = False,
) -> QueryDetails:
    """The search-stage counts: ``retrieved`` hits over all queries, ``compared``
    candidates ranked (fused/reranked), ``selected`` snippets shown to the model."""
    main = query.reformulated_query if query is not None else (queries[0] if queries else None)
    return QueryDetails(
        query=main,
        queries=list(dict.fromkeys(queries)) or ([main] if main else []),
        incomplete_queries=list(incomplete),
        retrieved=retrieved,
        selected=selected,
        compared=compared,
        planning_fallback=planning_fallback,
        ranking_fallback=ranking_fallback,
    )
