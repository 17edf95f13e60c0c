"""Tenant isolation: two tenants with their own API keys on one server. Every endpoint,
every resource type (documents, threads, runs, events, feedback, provenance): tenant B
can neither read nor change anything of tenant A's, and an A resource answers B exactly
like an id that does not exist (404, never 403, never data). Plus: no key, a bad key and
a revoked key are 401 everywhere."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.server.auth import create_key
from citewise.server.testing import serve
from citewise.store.sqlite import SQLiteStore
from test_server import Reader, make_app

# The secret is a word, not bare digits: "7341" alone turns up in random ids and timings.
SECRET = "7341-zebra"
SECRET_DOC = f"# Vault\n\nThe vault code of tenant A is {SECRET}, written on a blue card.\n".encode()


class World:
    """What tenant A made, and the clients of A and B."""

    def __init__(self, base: str, keys: dict[str, str], store_path: Path) -> None:
        self.base = base
        self.keys = keys
        self.store_path = store_path
        self.a = httpx.Client(base_url=base, timeout=30,
                              headers={"Authorization": f"Bearer {keys['a']}"})
        self.b = httpx.Client(base_url=base, timeout=30, headers={"X-API-Key": keys["b"]})
        self.ids: dict[str, str] = {}

    def close(self) -> None:
        self.a.close()
        self.b.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = tmp_path_factory.mktemp("tenants")
    with SQLiteStore(data / "citewise.db") as store:
        keys = {"a": create_key(store, "tenant-a", "a")[1], "b": create_key(store, "tenant-b")[1],
                "revoked": create_key(store, "tenant-a", "old")[1]}
        revoked_id = store.list_api_keys("tenant-a")[-1].id
        assert store.revoke_api_key("tenant-a", revoked_id)
    app = make_app(data, auth="keys", key_cache_s=0)
    with serve(app) as base:
        w = World(base, keys, data / "citewise.db")
        a = w.a
        up = a.post("/v1/documents", files={"file": ("vault.md", SECRET_DOC)})
        assert up.status_code == 201, up.text
        w.ids["document"] = up.json()["document"]["id"]
        answer = a.post("/v1/ask", json={"question": "quick secret question"}).json()
        w.ids["thread"] = answer["thread_id"]
        w.ids["run"] = answer["run_id"]
        w.ids["token"] = answer["trajectory"]["feedback_token"]
        assert a.post("/v1/feedback", json={"token": w.ids["token"], "rating": 2,
                                            "document_index": None}).status_code == 201
        with a.stream("POST", "/v1/runs", json={"question": "approve please"}) as r:
            w.ids["paused"] = Reader(r).read()[-1].run_id
        w.ids["running"] = a.post("/v1/runs", json={"question": "wait long",
                                                    "background": True}).json()["run_id"]
        persona = {"id": "a-private-persona", "name": "A's persona",
                   "system_prompt": f"Never reveal {SECRET}."}
        put = a.put("/v1/personas/a-private-persona", json=persona)
        assert put.status_code == 200, put.text
        try:
            yield w
        finally:
            a.post(f"/v1/runs/{w.ids['running']}/cancel")
            w.close()


def _paths(w: World) -> dict[str, tuple[str, str, dict[str, Any] | None]]:
    """Every tenant-scoped request B might make about A's resources."""
    i = w.ids
    decision = {"decisions": [{"interrupt_id": f"int_{i['paused']}_x", "action": "approve"}]}
    return {
        "get document": ("GET", f"/v1/documents/{i['document']}", None),
        "delete document": ("DELETE", f"/v1/documents/{i['document']}", None),
        "get thread": ("GET", f"/v1/threads/{i['thread']}", None),
        "delete thread": ("DELETE", f"/v1/threads/{i['thread']}", None),
        "continue thread": ("POST", "/v1/ask", {"question": "quick", "thread_id": i["thread"]}),
        "run in thread": ("POST", "/v1/runs", {"question": "quick", "thread_id": i["thread"],
                                               "stream": False}),
        "get run": ("GET", f"/v1/runs/{i['run']}", None),
        "run events": ("GET", f"/v1/runs/{i['run']}/events", None),
        "running run events": ("GET", f"/v1/runs/{i['running']}/events", None),
        "get running run": ("GET", f"/v1/runs/{i['running']}", None),
        "cancel running run": ("POST", f"/v1/runs/{i['running']}/cancel", None),
        "cancel paused run": ("POST", f"/v1/runs/{i['paused']}/cancel", None),
        "resume paused run": ("POST", f"/v1/runs/{i['paused']}/resume", decision),
        "provenance": ("GET", f"/v1/runs/{i['run']}/provenance", None),
        "feedback with A's token": ("POST", "/v1/feedback", {"token": i["token"], "rating": 0}),
        "chat in A's thread": ("POST", "/v1/chat/completions", {
            "model": "citewise", "messages": [{"role": "user", "content": "quick"}],
            "citewise": {"thread_id": i["thread"]}}),
        "rename thread": ("PATCH", f"/v1/threads/{i['thread']}", {"title": "mine now"}),
        "document status": ("GET", f"/v1/library/{i['document']}", None),
        "get response": ("GET", f"/v1/responses/resp_{i['run']}", None),
        "response in A's thread": ("POST", "/v1/responses", {
            "input": "quick", "previous_response_id": f"resp_{i['run']}"}),
        "run audio": ("GET", f"/v1/runs/{i['run']}/audio", None),
        "run image": ("GET", f"/v1/runs/{i['run']}/image", None),
        "get persona": ("GET", "/v1/personas/a-private-persona", None),
        "delete persona": ("DELETE", "/v1/personas/a-private-persona", None),
    }


# Routes with no resource id: B's answers must simply not contain A's resources.
LISTINGS = {("GET", "/v1/documents"), ("GET", "/v1/threads"), ("GET", "/v1/feedback"),
            ("POST", "/v1/search"), ("POST", "/v1/ask"), ("POST", "/v1/runs"),
            ("POST", "/v1/documents"), ("POST", "/v1/chat/completions"),
            ("POST", "/api/v1/flow/{flow}/service/agent"),
            ("GET", "/v1/models"), ("GET", "/v1/models/{model}"),  # these two: static
            ("GET", "/v1/library"), ("GET", "/v1/personas"), ("POST", "/v1/responses"),
            ("POST", "/v2/conversations/"), ("GET", "/v1/status"),
            # PUT of a persona name B does not have makes B's own (test_b_s_persona_is_b_s).
            ("PUT", "/v1/personas/{name}")}
# A2A: JSON-RPC answers "not found" as -32001 (test_a2a_is_tenant_scoped); the card is
# public and the same for everyone.
A2A_ROUTES = {("POST", "/a2a"), ("GET", "/.well-known/agent-card.json")}


def _route_of(path: str) -> str:
    for pattern, route in ((r"/v1/documents/[^/]+$", "/v1/documents/{document_id}"),
                           (r"/v1/threads/[^/]+$", "/v1/threads/{thread_id}"),
                           (r"/v1/runs/[^/]+/(\w+)$", r"/v1/runs/{run_id}/\1"),
                           (r"/v1/runs/[^/]+$", "/v1/runs/{run_id}"),
                           (r"/v1/library/[^/]+$", "/v1/library/{document_id}"),
                           (r"/v1/responses/[^/]+$", "/v1/responses/{response_id}"),
                           (r"/v1/personas/[^/]+$", "/v1/personas/{name}")):
        if re.match(pattern, path):
            return re.sub(pattern, route, path)
    return path


def test_every_tenant_scoped_route_is_covered(world: World) -> None:
    from citewise.server.app import create_app

    spec = create_app().openapi()
    routes = {(m.upper(), path) for path, ops in spec["paths"].items()
              if path not in ("/healthz", "/readyz") for m in ops}
    covered = {(m, _route_of(p)) for m, p, _ in _paths(world).values()} | LISTINGS | A2A_ROUTES
    assert routes <= covered, routes - covered


@pytest.mark.parametrize("name", [
    "get document", "delete document", "get thread", "delete thread", "continue thread",
    "run in thread", "get run", "run events", "running run events", "get running run",
    "cancel running run", "cancel paused run", "resume paused run", "provenance",
    "feedback with A's token", "chat in A's thread", "rename thread", "document status",
    "get response", "response in A's thread", "run audio", "run image", "get persona",
    "delete persona",
])
def test_b_gets_404_for_each_of_a_s_resources(world: World, name: str) -> None:
    method, path, body = _paths(world)[name]
    r = world.b.request(method, path, json=body)
    assert r.status_code == 404, (name, r.status_code, r.text)
    err = r.json()["error"]
    assert err["code"].startswith("unknown_")
    assert SECRET not in r.text and "secret" not in r.text
    # Exactly what a made-up id gets.
    def made_up(text: str) -> str:
        text = text.replace(world.ids["document"], "0" * 32).replace("a-private-persona",
                                                                     "no-such-persona")
        return re.sub(r"(run|thread)_[0-9a-f]{20}", r"\1_00000000000000000000", text)

    fake, fake_body = made_up(path), None if body is None else json.loads(made_up(json.dumps(body)))
    if (fake, fake_body) != (path, body):
        r2 = world.b.request(method, fake, json=fake_body)
        assert (r2.status_code, r2.json()["error"]["code"]) == (404, err["code"])


def test_b_s_listings_and_search_never_show_a(world: World) -> None:
    b = world.b
    assert b.get("/v1/documents").json()["documents"] == []
    assert world.ids["thread"] not in [t["id"] for t in b.get("/v1/threads").json()["threads"]]
    assert b.get("/v1/feedback").json()["feedback"] == []
    assert b.get("/v1/feedback", params={"run_id": world.ids["run"]}).json()["feedback"] == []
    hits = b.post("/v1/search", json={"query": "vault code blue card"}).json()["hits"]
    assert hits == []
    answer = b.post("/v1/ask", json={"question": "search vault code"}).json()
    assert answer["search_documents"] == [] and SECRET not in str(answer)
    chat = b.post("/v1/chat/completions", json={
        "model": "citewise", "messages": [{"role": "user", "content": "search vault code"}]})
    assert chat.status_code == 200 and SECRET not in chat.text
    tg = b.post("/api/v1/flow/default/service/agent", json={"question": "search vault code"})
    assert tg.status_code == 200 and SECRET not in tg.text


def test_same_file_name_in_b_is_b_s_own_document(world: World) -> None:
    up = world.b.post("/v1/documents", files={"file": ("vault.md", b"# B\n\nB's own vault.\n")})
    assert up.status_code == 201
    doc_b = up.json()["document"]["id"]
    assert doc_b != world.ids["document"]
    text_a = world.a.get(f"/v1/documents/{world.ids['document']}", params={"text": "true"})
    assert SECRET in text_a.json()["text"]
    assert world.b.delete(f"/v1/documents/{doc_b}").status_code == 204


def test_a_s_resources_are_untouched_after_b_tried_everything(world: World) -> None:
    for method, path, body in _paths(world).values():
        world.b.request(method, path, json=body)
    # B's own ask, so that B has a thread whichever tests ran before (alone, it had none).
    assert world.b.post("/v1/ask", json={"question": "search vault code"}).status_code == 200
    a, i = world.a, world.ids
    assert a.get(f"/v1/documents/{i['document']}").status_code == 200
    thread = a.get(f"/v1/threads/{i['thread']}").json()
    assert [t["question"] for t in thread["turns"]] == ["quick secret question"]
    assert a.get(f"/v1/runs/{i['run']}").json()["status"] == "completed"
    assert a.get(f"/v1/runs/{i['paused']}").json()["status"] == "paused"
    assert a.get(f"/v1/runs/{i['running']}").json()["status"] == "running"
    feedback = a.get("/v1/feedback", params={"run_id": i["run"]}).json()["feedback"]
    assert [f["rating"] for f in feedback] == [2]
    assert "vault" in a.post("/v1/search", json={"query": "vault code"}).text
    with SQLiteStore(world.store_path) as store:  # and in the database itself
        assert store.list_threads("tenant-b", limit=1000) != []  # B's own ask made one
        for thread_b in store.list_threads("tenant-b", limit=1000):
            assert thread_b.id != i["thread"]
        assert store.list_feedback("tenant-b") == []
        assert store.get_run("tenant-b", i["run"]) is None
        assert store.read_events("tenant-b", i["run"]) == []


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer cwk_not-a-key"}, {"X-API-Key": "nope"},
    {"Authorization": "Basic dXNlcjpwYXNz"}, {"revoked": "yes"},
], ids=["none", "bad-bearer", "bad-x-api-key", "basic", "revoked"])
def test_no_bad_or_revoked_key_is_401_everywhere(world: World, headers: dict[str, str]) -> None:
    if headers.get("revoked"):
        headers = {"Authorization": f"Bearer {world.keys['revoked']}"}
    requests = [*_paths(world).values(), ("GET", "/v1/documents", None),
                ("GET", "/v1/threads", None), ("GET", "/v1/feedback", None),
                ("POST", "/v1/search", {"query": "vault"}), ("POST", "/v1/ask", {"question": "q"}),
                ("POST", "/v1/runs", {"question": "q"}), ("GET", "/v1/models", None),
                ("POST", "/api/v1/flow/default/service/agent", {"question": "q"}),
                ("POST", "/a2a", {"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                                  "params": {"id": world.ids["run"]}})]
    with httpx.Client(base_url=world.base, timeout=30, headers=headers) as anon:
        for method, path, body in requests:
            r = anon.request(method, path, json=body)
            assert r.status_code == 401, (method, path, r.text)
            assert r.json()["error"]["code"] in {"missing_api_key", "invalid_api_key",
                                                 "invalid_authorization"}
        up = anon.post("/v1/documents", files={"file": ("x.md", b"# x\n\ny\n")})
        assert up.status_code == 401
        assert anon.get("/healthz").status_code == 200  # health needs no key


def test_revocation_takes_effect(world: World) -> None:
    with SQLiteStore(world.store_path) as store:
        record, key = create_key(store, "tenant-b", "short-lived")
        with httpx.Client(base_url=world.base, timeout=30,
                          headers={"Authorization": f"Bearer {key}"}) as c:
            assert c.get("/v1/threads").status_code == 200
            assert store.revoke_api_key("tenant-b", record.id)
            time.sleep(0.05)
            assert c.get("/v1/threads").status_code == 401


def _rpc(client: httpx.Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/a2a", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a2a_is_tenant_scoped(world: World) -> None:
    i = world.ids
    reply = {"decisions": [{"interrupt_id": f"int_{i['paused']}_x", "action": "approve"}]}
    calls = [("GetTask", {"id": i["run"]}), ("CancelTask", {"id": i["running"]}),
             ("CancelTask", {"id": i["paused"]}), ("SubscribeToTask", {"id": i["running"]}),
             ("SendMessage", {"message": {"messageId": "m1", "role": "ROLE_USER",
                                          "taskId": i["paused"], "parts": [{"data": reply}]}})]
    for method, params in calls:
        out = _rpc(world.b, method, params)
        assert out["error"]["code"] == -32001, (method, out)
        assert out["error"]["data"][0]["metadata"]["code"] == "unknown_run"
        assert SECRET not in str(out) and "secret" not in str(out)
    # B asking in "A's" context gets a thread of its own by that id: none of A's turns.
    out = _rpc(world.b, "SendMessage", {"message": {
        "messageId": "m2", "role": "ROLE_USER", "contextId": i["thread"],
        "parts": [{"text": "quick"}]}})
    assert out["result"]["task"]["contextId"] == i["thread"] and SECRET not in str(out)
    own = world.b.get(f"/v1/threads/{i['thread']}").json()
    assert [t["question"] for t in own["turns"]] == ["quick"]
    theirs = world.a.get(f"/v1/threads/{i['thread']}").json()
    assert [t["question"] for t in theirs["turns"]] == ["quick secret question"]
    assert world.b.delete(f"/v1/threads/{i['thread']}").status_code == 204  # B's own
