"""What an answer says when the documents do not answer, in the question's language.

Why apart: the decline is the one sentence of citewise's own that reaches an end user as
the answer (an API's or a chat's ``text``), and a French question got it in English (the
handbook review, 2026-12-04). It is written in each language the query analysis tells
apart by its function words (:func:`citewise.knowledge.retrieve.query.detect_language`),
English otherwise; :func:`is_decline` knows every one of them, so an answer that is one is
an abstention whatever its language. Warnings, thoughts and notes stay in English.

When the question's point is a word no document contains ("bcrypt" in a question about
Python's hashlib), the decline says so: the reader learns why, and what to look for
elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citewise.knowledge.retrieve.query import detect_language

if TYPE_CHECKING:
    from citewise.answer import Answer

__all__ = ["DECLINES", "NOT_IN_SOURCES", "NO_ANSWER_ISSUE", "UNMENTIONED", "UNNAMED", "declined",
           "is_decline", "listed", "not_in_sources"]

#: The issue code with which an answer says its sources do not answer the question.
NO_ANSWER_ISSUE = "no_answer_in_sources"


def declined(answer: Answer) -> bool:
    """Whether ``answer`` says the documents do not answer: it cites nothing, or carries
    :data:`NO_ANSWER_ISSUE` (every claim unsupported). What ``citewise eval`` counts as an
    abstention, and what is never flagged ``weak_evidence``."""
    return not answer.citations or any(i.code == NO_ANSWER_ISSUE for i in answer.issues)


#: The answer's text when no passage supports an answer, by ISO 639-1 language.
DECLINES: dict[str, str] = {
    "en": "The documents do not answer this question: no passage of the knowledge base "
          "supports an answer to it.",
    "fr": "Les documents ne répondent pas à cette question : aucun passage de la base de "
          "connaissances n'étaye une réponse.",
    "de": "Die Dokumente beantworten diese Frage nicht: Keine Passage der Wissensbasis "
          "stützt eine Antwort darauf.",
    "es": "Los documentos no responden a esta pregunta: ningún pasaje de la base de "
          "conocimiento respalda una respuesta.",
    "it": "I documenti non rispondono a questa domanda: nessun passaggio della base di "
          "conoscenza sostiene una risposta.",
    "nl": "De documenten beantwoorden deze vraag niet: geen passage uit de kennisbank "
          "ondersteunt een antwoord.",
    "pt": "Os documentos não respondem a esta pergunta: nenhuma passagem da base de "
          "conhecimento sustenta uma resposta.",
}
#: The English one, the default.
NOT_IN_SOURCES = DECLINES["en"]
_ALL = tuple(DECLINES.values())
#: What follows the decline when words of the question are in no document: the sentence
#: and the language's quotation marks around each word.
UNMENTIONED: dict[str, tuple[str, str, str]] = {
    "en": ("None of them contains {words}.", "“", "”"),
    "fr": ("Aucun ne contient {words}.", "« ", " »"),
    "de": ("Keines enthält {words}.", "„", "“"),
    "es": ("Ninguno contiene {words}.", "«", "»"),
    "it": ("Nessuno contiene {words}.", "«", "»"),
    "nl": ("Geen enkel document bevat {words}.", "‘", "’"),
    "pt": ("Nenhum deles contém {words}.", "«", "»"),
}


#: … and when the question names something the passages found do not mention ("Ctrl-Z"
#: over a manual that writes "control-Z"): what the asker can rephrase.
UNNAMED: dict[str, str] = {
    "en": "No passage found mentions {words}.",
    "fr": "Aucun passage trouvé ne mentionne {words}.",
    "de": "Keine gefundene Passage erwähnt {words}.",
    "es": "Ningún pasaje encontrado menciona {words}.",
    "it": "Nessun passaggio trovato menziona {words}.",
    "nl": "Geen gevonden passage noemt {words}.",
    "pt": "Nenhuma passagem encontrada menciona {words}.",
}


def listed(words: Sequence[str], marks: tuple[str, str] = ("“", "”")) -> str:
    """``words`` each in quotation marks, joined by commas: “graphical”, “desktop”."""
    return ", ".join(f"{marks[0]}{w}{marks[1]}" for w in words)


def not_in_sources(question: str, unmentioned: Sequence[str] = (),
                   unnamed: Sequence[str] = ()) -> str:
    """The decline in ``question``'s language (English when it is another or unknown),
    naming the words of ``unmentioned`` that no document contains, or else the names of
    ``unnamed`` that no passage found mentions."""
    language = detect_language(question) or "en"
    if language not in DECLINES:
        language = "en"
    sentence, opening, closing = UNMENTIONED[language]
    if unmentioned:
        return f"{DECLINES[language]} {sentence.format(words=listed(unmentioned, (opening, closing)))}"
    if unnamed:
        said = UNNAMED[language].format(words=listed(unnamed, (opening, closing)))
        return f"{DECLINES[language]} {said}"
    return DECLINES[language]


def _clause(sentence: str, opening: str, closing: str) -> re.Pattern[str]:
    word = f"{re.escape(opening)}[^{re.escape(closing)}]+{re.escape(closing)}"
    before, after = sentence.split("{words}")
    return re.compile(f"{re.escape(before)}{word}(?:, {word})*{re.escape(after)}")


# The sentence naming the words, alone: an answer's claims are its sentences one by one,
# and this one is part of the decline, no claim about the sources (the handbook review).
_CLAUSES = tuple(_clause(*v) for v in UNMENTIONED.values()) + tuple(
    _clause(UNNAMED[language], *UNMENTIONED[language][1:]) for language in UNNAMED)


def is_decline(text: str) -> bool:
    """Whether ``text`` is one of the declines above, in any language, with the sentence
    naming the words no document contains (or the names no passage found mentions) or
    without — or that sentence alone."""
    text = text.strip()
    for decline in _ALL:
        if text == decline:
            return True
        if text.startswith(decline) and text[len(decline)].isspace():
            text = text[len(decline):].lstrip()
            break
    return any(c.fullmatch(text) for c in _CLAUSES)
