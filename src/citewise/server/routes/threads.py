"""``/v1/threads``: list, read with turns, rename, delete (with its runs, events and feedback)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from citewise.errors import InvalidInput, NotFound
from citewise.server.deps import ERRORS, Caller, State
from citewise.server.schemas import ThreadDetail, ThreadInfo, ThreadList, TurnInfo

__all__ = ["router"]

router = APIRouter(prefix="/v1/threads", tags=["threads"], responses=ERRORS)

ThreadId = Annotated[str, Path(min_length=1, max_length=128, description="Thread id.")]


def _unknown(thread_id: str) -> NotFound:
    return NotFound(f"unknown thread {thread_id!r}", code="unknown_thread",
                    details={"thread_id": thread_id})


@router.get("", response_model=ThreadList, summary="List threads")
async def list_threads(
    state: State, who: Caller,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> ThreadList:
    records = await asyncio.to_thread(state.services.store.list_threads, who.tenant,
                                      limit=limit, offset=offset)
    return ThreadList(threads=[ThreadInfo(id=t.id, title=t.title, created_at=t.created_at,
                                          updated_at=t.updated_at) for t in records])


@router.get("/{thread_id}", response_model=ThreadDetail, summary="A thread with its turns")
async def get_thread(thread_id: ThreadId, state: State, who: Caller) -> ThreadDetail:
    store = state.services.store

    def load() -> ThreadDetail | None:
        t = store.get_thread(who.tenant, thread_id)
        if t is None:
            return None
        turns = [TurnInfo(run_id=x.run_id, question=x.question, answer=x.answer,
                          created_at=x.created_at) for x in store.list_turns(who.tenant, t.id)]
        return ThreadDetail(id=t.id, title=t.title, created_at=t.created_at,
                            updated_at=t.updated_at, turns=turns)

    detail = await asyncio.to_thread(load)
    if detail is None:
        raise _unknown(thread_id)
    return detail


class ThreadRename(BaseModel):
    """A new title for a thread."""

    model_config = ConfigDict(extra="forbid", strict=True)
    title: str = Field(min_length=1, max_length=200, description="The new title.")


@router.patch("/{thread_id}", response_model=ThreadInfo, summary="Rename a thread")
async def rename_thread(thread_id: ThreadId, body: ThreadRename, state: State,
                        who: Caller) -> ThreadInfo:
    """Set the thread's title (the list stays ordered by the last turn)."""
    title = " ".join(body.title.split())
    if not title:
        raise InvalidInput("the title is blank", code="validation_error")
    t = await asyncio.to_thread(state.services.store.rename_thread, who.tenant, thread_id, title)
    if t is None:
        raise _unknown(thread_id)
    return ThreadInfo(id=t.id, title=t.title, created_at=t.created_at, updated_at=t.updated_at)


@router.delete("/{thread_id}", status_code=204, response_class=Response,
               summary="Delete a thread", responses={409: {**ERRORS[400],
                                                           "description": "A run is in progress"}})
async def delete_thread(thread_id: ThreadId, state: State, who: Caller) -> Response:
    """Delete the thread with its turns, runs, their events and feedback."""
    live = any(r.thread_id == thread_id for r in state.manager.active(who.tenant))
    with state.manager.threads.deleting(who.tenant, thread_id, live_run=live):
        deleted = await asyncio.to_thread(state.services.store.delete_thread, who.tenant,
                                          thread_id)
    if not deleted:
        raise _unknown(thread_id)
    state.manager.forget_thread(who.tenant, thread_id)
    return Response(status_code=204)
