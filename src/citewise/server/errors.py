"""The one error shape of the HTTP API, and the handlers that guarantee it.

Every non-2xx response is ``{"error": {"code", "message", "details"}}``: citewise's typed
errors keep their stable ``code``; validation errors, unknown routes and wrong methods get
their own codes; anything unexpected is logged and answered ``500 internal_error`` without
a trace of the exception.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection

from citewise.errors import (
    CitewiseError,
    EmptyQuestion,
    IngestError,
    InvalidInput,
    NotFound,
    Unavailable,
    UsageError,
)

__all__ = [
    "ApiError",
    "ErrorBody",
    "ErrorResponse",
    "PayloadTooLarge",
    "RateLimited",
    "TooManyRuns",
    "Unauthorized",
    "allowed_methods",
    "error_response",
    "install_error_handlers",
    "reject_repeated_query_parameters",
    "status_of",
]

log = logging.getLogger("citewise.server")


class ErrorBody(BaseModel):
    """What went wrong."""

    code: str = Field(description="Stable machine-readable code.")
    message: str = Field(description="Human-readable message (may change).")
    details: dict[str, Any] = Field(default_factory=dict, description="Structured details.")


class ErrorResponse(BaseModel):
    """Every error response of the API."""

    error: ErrorBody


class ApiError(UsageError):
    """A refusal with an explicit HTTP status."""

    status: int = 400

    def __init__(self, message: str, *, code: str | None = None,
                 details: dict[str, Any] | None = None, status: int | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message, code=code, details=details)
        if status is not None:
            self.status = status
        self.headers = dict(headers or {})


class Unauthorized(ApiError):
    code = "unauthorized"
    status = 401


class PayloadTooLarge(ApiError):
    code = "payload_too_large"
    status = 413


class RateLimited(ApiError):
    code = "rate_limited"
    status = 429


class TooManyRuns(ApiError):
    code = "too_many_concurrent_runs"
    status = 429


# Codes of the agent's UsageErrors that mean "not in this state" rather than "bad input".
_CONFLICT = frozenset({"run_not_paused", "run_already_resumed", "run_not_running", "run_finished",
                       "thread_busy", "feedback_already_recorded"})
_UNPROCESSABLE = frozenset({
    "unknown_interrupt", "interrupt_expired", "missing_decision", "duplicate_decision",
    "invalid_decision", "invalid_tool_arguments", "question_too_long", "unknown_format",
    "feedback_token_invalid", "feedback_token_expired", "feedback_token_wrong_run",
    "feedback_out_of_scope", "invalid_rating", "invalid_filter", "invalid_query",
})


def status_of(exc: CitewiseError) -> int:
    """The HTTP status of a typed error."""
    if isinstance(exc, ApiError):
        return exc.status
    if isinstance(exc, Unavailable):
        return 503
    if isinstance(exc, NotFound):
        return 404
    if exc.code in _CONFLICT:
        return 409
    if isinstance(exc, InvalidInput | EmptyQuestion | IngestError) or exc.code in _UNPROCESSABLE:
        return 422
    if isinstance(exc, UsageError):
        return 400
    return 500


def error_response(status: int, code: str, message: str, details: dict[str, Any] | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    return JSONResponse(body, status_code=status, headers=headers)


def _jsonable(value: Any) -> Any:
    """Validation ``ctx`` may hold exceptions or bytes: keep only JSON-safe values."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def _validation_details(exc: RequestValidationError) -> dict[str, Any]:
    errors = []
    for e in exc.errors()[:20]:
        errors.append({"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")),
                       "type": str(e.get("type", ""))})
    return {"errors": _jsonable(errors)}


def _validation_message(details: dict[str, Any]) -> str:
    """What is wrong, in the message a person reads first: "the request is not valid:
    question: String should have at least 1 character" (the first three faults; all of
    them are in ``details``)."""
    faults = [f"{'.'.join(p for p in e['loc'] if p not in _LOC_NOISE) or 'body'}: {e['msg']}"
              for e in details["errors"][:3]]
    more = len(details["errors"]) - len(faults)
    return "the request is not valid" + (": " + "; ".join(faults) if faults else "") + (
        f" (and {more} more)" if more > 0 else "")


# Where a fault is, less what says only which body it was read as (the Tags of the
# request unions in routes/runs.py).
_LOC_NOISE = frozenset({"body", "citewise", "agui", "ai_sdk"})


_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 406: "not_acceptable", 413: "payload_too_large",
               415: "unsupported_media_type", 422: "validation_error", 429: "rate_limited"}


def allowed_methods(request: Request) -> list[str]:
    """The methods the API has for this request's path (from its OpenAPI document)."""
    app = request.app
    table: list[tuple[re.Pattern[str], list[str]]] | None = getattr(app.state, "allow", None)
    if table is None:
        table = []
        for path, ops in app.openapi().get("paths", {}).items():
            pattern = re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$")
            table.append((pattern, sorted(m.upper() for m in ops)))
        app.state.allow = table
    for pattern, methods in table:
        if pattern.match(request.url.path):
            return methods
    return []


async def reject_repeated_query_parameters(request: HTTPConnection) -> None:
    """No parameter of this API is a list: ``?k=a&k=b`` is refused, not silently narrowed.
    (An app-wide dependency: ``HTTPConnection``, so websocket routes get it too.)"""
    if b"&" not in request.scope.get("query_string", b""):
        return  # one parameter at most: nothing to parse
    params = request.query_params
    repeated = sorted({k for k in params if len(params.getlist(k)) > 1})
    if repeated:
        raise InvalidInput(f"query parameter(s) given more than once: {', '.join(repeated)}",
                           code="validation_error", details={"parameters": repeated})


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that make every error the one shape."""

    async def on_citewise(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CitewiseError)
        status = status_of(exc)
        if status >= 500:
            log.error("request failed: %s [%s]", exc.message, exc.code)
        headers = exc.headers if isinstance(exc, ApiError) else None
        return error_response(status, exc.code, exc.message, _jsonable(exc.details), headers)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        details = _validation_details(exc)
        return error_response(422, "validation_error", _validation_message(details),
                              details)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        inner = getattr(exc, "error", None)
        if isinstance(inner, CitewiseError):
            return await on_citewise(request, inner)
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names only the first route matching the path; list them all.
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(exc.status_code, code, message, {}, headers)

    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "internal server error")

    async def on_database(request: Request, exc: Exception) -> JSONResponse:
        from citewise.store._sql import database_down

        if not database_down(exc):
            return await on_crash(request, exc)
        # Not a bug here: the database went away (restart, network). Say so, briefly;
        # the pool reconnects once it is back.
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path,
                    str(getattr(exc, "orig", exc)).strip()[:200])
        return error_response(503, "database_unavailable",
                              "the database is not reachable; try again shortly")

    app.add_exception_handler(CitewiseError, on_citewise)
    import sqlalchemy as sa

    app.add_exception_handler(sa.exc.DBAPIError, on_database)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)
