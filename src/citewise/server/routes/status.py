"""``GET /v1/status``: the caller's tenant's documents, chunks and embedding queue.

Uploads return once a document is stored and lexically searchable; its vectors come
from the embedding workers afterwards (issue 23). This says how far they are — the
same numbers as ``citewise status``, for the caller's tenant only.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from pydantic import BaseModel, Field

from citewise.server.deps import ERRORS, Caller, State

__all__ = ["TenantStatus", "router"]

router = APIRouter(prefix="/v1/status", tags=["status"], responses=ERRORS)


class TenantStatus(BaseModel):
    """One tenant's knowledge base, and how much of it dense search covers yet."""

    tenant: str = Field(description="The caller's tenant.")
    documents: int = Field(ge=0, description="Documents stored.")
    chunks: int = Field(ge=0, description="Chunks stored (all searchable by keyword).")
    dense: bool = Field(description="Whether dense (vector) retrieval is on.")
    embedded: int = Field(ge=0, description="Chunks searchable by vector now.")
    not_embedded: int = Field(ge=0, description="Chunks whose vector is still to come.")
    pending_jobs: int = Field(ge=0, description="Embedding jobs queued or running.")
    running_jobs: int = Field(ge=0, description="Of them, leased by a worker now.")
    pending_chunks: int = Field(ge=0, description="Chunks the pending jobs cover.")
    failed_jobs: int = Field(ge=0, description="Jobs given up (re-upload to retry).")
    sentences: int | None = Field(
        default=None, ge=0, description="Chunks whose sentences are embedded, so that an "
        "answer embeds only the question (null: not computed here).")


@router.get("", response_model=TenantStatus, summary="Documents and embedding progress")
async def get_status(state: State, who: Caller) -> TenantStatus:
    kb = state.services.kb(who.tenant)
    (row,) = await asyncio.to_thread(kb.status)
    return TenantStatus(**row)
