"""What the browser tests share: Debian's Chromium driven by Playwright (a missing browser
fails under ``CI=true``, skips elsewhere), a real server on loopback whose model routes on
the question (``approve …``, ``slow …`` and ``stray …`` are scripted, anything else is the default
``extractive`` model), a TCP proxy that can cut every connection mid-stream, and a page
fixture that fails the test on any console error (404s included)."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
from collections.abc import AsyncGenerator, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from _models import question_and_turn
from citewise.agent.tools import tool
from citewise.models.base import ModelRequest
from citewise.models.extractive import ExtractiveModel
from citewise.models.scripted import Part, answer, call, thought
from citewise.server import ServerConfig, create_app
from citewise.server.testing import PacedModel

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs" / "screenshots"


def require_browser() -> Any:
    """``playwright.sync_api`` with Chromium present, or a skip (a failure in CI)."""
    missing = None
    try:
        import playwright.sync_api as sync_api
    except ImportError:
        missing = "the playwright package is not installed"
    if missing is None and not Path(CHROMIUM).exists():
        missing = f"{CHROMIUM} is missing (apt-get install chromium; scripts/provision.py)"
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    return sync_api


@tool(requires_approval=True)
def refund(order: str) -> str:
    """Refund an order (a human approves first).

    Args:
        order: the order id
    """
    return f"refunded {order}"


@tool
def wait(seconds: float) -> str:
    """Wait a little, like a slow system.

    Args:
        seconds: how long
    """
    return f"waited {seconds}s"


def _slow_turns() -> list[list[Part]]:
    return [
        [*(thought(f"part {i} of the plan. ") for i in range(6)), call("wait", seconds=0.05)],
        [thought("Writing it down. "),
         *(answer(f"Chunk {i} of the streamed answer arrives. ") for i in range(8))],
    ]


SCRIPTS: dict[str, tuple[list[Any], float, float]] = {
    # first word → (turns, delay before a turn, delay between its parts)
    "approve": ([call("refund", order="A-17"), "The refund of A-17 is done."], 0.0, 0.0),
    "slow": (_slow_turns(), 0.2, 0.15),
    # One claim on the stove guide, one that cites the returns policy for a stove question:
    # the verifier flags the second (off_topic_evidence), not the answer as a whole.
    "stray": ([call("search_knowledge", query="Flint stove fuel refund"),
               "The Flint stove burns butane canisters only [1]. "
               "Refunds are paid to the card used at checkout [2]."], 0.0, 0.0),
}


class Routed:
    """Stateless: the question's first word picks a script (by the number of model turns
    since the question, so a resumed run goes on where it paused); else ``extractive``."""

    name = "extractive"

    def __init__(self) -> None:
        self.extractive = ExtractiveModel()

    async def stream(self, request: ModelRequest) -> AsyncGenerator[Part, None]:
        question, done = question_and_turn(request)
        script = SCRIPTS.get(question.split()[0].lower()) if question.split() else None
        if script is None:
            async for part in self.extractive.stream(request):
                yield part
            return
        turns, delay, part_delay = script
        model = PacedModel([turns[min(done, len(turns) - 1)]], delay=delay, part_delay=part_delay)
        async for part in model.stream(request):
            yield part


def make_app(data_dir: Path, **overrides: Any) -> Any:
    fields: dict[str, Any] = {"data_dir": data_dir, "rate_limit_per_s": 0, "heartbeat_s": 0.5,
                              "poll_interval_s": 0.05, "cancel_grace_s": 0.3}
    fields.update(overrides)
    return create_app(ServerConfig(**fields), model=Routed, tools=[refund, wait])


class CuttingProxy:
    """A loopback TCP proxy; :meth:`cut` drops every open connection (a network failure,
    as the browser sees it). Records the ``Last-Event-ID`` of each request through it."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.last_event_ids: list[int] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            with self.lock:
                self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, requests: bool) -> None:
        with suppress(OSError):
            while data := src.recv(65536):
                if requests:
                    for line in data.split(b"\r\n"):
                        if line.lower().startswith(b"last-event-id:"):
                            self.last_event_ids.append(int(line.split(b":", 1)[1]))
                dst.sendall(data)
        for s in (src, dst):
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> int:
        with self.lock:
            victims, self.sockets = self.sockets, []
        for s in victims:
            with suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        return len(victims) // 2

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.cut()


class Console:
    """Console errors and page errors of a page (a failed resource load is one)."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))


def launch_browser() -> Iterator[Any]:
    """One Chromium for a module (each test module has ``browser = module_browser()``)."""
    sync_api = require_browser()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


def new_page(browser: Any, base: str, **context: Any) -> tuple[Any, Any, Console]:
    ctx = browser.new_context(base_url=base, **context)
    ctx.set_default_timeout(30_000)  # a shared 2-core machine
    page = ctx.new_page()
    return ctx, page, Console(page)


def pages(browser: Any) -> Iterator[Any]:
    """For a ``page_of`` fixture: ``page_of(base, **context)`` → (page, console); each is
    closed after the test, and the test fails if its console logged an error."""
    opened: list[tuple[Any, Console]] = []

    def make(base: str, **context: Any) -> tuple[Any, Console]:
        ctx, page, console = new_page(browser, base, **context)
        opened.append((ctx, console))
        return page, console

    yield make
    errors = [e for _, console in opened for e in console.errors]
    for ctx, _ in opened:
        ctx.close()
    assert errors == [], errors


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per test module (import this fixture, and ``page_of``, from here)."""
    yield from launch_browser()


@pytest.fixture
def page_of(browser: Any) -> Iterator[Any]:
    yield from pages(browser)


def serve_with(data_dir: Path, documents: dict[str, str]) -> Iterator[str]:
    """For a module's ``base`` fixture: a real server on loopback over ``data_dir`` with
    ``documents`` (name → text) uploaded through the API; yields its URL."""
    import httpx

    from citewise.server.testing import serve

    with serve(make_app(data_dir)) as url:
        with httpx.Client(base_url=url, timeout=60) as http:
            for name, text in documents.items():
                r = http.post("/v1/documents", files={"file": (name, text.encode())})
                assert r.status_code == 201, r.text
        yield url


def ready(page: Any, path: str = "/") -> None:
    page.goto(path)
    page.wait_for_selector("html[data-ready=true]")


def ask(page: Any, question: str) -> None:
    page.fill("#question", question)
    page.press("#question", "Enter")


def screenshot(page: Any, name: str) -> None:
    """Take the README's screenshot ``name``: into ``docs/screenshots`` when
    ``CITEWISE_UPDATE_SCREENSHOTS=1`` (to refresh them on purpose), else into a
    temporary folder, so that a test run leaves the checkout as it was."""
    if os.environ.get("CITEWISE_UPDATE_SCREENSHOTS") == "1":
        folder = SCREENSHOTS
    else:
        folder = Path(tempfile.gettempdir()) / "citewise-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name))
