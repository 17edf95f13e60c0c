"""Test helpers: a real llama-cpp-python OpenAI-compatible server, and a proxy that
misbehaves on request.

``llama_server()`` starts ``python -m llama_cpp.server`` with the packaged SmolLM2 GGUF on
a free 127.0.0.1 port and stops it afterwards. ``MisbehavingProxy`` sits in front of it
(its own event loop in a thread, so sync fixtures and ``asyncio.run`` tests can share it)
and answers the next requests as planned: pass through, an HTTP status (503 with
``Retry-After``), or a stall. It also records when a client hangs up mid-stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx

__all__ = ["MisbehavingProxy", "free_port", "llama_server", "server_unavailable_reason"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_unavailable_reason() -> str | None:
    """Why the llama server cannot run here (None when it can)."""
    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context",
                   "pydantic_settings"):
        if importlib.util.find_spec(module) is None:
            return (f"{module} is not importable: pip install 'citewise[local-server]' "
                    "(CMAKE_ARGS=\"-DGGML_NATIVE=OFF\")")
    return None


@contextlib.contextmanager
def llama_server(model_path: Path, *, n_ctx: int = 2048, log: Path | None = None,
                 startup_timeout: float = 120.0) -> Iterator[str]:
    """Run the server; yields its base URL (``http://127.0.0.1:PORT/v1``)."""
    port = free_port()
    out: IO[bytes] = open(log, "wb") if log else open(os.devnull, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
         "--verbose", "False"],
        stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:] if log else ""
                raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}: {tail}")
            try:
                if httpx.get(f"{base}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start in time")
            time.sleep(0.25)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        out.close()


class MisbehavingProxy:
    """HTTP/1.1 proxy to ``upstream`` (``http://127.0.0.1:PORT/v1``) with planned faults.

    ``plan("pass", ("status", 503, {"Retry-After": "1"}), ("stall", 30))`` sets how the
    next requests are answered; once the plan is used up every request passes through.
    """

    def __init__(self, upstream: str) -> None:
        rest = upstream.split("://", 1)[1]
        hostport, _, self._prefix = rest.partition("/")
        host, _, port = hostport.partition(":")
        self._up = (host, int(port))
        self._plan: list[tuple[object, ...]] = []
        self.seen: list[str] = []  # the mode each request got
        self.client_hangups = 0
        self.hangup = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self._prefix}"

    def plan(self, *modes: str | tuple[object, ...]) -> None:
        self._plan = [m if isinstance(m, tuple) else (m,) for m in modes]
        self.hangup.clear()

    def __enter__(self) -> MisbehavingProxy:
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop)
        self._server = fut.result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def close() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            length = next((int(v) for k, _, v in (ln.partition(":") for ln in lines)
                           if k.lower() == "content-length"), 0)
            body = await reader.readexactly(length)
            mode = self._plan.pop(0) if self._plan else ("pass",)
            self.seen.append(str(mode[0]))
            if mode[0] == "status":
                code, headers = int(str(mode[1])), dict(mode[2]) if len(mode) > 2 else {}  # type: ignore[call-overload]
                extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
                payload = b'{"error": {"message": "proxy says no"}}'
                writer.write(f"HTTP/1.1 {code} Planned\r\ncontent-type: application/json\r\n"
                             f"content-length: {len(payload)}\r\n{extra}connection: close\r\n"
                             "\r\n".encode() + payload)
                await writer.drain()
            elif mode[0] == "stall":
                await asyncio.sleep(float(str(mode[1])))
            else:
                await self._pass(lines, body, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _pass(self, lines: list[str], body: bytes, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter) -> None:
        kept = [ln for ln in lines if ln and not ln.lower().startswith("connection:")]
        up_r, up_w = await asyncio.open_connection(*self._up)
        up_w.write(("\r\n".join([*kept, "Connection: close"]) + "\r\n\r\n").encode("latin-1")
                   + body)
        await up_w.drain()

        async def client_gone() -> None:
            await reader.read()  # returns b"" when the client closes its side

        watcher = asyncio.ensure_future(client_gone())
        try:
            while True:
                data_task = asyncio.ensure_future(up_r.read(65536))
                done, _ = await asyncio.wait({data_task, watcher},
                                             return_when=asyncio.FIRST_COMPLETED)
                if watcher in done:
                    data_task.cancel()
                    self.client_hangups += 1
                    self.hangup.set()
                    return
                data = data_task.result()
                if not data:
                    return
                writer.write(data)
                await writer.drain()
        finally:
            watcher.cancel()
            up_w.close()  # dropping the upstream connection stops the generation
