"""One tantivy searcher and what a search learns about it: the collection size BM25 used.

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


class Snapshot:
    """One searcher (one index snapshot) and what a search learns about it."""

    def __init__(self, searcher: Any, schema: Any, tenant: str) -> None:
        self.searcher = searcher
        self.alive = int(searcher.num_docs)
        self._probe = tantivy.Query.term_query(schema, "tenant", tenant)
        self._total: int | None = None

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
