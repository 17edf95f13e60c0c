"""PostgresStore: the store contract on PostgreSQL, replicas sharing one database,
migrations under an advisory lock, LISTEN/NOTIFY wake-ups, pgvector, and ``open_store``.

The contract tests of tests/test_store.py are reused as they are, with the ``store``
fixture of tests/_stores.py: each runs on SQLite and on PostgreSQL (a fresh database per
test on one pgserver instance; marked ``slow`` and ``postgres``, skipped without a server).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlalchemy as sa

from _stores import admin, database_url, pg_server, pg_url, store  # noqa: F401  (fixtures)
from citewise.errors import ConfigError, InvalidInput
from citewise.knowledge.index import vectors_postgres_sql as vsql
from citewise.store import open_store
from citewise.store.base import (
    ApiKeyRecord,
    ChunkRecord,
    DocumentRecord,
    EventRecord,
    JSONText,
    decoded,
)
from citewise.store.migrations import MIGRATIONS, applied_migrations, has_column
from citewise.store.postgres import PostgresStore, engine_url
from citewise.store.sqlite import SQLiteStore
from test_store import (  # the shared contract, parametrized over both backends
    T0,
    _run,
    test_a_thread_with_a_running_run_is_not_deleted,  # noqa: F401
    test_delete_thread_takes_its_runs_events_and_feedback,  # noqa: F401
    test_documents_chunks_and_outbox,  # noqa: F401
    test_documents_with_hashes_are_found_by_tenant_collection_and_hash,  # noqa: F401
    test_events_append_and_read,  # noqa: F401
    test_feedback_settings_and_api_keys,  # noqa: F401
    test_other_tenants_records_do_not_exist,  # noqa: F401
    test_pre_encoded_json_is_stored_as_the_json_it_is,  # noqa: F401
    test_runs_round_trip_and_upsert,  # noqa: F401
    test_sources_named_match_the_last_path_part_literally,  # noqa: F401
    test_threads_and_turns_round_trip,  # noqa: F401
    test_transaction_commits_all_or_nothing,  # noqa: F401
    test_transition_run_drops_a_setting_only_when_it_moves,  # noqa: F401
    test_transition_run_is_atomic_across_threads,  # noqa: F401
    test_what_a_filter_reads_of_chunks_and_documents,  # noqa: F401
)


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[PostgresStore, PostgresStore]]:  # noqa: F811
    """Two replicas: two store objects (two pools) on one database."""
    a = PostgresStore(pg_url)
    b = PostgresStore(pg_url)
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _start_and_join(workers: list[threading.Thread]) -> None:
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def _doc(doc_id: str, tenant: str = "t1", collection: str = "c1") -> DocumentRecord:
    return DocumentRecord(doc_id, tenant, collection, f"/{doc_id}.txt", doc_id, "text/plain",
                          f"h-{doc_id}", "Alpha one. Beta two.")


# -- open_store (no server needed for the SQLite half) -----------------------------------


def test_open_store_picks_the_backend_from_the_target(tmp_path: Path) -> None:
    for target in (tmp_path / "a.db", str(tmp_path / "b.db"), f"sqlite:///{tmp_path / 'c.db'}"):
        s = open_store(target)
        try:
            assert isinstance(s, SQLiteStore)
        finally:
            s.close()
    assert (tmp_path / "c.db").exists()
    for bad in ("sqlite://", "sqlite:///:memory:", "mysql://u@h/db"):
        with pytest.raises(ConfigError) as err:
            open_store(bad)
        assert err.value.code == "invalid_store_url"
    assert engine_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    with pytest.raises(ConfigError) as err:
        engine_url("postgresql+asyncpg://u@h/db")
    assert err.value.code == "invalid_store_url"


@pytest.mark.slow
@pytest.mark.postgres
def test_open_store_postgres_url(pg_url: str) -> None:  # noqa: F811
    s = open_store(pg_url)
    try:
        assert isinstance(s, PostgresStore)
        assert s.url.drivername == "postgresql+psycopg"
    finally:
        s.close()


# -- migrations --------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.postgres
def test_fresh_database_is_migrated_with_jsonb(pg_url: str) -> None:  # noqa: F811
    s = PostgresStore(pg_url)
    assert s.applied_migrations == [m.__name__ for m in MIGRATIONS]
    with s.engine.connect() as c:
        tables = set(sa.inspect(c).get_table_names())
        assert {"documents", "chunks", "threads", "turns", "runs", "events", "feedback",
                "settings", "index_outbox", "api_keys", "_migrations"} <= tables
        types = {col["name"]: col["type"] for col in sa.inspect(c).get_columns("runs")}
        assert str(types["state"]) == "JSONB" and str(types["answer"]) == "JSONB"
        assert getattr(types["created_at"], "timezone", None) is True  # timestamptz
    s.close()
    again = PostgresStore(pg_url)
    assert again.applied_migrations == []
    again.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_replicas_starting_together_migrate_once(pg_url: str) -> None:  # noqa: F811
    calls: list[str] = []

    def m999_add_note(conn: sa.Connection) -> None:
        calls.append("m999")
        time.sleep(0.2)  # widen the window in which the others would race
        if not has_column(conn, "threads", "note"):
            conn.exec_driver_sql("ALTER TABLE threads ADD COLUMN note TEXT")

    barrier = threading.Barrier(6)
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def start() -> None:
        barrier.wait()
        try:
            opened.append(PostgresStore(pg_url, migrations=[*MIGRATIONS, m999_add_note]))
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=start) for _ in range(6)]
    _start_and_join(workers)
    try:
        assert errors == []
        applied = sorted((s.applied_migrations for s in opened), key=len)
        assert applied[-1] == [*(m.__name__ for m in MIGRATIONS), "m999_add_note"]
        assert all(a == [] for a in applied[:-1])
        assert calls == ["m999"]
    finally:
        for s in opened:
            s.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_failing_migration_leaves_nothing_half_applied(pg_url: str) -> None:  # noqa: F811
    def m999_broken(conn: sa.Connection) -> None:
        conn.exec_driver_sql("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        PostgresStore(pg_url, migrations=[*MIGRATIONS, m999_broken])
    engine = sa.create_engine(engine_url(pg_url))
    with engine.connect() as conn:
        assert not sa.inspect(conn).has_table("half_done")
        assert not sa.inspect(conn).has_table("runs")  # m001 rolled back with it
        assert applied_migrations(conn) == []
    engine.dispose()
    PostgresStore(pg_url).close()  # and the list applies cleanly afterwards


# -- two replicas on one database --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.postgres
def test_a_run_paused_on_one_replica_resumes_exactly_once(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    a.save_run(_run(status="paused"))
    barrier = threading.Barrier(8)
    wins: list[tuple[str, bool]] = []

    def resume(name: str, s: PostgresStore) -> None:
        barrier.wait()
        wins.append((name, s.transition_run("t1", "r1", ["paused"], "running")))

    workers = [threading.Thread(target=resume, args=(n, s))
               for n, s in [("a", a), ("b", b)] * 4]
    _start_and_join(workers)
    assert [won for _, won in wins].count(True) == 1
    assert b.get_run("t1", "r1").status == "running"  # type: ignore[union-attr]
    assert a.transition_run("t1", "r1", ["running"], "completed") is True
    assert b.transition_run("t1", "r1", ["running"], "failed") is False
    assert b.get_run("t1", "r1").status == "completed"  # type: ignore[union-attr]


@pytest.mark.slow
@pytest.mark.postgres
def test_a_thread_is_not_deleted_under_a_run_starting_on_another_replica(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    # Replica a starts a run on an existing thread (thread + run record in one transaction,
    # as a run's start writes them) while replica b deletes the thread. b's snapshot cannot
    # see a's uncommitted run: without the thread's row lock it deleted the thread and a's
    # run was left on a thread that no longer existed.
    from dataclasses import replace
    from datetime import UTC, datetime

    from citewise.errors import UsageError

    a, b = two
    a.create_thread("t1", "th1")
    started, deleting = threading.Event(), threading.Event()
    outcome: list[object] = []

    def start() -> None:
        with a.transaction():
            a.create_thread("t1", "th1")
            a.save_run(replace(_run("r1"), updated_at=datetime.now(UTC)))
            started.set()
            deleting.wait(5)
            time.sleep(0.3)  # b is waiting on the thread's row by now

    def delete() -> None:
        started.wait(5)
        deleting.set()
        t = time.monotonic()
        try:
            outcome.append(b.delete_thread("t1", "th1"))
        except UsageError as err:
            outcome.append(err.code)
        outcome.append(time.monotonic() - t)

    workers = [threading.Thread(target=start), threading.Thread(target=delete)]
    _start_and_join(workers)
    assert outcome[0] == "thread_busy"
    assert isinstance(outcome[1], float) and outcome[1] >= 0.25  # it waited for a's commit
    assert b.get_thread("t1", "th1") is not None
    assert b.get_run("t1", "r1") is not None


@pytest.mark.slow
@pytest.mark.postgres
def test_events_and_api_keys_are_shared_between_replicas(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    sent = [EventRecord("r1", i, "answer_delta", {"text": f"δ{i} 😀", "i": i}) for i in range(1, 51)]
    for i in range(0, 50, 7):  # in several appends, one retried on the other replica
        a.append_events("t1", sent[i : i + 7])
    b.append_events("t1", sent[:3])  # a retry through another replica: a no-op
    assert b.read_events("t1", "r1") == sent
    assert [e.seq for e in b.read_events("t1", "r1", after=45)] == [46, 47, 48, 49, 50]
    assert b.read_events("t2", "r1") == []

    a.create_api_key(ApiKeyRecord("k1", "t1", "ci", "hash-1", T0))
    got = b.get_api_key_by_hash("hash-1")
    assert got is not None and got.tenant == "t1" and got.revoked_at is None
    with pytest.raises(InvalidInput) as err:
        b.create_api_key(ApiKeyRecord("k2", "t1", "dup", "hash-1", T0))
    assert err.value.code == "api_key_exists"
    assert b.revoke_api_key("t1", "k1") is True
    assert a.revoke_api_key("t1", "k1") is False
    assert a.get_api_key_by_hash("hash-1").revoked_at is not None  # type: ignore[union-attr]
    assert [k.id for k in a.list_all_api_keys()] == ["k1"]


@pytest.mark.slow
@pytest.mark.postgres
def test_concurrent_appends_of_one_seq_keep_one_row(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def append(s: PostgresStore, n: int) -> None:
        barrier.wait()
        try:
            s.append_events("t1", [EventRecord("r1", 1, "run_started", {"by": n})])
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=append, args=(s, n)) for n, s in enumerate([a, b] * 3)]
    _start_and_join(workers)
    assert errors == []
    assert len(b.read_events("t1", "r1")) == 1


@pytest.mark.slow
@pytest.mark.postgres
def test_wait_for_events_wakes_on_notify_without_polling(
    two: tuple[PostgresStore, PostgresStore], monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = two
    b.append_events("t1", [EventRecord("r1", 1, "run_started", {})])
    reads: list[int] = []
    real_read = b.read_events

    def counting_read(*args: object, **kwargs: object) -> list[EventRecord]:
        reads.append(1)
        return real_read(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(b, "read_events", counting_read)
    # Already there: returned at once.
    assert [e.seq for e in b.wait_for_events("t1", "r1", after=0, timeout=5)] == [1]

    def owner() -> None:
        time.sleep(0.6)
        a.append_events("t1", [EventRecord("r2", 1, "other_run", {})])  # not ours
        a.append_events("t1", [EventRecord("r1", 2, "answer_delta", {"text": "hi"}),
                               EventRecord("r1", 3, "answer_delta", {"text": "!"})])

    reads.clear()
    t = threading.Thread(target=owner)
    started = time.monotonic()
    t.start()
    got = b.wait_for_events("t1", "r1", after=1, timeout=20)
    took = time.monotonic() - started
    t.join()
    assert [e.seq for e in got] == [2, 3]
    assert 0.5 < took < 5.0
    assert len(reads) == 2  # one read before waiting, one after the NOTIFY: no polling

    started = time.monotonic()
    assert b.wait_for_events("t1", "r1", after=3, timeout=0.4) == []
    assert 0.35 < time.monotonic() - started < 3.0
    assert b.wait_for_events("t2", "r1", after=0, timeout=0.1) == []  # another tenant


@pytest.mark.slow
@pytest.mark.postgres
def test_notify_comes_from_the_table_not_the_method(pg_url: str) -> None:  # noqa: F811
    """Writers that insert event rows themselves (not through append_events) wake waiters too."""
    from citewise.store.schema import events, utcnow

    a = PostgresStore(pg_url)
    b = PostgresStore(pg_url)
    try:
        def raw_insert() -> None:
            time.sleep(0.4)
            with a._write() as c:
                c.execute(sa.insert(events).values(
                    run_id="r9", seq=1, tenant="t1", kind="run_started", data={}, created_at=utcnow()))

        t = threading.Thread(target=raw_insert)
        t.start()
        got = b.wait_for_events("t1", "r9", timeout=10)
        t.join()
        assert [e.kind for e in got] == ["run_started"]
    finally:
        a.close()
        b.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_nul_characters_are_a_typed_error(pg_url: str) -> None:  # noqa: F811
    with PostgresStore(pg_url) as s:
        # Text a caller sends (a document) is refused with a stable code, nothing written.
        doc = DocumentRecord("d1", "t1", "c", "/x", None, "text/plain", "h", "nul\x00here")
        with pytest.raises(InvalidInput) as err:
            s.replace_documents([(doc, [])])
        assert err.value.code == "unsupported_character"
        assert s.get_document("t1", "d1") is None
        # So is a look-up by an id no row can have (an id from a URL).
        with pytest.raises(InvalidInput) as err:
            s.get_run("t1", "run\x00x")
        assert err.value.code == "unsupported_character"


@pytest.mark.slow
@pytest.mark.postgres
def test_nul_in_a_runs_log_becomes_the_replacement_character(pg_url: str) -> None:  # noqa: F811
    # What a model or a tool produced must not lose the run's log: JSONB cannot hold
    # U+0000, so it is stored as U+FFFD (questions and decisions with it are refused
    # before a run starts or resumes).
    with PostgresStore(pg_url) as s:
        s.append_events("t1", [EventRecord("r1", 1, "answer_delta", {"text": "a\x00b"})])
        # The same as the run recorder sends it: pydantic's JSON text.
        s.append_events("t1", [EventRecord("r1", 2, "answer_delta",
                                           JSONText('{"text": "c\\u0000d \\\\u0000"}'))])
        texts = [decoded(e.data)["text"] for e in s.read_events("t1", "r1")]
        assert texts == ["a\ufffdb", "c\ufffdd \\u0000"]


# -- pgvector ----------------------------------------------------------------------------


class _Vectors:
    """The pgvector SQL on one store, called as the knowledge base's
    :class:`~citewise.knowledge.index.vectors_postgres.PostgresVectors` calls it."""

    def __init__(self, s: PostgresStore, dim: int) -> None:
        self.store = s
        self.table = s.ensure_schema(lambda conn: vsql.ensure(conn, dim))

    def put(self, tenant: str, ids: list[int], vectors: Any) -> int:
        with self.store.writing() as c:
            return vsql.put(c, self.table, tenant, ids, vectors)

    def delete(self, tenant: str, ids: list[int]) -> int:
        with self.store.writing() as c:
            return vsql.delete(c, self.table, tenant, ids)

    def search(self, tenant: str, q: Any, k: int, collections: list[str] | None = None) -> Any:
        with self.store.reading() as c:
            return vsql.search(c, self.table, tenant, q, k, collections=collections)

    def ids_of_documents(self, tenant: str, ids: list[str]) -> dict[str, set[int]]:
        with self.store.reading() as c:
            return vsql.ids_of_documents(c, self.table, tenant, ids)

    def count(self, tenant: str | None = None) -> int:
        q = sa.select(sa.func.count()).select_from(self.table)
        if tenant is not None:
            q = q.where(self.table.c.tenant == tenant)
        with self.store.reading() as c:
            return int(c.execute(q).scalar_one())


@pytest.mark.slow
@pytest.mark.postgres
def test_a_store_alone_leaves_pgvector_alone(pg_url: str) -> None:  # noqa: F811
    # Records only: the search objects are the knowledge base's, made when it opens.
    with PostgresStore(pg_url) as s, s.reading() as c:
        assert c.execute(sa.text("SELECT to_regclass('chunk_embeddings')")).scalar() is None
        assert c.execute(sa.text(
            "SELECT count(*) FROM pg_extension WHERE extname = 'vector'")).scalar() == 0


@pytest.mark.slow
@pytest.mark.postgres
def test_vectors_follow_their_chunks_and_tenants(pg_url: str) -> None:  # noqa: F811
    with PostgresStore(pg_url) as s:
        v = _Vectors(s, 3)
        s.replace_documents([
            (_doc("d1"), [ChunkRecord(1, "d1", 0, 0, 10, "Alpha one."),
                          ChunkRecord(2, "d1", 1, 11, 20, "Beta two.")]),
            (_doc("d2", collection="c2"), [ChunkRecord(3, "d2", 0, 0, 10, "Alpha one.")]),
            (_doc("d9", tenant="t2"), [ChunkRecord(9, "d9", 0, 0, 10, "Alpha one.")]),
        ])
        vecs = [[1, 0, 0], [0, 1, 0], [0.6, 0.8, 0], [1, 0, 0]]
        # Chunk 9 is t2's and 77 does not exist: neither gets a t1 vector.
        assert v.put("t1", [1, 2, 3, 9, 77], [*vecs, [0, 0, 1]]) == 3
        assert v.put("t2", [9], [[1, 0, 0]]) == 1
        assert v.count("t1") == 3 and v.count() == 4
        hits = v.search("t1", [1, 0, 0], 10)
        assert [cid for cid, _ in hits] == [1, 3, 2]
        assert hits[0][1] == pytest.approx(1.0) and hits[1][1] == pytest.approx(0.6)
        assert v.search("t1", [1, 0, 0], 10, collections=["c2"])[0][0] == 3
        assert [cid for cid, _ in v.search("t2", [0, 1, 0], 10)] == [9]
        assert v.ids_of_documents("t1", ["d1", "d2", "d9"]) == {"d1": {1, 2}, "d2": {3}}
        # Re-put replaces; bad shapes and non-finite values are typed errors.
        assert v.put("t1", [2], [[0, 0, 1]]) == 1
        assert v.search("t1", [0, 0, 1], 1)[0][0] == 2
        for bad, code in (([[1, 0]], "vector_shape_mismatch"),
                          ([[float("nan"), 0, 0]], "vector_not_finite")):
            with pytest.raises(InvalidInput) as err:
                v.put("t1", [1], bad)
            assert err.value.code == code
        # Chunks replaced or deleted take their vectors with them (same transaction).
        s.replace_documents([(_doc("d1"), [ChunkRecord(2, "d1", 0, 0, 9, "Beta two.")])])
        assert v.ids_of_documents("t1", ["d1"]) == {}
        assert s.delete_document("t1", "d2") is True
        assert v.count("t1") == 0 and v.count("t2") == 1
        assert v.delete("t2", [9]) == 1


@pytest.mark.slow
@pytest.mark.postgres
def test_hnsw_index_is_used_and_finds_the_neighbours(pg_url: str) -> None:  # noqa: F811
    rng = np.random.default_rng(7)
    n, dim = 1500, 16
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    with PostgresStore(pg_url) as s:
        v = _Vectors(s, dim)
        docs = [(_doc(f"d{i}"), [ChunkRecord(10_000 + j, f"d{i}", j - i * 100, 0, 1, "x")
                                 for j in range(i * 100, (i + 1) * 100)]) for i in range(n // 100)]
        s.replace_documents(docs)
        ids = [10_000 + j for j in range(n)]
        assert v.put("t1", ids, vecs) == n
        with s.engine.connect() as c:
            c.exec_driver_sql("ANALYZE chunk_embeddings")
            c.exec_driver_sql("SET enable_seqscan = off")
            plan = "\n".join(r[0] for r in c.exec_driver_sql(
                "EXPLAIN SELECT chunk_id FROM chunk_embeddings"
                " ORDER BY embedding <=> (SELECT embedding FROM chunk_embeddings LIMIT 1) LIMIT 10"))
            c.rollback()
        assert "ix_chunk_embeddings_hnsw" in plan
        queries = rng.normal(size=(20, dim)).astype(np.float32)
        recall = []
        for q in queries:
            exact = set(np.argsort(-(vecs @ (q / np.linalg.norm(q))))[:10].tolist())
            got = {cid - 10_000 for cid, _ in v.search("t1", q, 10)}
            recall.append(len(exact & got) / 10)
        assert float(np.mean(recall)) >= 0.9


@pytest.mark.slow
@pytest.mark.postgres
def test_vector_width_is_fixed_per_database(pg_url: str) -> None:  # noqa: F811
    with PostgresStore(pg_url) as s:
        _Vectors(s, 4)
        with pytest.raises(ConfigError) as err:
            _Vectors(s, 8)
        assert err.value.code == "vector_dim_mismatch"
        _Vectors(s, 4)


@pytest.mark.slow
@pytest.mark.postgres
def test_close_wakes_a_waiter(pg_url: str) -> None:  # noqa: F811
    s = PostgresStore(pg_url)
    got: list[object] = []
    t = threading.Thread(target=lambda: got.append(s.wait_for_events("t1", "r1", timeout=30)))
    t.start()
    time.sleep(0.5)
    started = time.monotonic()
    s.close()
    t.join(timeout=10)
    assert not t.is_alive() and got == [[]]
    assert time.monotonic() - started < 5


@pytest.mark.slow
@pytest.mark.postgres
def test_killed_connections_are_replaced(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    """Pooled and listening connections cut by the server (a restart, an idle timeout, an
    operator) cost no failed call: the pool pings on checkout, the listener reconnects
    and makes its waiters re-read."""
    a, b = two
    a.save_run(_run())
    assert b.get_run("t1", "r1") is not None  # b's pool now holds a connection
    b.wait_for_events("t1", "r1", timeout=0.01)  # and its listener is up

    def kill_others() -> int:
        with a.engine.connect() as c:
            n = c.exec_driver_sql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).scalar_one()
            c.commit()
        return int(n)

    assert kill_others() >= 2
    assert b.get_run("t1", "r1") is not None
    assert b.transition_run("t1", "r1", ["running"], "paused") is True

    def append_later() -> None:
        time.sleep(0.3)
        kill_others()  # the listener again, while b waits
        time.sleep(0.8)
        a.append_events("t1", [EventRecord("r1", 1, "run_started", {})])

    t = threading.Thread(target=append_later)
    started = time.monotonic()
    t.start()
    got = b.wait_for_events("t1", "r1", timeout=20)
    t.join()
    assert [e.seq for e in got] == [1]
    assert time.monotonic() - started < 6  # woken, not timed out


@pytest.mark.slow
@pytest.mark.postgres
def test_a_user_without_the_rights_gets_a_typed_error(pg_server: str,  # noqa: F811
                                                      pg_url: str) -> None:  # noqa: F811
    import uuid

    role = f"cw_user_{uuid.uuid4().hex[:8]}"
    admin(pg_server, f'CREATE ROLE "{role}" LOGIN')
    try:
        PostgresStore(pg_url).close()  # the tables exist, owned by the superuser
        as_user = sa.make_url(pg_url).set(username=role).render_as_string(hide_password=False)
        with pytest.raises(ConfigError) as err:
            PostgresStore(as_user)
        assert err.value.code == "database_permission_denied"
        assert "\n" not in err.value.message and "permission denied" in err.value.message
        # A database of its own: the tables are fine, pgvector needs a superuser once.
        own = f"cw_own_{uuid.uuid4().hex[:8]}"
        admin(pg_server, f'CREATE DATABASE "{own}" OWNER "{role}"')
        try:
            url = database_url(pg_server, own)
            url = sa.make_url(url).set(username=role).render_as_string(hide_password=False)
            with PostgresStore(url) as own_store, pytest.raises(ConfigError) as err:
                _Vectors(own_store, 4)
            assert err.value.code == "pgvector_unavailable"
            assert "CREATE EXTENSION vector" in err.value.message
            assert "\n" not in err.value.message
        finally:
            admin(pg_server, f'DROP DATABASE "{own}" WITH (FORCE)')
    finally:
        admin(pg_server, f'DROP OWNED BY "{role}" CASCADE')
        admin(pg_server, f'DROP ROLE "{role}"')
