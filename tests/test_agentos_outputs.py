"""The AgentOS seed's remaining fields (issue 26, item 7) against a live server on 127.0.0.1:
``finalUiCommands`` (an ``open_citation`` per citation, and a tool's own commands),
``updatedConversationContext`` (the thread's turns, as ``@framers/agentos``'s own
``ConversationContext.fromJSON`` reads them), ``audioOutput`` (``espeak-ng`` WAV at a
same-server URL; ``speech_engine_missing`` without it), ``imageOutput`` (the cited PDF
region, highlighted, rendered by pypdfium2), personas (config file and API, ``personaId``,
``activePersonaDetails``, the persona's prompt, tools and search settings reaching the
model); every final chunk still valid against the seed's schema, and ``tsc --strict``
accepting it as ``AgentOSFinalResponseChunk`` with all the new fields present.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import uuid
import zlib
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from _models import question_and_turn
from _node_clients import NODE, NODE_MODULES, node_module
from citewise.agent.tools import tool
from citewise.models.base import ModelRequest, SystemMessage
from citewise.models.scripted import Part, ScriptedModel, answer, call
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve
from test_dialects import validator
from test_dialects_run import policy_kb

Obj = dict[str, Any]
REFUND = "Refunds are issued within **14 days** of the return [1]."
WARRANTY = "Warranty claims are handled within thirty days of purchase [1]."
PERSONAS = '''
[[personas]]
id = "terse"
name = "Terse support"
description = "Short answers."
system_prompt = "Answer in one sentence, citing the handbook."
tools = ["search_knowledge"]
guardrails = ["prompt_injection"]
retrieval = { k = 2 }
language = "en-GB"
'''


@tool
def show_order(order_id: str) -> dict[str, Any]:
    """Look an order up and show it on the page.

    Args:
        order_id: The order number.
    """
    return {"order_id": order_id, "status": "shipped", "ui_commands": [
        {"commandId": "show_order", "targetElementId": "order-panel",
         "payload": {"orderId": order_id}}]}


@tool(requires_approval=True)
def refund_order(order_id: str) -> str:
    """Refund an order (needs a human's approval).

    Args:
        order_id: The order number.
    """
    return f"refunded {order_id}"


SCRIPTS: dict[str, list[Any]] = {
    "refunds": [[call("search_knowledge", query="refund")], [answer(REFUND)]],
    "warranty": [[call("search_knowledge", query="warranty thirty days")], [answer(WARRANTY)]],
    "order": [[call("show_order", order_id="A-17")], [call("search_knowledge", query="refund")],
              [answer(REFUND)]],
    "broken": [[call("show_order", order_id="A-17")]],  # then no turn left: model_error
    "pay": [[call("refund_order", order_id="A-17")], [call("search_knowledge", query="refund")],
            [answer(REFUND)]],
    "ship": [[call("show_order", order_id="A-17")], [call("refund_order", order_id="A-17")],
             [call("search_knowledge", query="refund")], [answer(REFUND)]],
}


class Routed:
    """Stateless scripted model (first word of the question); keeps every request."""

    name = "scripted-1"
    seen: ClassVar[list[ModelRequest]] = []

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        Routed.seen.append(request)
        question, done = question_and_turn(request)
        turns = SCRIPTS[question.split()[0].lower().strip("?:,.")]
        async for part in ScriptedModel(turns[done:done + 1], name=self.name).stream(request):
            yield part


def _pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    c.drawString(72, 740, "Warranty")
    c.drawString(72, 700, "Warranty claims are handled within thirty days of purchase.")
    c.drawString(72, 680, "Repairs are free in the first year.")
    c.showPage()
    c.save()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("agentos_outputs")
    data = policy_kb(root)
    from citewise.knowledge.base import KnowledgeBase

    _pdf(root / "warranty.pdf")
    with KnowledgeBase.open(data) as kb:
        assert len(kb.ingest([root / "warranty.pdf"]).added) == 1
    (data / "personas.toml").write_text(PERSONAS, encoding="utf-8")
    config = ServerConfig(data_dir=data, rate_limit_per_s=0, retain_s=1.0, poll_interval_s=0.05)
    with serve(create_app(config, model=Routed, tools=[show_order, refund_order])) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def needs_espeak() -> None:
    """Debian's espeak-ng (scripts/provision.py installs it): skip without, fail in CI."""
    if shutil.which("espeak-ng") is None:
        why = "espeak-ng not installed: run scripts/provision.py"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)


def agentos(http: httpx.Client, body: Obj, **params: Any) -> Obj:
    r = http.post("/v1/ask", params={"format": "agentos", **params}, json=body)
    assert r.status_code == 200, r.text
    chunk: Obj = r.json()
    errors = sorted(validator("agentos").iter_errors(chunk), key=str)
    assert not errors, errors[0].message  # still the seed's shape
    return chunk


def test_ui_commands_and_context_on_every_final_chunk(http: httpx.Client) -> None:
    first = agentos(http, {"question": "refunds?"})
    assert "audioOutput" not in first and "imageOutput" not in first
    assert "activePersonaDetails" not in first and first["personaId"] == "citewise"
    [cmd] = first["finalUiCommands"]
    [cite] = first["metadata"]["citations"]
    assert cmd["commandId"] == "open_citation"
    assert cmd["payload"]["citationIndex"] == cite["citation_index"] == 0
    assert (cmd["payload"]["startChar"], cmd["payload"]["endChar"]) == (
        cite["start_char"], cite["end_char"])
    doc = http.get(f"/v1/documents/{cmd['payload']['documentId']}", params={"text": "true"})
    assert doc.json()["text"][cite["start_char"]:cite["end_char"]] == cite["excerpt"]
    thread = first["gmiInstanceId"]
    second = agentos(http, {"question": "refunds again?", "thread_id": thread})
    ctx = second["updatedConversationContext"]
    assert ctx["sessionId"] == thread
    assert [(m["id"], m["role"]) for m in ctx["messages"]] == [
        (f"{thread}:0", "user"), (f"{thread}:1", "assistant"),
        (f"{thread}:2", "user"), (f"{thread}:3", "assistant")]
    assert [m["content"] for m in ctx["messages"][::2]] == ["refunds?", "refunds again?"]
    assert ctx["messages"][3]["content"] == second["finalResponseText"]
    assert ctx["messages"][1]["content"] == first["finalResponseText"]  # as the thread has it
    assert "refunds?" in ctx["sessionMetadata"]["summary"]
    # A failed run's final chunk has the context too: the thread as it stays (no new turn).
    failed = agentos(http, {"question": "broken?", "thread_id": thread})
    assert failed["error"]["code"] == "model_error" and failed["finalUiCommands"] == []
    def turns(c: Obj) -> list[tuple[str, str, str]]:
        return [(m["id"], m["role"], m["content"]) for m in c["messages"]]

    assert turns(failed["updatedConversationContext"]) == turns(ctx)
    # A tool's own UI command follows the citations' ones.
    order = agentos(http, {"question": "order A-17: refunds?"})
    assert [c["commandId"] for c in order["finalUiCommands"]] == ["open_citation", "show_order"]
    assert order["finalUiCommands"][1] == {"commandId": "show_order",
                                           "targetElementId": "order-panel",
                                           "payload": {"orderId": "A-17"}}
    # … also when the run paused after that tool and was resumed (the commands live in
    # the run's state, not in the process that ran the tool).
    paused = agentos(http, {"question": "ship A-17 and refund it?"})
    [pending] = paused["metadata"]["interrupts"]
    r = http.post(f"/v1/runs/{paused['streamId']}/resume", params={"format": "agentos"},
                  json={"decisions": [{"interrupt_id": pending["id"], "action": "approve"}],
                        "stream": False})
    assert r.status_code == 200, r.text
    resumed = r.json()
    assert [c["commandId"] for c in resumed["finalUiCommands"]] == ["open_citation", "show_order"]
    assert resumed["finalUiCommands"][1]["payload"] == {"orderId": "A-17"}


def test_audio_is_spoken_by_espeak(http: httpx.Client, monkeypatch: pytest.MonkeyPatch,
                                   tmp_path: Path) -> None:
    needs_espeak()
    chunk = agentos(http, {"question": "refunds?", "audio": True})
    audio = chunk["audioOutput"]
    assert audio["provider"] == "espeak-ng" and audio["format"] == "wav"
    assert audio["textToSpeak"] == chunk["finalResponseTextPlain"]
    assert audio["url"] == f"/v1/runs/{chunk['streamId']}/audio"
    wav = http.get(audio["url"])
    assert wav.status_code == 200 and wav.headers["content-type"] == "audio/wav"
    assert wav.content[:4] == b"RIFF" and wav.content[8:12] == b"WAVE"
    assert len(wav.content) > 10_000  # seconds of speech, not a header
    # The query parameter works as the body field does; without an engine: a clear code.
    monkeypatch.setenv("PATH", str(tmp_path))
    refused = http.post("/v1/ask", params={"format": "agentos", "audio": "true"},
                        json={"question": "refunds?"})
    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "speech_engine_missing"
    plain = http.get(f"/v1/runs/{first_run(http)}/audio")
    assert plain.status_code == 404 and plain.json()["error"]["code"] == "no_audio"


def first_run(http: httpx.Client) -> str:
    run_id: str = agentos(http, {"question": "refunds?"})["streamId"]
    return run_id


def _png_pixels(png: bytes) -> tuple[int, int, bytes]:
    """Width, height and raw RGB rows of our own PNG (8-bit RGB, filter 0 on every row)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, kind = struct.unpack(">IIBB", png[16:26])
    assert (depth, kind) == (8, 2)
    data, at = b"", 8
    while at < len(png):
        n = struct.unpack(">I", png[at:at + 4])[0]
        if png[at + 4:at + 8] == b"IDAT":
            data += png[at + 8:at + 8 + n]
        at += 12 + n
    return width, height, zlib.decompress(data)


def test_image_highlights_the_cited_pdf_span(http: httpx.Client) -> None:
    chunk = agentos(http, {"question": "warranty claims?", "image": True})
    image = chunk["imageOutput"]
    assert image["imageUrl"] == f"/v1/runs/{chunk['streamId']}/image"
    assert image["format"] == "png" and image["metadata"]["page"] == 1
    png = http.get(image["imageUrl"])
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    width, height, raw = _png_pixels(png.content)
    assert width > 1000 and 40 < height < 400  # the span's lines, not the whole page
    yellow = raw.count(bytes((255, 221, 0)))
    assert yellow > 2000, yellow  # the excerpt is painted
    # Only the ingested bytes are rendered: a file changed since is refused.
    [pdf] = {Path(r["source"]) for r in chunk["ragSources"] if r["source"].endswith(".pdf")}
    original = pdf.read_bytes()
    try:
        pdf.write_bytes(original + b"\n% edited after its ingest\n")
        again = agentos(http, {"question": "warranty claims?", "image": True})
        refused = http.get(again["imageOutput"]["imageUrl"])
        assert refused.status_code == 404
        assert refused.json()["error"]["code"] == "source_unavailable"
    finally:
        pdf.write_bytes(original)
    # A run without a PDF citation has no image, even when asked.
    assert "imageOutput" not in agentos(http, {"question": "refunds?", "image": True})


def test_personas_from_the_config_file_and_the_api(http: httpx.Client) -> None:
    listed = [p["id"] for p in http.get("/v1/personas").json()["personas"]]
    assert listed[:2] == ["citewise", "terse"]
    Routed.seen.clear()
    chunk = agentos(http, {"question": "refunds?"}, persona="terse")
    assert chunk["personaId"] == "terse"
    details = chunk["activePersonaDetails"]
    assert details["id"] == "terse" and details["name"] == "Terse support"
    assert details["baseSystemPrompt"] == "Answer in one sentence, citing the handbook."
    assert details["toolIds"] == ["search_knowledge"] and details["defaultLanguage"] == "en-GB"
    assert details["customFields"]["retrieval"] == {"k": 2, "filters": {}}
    request = Routed.seen[0]
    assert isinstance(request.messages[0], SystemMessage)
    assert request.messages[0].content == "Answer in one sentence, citing the handbook."
    assert [t.name for t in request.tools] == ["search_knowledge"]
    assert len(chunk["ragSources"]) <= 2  # its k
    assert chunk["updatedConversationContext"]["config"]["activePersonaId"] == "terse"
    # Streamed, every chunk names it.
    with http.stream("POST", "/v1/runs", params={"format": "agentos", "persona": "terse"},
                     json={"question": "refunds?"}) as r:
        chunks = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    assert chunks[-1]["type"] == "final_response" and len(chunks) > 3
    assert {c["personaId"] for c in chunks} == {"terse"}
    # Over the API: a tenant's own persona, then used.
    made = http.put("/v1/personas/helper", json={"id": "helper", "name": "Helper",
                                                 "tools": ["search_knowledge", "show_order"]})
    assert made.status_code == 200, made.text
    used = agentos(http, {"question": "order A-17: refunds?", "persona": "helper"})
    assert used["personaId"] == "helper" and used["activePersonaDetails"]["name"] == "Helper"
    assert http.put("/v1/personas/terse", json={"id": "terse"}).json()["error"]["code"] == (
        "persona_read_only")
    unknown = http.post("/v1/ask", json={"question": "refunds?", "persona": "nobody"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_persona"
    # A paused run resumes as the persona it started as (a new agent, maybe elsewhere).
    assert http.put("/v1/personas/payer", json={
        "id": "payer", "tools": ["search_knowledge", "refund_order"],
        "system_prompt": "You refund orders."}).status_code == 200
    speaks = shutil.which("espeak-ng") is not None  # audio, when the engine is here
    paused = agentos(http, {"question": "pay A-17?", "persona": "payer", "audio": speaks})
    [pending] = paused["metadata"]["interrupts"]
    Routed.seen.clear()
    r = http.post(f"/v1/runs/{paused['streamId']}/resume", params={"format": "agentos"},
                  json={"decisions": [{"interrupt_id": pending["id"], "action": "approve"}],
                        "stream": False})
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["personaId"] == "payer" and done["activePersonaDetails"]["id"] == "payer"
    assert not speaks or done["audioOutput"]["url"] == f"/v1/runs/{paused['streamId']}/audio"
    assert {t.name for t in Routed.seen[0].tools} == {"search_knowledge", "refund_order"}
    assert Routed.seen[0].messages[0].content == "You refund orders."
    assert http.delete("/v1/personas/helper").status_code == 204
    assert http.get("/v1/personas/helper").status_code == 404


def _ts(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _ts_literal(chunk: Obj) -> str:
    """The chunk as a TypeScript object literal, revived as a client revives the JSON into
    the package's types: enum members for the enum-typed strings (``type``, the trace's
    ``type``), ``Date``s for the trace's timestamps (JSON has no dates), and the context
    through the package's own ``ConversationContext.fromJSON`` (a class: no JSON object is
    one). Every other field is the JSON as written, so excess-property and type checks
    apply to it."""
    fields = []
    for key, value in chunk.items():
        if key == "type":
            expr = "AgentOSResponseChunkType.FINAL_RESPONSE"
        elif key == "updatedConversationContext":
            expr = f"ConversationContext.fromJSON({_ts(value)})"
        elif key == "reasoningTrace":
            expr = "[" + ", ".join(
                "{" + ", ".join(
                    f"{_ts(k)}: " + (f"new Date({_ts(v)})" if k == "timestamp" else
                                     f"ReasoningEntryType.{v}" if k == "type" else _ts(v))
                    for k, v in entry.items()) + "}" for entry in value) + "]"
        else:
            expr = _ts(value)
        fields.append(f"{_ts(key)}: {expr}")
    return "{" + ", ".join(fields) + "}"


@pytest.mark.slow
def test_tsc_strict_accepts_the_final_chunk_with_every_field(http: httpx.Client) -> None:
    node_module("@framers/agentos")
    tsc = node_module("typescript") / "bin" / "tsc"
    needs_espeak()
    first = agentos(http, {"question": "warranty claims?"})
    chunk = agentos(http, {"question": "warranty claims?", "thread_id": first["gmiInstanceId"],
                           "audio": True, "image": True}, persona="terse")
    for key in ("finalUiCommands", "audioOutput", "imageOutput", "updatedConversationContext",
                "activePersonaDetails", "ragSources", "usage", "reasoningTrace"):
        assert key in chunk, key
    work = NODE_MODULES.parent / f"tsc-check-{uuid.uuid4().hex[:8]}"  # resolves node_modules
    work.mkdir()
    try:
        (work / "check.mts").write_text(
            "import { AgentOSResponseChunkType, type AgentOSFinalResponseChunk } from "
            "'@framers/agentos/api/types/AgentOSResponse';\n"
            "import { ConversationContext } from "
            "'@framers/agentos/core/conversation/ConversationContext';\n"
            "import { ReasoningEntryType } from '@framers/agentos/cognition/substrate/IGMI';\n"
            f"const chunk: AgentOSFinalResponseChunk = {_ts_literal(chunk)};\n"
            "const ctx = chunk.updatedConversationContext!;\n"
            "console.log(JSON.stringify({type: chunk.type, session: ctx.sessionId,\n"
            "  messages: ctx.getAllMessages().map(m => [m.id, m.role, m.content]),\n"
            "  summary: ctx.getMetadata('summary'), persona: ctx.activePersonaId,\n"
            "  commands: chunk.finalUiCommands!.map(c => c.commandId)}));\n", encoding="utf-8")
        # "bundler" resolution: the package's .d.ts import each other without extensions,
        # which "nodenext" cannot follow (their types would silently become `any`).
        options = {"strict": True, "module": "esnext", "moduleResolution": "bundler",
                   "target": "es2022", "skipLibCheck": True, "noEmitOnError": True,
                   "outDir": "out", "types": []}
        (work / "tsconfig.json").write_text(json.dumps({"compilerOptions": options,
                                                        "files": ["check.mts"]}))
        built = subprocess.run([NODE, str(tsc), "-p", str(work)], capture_output=True,
                               text=True, timeout=240)
        assert built.returncode == 0, built.stdout + built.stderr
        # The check is not vacuous: a wrong shape in one of the new fields is refused.
        bad = {**chunk, "audioOutput": {**chunk["audioOutput"], "url": 7},
               "finalUiCommands": [{"commandId": "open_citation"}]}
        (work / "bad.mts").write_text((work / "check.mts").read_text().replace(
            _ts_literal(chunk), _ts_literal(bad)), encoding="utf-8")
        (work / "tsconfig.bad.json").write_text(json.dumps({"compilerOptions": {
            **options, "noEmit": True}, "files": ["bad.mts"]}))
        refused = subprocess.run([NODE, str(tsc), "-p", str(work / "tsconfig.bad.json")],
                                 capture_output=True, text=True, timeout=240)
        assert refused.returncode != 0
        errors = [line for line in refused.stdout.splitlines() if "error TS" in line]
        assert len(errors) == 2, refused.stdout
        assert "Property 'payload' is missing" in errors[0], errors
        assert "Type 'number' is not assignable to type 'string'" in errors[1], errors
        ran = subprocess.run([NODE, str(work / "out" / "check.mjs")], capture_output=True,
                             text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr
        seen = json.loads(ran.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert seen["type"] == "final_response" and seen["session"] == chunk["gmiInstanceId"]
    assert [m[1] for m in seen["messages"]] == ["user", "assistant", "user", "assistant"]
    assert seen["messages"][2][2] == "warranty claims?" and seen["persona"] == "terse"
    assert "warranty claims?" in seen["summary"]
    assert seen["commands"] == ["open_citation"]


def test_cli_persona(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citewise.cli.main import main

    data = policy_kb(tmp_path)
    (data / "personas.toml").write_text(PERSONAS, encoding="utf-8")
    assert main(["ask", "How long do refunds take?", "--data-dir", str(data),
                 "--persona", "terse", "--json", "--quiet"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["persona_id"] == "terse" and answer["persona"]["tools"] == ["search_knowledge"]
    assert answer["ui_commands"][0]["command_id"] == "open_citation"
    assert main(["ask", "How long do refunds take?", "--data-dir", str(data),
                 "--persona", "nobody"]) != 0
    assert "[unknown_persona]" in capsys.readouterr().err
