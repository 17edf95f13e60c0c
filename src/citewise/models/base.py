"""The model seam: messages and tool specs in, a stream of parts out.

A model is anything with a ``name`` and an async ``stream(request)`` that yields
:data:`ModelEvent` parts: text deltas (on the ``thought`` or ``answer`` channel), tool
calls and usage. Wire formats (OpenAI chat, text-ReAct, grammar-constrained JSON) live in
adapters behind this contract; credentials and base URLs live in providers beside them.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AssistantMessage",
    "EvidencePart",
    "Message",
    "Model",
    "ModelEvent",
    "ModelRequest",
    "Part",
    "SystemMessage",
    "TextDelta",
    "ToolCall",
    "ToolCallPart",
    "ToolMessage",
    "ToolSpec",
    "UsagePart",
    "UserMessage",
]


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_M):
    """A call the model asks for."""

    id: str = Field(description="Call id, unique within the run.")
    name: str = Field(description="Tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Raw arguments.")


class SystemMessage(_M):
    role: Literal["system"] = "system"
    content: str


class UserMessage(_M):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(_M):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)


class ToolMessage(_M):
    """A tool's result. ``content`` is what a language model reads; ``data`` is the same
    result as structured JSON for policies that read it directly (e.g. ``extractive``)."""

    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    is_error: bool = False
    data: Any = None


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")
]


class ToolSpec(_M):
    """What a model is told about a tool."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict, description="JSON Schema.")


class ModelRequest(_M):
    """One model call."""

    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    output_schema: dict[str, Any] | None = Field(
        default=None, description="When set, the final answer must be JSON of this schema."
    )
    step: int = 0


class TextDelta(_M):
    kind: Literal["text"] = "text"
    text: str
    channel: Literal["thought", "answer"] = "answer"


class ToolCallPart(_M):
    kind: Literal["tool_call"] = "tool_call"
    call: ToolCall


class UsagePart(_M):
    kind: Literal["usage"] = "usage"
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)


class EvidencePart(_M):
    """What the model estimates of the evidence it answers from, each with the threshold
    that gives it meaning on the model's own scale: ``answerability`` — whether the
    passages answer at all (below ``abstain_below`` it declines) — and, for an answer it
    gives, ``confidence`` — how likely its first quote states the answer (below
    ``weak_below`` the answer is flagged ``weak_evidence``). A model that estimates
    nothing sends none. Only the answering turn's part counts."""

    kind: Literal["evidence"] = "evidence"
    answerability: float = Field(ge=0.0, le=1.0)
    abstain_below: float = Field(ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    weak_below: float = Field(default=0.0, ge=0.0, le=1.0)


Part = TextDelta | ToolCallPart | UsagePart | EvidencePart
ModelEvent = Annotated[Part, Field(discriminator="kind")]


@runtime_checkable
class Model(Protocol):
    """The one contract every model implements."""

    @property
    def name(self) -> str: ...

    def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        """Yield the parts of one assistant turn."""
        ...
