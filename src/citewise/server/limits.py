"""Request limits: body size (an ASGI middleware), per-key rate (token buckets), failed
authentication per client address, and concurrent runs per tenant. Each refusal is a
typed error with a stable code.

All state is per process: with ``--workers N`` the effective rate is up to N times the
configured one (documented in ``ServerConfig``).
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from citewise.server.errors import PayloadTooLarge, RateLimited, TooManyRuns
from citewise.sizes import size_text

__all__ = ["AuthFailures", "BodyLimit", "BodyTooLarge", "RateLimiter", "RunSlots",
           "TokenBucket"]


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; each request takes one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, now: float | None = None) -> float:
        """0 if a token was taken, else the seconds until one is available."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class RateLimiter:
    """One bucket per key, the least recently used forgotten beyond ``max_keys``."""

    def __init__(self, rate: float, burst: int, *, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, key: str) -> None:
        if self.rate <= 0:
            return
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        wait = bucket.take()
        if wait > 0:
            retry = max(1, math.ceil(wait))
            raise RateLimited(
                f"rate limit of {self.rate:g} requests/s exceeded; retry in {retry}s",
                details={"rate_per_s": self.rate, "burst": self.burst, "retry_after_s": retry},
                headers={"Retry-After": str(retry)},
            )


class AuthFailures:
    """Failed authentication attempts per client address, as token buckets: each 401 takes
    a token, and an address whose bucket is empty is answered ``429 auth_rate_limited``
    (with ``Retry-After``) *before* its key is looked up — 3,200 random keys from one
    address used to cost 3,200 lookups and doubled a valid tenant's latency. A key this
    process already knows to be valid is never refused here (see ``Authenticator``)."""

    def __init__(self, rate: float, burst: int, *, max_addresses: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_addresses = max_addresses
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, address: str) -> None:
        """Raise ``RateLimited`` if ``address`` has no failed attempt left for now."""
        bucket = self._buckets.get(address) if self.rate > 0 else None
        if bucket is None:
            return
        now = time.monotonic()
        tokens = min(bucket.burst, bucket.tokens + (now - bucket.stamp) * bucket.rate)
        if tokens >= 1.0:
            return
        retry = max(1, math.ceil((1.0 - tokens) / bucket.rate))
        raise RateLimited(
            f"too many failed authentication attempts from this address; retry in {retry}s",
            code="auth_rate_limited",
            details={"rate_per_s": self.rate, "burst": self.burst, "retry_after_s": retry},
            headers={"Retry-After": str(retry)},
        )

    def failed(self, address: str) -> None:
        """Count one failed attempt of ``address``."""
        if self.rate <= 0:
            return
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.max_addresses:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        bucket.take()


class RunSlots:
    """Counts runs in progress per tenant."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used: dict[str, int] = {}

    def acquire(self, tenant: str) -> None:
        used = self._used.get(tenant, 0)
        if used >= self.limit:
            raise TooManyRuns(
                f"this tenant already has {used} runs in progress (limit {self.limit})",
                details={"limit": self.limit},
                headers={"Retry-After": "1"},
            )
        self._used[tenant] = used + 1

    def release(self, tenant: str) -> None:
        left = self._used.get(tenant, 0) - 1
        if left > 0:
            self._used[tenant] = left
        else:
            self._used.pop(tenant, None)

    def used(self, tenant: str) -> int:
        return self._used.get(tenant, 0)


class BodyLimit:
    """Refuses request bodies over a per-path limit with ``413 payload_too_large``.

    A declared ``Content-Length`` over the limit is refused before reading; a chunked body
    is counted as it streams in, and the handler reading it gets :class:`PayloadTooLarge`.
    """

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        declared = None
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
                break
        if declared is not None and declared > limit:
            await _refuse(send, limit)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _too_large(limit)
            return message

        await self.app(scope, counted, send)


class BodyTooLarge(HTTPException):
    """Raised from ``receive``: FastAPI re-raises HTTP exceptions met while reading a body
    (anything else would become a 400), and the error handler renders ``error``."""

    def __init__(self, error: PayloadTooLarge) -> None:
        super().__init__(status_code=413, detail=error.message)
        self.error = error


def _too_large(limit: int) -> BodyTooLarge:
    return BodyTooLarge(PayloadTooLarge(f"the request body is larger than {size_text(limit)}",
                                        details={"max_bytes": limit}))


async def _refuse(send: Send, limit: int) -> None:
    exc = _too_large(limit).error
    body = json.dumps({"error": exc.to_dict()}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
