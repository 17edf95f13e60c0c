"""TrustGraph's agent service: ``POST /api/v1/flow/{flow}/service/agent`` (issue 7).

A TrustGraph client switches to citewise by changing its base URL: the request is
TrustGraph's ``AgentRequest`` and the answer is in the ``trustgraph`` dialect
(:mod:`citewise.dialects.trustgraph`):

* ``question`` is the question;
* ``history`` — earlier ReAct steps ``{thought, action, arguments, observation}`` — becomes
  the history of a new thread, one turn per step (the thought and the action with its
  arguments as the turn's question, the observation as its answer), so the agent sees
  what was already tried;
* ``streaming: true`` (or ``Accept: text/event-stream``) answers SSE ``data:`` chunks
  (thought / action / observation / answer / explain, then ``final-answer`` with
  ``end-of-dialog``); otherwise the legacy ``{answer, thought, observation}`` object;
* a failed run: ``{"error": {message, code}}`` — status 500 when not streaming — or, while
  streaming, an ``error`` chunk that ends the dialog; a paused run ends with the error code
  ``run_paused`` (resume it through ``/v1/runs/{id}/resume``; the run id is in ``X-Run-Id``);
* ``flow`` names the TrustGraph flow; citewise serves one agent, whatever the flow.
  ``state``, ``group`` (TrustGraph's tool-group filter), ``user`` and ``collection`` are
  accepted and have no citewise counterpart: the tenant's knowledge base and the
  service's tools answer.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from citewise.dialects import get_dialect
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.formats import SSE_DOC, check_request, respond_in

__all__ = ["AgentStep", "TrustGraphAgentRequest", "router", "turns_of"]

router = APIRouter(prefix="/api/v1", tags=["trustgraph"], responses=ERRORS)


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
    group: list[str] | None = Field(default=None, max_length=100,
                                    description="TrustGraph tool groups (accepted, not used).")
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


@router.post("/flow/{flow}/service/agent", summary="TrustGraph agent request",
             responses={200: {"description": "TrustGraph's legacy response, or SSE chunks",
                              "content": {"application/json": {"schema": {"type": "object"}},
                                          "text/event-stream": SSE_DOC}}})
async def trustgraph_agent(
    flow: Annotated[str, Path(min_length=1, max_length=128, description="TrustGraph flow id.")],
    body: TrustGraphAgentRequest, request: Request, state: State, who: Caller,
) -> Response:
    """Answer TrustGraph's agent request in the `trustgraph` dialect (see the module notes)."""
    check_request(state, body.question)  # before a thread is written
    wants_sse = body.streaming or "text/event-stream" in request.headers.get("accept", "")
    return await respond_in(state, who.tenant, body.question, get_dialect("trustgraph"),
                            stream=wants_sse, history=turns_of(body.history))
