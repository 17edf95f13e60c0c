"""Limits and auth modes of the service: body size, upload size, question length, per-key
rate limit, concurrent runs per tenant (each a typed error with a stable code and the
right status), the auth mode chosen at start-up, and the ``serve`` / ``keys`` commands."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citewise.cli.main import main
from citewise.errors import ConfigError
from citewise.server.app import auth_required
from citewise.server.auth import create_key, hash_key
from citewise.server.config import ServerConfig, is_loopback
from citewise.server.limits import RateLimiter, TokenBucket
from citewise.server.testing import serve
from citewise.store.sqlite import SQLiteStore
from test_server import make_app


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = make_app(tmp_path_factory.mktemp("limits"), max_body_bytes=2048,
                   max_upload_bytes=4096, max_question_chars=100, max_concurrent_runs=2)
    with serve(app) as url:
        yield url


@pytest.fixture
def http(base: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client


def _error(r: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    err: dict[str, object] = r.json()["error"]
    assert err["code"] == code
    return err


def test_json_body_over_the_limit_is_413(http: httpx.Client) -> None:
    r = http.post("/v1/ask", json={"question": "q" * 50, "output_schema": {"x": "y" * 3000}})
    err = _error(r, 413, "payload_too_large")
    assert err["details"] == {"max_bytes": 2048}


def test_chunked_body_over_the_limit_is_413(http: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(10):
            yield b"q" * 500
        yield b'"}'

    r = http.post("/v1/ask", content=chunks(), headers={"Content-Type": "application/json"})
    _error(r, 413, "payload_too_large")


def test_upload_over_the_limit_is_413(http: httpx.Client) -> None:
    r = http.post("/v1/documents", files={"file": ("big.txt", b"x" * 5000)})
    err = _error(r, 413, "upload_too_large")
    assert err["details"] == {"max_bytes": 4096}
    huge = http.post("/v1/documents", files={"file": ("huge.txt", b"x" * 200_000)})
    _error(huge, 413, "payload_too_large")
    assert http.post("/v1/documents", files={"file": ("ok.txt", b"fine text " * 100)}
                     ).status_code == 201


def test_question_over_the_limit_is_422(http: httpx.Client) -> None:
    err = _error(http.post("/v1/ask", json={"question": "q" * 101}), 422, "question_too_long")
    assert err["details"] == {"max": 100}


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/runs"])
def test_a_question_with_a_nul_character_is_422_on_every_backend(
        http: httpx.Client, path: str) -> None:
    before = http.get("/v1/threads").json()["threads"]
    err = _error(http.post(path, json={"question": "why \x00 not"}), 422,
                 "unsupported_character")
    assert "U+0000" in err["message"]
    assert http.get("/v1/threads").json()["threads"] == before  # nothing was started


def test_concurrent_runs_per_tenant(http: httpx.Client) -> None:
    ids = [http.post("/v1/runs", json={"question": "wait", "background": True}).json()["run_id"]
           for _ in range(2)]
    r = http.post("/v1/runs", json={"question": "quick", "background": True})
    _error(r, 429, "too_many_concurrent_runs")
    assert r.headers["retry-after"] == "1"
    assert http.post(f"/v1/runs/{ids[0]}/cancel").json()["status"] == "cancelled"
    ok = http.post("/v1/runs", json={"question": "quick", "stream": False})
    assert ok.status_code == 200
    assert http.post(f"/v1/runs/{ids[1]}/cancel").json()["status"] == "cancelled"


def test_rate_limit_per_key(tmp_path: Path) -> None:
    with serve(make_app(tmp_path, rate_limit_per_s=1, rate_limit_burst=3)) as url, \
            httpx.Client(base_url=url, timeout=30) as c:
        codes = [c.get("/v1/threads").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        r = c.get("/v1/threads")
        _error(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        assert c.get("/healthz").status_code == 200  # health is not rate limited
        time.sleep(1.1)
        assert c.get("/v1/threads").status_code == 200


def test_token_bucket_refills() -> None:
    bucket = TokenBucket(rate=2.0, burst=2)
    t = bucket.stamp
    assert bucket.take(t) == 0 and bucket.take(t) == 0
    assert bucket.take(t) == pytest.approx(0.5)
    assert bucket.take(t + 0.5) == 0
    limiter = RateLimiter(0, 1)  # 0 = off
    for _ in range(100):
        limiter.check("k")


# -- auth modes ---------------------------------------------------------------------------


def test_auth_mode_at_start_up(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "citewise.db") as store:
        assert auth_required(ServerConfig(host="127.0.0.1"), store) is False
        assert auth_required(ServerConfig(host="::1"), store) is False
        assert auth_required(ServerConfig(host="localhost", auth="keys"), store) is True
        assert auth_required(ServerConfig(host="0.0.0.0", auth="none"), store) is False
        with pytest.raises(ConfigError) as refused:
            auth_required(ServerConfig(host="0.0.0.0"), store)
        assert refused.value.code == "no_api_keys"
        record, key = create_key(store, "t1")
        assert key.startswith("cwk_") and len(key) > 40
        assert store.get_api_key_by_hash(hash_key(key)) is not None
        assert record.key_hash != key  # only the hash is stored
        assert auth_required(ServerConfig(host="127.0.0.1"), store) is True
        assert auth_required(ServerConfig(host="0.0.0.0"), store) is True
    assert is_loopback("127.0.0.5") and is_loopback("[::1]") and not is_loopback("10.0.0.1")


def test_loopback_server_with_keys_requires_them(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "citewise.db") as store:
        _, key = create_key(store, "t1")
    with serve(make_app(tmp_path)) as url:
        assert httpx.get(f"{url}/v1/threads").status_code == 401
        ok = httpx.get(f"{url}/v1/threads", headers={"Authorization": f"Bearer {key}"})
        assert ok.status_code == 200


def test_a_key_created_while_an_open_loopback_server_runs_closes_it(tmp_path: Path) -> None:
    # auth "auto" used to be decided once at start-up: a key made afterwards (the README's
    # own next step) was never asked for, and requests bearing it ran as the default tenant.
    from citewise.server.app import _keys_required_now

    with serve(make_app(tmp_path, key_cache_s=0.2)) as url:
        assert httpx.get(f"{url}/v1/threads").status_code == 200  # open: no key exists
        with SQLiteStore(tmp_path / "citewise.db") as store:  # as `citewise keys create`
            record, key = create_key(store, "acme")
        time.sleep(0.3)
        refused = httpx.get(f"{url}/v1/threads")
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "missing_api_key"
        bad = httpx.get(f"{url}/v1/threads", headers={"Authorization": "Bearer garbage"})
        assert bad.json()["error"]["code"] == "invalid_api_key"
        own = {"Authorization": f"Bearer {key}"}
        ran = httpx.post(f"{url}/v1/ask", json={"question": "anything?"}, headers=own,
                         timeout=60).json()
        listed = httpx.get(f"{url}/v1/threads", headers=own).json()
        assert ran["thread_id"] in [t["id"] for t in listed["threads"]]
        with SQLiteStore(tmp_path / "citewise.db") as store:
            assert store.get_thread("acme", ran["thread_id"]) is not None  # the key's tenant
            assert store.revoke_api_key("acme", record.id)
        time.sleep(0.3)
        # Every key revoked: it stays closed (only --no-auth opens it again).
        assert httpx.get(f"{url}/v1/threads").status_code == 401
    with SQLiteStore(tmp_path / "citewise.db") as store:
        # Beyond loopback with every key revoked: closed to all, not open, not stopped.
        assert _keys_required_now(ServerConfig(host="0.0.0.0"), store) is True
        assert _keys_required_now(ServerConfig(host="127.0.0.1"), store) is True


# -- the commands --------------------------------------------------------------------------


def test_keys_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--data-dir", str(tmp_path)]
    assert main(["keys", "create", "--tenant", "acme", "--name", "ci", *data]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("cwk_")
    assert main(["keys", "list", "--json", *data]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["tenant"], r["name"], r["revoked_at"]) for r in rows] == [("acme", "ci", None)]
    assert key not in json.dumps(rows)
    assert main(["keys", "revoke", rows[0]["id"], *data]) == 0
    assert main(["keys", "revoke", rows[0]["id"], *data]) == 2
    assert main(["keys", "revoke", "key_unknown", *data]) == 2
    assert "unknown_api_key" in capsys.readouterr().err
    assert main(["keys", "list", *data]) == 0
    assert "revoked" in capsys.readouterr().out


def test_serve_refuses_to_expose_without_keys(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", str(tmp_path)])
    assert code == 2
    assert "no_api_keys" in capsys.readouterr().err


@pytest.mark.slow
def test_citewise_serve_runs_and_stops(tmp_path: Path) -> None:
    """The real command: uvicorn in its own process, found healthy, stopped by SIGINT."""
    import signal
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "citewise.cli.main", "serve", "--port", str(port),
         "--data-dir", str(tmp_path), "--log-level", "warning"],
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.2)
        r = httpx.post(f"http://127.0.0.1:{port}/v1/ask", json={"question": "anything?"},
                       timeout=60)
        assert r.status_code == 200  # loopback, no keys: no-auth mode, default tenant
        assert r.json()["status"] == "completed"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert "no auth" in err


def test_a_database_that_went_away_is_a_503_not_a_crash(tmp_path: Path) -> None:
    import sqlalchemy as sa

    app = make_app(tmp_path)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        store = app.state.citewise.services.store
        original = store.list_threads

        def gone(*args: object, **kwargs: object) -> None:
            raise sa.exc.OperationalError("SELECT 1", {}, Exception("connection refused"))

        store.list_threads = gone
        try:
            _error(http.get("/v1/threads"), 503, "database_unavailable")
        finally:
            store.list_threads = original
        assert http.get("/v1/threads").status_code == 200  # back once it is


def test_serve_options_of_the_lease_and_key_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # An operator could not shorten either (the README names both); and a value the
    # config refuses printed "internal error: ValidationError …" with exit 70.
    import uvicorn

    from citewise.server.config import ENV_CONFIG, ServerConfig

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: seen.update(kw))
    monkeypatch.delenv(ENV_CONFIG, raising=False)
    data = ["--data-dir", str(tmp_path)]
    assert main(["serve", "--port", "0", "--run-lease-s", "6", "--key-cache-s", "0.5",
                 "--workers", "2", *data]) == 0
    config = ServerConfig.model_validate_json(os.environ[ENV_CONFIG])
    assert (config.run_lease_s, config.key_cache_s) == (6.0, 0.5) and seen["workers"] == 2
    assert main(["serve", "--run-lease-s", "0", *data]) == 2
    assert capsys.readouterr().err.endswith(
        "error: --run-lease-s: input should be greater than or equal to 1 [invalid_option]\n")
