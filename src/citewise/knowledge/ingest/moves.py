"""A file moved or renamed since it was ingested: its document under the old path goes.

Why: a document is keyed by its file's path, so a folder moved (``mv docs manuals``) and
ingested again was stored twice — every passage found, and quoted, twice, once under a
path that no longer exists. ``--prune`` did not help: it removes the documents of missing
files under the folders it is given, and the old folder, gone, prunes nothing by design (a
missing folder may be an unmounted drive).

So a stored document of the same collection with the bytes of a file this ingest saw (added,
updated or unchanged: an ingest stopped halfway and run again finds the rest) is that file,
moved, when its own file is gone and the move happened inside a folder that is still there:
the nearest existing folder above the old path holds the new one too, and is neither the
root nor a top-level folder. A drive unmounted (its files under ``/media/…``) and a copy of
them ingested from elsewhere is no move; nor is a copy with the original still there, nor a
document whose source is no absolute file path (an upload, a URL). Only a knowledge base on
this machine looks: on a shared PostgreSQL database another machine's paths are missing
here, and each machine's ingest would delete the other's documents (code review,
2026-12-08). The new document's chunks are embedded again: a deleted document's vectors
leave the embedding cache with it, by design.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewise.knowledge.ingest.files import file_gone
from citewise.knowledge.ingest.pipeline import document_id_for

if TYPE_CHECKING:
    from citewise.store.base import Store

__all__ = ["moved_documents"]


def moved_documents(store: Store, tenant: str, collection: str, seen: Sequence[str]
                    ) -> list[tuple[str, str, str]]:
    """``(old document id, old source, new source)`` for each stored document of
    ``collection`` that is one of the ``seen`` sources' files, moved (see the module)."""
    if not seen:
        return []
    ids = {document_id_for(tenant, s): s for s in seen}
    by_hash: dict[str, list[str]] = {}
    for i, (h, coll, _) in store.get_document_versions(tenant, list(ids)).items():
        if coll == collection:
            by_hash.setdefault(h, []).append(ids[i])
    if not by_hash:
        return []
    out = []
    for doc_id, source, h in store.documents_with_hashes(tenant, list(by_hash),
                                                         collection=collection):
        if doc_id in ids or "://" in source or not os.path.isabs(source):
            continue
        new = _counterpart(source, by_hash[h])
        if _within(source, new) and file_gone(source):
            out.append((doc_id, source, new))
    return out


def _counterpart(old: str, news: list[str]) -> str:
    """Of the files with ``old``'s bytes, the one whose path ends most like it
    (``docs/index.html`` → ``manuals/index.html``, not ``manuals/Readme.html``)."""
    parts = Path(old).parts[::-1]

    def alike(new: str) -> int:
        n = 0
        for a, b in zip(parts, Path(new).parts[::-1], strict=False):
            if a != b:
                break
            n += 1
        return n

    return max(news, key=alike)


def _within(old: str, new: str) -> bool:
    """Whether the nearest existing folder above ``old`` holds ``new`` too and is deeper
    than a top-level folder (``/home/me``, not ``/media`` nor ``/``)."""
    folder = Path(old).parent
    while not folder.is_dir():
        if folder.parent == folder:
            return False
        folder = folder.parent
    return len(folder.parts) > 2 and Path(new).is_relative_to(folder)
