"""What the service keeps beside the runs: feedback, settings and API keys (portable Core)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from citewise.errors import InvalidInput, UsageError
from citewise.store._sql import SQLBase
from citewise.store.base import ApiKeyRecord, FeedbackRecord
from citewise.store.schema import api_keys, feedback, settings, utcnow

__all__ = ["ServiceRecordsMixin"]


def _feedback(r: Any) -> FeedbackRecord:
    return FeedbackRecord(
        id=r.id,
        tenant=r.tenant,
        run_id=r.run_id,
        rating=r.rating,
        document_index=r.document_index,
        snippet_index=r.snippet_index,
        comment=r.comment,
        created_at=r.created_at,
    )


def _api_key(r: Any) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=r.id,
        tenant=r.tenant,
        name=r.name,
        key_hash=r.key_hash,
        created_at=r.created_at,
        revoked_at=r.revoked_at,
    )


class ServiceRecordsMixin(SQLBase):
    # -- feedback -------------------------------------------------------------------------
    def add_feedback(self, record: FeedbackRecord) -> int:
        """Store feedback; ``record.id`` is ignored, the new id is returned. A second rating
        of one target (tenant, run, document, passage) is refused by the database's unique
        index, atomically: ``UsageError`` ``feedback_already_recorded``."""
        values = {
            "tenant": record.tenant,
            "run_id": record.run_id,
            "rating": record.rating,
            "document_index": record.document_index,
            "snippet_index": record.snippet_index,
            "comment": record.comment,
            "created_at": record.created_at,
        }
        try:
            with self._write() as c:
                new_id = c.execute(
                    sa.insert(feedback).values(**values).returning(feedback.c.id)
                ).scalar_one()
        except sa.exc.IntegrityError:
            raise UsageError("this target of the run was already rated",
                             code="feedback_already_recorded") from None
        return int(new_id)

    def list_feedback(self, tenant: str, *, run_id: str | None = None) -> list[FeedbackRecord]:
        q = sa.select(feedback).where(feedback.c.tenant == tenant)
        if run_id is not None:
            q = q.where(feedback.c.run_id == run_id)
        with self._read() as c:
            return [_feedback(r) for r in c.execute(q.order_by(feedback.c.id))]

    # -- settings -------------------------------------------------------------------------
    def get_setting(self, key: str) -> str | None:
        with self._read() as c:
            value = c.execute(sa.select(settings.c.value).where(settings.c.key == key)).scalar()
        return None if value is None else str(value)

    def setting_keys_since(self, prefix: str, since: datetime) -> set[str]:
        """Keys starting with ``prefix`` written at or after ``since``, in one query (the
        cancel watch asks this every second instead of a key per run)."""
        q = sa.select(settings.c.key).where(settings.c.key.like(prefix + "%"),
                                            settings.c.updated_at >= since)
        with self._read() as c:
            return {str(k) for k in c.scalars(q)}

    def set_setting(self, key: str, value: str) -> None:
        now = utcnow()
        stmt = self._insert(settings).values(key=key, value=value, updated_at=now)
        stmt = stmt.on_conflict_do_update(
            index_elements=["key"], set_={"value": value, "updated_at": now}
        )
        with self._write() as c:
            c.execute(stmt)

    def add_setting(self, key: str, value: str) -> str:
        """Insert ``key`` only if absent (one statement: concurrent callers cannot both
        write); returns the value stored now, whichever caller's it is."""
        stmt = self._insert(settings).values(key=key, value=value, updated_at=utcnow())
        with self._write() as c:
            c.execute(stmt.on_conflict_do_nothing(index_elements=["key"]))
            stored = c.execute(sa.select(settings.c.value).where(settings.c.key == key)).scalar()
        return value if stored is None else str(stored)

    # -- API keys -------------------------------------------------------------------------
    def create_api_key(self, record: ApiKeyRecord) -> None:
        try:
            with self._write() as c:
                c.execute(
                    sa.insert(api_keys).values(
                        id=record.id,
                        tenant=record.tenant,
                        name=record.name,
                        key_hash=record.key_hash,
                        created_at=record.created_at,
                        revoked_at=record.revoked_at,
                    )
                )
        except sa.exc.IntegrityError:
            raise InvalidInput(
                "an API key with this id or hash exists", code="api_key_exists"
            ) from None

    def get_api_key_by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        """The key with this hash, revoked or not (the caller checks ``revoked_at``)."""
        with self._read() as c:
            row = c.execute(sa.select(api_keys).where(api_keys.c.key_hash == key_hash)).first()
        return _api_key(row) if row else None

    def list_api_keys(self, tenant: str) -> list[ApiKeyRecord]:
        q = sa.select(api_keys).where(api_keys.c.tenant == tenant).order_by(api_keys.c.created_at)
        with self._read() as c:
            return [_api_key(r) for r in c.execute(q)]

    def list_all_api_keys(self) -> list[ApiKeyRecord]:
        """Every tenant's keys, oldest first (administration only: not tenant-scoped)."""
        q = sa.select(api_keys).order_by(api_keys.c.created_at, api_keys.c.id)
        with self._read() as c:
            return [_api_key(r) for r in c.execute(q)]

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        """Mark the key revoked; False if unknown or already revoked."""
        stmt = (
            sa.update(api_keys)
            .where(
                api_keys.c.tenant == tenant,
                api_keys.c.id == key_id,
                api_keys.c.revoked_at.is_(None),
            )
            .values(revoked_at=utcnow())
        )
        with self._write() as c:
            return bool(c.execute(stmt).rowcount)
