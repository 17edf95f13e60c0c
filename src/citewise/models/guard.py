"""A global switch for real network model calls (like pydantic-ai's ALLOW_MODEL_REQUESTS).

Test suites block them by default so that no test ever spends money or waits on the
internet by accident; a test that talks to a server it started on 127.0.0.1 re-enables
exactly that host::

    with allow_model_requests(["127.0.0.1"]):
        ...

Precedence: the last :func:`allow_model_requests` call (until its ``with`` block ends),
else the environment variable ``CITEWISE_ALLOW_MODEL_REQUESTS`` (``0``/``false``/``no`` =
block, ``1``/``true``/``yes`` = allow, anything else = a comma-separated host allow-list),
else allowed. In-process models (``local``, ``extractive``, ``scripted``) are never blocked:
they do not touch the network.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from types import TracebackType
from urllib.parse import urlsplit

from citewise.models.failures import ModelRequestsBlocked

__all__ = ["ENV_VAR", "allow_model_requests", "check_model_request", "model_requests_policy"]

ENV_VAR = "CITEWISE_ALLOW_MODEL_REQUESTS"

Policy = bool | frozenset[str]

_override: Policy | None = None


class _Restore:
    """Returned by :func:`allow_model_requests`; as a context manager it restores the
    previous setting on exit (the new one is already in force when it is created)."""

    def __init__(self, previous: Policy | None) -> None:
        self._previous = previous

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        global _override
        _override = self._previous


def allow_model_requests(allow: bool | Iterable[str] | None = True) -> _Restore:
    """Allow (``True``), block (``False``) or allow only the given hosts; ``None`` goes
    back to following the environment. Takes effect at once; use the result in a ``with``
    statement to undo it afterwards."""
    global _override
    previous = _override
    _override = _policy(allow)
    return _Restore(previous)


def _policy(allow: bool | Iterable[str] | None) -> Policy | None:
    if allow is None or isinstance(allow, bool):
        return allow
    return frozenset(h.lower() for h in allow)


def model_requests_policy() -> Policy:
    """The policy in force: True, False or the allowed hosts."""
    if _override is not None:
        return _override
    raw = os.environ.get(ENV_VAR, "").strip().lower()
    if raw in {"", "1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    return frozenset(h.strip() for h in raw.split(",") if h.strip())


def check_model_request(url: str) -> None:
    """Raise :class:`ModelRequestsBlocked` unless a request to ``url`` is allowed."""
    policy = model_requests_policy()
    if policy is True:
        return
    host = (urlsplit(url).hostname or "").lower()
    if policy is not False and host in policy:
        return
    raise ModelRequestsBlocked(
        f"model requests to {host or url!r} are blocked (allow_model_requests / {ENV_VAR})",
        details={"host": host},
    )
