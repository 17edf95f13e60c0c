"""Per-request dependencies: the app's shared state and the caller (auth + rate limit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from citewise.server.auth import Authenticator, Principal
from citewise.server.config import ServerConfig
from citewise.server.errors import ApiError, ErrorResponse
from citewise.server.limits import RateLimiter
from citewise.server.manager import RunManager
from citewise.server.services import Services

__all__ = ["ERRORS", "AppState", "Caller", "State", "caller", "get_state"]


@dataclass
class AppState:
    """Everything a request handler may reach, built by the app's lifespan."""

    config: ServerConfig
    services: Services
    manager: RunManager
    auth: Authenticator
    limiter: RateLimiter
    ready: bool = False


async def get_state(request: Request) -> AppState:
    # async on purpose: FastAPI runs sync dependencies in a thread pool (a thread hop per
    # request, which costs more than everything this does).
    state: AppState | None = getattr(request.app.state, "citewise", None)
    if state is None or not state.ready:
        raise ApiError("the service is starting or stopping", code="not_ready", status=503)
    return state


_bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer <API key>`")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="The API key.")


async def caller(
    request: Request,
    state: Annotated[AppState, Depends(get_state)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
    api_key: Annotated[str | None, Security(_api_key)] = None,
) -> Principal:
    """The authenticated caller, counted against its rate limit."""
    authorization = request.headers.get("authorization")
    if bearer is not None:
        authorization = f"Bearer {bearer.credentials}"
    address = request.client.host if request.client is not None else None
    principal = await state.auth.principal(authorization, api_key, address)
    state.limiter.check(principal.limit_key)
    return principal


State = Annotated[AppState, Depends(get_state)]
Caller = Annotated[Principal, Depends(caller)]

_ERR = {"model": ErrorResponse}
#: Error responses every authenticated route may give (documented in the OpenAPI spec).
ERRORS: dict[int | str, dict[str, object]] = {
    400: {**_ERR, "description": "Bad request"},
    401: {**_ERR, "description": "Missing, invalid or revoked API key"},
    404: {**_ERR, "description": "Unknown resource (or another tenant's)"},
    413: {**_ERR, "description": "Request body too large"},
    422: {**_ERR, "description": "Invalid request"},
    429: {**_ERR, "description": "Rate limit or concurrent-run limit reached"},
    500: {**_ERR, "description": "Internal error"},
    503: {**_ERR, "description": "Not ready, or the knowledge base is busy (retry later)"},
}
