"""A user's ``output_schema`` is untrusted work (issue 25, finding 1): its regexes match in
linear time (RE2), validation has a deadline and runs off the event loop, and what RE2
cannot take is refused before a run starts — so one request cannot freeze the server."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise import Agent, KnowledgeBase
from citewise.agent.structured import check_schema, check_structured
from citewise.errors import InvalidInput, RunFailure
from citewise.server import ServerConfig, create_app
from citewise.server.testing import serve

EVIL = {"type": "string", "pattern": "^(a+)+$"}
QUOTE = "a" * 40 + "!"  # Python's re: 2**40 steps; RE2: 41


def test_a_catastrophic_pattern_is_matched_in_linear_time() -> None:
    t0 = time.perf_counter()
    value, why = check_structured(json.dumps(QUOTE * 100), EVIL)
    assert value is None and why is not None and "does not match" in why
    assert time.perf_counter() - t0 < 0.5
    assert check_structured(json.dumps("a" * 5000), EVIL) == ("a" * 5000, None)


@pytest.mark.parametrize(("schema", "reason"), [
    ({"type": "string", "pattern": r"^(a)\1$"}, "invalid escape"),
    ({"type": "string", "pattern": "^(?=a)a$"}, "perl operator"),
    ({"type": "object", "patternProperties": {"(?!x)": {"type": "string"}}}, "perl operator"),
    ({"type": "object", "patternProperties": {"^a": {}}, "unevaluatedProperties": False},
     "pattern_properties_with_unevaluated"),
    ({"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 40}
                                       for i in range(1000)}}, "too_large"),
])
def test_what_re2_cannot_match_is_refused_up_front(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidInput) as err:
        check_schema(schema)
    assert err.value.code == "invalid_output_schema"
    assert reason in err.value.details["reason"]


def test_pattern_keywords_still_mean_what_they_say() -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^A-\\d+$"}},
              "patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False}
    check_schema(schema)
    assert check_structured('{"id": "A-12", "x_n": 3}', schema)[1] is None
    assert "does not match" in (check_structured('{"id": "B-12"}', schema)[1] or "")
    assert "x_n" in (check_structured('{"id": "A-1", "x_n": "3"}', schema)[1] or "")
    assert "regexes" in (check_structured('{"id": "A-1", "other": 1}', schema)[1] or "")


def test_an_exploding_schema_stops_at_its_deadline() -> None:
    # anyOf of two alternatives that each recurse: 2**depth evaluations of a nested array.
    schema = {"$defs": {"n": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/$defs/n"}, "maxItems": 0},
        {"type": "array", "items": {"$ref": "#/$defs/n"}}]}}, "$ref": "#/$defs/n",
        "not": {"const": 0}}
    nested: Any = []
    for _ in range(40):
        nested = [nested, 0]
    check_schema(schema)
    t0 = time.perf_counter()
    with pytest.raises(RunFailure) as err:
        check_structured(json.dumps(nested), schema)
    assert err.value.code == "structured_output_invalid"
    assert err.value.details == {"reason": "validation_timeout"}
    assert time.perf_counter() - t0 < 4.0


def test_a_run_with_the_evil_schema_does_not_block_the_event_loop(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(f"# Letters\n\nShe wrote this.\n\n{'a' * 30}!\n")
    with KnowledgeBase.open(tmp_path / "kb") as kb:
        kb.ingest([docs])
        agent = Agent(kb)

        async def go() -> tuple[str, float]:
            # A first run loads what every run needs (the embedder) on the loop: not measured.
            assert [e async for e in agent.stream("a" * 30 + "?")][-1].kind == "run_finished"
            gaps: list[float] = []

            async def ticker() -> None:
                while True:
                    t = time.perf_counter()
                    await asyncio.sleep(0.01)
                    gaps.append(time.perf_counter() - t)

            tick = asyncio.create_task(ticker())
            # The answer quotes "aaa…a! [1]": Python's re would take 2**30 steps per try.
            events = [e async for e in agent.stream("a" * 30 + "?", output_schema=EVIL)]
            tick.cancel()
            return events[-1].kind, max(gaps, default=0.0)

        kind, worst = asyncio.run(go())
    assert kind in ("run_finished", "error")
    # Python's re would hold the loop for minutes; the bound leaves room for a busy machine.
    assert worst < 0.5


@pytest.mark.slow
def test_healthz_keeps_answering_while_a_run_validates_the_evil_schema(tmp_path: Path) -> None:
    config = ServerConfig(data_dir=tmp_path / "srv", rate_limit_per_s=0, auth="none")
    with serve(create_app(config)) as url, httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/v1/documents", files={"file": ("a.md", f"She wrote this.\n\n{'a' * 40}!\n")})
        assert r.status_code in (200, 201), r.text
        latencies: list[float] = []
        stop = threading.Event()

        def poll() -> None:
            with httpx.Client(base_url=url, timeout=30) as h:
                while not stop.is_set():
                    t = time.perf_counter()
                    assert h.get("/healthz").status_code == 200
                    latencies.append(time.perf_counter() - t)
                    time.sleep(0.02)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            # Polling before the runs start: on a loaded machine the three runs could end
            # before the first /healthz came back, and nothing was measured at all.
            deadline = time.perf_counter() + 30
            while not latencies and time.perf_counter() < deadline:
                time.sleep(0.01)
            for _ in range(3):
                r = http.post("/v1/ask", json={"question": "a" * 40 + "?",
                                               "output_schema": EVIL})
                assert r.status_code in (200, 422), r.text
        finally:
            stop.set()
            poller.join()
        # A stall bound, not a latency figure (that is bench/service.py's): Python's re on
        # the loop would hold /healthz for minutes; 2 s leaves room for a loaded machine.
        assert latencies and max(latencies) < 2.0
