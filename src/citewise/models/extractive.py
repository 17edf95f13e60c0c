"""``extractive``: the embedded default model. Deterministic, no weights, no server.

Policy, one step per model call:

1. turn the question into a search query (content keywords, plus earlier turns' keywords
   for a short follow-up) and call ``search_knowledge``;
2. if the evidence is weak, search again with a different query (the question verbatim);
3. answer with the best evidence sentences, each quoted verbatim from a retrieved passage
   and followed by its citation marker.

It never writes a word of its own into a claim: every sentence of an answer is a substring
of a cited snippet (less the snippet's own bracketed footnotes, which would read as
citation markers), so verification can only pass or report a missing document. Passages
are cut as answers are (:func:`citewise.grounding.claims.segments`): a quoted list item is
one claim with its own marker, and a list item or any other sentence without a full stop
is written as a markdown list item, so it never runs on into the next claim.

Asked for structured output, it fills the schemas an answer of quotes can fill: a string
(the answer), an array of strings (one quote each), or an object whose one required (or
only) string property takes the answer. It cannot invent values for any other shape: it
says so in a thought and answers in prose, and the run ends ``structured_output_invalid``
after its repairs, without searching again.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from citewise.grounding.claims import BLOCK_LEAD, MARKER_GROUP, QUESTION, segments
from citewise.models.base import (
    Message,
    ModelRequest,
    TextDelta,
    ToolCall,
    ToolCallPart,
    ToolMessage,
    UsagePart,
    UserMessage,
)
from citewise.text import STOPWORDS, overlap, terms

__all__ = ["NO_ANSWER", "ExtractiveModel", "create"]

Part = TextDelta | ToolCallPart | UsagePart

NO_ANSWER = "I could not find an answer to that in the knowledge base."
_SEARCH = "search_knowledge"
_TITLE_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’)\]]*\Z")


@dataclass(frozen=True, slots=True)
class _Candidate:
    score: float
    document_index: int
    text: str


class ExtractiveModel:
    """Answers by quoting the knowledge base. See the module docstring for the policy."""

    def __init__(self, *, max_sentences: int = 3, weak: float = 0.5, k: int = 5) -> None:
        self.max_sentences = max_sentences
        self.weak = weak
        self.k = k

    @property
    def name(self) -> str:
        return "extractive"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        question, history, observations = _read(request.messages)
        can_search = any(t.name == _SEARCH for t in request.tools)
        candidates = self._candidates(question, observations)
        best = candidates[0].score if candidates else 0.0
        if can_search and not observations:
            query = _keywords_query(question, history)
            yield TextDelta(channel="thought", text=f"I will search the knowledge base for: {query}")
            yield _call(request.step, query, self.k)
        elif can_search and len(observations) == 1 and best < self.weak:
            query = question.strip()
            yield TextDelta(
                channel="thought",
                text=f"The evidence is weak (best match {best:.2f}); searching again for: {query}",
            )
            yield _call(request.step, query, self.k)
        else:
            chosen = [c for c in candidates if c.score >= min(self.weak, best)][: self.max_sentences]
            if not chosen or best == 0.0:
                yield TextDelta(channel="thought", text="No passage answers the question.")
                yield TextDelta(channel="answer", text=NO_ANSWER)
            else:
                yield TextDelta(
                    channel="thought",
                    text=f"Answering from {len(chosen)} evidence sentence(s).",
                )
                pieces = _render(chosen)
                if request.output_schema is not None:
                    value = _fill(request.output_schema, "".join(pieces),
                                  [f"{c.text} [{c.document_index}]" for c in chosen])
                    if value is not _UNFILLABLE:
                        pieces = [json.dumps(value, ensure_ascii=False)]
                    else:
                        yield TextDelta(channel="thought", text=_CANNOT_FILL)
                for piece in pieces:
                    yield TextDelta(channel="answer", text=piece)
        prompt = sum(len(getattr(m, "content", "")) for m in request.messages) // 4
        yield UsagePart(input_tokens=prompt, output_tokens=0)

    def _candidates(self, question: str, observations: list[dict[str, Any]]) -> list[_Candidate]:
        seen: set[str] = set()
        out: list[_Candidate] = []
        for obs in observations:
            for rank, r in enumerate(obs.get("results", [])):
                text = str(r.get("text", ""))
                for a, b in segments(text):
                    sentence = MARKER_GROUP.sub("", text[a:b]).strip()
                    if sentence in seen or len(sentence) < 12 or not _asserts(text, a, b):
                        continue
                    seen.add(sentence)
                    # Rank breaks ties between equally overlapping sentences.
                    score = overlap(question, sentence) - rank * 1e-3
                    out.append(_Candidate(score, int(r["document_index"]), sentence))
        out.sort(key=lambda c: c.score, reverse=True)
        return out


def _asserts(text: str, a: int, b: int) -> bool:
    """False for a lead-in ("Options:") and a title line ("Eiffel Tower"): a few words
    with no full stop that are no list item name a topic, they say nothing about it."""
    body = MARKER_GROUP.sub("", text[a:b]).rstrip()
    if body.endswith(":") or QUESTION.search(body):
        return False  # a lead-in, or a question (an FAQ's heading): neither answers
    line = text.rfind("\n", 0, a) + 1
    lead = text[line:a]
    listed = BLOCK_LEAD.fullmatch(lead) is not None and not lead.lstrip().startswith("#")
    return bool(_SENTENCE_END.search(body) or listed or len(body.split()) > _TITLE_WORDS)


_UNFILLABLE = object()
_CANNOT_FILL = ("This schema needs values that quotes cannot give (the extractive model fills "
                "a string, an array of strings, or one required string property of an "
                "object); answering in prose — choose a language model for this schema.")


def _fill(schema: dict[str, Any], answer: str, quotes: list[str]) -> Any:
    """The answer as a value of ``schema``, for the shapes quotes can fill."""
    kind = schema.get("type")
    if kind == "string":
        return answer
    if kind == "array" and isinstance(schema.get("items"), dict) and (
            schema["items"].get("type") == "string"):
        return quotes
    properties = schema.get("properties")
    if kind != "object" or not isinstance(properties, dict):
        return _UNFILLABLE
    required = list(schema.get("required") or [])
    strings = [name for name, sub in properties.items()
               if isinstance(sub, dict) and sub.get("type") == "string"]
    target = required if required else strings
    if len(target) == 1 and target[0] in strings:
        return {target[0]: answer}
    return _UNFILLABLE


def _render(chosen: list[_Candidate]) -> list[str]:
    """The answer's pieces: sentences run on as prose, each followed by its marker; when
    one lacks a closing full stop (a list item, a heading), all are written as a list, or
    the claim splitter would glue it to the next sentence."""
    prose = all(_SENTENCE_END.search(c.text) for c in chosen)
    sep, bullet = (" ", "") if prose else ("\n", "- ")
    return [f"{sep if i else ''}{bullet}{c.text} [{c.document_index}]"
            for i, c in enumerate(chosen)]


def _call(step: int, query: str, k: int) -> ToolCallPart:
    return ToolCallPart(call=ToolCall(id=f"call_s{step}", name=_SEARCH,
                                      arguments={"query": query, "k": k}))


def _read(messages: list[Message]) -> tuple[str, list[str], list[dict[str, Any]]]:
    """The current question, earlier questions, and this turn's search results. The
    question is the last user message before the turn's first tool call: one after it is
    the loop's own (a structured-output repair prompt), not a new question (earlier turns
    come as questions and answers, without their tool calls)."""
    first_call = next((i for i, m in enumerate(messages)
                       if isinstance(m, ToolMessage) or getattr(m, "tool_calls", None)),
                      len(messages))
    last_user = max((i for i, m in enumerate(messages[:first_call])
                     if isinstance(m, UserMessage)), default=-1)
    question = messages[last_user].content if last_user >= 0 else ""
    history = [m.content for m in messages[:last_user] if isinstance(m, UserMessage)]
    observations = [
        m.data for m in messages[last_user + 1 :]
        if isinstance(m, ToolMessage) and m.name == _SEARCH and isinstance(m.data, dict)
    ]
    return question, history, observations


def _keywords_query(question: str, history: list[str]) -> str:
    words = _unique(t for t in _plain_terms(question))
    if len(words) < 3 and history:
        # A short follow-up ("and for contractors?") leans on the previous question.
        words += [w for w in _unique(_plain_terms(history[-1])) if w not in words]
    return " ".join(words) or question.strip()


def _plain_terms(text: str) -> list[str]:
    return [w for w in terms(text) if w not in STOPWORDS]


def _unique(words: Any) -> list[str]:
    out: list[str] = []
    for w in words:
        if w not in out:
            out.append(w)
    return out


def create(spec: str = "") -> ExtractiveModel:
    """Entry point for ``--model extractive``."""
    return ExtractiveModel()
