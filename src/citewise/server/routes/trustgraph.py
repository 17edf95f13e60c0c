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
* ``?format=current`` answers in the format TrustGraph 2.x clients parse (``message_type``
  chunks with ``end_of_message`` / ``end_of_dialog``, see
  :class:`~citewise.dialects.trustgraph.CurrentEncoder`) instead of the seed's
  (``chunk-type``; the default, ``?format=seed``); TrustGraph's websocket
  (``/api/v1/socket``, :mod:`citewise.server.routes.trustgraph_socket`) always speaks it;
* ``flow`` names the TrustGraph flow; citewise serves one agent, whatever the flow.
  ``state``, ``group`` (TrustGraph's tool-group filter), ``user`` and ``collection`` are
  accepted and have no citewise counterpart: the tenant's knowledge base and the
  service's tools answer.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from citewise.dialects import get_dialect
from citewise.dialects.trustgraph import TrustGraphCurrentDialect
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.formats import SSE_DOC, check_request, respond_in
from citewise.server.trustgraph_request import TrustGraphAgentRequest, turns_of

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", tags=["trustgraph"], responses=ERRORS)


@router.post("/flow/{flow}/service/agent", summary="TrustGraph agent request",
             responses={200: {"description": "TrustGraph's legacy response, or SSE chunks",
                              "content": {"application/json": {"schema": {"type": "object"}},
                                          "text/event-stream": SSE_DOC}}})
async def trustgraph_agent(
    flow: Annotated[str, Path(min_length=1, max_length=128, description="TrustGraph flow id.")],
    body: TrustGraphAgentRequest, request: Request, state: State, who: Caller,
    format: Annotated[Literal["seed", "current"], Query(
        description="`seed`: seed 000's chunks (`chunk-type`); `current`: what TrustGraph "
                    "2.x clients parse (`message_type`, `end_of_dialog`).")] = "seed",
) -> Response:
    """Answer TrustGraph's agent request in the `trustgraph` dialect (see the module notes)."""
    check_request(state, body.question)  # before a thread is written
    wants_sse = body.streaming or "text/event-stream" in request.headers.get("accept", "")
    dialect = get_dialect("trustgraph") if format == "seed" else TrustGraphCurrentDialect()
    return await respond_in(state, who.tenant, body.question, dialect,
                            stream=wants_sse, history=turns_of(body.history))

