"""``POST /v1/search``: the tenant's knowledge base, BM25, best first."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from citewise.server.deps import ERRORS, Caller, State
from citewise.server.routes.documents import display_source
from citewise.server.schemas import HitInfo, SearchRequest, SearchResponse

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["search"], responses=ERRORS)


@router.post("/search", response_model=SearchResponse, summary="Search the knowledge base")
async def search(body: SearchRequest, state: State, who: Caller) -> SearchResponse:
    kb = state.services.kb(who.tenant)
    filters = body.filters.model_dump(exclude_none=True) if body.filters else None
    hits = await asyncio.to_thread(kb.search, body.query, k=body.k, filters=filters)
    return SearchResponse(hits=[
        HitInfo(chunk_id=h.chunk_id, document_id=h.document_id,
                source=display_source(h.source, state.services.data_dir), title=h.title,
                text=h.text, start_char=h.start_char, end_char=h.end_char, score=h.score,
                page=h.page, page_label=h.page_label, anchor=h.anchor, section=h.section,
                line=h.line)
        for h in hits
    ])
