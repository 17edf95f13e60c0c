"""A file moved or renamed since it was ingested: its document under the old path goes.

Why: a document is keyed by its file's path, so a folder moved (``mv docs manuals``) and
ingested again was stored twice — every passage found, and quoted, twice, once under a
path that no longer exists. ``--prune`` did not help: it removes the documents of missing
files under the folders it is given, and the old folder, gone, prunes nothing by design (a
missing folder may be an unmounted drive). So a document an ingest just *added* whose
bytes are those of a stored document of the same collection whose file no longer exists
is that file, moved: the old document is deleted, and the report says so. A copy (the old
file still there) keeps both; a document whose source is no absolute file path (an upload,
a URL) is never taken for a moved file. The new document's chunks are embedded again: a
deleted document's vectors leave the embedding cache with it, by design, before the new
chunks' embedding job runs (keeping them for a move is left for later).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citewise.knowledge.ingest.files import file_gone
from citewise.knowledge.ingest.pipeline import document_id_for

if TYPE_CHECKING:
    from citewise.store.base import Store

__all__ = ["moved_documents"]


def moved_documents(store: Store, tenant: str, collection: str, added: Sequence[str]
                    ) -> list[tuple[str, str, str]]:
    """``(old document id, old source, new source)`` for each stored document of
    ``collection`` that is one of the ``added`` sources' files, moved: the same content
    hash, its own file gone."""
    if not added:
        return []
    ids = {document_id_for(tenant, s): s for s in added}
    by_hash = {h: ids[i] for i, (h, coll, _) in store.get_document_versions(
        tenant, list(ids)).items() if coll == collection}
    if not by_hash:
        return []
    return [(doc_id, source, by_hash[h])
            for doc_id, source, h in store.documents_with_hashes(tenant, list(by_hash),
                                                                  collection=collection)
            if doc_id not in ids and "://" not in source and os.path.isabs(source)
            and file_gone(source)]
