"""A Server-Sent Events decoder that follows the WHATWG HTML spec, "Interpreting an
event stream" (https://html.spec.whatwg.org/multipage/server-sent-events.html).

* The stream is UTF-8 (decoded incrementally; a leading BOM is dropped).
* Lines end with CRLF, LF or CR — a CR at the end of one chunk and an LF at the start of
  the next are one line ending.
* ``:`` starts a comment (ignored); ``field: value`` drops ONE leading space of the value;
  a line without a colon is a field with an empty value.
* ``data`` appends the value plus LF to the data buffer; ``event`` sets the type;
  ``id`` sets the last event ID buffer (unless the value contains NUL), which becomes
  the stream's last event ID at the next blank line and persists across events;
  ``retry`` (ASCII digits only) sets the reconnection time; other fields are ignored.
* A blank line dispatches: with an empty data buffer nothing is dispatched (the type is
  reset); otherwise the final LF is removed and an event is dispatched.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

__all__ = ["SSEDecoder", "ServerSentEvent", "aiter_sse"]


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event."""

    data: str
    event: str = "message"
    id: str = ""  # the last event ID as of this event ("" = none)
    retry: int | None = None  # the reconnection time in effect, if the stream set one


class SSEDecoder:
    """Feed bytes (or text), get events. Keeps ``last_event_id`` and ``retry``."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._pending_cr = False
        self._first = True
        self._data: list[str] = []
        self._event = ""
        self._id_buffer = ""
        self.last_event_id = ""  # updated at each blank line, as the spec's "last event ID"
        self.retry: int | None = None

    def feed(self, chunk: bytes | str) -> list[ServerSentEvent]:
        text = self._utf8.decode(chunk) if isinstance(chunk, bytes) else chunk
        return list(self._lines(text))

    def close(self) -> list[ServerSentEvent]:
        """End of stream: an incomplete event (no blank line yet) is discarded, per spec."""
        self._lines(self._utf8.decode(b"", final=True))
        self._buffer = ""
        self._data = []
        self._event = ""
        return []

    def _lines(self, text: str) -> Iterator[ServerSentEvent]:
        if self._first and text:
            self._first = False
            if text.startswith("\ufeff"):
                text = text[1:]
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across chunks
        self._pending_cr = False
        buf = self._buffer + text
        start = 0
        n = len(buf)
        i = 0
        while i < n:
            ch = buf[i]
            if ch == "\r" or ch == "\n":
                line = buf[start:i]
                if ch == "\r":
                    if i + 1 < n:
                        if buf[i + 1] == "\n":
                            i += 1
                    else:
                        self._pending_cr = True
                i += 1
                start = i
                event = self._line(line)
                if event is not None:
                    yield event
                continue
            i += 1
        self._buffer = buf[start:]

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id_buffer = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        self.last_event_id = self._id_buffer
        if not self._data:
            self._event = ""
            return None
        data = "\n".join(self._data)
        event = ServerSentEvent(data=data, event=self._event or "message",
                                id=self.last_event_id, retry=self.retry)
        self._data = []
        self._event = ""
        return event


async def aiter_sse(chunks: AsyncIterator[bytes],
                    decoder: SSEDecoder | None = None) -> AsyncIterator[ServerSentEvent]:
    """Events from an async iterator of byte chunks (e.g. ``httpx.Response.aiter_bytes``)."""
    decoder = decoder or SSEDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event
    decoder.close()
