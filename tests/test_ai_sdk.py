"""The Vercel AI SDK (issue 26, item 6): ``?format=ai-sdk`` speaks the UI message stream, and
a stock chat client — the ``ai`` npm package's ``DefaultChatTransport`` (what ``useChat``
sends through) and its own ``readUIMessageStream`` — runs unchanged against a live server on
127.0.0.1: the assembled assistant message has the answer text, the agent's reasoning and
tool calls, a ``source-document`` part per cited document and the citations on the text
part; the chat id is the thread (a second message continues it; a new chat's earlier
messages become its history); a failed run reaches the client's ``onError``.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from _node_clients import NODE, NODE_MODULES, node_module
from citewise.dialects import get_dialect
from citewise.events import RunFinished
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects_run import completed, paused, policy_kb
from test_openai_responses import TEXT, Routed, issue_refund, lookup_order

CLIENT = NODE_MODULES.parent.parent.parent / "tests" / "clients" / "ai_sdk_chat.mjs"
Obj = dict[str, Any]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = policy_kb(tmp_path_factory.mktemp("ai_sdk"))
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, retain_s=1.0,
                          poll_interval_s=0.05)
    with serve(create_app(config, model=Routed, tools=[lookup_order, issue_refund])) as url:
        yield url


def user(text: str) -> Obj:
    return {"id": uuid.uuid4().hex, "role": "user", "parts": [{"type": "text", "text": text}]}


def chat_client(base: str, chats: list[Obj]) -> list[Obj]:
    node_module("ai")
    out = subprocess.run([NODE, str(CLIENT), str(NODE_MODULES), f"{base}/v1/runs?format=ai-sdk",
                          json.dumps(chats)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    results: list[Obj] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def _text(message: Obj) -> str:
    return "".join(p["text"] for p in message["parts"] if p["type"] == "text")


@pytest.mark.slow
def test_use_chat_transport_and_reader(base: str) -> None:
    chat, fresh = f"chat-{uuid.uuid4().hex[:12]}", f"chat-{uuid.uuid4().hex[:12]}"
    first_q = user("How fast are refunds?")
    results = chat_client(base, [
        {"id": chat, "messages": [first_q]},
        {"id": chat, "messages": [first_q, {"id": "a1", "role": "assistant",
                                            "parts": [{"type": "text", "text": "(old)"}]},
                                  user("How fast again?")]},
        {"id": fresh, "messages": [user("Hi"), {"id": "a0", "role": "assistant", "parts": [
            {"type": "text", "text": "Hello."}]}, user("How fast are refunds?")]},
        {"id": f"chat-{uuid.uuid4().hex[:12]}", "messages": [user("Where is A-17?")]},
        {"id": f"chat-{uuid.uuid4().hex[:12]}", "messages": [user("Refund order A-17 please")]},
    ])
    message, errors = results[0]["message"], results[0]["errors"]
    assert errors == []
    assert message["role"] == "assistant" and message["id"].startswith("msg_run_")
    assert _text(message) == TEXT
    sources = [p for p in message["parts"] if p["type"] == "source-document"]
    assert [s["filename"].rsplit("/", 1)[-1] for s in sources] == ["refunds.md", "shipping.md"]
    for s in sources:
        doc = httpx.get(f"{base}/v1/documents/{s['sourceId']}", params={"text": "true"}).json()
        assert doc["source"] == s["filename"]
        for c in s["providerMetadata"]["citewise"]["citations"]:
            assert doc["text"][c["startChar"]:c["endChar"]] == c["excerpt"]
    [text_part] = [p for p in message["parts"] if p["type"] == "text"]
    assert text_part["state"] == "done"
    cites = text_part["citations"]
    assert [c["source"]["id"] for c in cites] == [s["sourceId"] for s in sources]
    for c, marker in zip(cites, ("[1]", "[2]"), strict=True):
        claim = TEXT[c["startIndex"]:c["endIndex"]]  # ASCII text: UTF-16 = code points
        assert marker in claim and c["citedText"]
    tools = [p for p in message["parts"] if p["type"] == "dynamic-tool"]
    assert [t["toolName"] for t in tools] == ["search_knowledge", "search_knowledge",
                                              "lookup_order"]
    assert all(t["state"] == "output-available" and t["providerExecuted"] for t in tools)
    assert tools[0]["input"] == {"query": "refund"} and "shipped" in tools[2]["output"]
    assert [p["text"] for p in message["parts"] if p["type"] == "reasoning"] == [
        "Search the refund policy.", "And shipping."]
    assert message["metadata"]["threadId"] == chat and message["metadata"]["status"] == "completed"
    # The chat id is the thread: the second message continued it (the page's copy of the
    # earlier messages is not imported twice); a new chat's history was imported.
    assert results[1]["errors"] == [] and _text(results[1]["message"]) == TEXT
    turns = httpx.get(f"{base}/v1/threads/{chat}").json()["turns"]
    assert [t["question"] for t in turns] == ["How fast are refunds?", "How fast again?"]
    turns = httpx.get(f"{base}/v1/threads/{fresh}").json()["turns"]
    assert [(t["question"], t["answer"]) for t in turns] == [
        ("Hi", "Hello."), ("How fast are refunds?", TEXT)]
    failed = results[3]
    assert any("model_error" in e for e in failed["errors"]), failed
    # A paused run: the call waits for approval, as the AI SDK's approval flow shows it.
    paused_msg = results[4]["message"]
    [pending] = [p for p in paused_msg["parts"] if p["type"] == "dynamic-tool"]
    assert pending["toolName"] == "issue_refund" and pending["state"] == "approval-requested"
    assert pending["approval"]["id"] == paused_msg["metadata"]["interrupts"][0]["id"]
    assert paused_msg["metadata"]["status"] == "paused"


def test_stream_header_frames_and_done(base: str) -> None:
    with httpx.stream("POST", f"{base}/v1/runs", params={"format": "ai-sdk"},
                      json={"question": "How fast are refunds?"}, timeout=30) as r:
        assert r.status_code == 200
        assert r.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert r.headers["content-type"].startswith("text/event-stream")
        body = r.read().decode()
    frames = [f[len("data: "):] for f in body.split("\n\n") if f.startswith("data: ")]
    assert frames[-1] == "[DONE]"
    chunks = [json.loads(f) for f in frames[:-1]]
    types = [c["type"] for c in chunks]
    assert types[0] == "start" and types[-1] == "finish" and types[1] == "start-step"
    assert types.count("text-start") == types.count("text-end") == 1
    assert types.count("reasoning-start") == types.count("reasoning-end") == 2
    assert types.count("tool-input-available") == types.count("tool-output-available") == 3
    assert types.count("start-step") == types.count("finish-step")
    assert types.count("source-document") == 2
    assert chunks[-1]["finishReason"] == "stop"


def test_pause_is_an_approval_request_and_final_is_the_ui_message() -> None:
    objs = list(get_dialect("ai-sdk").stream(paused()))
    last = paused()[-1]
    assert objs[-1]["type"] == "finish" and objs[-1]["finishReason"] == "tool-calls"
    [approval] = [o for o in objs if o["type"] == "tool-approval-request"]
    assert approval["approvalId"] == last.interrupts[0].id  # type: ignore[union-attr]
    call = approval["toolCallId"]
    assert any(o["type"] == "tool-input-available" and o["toolCallId"] == call for o in objs)
    done = completed()[-1]
    assert isinstance(done, RunFinished)
    final = get_dialect("ai-sdk").final(done.answer)
    assert final["role"] == "assistant" and final["id"] == f"msg_{done.run_id}"
    kinds = [p["type"] for p in final["parts"]]
    assert kinds.count("text") == 1 and kinds.count("source-document") == 2
    assert "dynamic-tool" in kinds and "reasoning" in kinds
    streamed = [o for o in get_dialect("ai-sdk").stream(completed())
                if o["type"] == "source-document"]
    assert [p for p in final["parts"] if p["type"] == "source-document"] == streamed
