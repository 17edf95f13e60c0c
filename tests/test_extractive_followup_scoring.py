"""A follow-up in a thread is searched with its thread's subject (``carried_terms``: the
search observation's ``query`` says what was searched); the extractive model must score
the sentences it found, and their answerability, against that same query — the bare
follow-up ("How is it harvested?") names nothing, so it used to abstain."""

from __future__ import annotations

import asyncio
from typing import Any

from citewise.models.base import AssistantMessage, ModelRequest, TextDelta, ToolMessage, UserMessage
from citewise.models.extractive import NO_ANSWER, ExtractiveModel

SAFFRON = (
    "Saffron is a spice derived from the flower of Crocus sativus. "
    "To make saffron, the red stigmas of the crocus flowers are picked by hand at dawn "
    "and dried. It takes about 150 flowers to yield one gram of dried saffron threads."
)
OTHER = (
    "Rice is harvested when the grains turn golden. A combine cuts the stalks and threshes "
    "them in one pass."
)


def _answer(question: str, searched: str, *, earlier: str | None = None) -> str:
    results: list[dict[str, Any]] = [
        {"text": SAFFRON, "document_index": 1, "title": "Spices"},
        {"text": OTHER, "document_index": 2, "title": "Grains"},
    ]
    messages: list[Any] = []
    if earlier:
        messages += [UserMessage(content=earlier),
                     AssistantMessage(content="Saffron is a spice derived from the flower of "
                                              "Crocus sativus. [1]")]
    messages += [
        UserMessage(content=question),
        ToolMessage(call_id="c1", name="search_knowledge", content="",
                    data={"query": searched, "results": results}),
    ]
    request = ModelRequest(messages=messages)

    async def go() -> str:
        return "".join([p.text async for p in ExtractiveModel().stream(request)
                        if isinstance(p, TextDelta) and p.channel == "answer"])

    return asyncio.run(go())


def test_a_follow_up_is_scored_against_the_query_that_carries_its_subject() -> None:
    text = _answer("How is it harvested?", "How is it harvested? saffron",
                   earlier="What is saffron?")
    assert text != NO_ANSWER
    assert text.startswith("To make saffron, the red stigmas")


def test_a_question_that_names_its_subject_is_unchanged() -> None:
    text = _answer("How is rice harvested?", "How is rice harvested?")
    assert text.startswith("Rice is harvested when the grains turn golden.")


def test_a_follow_up_does_not_quote_the_earlier_answer_again() -> None:
    # "And which one is the fastest?" after the default level: searched with the earlier
    # subject, the sentence already quoted won again (new-user review, session 18).
    gzip = ("The default compression level is -6 (that is, biased towards high compression "
            "at expense of speed). Regulate the speed of compression using the specified "
            "digit, where -1 or --fast indicates the fastest compression method (less "
            "compression) and -9 or --best indicates the slowest compression method.")
    results = [{"text": gzip, "document_index": 1, "title": "gzip"}]
    earlier = ("The default compression level is -6 (that is, biased towards high "
               "compression at expense of speed). [1]")

    def answer(messages: list[Any]) -> str:
        async def go() -> str:
            return "".join([p.text async for p in ExtractiveModel().stream(
                ModelRequest(messages=messages)) if isinstance(p, TextDelta)
                and p.channel == "answer"])
        return asyncio.run(go())

    follow_up = [UserMessage(content="And which level is the fastest?"),
                 ToolMessage(call_id="c1", name="search_knowledge", content="", data={
                     "query": "which level fastest default compression level gzip",
                     "results": results})]
    alone = answer(follow_up)
    assert alone.startswith("The default compression level is -6")  # as it was
    text = answer([UserMessage(content="What compression level does gzip use by default?"),
                   AssistantMessage(content=earlier), *follow_up])
    assert text.startswith("Regulate the speed of compression"), text


def test_a_follow_up_the_earlier_quote_answers_gets_it_again() -> None:
    # Only a sentence with the follow-up's own words displaces the earlier quote.
    messages: list[Any] = [
        UserMessage(content="What is saffron?"),
        AssistantMessage(content="To make saffron, the red stigmas of the crocus flowers "
                                 "are picked by hand at dawn and dried. [1]"),
        UserMessage(content="And how are they picked?"),
        ToolMessage(call_id="c1", name="search_knowledge", content="", data={
            "query": "how are they picked saffron", "results": [
                {"text": SAFFRON, "document_index": 1, "title": "Spices"}]})]

    async def go() -> str:
        return "".join([p.text async for p in ExtractiveModel().stream(
            ModelRequest(messages=messages)) if isinstance(p, TextDelta)
            and p.channel == "answer"])

    assert asyncio.run(go()).startswith("To make saffron, the red stigmas")
