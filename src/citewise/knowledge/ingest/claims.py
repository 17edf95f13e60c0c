"""Per-document write claims of one ingest call (issue 23: one writer per document).

Two ingests of one folder (two terminals, a cron job beside a ``--watch``) used to both
read, write and embed every file. Each call now claims its documents in the store
(:mod:`citewise.store.work`) before reading them: a document another live call holds is
put off until that call released it, and then normally found unchanged. A claim that is
never released (its process was killed) lapses after :data:`CLAIM_S`, or at once on one
machine when its owner's process is known dead.
"""

from __future__ import annotations

import time
from datetime import timedelta

from citewise.knowledge.ingest.embed_worker import new_owner, owner_is_dead
from citewise.store.base import Store
from citewise.store.schema import utcnow

__all__ = ["CLAIM_S", "DocumentClaims"]

#: How long an unreleased claim (a dead ingest's) lasts.
CLAIM_S = 600.0
_POLL_S = 0.1


class DocumentClaims:
    """This call's claims on documents (taken per window of files, released when the
    documents are written; every one on the way out, whatever happens)."""

    def __init__(self, store: Store, tenant: str, *, local: bool) -> None:
        self.store = store
        self.tenant = tenant
        self.local = local
        self.owner = new_owner()
        self.held: set[str] = set()

    def take(self, doc_ids: list[str]) -> set[str]:
        now = utcnow()
        got = self.store.claim_documents(self.tenant, doc_ids, self.owner, now=now,
                                         until=now + timedelta(seconds=CLAIM_S))
        self.held |= got
        return got

    def wait_for(self, doc_id: str) -> None:
        """Until this document is ours (its writer finished, died, or its claim lapsed)."""
        while not self.take([doc_id]):
            if self.local:
                for owner in self.store.claim_owners(now=utcnow()):
                    if owner_is_dead(owner):
                        self.store.release_claims_of(owner)
            time.sleep(_POLL_S)

    def release(self, doc_ids: list[str]) -> None:
        if doc_ids:
            self.store.release_documents(self.tenant, doc_ids, self.owner)
            self.held.difference_update(doc_ids)

    def release_all(self) -> None:
        if self.held:
            self.store.release_claims_of(self.owner)
            self.held.clear()
