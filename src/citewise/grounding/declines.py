"""What an answer says when the documents do not answer, in the question's language.

Why apart: the decline is the one sentence of citewise's own that reaches an end user as
the answer (an API's or a chat's ``text``), and a French question got it in English (the
handbook review, 2026-12-04). It is written in each language the query analysis tells
apart by its function words (:func:`citewise.knowledge.retrieve.query.detect_language`),
English otherwise; :func:`is_decline` knows every one of them, so an answer that is one is
an abstention whatever its language. Warnings, thoughts and notes stay in English.
"""

from __future__ import annotations

from citewise.knowledge.retrieve.query import detect_language

__all__ = ["DECLINES", "NOT_IN_SOURCES", "is_decline", "not_in_sources"]

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
_ALL = frozenset(DECLINES.values())


def not_in_sources(question: str) -> str:
    """The decline in ``question``'s language (English when it is another or unknown)."""
    return DECLINES.get(detect_language(question) or "en", NOT_IN_SOURCES)


def is_decline(text: str) -> bool:
    """Whether ``text`` is one of the declines above, in any language."""
    return text.strip() in _ALL
