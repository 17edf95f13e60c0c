"""The HTTP service against a real uvicorn server on 127.0.0.1: ask (JSON and SSE), runs
streamed, a dropped stream re-attached with Last-Event-ID, background runs, cancel,
resume, threads, documents, search, feedback, provenance, dialects, heartbeats, the one
error shape, and a run tailed by a second server sharing the database."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncGenerator, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from _models import question_and_turn
from citewise.agent.tools import tool
from citewise.client.sse import SSEDecoder
from citewise.events import Event, event_adapter
from citewise.models.base import ModelRequest
from citewise.models.scripted import Part, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.testing import PacedModel, serve

DOC = ("# Returns\n\nRefunds are issued within 14 days of receiving the item.\n\n"
       "Exchanges are free for members.\n")


@tool
async def wait(seconds: float) -> str:
    """Wait a while, like a slow external system.

    Args:
        seconds: how long to wait
    """
    await asyncio.sleep(seconds)
    return f"waited {seconds}s"


@tool(requires_approval=True)
def refund(order: str) -> str:
    """Refund an order (a human approves first).

    Args:
        order: the order id
    """
    return f"refunded {order}"


def _scripts() -> dict[str, tuple[list[Any], float]]:
    """Turns and the pause before each, by the question's first word."""
    return {
        "quick": ([[thought("easy"), answer("The answer is 42.")]], 0.0),
        # ~1.5 s: six steps with a pause before each model turn.
        "slow": ([[thought(f"step {i}"), call("wait", seconds=0.01)] for i in range(5)]
                 + ["All steps done."], 0.25),
        "wait": ([call("wait", seconds=30), "never"], 0.0),
        "search": ([call("search_knowledge", query="refunds issued days"),
                    "Refunds are issued within 14 days [1]."], 0.0),
        "approve": ([call("refund", order="A-17"), "Refund done."], 0.0),
        # The same, then a 1 s tool call after the approval: a resume that lasts a while.
        "approveslow": ([call("refund", order="A-18"), call("wait", seconds=1),
                         "Refund done."], 0.0),
        "sleepy": (["Slept well."], 1.0),
    }


class Routed:
    """A stateless scripted model: the question's first word picks the script, the number
    of model turns since the question picks the turn (so a resumed run goes on where the
    paused one stopped, whatever process resumes it)."""

    name = "scripted"

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        question, done = question_and_turn(request)
        turns, delay = _scripts().get(question.split()[0], _scripts()["quick"])
        async for part in PacedModel([turns[min(done, len(turns) - 1)]], delay=delay).stream(
                request):
            yield part


def make_app(data_dir: Path, **overrides: Any) -> Any:
    fields: dict[str, Any] = {"data_dir": data_dir, "heartbeat_s": 0.3, "cancel_grace_s": 0.3,
                              "retain_s": 1.0, "rate_limit_per_s": 0, "poll_interval_s": 0.05}
    fields.update(overrides)
    return create_app(ServerConfig(**fields), model=Routed, tools=[wait, refund])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(make_app(tmp_path_factory.mktemp("srv"))) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client


class Reader:
    """Events of an SSE response, read in as many parts as a test likes (each frame's
    ``id`` is checked to be its event's seq)."""

    def __init__(self, response: httpx.Response, raw: list[str] | None = None) -> None:
        self._chunks = response.iter_bytes()
        self._decoder = SSEDecoder()
        self._ready: list[Event] = []
        self._raw = raw

    def read(self, limit: int | None = None) -> list[Event]:
        events: list[Event] = []
        while limit is None or len(events) < limit:
            if not self._ready:
                chunk = next(self._chunks, None)
                if chunk is None:
                    break
                if self._raw is not None:
                    self._raw.append(chunk.decode())
                for sse in self._decoder.feed(chunk):
                    event = event_adapter.validate_json(sse.data)
                    assert sse.id == str(event.seq)
                    self._ready.append(event)
                continue
            events.append(self._ready.pop(0))
        return events


def read_events(response: httpx.Response, limit: int | None = None,
                raw: list[str] | None = None) -> list[Event]:
    return Reader(response, raw).read(limit)


def assert_complete(events: list[Event]) -> None:
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert [e.is_terminal for e in events].count(True) == 1
    assert events[-1].is_terminal


# -- ask ---------------------------------------------------------------------------------


def test_ask_json(http: httpx.Client) -> None:
    r = http.post("/v1/ask", json={"question": "quick one"})
    assert r.status_code == 200
    body = r.json()
    assert body["text"] == "The answer is 42."
    assert body["status"] == "completed"
    assert r.headers["x-run-id"] == body["run_id"]


@pytest.mark.parametrize("how", ["body", "accept"])
def test_ask_sse(http: httpx.Client, how: str) -> None:
    payload: dict[str, Any] = {"question": "quick one"}
    headers = {}
    if how == "body":
        payload["stream"] = True
    else:
        headers["Accept"] = "text/event-stream"
    with http.stream("POST", "/v1/ask", json=payload, headers=headers) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        events = read_events(r)
    assert_complete(events)
    assert events[0].kind == "run_started"
    assert events[-1].kind == "run_finished"
    assert events[-1].answer.text == "The answer is 42."  # type: ignore[union-attr]


# -- runs --------------------------------------------------------------------------------


def test_run_streamed_then_replayed_identically(http: httpx.Client) -> None:
    raw: list[str] = []
    with http.stream("POST", "/v1/runs", json={"question": "slow run"}) as r:
        assert r.status_code == 200
        run_id = r.headers["x-run-id"]
        events = read_events(r, raw=raw)
    assert "retry: 1000" in "".join(raw)
    assert_complete(events)
    assert {e.kind for e in events} >= {"run_started", "thought", "action", "observation",
                                        "answer_delta", "run_finished"}
    with http.stream("GET", f"/v1/runs/{run_id}/events") as r:
        replay = read_events(r)
    assert [e.model_dump() for e in replay] == [e.model_dump() for e in events]
    info = http.get(f"/v1/runs/{run_id}").json()
    assert info["status"] == "completed"
    assert info["answer"]["text"] == "All steps done."
    assert info["last_seq"] == events[-1].seq


def test_disconnect_mid_run_then_reconnect_with_last_event_id(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", json={"question": "slow run"}) as r:
        run_id = r.headers["x-run-id"]
        first = read_events(r, limit=4)
    # The connection is gone; the run is not.
    time.sleep(0.4)
    assert http.get(f"/v1/runs/{run_id}").json()["status"] == "running"
    headers = {"Last-Event-ID": str(first[-1].seq)}
    with http.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as r:
        rest = read_events(r)
    assert rest[0].seq == first[-1].seq + 1  # nothing lost, nothing repeated
    assert_complete(first + rest)
    assert rest[-1].kind == "run_finished"
    # ?after= is the same as Last-Event-ID (for clients that cannot set headers).
    with http.stream("GET", f"/v1/runs/{run_id}/events", params={"after": 2}) as r:
        assert [e.seq for e in read_events(r)] == [e.seq for e in (first + rest)[2:]]


def test_background_run_attached_later(http: httpx.Client) -> None:
    r = http.post("/v1/runs", json={"question": "slow run", "background": True})
    assert r.status_code == 202
    info = r.json()
    assert info["status"] == "running"
    assert info["events_url"] == f"/v1/runs/{info['run_id']}/events"
    time.sleep(0.3)
    with http.stream("GET", info["events_url"]) as s:  # attach while it runs
        events = read_events(s)
    assert_complete(events)
    assert events[-1].kind == "run_finished"


def test_background_run_replays_in_full_after_it_ended(http: httpx.Client) -> None:
    r = http.post("/v1/runs", json={"question": "quick", "background": True})
    run_id = r.json()["run_id"]
    deadline = time.monotonic() + 10
    while http.get(f"/v1/runs/{run_id}").json()["status"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(1.2)  # past retain_s: the events now come from SQLite, not memory
    with http.stream("GET", f"/v1/runs/{run_id}/events") as s:
        events = read_events(s)
    assert_complete(events)


def test_run_json_when_not_streamed(http: httpx.Client) -> None:
    r = http.post("/v1/runs", json={"question": "quick", "stream": False})
    assert r.status_code == 200
    assert r.json()["status"] == "completed"
    assert r.json()["answer"]["text"] == "The answer is 42."


def test_cancel_a_run_stuck_in_a_tool(http: httpx.Client) -> None:
    r = http.post("/v1/runs", json={"question": "wait forever", "background": True})
    run_id = r.json()["run_id"]
    time.sleep(0.3)
    t0 = time.monotonic()
    c = http.post(f"/v1/runs/{run_id}/cancel")
    assert c.status_code == 200
    assert c.json() == {"run_id": run_id, "status": "cancelled"}
    assert time.monotonic() - t0 < 5
    with http.stream("GET", f"/v1/runs/{run_id}/events") as s:
        events = read_events(s)
    assert_complete(events)
    assert events[-1].kind == "error"
    assert events[-1].code == "run_cancelled"  # type: ignore[union-attr]
    assert http.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    again = http.post(f"/v1/runs/{run_id}/cancel")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "run_finished"


def test_cancel_while_the_model_thinks_is_cooperative(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", json={"question": "slow run"}) as r:
        run_id = r.headers["x-run-id"]
        reader = Reader(r)
        events = reader.read(3)
        assert http.post(f"/v1/runs/{run_id}/cancel").json()["status"] == "cancelled"
        events += reader.read()
    assert_complete(events)
    assert events[-1].kind == "error"
    assert events[-1].code == "run_cancelled"  # type: ignore[union-attr]
    assert events[-1].answer is not None  # type: ignore[union-attr]
    assert events[-1].answer.status == "cancelled"  # type: ignore[union-attr]


def test_pause_resume_over_http(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", json={"question": "approve please"}) as r:
        paused = read_events(r)
    assert paused[-1].kind == "run_paused"
    run_id = paused[-1].run_id
    info = http.get(f"/v1/runs/{run_id}").json()
    assert info["status"] == "paused"
    interrupt = info["interrupts"][0]
    assert interrupt["tool"] == "refund"
    bad = http.post(f"/v1/runs/{run_id}/resume",
                    json={"decisions": [{"interrupt_id": "nope", "action": "approve"}]})
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "unknown_interrupt"
    decision = {"interrupt_id": interrupt["id"], "action": "approve"}
    time.sleep(0.6)  # a human takes a while: the resume's time is not the run's start
    with http.stream("POST", f"/v1/runs/{run_id}/resume", json={"decisions": [decision]}) as r:
        assert r.status_code == 200
        resumed = read_events(r)
    assert resumed[0].seq == paused[-1].seq + 1
    assert resumed[-1].kind == "run_finished"
    observation = next(e for e in resumed if e.kind == "observation")
    assert observation.text == "refunded A-17"  # type: ignore[union-attr]
    twice = http.post(f"/v1/runs/{run_id}/resume", json={"decisions": [decision]})
    assert twice.status_code == 409
    with http.stream("GET", f"/v1/runs/{run_id}/events") as r:  # the whole history
        assert_complete_with_pause(read_events(r))
    # The resuming process describes the same run as the store does: its start and its
    # question (it said the resume's time, no question and no updated_at).
    after = http.get(f"/v1/runs/{run_id}").json()
    started = [datetime.fromisoformat(x["created_at"]) for x in (info, after)]
    assert abs((started[1] - started[0]).total_seconds()) < 0.5  # the start, not the resume
    assert after["question"] == info["question"] and after["question"]
    assert after["updated_at"] is not None and after["updated_at"] >= after["created_at"]


def assert_complete_with_pause(events: list[Event]) -> None:
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [e.kind for e in events if e.is_terminal] == ["run_paused", "run_finished"]


def test_cancel_a_paused_run(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", json={"question": "approve please"}) as r:
        paused = read_events(r)
    run_id = paused[-1].run_id
    assert http.post(f"/v1/runs/{run_id}/cancel").json()["status"] == "cancelled"
    with http.stream("GET", f"/v1/runs/{run_id}/events",
                     headers={"Last-Event-ID": str(paused[-1].seq)}) as r:
        tail = read_events(r)
    assert [(e.kind, getattr(e, "code", None)) for e in tail] == [("error", "run_cancelled")]


def test_a_cancel_request_from_before_the_pause_does_not_cancel_the_resume(
        tmp_path: Path) -> None:
    # A cancel asked of the running run, which it had not seen when it paused, is withdrawn
    # by the resume: it used to reach the resumed run through the manager's watcher.
    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        with http.stream("POST", "/v1/runs", json={"question": "approveslow please"}) as r:
            paused = read_events(r)
        run_id = paused[-1].run_id
        from citewise.store.base import cancel_key

        store = app.state.citewise.manager.store
        store.set_setting(cancel_key("default", run_id), datetime.now(UTC).isoformat())
        time.sleep(0.3)  # the manager's watcher reads the request meanwhile
        decision = {"interrupt_id": paused[-1].interrupts[0].id, "action": "approve"}
        with http.stream("POST", f"/v1/runs/{run_id}/resume",
                         json={"decisions": [decision]}) as r:
            resumed = read_events(r)
        assert [e.kind for e in resumed if e.is_terminal] == ["run_finished"]
        assert "waited 1.0s" in [getattr(e, "text", None) for e in resumed]
        assert store.get_setting(cancel_key("default", run_id)) is None


def test_a_run_that_pauses_before_it_sees_a_cancel_is_cancelled(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        with http.stream("POST", "/v1/runs", json={"question": "approve please"}) as r:
            paused = read_events(r)
        run_id = paused[-1].run_id
        store = app.state.citewise.manager.store
        # Now driven by "another process": running, and not live here.
        assert store.transition_run("default", run_id, ("paused",), "running")
        with ThreadPoolExecutor(1) as pool:
            cancelling = pool.submit(http.post, f"/v1/runs/{run_id}/cancel")
            time.sleep(0.15)  # the request is in the store; that process pauses the run
            assert store.transition_run("default", run_id, ("running",), "paused")
            assert cancelling.result(30).json()["status"] == "cancelled"
        record = store.get_run("default", run_id)
        assert record is not None and record.status == "cancelled"
        with http.stream("GET", f"/v1/runs/{run_id}/events",
                         headers={"Last-Event-ID": str(paused[-1].seq)}) as r:
            tail = read_events(r)
        assert [(e.kind, getattr(e, "code", None)) for e in tail] == [("error", "run_cancelled")]


# -- threads -----------------------------------------------------------------------------


def test_threads_list_get_continue_delete(http: httpx.Client) -> None:
    first = http.post("/v1/ask", json={"question": "quick first"}).json()
    thread_id = first["thread_id"]
    second = http.post("/v1/ask", json={"question": "quick second", "thread_id": thread_id})
    assert second.json()["thread_id"] == thread_id
    listed = http.get("/v1/threads").json()["threads"]
    assert thread_id in [t["id"] for t in listed]
    detail = http.get(f"/v1/threads/{thread_id}").json()
    assert [t["question"] for t in detail["turns"]] == ["quick first", "quick second"]
    assert detail["title"] == "quick first"
    assert http.delete(f"/v1/threads/{thread_id}").status_code == 204
    gone = http.get(f"/v1/threads/{thread_id}")
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "unknown_thread"
    assert http.get(f"/v1/runs/{first['run_id']}").status_code == 404
    unknown = http.post("/v1/ask", json={"question": "quick", "thread_id": thread_id})
    assert unknown.status_code == 404


def test_a_thread_is_not_deleted_while_a_run_on_it_starts(tmp_path: Path) -> None:
    # Starting a run reads the thread, then registers the run: a delete in between used to
    # succeed, and the run wrote the thread back (without its earlier turns).
    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        thread_id = http.post("/v1/ask", json={"question": "quick one"}).json()["thread_id"]
        guard = app.state.citewise.manager.threads
        with guard.starting("default", thread_id):  # a start in progress
            busy = http.delete(f"/v1/threads/{thread_id}")
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "thread_busy"
        with guard.deleting("default", thread_id, live_run=False):  # a delete in progress
            refused = http.post("/v1/runs", json={"question": "quick two",
                                                  "thread_id": thread_id})
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "thread_busy"
        turns = http.get(f"/v1/threads/{thread_id}").json()["turns"]
        assert [t["question"] for t in turns] == ["quick one"]  # the refused run wrote nothing
        assert http.delete(f"/v1/threads/{thread_id}").status_code == 204
        assert http.get(f"/v1/threads/{thread_id}").status_code == 404


# -- documents, search, feedback, provenance ----------------------------------------------


def test_documents_upload_list_search_ask_delete(http: httpx.Client) -> None:
    up = http.post("/v1/documents", files={"file": ("returns.md", DOC.encode())},
                   data={"collection": "policies"})
    assert up.status_code == 201, up.text
    doc = up.json()["document"]
    assert up.json()["status"] == "added"
    assert doc["source"] == "returns.md"
    assert doc["collection"] == "policies"
    again = http.post("/v1/documents", files={"file": ("returns.md", DOC.encode())},
                      data={"collection": "policies"})
    assert again.status_code == 200 and again.json()["status"] == "unchanged"
    assert again.json()["document"]["id"] == doc["id"]
    ids = [d["id"] for d in http.get("/v1/documents").json()["documents"]]
    assert doc["id"] in ids
    full = http.get(f"/v1/documents/{doc['id']}", params={"text": "true"}).json()
    assert "14 days" in full["text"]
    hits = http.post("/v1/search", json={"query": "refunds issued", "k": 3}).json()["hits"]
    assert hits and hits[0]["document_id"] == doc["id"]
    assert hits[0]["source"] == "returns.md"
    assert full["text"][hits[0]["start_char"]:hits[0]["end_char"]] == hits[0]["text"]
    answer = http.post("/v1/ask", json={"question": "search refunds"}).json()
    assert answer["citations"], answer
    # Every search is counted, as in a library run (it was left empty over HTTP).
    details = answer["query_details"]
    assert details["queries"] == ["refunds issued days"]
    assert details["retrieved"] >= 1 and details["selected"] == len(answer["context_chunk_ids"])
    assert answer["search_documents"][0]["document"]["id"] == doc["id"]
    # What the answer cites is the uploaded file's name, never a path of the server.
    assert answer["search_documents"][0]["source"] == "returns.md"
    assert "/" not in json.dumps([d["source"] for d in answer["search_documents"]])
    assert http.delete(f"/v1/documents/{doc['id']}").status_code == 204
    assert http.get(f"/v1/documents/{doc['id']}").status_code == 404
    assert http.delete(f"/v1/documents/{doc['id']}").status_code == 404
    assert http.post("/v1/search", json={"query": "refunds issued"}).json()["hits"] == []


def test_upload_of_an_unreadable_format_is_refused(http: httpx.Client) -> None:
    r = http.post("/v1/documents", files={"file": ("image.bin", b"\x00\x01\x02")})
    assert r.status_code == 422
    assert r.json()["error"]["code"] in {"unsupported_format", "binary_file"}


def test_feedback_with_the_answers_token(http: httpx.Client) -> None:
    answer = http.post("/v1/ask", json={"question": "quick"}).json()
    token = answer["trajectory"]["feedback_token"]
    r = http.post("/v1/feedback", json={"token": token, "rating": 3, "comment": "spot on"})
    assert r.status_code == 201
    assert r.json()["run_id"] == answer["run_id"]
    listed = http.get("/v1/feedback", params={"run_id": answer["run_id"]}).json()["feedback"]
    assert [(f["rating"], f["comment"]) for f in listed] == [(3, "spot on")]
    twice = http.post("/v1/feedback", json={"token": token, "rating": 1})
    assert twice.status_code == 409
    forged = http.post("/v1/feedback", json={"token": token[:-4] + "AAAA", "rating": 1})
    assert forged.status_code == 422
    assert forged.json()["error"]["code"] == "feedback_token_invalid"
    # A token outlives its run: once the thread (and so the run) is deleted, it rates nothing.
    gone = http.post("/v1/ask", json={"question": "quick"}).json()
    assert http.delete(f"/v1/threads/{gone['thread_id']}").status_code == 204
    late = http.post("/v1/feedback", json={"token": gone["trajectory"]["feedback_token"],
                                           "rating": 2})
    assert late.status_code == 404 and late.json()["error"]["code"] == "unknown_run"
    assert http.get("/v1/feedback", params={"run_id": gone["run_id"]}).json()["feedback"] == []


def test_provenance_of_a_run(http: httpx.Client) -> None:
    answer = http.post("/v1/ask", json={"question": "quick"}).json()
    r = http.get(f"/v1/runs/{answer['run_id']}/provenance")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/turtle")
    assert f"urn:citewise:run:{answer['run_id']}" in r.text
    ld = http.get(f"/v1/runs/{answer['run_id']}/provenance", params={"format": "json-ld"})
    assert ld.headers["content-type"].startswith("application/ld+json")
    json.loads(ld.text)
    assert http.get("/v1/runs/run_nope/provenance").status_code == 404


# -- dialects, heartbeats ----------------------------------------------------------------


def test_format_parameter_selects_a_dialect(http: httpx.Client) -> None:
    with http.stream("POST", "/v1/runs", params={"format": "ag-ui"},
                     json={"question": "quick"}) as r:
        decoder = SSEDecoder()
        objs = [json.loads(e.data) for chunk in r.iter_bytes() for e in decoder.feed(chunk)]
    types = [o["type"] for o in objs]
    assert types[0] == "RUN_STARTED"
    assert types[-1] == "RUN_FINISHED"
    final = http.post("/v1/ask", params={"format": "trustgraph"}, json={"question": "quick"})
    assert final.json()["answer"] == "The answer is 42."
    bad = http.post("/v1/ask", params={"format": "klingon"}, json={"question": "quick"})
    assert bad.status_code == 422
    assert bad.json()["error"]["code"] == "validation_error"


def test_a_named_format_answers_with_its_final_response_and_the_run_headers(
        http: httpx.Client) -> None:
    # Seed 004: "the response of ask(), of a run() the model finished and of a resume()
    # that finished the run". Non-streamed /v1/runs and resume used to answer RunInfo
    # whatever the format, and /v1/ask in a format dropped the run's headers (a paused run
    # could not be resumed). A failed run is a 200 whose body says so, as the native
    # Answer's status does (the protocols' own routes answer 500, as their clients expect).
    paused = http.post("/v1/ask", params={"format": "trustgraph"},
                       json={"question": "approve refund"})
    assert paused.status_code == 200
    run_id = paused.headers["X-Run-Id"]
    assert paused.headers["Location"] == f"/v1/runs/{run_id}"
    assert paused.headers["X-Thread-Id"]
    info = http.get(f"/v1/runs/{run_id}").json()
    assert info["status"] == "paused"
    decision = {"interrupt_id": info["interrupts"][0]["id"], "action": "approve"}
    done = http.post(f"/v1/runs/{run_id}/resume", params={"format": "answer"},
                     json={"decisions": [decision], "stream": False})
    assert done.status_code == 200 and done.headers["X-Run-Id"] == run_id
    body = done.json()
    assert body["kind"] == "ANSWER" and body["text"] == "Refund done."
    assert body["threadId"] == paused.headers["X-Thread-Id"]
    ran = http.post("/v1/runs", params={"format": "answer"},
                    json={"question": "quick", "stream": False})
    assert ran.status_code == 200 and ran.json()["text"] == "The answer is 42."
    assert ran.json()["threadId"] == ran.headers["X-Thread-Id"]
    native = http.post("/v1/runs", json={"question": "quick", "stream": False}).json()
    assert native["status"] == "completed" and native["run_id"]  # RunInfo without a format
    failed = http.post("/v1/ask", params={"format": "answer"},
                       json={"question": "slow", "max_steps": 1})
    assert failed.status_code == 200 and failed.json()["kind"] == "ERROR"
    assert failed.headers["X-Run-Id"]


def test_format_names_are_the_dialect_registry() -> None:
    from typing import get_args

    from citewise.dialects import DIALECTS
    from citewise.server.routes.runs import FormatName

    assert list(get_args(FormatName)) == list(DIALECTS)


def test_heartbeats_keep_a_quiet_stream_open(http: httpx.Client) -> None:
    raw: list[str] = []
    with http.stream("POST", "/v1/runs", json={"question": "sleepy run"}) as r:
        events = read_events(r, raw=raw)
    assert_complete(events)
    assert ": ping\n\n" in "".join(raw)  # a 1 s quiet model turn > heartbeat_s=0.3


# -- the one error shape -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/runs"])
def test_a_bad_citewise_body_is_told_only_its_own_faults(http: httpx.Client,
                                                          path: str) -> None:
    # The body is also read as AG-UI's RunAgentInput (and, on /v1/runs, the AI SDK's):
    # an empty question came back as "threadId, runId, messages missing" (review).
    r = http.post(path, json={"question": ""})
    assert r.status_code == 422
    message = r.json()["error"]["message"]
    assert "question" in message
    assert not any(w in message for w in ("threadId", "runId", "messages"))
    agui = http.post(path, json={"threadId": "t", "runId": "r", "messages": []})
    assert agui.status_code == 422 and "messages" in agui.json()["error"]["message"]
    assert "question" not in agui.json()["error"]["message"]


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), [
    ("GET", "/v1/nowhere", None, 404, "not_found"),
    ("DELETE", "/v1/ask", None, 405, "method_not_allowed"),
    ("POST", "/v1/ask", {"question": ""}, 422, "validation_error"),
    ("POST", "/v1/ask", {"question": "   "}, 422, "empty_question"),
    ("POST", "/v1/ask", {"question": "q", "bogus": 1}, 422, "validation_error"),
    ("POST", "/v1/ask", {"question": "q", "output_schema": {"type": 12}}, 422,
     "invalid_output_schema"),
    ("POST", "/v1/ask", {"question": "q", "output_schema": {"$ref": "#/definitions/no"}},
     422, "invalid_output_schema"),
    ("GET", "/v1/runs/run_unknown", None, 404, "unknown_run"),
    ("GET", "/v1/runs/run_unknown/events", None, 404, "unknown_run"),
    ("POST", "/v1/runs/run_unknown/cancel", None, 404, "unknown_run"),
    ("GET", "/v1/threads/nope", None, 404, "unknown_thread"),
    ("GET", "/v1/documents/nope", None, 404, "unknown_document"),
])
def test_errors_have_one_shape(http: httpx.Client, method: str, path: str,
                               body: dict[str, Any] | None, status: int, code: str) -> None:
    r = http.request(method, path, json=body)
    assert r.status_code == status
    payload = r.json()
    assert set(payload) == {"error"}
    assert set(payload["error"]) == {"code", "message", "details"}
    assert payload["error"]["code"] == code
    assert "Traceback" not in r.text


def test_bad_last_event_id_is_refused(http: httpx.Client) -> None:
    answer = http.post("/v1/ask", json={"question": "quick"}).json()
    r = http.get(f"/v1/runs/{answer['run_id']}/events", headers={"Last-Event-ID": "abc"})
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert r.json()["error"]["details"]["errors"][0]["loc"] == ["header", "Last-Event-ID"]


def test_health(http: httpx.Client) -> None:
    assert http.get("/healthz").json()["status"] == "ok"
    assert http.get("/readyz").json()["status"] == "ready"


# -- a second process sharing the database ------------------------------------------------


@pytest.mark.slow
def test_a_run_is_tailed_from_another_server_sharing_the_store(tmp_path: Path) -> None:
    with serve(make_app(tmp_path)) as a, serve(make_app(tmp_path)) as b, \
            httpx.Client(timeout=30) as http:
        info = http.post(f"{a}/v1/runs", json={"question": "slow run",
                                               "background": True}).json()
        time.sleep(0.3)
        # Server B never ran it: it polls the shared log.
        with http.stream("GET", f"{b}/v1/runs/{info['run_id']}/events") as r:
            first = read_events(r, limit=3)
        with http.stream("GET", f"{b}/v1/runs/{info['run_id']}/events",
                         headers={"Last-Event-ID": str(first[-1].seq)}) as r:
            rest = read_events(r)
        assert_complete(first + rest)
        with http.stream("GET", f"{a}/v1/runs/{info['run_id']}/events") as r:
            local = read_events(r)
        assert [e.model_dump() for e in local] == [e.model_dump() for e in first + rest]
        # B can cancel a run that A drives (through the store).
        info = http.post(f"{a}/v1/runs", json={"question": "slow run",
                                               "background": True}).json()
        time.sleep(0.3)
        status = http.post(f"{b}/v1/runs/{info['run_id']}/cancel").json()["status"]
        assert status == "cancelled"
        with http.stream("GET", f"{b}/v1/runs/{info['run_id']}/events") as r:
            events = read_events(r)
        assert_complete(events)
        assert events[-1].code == "run_cancelled"  # type: ignore[union-attr]


def test_live_runs_share_the_managers_cancel_watch(tmp_path: Path) -> None:
    # Each run's agent is its own: a cancel watch per agent was a task per run, waking
    # every 0.2 s for the run's whole life. The manager's one watcher serves them all.
    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        ids = [http.post("/v1/runs", json={"question": f"wait {i}", "background": True}
                         ).json()["run_id"] for i in range(4)]
        manager = app.state.citewise.manager
        deadline = time.monotonic() + 10
        while not all((live := manager.get_live("default", i)) is not None
                      and live.last_seq >= live.first_seq for i in ids):
            assert time.monotonic() < deadline, "the runs did not start"
            time.sleep(0.05)
        loop = manager.get_live("default", ids[0]).task.get_loop()

        async def coroutines() -> list[str]:
            return [t.get_coro().__qualname__ for t in asyncio.all_tasks()]

        running = asyncio.run_coroutine_threadsafe(coroutines(), loop).result(10)
        assert running.count("RemoteCancels._watch") == 1
        assert "CancelWatch._poll" not in running
        assert running.count("RunManager._drive") == 4
        # A request another process wrote stops the run it names, and only it, though the
        # run is in a 30 s tool call (as a local cancel: the flag, then the task).
        from citewise.agent.cancels import cancel_run

        assert cancel_run(manager.store, "default", ids[0])
        t0 = time.monotonic()
        events = read_events(http.get(f"/v1/runs/{ids[0]}/events"))
        assert events[-1].kind == "error" and events[-1].code == "run_cancelled"
        assert time.monotonic() - t0 < 15
        assert {http.get(f"/v1/runs/{i}").json()["status"] for i in ids[1:]} == {"running"}
        for i in ids[1:]:
            http.post(f"/v1/runs/{i}/cancel")


def test_a_stream_of_a_run_whose_log_cannot_be_written_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The run's outcome cannot be written (a full disk): the stream must end without the
    # events the writer could not make durable, and the run reads `failed` — it was
    # followed from the store instead, heartbeats forever, and read `running`.
    from citewise.store.sqlite import SQLiteStore

    save = SQLiteStore.save_run

    def refusing(self: SQLiteStore, run: Any) -> None:
        if run.status == "completed":
            raise OSError("disk full")
        save(self, run)

    monkeypatch.setattr(SQLiteStore, "save_run", refusing)
    with serve(make_app(tmp_path)) as url, httpx.Client(base_url=url, timeout=30) as http:
        lines: list[str] = []
        ids: list[str] = []

        def read() -> None:
            with http.stream("POST", "/v1/runs", json={"question": "quick"}) as r:
                ids.append(r.headers["x-run-id"])
                lines.extend(r.iter_lines())

        reader = threading.Thread(target=read, daemon=True)  # a hang must not hang the suite
        reader.start()
        reader.join(20)
        assert not reader.is_alive(), "the stream did not end"
        run_id = ids[0]
        kinds = [json.loads(line[5:])["kind"] for line in lines if line.startswith("data:")]
        assert "run_finished" not in kinds
        assert http.get(f"/v1/runs/{run_id}").json()["status"] == "failed"


def test_a_tail_rides_out_a_database_outage(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A store read failing mid-stream (the database restarting) crashed the response
    # after it had started: a traceback in the log and a cut chunked stream.
    import sqlalchemy as sa

    from citewise.server import tail

    app = make_app(tmp_path, retain_s=0.0)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        run_id = client.post("/v1/ask", json={"question": "quick"}).headers["X-Run-Id"]
        store = app.state.citewise.services.store
        real = store.read_events
        outage = {"left": 2}

        def flaky(*args: Any, **kwargs: Any) -> Any:
            if outage["left"]:
                outage["left"] -= 1
                raise sa.exc.OperationalError("SELECT", {}, Exception("server closed"))
            return real(*args, **kwargs)

        monkeypatch.setattr(store, "read_events", flaky)
        with client.stream("GET", f"/v1/runs/{run_id}/events") as r:
            events = read_events(r)
        assert_complete(events)  # every event, once, after the database came back
        assert outage["left"] == 0
        outage["left"] = 10**6  # and one that does not come back: the stream just ends
        monkeypatch.setattr(tail, "OUTAGE_S", 0.3)
        with client.stream("GET", f"/v1/runs/{run_id}/events") as r:
            assert r.status_code == 200
            assert list(r.iter_bytes())  # heartbeats, then a clean end of the stream


def test_a_run_rides_out_a_short_database_outage(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A write failing for a few seconds (the database restarting) marked the run broken
    # at once while its tools went on; another replica then ended it as run_lost and its
    # later events still landed after that terminal event.
    import sqlalchemy as sa

    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        store = app.state.citewise.services.store
        real = store.append_events
        window = {"until": 0.0, "refused": 0}

        def flaky(*args: Any, **kwargs: Any) -> Any:
            if time.monotonic() < window["until"]:
                window["refused"] += 1
                raise sa.exc.OperationalError("INSERT", {}, Exception("server closed"))
            return real(*args, **kwargs)

        monkeypatch.setattr(store, "append_events", flaky)
        with client.stream("POST", "/v1/runs", json={"question": "slow run"}) as r:
            reader = Reader(r)
            first = reader.read(2)
            window["until"] = time.monotonic() + 1.0  # the database goes away for 1 s
            events = first + reader.read()
        assert window["refused"] > 0
        assert_complete(events)
        assert events[-1].kind == "run_finished"
        run_id = events[0].run_id
        stored = store.read_events("default", run_id, limit=1000)
        assert [e.seq for e in stored] == [e.seq for e in events]
        assert client.get(f"/v1/runs/{run_id}").json()["status"] == "completed"


def test_a_run_whose_log_cannot_be_written_is_stopped(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # Its tools went on running, unrecorded, after the run had been reported lost.
    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        store = app.state.citewise.services.store

        def broken(*args: Any, **kwargs: Any) -> None:
            raise ValueError("disk full")

        monkeypatch.setattr(store, "append_events", broken)
        r = client.post("/v1/ask", json={"question": "wait a while"})
        assert r.status_code == 500 and r.json()["error"]["code"] == "run_lost"
        live = app.state.citewise.manager.get_live("default", r.headers["X-Run-Id"])
        assert live is not None and live.broken
        deadline = time.monotonic() + 5
        while not (live.task is not None and live.task.done()):
            assert time.monotonic() < deadline, "the run's 30 s tool call went on"
            time.sleep(0.05)


def test_a_run_of_another_process_reports_how_far_its_log_got(tmp_path: Path) -> None:
    # GET /v1/runs/{id} read last_seq from the record's state, saved when the run started:
    # 0 for a run another replica was still driving, whatever its log held.
    from citewise.store.base import EventRecord, RunRecord

    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        store = app.state.citewise.services.store
        now = datetime.now(UTC)
        store.create_thread("default", "th_elsewhere")
        store.save_run(RunRecord(id="run_elsewhere", tenant="default", thread_id="th_elsewhere",
                                 question="q", status="running", state={"seq": 1},
                                 answer=None, created_at=now, updated_at=now))
        store.append_events("default", [EventRecord("run_elsewhere", s, "answer_delta",
                                                    {"text": "x"}) for s in (1, 2, 3)])
        info = client.get("/v1/runs/run_elsewhere").json()
        assert info["status"] == "running" and info["last_seq"] == 3
