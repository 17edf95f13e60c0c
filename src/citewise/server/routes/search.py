"""``POST /v1/search``: the tenant's knowledge base, BM25, best first."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from citewise.server.deps import ERRORS, Caller, State
from citewise.server.routes.documents import display_source
from citewise.server.schemas import SearchRequest, SearchResponse, hit_info

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["search"], responses=ERRORS)


@router.post("/search", response_model=SearchResponse, summary="Search the knowledge base")
async def search(body: SearchRequest, state: State, who: Caller) -> SearchResponse:
    kb = state.services.kb(who.tenant)
    filters = body.filters.model_dump(exclude_none=True) if body.filters else None
    hits = await asyncio.to_thread(kb.search, body.query, k=body.k, filters=filters)
    return SearchResponse(hits=[
        hit_info(h, display_source(h.source, state.services.data_dir)) for h in hits])
