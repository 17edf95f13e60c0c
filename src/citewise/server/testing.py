"""Helpers for tests and benchmarks of the service: a real uvicorn server on a free
loopback port in a background thread, and a scripted model that takes its time."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from citewise.models.base import ModelRequest, Part
from citewise.models.scripted import ScriptedModel, Turn

__all__ = ["PacedModel", "serve"]


class PacedModel(ScriptedModel):
    """A :class:`ScriptedModel` that sleeps ``delay`` seconds before each turn (and
    ``part_delay`` between the parts of a turn), like a real model thinking."""

    def __init__(self, turns: Iterable[Turn], *, delay: float = 0.0, part_delay: float = 0.0,
                 name: str = "scripted") -> None:
        super().__init__(turns, name=name)
        self.delay = delay
        self.part_delay = part_delay

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        if self.delay:
            await asyncio.sleep(self.delay)
        async for part in super().stream(request):
            yield part
            if self.part_delay:
                await asyncio.sleep(self.part_delay)


@contextmanager
def serve(app: Any, *, host: str = "127.0.0.1", port: int = 0,
          startup_timeout: float = 30.0, **uvicorn_options: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread; yields its base URL, stops it on exit."""
    import uvicorn

    options: dict[str, Any] = {"log_level": "warning", "lifespan": "on", **uvicorn_options}
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, **options))
    thread = threading.Thread(target=server.run, name="citewise-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start (see its log)")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the server did not start in time")
        time.sleep(0.01)
    sock = server.servers[0].sockets[0]
    bound = sock.getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(30)
