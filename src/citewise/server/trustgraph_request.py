"""TrustGraph's ``AgentRequest`` and how its history becomes a thread's turns.

Shared by the REST route (:mod:`citewise.server.routes.trustgraph`) and the websocket
(:mod:`citewise.server.routes.trustgraph_socket`), which carries the same request inside its
envelope; apart from both so that neither imports the other.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AgentStep", "TrustGraphAgentRequest", "turns_of"]


class AgentStep(BaseModel):
    """One earlier ReAct step of TrustGraph's agent."""

    model_config = ConfigDict(extra="allow", strict=True)

    thought: str = Field(default="", description="The agent's reasoning at this step.")
    action: str = Field(default="", description="The tool it called.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")
    observation: str = Field(default="", description="What the tool returned.")


class TrustGraphAgentRequest(BaseModel):
    """TrustGraph's ``AgentRequest`` (unknown fields are accepted and ignored)."""

    model_config = ConfigDict(extra="allow", strict=True)

    question: str = Field(min_length=1, max_length=1_000_000, description="The question.")
    state: str | None = Field(default=None, max_length=100_000,
                              description="TrustGraph agent state (accepted, not used).")
    group: list[str] | str | None = Field(
        default=None, description="TrustGraph tool group(s) (accepted, not used).")
    history: list[AgentStep] = Field(default_factory=list, max_length=100,
                                     description="Earlier steps: the history of a new thread.")
    streaming: bool = Field(default=False, description="Answer with SSE chunks.")
    user: str | None = Field(default=None, max_length=256, description="Accepted, not used.")
    collection: str | None = Field(default=None, max_length=256,
                                   description="Accepted, not used.")


def turns_of(history: list[AgentStep]) -> list[tuple[str, str]]:
    """One (question, answer) turn per step: thought + action as asked, observation as said."""
    turns: list[tuple[str, str]] = []
    for step in history:
        asked = step.thought.strip()
        if step.action:
            args = json.dumps(step.arguments, ensure_ascii=False, sort_keys=True)
            asked = f"{asked}\nAction: {step.action} {args}".strip()
        if asked or step.observation:
            turns.append((asked, step.observation))
    return turns
