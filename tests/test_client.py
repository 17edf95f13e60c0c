"""The Python client: its SSE decoder against the WHATWG rules, and its whole surface
against a real server — including a stream cut by a flaky proxy, re-attached with
Last-Event-ID without losing or repeating an event."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from citewise.answer import Answer
from citewise.cli.main import main
from citewise.client import Client
from citewise.client.errors import AuthenticationError, ServiceUnavailable
from citewise.client.sse import ServerSentEvent, SSEDecoder
from citewise.errors import InvalidInput, NotFound, UsageError
from citewise.events import Event
from citewise.server.testing import serve
from test_server import DOC, assert_complete, assert_complete_with_pause, make_app

# -- the SSE decoder ------------------------------------------------------------------------


def decode(*chunks: bytes | str) -> tuple[list[ServerSentEvent], SSEDecoder]:
    d = SSEDecoder()
    out: list[ServerSentEvent] = []
    for c in chunks:
        out += d.feed(c)
    d.close()
    return out, d


def test_sse_fields_and_multiline_data() -> None:
    events, d = decode("event: add\ndata: 73857293\n\nid: 7\ndata: first\ndata:second\n"
                       "data\n\n")
    assert events[0] == ServerSentEvent(data="73857293", event="add")
    assert events[1].data == "first\nsecond\n"  # a field without colon: empty value
    assert events[1].id == "7" and events[1].event == "message"
    assert d.last_event_id == "7"


def test_sse_comments_blank_dispatch_and_one_space() -> None:
    events, _ = decode(": comment\n\ndata:  two spaces\n\n: ping\n\ndata\n\n")
    assert [e.data for e in events] == [" two spaces", ""]  # only ONE space is dropped


def test_sse_line_endings_split_across_chunks() -> None:
    events, _ = decode(b"data: a\r", b"\ndata: b\r\r", b"data: c\n", b"\n", b"data: d\r\n\r\n")
    assert [e.data for e in events] == ["a\nb", "c", "d"]


def test_sse_utf8_split_inside_a_character_and_bom() -> None:
    payload = "\ufeffdata: café ✓\n\n".encode()
    events, _ = decode(*[payload[i:i + 1] for i in range(len(payload))])
    assert [e.data for e in events] == ["café ✓"]


def test_sse_id_persists_nul_ignored_and_empty_resets() -> None:
    events, d = decode("id: 1\ndata: a\n\ndata: b\n\nid: 2\0x\ndata: c\n\nid\ndata: d\n\n")
    assert [e.id for e in events] == ["1", "1", "1", ""]
    assert d.last_event_id == ""


def test_sse_id_without_blank_line_is_not_yet_the_last_id() -> None:
    d = SSEDecoder()
    d.feed("id: 1\ndata: a\n\nid: 2\ndata: b\n")  # the stream drops here
    assert d.last_event_id == "1"  # a reconnect must ask for what came after 1


def test_sse_retry_only_digits_event_type_reset_and_eof() -> None:
    events, d = decode("retry: 1500\n\nretry: 2x\nevent: x\n\ndata: y\n\ndata: lost")
    assert d.retry == 1500
    assert [(e.data, e.event, e.retry) for e in events] == [("y", "message", 1500)]


# -- the client against a real server -------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(make_app(tmp_path_factory.mktemp("client"))) as url:
        yield url


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_stream_ask_and_ask_sync(base: str) -> None:
    async def go() -> tuple[list[Event], Answer]:
        async with Client(base) as c:
            events = [e async for e in c.stream("slow run")]
            return events, await c.ask_async("quick", max_steps=3)

    events, answer = run(go())  # type: ignore[misc]
    assert_complete(events)
    assert events[-1].kind == "run_finished"
    assert answer.text == "The answer is 42."
    sync = Client(base).ask("quick again")
    assert sync.status == "completed"


def test_background_run_attached_with_events(base: str) -> None:
    async def go() -> list[Event]:
        async with Client(base) as c:
            info = await c.start("slow run")
            assert info.status == "running"
            events = [e async for e in c.events(info.run_id)]
            assert (await c.get_run(info.run_id)).status == "completed"
            later = [e async for e in c.events(info.run_id, after=events[-3].seq)]
            assert [e.seq for e in later] == [e.seq for e in events[-2:]]
            return events

    assert_complete(run(go()))  # type: ignore[arg-type]


def test_resume_and_cancel(base: str) -> None:
    async def go() -> None:
        async with Client(base) as c:
            paused = [e async for e in c.stream("approve please")]
            assert paused[-1].kind == "run_paused"
            interrupt = paused[-1].interrupts[0]  # type: ignore[union-attr]
            resumed = [e async for e in c.resume(paused[-1].run_id, [
                {"interrupt_id": interrupt.id, "action": "reject", "message": "not today"}])]
            assert resumed[-1].kind == "run_finished"
            assert_complete_with_pause(paused + resumed)
            info = await c.start("wait")
            assert await c.cancel(info.run_id) == "cancelled"
            with pytest.raises(UsageError) as ended:
                await c.cancel(info.run_id)
            assert ended.value.code == "run_finished"

    run(go())


def test_documents_search_threads_feedback(base: str, tmp_path: Path) -> None:
    path = tmp_path / "returns.md"
    path.write_text(DOC)

    async def go() -> None:
        async with Client(base) as c:
            up = await c.upload_document(path, collection="policies")
            assert up.status == "added"
            doc = up.document
            assert [d.id for d in await c.list_documents(collection="policies")] == [doc.id]
            assert "14 days" in ((await c.get_document(doc.id, text=True)).text or "")
            hits = await c.search("refunds issued", k=2)
            assert hits[0].document_id == doc.id
            answer = await c.ask_async("search refunds")
            assert answer.citations
            assert answer.trajectory is not None and answer.trajectory.feedback_token
            fid = await c.feedback(answer.trajectory.feedback_token, 3,
                                   run_id=answer.run_id, document_index=1)
            assert [f.id for f in await c.list_feedback(answer.run_id)] == [fid]
            thread = await c.get_thread(answer.thread_id)
            assert thread.turns[0].question == "search refunds"
            assert answer.thread_id in [t.id for t in await c.list_threads()]
            assert "urn:citewise:run:" in await c.provenance(answer.run_id)
            await c.delete_thread(answer.thread_id)
            with pytest.raises(NotFound):
                await c.get_thread(answer.thread_id)
            await c.delete_document(doc.id)
            with pytest.raises(NotFound) as missing:
                await c.get_document(doc.id)
            assert missing.value.code == "unknown_document"
            assert missing.value.details["status"] == 404
            up2 = await c.upload_document(b"plain text body", filename="note.txt")
            assert up2.document.source == "note.txt"

    run(go())


def test_errors_are_typed(base: str) -> None:
    async def go() -> None:
        async with Client(base) as c:
            with pytest.raises(NotFound):
                await c.get_run("run_missing")
            with pytest.raises(NotFound):
                [e async for e in c.events("run_missing")]
            with pytest.raises(InvalidInput) as bad:
                await c.ask_async("q" * 9000)
            assert bad.value.code == "question_too_long"
        async with Client("http://127.0.0.1:9") as dead:
            with pytest.raises(ServiceUnavailable):
                await dead.ask_async("anyone?")

    run(go())


def test_bad_key_is_an_authentication_error(tmp_path: Path) -> None:
    with serve(make_app(tmp_path, auth="keys")) as url:
        async def go() -> None:
            async with Client(url, "cwk_wrong") as c:
                with pytest.raises(AuthenticationError) as err:
                    await c.list_threads()
                assert err.value.code == "invalid_api_key"

        run(go())


# -- a dropped stream is re-attached --------------------------------------------------------


class FlakyProxy:
    """A TCP proxy that cuts the first ``cuts`` connections after ``after_bytes`` bytes of
    response, like a load balancer dropping long streams."""

    def __init__(self, target_port: int, *, after_bytes: int, cuts: int) -> None:
        self.target_port = target_port
        self.after_bytes = after_bytes
        self.cuts_left = cuts
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            cut = self.cuts_left > 0
            self.cuts_left -= 1
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(client, upstream, None),
                             daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client,
                                                      self.after_bytes if cut else None),
                             daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket, limit: int | None) -> None:
        sent = 0
        try:
            while True:
                data = src.recv(4096)
                if not data:
                    break
                if limit is not None and sent + len(data) >= limit:
                    dst.sendall(data[: max(0, limit - sent)])
                    break
                dst.sendall(data)
                sent += len(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.listener.close()


def test_stream_survives_dropped_connections(base: str) -> None:
    port = int(base.rsplit(":", 1)[1])
    proxy = FlakyProxy(port, after_bytes=1500, cuts=2)
    try:
        async def go() -> tuple[list[Event], int]:
            async with Client(f"http://127.0.0.1:{proxy.port}") as c:
                events = [e async for e in c.stream("slow run")]
                return events, c.reconnects

        events, reconnects = run(go())  # type: ignore[misc]
    finally:
        proxy.close()
    assert reconnects >= 2
    assert_complete(events)  # every seq once, in order, terminal last
    assert events[-1].kind == "run_finished"


def test_cli_ask_with_server(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "quick question", "--server", base]) == 0
    out = capsys.readouterr()
    assert "The answer is 42." in out.out
    assert "thought" in out.err
    assert main(["ask", "quick", "--server", base, "--json", "-q"]) == 0
    assert Answer.model_validate_json(capsys.readouterr().out).text == "The answer is 42."
