"""Instructions every adapter adds to what the agent already says (shared, so the three
wire formats tell a model the same thing)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from citewise.models.base import Message, SystemMessage

__all__ = ["estimate_tokens", "schema_instruction", "with_system"]


def schema_instruction(schema: dict[str, Any] | None) -> str:
    """What to say about ``output_schema`` (empty when there is none)."""
    if schema is None:
        return ""
    return (
        "When you give your final answer, reply with only a JSON value (no prose, no code "
        "fence) that validates against this JSON Schema, keeping citation markers like [1] "
        "inside its strings:\n" + json.dumps(schema, ensure_ascii=False)
    )


def with_system(messages: Sequence[Message], extra: str) -> list[Message]:
    """``messages`` with ``extra`` appended to the first system message (or a new one)."""
    out = list(messages)
    if not extra:
        return out
    for i, m in enumerate(out):
        if isinstance(m, SystemMessage):
            out[i] = SystemMessage(content=f"{m.content}\n\n{extra}" if m.content else extra)
            return out
    return [SystemMessage(content=extra), *out]


def estimate_tokens(text: str) -> int:
    """A rough token count (≈ 4 characters per token for English BPE vocabularies), used only
    when a server does not report usage."""
    return (len(text) + 3) // 4 if text else 0
