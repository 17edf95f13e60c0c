"""Which documents pass a search's filters: judged once per document, not once per chunk.

Filters hold for whole documents (collection, source, tags, type, date: see
:meth:`~citewise.knowledge.retrieve.filters.Filters.matches`), but the indexes return
chunks. A filtered search used to read every candidate chunk's context (its text, its
document's metadata) to test the filter on it. A filter that no document passes then read
every chunk the vector index could offer before finding nothing: 12,274 contexts and 1.1 s
at 12k chunks (CMake's "#cmakedefine", read as a tag, in ``bench/answer_latency.py``).

Now a candidate's document is looked up (two columns), each document new to the search is
judged once from the fields the filter reads (:meth:`Store.document_facets`: no text, and
of its metadata only the filtered keys), and the verdict is remembered for the rest of the
search. The chunks that survive are read as before, and only those that make the cut.

A lexical search whose first matches are all of documents that do not pass asks for the
passing documents by name (:meth:`Passing.every`): tantivy and PostgreSQL filter by
document id themselves, so a document ranked below thousands of others is still found,
and a filter no document passes costs one read of the documents' facets.
"""

from __future__ import annotations

from citewise.knowledge.retrieve.filters import Filters
from citewise.store.base import Store

__all__ = ["Passing"]


class Passing:
    """The filter verdicts of one search's documents (``keep`` asks for the new ones)."""

    __slots__ = ("_all", "_filters", "_keys", "_owners", "_store", "_tenant", "_verdicts")

    def __init__(self, store: Store, tenant: str, filters: Filters) -> None:
        self._store = store
        self._tenant = tenant
        self._filters = filters
        self._keys = filters.metadata_keys()
        self._verdicts: dict[str, bool] = {}
        self._owners: dict[int, str] = {}  # chunk -> document, as looked up (each once)
        self._all = False  # whether every document of the tenant is judged

    def keep(self, scored: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """The ``(chunk_id, score)`` of ``scored`` whose document passes, in order; a chunk
        the store no longer has is dropped."""
        if not scored:
            return []
        owner = self._owners
        unseen = [cid for cid, _ in scored if cid not in owner]
        if unseen:
            found = self._store.chunk_document_ids(self._tenant, unseen)
            owner.update((cid, found.get(cid, "")) for cid in unseen)  # "": gone
        new = [d for d in dict.fromkeys(owner[cid] for cid, _ in scored)
               if d and d not in self._verdicts]
        if new:
            for doc in self._store.document_facets(self._tenant, new, metadata_keys=self._keys):
                self._verdicts[doc["id"]] = self._filters.matches(doc)
            for doc_id in new:  # deleted since the chunk was read: it passes nothing
                self._verdicts.setdefault(doc_id, False)
        return [(cid, s) for cid, s in scored if self._verdicts.get(owner[cid], False)]

    def every(self) -> list[str]:
        """The ids of all the tenant's documents that pass (each judged, once)."""
        if not self._all:
            for doc in self._store.document_facets(self._tenant, None, metadata_keys=self._keys):
                if doc["id"] not in self._verdicts:
                    self._verdicts[doc["id"]] = self._filters.matches(doc)
            self._all = True
        return [d for d, ok in self._verdicts.items() if ok]
