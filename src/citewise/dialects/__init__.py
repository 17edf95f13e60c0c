"""Wire formats: one pure serialiser per dialect over citewise's events and Answer.

``get_dialect(name)`` returns the dialect for ``?format=NAME`` / ``--format NAME``;
``DIALECTS`` maps every name to a shared, stateless instance. Per-stream state lives in
``dialect.encoder()`` (push: ``encoder.feed(event) -> list[dict]``); ``dialect.stream``
maps a complete iterable, :func:`astream` / :func:`sse_astream` a live async one. Each dialect module imports
only the value model (``citewise.answer``, ``citewise.events``, ``citewise.triples``); this
registry adds ``citewise.errors`` for its one typed error.
"""

from __future__ import annotations

from types import MappingProxyType

from citewise.dialects.a2a import A2ADialect
from citewise.dialects.agent_event import AgentEventDialect
from citewise.dialects.agentos import AgentOSDialect
from citewise.dialects.agui import AgUiDialect
from citewise.dialects.ai_sdk import AiSdkDialect
from citewise.dialects.aio import astream, sse_astream
from citewise.dialects.answer_response import AnswerDialect
from citewise.dialects.base import (
    Dialect,
    Encoder,
    answer_of,
    encode,
    final_of,
    sse_frame,
    sse_stream,
)
from citewise.dialects.conversation import ConversationDialect
from citewise.dialects.native import CitewiseDialect
from citewise.dialects.openai_chat import OpenAIChatDialect
from citewise.dialects.trustgraph import TrustGraphDialect
from citewise.errors import InvalidInput

__all__ = [
    "DEFAULT_DIALECT",
    "DIALECTS",
    "A2ADialect",
    "AgUiDialect",
    "AgentEventDialect",
    "AgentOSDialect",
    "AiSdkDialect",
    "AnswerDialect",
    "CitewiseDialect",
    "ConversationDialect",
    "Dialect",
    "Encoder",
    "OpenAIChatDialect",
    "TrustGraphDialect",
    "answer_of",
    "astream",
    "encode",
    "final_of",
    "get_dialect",
    "sse_astream",
    "sse_frame",
    "sse_stream",
]

DEFAULT_DIALECT = "citewise"

_ALL: tuple[Dialect, ...] = (
    CitewiseDialect(),
    TrustGraphDialect(),
    AgentOSDialect(),
    AgentEventDialect(),
    ConversationDialect(),
    AnswerDialect(),
    AgUiDialect(),
    OpenAIChatDialect(),
    A2ADialect(),
    AiSdkDialect(),
)

DIALECTS: MappingProxyType[str, Dialect] = MappingProxyType({d.name: d for d in _ALL})
"""Every dialect by name (read-only)."""


def get_dialect(name: str | None = None) -> Dialect:
    """The dialect called ``name`` (``citewise`` when None or empty).

    Raises :class:`~citewise.errors.InvalidInput` with code ``unknown_format`` otherwise.
    """
    key = (name or DEFAULT_DIALECT).strip().lower()
    try:
        return DIALECTS[key]
    except KeyError:
        raise InvalidInput(
            f"unknown format {name!r}; expected one of: {', '.join(DIALECTS)}",
            code="unknown_format",
            details={"format": name, "allowed": list(DIALECTS)},
        ) from None
