"""Vector index: exact vs HNSW, deletion without trace, persistence, crash consistency."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from citewise.errors import InvalidInput
from citewise.knowledge.index.vectors.index import HNSWParams, VectorIndex
from citewise.knowledge.index.vectors.replay import checkpoint, open_index
from citewise.knowledge.index.vectors.truth import VectorStore

DIM = 384
BASE = 2**52  # chunk ids are 53-bit hashes: make sure big ids survive every path


def unit(a: np.ndarray) -> np.ndarray:
    out: np.ndarray = (a / np.linalg.norm(a, axis=1, keepdims=True)).astype(np.float32)
    return out


def clustered(n: int, seed: int = 0, clusters: int = 300, noise: float = 1.2) -> np.ndarray:
    """Unit vectors around random centres: embedding-like structure, hard enough for HNSW."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((clusters, DIM)))
    pts = centres[rng.integers(0, clusters, n)] + rng.standard_normal((n, DIM)) * noise / DIM**0.5
    return unit(pts)


def ids_of(n: int, start: int = 0) -> list[int]:
    return [BASE + 7919 * i for i in range(start, start + n)]


def brute(mat: np.ndarray, ids: list[int], q: np.ndarray, k: int) -> list[int]:
    order = np.argsort(-(mat @ q), kind="stable")[:k]
    return [ids[i] for i in order]


# -- exact ----------------------------------------------------------------------------------


def test_exact_search_equals_brute_force_and_scores_are_cosines() -> None:
    x = clustered(500)
    ids = ids_of(500)
    index = VectorIndex(DIM)
    index.add(ids, x)
    assert index.kind == "exact" and len(index) == 500
    q = x[17]
    got = index.search(q, 10)
    assert [c for c, _ in got] == brute(x, ids, q, 10)
    assert got[0][0] == ids[17] and got[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_exact_remove_keeps_the_others_findable() -> None:
    x = clustered(300, seed=1)
    ids = ids_of(300)
    index = VectorIndex(DIM)
    index.add(ids, x)
    gone = ids[::3]
    assert index.remove([*gone, 12345]) == len(gone)  # unknown ids are ignored
    keep = [i for i in range(300) if ids[i] not in set(gone)]
    assert len(index) == len(keep)
    for i in keep[:50]:
        assert index.search(x[i], 1)[0][0] == ids[i]
    for i in range(0, 300, 3):
        assert ids[i] not in {c for c, _ in index.search(x[i], 20)}
        assert ids[i] not in index


def test_filters_set_and_predicate() -> None:
    x = clustered(200, seed=2)
    ids = ids_of(200)
    index = VectorIndex(DIM)
    index.add(ids, x)
    allowed = set(ids[100:110])
    assert {c for c, _ in index.search(x[0], 50, allow=allowed)} == allowed
    odd = index.search(x[0], 5, allow=lambda c: (c - BASE) // 7919 % 2 == 1)
    assert len(odd) == 5 and all((c - BASE) // 7919 % 2 == 1 for c, _ in odd)
    assert index.search(x[0], 5, allow=set()) == []


def test_upsert_replaces_vector_and_bad_shapes_are_typed_errors() -> None:
    x = clustered(10, seed=3)
    ids = ids_of(10)
    index = VectorIndex(DIM)
    index.add(ids, x)
    index.add([ids[0]], x[5:6])  # same id, new vector
    assert len(index) == 10
    assert index.search(x[5], 2)[1][1] == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(InvalidInput) as err:
        index.search(np.zeros(3, dtype=np.float32), 1)
    assert err.value.code == "vector_shape_mismatch"
    with pytest.raises(InvalidInput):
        index.add(ids[:2], x[:3])


# -- HNSW -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_hnsw_recall_at_10_vs_exact() -> None:
    n = 6000
    x = clustered(n, seed=4)
    ids = ids_of(n)
    exact = VectorIndex(DIM, hnsw_threshold=10**9)
    exact.add(ids, x)
    hnsw = VectorIndex(DIM, hnsw_threshold=4000)
    hnsw.add(ids[:3000], x[:3000])
    assert hnsw.kind == "exact"
    hnsw.add(ids[3000:], x[3000:])  # crossing the threshold converts to HNSW
    assert hnsw.kind == "hnsw" and len(hnsw) == n
    rng = np.random.default_rng(5)
    queries = unit(x[rng.integers(0, n, 200)] + rng.standard_normal((200, DIM)) * 1.2 / DIM**0.5)
    recall = np.mean(
        [
            len({c for c, _ in hnsw.search(q, 10)} & {c for c, _ in exact.search(q, 10)}) / 10
            for q in queries
        ]
    )
    assert recall >= 0.99


def _small_hnsw(n: int = 400, seed: int = 6) -> tuple[VectorIndex, np.ndarray, list[int]]:
    x = clustered(n, seed=seed)
    ids = ids_of(n)
    index = VectorIndex(DIM, hnsw_threshold=100, params=HNSWParams(m=16, ef_construction=100))
    index.add(ids, x)
    assert index.kind == "hnsw"
    return index, x, ids


def test_hnsw_delete_leaves_no_trace_in_results_or_saved_file(tmp_path: Path) -> None:
    index, x, ids = _small_hnsw()
    victim = 42
    assert index.search(x[victim], 1)[0][0] == ids[victim]
    assert index.remove([ids[victim]]) == 1
    assert ids[victim] not in index and len(index) == len(ids) - 1
    assert all(c != ids[victim] for c, _ in index.search(x[victim], 50))
    index.save(tmp_path, "v", seq=1, model="m")
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert x[victim].tobytes() not in blob  # the vector was scrubbed, not just flagged
    assert np.int64(ids[victim]).tobytes() not in blob  # hnsw labels are slots, not ids
    assert x[victim + 1].tobytes() in blob  # (the check above can fail: live data is there)
    assert np.int64(ids[victim + 1]).tobytes() in blob


def test_hnsw_reuses_deleted_slots_and_filters() -> None:
    index, x, ids = _small_hnsw()
    index.remove(ids[:50])
    before = index.shards[None].hnsw.get_current_count()
    fresh = clustered(50, seed=99)
    new_ids = ids_of(50, start=10_000)
    index.add(new_ids, fresh)
    assert index.shards[None].hnsw.get_current_count() == before  # slots of deleted elements reused
    assert index.search(fresh[3], 1)[0][0] == new_ids[3]
    allowed = set(ids[100:105])
    assert {c for c, _ in index.search(x[0], 10, allow=allowed)} == allowed
    assert index.search(x[0], 10, allow=set()) == []


def test_save_load_round_trip_both_kinds(tmp_path: Path) -> None:
    for threshold, kind in ((10**9, "exact"), (100, "hnsw")):
        x = clustered(300, seed=7)
        ids = ids_of(300)
        index = VectorIndex(DIM, hnsw_threshold=threshold)
        index.add(ids, x)
        index.remove(ids[:10])
        d = tmp_path / kind
        index.save(d, "v", seq=9, model="m")
        loaded = VectorIndex.load(d, "v", model="m", dim=DIM, hnsw_threshold=threshold)
        assert loaded is not None
        again, seq = loaded
        assert seq == 9 and again.kind == kind and set(again.ids()) == set(ids[10:])
        assert again.search(x[20], 1)[0][0] == ids[20]
        assert VectorIndex.load(d, "v", model="other", dim=DIM) is None
        assert VectorIndex.load(d, "v", model="m", dim=128) is None
        assert len(list(d.glob("*.tmp"))) == 0


# -- consistency with SQLite ------------------------------------------------------------------


def _hash(i: int) -> bytes:
    return i.to_bytes(32, "big")


def test_open_index_rebuilds_replays_and_survives_a_crash(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    vdir = tmp_path / "kb.vectors"
    store = VectorStore(db)
    x = clustered(60, seed=8)
    ids = ids_of(60)
    store.put("m", ids[:40], [_hash(i) for i in range(40)], x[:40])

    index, seq = open_index(store, "m", DIM, vdir)  # no files yet: rebuild
    assert set(index.ids()) == set(ids[:40]) and seq == store.last_seq("m")
    old_files = tmp_path / "old"
    shutil.copytree(vdir, old_files)

    # Writes reach SQLite, then the process "dies" before the index is saved.
    store.put("m", ids[40:], [_hash(i) for i in range(40, 60)], x[40:])
    store.delete("m", ids[:5])
    del index
    index, seq = open_index(store, "m", DIM, vdir)  # replays the log after the saved seq
    assert set(index.ids()) == set(ids[5:])
    assert seq == store.last_seq("m")
    assert index.search(x[50], 1)[0][0] == ids[50]

    checkpoint(store, "m", index, seq, vdir)
    assert store.log_since("m", seq) == []
    # An index file older than the pruned log cannot be replayed: it is rebuilt instead.
    shutil.rmtree(vdir)
    shutil.copytree(old_files, vdir)
    index, _ = open_index(store, "m", DIM, vdir)
    assert set(index.ids()) == set(ids[5:])

    # A damaged file is rebuilt, never trusted.
    for f in vdir.glob("*.npy"):
        f.write_bytes(b"garbage")
    index, _ = open_index(store, "m", DIM, vdir)
    assert set(index.ids()) == set(ids[5:])
    store.close()


def test_vector_store_cache_and_delete_leave_no_rows(tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite"
    store = VectorStore(db)
    x = clustered(4, seed=9)
    # chunks 1 and 2 have the same text (same hash): one cached vector serves both
    store.put("m", [1, 2, 3], [_hash(1), _hash(1), _hash(3)], x[:3])
    assert set(store.cached("m", [_hash(1), _hash(3), _hash(4)])) == {_hash(1), _hash(3)}
    store.put("m", [1], [_hash(1)], x[3:4])  # already stored: unchanged
    ids, blob = store.vectors("m", [1, 2])
    got = np.frombuffer(blob, dtype="<f4").reshape(-1, DIM)
    assert sorted(ids) == [1, 2] and np.allclose(got[0], x[0]) and np.allclose(got[1], x[0])
    assert store.delete("m", [1]) == 1
    assert store.cached("m", [_hash(1)])  # chunk 2 still uses it
    assert store.delete(None, [2, 3]) == 2
    store.close()
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM vec_chunks").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM vec_cache").fetchone() == (0,)
    con.close()
    with pytest.raises(InvalidInput):
        VectorStore(db).put("m", [1], [], x[:1])


# -- tenant shards ----------------------------------------------------------------------------


def _two_tenants(threshold: int = 10**9) -> tuple[VectorIndex, np.ndarray, list[int]]:
    x = clustered(120, seed=11)
    ids = ids_of(120)
    index = VectorIndex(DIM, hnsw_threshold=threshold, params=HNSWParams(m=16, ef_construction=100))
    index.add(ids, x, ["acme" if i % 3 == 0 else "default" for i in range(120)])
    return index, x, ids


@pytest.mark.parametrize("threshold", [10**9, 20])
def test_a_tenant_search_sees_only_that_tenants_vectors(threshold: int) -> None:
    index, x, ids = _two_tenants(threshold)
    acme = {ids[i] for i in range(0, 120, 3)}
    assert index.shards["acme"].kind == ("exact" if threshold > 100 else "hnsw")
    # the query is an acme vector's neighbour, but default's search never sees acme's
    got = index.search(x[0], 200, tenant="default")
    assert len(got) == 80 and not acme & {c for c, _ in got}
    assert index.search(x[0], 1, tenant="acme")[0][0] == ids[0]
    assert {c for c, _ in index.search(x[0], 200, tenant="acme")} == acme
    assert index.search(x[0], 5, tenant="nobody") == []
    # every tenant (tenant=None): merged best first
    merged = index.search(x[1], 10)
    assert merged[0][0] == ids[1] and [s for _, s in merged] == sorted((s for _, s in merged), reverse=True)
    assert index.tenant_of(ids[0]) == "acme" and index.tenant_of(ids[1]) == "default"


def test_a_chunk_that_changes_tenant_leaves_its_old_shard_and_empty_shards_go() -> None:
    index, x, ids = _two_tenants()
    index.add([ids[1]], x[1:2], ["acme"])
    assert index.tenant_of(ids[1]) == "acme" and len(index) == 120
    assert ids[1] not in {c for c, _ in index.search(x[1], 200, tenant="default")}
    assert index.search(x[1], 1, tenant="acme")[0][0] == ids[1]
    acme = [c for c in index.ids() if index.tenant_of(c) == "acme"]
    assert index.remove(acme) == len(acme)
    assert "acme" not in index.shards and index.search(x[0], 5, tenant="acme") == []


@pytest.mark.parametrize("threshold", [10**9, 20])
def test_saved_shards_round_trip_and_unchanged_ones_keep_their_files(
    tmp_path: Path, threshold: int
) -> None:
    index, x, ids = _two_tenants(threshold)
    index.save(tmp_path, "v", seq=1, model="m")
    first = {p.name for p in tmp_path.iterdir()}
    loaded = VectorIndex.load(tmp_path, "v", model="m", dim=DIM, hnsw_threshold=threshold)
    assert loaded is not None
    again, seq = loaded
    assert seq == 1 and set(again.ids()) == set(ids)
    assert all(again.tenant_of(c) == index.tenant_of(c) for c in ids)
    assert again.search(x[0], 1, tenant="acme")[0][0] == ids[0]
    assert ids[0] not in {c for c, _ in again.search(x[0], 200, tenant="default")}
    # only acme changes: default's files are kept as they are, acme's are rewritten
    again.remove([ids[0]])
    again.save(tmp_path, "v", seq=2, model="m")
    second = {p.name for p in tmp_path.iterdir()}
    kept = first & second
    assert kept - {"v.json"} and all(".1." in f for f in kept - {"v.json"})
    assert any(".2." in f for f in second) and not any(".1." in f for f in second - kept)
    third = VectorIndex.load(tmp_path, "v", model="m", dim=DIM, hnsw_threshold=threshold)
    assert third is not None and set(third[0].ids()) == set(ids[1:])
    assert len(third[0].search(x[0], 200, tenant="default")) == 80


def test_files_of_the_unsharded_format_are_rebuilt_not_trusted(tmp_path: Path) -> None:
    index, _, _ = _two_tenants()
    index.save(tmp_path, "v", seq=1, model="m")
    pointer = tmp_path / "v.json"
    pointer.write_text(pointer.read_text().replace('"format": 2', '"format": 1'))
    assert VectorIndex.load(tmp_path, "v", model="m", dim=DIM) is None


def test_a_save_leaves_another_writers_files_alone(tmp_path: Path) -> None:
    # Two processes saving one knowledge base's vectors at once (two ingests): the first
    # to finish deleted the other's temporary and newer files, and the second failed to
    # move its pointer into place (FileNotFoundError, an ingest ending "internal error").
    index = VectorIndex(3)
    index.add([1, 2], np.eye(3, dtype=np.float32)[:2])
    theirs_tmp = tmp_path / "v.json.99999.cafe.tmp"
    theirs_tmp.write_text("half written")
    theirs_newer = tmp_path / "v.9.default.ids.npy"
    theirs_newer.write_bytes(b"\x93NUMPY")
    index.save(tmp_path, "v", seq=5, model="m")
    assert theirs_tmp.exists() and theirs_newer.exists()
    index.add([3], np.eye(3, dtype=np.float32)[2:])
    index.save(tmp_path, "v", seq=6, model="m")  # its own older generation still goes
    assert not list(tmp_path.glob("v.5.*"))
    loaded = VectorIndex.load(tmp_path, "v", model="m", dim=3)
    assert loaded is not None and loaded[1] == 6
