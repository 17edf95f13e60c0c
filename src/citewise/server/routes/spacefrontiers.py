"""Space Frontiers' conversation route: ``POST /v2/conversations/`` (issue 26).

``spacefrontiers-clients``' ``SearchApiClient.post_conversations`` posts a
``ConversationRequest`` there and reads the body as its pydantic ``ConversationResponse``;
serving the same path lets that client switch to citewise by changing its base URL. The
answer is the ``conversation`` dialect (seed 003, :mod:`citewise.dialects.conversation`),
which both that model and the seed's schema accept.

* ``query`` is the question; ``conversation_id`` continues that thread (a citewise thread
  id, as the dialect's ``conversation_id`` reports it); without one a new thread starts;
* ``llm_config``, ``sources_filters`` and the search service's other fields are accepted
  and have no citewise counterpart: the tenant's knowledge base and the server's model
  answer;
* the client's ``X-Api-Key`` header is citewise's own API-key header;
* a run that failed is answered 500 with the dialect's body (``kind: "error"``), which that
  client raises on, as it does for any failed request.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from citewise.dialects import get_dialect
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.formats import check_request, respond_in

__all__ = ["ConversationRequest", "router"]

router = APIRouter(prefix="/v2", tags=["spacefrontiers"], responses=ERRORS)


class ConversationRequest(BaseModel):
    """Space Frontiers' ``ConversationRequest`` (fields citewise has no use for are accepted
    and ignored)."""

    model_config = ConfigDict(extra="allow", strict=True)

    query: str = Field(min_length=1, max_length=1_000_000, description="The question.")
    conversation_id: str | None = Field(default=None, min_length=1, max_length=128,
                                        description="Continue this thread.")
    id: int | None = Field(default=None, description="The client's step id (not used).")


@router.post("/conversations/", summary="Space Frontiers conversation request",
             responses={200: {"description": "A ConversationResponse (seed 003)"}})
async def post_conversation(body: ConversationRequest, state: State, who: Caller) -> Response:
    """Answer one conversation turn as a `ConversationResponse`."""
    check_request(state, body.query)
    return await respond_in(state, who.tenant, body.query, get_dialect("conversation"),
                            stream=False, thread_id=body.conversation_id)
