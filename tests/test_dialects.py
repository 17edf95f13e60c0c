"""Every dialect renders the recorded runs — streaming and final — and each object it writes
validates against that dialect's JSON Schema (the seeds' own for 003, ours from the seeds
for 000/001/002/004). Plus: what each mapping must say, the registry, SSE framing, and that
dialect modules import nothing beyond the value model."""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from citewise.answer import Answer, DebugTranscript
from citewise.dialects import DIALECTS, Dialect, get_dialect, sse_stream
from citewise.dialects.base import answer_of, final_of
from citewise.errors import InvalidInput
from citewise.events import ErrorEvent, Event, RunFinished, RunPaused, event_adapter
from test_dialects_run import (
    ANSWER_TEXT,
    BIG,
    RUNS,
    completed,
    failed,
    final_answer,
    paused,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas" / "dialects"
SEEDS = ROOT.parent / "shared" / "seeds"
SCHEMA_OF = {
    "trustgraph": "trustgraph.schema.json",
    "agentos": "agentos.schema.json",
    "agent-event": "agent-event.schema.json",
    "conversation": "conversation.schema.json",
    "answer": "answer.schema.json",
}
Obj = dict[str, Any]


@cache
def validator(dialect: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / SCHEMA_OF[dialect]).read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def stream(name: str, events: tuple[Event, ...]) -> list[Obj]:
    out = list(get_dialect(name).stream(events))
    json.dumps(out, allow_nan=False)  # JSON-ready, nothing else
    return out


def final(name: str, events: tuple[Event, ...]) -> Obj:
    terminal = events[-1]
    assert isinstance(terminal, RunFinished | RunPaused | ErrorEvent)
    return final_of(get_dialect(name), terminal)


# -- registry ---------------------------------------------------------------------------------


def test_registry_has_every_dialect() -> None:
    assert set(DIALECTS) == {"citewise", "trustgraph", "agentos", "agent-event", "conversation",
                             "answer", "ag-ui", "openai", "a2a", "ai-sdk"}
    for name, dialect in DIALECTS.items():
        assert isinstance(dialect, Dialect)
        assert dialect.name == name
        assert dialect.media_type == "text/event-stream"
    assert get_dialect(None).name == "citewise"
    assert get_dialect(" AG-UI ").name == "ag-ui"


def test_unknown_format_is_a_typed_error() -> None:
    with pytest.raises(InvalidInput) as info:
        get_dialect("langchain")
    assert info.value.code == "unknown_format"
    assert "trustgraph" in info.value.details["allowed"]


# -- every object validates against its schema --------------------------------------------------


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("name", sorted(SCHEMA_OF))
def test_stream_and_final_validate_against_schema(name: str, run: str) -> None:
    events = RUNS[run]()
    check = validator(name)
    objs = stream(name, events)
    assert objs, "every run renders to at least one object"
    for obj in objs:
        errors = sorted(check.iter_errors(obj), key=str)
        assert not errors, f"{name} stream object {obj} invalid: {errors[0].message}"
    body = final(name, events)
    errors = sorted(check.iter_errors(body), key=str)
    assert not errors, f"{name} final {body} invalid: {errors[0].message}"


SEED_003_SHA256 = "0182517475b16ab4d21b811708f9be96d89da476c78adab05c990c8f3b42ee99"


def test_conversation_schema_is_the_seeds_own() -> None:
    # Byte for byte: the digest is the seed file's, so the check holds where the seeds
    # directory is not checked out beside the repository.
    ours = (SCHEMAS / "conversation.schema.json").read_bytes()
    assert hashlib.sha256(ours).hexdigest() == SEED_003_SHA256
    seed = SEEDS / "003_4ec258bc8a91e6c7.txt"
    if seed.exists():
        assert ours == seed.read_bytes()


def test_schemas_reject_what_the_seeds_forbid() -> None:
    tg, ev, ans = validator("trustgraph"), validator("agent-event"), validator("answer")
    assert not tg.is_valid({"chunk-type": "plan"})
    assert not tg.is_valid({"explain_triples": [{"s": {"t": "i"}, "p": {"t": "i", "i": "x"},
                                                 "o": {"t": "l", "v": "y"}}]})
    assert not ev.is_valid({"type": "result", "content": "x", "extra": 1})
    assert not ev.is_valid({"type": "action", "tool": "t", "input": {"q": 1}})
    assert not ans.is_valid({"kind": "ANSWER", "threadId": "t", "text": "x", "citations": [1],
                             "issues": [], "usage": {"inputTokens": 0, "outputTokens": 0}})
    assert not validator("agentos").is_valid({
        "type": "text_delta", "streamId": "s", "gmiInstanceId": "g", "personaId": "p",
        "isFinal": False, "timestamp": "t", "textDelta": "x", "delta": "typo"})


# -- citewise (identity) ------------------------------------------------------------------------


@pytest.mark.parametrize("run", sorted(RUNS))
def test_citewise_is_identity(run: str) -> None:
    events = RUNS[run]()
    objs = stream("citewise", events)
    assert objs == [e.model_dump(mode="json") for e in events]
    assert [event_adapter.validate_python(o) for o in objs] == list(events)
    frame = get_dialect("citewise").sse(objs[2])
    assert frame.startswith(f"id: {events[2].seq}\ndata: ")
    terminal = events[-1]
    assert isinstance(terminal, RunFinished | RunPaused | ErrorEvent)
    ans = answer_of(terminal)
    assert Answer.model_validate(get_dialect("citewise").final(ans)) == ans


# -- trustgraph (seed 000) ----------------------------------------------------------------------

TG_KEYS = {"chunk-type", "content", "message_type", "explain_id", "explain_graph",
           "explain_triples", "end-of-message", "end-of-dialog", "answer", "thought",
           "observation", "error"}


def test_trustgraph_stream() -> None:
    objs = stream("trustgraph", completed())
    assert all(set(o) <= TG_KEYS for o in objs)
    types = [o["chunk-type"] for o in objs]
    assert types[-1] == "final-answer"
    assert [o["end-of-dialog"] for o in objs].count(True) == 1 and objs[-1]["end-of-dialog"]
    assert types.count("action") == 2 and types.count("observation") == 2
    assert {"thought", "answer", "explain"} <= set(types)
    assert "".join(o["content"] for o in objs if o["chunk-type"] == "answer") == ANSWER_TEXT
    assert objs[-1]["content"] == ANSWER_TEXT
    explains = [o for o in objs if o["message_type"] == "explain"]
    assert explains and all(o["explain_graph"] == "urn:graph:retrieval" for o in explains)
    terms = [t[k] for o in explains for t in o["explain_triples"] for k in "spo"]
    assert {"t": "l", "v": "How fast are refunds, and where is my order A-17?",
            "ln": "en"} in terms
    assert any(t.get("dt") == "http://www.w3.org/2001/XMLSchema#integer" for t in terms)
    assert all("lang" not in t for t in terms)  # TrustGraph's language key is `ln`


def test_trustgraph_failure_pause_and_legacy() -> None:
    err = stream("trustgraph", failed())[-1]
    assert err["chunk-type"] == "error" and err["end-of-dialog"]
    assert err["error"]["code"] == "model_error"
    wait = stream("trustgraph", paused())[-1]
    assert wait["error"]["code"] == "run_paused" and "issue_refund" in wait["content"]
    legacy = final("trustgraph", completed())
    assert legacy["answer"] == ANSWER_TEXT
    assert "I should search the refund policy." in legacy["thought"]
    assert "Orders ship from Berlin." in legacy["observation"]
    terminal = failed()[-1]
    assert isinstance(terminal, ErrorEvent)
    assert final("trustgraph", failed()) == {"error": {"message": terminal.message,
                                                       "code": "model_error"}}


# -- agentos (seed 001) -------------------------------------------------------------------------


def test_agentos_stream_ends_in_final_response() -> None:
    objs = stream("agentos", completed())
    assert [o["isFinal"] for o in objs].count(True) == 1
    last = objs[-1]
    assert last["type"] == "final_response" and last["isFinal"]
    assert {o["streamId"] for o in objs} == {"run_done"}
    assert {o["gmiInstanceId"] for o in objs} == {"thr_run_done"}
    assert "".join(o["textDelta"] for o in objs if o["type"] == "text_delta") == ANSWER_TEXT
    calls = [o for o in objs if o["type"] == "tool_call_request"]
    assert calls[0]["rationale"] == "I should search the refund policy."
    first_action = next(e for e in completed() if e.kind == "action")
    assert calls[0]["toolCalls"] == [{"id": first_action.call_id, "name": "search_knowledge",
                                      "arguments": {"query": "refund policy"}}]
    results = [o for o in objs if o["type"] == "tool_result_emission"]
    assert [r["isSuccess"] for r in results] == [True, True]
    assert any(o["type"] == "system_progress" and o["statusCode"] == "warning:uncited_claim"
               for o in objs)
    assert [o["updates"]["citation"]["document_index"] for o in objs
            if o["type"] == "metadata_update" and "citation" in o["updates"]] == [1, 2]
    ans = final_answer()
    assert last["finalResponseText"] == ANSWER_TEXT
    assert "**" not in last["finalResponseTextPlain"] and "[1]" not in last["finalResponseTextPlain"]
    assert last["usage"]["totalTokens"] == ans.usage.total_tokens > 0
    assert last["usage"]["breakdown"][0]["modelId"] == "scripted-1"
    assert [s["id"] for s in last["ragSources"]] == [str(BIG + 11), str(BIG + 22)]
    assert [c["name"] for c in last["finalToolCalls"]] == ["search_knowledge", "lookup_order"]
    assert len(last["reasoningTrace"]) == len(ans.reasoning_trace)
    assert "error" not in last
    assert final("agentos", completed())["finalResponseText"] == ANSWER_TEXT


def test_agentos_failure_and_pause() -> None:
    objs = stream("agentos", failed())
    assert [o["type"] for o in objs[-2:]] == ["error", "final_response"]
    assert objs[-1]["error"]["code"] == "model_error" and objs[-1]["finalResponseText"] is None
    last = stream("agentos", paused())[-1]
    assert last["type"] == "final_response" and last["finalResponseText"] is None
    assert [c["name"] for c in last["finalToolCalls"]] == ["issue_refund"]
    assert last["finalToolCalls"][0]["arguments"] == {"order_id": "A-17", "amount": 19.5}
    assert last["metadata"]["interrupts"][0]["tool"] == "issue_refund"


# -- agent-event (seed 002) ---------------------------------------------------------------------

AE_KEYS = {"thought": {"type", "content"}, "action": {"type", "tool", "input"},
           "observation": {"type", "content"}, "result": {"type", "content"},
           "error": {"type", "content"}}


def test_agent_event_emits_only_the_five_variants() -> None:
    objs = stream("agent-event", completed())
    assert [o["type"] for o in objs] == ["thought", "action", "observation",
                                         "thought", "action", "observation", "result"]
    assert all(set(o) == AE_KEYS[o["type"]] for o in objs)
    assert objs[0] == {"type": "thought", "content": "I should search the refund policy."}
    assert objs[1] == {"type": "action", "tool": "search_knowledge",
                       "input": '{"query":"refund policy"}'}
    assert objs[-1] == {"type": "result", "content": ANSWER_TEXT}
    assert get_dialect("agent-event").sse(objs[1]) == (
        'data: {"type":"action","tool":"search_knowledge",'
        '"input":"{\\"query\\":\\"refund policy\\"}"}\n\n')


@pytest.mark.parametrize("run", sorted(RUNS))
def test_agent_event_is_terminal_exactly_once(run: str) -> None:
    objs = stream("agent-event", RUNS[run]())
    terminal = [o["type"] in ("result", "error") for o in objs]
    assert terminal[-1] and terminal.count(True) == 1
    expected = {"completed": "result", "paused": "error", "failed": "error"}[run]
    assert objs[-1]["type"] == expected
    if run == "paused":
        assert objs[-1]["content"].startswith("run paused:")


# -- conversation (seed 003) --------------------------------------------------------------------


def test_conversation_response() -> None:
    objs = stream("conversation", completed())
    assert len(objs) == 1
    body = objs[0]
    assert body == final("conversation", completed())
    assert body["conversation_id"] == "thr_run_done" and body["kind"] == "response"
    assert body["answer"] == ANSWER_TEXT and body["model_name"] == "scripted-1"
    docs = body["search_documents"]
    for cit in body["citations"]:
        doc = docs[cit["document_index"] - 1]  # one-based
        assert cit["excerpt"] in doc["snippets"][cit["snippet_index"]]["text"]
    assert [c["citation_index"] for c in body["citations"]] == [0, 1]
    assert [s["chunk_id"] for d in docs for s in d["snippets"]] == [BIG + 11, BIG + 22]
    assert body["trajectory"]["id"] == "run_done"
    assert "feedback_token" in body["trajectory"]
    assert stream("conversation", paused())[0]["kind"] == "interrupt"
    bad = stream("conversation", failed())[0]
    assert bad["kind"] == "error" and bad["error"]["code"] == "model_error"


# -- answer (seed 004) --------------------------------------------------------------------------


def test_answer_response() -> None:
    body = stream("answer", completed())[0]
    assert body == final("answer", completed())
    assert body["kind"] == "ANSWER" and body["threadId"] == "thr_run_done"
    assert body["citations"] == [str(BIG + 11), str(BIG + 22)]  # every chunk given to the model
    assert [(i["severity"], i["code"]) for i in body["issues"]] == [("WARNING", "uncited_claim")]
    ans = final_answer()
    assert body["usage"] == {"inputTokens": ans.usage.input_tokens,
                             "outputTokens": ans.usage.output_tokens,
                             "totalTokens": ans.usage.total_tokens}
    assert "endedByTool" not in body and "debug" not in body and "structured" not in body


def test_answer_issues_are_the_warnings_only() -> None:
    # Seed 004: "issues: IIssue[] — The WARNING issues of the call".
    from citewise.answer import Issue

    ans = final_answer().model_copy(deep=True)
    ans.issues.append(Issue(code="verification_unavailable", message="no store",
                            severity="info"))
    body = get_dialect("answer").final(ans)
    validator("answer").validate(body)
    assert [(i["severity"], i["code"]) for i in body["issues"]] == [("WARNING", "uncited_claim")]
    assert any(i.severity == "info" for i in ans.issues)  # still in citewise's own answer


def test_answer_interrupt_and_error() -> None:
    wait = stream("answer", paused())[0]
    last = paused()[-1]
    assert isinstance(last, RunPaused)
    assert wait["kind"] == "INTERRUPT"
    assert [i["id"] for i in wait["interrupts"]] == [i.id for i in last.interrupts]
    assert wait["interrupts"][0]["input"] == {"order_id": "A-17", "amount": 19.5}
    bad = stream("answer", failed())[0]
    assert bad["kind"] == "ERROR" and bad["error"]["code"] == "model_error"


def test_optional_fields_render_and_validate() -> None:
    base = final_answer()
    usage = base.usage.model_copy(update={"cost": 0.25})
    ans = base.model_copy(update={
        "structured": {"days": 14}, "ended_by_tool": "handover_to_agent", "usage": usage,
        "debug": DebugTranscript(requests=[{"messages": [{"role": "user", "content": "q"}]}]),
    })
    body = get_dialect("answer").final(ans)
    assert validator("answer").is_valid(body)
    assert body["structured"] == {"days": 14} and body["endedByTool"] == "handover_to_agent"
    assert body["debug"]["requests"][0]["messages"][0]["role"] == "user"
    chunk = get_dialect("agentos").final(ans)
    assert validator("agentos").is_valid(chunk)
    assert chunk["usage"]["totalCostUSD"] == 0.25
    assert chunk["metadata"]["endedByTool"] == "handover_to_agent"


# -- SSE framing --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_sse_frames_are_single_data_lines(name: str) -> None:
    dialect = get_dialect(name)
    frames = list(sse_stream(dialect, completed()))
    objs = list(dialect.stream(completed()))
    body = frames[:-1] if dialect.terminator else frames
    assert len(body) == len(objs)
    for frame, obj in zip(body, objs, strict=True):
        assert frame.endswith("\n\n") and frame.count("\n") == 2 + ("id: " in frame)
        data = frame.split("data: ", 1)[1][:-2]
        assert json.loads(data) == obj
        assert ("id: " in frame) == (name == "citewise")
        assert "event: " not in frame
    if name in ("openai", "ai-sdk"):
        assert frames[-1] == "data: [DONE]\n\n"


def test_stream_state_is_per_call() -> None:
    # One shared instance serves interleaved streams: no state leaks between them.
    dialect = get_dialect("ag-ui")
    a, b = dialect.stream(completed()), dialect.stream(completed())
    first = [next(a), next(b)]
    rest_a, rest_b = list(a), list(b)
    assert first[0] == first[1] and rest_a == rest_b


# -- purity: dialects import the value model only ------------------------------------------------

DIALECT_DIR = ROOT / "src" / "citewise" / "dialects"
# ``_construct`` is the value model's own builder (triples.py makes terms with it).
VALUE_MODEL = {"citewise.answer", "citewise.events", "citewise.triples", "citewise._construct"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            names.add(node.module or "")
    return names


@pytest.mark.parametrize("path", sorted(DIALECT_DIR.glob("*.py")), ids=lambda p: p.name)
def test_dialect_modules_import_only_the_value_model(path: Path) -> None:
    allowed: Callable[[str], bool] = lambda m: (  # noqa: E731
        m in VALUE_MODEL or m.startswith("citewise.dialects")
        or (path.name == "__init__.py" and m == "citewise.errors")  # the registry's typed error
        or m.split(".")[0] in sys.stdlib_module_names or m == "__future__")
    bad = {m for m in _imports(path) if not allowed(m)}
    assert not bad, f"{path.name} imports {bad}"


def test_importing_dialects_loads_nothing_else() -> None:
    code = ("import json, sys; before = set(sys.modules); import citewise.dialects; "
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    loaded = json.loads(out.stdout)
    ours = {m for m in loaded if m.split(".")[0] == "citewise"}
    assert ours <= VALUE_MODEL | {"citewise", "citewise.errors"} | {
        m for m in ours if m.startswith("citewise.dialects")}
    third_party = {m.split(".")[0] for m in loaded
                   if not m.startswith("_sysconfigdata")}  # stdlib, generated per platform
    third_party -= {*sys.stdlib_module_names, "citewise"}
    assert third_party <= {"pydantic", "pydantic_core", "typing_extensions", "annotated_types",
                           "typing_inspection"}, third_party
    assert "sqlalchemy" not in loaded and "httpx" not in loaded
