"""``/healthz`` (the process answers) and ``/readyz`` (it can serve: store reachable)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request

from citewise.server.deps import get_state
from citewise.server.errors import ApiError, ErrorResponse
from citewise.server.schemas import Health

__all__ = ["router"]

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Liveness")
async def healthz() -> Health:
    from citewise import __version__

    return Health(status="ok", version=__version__)


@router.get("/readyz", response_model=Health, summary="Readiness",
            responses={503: {"model": ErrorResponse, "description": "Not ready"}})
async def readyz(request: Request) -> Health:
    from citewise import __version__

    state = await get_state(request)
    try:
        await asyncio.to_thread(state.services.store.get_setting, "readyz")
    except Exception as exc:
        raise ApiError("the store is not reachable", code="not_ready", status=503) from exc
    return Health(status="ready", version=__version__)
