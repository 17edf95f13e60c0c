"""SQLiteStore: migrations, round-trips, atomic run transitions, tenant scoping, one writer."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from citewise.errors import InvalidInput, NotFound
from citewise.store.base import (
    ApiKeyRecord,
    ChunkRecord,
    DocumentRecord,
    EventRecord,
    FeedbackRecord,
    JSONText,
    RunRecord,
    TurnRecord,
    decoded,
)
from citewise.store.migrations import MIGRATIONS, applied_migrations, has_column, migrate
from citewise.store.sqlite import SQLiteStore

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "c.db")
    yield s
    s.close()


def _run(run_id: str = "r1", tenant: str = "t1", status: str = "running") -> RunRecord:
    return RunRecord(
        id=run_id,
        tenant=tenant,
        thread_id="th1",
        question="What is the refund policy?",
        status=status,  # type: ignore[arg-type]
        state={"step": 2, "messages": [{"role": "user", "content": "é 😀"}]},
        answer=None,
        created_at=T0,
        updated_at=T0,
    )


# -- migrations ------------------------------------------------------------------------


def test_fresh_database_is_migrated_in_wal_mode(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "c.db")
    assert s.applied_migrations == [m.__name__ for m in MIGRATIONS]
    s.close()
    con = sqlite3.connect(tmp_path / "c.db")
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"documents", "chunks", "threads", "turns", "runs", "events", "feedback",
                "settings", "index_outbox", "api_keys", "_migrations"} <= tables
    finally:
        con.close()


def test_m003_adds_the_lease_index_to_an_older_database(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "old.db")
    s.close()
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:  # as a database from before m003 looks
        conn.exec_driver_sql("DROP INDEX ix_runs_status_updated")
        conn.exec_driver_sql("DELETE FROM _migrations WHERE name = 'm003_runs_lease_index'")
    with engine.connect() as conn:
        assert "ix_runs_status_updated" not in {i["name"] for i in sa.inspect(conn).get_indexes("runs")}
    s = SQLiteStore(tmp_path / "old.db")
    assert s.applied_migrations == ["m003_runs_lease_index"]
    s.close()
    with engine.connect() as conn:
        assert "ix_runs_status_updated" in {i["name"] for i in sa.inspect(conn).get_indexes("runs")}
        plan = conn.exec_driver_sql(
            "EXPLAIN QUERY PLAN SELECT id FROM runs WHERE status = 'running' "
            "AND updated_at < '2026-01-01' ORDER BY updated_at LIMIT 100").fetchall()
    assert "ix_runs_status_updated" in str(plan)
    engine.dispose()


def test_migrations_are_idempotent(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "c.db").close()
    again = SQLiteStore(tmp_path / "c.db")
    assert again.applied_migrations == []
    again.close()


def test_new_migration_applies_once_and_in_order(tmp_path: Path) -> None:
    calls: list[str] = []

    def m002_add_note(conn: sa.Connection) -> None:
        calls.append("m002")
        if not has_column(conn, "threads", "note"):
            conn.exec_driver_sql("ALTER TABLE threads ADD COLUMN note TEXT")

    SQLiteStore(tmp_path / "c.db").close()  # a database at m001
    s = SQLiteStore(tmp_path / "c.db", migrations=[*MIGRATIONS, m002_add_note])
    assert s.applied_migrations == ["m002_add_note"]
    s.close()
    s = SQLiteStore(tmp_path / "c.db", migrations=[*MIGRATIONS, m002_add_note])
    assert s.applied_migrations == []
    s.close()
    assert calls == ["m002"]
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'c.db'}")
    with engine.connect() as conn:
        assert has_column(conn, "threads", "note")
        assert applied_migrations(conn) == sorted([m.__name__ for m in MIGRATIONS] + ["m002_add_note"])
    engine.dispose()


def test_failing_migration_leaves_nothing_half_applied(tmp_path: Path) -> None:
    def m002_broken(conn: sa.Connection) -> None:
        conn.exec_driver_sql("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        SQLiteStore(tmp_path / "c.db", migrations=[*MIGRATIONS, m002_broken])
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'c.db'}")
    with engine.begin() as conn:
        # The whole first open rolled back, m001 included: DDL is transactional here.
        assert not sa.inspect(conn).has_table("half_done")
        assert applied_migrations(conn) == []
        # Running the list again from scratch works.
        assert migrate(conn) == [m.__name__ for m in MIGRATIONS]
    engine.dispose()


# -- threads, turns, runs, events, feedback, settings ------------------------------------


def test_threads_and_turns_round_trip(store: SQLiteStore) -> None:
    t = store.create_thread("t1", "th1", "Refunds")
    assert (t.id, t.tenant, t.title) == ("th1", "t1", "Refunds")
    assert t.created_at.tzinfo is not None
    assert store.create_thread("t1", "th1", "other title").title == "Refunds"  # idempotent
    store.add_turn("t1", TurnRecord("th1", "r1", "first?", "one [1]", T0))
    store.add_turn("t1", TurnRecord("th1", "r2", "second?", "two", T0 + timedelta(seconds=1)))
    turns = store.list_turns("t1", "th1")
    assert [(x.run_id, x.question, x.answer) for x in turns] == [
        ("r1", "first?", "one [1]"),
        ("r2", "second?", "two"),
    ]
    assert turns[0].created_at == T0
    assert store.get_thread("t1", "th1").updated_at == T0 + timedelta(seconds=1)  # type: ignore[union-attr]
    with pytest.raises(NotFound) as err:
        store.add_turn("t1", TurnRecord("nope", "r3", "q", "a", T0))
    assert err.value.code == "thread_not_found"


def test_runs_round_trip_and_upsert(store: SQLiteStore) -> None:
    run = _run()
    store.save_run(run)
    got = store.get_run("t1", "r1")
    assert got == run
    run.status = "completed"
    run.answer = {"text": "Refunds take 14 days [1].", "citations": [{"citation_index": 1}]}
    run.updated_at = T0 + timedelta(minutes=1)
    store.save_run(run)
    again = store.get_run("t1", "r1")
    assert again is not None
    assert again.status == "completed"
    assert again.answer == run.answer
    assert again.created_at == T0
    store.save_run(_run("r2"))
    assert {r.id for r in store.list_runs("t1", thread_id="th1")} == {"r1", "r2"}
    with pytest.raises(InvalidInput):
        store.save_run(_run("r3", status="exploded"))


def test_transition_run_is_atomic_across_threads(store: SQLiteStore) -> None:
    store.save_run(_run(status="paused"))
    barrier = threading.Barrier(8)
    wins: list[bool] = []

    def resume() -> None:
        barrier.wait()
        wins.append(store.transition_run("t1", "r1", ["paused"], "running"))

    threads = [threading.Thread(target=resume) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert wins.count(True) == 1
    assert store.get_run("t1", "r1").status == "running"  # type: ignore[union-attr]
    assert store.transition_run("t1", "r1", ["paused"], "running") is False


def test_transition_run_drops_a_setting_only_when_it_moves(store: SQLiteStore) -> None:
    store.save_run(_run(status="paused"))
    store.set_setting("cancel_request/t1/r1", "asked")
    store.set_setting("other", "kept")
    assert store.transition_run("t1", "r1", ["running"], "completed",
                                drop_setting="cancel_request/t1/r1") is False
    assert store.get_setting("cancel_request/t1/r1") == "asked"  # no move: still asked
    assert store.transition_run("t1", "r1", ["paused"], "running",
                                drop_setting="cancel_request/t1/r1") is True
    assert store.get_setting("cancel_request/t1/r1") is None
    assert store.get_setting("other") == "kept"
    # Nothing to drop is fine too.
    assert store.transition_run("t1", "r1", ["running"], "paused",
                                drop_setting="cancel_request/t1/r1") is True


def test_transition_run_is_atomic_across_processes(tmp_path: Path) -> None:
    """Two store objects (as two processes would have) on one file: one wins."""
    a = SQLiteStore(tmp_path / "c.db")
    b = SQLiteStore(tmp_path / "c.db")
    try:
        a.save_run(_run(status="paused"))
        assert a.transition_run("t1", "r1", ["paused"], "running") is True
        assert b.transition_run("t1", "r1", ["paused"], "running") is False
        assert b.transition_run("t1", "r1", ["running"], "completed") is True
        assert a.get_run("t1", "r1").status == "completed"  # type: ignore[union-attr]
    finally:
        a.close()
        b.close()


def test_events_append_and_read(store: SQLiteStore) -> None:
    events = [EventRecord("r1", i, "answer_delta", {"text": f"δ{i}", "seq": i}) for i in (1, 2, 3)]
    store.append_events("t1", events)
    store.append_events("t1", events[:1])  # a retried append is a no-op
    assert store.read_events("t1", "r1") == events
    assert [e.seq for e in store.read_events("t1", "r1", after=1)] == [2, 3]
    assert [e.seq for e in store.read_events("t1", "r1", after=1, limit=1)] == [2]


class _GenericSQLiteStore(SQLiteStore):
    """SQLite through the portable path: every run write executed by SQLAlchemy."""

    def _run_write(self, c: sa.Connection, name: str, params: dict[str, object]) -> int:
        from citewise.store._sql_runs import RunsMixin

        return RunsMixin._run_write(self, c, name, params)

    def _run_write_many(self, c: sa.Connection, name: str,
                        rows: list[dict[str, object]]) -> None:
        from citewise.store._sql_runs import RunsMixin

        RunsMixin._run_write_many(self, c, name, rows)


_STAMPED = {"threads": ("created_at", "updated_at"), "events": ("created_at",)}


def _rows(path: Path, table: str) -> list[tuple[object, ...]]:
    """Every column's stored text (and SQLite type); the times a store stamps itself are
    given by their form only."""
    with sqlite3.connect(path) as db:
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
        sel = ", ".join(f"typeof({c}), length({c})" if c in _STAMPED.get(table, ())
                        else f"typeof({c}), {c}" for c in cols)
        return db.execute(f"SELECT {sel} FROM {table} ORDER BY rowid").fetchall()


def test_sqlite_run_writes_store_what_the_generic_path_stores(tmp_path: Path) -> None:
    # SQLiteStore runs the writes every run makes straight on the DBAPI connection; the
    # rows must be the ones SQLAlchemy's statements write (same text in every column,
    # same DATETIME text form), and the answers the same.
    texts = ['{"kind":"thought","text":"δ 😀"}', '{"a":[1,2.5,null]}', '{"q":"\\"quoted\\""}']
    batch = [EventRecord("r1", i + 1, "thought", JSONText(t)) for i, t in enumerate(texts)]
    batch.append(EventRecord("r1", 4, "thought", {"plain": "dict", "n": [1, None]}))
    fast, slow = SQLiteStore(tmp_path / "fast.db"), _GenericSQLiteStore(tmp_path / "slow.db")
    try:
        for s in (fast, slow):
            made = s.create_thread("t1", "th1", title="Refunds é")
            assert s.create_thread("t1", "th1", title="other") == made  # exists: unchanged
            assert s.get_thread("t1", "th1") == made
            s.save_run(_run("r1", "t1"))
            done = _run("r1", "t1", status="completed")
            done.answer = JSONText('{"text": "yes 😀"}')
            done.updated_at = T0 + timedelta(seconds=1.5)
            s.save_run(done)
            s.save_run(_run("r1", "t2"))  # another tenant's id: left alone
            s.add_turn("t1", TurnRecord("th1", "r1", "q é", "a 😀", T0 + timedelta(seconds=2)))
            with pytest.raises(NotFound):
                s.add_turn("t1", TurnRecord("nope", "r1", "q", "a", T0))
            s.append_events("t1", batch)
            s.append_events("t1", batch[:2])  # a retry: a no-op
        for table in ("threads", "runs", "turns", "events"):
            assert _rows(tmp_path / "fast.db", table) == _rows(tmp_path / "slow.db", table)
        assert fast.read_events("t1", "r1") == slow.read_events("t1", "r1")
        assert fast.get_run("t1", "r1") == slow.get_run("t1", "r1")
        assert fast.list_turns("t1", "th1") == slow.list_turns("t1", "th1")
        with fast._read() as c:  # created_at reads back as the aware UTC datetime it was
            stamp = c.execute(sa.text("SELECT created_at FROM events LIMIT 1")).scalar_one()
        assert abs(datetime.now(UTC).replace(tzinfo=None)
                   - datetime.fromisoformat(stamp)) < timedelta(minutes=5)
        # Inside a transaction that fails, nothing of it lands.
        def fails_after_writing() -> None:
            with fast.transaction():
                fast.create_thread("t1", "th2")
                fast.save_run(_run("r2", "t1"))
                fast.append_events("t1", [EventRecord("r2", 1, "thought", JSONText("{}"))])
                raise RuntimeError("rolled back")

        with pytest.raises(RuntimeError):
            fails_after_writing()
        assert fast.read_events("t1", "r2") == []
        assert fast.get_run("t1", "r2") is None and fast.get_thread("t1", "th2") is None
    finally:
        fast.close()
        slow.close()


def test_pre_encoded_json_is_stored_as_the_json_it_is(store: SQLiteStore) -> None:
    # The run recorder hands the store pydantic's own JSON text (JSONText): it must land
    # as that JSON (read back as the dict), not as a JSON string of it.
    text = '{"text": "δ 😀 line\\nnext", "n": [1, 2.5, null], "nested": {"ok": true}}'
    want = {"text": "δ 😀 line\nnext", "n": [1, 2.5, None], "nested": {"ok": True}}
    store.append_events("t1", [EventRecord("r1", 1, "thought", JSONText(text)),
                               EventRecord("r1", 2, "thought", {"plain": "dict"})])
    got = store.read_events("t1", "r1")
    assert [e.data for e in got] == [want, {"plain": "dict"}]
    assert all(type(e.data) is dict for e in got)
    run = _run("r9", "t1")
    run.state = JSONText('{"step": 3, "messages": []}')
    run.answer = JSONText('{"text": "an answer", "citations": []}')
    store.save_run(run)
    back = store.get_run("t1", "r9")
    assert back is not None
    assert back.state == {"step": 3, "messages": []}
    assert back.answer == {"text": "an answer", "citations": []}
    assert decoded(run.state) == back.state and decoded(back.state) is back.state


def test_transaction_commits_all_or_nothing(store: SQLiteStore) -> None:
    with store.transaction():
        store.create_thread("t1", "th1")
        store.save_run(_run("r1", "t1"))
        store.append_events("t1", [EventRecord("r1", 1, "run_started", {"seq": 1})])
        with store.transaction():  # nested: joins the outer one
            store.add_turn("t1", TurnRecord("th1", "r1", "q", "a", T0))
        # Inside the block the writes are not visible to other connections yet.
        assert store.get_run("t1", "r1") is None
    assert store.get_run("t1", "r1") is not None
    assert [t.run_id for t in store.list_turns("t1", "th1")] == ["r1"]
    assert len(store.read_events("t1", "r1")) == 1

    def doomed() -> None:
        with store.transaction():
            store.save_run(_run("r2", "t1"))
            store.append_events("t1", [EventRecord("r2", 1, "run_started", {"seq": 1})])
            store.add_turn("t1", TurnRecord("no-such-thread", "r2", "q", "a", T0))

    with pytest.raises(NotFound):
        doomed()
    assert store.get_run("t1", "r2") is None  # rolled back with the failing call
    assert store.read_events("t1", "r2") == []
    store.save_run(_run("r3", "t1"))  # the store is usable afterwards
    assert store.get_run("t1", "r3") is not None


def test_feedback_settings_and_api_keys(store: SQLiteStore) -> None:
    fid = store.add_feedback(FeedbackRecord(0, "t1", "r1", 1, 1, 0, "good", T0))
    fid2 = store.add_feedback(FeedbackRecord(0, "t1", "r2", -1, None, None, None, T0))
    assert fid2 > fid
    assert [(f.id, f.rating, f.comment) for f in store.list_feedback("t1", run_id="r1")] == [
        (fid, 1, "good")
    ]
    assert len(store.list_feedback("t1")) == 2

    assert store.get_setting("secret") is None
    store.set_setting("secret", "a")
    store.set_setting("secret", "b")
    assert store.get_setting("secret") == "b"

    key = ApiKeyRecord("k1", "t1", "ci", "hash-1", T0)
    store.create_api_key(key)
    with pytest.raises(InvalidInput) as err:
        store.create_api_key(ApiKeyRecord("k2", "t1", "dup", "hash-1", T0))
    assert err.value.code == "api_key_exists"
    assert store.get_api_key_by_hash("hash-1") == key
    assert store.revoke_api_key("t2", "k1") is False  # another tenant's key
    assert store.revoke_api_key("t1", "k1") is True
    assert store.revoke_api_key("t1", "k1") is False
    revoked = store.get_api_key_by_hash("hash-1")
    assert revoked is not None and revoked.revoked_at is not None
    assert [k.id for k in store.list_api_keys("t1")] == ["k1"]
    store.create_api_key(ApiKeyRecord("k9", "t2", "other", "hash-9", T0 + timedelta(hours=1)))
    assert [k.id for k in store.list_api_keys("t1")] == ["k1"]
    assert [k.id for k in store.list_all_api_keys()] == ["k1", "k9"]


def test_a_thread_with_a_running_run_is_not_deleted(store: SQLiteStore) -> None:
    # Another process may be running it: the store itself refuses (a process's own check
    # sees only its own runs). A run whose lease ran out has no process: it does not count.
    from dataclasses import replace

    from citewise.agent.lease import LEASE_S
    from citewise.errors import UsageError

    now = datetime.now(UTC)
    store.create_thread("t1", "th1")
    store.add_turn("t1", TurnRecord("th1", "r0", "q", "a", T0))
    store.save_run(replace(_run("r1"), updated_at=now))
    store.save_run(replace(_run("r2"), status="paused", updated_at=now))
    with pytest.raises(UsageError) as err:
        store.delete_thread("t1", "th1")
    assert err.value.code == "thread_busy"
    assert err.value.details == {"thread_id": "th1", "run_id": "r1"}
    assert store.get_thread("t1", "th1") is not None  # nothing was deleted
    assert [t.run_id for t in store.list_turns("t1", "th1")] == ["r0"]
    assert {r.id for r in store.list_runs("t1", thread_id="th1")} == {"r1", "r2"}
    store.save_run(replace(_run("r1"), updated_at=now - timedelta(seconds=LEASE_S + 1)))
    assert store.delete_thread("t1", "th1") is True  # its process is gone: paused runs go too
    assert store.list_runs("t1", thread_id="th1") == []


def test_delete_thread_takes_its_runs_events_and_feedback(store: SQLiteStore) -> None:
    store.create_thread("t1", "th1")
    store.add_turn("t1", TurnRecord("th1", "r1", "q", "a", T0))
    store.save_run(_run())
    store.append_events("t1", [EventRecord("r1", 1, "run_started", {})])
    store.add_feedback(FeedbackRecord(0, "t1", "r1", 1, None, None, None, T0))
    from citewise.store.base import run_setting_keys

    for key in run_setting_keys("t1", "r1"):  # what a paused, persona-run run keeps
        store.set_setting(key, "{}")
    store.set_setting("run_extras:t1:r2", "{}")  # another thread's run: kept
    assert store.delete_thread("t2", "th1") is False  # another tenant: as if absent
    assert store.get_thread("t1", "th1") is not None
    assert store.delete_thread("t1", "th1") is True
    assert store.get_thread("t1", "th1") is None
    assert store.list_turns("t1", "th1") == []
    assert store.get_run("t1", "r1") is None
    assert store.read_events("t1", "r1") == []
    assert store.list_feedback("t1") == []
    assert all(store.get_setting(k) is None for k in run_setting_keys("t1", "r1"))
    assert store.get_setting("run_extras:t1:r2") == "{}"
    assert store.delete_thread("t1", "th1") is False


# -- tenant scoping ----------------------------------------------------------------------


def test_other_tenants_records_do_not_exist(store: SQLiteStore) -> None:
    store.create_thread("t1", "th1", "mine")
    store.save_run(_run())
    store.append_events("t1", [EventRecord("r1", 1, "run_started", {})])
    store.add_feedback(FeedbackRecord(0, "t1", "r1", 1, None, None, None, T0))
    doc = DocumentRecord("d1", "t1", "default", "/x.txt", "X", "text/plain", "h", "Hello there.")
    store.replace_documents([(doc, [ChunkRecord(7, "d1", 0, 0, 12, "Hello there.")])])

    assert store.get_thread("t2", "th1") is None
    assert store.list_threads("t2") == []
    assert store.list_turns("t2", "th1") == []
    assert store.get_run("t2", "r1") is None
    assert store.list_runs("t2") == []
    assert store.transition_run("t2", "r1", ["running"], "cancelled") is False
    assert store.get_run("t1", "r1").status == "running"  # type: ignore[union-attr]
    assert store.read_events("t2", "r1") == []
    assert store.list_feedback("t2") == []
    assert store.get_document("t2", "d1") is None
    assert store.find_document_by_source("t2", "/x.txt") is None
    assert store.list_documents("t2") == []
    assert store.get_chunk_contexts("t2", [7]) == []
    assert store.get_document_chunks("t2", "d1") == []
    assert store.delete_document("t2", "d1") is False
    assert store.count_chunks("t2") == 0
    # A thread id is per tenant: t2 may have its own "th1".
    assert store.create_thread("t2", "th1", "theirs").title == "theirs"
    assert store.get_thread("t1", "th1").title == "mine"  # type: ignore[union-attr]
    # save_run of an id owned by another tenant changes nothing.
    store.save_run(_run(tenant="t2", status="failed"))
    assert store.get_run("t1", "r1").status == "running"  # type: ignore[union-attr]
    assert store.get_run("t2", "r1") is None


# -- documents, chunks and the outbox ----------------------------------------------------


def test_documents_chunks_and_outbox(store: SQLiteStore) -> None:
    text = "Alpha one. Beta two."
    doc = DocumentRecord("d1", "t1", "c1", "/a.txt", "A", "text/plain", "h1", text,
                         metadata={"path": "/a.txt"})
    chunks = [ChunkRecord(11, "d1", 0, 0, 10, "Alpha one.", line=1),
              ChunkRecord(12, "d1", 1, 11, 20, "Beta two.", section="S", page=2, line=1,
                          roles=((0, 4, "term"), (0, 9, "list_item")))]
    store.replace_documents([(doc, chunks)])
    got = store.get_document("t1", "d1")
    assert got is not None and got.text == text and got.metadata == {"path": "/a.txt"}
    assert store.get_chunks([12, 11, 99]) == [chunks[1], chunks[0]]
    ctx = store.get_chunk_contexts("t1", [12])
    assert ctx[0].chunk == chunks[1] and ctx[0].text_length == len(text)
    assert ctx[0].collection == "c1" and ctx[0].source == "/a.txt"
    assert store.get_document_versions("t1", ["d1", "zz"]) == {
        "d1": ("h1", "c1", {"path": "/a.txt"})
    }
    ops = store.pending_index_ops()
    assert [(o.document_id, o.op) for o in ops] == [("d1", "upsert")]
    assert [r.chunk_id for r in store.index_rows(["d1"])] == [11, 12]
    assert store.get_document_chunks("t1", "d1") == chunks  # roles too, in order

    # Replacing swaps the chunks; deleting leaves no chunk behind.
    store.replace_documents([(doc, chunks[:1])])
    assert store.list_chunk_ids() == {11}
    assert store.delete_document("t1", "d1") is True
    assert store.count_chunks() == 0 and store.get_document("t1", "d1") is None
    ops = store.pending_index_ops()
    assert [o.op for o in ops] == ["upsert", "upsert", "delete"]
    assert store.pending_index_ops(document_ids=["d1", "zz"]) == ops
    assert store.pending_index_ops(document_ids=["zz"]) == []
    assert store.pending_index_ops(2, document_ids=["d1"]) == ops[:2]
    store.complete_index_ops([o.id for o in ops])
    assert store.pending_index_ops() == []
    assert store.queue_full_reindex() == 0


def test_what_a_filter_reads_of_chunks_and_documents(store: SQLiteStore) -> None:
    """A filtered search asks which document each candidate chunk is of, and judges each
    document from its filtered fields: only the metadata keys asked for come back, values
    as stored (lists, strings, nested), a key a document lacks is absent, and other
    tenants' and unknown ids are not there."""
    meta = {"tags": ["a", "b"], "date": "2024-05-01", "anchors": {"x": 1},
            "weird key": {"n": [1, 2]}, "none": None}
    store.replace_documents([
        (DocumentRecord("d1", "t1", "c1", "/a.txt", "A", "text/plain", "h1", "Alpha one.",
                        metadata=meta), [ChunkRecord(11, "d1", 0, 0, 10, "Alpha one.")]),
        (DocumentRecord("d2", "t1", "c2", "/b.md", "B", "text/markdown", "h2", "Beta two.",
                        metadata={"keywords": "x; y"}), [ChunkRecord(12, "d2", 0, 0, 9, "Beta two.")]),
        (DocumentRecord("d3", "t2", "c1", "/c.txt", "C", "text/plain", "h3", "Gamma.",
                        metadata={"tags": ["a"]}), [ChunkRecord(13, "d3", 0, 0, 6, "Gamma.")]),
    ])
    assert store.chunk_document_ids("t1", [12, 11, 13, 99]) == {11: "d1", 12: "d2"}
    assert store.chunk_document_ids("t1", []) == {}
    got = store.document_facets("t1", ["d2", "d1", "d3", "zz"],
                                 metadata_keys=("tags", "keywords", "date", "weird key", "none"))
    assert sorted(got, key=lambda d: d["id"]) == [
        {"id": "d1", "collection": "c1", "source": "/a.txt", "content_type": "text/plain",
         "metadata": {"tags": ["a", "b"], "date": "2024-05-01", "weird key": {"n": [1, 2]}}},
        {"id": "d2", "collection": "c2", "source": "/b.md", "content_type": "text/markdown",
         "metadata": {"keywords": "x; y"}},
    ]
    (bare,) = store.document_facets("t1", ["d1"])
    assert bare["metadata"] == {}  # no key asked for: none decoded
    # None: every document of the tenant (a lexical search naming the passing ones).
    every = store.document_facets("t1", None, metadata_keys=("tags",))
    assert sorted((d["id"], d["metadata"]) for d in every) == [
        ("d1", {"tags": ["a", "b"]}), ("d2", {})]


def test_a_document_whose_metadata_holds_nan_is_still_judged(store: SQLiteStore) -> None:
    """Python's json writes NaN, which SQLite's json_extract refuses ("malformed JSON"):
    a tag search over such a document failed whole (a review of the change)."""
    store.replace_documents([(DocumentRecord(
        "d1", "t1", "c", "/a.txt", None, "text/plain", "h", "x.",
        metadata={"tags": ["a"], "score": float("nan")}), [])])
    (got,) = store.document_facets("t1", ["d1"], metadata_keys=("tags",))
    assert got["metadata"] == {"tags": ["a"]}


def test_sources_named_match_the_last_path_part_literally(store: SQLiteStore) -> None:
    """What ``search --source`` points to when a path names no document: sources by file
    name, with no document text read; LIKE's wildcards in a name are plain characters."""
    names = ["/a/tents.md", "/b/tents.md", "/c/xtents.md", "/d/tents.md/inner",
             "/e/50%_off.txt", "/f/50xxoff.txt", "tents.md", "https://h/x/tents.md"]
    store.replace_documents([
        (DocumentRecord(f"d{i}", "t1", "c", src, None, "text/plain", f"h{i}", "x."), [])
        for i, src in enumerate(names)])
    store.replace_documents([
        (DocumentRecord("o", "t2", "c", "/z/tents.md", None, "text/plain", "h", "x."), [])])
    assert store.sources_named("t1", "tents.md", limit=10) == [
        "/a/tents.md", "/b/tents.md", "https://h/x/tents.md", "tents.md"]
    assert store.sources_named("t1", "tents.md", limit=2) == ["/a/tents.md", "/b/tents.md"]
    assert store.sources_named("t1", "50%_off.txt") == ["/e/50%_off.txt"]
    assert store.sources_named("t1", "TENTS.MD") == []  # exact, on every backend
    assert store.sources_named("t1", "nothing.md") == []


def test_documents_with_hashes_are_found_by_tenant_collection_and_hash(
        store: SQLiteStore) -> None:
    """What a moved file is recognised by (``knowledge.ingest.moves``): the documents of one
    tenant and collection with one of the given content hashes, sorted by source."""
    rows = [("d1", "t1", "c", "/b/x.txt", "h1"), ("d2", "t1", "c", "/a/x.txt", "h1"),
            ("d3", "t1", "c", "/c/y.txt", "h2"), ("d4", "t1", "other", "/d/x.txt", "h1"),
            ("d5", "t2", "c", "/e/x.txt", "h1")]
    store.replace_documents([(DocumentRecord(i, t, c, src, None, "text/plain", h, "x."), [])
                             for i, t, c, src, h in rows])
    assert store.documents_with_hashes("t1", ["h1", "h9"], collection="c") == [
        ("d2", "/a/x.txt", "h1"), ("d1", "/b/x.txt", "h1")]
    assert store.documents_with_hashes("t1", ["h2", "h1"], collection="other") == [
        ("d4", "/d/x.txt", "h1")]
    assert store.documents_with_hashes("t1", [], collection="c") == []


@pytest.mark.parametrize(("value", "stored"), [
    ("a\x00b", "a\ufffdb"),
    ({"k\x00": ["\x00", "x"]}, {"k\ufffd": ["\ufffd", "x"]}),
    ("\\u0000", "\\u0000"),  # a backslash and "u0000": text, not an escape
    ("\\\x00", "\\\ufffd"),  # an escaped backslash, then U+0000
    ("no nul", "no nul"),
])
def test_json_for_postgresql_replaces_only_real_nul_characters(value: object, stored: object) -> None:
    import json

    from citewise.store.schema import json_without_nul

    assert json.loads(json_without_nul(json.dumps(value))) == stored


def test_a_documents_metadata_is_parsed_once_and_never_shared(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk context gets its document's metadata as a fresh dict: an HTML page's
    anchors (thousands of ids) and its tags copied, not parsed again (a filtered search
    reads every candidate's; CMake's "#cmakedefine" question took 9 s reparsing them), and
    a value nested deeper parsed again — nothing a caller changes reaches the next one."""
    import json as real_json

    from citewise.store import sqlite as module
    from citewise.store.sqlite import _metadata

    parsed: list[str] = []

    class _Counting:
        @staticmethod
        def loads(text: str) -> object:
            parsed.append(text)
            return real_json.loads(text)

    monkeypatch.setattr(module, "json", _Counting)
    page = '{"anchors": {"id-once": 10, "id-twice": 20}, "tags": ["parsed-once"]}'
    for _ in range(3):
        assert _metadata(page) == {"anchors": {"id-once": 10, "id-twice": 20},
                                   "tags": ["parsed-once"]}
    assert parsed == [page]  # the chunks of one page: its metadata parsed once
    raw = ('{"anchors": {"a1": 10, "a2": 20}, "tags": ["x"], "title": "T", '
           '"deep": {"list": [1, 2]}}')
    first = _metadata(raw)
    first["anchors"]["a3"] = 30
    first["tags"].append("y")
    first["deep"]["list"].append(3)
    first["title"] = "changed"
    again = _metadata(raw)
    assert again == {"anchors": {"a1": 10, "a2": 20}, "tags": ["x"], "title": "T",
                     "deep": {"list": [1, 2]}}
    flat = '{"anchors": {"a1": 10}, "tags": ["x"]}'
    one, two = _metadata(flat), _metadata(flat)
    assert one == two and one["anchors"] is not two["anchors"] and one["tags"] is not two["tags"]
    assert _metadata(None) == {} and _metadata("") == {}
