"""Stateless API replicas sharing one PostgreSQL database serve as one service.

Two uvicorn servers, each its own app with its own (empty) data_dir, share nothing but
the database (``ServerConfig(database_url=...)``): a document uploaded through one is
listed, searched (BM25 and pgvector) and cited through the other, and deleted through
either; a run started on one is streamed, re-attached, cancelled and resumed through the
other; threads and API keys are the database's; tenants stay apart; bad input keeps the
one error shape. Each test works in a tenant of its own (an API key made for it), so the
tests share the two servers and still cannot see each other's data.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from _stores import PG, admin, database_url, pg_server  # noqa: F401
from citewise.events import Event, event_adapter
from citewise.server.auth import create_key
from citewise.server.testing import serve
from citewise.store.postgres import PostgresStore
from test_cli import cli
from test_server import DOC, assert_complete, assert_complete_with_pause, make_app, read_events

pytestmark = PG

#: A query about DOC that shares no word with it: only the vectors find DOC for it.
NO_SHARED_WORD = "money back timeline"


@dataclass
class Replicas:
    url: str
    a: str
    b: str
    data_dirs: tuple[Path, Path]
    store: PostgresStore  # what an operator's tools (the CLI) would open
    settle_key: str = ""

    def clients(self, key: str) -> tuple[httpx.Client, httpx.Client]:
        headers = {"Authorization": f"Bearer {key}"}
        return (httpx.Client(base_url=self.a, timeout=30, headers=headers),
                httpx.Client(base_url=self.b, timeout=30, headers=headers))

    def settle(self) -> None:
        """Return once both servers have logged what the requests so far made them log.

        A test that fails while a server thread formats a traceback can end the session
        (INTERNALERROR ``SystemError: AST constructor recursion depth mismatch``: CPython
        3.11 builds ASTs thread-unsafely, python/cpython#106905, and both pytest and
        ``traceback`` parse source). An ask is answered by the server's event loop after
        the requests before it, and only once its log writer, which writes (and logs its
        failures) in order, has written the run: so one ask on each is a barrier.
        """
        if not self.settle_key:
            self.settle_key = create_key(self.store, "settle")[1]
        a, b = self.clients(self.settle_key)
        with a, b:
            for http in (a, b):
                r = http.post("/v1/ask", json={"question": "quick settle"})
                assert r.status_code == 200, r.text


@pytest.fixture(scope="module")
def replicas(pg_server: str, tmp_path_factory: pytest.TempPathFactory  # noqa: F811
             ) -> Iterator[Replicas]:
    name = f"cw_{uuid.uuid4().hex[:16]}"
    admin(pg_server, f'CREATE DATABASE "{name}"')
    url = database_url(pg_server, name)
    dirs = (tmp_path_factory.mktemp("replica-a"), tmp_path_factory.mktemp("replica-b"))
    # Keys on (every request is some tenant's), looked up on every request (key_cache_s=0:
    # a revocation shows at once); finished runs kept in memory as long as by default; a
    # cancel B asks of A waited for long enough to see A stop a run between model turns.
    config: dict[str, Any] = {"database_url": url, "auth": "keys", "key_cache_s": 0,
                              "retain_s": 30.0, "cancel_grace_s": 2.0}
    try:
        with serve(make_app(dirs[0], **config)) as a, serve(make_app(dirs[1], **config)) as b, \
                PostgresStore(url) as store:
            yield Replicas(url, a, b, dirs, store)
    finally:
        admin(pg_server, f'DROP DATABASE "{name}" WITH (FORCE)')


@dataclass
class Pair:
    """One tenant's clients of replica A and replica B."""

    tenant: str
    a: httpx.Client
    b: httpx.Client


@pytest.fixture
def pair(replicas: Replicas) -> Iterator[Pair]:
    tenant = f"t_{uuid.uuid4().hex[:12]}"
    a, b = replicas.clients(create_key(replicas.store, tenant)[1])
    with a, b:
        yield Pair(tenant, a, b)


def replay(http: httpx.Client, run_id: str) -> list[dict[str, Any]]:
    with http.stream("GET", f"/v1/runs/{run_id}/events") as r:
        assert r.status_code == 200, r.read()
        return [e.model_dump() for e in read_events(r)]


def poll(what: Callable[[], Any], until: Callable[[Any], bool], timeout: float = 15) -> Any:
    """``what()`` again until ``until`` holds of it (bounded)."""
    deadline = time.monotonic() + timeout
    while not until(value := what()):
        assert time.monotonic() < deadline, f"still {value!r}"
        time.sleep(0.05)
    return value


def assert_typed_error(r: httpx.Response) -> dict[str, Any]:
    """A refusal in the one error shape: 4xx, ``{"error": {code, message, details}}``."""
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert "Traceback" not in r.text
    error: dict[str, Any] = body["error"]
    return error


# -- documents and search -------------------------------------------------------------------


def test_a_document_uploaded_on_a_is_listed_searched_and_cited_on_b(pair: Pair) -> None:
    up = pair.a.post("/v1/documents", files={"file": ("returns.md", DOC.encode())},
                     data={"collection": "policies"})
    assert up.status_code == 201, up.text
    doc = up.json()["document"]
    assert [d["id"] for d in pair.b.get("/v1/documents").json()["documents"]] == [doc["id"]]
    full = pair.b.get(f"/v1/documents/{doc['id']}", params={"text": "true"}).json()
    assert full == pair.a.get(f"/v1/documents/{doc['id']}", params={"text": "true"}).json()
    assert "14 days" in full["text"]
    # Words of the document: B's search finds them in the database's full-text index.
    hits = pair.b.post("/v1/search", json={"query": "refunds issued", "k": 3}).json()["hits"]
    assert hits and hits[0]["document_id"] == doc["id"]
    assert full["text"][hits[0]["start_char"]:hits[0]["end_char"]] == hits[0]["text"]
    assert "Refunds are issued" in hits[0]["text"]
    # No word in common: only the vectors A's upload stored find it (the API's search is
    # hybrid; its lexical half has nothing to match here).
    assert not set(NO_SHARED_WORD.split()) & set(re.findall(r"\w+", DOC.lower()))
    # The upload returned once searchable by keyword; the vectors come from the replicas'
    # embedding workers (issue 23): B's status says when they are there.
    deadline = time.monotonic() + 60
    while pair.b.get("/v1/status").json()["not_embedded"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    dense = pair.b.post("/v1/search", json={"query": NO_SHARED_WORD}).json()["hits"]
    assert dense and {h["document_id"] for h in dense} == {doc["id"]}
    filtered = pair.b.post("/v1/search", json={"query": "refunds issued",
                                               "filters": {"collection": "policies"}})
    assert [h["document_id"] for h in filtered.json()["hits"]][:1] == [doc["id"]]
    # B's agent searches and cites it.
    answer = pair.b.post("/v1/ask", json={"question": "search refunds"}).json()
    assert answer["status"] == "completed", answer
    assert answer["citations"], answer
    assert answer["search_documents"][0]["document"]["id"] == doc["id"]
    assert answer["search_documents"][0]["source"] == "returns.md"
    # Deleted through B: gone on A, from the list, the document and both halves of search.
    assert pair.b.delete(f"/v1/documents/{doc['id']}").status_code == 204
    assert pair.a.get("/v1/documents").json()["documents"] == []
    gone = pair.a.get(f"/v1/documents/{doc['id']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "unknown_document"
    for query in ("refunds issued", NO_SHARED_WORD):
        assert pair.a.post("/v1/search", json={"query": query}).json()["hits"] == []
    assert pair.a.delete(f"/v1/documents/{doc['id']}").status_code == 404
    later = pair.a.post("/v1/ask", json={"question": "search refunds"}).json()
    assert later["search_documents"] == [] and later["citations"] == []


def test_a_re_upload_on_b_replaces_the_document_a_uploaded(pair: Pair) -> None:
    first = pair.a.post("/v1/documents", files={"file": ("returns.md", DOC.encode())}).json()
    same = pair.b.post("/v1/documents", files={"file": ("returns.md", DOC.encode())})
    assert same.status_code == 200 and same.json()["status"] == "unchanged"
    changed = DOC.replace("14 days", "30 days")
    up = pair.b.post("/v1/documents", files={"file": ("returns.md", changed.encode())})
    assert up.status_code == 201 and up.json()["status"] == "updated", up.text
    assert up.json()["document"]["id"] == first["document"]["id"]
    text = pair.a.get(f"/v1/documents/{first['document']['id']}",
                      params={"text": "true"}).json()["text"]
    assert "30 days" in text and "14 days" not in text
    hits = pair.a.post("/v1/search", json={"query": "refunds issued"}).json()["hits"]
    assert hits and all("14 days" not in h["text"] for h in hits)
    assert any("30 days" in h["text"] for h in hits)


# -- runs -------------------------------------------------------------------------------------


def start_background(http: httpx.Client, question: str) -> str:
    r = http.post("/v1/runs", json={"question": question, "background": True})
    assert r.status_code == 202, r.text
    run_id: str = r.json()["run_id"]
    return run_id


def run_status(http: httpx.Client, run_id: str) -> str:
    status: str = http.get(f"/v1/runs/{run_id}").json()["status"]
    return status


def known_on(http: httpx.Client, run_id: str) -> None:
    """Wait until ``http``'s replica knows the run (see the test below)."""
    poll(lambda: http.get(f"/v1/runs/{run_id}").status_code, lambda s: s != 404)


def test_a_run_started_on_a_is_known_to_b_as_soon_as_a_answers(pair: Pair) -> None:
    # Behind a load balancer the client's next request (the 202's events_url) may land on
    # the other replica. One miss in 20 starts fails the test.
    for _ in range(20):
        run_id = start_background(pair.a, "quick")
        r = pair.b.get(f"/v1/runs/{run_id}/events")
        assert r.status_code == 200, r.text


def test_a_background_run_on_a_is_streamed_and_re_attached_on_b(pair: Pair) -> None:
    run_id = start_background(pair.a, "slow run")
    known_on(pair.b, run_id)
    with pair.b.stream("GET", f"/v1/runs/{run_id}/events") as r:
        first = read_events(r, limit=3)
    # The stream is dropped; the run goes on, on A, as B sees in the database.
    assert pair.b.get(f"/v1/runs/{run_id}").json()["status"] == "running"
    with pair.b.stream("GET", f"/v1/runs/{run_id}/events",
                       headers={"Last-Event-ID": str(first[-1].seq)}) as r:
        rest = read_events(r)
    assert rest[0].seq == first[-1].seq + 1  # nothing lost, nothing repeated
    assert_complete(first + rest)
    assert rest[-1].kind == "run_finished"
    assert {e.kind for e in first + rest} >= {"thought", "action", "observation"}
    # The finished run replays identically on both (A from memory, B from the database).
    events = [e.model_dump() for e in first + rest]
    assert replay(pair.a, run_id) == events
    assert replay(pair.b, run_id) == events
    info_a, info_b = (c.get(f"/v1/runs/{run_id}").json() for c in (pair.a, pair.b))
    assert info_a["status"] == info_b["status"] == "completed"
    assert info_a["answer"]["text"] == info_b["answer"]["text"] == "All steps done."
    assert info_a["last_seq"] == info_b["last_seq"] == first[-1].seq + len(rest)


@pytest.mark.parametrize("question", ["slow run", "wait forever"],
                         ids=["between-model-turns", "stuck-in-a-tool"])
def test_b_cancels_a_run_that_a_drives(pair: Pair, question: str) -> None:
    run_id = start_background(pair.a, question)
    known_on(pair.b, run_id)
    with pair.b.stream("GET", f"/v1/runs/{run_id}/events") as r:
        assert r.status_code == 200, r.read()
        assert [e.kind for e in read_events(r, limit=1)] == ["run_started"]
    cancel = pair.b.post(f"/v1/runs/{run_id}/cancel")
    assert cancel.status_code == 200, cancel.text
    # A stops it when it reads the request (within B's wait, or soon after: `cancelling`).
    assert cancel.json()["status"] in {"cancelled", "cancelling"}
    for http in (pair.b, pair.a):
        assert poll(partial(run_status, http, run_id), lambda s: s != "running") == "cancelled"
    events = replay(pair.b, run_id)
    assert replay(pair.a, run_id) == events
    assert_complete([event_adapter.validate_python(e) for e in events])
    assert events[-1]["kind"] == "error" and events[-1]["code"] == "run_cancelled"
    # Both replicas describe the run alike: its last event and the answer it carries
    # (the replica that did not drive it read a record that had only moved).
    infos = [http.get(f"/v1/runs/{run_id}").json() for http in (pair.a, pair.b)]
    for info in infos:  # the driving replica's times are its own (from memory)
        del info["created_at"], info["updated_at"]
    assert infos[0] == infos[1]
    assert infos[0]["last_seq"] == events[-1]["seq"]
    assert infos[0]["answer"]["error"]["code"] == "run_cancelled"
    again = pair.b.post(f"/v1/runs/{run_id}/cancel")
    assert again.status_code == 409 and again.json()["error"]["code"] == "run_finished"


def pause_on(http: httpx.Client) -> list[Event]:
    with http.stream("POST", "/v1/runs", json={"question": "approve please"}) as r:
        paused = read_events(r)
    assert paused[-1].kind == "run_paused"
    return paused


def test_a_run_paused_on_a_is_resumed_through_b(pair: Pair) -> None:
    paused = pause_on(pair.a)
    run_id = paused[-1].run_id
    info = pair.b.get(f"/v1/runs/{run_id}").json()
    assert info["status"] == "paused"
    interrupt = info["interrupts"][0]
    assert interrupt["tool"] == "refund"
    decision = {"interrupt_id": interrupt["id"], "action": "approve"}
    with pair.b.stream("POST", f"/v1/runs/{run_id}/resume",
                       json={"decisions": [decision]}) as r:
        assert r.status_code == 200, r.read()
        resumed = read_events(r)
    assert resumed[0].seq == paused[-1].seq + 1
    assert resumed[-1].kind == "run_finished"
    observation = next(e for e in resumed if e.kind == "observation")
    assert observation.text == "refunded A-17"
    history = [e.model_dump() for e in paused + resumed]
    assert replay(pair.b, run_id) == history
    assert_complete_with_pause(paused + resumed)
    twice = pair.a.post(f"/v1/runs/{run_id}/resume", json={"decisions": [decision]})
    assert twice.status_code == 409


def test_the_replica_that_paused_a_run_sees_it_resumed_elsewhere(pair: Pair) -> None:
    paused = pause_on(pair.a)
    run_id = paused[-1].run_id
    decision = {"interrupt_id": paused[-1].interrupts[0].id,  # type: ignore[union-attr]
                "action": "approve"}
    resumed = pair.b.post(f"/v1/runs/{run_id}/resume",
                          json={"decisions": [decision], "stream": False})
    assert resumed.status_code == 200 and resumed.json()["status"] == "completed"
    info = pair.a.get(f"/v1/runs/{run_id}").json()
    assert info["status"] == "completed", info
    assert replay(pair.a, run_id) == replay(pair.b, run_id)


def test_the_replica_that_paused_a_run_sees_it_cancelled_elsewhere(pair: Pair) -> None:
    paused = pause_on(pair.a)
    run_id = paused[-1].run_id
    assert pair.b.post(f"/v1/runs/{run_id}/cancel").json()["status"] == "cancelled"
    assert pair.b.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    assert pair.a.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    events = replay(pair.a, run_id)
    assert events == replay(pair.b, run_id)
    assert events[-1]["kind"] == "error" and events[-1]["code"] == "run_cancelled"


def test_the_runs_of_a_thread_deleted_through_b_are_gone_on_a(pair: Pair) -> None:
    first = pair.a.post("/v1/ask", json={"question": "quick first"}).json()
    assert pair.b.delete(f"/v1/threads/{first['thread_id']}").status_code == 204
    assert pair.b.get(f"/v1/runs/{first['run_id']}").status_code == 404
    for path in (f"/v1/runs/{first['run_id']}", f"/v1/runs/{first['run_id']}/events"):
        r = pair.a.get(path)
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_run", r.text


# -- threads ---------------------------------------------------------------------------------


def test_a_thread_begun_on_a_is_read_and_continued_on_b(pair: Pair) -> None:
    first = pair.a.post("/v1/ask", json={"question": "quick first"}).json()
    thread_id = first["thread_id"]
    assert [t["id"] for t in pair.b.get("/v1/threads").json()["threads"]] == [thread_id]
    detail = pair.b.get(f"/v1/threads/{thread_id}").json()
    assert detail["title"] == "quick first"
    assert [(t["run_id"], t["question"], t["answer"]) for t in detail["turns"]] == [
        (first["run_id"], "quick first", "The answer is 42.")]
    second = pair.b.post("/v1/ask", json={"question": "quick second", "thread_id": thread_id})
    assert second.status_code == 200, second.text
    assert second.json()["thread_id"] == thread_id
    for http in (pair.a, pair.b):
        turns = http.get(f"/v1/threads/{thread_id}").json()["turns"]
        assert [t["question"] for t in turns] == ["quick first", "quick second"]
    assert pair.b.delete(f"/v1/threads/{thread_id}").status_code == 204
    gone = pair.a.get(f"/v1/threads/{thread_id}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "unknown_thread"
    assert pair.a.get("/v1/threads").json()["threads"] == []
    unknown = pair.a.post("/v1/ask", json={"question": "quick third", "thread_id": thread_id})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_thread"


# -- keys and tenants ----------------------------------------------------------------------------


def test_keys_made_by_the_cli_work_on_every_replica_and_tenants_stay_apart(
        replicas: Replicas) -> None:
    made = cli("keys", "create", "--tenant", "t1", "--database-url", replicas.url)
    assert made.returncode == 0, made.stderr
    key1 = made.stdout.strip()
    found = re.search(r"created key (key_\w+)", made.stderr)
    assert found is not None, made.stderr
    key2 = create_key(replicas.store, "t2")[1]
    t1_a, t1_b = replicas.clients(key1)
    t2_a, t2_b = replicas.clients(key2)
    with t1_a, t1_b, t2_a, t2_b, httpx.Client(timeout=30) as anonymous:
        for base in (replicas.a, replicas.b):
            missing = anonymous.get(f"{base}/v1/documents")
            assert missing.status_code == 401
            assert assert_typed_error(missing)["code"] == "missing_api_key"
            wrong = anonymous.get(f"{base}/v1/documents", headers={"X-API-Key": "cwk_nope"})
            assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
        up = t1_a.post("/v1/documents", files={"file": ("returns.md", DOC.encode())})
        assert up.status_code == 201, up.text
        doc_id = up.json()["document"]["id"]
        assert [d["id"] for d in t1_b.get("/v1/documents").json()["documents"]] == [doc_id]
        # t2, on B: t1's document answers as one that does not exist.
        for r in (t2_b.get(f"/v1/documents/{doc_id}"), t2_b.delete(f"/v1/documents/{doc_id}")):
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_document"
        assert t2_b.get("/v1/documents").json()["documents"] == []
        for query in ("refunds issued", NO_SHARED_WORD):
            assert t2_b.post("/v1/search", json={"query": query}).json()["hits"] == []
        assert t2_b.post("/v1/ask", json={"question": "search refunds"}).json()[
            "search_documents"] == []
        # ...and t1's runs and threads likewise.
        answer = t1_a.post("/v1/ask", json={"question": "quick secret"}).json()
        assert t2_b.get(f"/v1/runs/{answer['run_id']}").status_code == 404
        assert t2_b.get(f"/v1/threads/{answer['thread_id']}").status_code == 404
        t2_threads = [t["id"] for t in t2_b.get("/v1/threads").json()["threads"]]
        assert answer["thread_id"] not in t2_threads
        assert t1_b.get(f"/v1/documents/{doc_id}").status_code == 200  # still there
        # Revoked with the CLI: refused by both replicas at once (key_cache_s=0).
        revoked = cli("keys", "revoke", found.group(1), "--database-url", replicas.url)
        assert revoked.returncode == 0, revoked.stderr
        for http in (t1_a, t1_b):
            r = http.get("/v1/documents")
            assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
        assert t2_a.get("/v1/documents").status_code == 200


# -- bad input ---------------------------------------------------------------------------------

_NUL_TEXT = "Refunds are issued within 14 days of receiving the item. " * 4 + "\x00 the end."
NUL_UPLOADS = {  # file name, contents, collection
    # The loaders refuse raw NUL bytes (binary_file); the others reach the store as U+0000.
    "nul-byte-markdown": ("nul.md", b"# Returns\n\nRefunds\x00 are issued.\n", "default"),
    "utf8-bom-text": ("nul.txt", b"\xef\xbb\xbf" + _NUL_TEXT.encode(), "default"),
    "utf16-text": ("nul.txt", _NUL_TEXT.encode("utf-16"), "default"),
    "jsonl-escape": ("nul.jsonl", b'{"text": "Refunds are issued \\u0000 within 14 days."}\n',
                     "default"),
    "collection-field": ("other.md", DOC.encode(), "c\x00x"),
}


@pytest.mark.parametrize("name", list(NUL_UPLOADS))
def test_an_upload_with_a_nul_character_is_refused_and_writes_nothing(
        pair: Pair, name: str) -> None:
    before = pair.a.post("/v1/documents", files={"file": ("keep.md", DOC.encode())})
    assert before.status_code == 201
    listed = pair.b.get("/v1/documents").json()
    filename, data, collection = NUL_UPLOADS[name]
    r = pair.a.post("/v1/documents", files={"file": (filename, data)},
                    data={"collection": collection})
    assert assert_typed_error(r)["code"] in {"unsupported_character", "binary_file"}
    for http in (pair.a, pair.b):
        assert http.get("/v1/documents").json() == listed
    hits = pair.b.post("/v1/search", json={"query": "refunds issued", "k": 10}).json()["hits"]
    assert {h["source"] for h in hits} == {"keep.md"}


def _nul_question(pair: Pair, how: str) -> httpx.Response:
    question = "quick \x00 one"
    if how == "ask":
        return pair.a.post("/v1/ask", json={"question": question})
    if how == "run-stream":
        return pair.a.post("/v1/runs", json={"question": question})
    if how == "run-background":
        return pair.a.post("/v1/runs", json={"question": question, "background": True})
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["ask", "run-stream", "run-background"])
def test_a_question_with_a_nul_character_is_refused_and_writes_nothing(
        replicas: Replicas, pair: Pair, how: str) -> None:
    r = _nul_question(pair, how)
    run_id = r.headers.get("x-run-id")
    if run_id is not None:  # started after all: let it end before the barrier
        poll(lambda: pair.a.get(f"/v1/runs/{run_id}"),
             lambda got: got.status_code != 200 or got.json()["status"] != "running")
    replicas.settle()
    error = assert_typed_error(r)
    assert error["code"] in {"unsupported_character", "validation_error"}
    for http in (pair.a, pair.b):
        assert http.get("/v1/threads").json()["threads"] == []


@pytest.mark.parametrize(("method", "path", "params", "body"), [
    pytest.param(*case, id=case[0] + " " + case[1]) for case in [
        ("GET", "/v1/documents/a%00b", None, None),
        ("GET", "/v1/documents", {"collection": "a\x00"}, None),
        ("GET", "/v1/threads/t%00x", None, None),
        ("GET", "/v1/runs/run%00x", None, None),
        ("GET", "/v1/runs/run%00x/events", None, None),
        ("POST", "/v1/runs/run%00x/cancel", None, None),
        ("POST", "/v1/runs/run%00x/resume", None,
         {"decisions": [{"interrupt_id": "x", "action": "approve"}]}),
        ("POST", "/v1/ask", None, {"question": "quick", "thread_id": "t\x00x"}),
        ("GET", "/v1/feedback", {"run_id": "r\x00"}, None),
    ]] + [
    pytest.param("DELETE", "/v1/documents/a%00b", None, None, id="DELETE /v1/documents/a%00b"),
    pytest.param("DELETE", "/v1/threads/t%00x", None, None, id="DELETE /v1/threads/t%00x"),
    pytest.param("POST", "/v1/search", None, {"query": "refunds \x00 issued"}, id="search"),
])
def test_a_nul_character_in_an_id_or_filter_is_a_typed_error(
        replicas: Replicas, pair: Pair, method: str, path: str, params: dict[str, str] | None,
        body: dict[str, Any] | None) -> None:
    r = pair.b.request(method, path, params=params, json=body)
    replicas.settle()
    if r.status_code == 200:  # a search for a word that is nowhere: nothing found
        assert r.json() == {"hits": []}
    else:
        assert_typed_error(r)


def test_a_resume_with_a_nul_character_is_refused_and_the_run_stays_paused(
        replicas: Replicas, pair: Pair) -> None:
    paused = pause_on(pair.a)
    run_id = paused[-1].run_id
    decision = {"interrupt_id": paused[-1].interrupts[0].id,  # type: ignore[union-attr]
                "action": "reject", "message": "no\x00way"}
    r = pair.b.post(f"/v1/runs/{run_id}/resume", json={"decisions": [decision], "stream": False})
    replicas.settle()
    assert_typed_error(r)
    assert pair.a.get(f"/v1/runs/{run_id}").json()["status"] == "paused"


def test_the_replicas_keep_nothing_in_their_data_dirs(replicas: Replicas) -> None:
    # Last: after every test above, all the state is in the database.
    for folder in replicas.data_dirs:
        assert sorted(p.name for p in folder.iterdir()) == []
