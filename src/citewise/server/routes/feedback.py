"""``/v1/feedback``: rate an answer with its feedback token; list the tenant's ratings.

The token names its run and tenant; a token of another tenant is answered exactly like
an unknown run (404), so it can neither write there nor tell that the run exists.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query

from citewise.errors import NotFound
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.schemas import FeedbackCreated, FeedbackInfo, FeedbackList, FeedbackRequest

__all__ = ["router"]

router = APIRouter(prefix="/v1/feedback", tags=["feedback"], responses=ERRORS)


@router.post("", status_code=201, response_model=FeedbackCreated, summary="Rate an answer",
             responses={409: {**ERRORS[400], "description": "Already rated"}})
async def submit_feedback(body: FeedbackRequest, state: State, who: Caller) -> FeedbackCreated:
    """Rate the answer (0-3), or one of its documents or passages, once per target."""
    service = state.services.feedback

    def submit() -> FeedbackCreated:
        grant = service.verify(body.token)  # the tenant check comes before any other
        # A token outlives its run (a deleted thread takes its runs): rate only what exists.
        if (grant.tenant != who.tenant
                or state.services.store.get_run(grant.tenant, grant.run_id) is None):
            raise NotFound(f"unknown run {grant.run_id!r}", code="unknown_run")
        new_id = service.submit(body.token, body.rating, body.document_index,
                                body.snippet_index, body.comment, run_id=body.run_id)
        return FeedbackCreated(id=new_id, run_id=grant.run_id)

    return await asyncio.to_thread(submit)


@router.get("", response_model=FeedbackList, summary="The tenant's ratings")
async def list_feedback(
    state: State, who: Caller,
    run_id: Annotated[str | None, Query(min_length=1, max_length=128)] = None,
) -> FeedbackList:
    records = await asyncio.to_thread(state.services.feedback.list, who.tenant, run_id)
    return FeedbackList(feedback=[
        FeedbackInfo(id=r.id, run_id=r.run_id, rating=r.rating, document_index=r.document_index,
                     snippet_index=r.snippet_index, comment=r.comment, created_at=r.created_at)
        for r in records
    ])
