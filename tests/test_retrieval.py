"""Dense + hybrid retrieval over a real KnowledgeBase (SQLite + tantivy in tmp_path).

Most tests drive ``DenseIndex`` / ``Retriever`` directly over a knowledge base opened with
``dense=False``; the ``wired`` ones use the knowledge base's own dense index (the default,
packaged MiniLM) and the agent on top of it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.index.embedders.base import Embedder
from citewise.knowledge.index.embedders.minilm import MiniLMEmbedder
from citewise.knowledge.retrieve.retriever import DenseIndex, Mode, Retriever
from citewise.store.base import IndexOp

DOCS = {
    "refunds.txt": (
        "Refund policy\n\nMoney for returned goods is paid back to the original card within "
        "fourteen days. Opened software cannot be returned."
    ),
    "shipping.txt": (
        "Shipping\n\nParcels leave our warehouse every weekday. Delivery is free for orders "
        "above fifty euros."
    ),
    "security.txt": (
        "Security\n\nStaff must lock their screens when leaving the desk. Passwords are "
        "rotated every ninety days."
    ),
    "garden.txt": (
        "Garden club\n\nTomatoes need full sun and regular watering. Prune the roses in early "
        "spring."
    ),
}


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    src = tmp_path / "docs"
    src.mkdir()
    for name, text in DOCS.items():
        (src / name).write_text(text, encoding="utf-8")
    base = KnowledgeBase.open(tmp_path / "kb", dense=False)
    report = base.ingest([src], collection="handbook")
    assert report.ok, report.failed
    yield base
    base.close()


def _dense(tmp_path: Path, embedder: Embedder, **kw: object) -> DenseIndex:
    return DenseIndex(tmp_path / "kb" / DB_NAME, tmp_path / "kb" / "index" / "vectors", embedder, **kw)  # type: ignore[arg-type]


def test_hybrid_finds_paraphrases_lexical_misses(
    kb: KnowledgeBase, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    dense = _dense(tmp_path, embedder)
    stats = dense.reconcile(kb.store)
    n_chunks = kb.store.count_chunks()
    assert stats.added == n_chunks == len(dense.index)
    retriever = Retriever(kb.store, kb.index, dense)
    question = "How long until I get my money back for something I sent back?"
    lexical = retriever.retrieve("reimbursement duration", k=3, mode="lexical")
    assert lexical.hits == []  # no shared words: BM25 has nothing
    hybrid = retriever.retrieve("reimbursement duration for returns", k=2)
    assert hybrid.mode == "hybrid"
    assert hybrid.hits[0].source.endswith("refunds.txt")
    result = retriever.retrieve(question, k=2, mode="dense")
    assert result.hits[0].source.endswith("refunds.txt")
    hit = result.hits[0]
    text = kb.document_text(hit.document_id)
    assert text is not None and hit.text == text[hit.start_char : hit.end_char]
    ev = result.evidence[hit.chunk_id]
    assert ev is not None and hit.text[ev.start_char :].startswith(ev.text)
    assert result.retrieved >= 2 and result.compared >= 2
    dense.close()


def test_filters_and_tenants_apply_to_dense_hits(
    kb: KnowledgeBase, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    other = kb.for_tenant("acme")
    extra = tmp_path / "acme"
    extra.mkdir()
    (extra / "acme-refunds.txt").write_text("Acme refunds money within two days.")
    other.ingest([extra], collection="acme")
    dense = _dense(tmp_path, embedder)
    dense.reconcile(kb.store)
    retriever = Retriever(kb.store, kb.index, dense)  # tenant "default"
    hits = retriever.retrieve("refund money back", k=10, mode="dense").hits
    assert hits and all(not h.source.endswith("acme-refunds.txt") for h in hits)
    acme = Retriever(kb.store, kb.index, dense, tenant="acme").retrieve("money", k=10).hits
    assert [h.source.endswith("acme-refunds.txt") for h in acme] == [True]
    only = retriever.retrieve("money", k=10, filters={"source": "*shipping.txt"}, mode="dense")
    assert [h.source.endswith("shipping.txt") for h in only.hits] == [True]
    none = retriever.retrieve("money", k=10, filters={"collection": "nope"})
    assert none.hits == []
    dense.close()


def test_delete_and_change_leave_no_trace_and_survive_reopen(
    kb: KnowledgeBase, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    dense = _dense(tmp_path, embedder)
    dense.reconcile(kb.store)
    doc = kb.find_document(tmp_path / "docs" / "garden.txt")
    assert doc is not None
    garden_chunks = {c.id for c in kb.store.get_document_chunks(kb.tenant, doc.id)}
    assert garden_chunks <= set(dense.index.ids())
    assert kb.delete_document(doc.id)
    stats = dense.sync_documents(kb.store, [IndexOp(id=0, tenant=kb.tenant, document_id=doc.id, op="delete")])
    assert stats.removed == len(garden_chunks)
    assert not garden_chunks & set(dense.index.ids())
    retriever = Retriever(kb.store, kb.index, dense)
    assert all("Tomatoes" not in h.text for h in retriever.retrieve("growing tomatoes", k=10).hits)

    # a changed file: its new chunks get vectors, its old ones lose them
    (tmp_path / "docs" / "garden.txt").unlink()  # else the folder ingest brings it back
    (tmp_path / "docs" / "shipping.txt").write_text(
        DOCS["shipping.txt"] + " Express delivery costs nine euros.", encoding="utf-8"
    )
    kb.ingest([tmp_path / "docs"], collection="handbook")
    changed = kb.find_document(tmp_path / "docs" / "shipping.txt")
    assert changed is not None
    dense.sync_documents(kb.store, [IndexOp(id=0, tenant=kb.tenant, document_id=changed.id, op="upsert")])
    assert set(dense.index.ids()) == kb.store.list_chunk_ids()
    dense.close()

    db = sqlite3.connect(tmp_path / "kb" / DB_NAME)
    placeholders = ",".join("?" * len(garden_chunks))
    rows = db.execute(
        f"SELECT count(*) FROM vec_chunks WHERE chunk_id IN ({placeholders})", sorted(garden_chunks)
    ).fetchone()
    db.close()
    assert rows == (0,)
    reopened = _dense(tmp_path, embedder)
    assert set(reopened.index.ids()) == kb.store.list_chunk_ids()
    reopened.close()


class CountingEmbedder:
    """A deterministic fake embedder that counts what it embeds (bag of hashed words)."""

    name = "fake-bow"
    dim = 64

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(map(ord, word)) % self.dim] += 1.0  # same in every process
        out += 1e-3
        normed: np.ndarray = out / np.linalg.norm(out, axis=1, keepdims=True)
        return normed


def test_crash_between_vector_write_and_index_save_is_repaired(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    fake = CountingEmbedder()
    dense = _dense(tmp_path, fake)
    dense.reconcile(kb.store)
    dense.checkpoint()
    first = len(fake.embedded)
    assert first == kb.store.count_chunks()
    # "crash": vectors of new chunks reach SQLite, the process dies before saving the index
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "new.txt").write_text("Brand new handbook page about parking permits.")
    kb.ingest([extra], collection="handbook")
    dense.reconcile(kb.store)
    del dense  # no close(): the files on disk are older than SQLite
    again = _dense(tmp_path, fake)
    assert set(again.index.ids()) == kb.store.list_chunk_ids()
    # and nothing was embedded twice: the reopen replayed stored vectors
    assert len(fake.embedded) == first + 1
    assert again.reconcile(kb.store).added == 0
    again.close()


# A child process that ingests one more file and syncs vectors with the same fake
# embedder as ``CountingEmbedder`` — and is killed at ``$CITEWISE_FAULT``.
_CHILD = """
import sys
import numpy as np
from pathlib import Path
from citewise.knowledge.base import DB_NAME, KnowledgeBase
from citewise.knowledge.retrieve.retriever import DenseIndex

class Fake:
    name = "fake-bow"
    dim = 64
    def embed(self, texts):
        out = np.full((len(texts), 64), 1e-3, dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, sum(map(ord, w)) % 64] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)

root = Path(sys.argv[1])
kb = KnowledgeBase.open(root / "kb", dense=False)
kb.ingest([root / sys.argv[2]], collection="handbook")
dense = DenseIndex(root / "kb" / DB_NAME, root / "kb" / "index" / "vectors", Fake())
dense.reconcile(kb.store)
dense.close()
"""


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["dense:after_put", "vectors:before_pointer"])
def test_killed_process_leaves_a_consistent_dense_index(
    kb: KnowledgeBase, tmp_path: Path, fault: str
) -> None:
    import os
    import subprocess
    import sys

    fake = CountingEmbedder()
    first = _dense(tmp_path, fake)
    first.reconcile(kb.store)
    first.close()
    kb.close()
    more = tmp_path / "more"
    more.mkdir()
    (more / "new.txt").write_text("Visitors must sign in at the front desk and wear a badge.")
    env = {**os.environ, "CITEWISE_FAULT": fault}
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path), "more"], env=env, capture_output=True, timeout=120
    )
    assert proc.returncode == 86, proc.stderr.decode()[-2000:]  # it really died at the fault
    reopened = KnowledgeBase.open(tmp_path / "kb", dense=False)
    try:
        dense = _dense(tmp_path, CountingEmbedder())
        dense.reconcile(reopened.store)
        assert set(dense.index.ids()) == reopened.store.list_chunk_ids()
        assert not list((tmp_path / "kb" / "index" / "vectors").glob("*.tmp"))
        dense.close()
        again = _dense(tmp_path, CountingEmbedder())  # and the saved files agree too
        assert set(again.index.ids()) == reopened.store.list_chunk_ids()
        again.close()
    finally:
        reopened.close()


# -- wired: the knowledge base's own dense index, and the agent --------------------------------


@pytest.fixture
def wired(tmp_path: Path) -> Iterator[KnowledgeBase]:
    src = tmp_path / "docs"
    src.mkdir()
    for name, text in DOCS.items():
        (src / name).write_text(text, encoding="utf-8")
    base = KnowledgeBase.open(tmp_path / "wired")  # dense on, MiniLM: the defaults
    assert base.ingest([src], collection="handbook").ok
    yield base
    base.close()


def test_knowledge_base_is_hybrid_by_default(wired: KnowledgeBase) -> None:
    assert wired.dense is not None and wired.dense.model == MiniLMEmbedder.name
    assert wired.check_consistency().ok
    question = "How long until I get my money back for something I sent back?"
    found = wired.retrieve(question, k=2)
    assert found.mode == "hybrid" and found.hits[0].source.endswith("refunds.txt")
    assert wired.search("reimbursement duration", mode="lexical") == []
    assert wired.search("reimbursement duration", k=1)[0].source.endswith("refunds.txt")
    hit = found.hits[0]
    assert hit.evidence is not None and "fourteen days" in hit.evidence.text
    assert hit.text[hit.evidence.start_char :].startswith(hit.evidence.text)


def test_answer_carries_query_analysis_counts_and_evidence(wired: KnowledgeBase) -> None:
    from citewise import Agent

    answer = Agent(wired).ask("How long do refunds take for returned goods?")
    assert answer.status == "completed" and answer.citations
    q = answer.query
    assert q is not None and q.original_query.startswith("How long do refunds")
    assert "refunds" in q.keywords and q.query_language == "en"
    d = answer.query_details
    searched = [str(c.arguments["query"]) for c in answer.tool_calls
                if c.name == "search_knowledge"]
    assert d is not None and searched and d.queries == list(dict.fromkeys(searched))
    assert d.query == q.reformulated_query
    assert d.selected == len(answer.context_chunk_ids) > 0
    assert d.retrieved is not None and d.compared is not None
    assert d.retrieved >= d.compared >= d.selected > 0 and not d.ranking_fallback
    snippets = [s for doc in answer.search_documents for s in doc.snippets]
    assert snippets and any(s.evidence is not None for s in snippets)
    for s in snippets:
        if s.evidence is not None:
            assert s.text[s.evidence.start_char :].startswith(s.evidence.text)
    cited = answer.search_documents[answer.citations[0].document_index - 1]
    assert cited.source.endswith("refunds.txt")


# -- tenant shards and what a search reads from SQLite ---------------------------------------


def _with_acme(kb: KnowledgeBase, tmp_path: Path) -> set[int]:
    extra = tmp_path / "acme"
    extra.mkdir()
    (extra / "acme-refunds.txt").write_text("Acme refunds money within two days.")
    (extra / "acme-garden.txt").write_text("Acme garden tomatoes need sun and water.")
    kb.for_tenant("acme").ingest([extra], collection="acme")
    return kb.store.list_chunk_ids("acme")


def test_every_vector_is_in_its_tenants_shard_after_sync_reopen_and_rebuild(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    acme = _with_acme(kb, tmp_path)
    default = kb.store.list_chunk_ids("default")
    assert acme and default
    dense = _dense(tmp_path, CountingEmbedder())
    dense.reconcile(kb.store)

    def check(d: DenseIndex) -> None:
        assert {c for c in default if d.index.tenant_of(c) == "default"} == default
        assert {c for c in acme if d.index.tenant_of(c) == "acme"} == acme
        assert d.count("acme") == len(acme) and d.count() == len(acme) + len(default)
        vec = d.embed_query("refunds money tomatoes garden")
        assert {c for c, _ in d.search(vec, 100, tenant="acme")} == acme
        assert {c for c, _ in d.search(vec, 100, tenant="default")} == default

    check(dense)
    dense.close()
    reopened = _dense(tmp_path, CountingEmbedder())  # from the saved shard files
    check(reopened)
    reopened.close()
    for f in (tmp_path / "kb" / "index" / "vectors").iterdir():
        f.unlink()
    rebuilt = _dense(tmp_path, CountingEmbedder())  # from SQLite alone
    check(rebuilt)
    rebuilt.close()


class _CountingStore:
    """The store, counting the chunk ids a search reads from it."""

    def __init__(self, store: object) -> None:
        self._store = store
        self.read: list[int] = []
        self.judged: list[str] = []  # documents whose filtered fields were read

    def get_chunk_contexts(self, tenant: str, chunk_ids: Sequence[int]) -> object:
        self.read.extend(chunk_ids)
        return self._store.get_chunk_contexts(tenant, chunk_ids)  # type: ignore[attr-defined]

    def document_facets(self, tenant: str, document_ids: Sequence[str] | None,
                        **kw: object) -> object:
        self.judged.extend(["*"] if document_ids is None else document_ids)
        return self._store.document_facets(tenant, document_ids, **kw)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


def test_without_filters_only_the_final_hits_are_read_from_sqlite(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    acme = _with_acme(kb, tmp_path)
    dense = _dense(tmp_path, CountingEmbedder())
    dense.reconcile(kb.store)
    counting = _CountingStore(kb.store)
    retriever = Retriever(counting, kb.index, dense, candidates=50)  # type: ignore[arg-type]
    modes: tuple[Mode, ...] = ("hybrid", "dense", "lexical")
    for mode in modes:
        counting.read.clear()
        result = retriever.retrieve("refunds money garden tomatoes", k=2, mode=mode)
        assert len(result.hits) == 2 and not acme & {h.chunk_id for h in result.hits}
        assert len(counting.read) == 2, mode  # the two hits, not the ~50 candidates
        assert all(h.evidence is None or h.text[h.evidence.start_char:].startswith(h.evidence.text)
                   for h in result.hits)
    # filters are judged per document, from its filtered fields: still only the hits are
    # read, and the filter is obeyed
    counting.read.clear()
    only = retriever.retrieve("money", k=5, filters={"source": "*shipping.txt"}, mode="dense")
    assert [h.source.endswith("shipping.txt") for h in only.hits] == [True]
    assert counting.read == [only.hits[0].chunk_id]
    assert sorted(counting.judged) == sorted(set(counting.judged))  # each document once
    # a chunk deleted from SQLite but still in the vector index is skipped, never returned
    doc = kb.find_document(tmp_path / "docs" / "garden.txt")
    assert doc is not None
    garden = {c.id for c in kb.store.get_document_chunks("default", doc.id)}
    kb.store.delete_document("default", doc.id)  # SQLite only: the indexes lag behind
    assert garden <= set(dense.index.ids())
    for mode in ("hybrid", "dense"):
        hits = retriever.retrieve("tomatoes garden roses", k=10, mode=mode).hits
        assert hits and not garden & {h.chunk_id for h in hits}
    dense.close()


def test_a_filter_no_document_passes_reads_no_chunk(kb: KnowledgeBase, tmp_path: Path) -> None:
    """A tag no document has, in every mode: nothing is found, no candidate chunk is read
    (the search once read every chunk the vector index offered, 1.1 s at 12k chunks), and
    each document is judged once, though a hybrid search meets it in both lists. A tag that does pass
    is still found, in every mode."""
    _with_acme(kb, tmp_path)
    dense = _dense(tmp_path, CountingEmbedder())
    dense.reconcile(kb.store)
    counting = _CountingStore(kb.store)
    retriever = Retriever(counting, kb.index, dense, candidates=2)  # type: ignore[arg-type]
    documents = [d.id for d in kb.store.list_documents("default")]
    assert len(documents) >= 3
    modes: tuple[Mode, ...] = ("hybrid", "dense", "lexical")
    for mode in modes:
        counting.read.clear()
        counting.judged.clear()
        got = retriever.retrieve("refunds money garden tomatoes shipping", k=2, mode=mode,
                                 filters={"tags": ["nowhere"]})
        assert got.hits == [] and counting.read == [], mode
        assert sorted(counting.judged) == sorted(set(counting.judged)), mode
        assert set(counting.judged) <= set(documents) and counting.judged, mode
    (tagged,) = [d for d in kb.store.list_documents("default") if d.source.endswith("refunds.txt")]
    with sqlite3.connect(tmp_path / "kb" / DB_NAME) as con:
        con.execute("UPDATE documents SET metadata = ? WHERE id = ?",
                    ('{"tags": "Billing, money", "anchors": {"a": 1}}', tagged.id))
    for mode in modes:
        got = retriever.retrieve("refunds money garden tomatoes", k=2, mode=mode,
                                 filters={"tags": ["billing"]})
        assert got.hits and {h.document_id for h in got.hits} == {tagged.id}, mode
    dense.close()


def test_hydrated_metadata_is_fresh_and_never_stale(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Hit hydration parses each document's metadata JSON once per distinct text: every
    call must still get its own objects (mutating one never shows in the next) and a
    document's changed metadata must show at once."""
    (doc,) = [d for d in kb.store.list_documents("default") if d.source.endswith("refunds.txt")]
    chunk_ids = sorted(r.chunk_id for r in kb.store.index_rows([doc.id]))
    con = sqlite3.connect(tmp_path / "kb" / DB_NAME)
    with con:
        con.execute(
            "UPDATE documents SET metadata = ? WHERE id = ?",
            ('{"tags": ["a", "b"], "author": {"name": "Ann"}, "pages": 3}', doc.id),
        )
    first = kb.store.get_chunk_contexts("default", chunk_ids)[0].metadata
    assert first == {"tags": ["a", "b"], "author": {"name": "Ann"}, "pages": 3}
    first["tags"].append("mutated")
    first["author"]["name"] = "Bob"
    first["pages"] = 99
    again = kb.store.get_chunk_contexts("default", chunk_ids)[0].metadata
    assert again == {"tags": ["a", "b"], "author": {"name": "Ann"}, "pages": 3}
    with con:
        con.execute("UPDATE documents SET metadata = ? WHERE id = ?", ('{"pages": 4}', doc.id))
    flat = kb.store.get_chunk_contexts("default", chunk_ids)
    assert [c.metadata for c in flat] == [{"pages": 4}] * len(chunk_ids)
    flat[0].metadata["pages"] = 5
    assert kb.store.get_chunk_contexts("default", chunk_ids)[0].metadata == {"pages": 4}
    con.close()


def test_a_filter_few_documents_pass_still_finds_them_below_the_first_matches(
        tmp_path: Path) -> None:
    """Tags (a type, dates, a glob) are judged on the lexical hits, not inside tantivy: only
    the first 4n matches were judged, so the one tagged document that mentions a word less
    often than thirty others was never found, though it matches the query and the filter."""
    src = tmp_path / "docs"
    src.mkdir()
    for i in range(30):
        (src / f"plants{i:02}.txt").write_text(
            f"Plant {i}\n\nWatering: water the plant, watering weekly; watering matters.\n")
    (src / "roses.txt").write_text("Roses\n\nPrune the roses in spring; watering them helps "
                                   "the new shoots, but less than sun and a good soil do.\n")
    with KnowledgeBase.open(tmp_path / "kb", dense=False) as kb:
        assert kb.ingest([src]).ok
        (roses,) = [d for d in kb.store.list_documents("default", limit=100)
                    if d.source.endswith("roses.txt")]
        with sqlite3.connect(tmp_path / "kb" / DB_NAME) as con:
            con.execute("UPDATE documents SET metadata = ? WHERE id = ?",
                        ('{"tags": "garden"}', roses.id))
        retriever = Retriever(kb.store, kb.index, None, candidates=2)
        unfiltered = retriever.retrieve("watering", k=2, mode="lexical").hits
        assert roses.id not in {h.document_id for h in unfiltered}  # ranked far below
        for flt in ({"tags": ["garden"]}, {"source": "*roses.txt"}):
            got = retriever.retrieve("watering", k=2, mode="lexical", filters=flt).hits
            assert [h.document_id for h in got] == [roses.id], flt
        counting = _CountingStore(kb.store)
        retriever = Retriever(counting, kb.index, None, candidates=2)  # type: ignore[arg-type]
        assert retriever.retrieve("watering", k=2, mode="lexical",
                                  filters={"tags": ["nowhere"]}).hits == []
        assert counting.read == [] and counting.judged.count("*") == 1  # each read once
