"""One tantivy searcher and what a search learns about it: the collection size BM25 used,
and whether a term occurs in a tenant's live documents at all.

tantivy-py exposes no document count including deleted documents — the ``N`` of BM25's
idf — so :mod:`.lexical_tantivy`'s proof that a cheaper query found the true top k reads
it from a score explanation, once per search. Apart because it is a workaround with its
own failure mode (any surprise means "prove it another way"), not search logic.
"""

from __future__ import annotations

import json
from typing import Any

import tantivy

__all__ = ["Snapshot"]

# Float32 (tantivy's score type) is exact for integers below this.
_EXACT_F32 = 1 << 24
# In an index of one tenant, a term in more documents than this is taken to occur in live
# ones without a look (checking walks its postings; that many are not all deleted).
_LOOKED_AT = 64
# A tenant of at most this many documents (deleted ones included) has its live ones counted.
_COUNTED = 1024


class Snapshot:
    """One searcher (one index snapshot) and what a search learns about it."""

    def __init__(self, searcher: Any, schema: Any, tenant: str) -> None:
        self.searcher = searcher
        self.alive = int(searcher.num_docs)
        self._schema = schema
        self._tenant = tenant
        self._probe = tantivy.Query.term_query(schema, "tenant", tenant)
        self._total: int | None = None
        self._tenant_df: int | None = None

    @property
    def _tenant_documents(self) -> int:
        """The tenant term's document frequency (deleted documents included), read once."""
        if self._tenant_df is None:
            self._tenant_df = int(self.searcher.doc_freq("tenant", self._tenant))
        return self._tenant_df

    def tenant_chunks(self) -> int:
        """The tenant's live documents: the index's when it is the only tenant, counted
        when its term's document frequency is at most :data:`_COUNTED` (which counts
        deleted documents too: a small knowledge base re-ingested a few times looked big),
        else that frequency."""
        n = self._tenant_documents
        if n >= self.alive:
            return self.alive  # one tenant: its live documents are the index's
        if n > _COUNTED:
            return n
        return int(self.searcher.search(self._probe, 1, count=True).count)

    def occurs(self, field: str, term: str) -> bool:
        """Whether ``term`` is in ``field`` of a live document of the tenant. A document
        frequency of 0 says no at once (the common case asked about: a word no document
        has); otherwise the tenant's documents are searched — deleted documents and other
        tenants' count in the frequency — except for a term in more than
        :data:`_LOOKED_AT` documents of an index of one tenant."""
        df = int(self.searcher.doc_freq(field, term))
        if df == 0:
            return False
        if df > _LOOKED_AT and self._tenant_documents >= self.alive:
            return True
        Q, Occur = tantivy.Query, tantivy.Occur
        query = Q.boolean_query([(Occur.Must, Q.term_query(self._schema, field, term)),
                                 (Occur.Must, self._probe)])
        return bool(self.searcher.search(query, 1, count=False).hits)

    def total(self, addr: Any) -> int | None:
        """N, the documents of the snapshot (deleted ones included: what BM25's idf
        counts), or None when it cannot be read exactly.

        tantivy-py does not expose it; the BM25 explanation of the tenant term at a
        document of the tenant states it (~20 us). Every hit that reaches here is
        checked to be of the tenant by that explanation: for another tenant's document
        it raises, and the answer is None.
        """
        if self._total is None:
            self._total = _explained_total(self.searcher, self._probe, addr)
        return self._total


def _explained_total(searcher: Any, query: Any, addr: Any) -> int | None:
    try:
        tree = json.loads(query.explain(searcher, addr).to_json())
    except Exception:  # an optimisation probe: any surprise means "prove it another way"
        return None
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if str(node.get("description", "")).startswith("N, total number of docs"):
            value = node.get("value")
            if isinstance(value, int | float) and float(value).is_integer() and value < _EXACT_F32:
                return int(value)
            return None
        details = node.get("details")
        if isinstance(details, list):
            stack.extend(details)
    return None
