"""API-key administration that the per-tenant :class:`~citewise.store.base.Store` methods
do not cover: listing the keys of every tenant (``citewise keys list`` without a tenant,
and the server's "are there any keys, has there ever been one?" checks).

Backends may implement ``list_all_api_keys()`` themselves; otherwise this reads the
``api_keys`` table through the SQL backends' shared read seam (:class:`SQLBase`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from citewise.errors import ConfigError
from citewise.store._sql import SQLBase
from citewise.store.base import ApiKeyRecord
from citewise.store.schema import api_keys

__all__ = ["active_key_count", "any_key_ever", "list_all_api_keys"]


def _record(r: Any) -> ApiKeyRecord:
    return ApiKeyRecord(id=r.id, tenant=r.tenant, name=r.name, key_hash=r.key_hash,
                        created_at=r.created_at, revoked_at=r.revoked_at)


def list_all_api_keys(store: object) -> list[ApiKeyRecord]:
    """Every API key of every tenant, oldest first (hashes only, never keys)."""
    own = getattr(store, "list_all_api_keys", None)
    if callable(own):
        keys: list[ApiKeyRecord] = own()
        return keys
    if not isinstance(store, SQLBase):
        raise ConfigError(f"{type(store).__name__} cannot list API keys", code="unsupported_store")
    q = sa.select(api_keys).order_by(api_keys.c.created_at, api_keys.c.id)
    with store._read() as c:
        return [_record(r) for r in c.execute(q)]


def active_key_count(store: object) -> int:
    """How many keys are not revoked."""
    return sum(1 for k in list_all_api_keys(store) if k.revoked_at is None)


def any_key_ever(store: object) -> bool:
    """Whether this store has ever had an API key. Keys are revoked, never deleted, so a
    revoked row is the record that one existed: the server's auto mode stays closed once
    a key was made (revoking the last key must not reopen it, and must not make the
    revoked key a way in)."""
    return bool(list_all_api_keys(store))
