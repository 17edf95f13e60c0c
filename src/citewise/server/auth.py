"""API keys and the tenant of a request.

A key is 32 random bytes (``cwk_`` + URL-safe base64); only its SHA-256 is stored, which is
enough for a high-entropy secret (no salt or slow hash needed: nothing to brute-force).
The key travels as ``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Lookups are
cached for ``key_cache_s`` so a stream of requests costs no database read each; a revoked
key stops working within that delay.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from citewise.server.errors import Unauthorized

if TYPE_CHECKING:
    from citewise.server.limits import AuthFailures
    from citewise.store.base import ApiKeyRecord, Store

__all__ = ["KEY_PREFIX", "Authenticator", "Principal", "create_key", "hash_key"]

KEY_PREFIX = "cwk_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(store: Store, tenant: str, name: str = "") -> tuple[ApiKeyRecord, str]:
    """Store a new key for ``tenant``; returns its record and the key (shown once)."""
    from citewise.store.base import ApiKeyRecord, check_tenant

    tenant = check_tenant(tenant)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    record = ApiKeyRecord(id=f"key_{uuid.uuid4().hex[:16]}", tenant=tenant, name=name[:256],
                          key_hash=hash_key(key), created_at=datetime.now(UTC))
    store.create_api_key(record)
    return record, key


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the tenant every resource is scoped to, and the key (None: no auth)."""

    tenant: str
    key_id: str | None = None

    @property
    def limit_key(self) -> str:
        """What the rate limit counts against."""
        return self.key_id or f"tenant:{self.tenant}"


class Authenticator:
    """Turns request headers into a :class:`Principal` (or a 401).

    ``recheck`` (``auth="auto"``): asked again, at most every ``cache_s``, whether keys are
    required now — a key created while the server runs (by ``citewise keys create``, maybe
    on another machine sharing the database) closes an open loopback server within that
    delay, as a revoked key stops working within it.

    ``failures`` limits failed attempts per client address: an address over it is refused
    (429) before its key is looked up, unless the key is one this process knows valid."""

    def __init__(self, store: Store, *, required: bool, default_tenant: str,
                 cache_s: float = 5.0, recheck: Callable[[], bool] | None = None,
                 failures: AuthFailures | None = None) -> None:
        self.store = store
        self.failures = failures
        self.required = required
        self.default_tenant = default_tenant
        self.cache_s = cache_s
        self._recheck = recheck
        self._checked_at = time.monotonic()
        self._cache: dict[str, tuple[float, Principal | None]] = {}

    async def _required(self) -> bool:
        if self._recheck is not None and time.monotonic() - self._checked_at >= self.cache_s:
            self._checked_at = time.monotonic()
            self.required = await asyncio.to_thread(self._recheck)
        return self.required

    @staticmethod
    def key_of(authorization: str | None, x_api_key: str | None) -> str | None:
        if x_api_key:
            return x_api_key.strip()
        if authorization:
            scheme, _, value = authorization.strip().partition(" ")
            if scheme.lower() == "bearer" and value.strip():
                return value.strip()
            raise Unauthorized("the Authorization header must be `Bearer <key>`",
                               code="invalid_authorization")
        return None

    async def principal(self, authorization: str | None, x_api_key: str | None,
                        address: str | None = None) -> Principal:
        if not await self._required():
            return Principal(tenant=self.default_tenant)
        if self.failures is None or address is None:
            return await self._authenticate(authorization, x_api_key)
        known = self._known(x_api_key or authorization)
        if known is not None:
            return known
        self.failures.check(address)
        try:
            return await self._authenticate(authorization, x_api_key)
        except Unauthorized:
            self.failures.failed(address)
            raise

    def _known(self, credential: str | None) -> Principal | None:
        """The caller of a key cached as valid (no lookup, no failure counted)."""
        if not credential:
            return None
        key = credential.strip()
        if key[:7].lower() == "bearer ":
            key = key[7:].strip()
        hit = self._cache.get(hash_key(key))
        return hit[1] if hit is not None and hit[0] > time.monotonic() else None

    async def _authenticate(self, authorization: str | None,
                            x_api_key: str | None) -> Principal:
        key = self.key_of(authorization, x_api_key)
        if key is None:
            raise Unauthorized("an API key is required (Authorization: Bearer <key>)",
                               code="missing_api_key", headers={"WWW-Authenticate": "Bearer"})
        principal = await self._lookup(key)
        if principal is None:
            raise Unauthorized("the API key is not valid", code="invalid_api_key",
                               headers={"WWW-Authenticate": "Bearer"})
        return principal

    async def _lookup(self, key: str) -> Principal | None:
        digest = hash_key(key)
        now = time.monotonic()
        hit = self._cache.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        record = await asyncio.to_thread(self.store.get_api_key_by_hash, digest)
        principal = None
        if record is not None and record.revoked_at is None:
            principal = Principal(tenant=record.tenant, key_id=record.id)
        if self.cache_s > 0:
            if len(self._cache) > 10_000:  # bounded: forget everything rather than grow
                self._cache.clear()
            self._cache[digest] = (now + self.cache_s, principal)
        return principal
