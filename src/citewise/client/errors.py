"""Errors the client raises: the server's ``{"error": {code, message, details}}`` as the
same typed families the local API raises (``NotFound``, ``InvalidInput``…), with the HTTP
status in ``details["status"]``."""

from __future__ import annotations

import json
from typing import Any

from citewise.errors import CitewiseError, InvalidInput, NotFound, UsageError

__all__ = ["AuthenticationError", "ServiceError", "ServiceUnavailable", "error_from_response"]


class ServiceError(CitewiseError):
    """The service failed (5xx), or answered something that is not the API."""

    code = "service_error"


class ServiceUnavailable(ServiceError):
    """The service could not be reached (or the stream could not be re-attached)."""

    code = "service_unavailable"


class AuthenticationError(UsageError):
    """401: the API key is missing, invalid or revoked."""

    code = "unauthorized"


def error_from_response(status: int, body: bytes) -> CitewiseError:
    """The typed error for an error response."""
    code, message, details = "http_error", f"HTTP {status}", {}
    try:
        payload: Any = json.loads(body)
        err = payload.get("error") if isinstance(payload, dict) else None
        if isinstance(err, dict):
            code = str(err.get("code") or code)
            message = str(err.get("message") or message)
            details = dict(err.get("details") or {})
    except (ValueError, AttributeError, TypeError):
        pass
    details["status"] = status
    cls: type[CitewiseError]
    if status == 401:
        cls = AuthenticationError
    elif status == 404:
        cls = NotFound
    elif status == 422:
        cls = InvalidInput
    elif 400 <= status < 500:
        cls = UsageError
    else:
        cls = ServiceError
    return cls(message, code=code, details=details)
