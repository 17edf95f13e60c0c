"""LexicalIndex.search: the fast paths (unfiltered-then-proved, common terms that only
score) return exactly what the plain filtered BM25 query returns, and never leak.

The reference is tantivy itself, opened independently on the same folder, running the
plain query: Must(any query term in ``text``, or in ``heading`` boosted) AND Must(each
filter), score-free filters. The rows have titles and section paths drawn like their
text, so heading terms are common and rare too and every shortcut meets them. Scores are
compared with a float tolerance (tantivy adds term scores in a different order in the two
plans), ids exactly unless scores tie at the cut.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest
import tantivy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewise.knowledge.index import lexical_tantivy as lexical
from citewise.knowledge.index import tantivy_schema
from citewise.knowledge.index.lexical_tantivy import LexicalIndex
from citewise.knowledge.index.tantivy_snapshot import Snapshot
from citewise.store.base import IndexRow

WORDS = [f"w{i:03d}" for i in range(300)]


BOOST = 2.0  # the heading boost of the indexes here (independent of the shipped default)


def _text(rng: random.Random, n: int) -> str:
    # Zipf-like: the first few words are in far more than 5 % of the chunks ("common"),
    # the tail in a handful.
    weights = [1.0 / (r + 1) for r in range(len(WORDS))]
    return " ".join(rng.choices(WORDS, weights=weights, k=n))


def _section(rng: random.Random) -> str | None:
    return rng.choice([None, " > ".join(_text(rng, 2) for _ in range(rng.randint(1, 3)))])


def _rows(seed: int, n_docs: int, tenants: Sequence[tuple[str, float]]) -> list[IndexRow]:
    rng = random.Random(seed)
    rows = []
    names = [t for t, _ in tenants]
    shares = [s for _, s in tenants]
    for d in range(n_docs):
        tenant = rng.choices(names, weights=shares)[0]
        collection = rng.choice(["handbook", "wiki", "mail"])
        title = rng.choice([None, _text(rng, rng.randint(1, 4))])
        for c in range(rng.randint(1, 4)):
            rows.append(
                IndexRow(
                    chunk_id=d * 10 + c,
                    document_id=f"{tenant}-doc{d}",
                    tenant=tenant,
                    collection=collection,
                    text=_text(rng, rng.randint(3, 60)),
                    title=title,
                    section=_section(rng),
                )
            )
    return rows


def _build(path: Path, rows: list[IndexRow], boost: float = BOOST) -> LexicalIndex:
    index = LexicalIndex(path, heading_boost=boost)
    with index.writer() as batch:
        batch.add(rows)
    return index


def _reference(
    path: Path,
    index: LexicalIndex,
    query: str,
    k: int,
    tenant: str,
    collections: Sequence[str] | None = None,
    document_ids: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    ix = tantivy.Index.open(str(path))
    schema = ix.schema
    searcher = ix.searcher()
    Q, Occur = tantivy.Query, tantivy.Occur
    terms = index.query_terms(query)
    if not terms:
        return []

    def any_of(field: str, values: Sequence[str | int]) -> tantivy.Query:
        return Q.boolean_query([(Occur.Should, Q.term_query(schema, field, v)) for v in values])

    boost = index.heading_boost if index.heading_boost is not None else 0.0
    matched = [(Occur.Should, any_of("text", terms))]
    if boost > 0:
        matched.append((Occur.Should, Q.boost_query(any_of("heading", terms), boost)))
    clauses = [(Occur.Must, Q.boolean_query(matched))]
    clauses.append((Occur.Must, Q.const_score_query(any_of("tenant", [tenant]), 0.0)))
    if collections is not None:
        clauses.append((Occur.Must, Q.const_score_query(any_of("collection", collections), 0.0)))
    if document_ids is not None:
        clauses.append((Occur.Must, Q.const_score_query(any_of("document_id", document_ids), 0.0)))
    hits = searcher.search(Q.boolean_query(clauses), k, count=False).hits
    ids = searcher.fast_field_values("chunk_id", [a for _, a in hits])
    return [(int(c), float(s)) for (s, _), c in zip(hits, ids, strict=True) if c is not None]


def _same(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> None:
    assert len(got) == len(want)
    for (_, gs), (_, ws) in zip(got, want, strict=True):
        assert gs == pytest.approx(ws, rel=1e-5)
    # Ids agree except where scores tie (a tie's order may differ across plans), and
    # the result never holds anything the reference would not rank there.
    cut = want[-1][1] if want else 0.0
    strict_got = {c for c, s in got if s > cut * (1 + 1e-5)}
    strict_want = {c for c, s in want if s > cut * (1 + 1e-5)}
    assert strict_got == strict_want


def _tenant_of(rows: list[IndexRow]) -> dict[int, IndexRow]:
    return {r.chunk_id: r for r in rows}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, LexicalIndex, list[IndexRow]]:
    """A 95 % / 5 % two-tenant index: 'acme' takes the unfiltered-then-proved path and
    its proof must fail over to the index check; 'tiny' takes the filtered path."""
    path = tmp_path_factory.mktemp("mixed") / "ix"
    rows = _rows(1, 400, [("acme", 0.95), ("tiny", 0.05)])
    return path, _build(path, rows), rows


def test_matches_reference_across_tenants_and_filters(
    mixed: tuple[Path, LexicalIndex, list[IndexRow]],
) -> None:
    path, index, rows = mixed
    by_id = _tenant_of(rows)
    rng = random.Random(2)
    docs = sorted({r.document_id for r in rows})
    checked = 0
    for _ in range(150):
        query = " ".join(rng.sample(WORDS[:120], rng.randint(1, 4)))
        tenant = rng.choice(["acme", "acme", "tiny", "nobody"])
        k = rng.choice([1, 5, 10, 50])
        collections = rng.choice([None, ["handbook"], ["handbook", "wiki", "mail"]])
        document_ids = rng.choice([None, None, rng.sample(docs, 5)])
        got = index.search(query, k, tenant=tenant, collections=collections,
                           document_ids=document_ids)
        want = _reference(path, index, query, k, tenant, collections, document_ids)
        _same(got, want)
        for cid, _ in got:
            row = by_id[cid]
            assert row.tenant == tenant
            assert collections is None or row.collection in collections
            assert document_ids is None or row.document_id in document_ids
        checked += bool(got)
    assert checked > 50  # the comparison ran on real results, not on empty lists


# 50: the heading clauses dominate every score, so their share of the bound decides.
@pytest.mark.parametrize("boost", [0.0, BOOST, 50.0])
def test_common_terms_only_score_and_stay_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, boost: float
) -> None:
    rows = _rows(3, 500, [("solo", 1.0)])
    index = _build(tmp_path / "ix", rows, boost)
    common = WORDS[:5]  # in far more than 5 % of chunks
    rare = WORDS[60:120]
    rng = random.Random(4)
    queries = [f"{rng.choice(common)} {rng.choice(rare)} {rng.choice(rare)}" for _ in range(80)]
    bounds: list[float] = []
    real_idf = lexical._idf

    def spy(doc_freq: int, total: int) -> float:
        bounds.append(doc_freq)
        return real_idf(doc_freq, total)

    monkeypatch.setattr(lexical, "_idf", spy)
    for q in queries:
        _same(index.search(q, 10, tenant="solo"), _reference(tmp_path / "ix", index, q, 10, "solo"))
    assert bounds, "the common-term plan never ran"
    # Force every proof to fail: the plain query then answers, identically.
    monkeypatch.setattr(lexical, "_BOUND_MARGIN", float("inf"))
    for q in queries[:20]:
        _same(index.search(q, 10, tenant="solo"), _reference(tmp_path / "ix", index, q, 10, "solo"))


def test_other_tenant_outranking_everything_never_leaks(tmp_path: Path) -> None:
    # 'acme' has 99 % of the chunks (so the unfiltered plan is tried), but every top
    # unfiltered hit for "zebra" is the other tenant's.
    rows = [
        IndexRow(i, f"a{i}", "acme", "default", f"zebra {_text(random.Random(i), 40)}")
        for i in range(200)
    ]
    rows += [IndexRow(1000 + i, f"b{i}", "beta", "default", "zebra zebra zebra") for i in range(2)]
    index = _build(tmp_path / "ix", rows)
    got = index.search("zebra", 10, tenant="acme")
    assert len(got) == 10
    assert all(cid < 1000 for cid, _ in got)
    _same(got, _reference(tmp_path / "ix", index, "zebra", 10, "acme"))
    assert {cid for cid, _ in index.search("zebra", 10, tenant="beta")} == {1000, 1001}


def _lingering_delete(path: Path, rows: list[IndexRow], delete: str) -> LexicalIndex:
    """Index ``rows`` then delete a document so that it *stays* in its segment, counted by
    doc_freq and by BM25's N: one writer thread, one segment (LexicalIndex's writer
    uses every core, and tantivy then sometimes merges the deleted document away)."""
    path.mkdir()
    raw = tantivy.Index(tantivy_schema.schema(), path=str(path))
    for step in ("add", "delete"):
        writer = raw.writer(heap_size=50_000_000, num_threads=1)
        if step == "add":
            for r in rows:
                writer.add_document(tantivy.Document(
                    chunk_id=r.chunk_id, document_id=r.document_id, tenant=r.tenant,
                    collection=r.collection, text=r.text))
        else:
            writer.delete_documents_by_term("document_id", delete)
        writer.commit()
        writer.wait_merging_threads()
    return LexicalIndex(path)


def test_deleted_documents_cannot_fake_a_one_tenant_index(tmp_path: Path) -> None:
    # After the delete: 8 live 'acme' chunks + 1 live 'beta' chunk = 9 live documents,
    # and doc_freq('acme') is still 9 (the deleted one counts) — equal to num_docs, yet
    # 'acme' is not every live document. The beta chunk must still never come back.
    rows = [IndexRow(i, f"a{i}", "acme", "default", "zebra apple") for i in range(9)]
    rows.append(IndexRow(99, "b0", "beta", "default", "zebra zebra zebra"))
    index = _lingering_delete(tmp_path / "ix", rows, "a0")
    searcher = tantivy.Index.open(str(tmp_path / "ix")).searcher()
    assert searcher.num_docs == 9 == searcher.doc_freq("tenant", "acme")  # the trap is set
    got = index.search("zebra", 10, tenant="acme")
    assert sorted(cid for cid, _ in got) == list(range(1, 9))
    _same(got, _reference(tmp_path / "ix", index, "zebra", 10, "acme"))
    assert [cid for cid, _ in index.search("zebra", 10, tenant="beta")] == [99]


def test_deletes_and_one_tenant_fast_path(tmp_path: Path) -> None:
    rows = _rows(5, 300, [("solo", 1.0)])
    path = tmp_path / "ix"
    index = _build(path, rows)
    gone = sorted({r.document_id for r in rows})[::3]
    with index.writer() as batch:
        for doc in gone:
            batch.delete_document(doc)
    rng = random.Random(6)
    for _ in range(60):
        q = " ".join(rng.sample(WORDS[:150], rng.randint(1, 3)))
        got = index.search(q, 10, tenant="solo")
        _same(got, _reference(path, index, q, 10, "solo"))
        assert not {cid for cid, _ in got} & {r.chunk_id for r in rows if r.document_id in gone}


def test_snapshot_total_counts_deleted_documents(tmp_path: Path) -> None:
    rows = [IndexRow(i, f"d{i}", "acme" if i < 5 else "beta", "c", "apple") for i in range(7)]
    _lingering_delete(tmp_path / "ix", rows, "d0")
    ix = tantivy.Index.open(str(tmp_path / "ix"))
    searcher = ix.searcher()
    hits = searcher.search(tantivy.Query.term_query(ix.schema, "tenant", "acme"), 10).hits
    snap = Snapshot(searcher, ix.schema, "acme")
    assert snap.alive == 6
    assert snap.total(hits[0][1]) == 7  # BM25's N: the deleted document included
    beta = searcher.search(tantivy.Query.term_query(ix.schema, "tenant", "beta"), 1).hits
    assert Snapshot(searcher, ix.schema, "acme").total(beta[0][1]) is None


def test_many_filter_values_and_huge_k(
    mixed: tuple[Path, LexicalIndex, list[IndexRow]],
) -> None:
    path, index, rows = mixed
    docs = sorted({r.document_id for r in rows})
    many = docs[: lexical._MAX_TERM_UNION + 40]  # the term-set filter
    got = index.search("w001 w070", 10**9, tenant="acme", document_ids=many)
    want = _reference(path, index, "w001 w070", 100_000, "acme", document_ids=many)
    _same(got, want)
    assert len(got) > 10


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.text(max_size=300),
    tenant=st.text(max_size=50),
    collections=st.none() | st.lists(st.text(max_size=20), max_size=5),
    document_ids=st.none() | st.lists(st.text(max_size=20), max_size=5),
    k=st.integers(min_value=-3, max_value=10_000),
)
def test_any_input_never_fails(
    mixed: tuple[Path, LexicalIndex, list[IndexRow]],
    query: str,
    tenant: str,
    collections: list[str] | None,
    document_ids: list[str] | None,
    k: int,
) -> None:
    _, index, rows = mixed
    by_id = _tenant_of(rows)
    got = index.search(query, k, tenant=tenant, collections=collections,
                       document_ids=document_ids)
    assert len(got) <= max(k, 0)
    for cid, _ in got:
        assert by_id[cid].tenant == tenant


def test_hostile_filter_values_never_fail(
    mixed: tuple[Path, LexicalIndex, list[IndexRow]],
) -> None:
    _, index, _ = mixed
    huge = "x" * 100_000
    assert index.search("w001", 10, tenant=huge) == []
    assert index.search("w001", 10, tenant="acme", collections=[huge, "\x00"]) == []
    assert index.search(huge + " w001", 5, tenant="acme")
    assert index.search("w001", 10, tenant="acme", document_ids=[]) == []
