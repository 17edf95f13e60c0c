"""``ServerConfig``: every knob of the HTTP service, in one validated value.

The same object drives ``citewise serve`` (flags), the app factory (tests, embedding) and
uvicorn's worker processes (which receive it as JSON in ``CITEWISE_SERVER_CONFIG``).
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ENV_CONFIG", "LOOPBACK_HOSTS", "ServerConfig", "is_loopback"]

ENV_CONFIG = "CITEWISE_SERVER_CONFIG"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and any loopback address (127.0.0.0/8, ::1)."""
    if host.strip("[]").lower() in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ServerConfig(BaseModel):
    """Configuration of one ``citewise serve`` (all processes of it share it)."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field(default="127.0.0.1", description="Interface to bind.")
    port: int = Field(default=8080, ge=0, le=65535, description="TCP port (0 = any free port).")
    workers: int = Field(default=1, ge=1, le=64, description="uvicorn worker processes.")
    data_dir: Path | None = Field(
        default=None, description="Where the SQLite file and indexes live (None = user data dir)."
    )
    database_url: str | None = Field(
        default=None, description="A PostgreSQL URL (`postgresql://…`): documents, search "
        "indexes, threads, runs and keys live in that database instead of `data_dir`, so "
        "replicas on several machines sharing it serve as one (needs `citewise[postgres]` and "
        "pgvector).")
    auth: Literal["auto", "keys", "none"] = Field(
        default="auto",
        description="`keys`: every /v1 request needs an API key. `none`: no keys, every request "
        "is `default_tenant` (explicit local mode). `auto`: `none` when bound to loopback and no "
        "active key exists, else `keys`; bound elsewhere without keys the server refuses to start.",
    )
    default_tenant: str = Field(default="default", min_length=1, max_length=128,
                                description="The tenant of every request when auth is off.")
    model: str = Field(default="extractive", description="Model string for runs.")
    embedder: str | None = Field(
        default=None, max_length=64,
        description="The knowledge base's embedding model by name (default: the one it was "
                    "last opened with, at first minilm).")
    max_steps: int = Field(default=8, ge=1, le=100, description="Model calls per run.")
    max_body_bytes: int = Field(default=1 << 20, ge=1024, description="Largest JSON request body.")
    max_upload_bytes: int = Field(default=20 << 20, ge=1024, description="Largest uploaded file.")
    max_question_chars: int = Field(default=8000, ge=1, description="Longest question accepted.")
    rate_limit_per_s: float = Field(
        default=20.0, ge=0, description="Sustained requests per second per API key (0 = off)."
    )
    rate_limit_burst: int = Field(default=100, ge=1, description="Token-bucket size per API key.")
    auth_failure_rate_per_s: float = Field(
        default=10.0, ge=0,
        description="Failed authentications per second per client address (0 = off).")
    auth_failure_burst: int = Field(
        default=200, ge=1, description="Failed authentications an address may make at once.")
    max_concurrent_runs: int = Field(
        default=64, ge=1, description="Runs in progress per tenant in one process."
    )
    heartbeat_s: float = Field(default=15.0, gt=0, description="SSE comment after this much quiet.")
    poll_interval_s: float = Field(
        default=0.25, gt=0, description="How often a run owned by another process is polled."
    )
    retain_s: float = Field(
        default=30.0, ge=0, description="How long a finished run's events stay in memory."
    )
    cancel_grace_s: float = Field(
        default=2.0, ge=0, description="Wait for a cooperative cancel before stopping the task."
    )
    key_cache_s: float = Field(
        default=5.0, ge=0, description="How long a key lookup is cached (revocation delay)."
    )
    sse_retry_ms: int = Field(default=1000, ge=0, description="`retry:` sent to SSE clients.")
    run_lease_s: float = Field(
        default=120.0, ge=1, description="A running run whose process has not reported in for "
        "this long (killed, crashed) is ended with a `run_lost` error; every process renews "
        "its own runs' lease six times as often.")
    gc_freeze: bool = Field(
        default=False, description="Tune the process's garbage collector for serving: freeze "
        "start-up objects out of its scans, collect the young generation less often "
        "(`citewise serve` turns it on; it is process-wide, so embedders opt in).")
    max_write_backlog: int = Field(
        default=20_000, ge=100, description="Queued log writes before runs wait for the writer."
    )

    def resolved_data_dir(self) -> Path:
        if self.data_dir is not None:
            return Path(self.data_dir).expanduser()
        import platformdirs

        return Path(platformdirs.user_data_dir("citewise", appauthor=False))

    def to_env(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_env(cls) -> ServerConfig:
        raw = os.environ.get(ENV_CONFIG)
        return cls.model_validate(json.loads(raw)) if raw else cls()
