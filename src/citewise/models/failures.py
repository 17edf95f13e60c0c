"""Typed model failures with stable codes.

Every way a model call can go wrong surfaces as a :class:`~citewise.errors.ModelError`
subclass, so a run ends with a terminal ``error`` event whose ``code`` a client can act on
(retry later, switch model, fix the configuration). ``retryable`` tells
:class:`~citewise.models.fallback.FallbackModel` whether the next model in a chain may help.
"""

from __future__ import annotations

from citewise.errors import ModelError

__all__ = [
    "ModelAuthFailed",
    "ModelBadResponse",
    "ModelOutputUnparseable",
    "ModelRateLimited",
    "ModelRequestRejected",
    "ModelRequestsBlocked",
    "ModelTimeout",
    "ModelUnavailable",
]


class ModelTimeout(ModelError):
    """Connecting to, or reading from, the model took longer than its timeout."""

    code = "model_timeout"
    retryable = True


class ModelRateLimited(ModelError):
    """HTTP 429 that persisted through every retry."""

    code = "model_rate_limited"
    retryable = True


class ModelUnavailable(ModelError):
    """The server could not be reached or kept answering 5xx."""

    code = "model_unavailable"
    retryable = True


class ModelBadResponse(ModelError):
    """The server answered, but not in the wire format we speak (bad JSON, bad SSE)."""

    code = "model_bad_response"
    retryable = True


class ModelAuthFailed(ModelError):
    """HTTP 401/403: the key is missing, wrong or not allowed to use this model."""

    code = "model_auth_failed"
    retryable = True  # another provider in a chain has other credentials


class ModelRequestRejected(ModelError):
    """Another 4xx: the server refused the request itself (unknown model, too long…)."""

    code = "model_request_rejected"
    retryable = True


class ModelOutputUnparseable(ModelError):
    """A text-protocol model kept producing output no parser could read."""

    code = "model_output_unparseable"
    retryable = False


class ModelRequestsBlocked(ModelError):
    """Network model calls are switched off (tests, CI): see ``allow_model_requests``."""

    code = "model_requests_blocked"
    retryable = False
