"""``Client``: the citewise HTTP API with the local API's surface.

    async with Client("http://127.0.0.1:8080", api_key) as c:
        async for event in c.stream("How long do refunds take?"):
            ...
        answer = await c.ask_async("And exchanges?")

``stream``, ``resume`` and ``events`` survive a dropped connection: they re-attach to the
run with ``Last-Event-ID`` (after the server's ``retry:`` delay, backing off), so the
caller sees every event exactly once, in order, and the terminal event last.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from citewise.agent.state import Decision
from citewise.answer import Answer
from citewise.client.errors import ServiceError, ServiceUnavailable, error_from_response
from citewise.client.sse import SSEDecoder
from citewise.events import Event, event_adapter
from citewise.server.schemas import (
    DocumentInfo,
    FeedbackInfo,
    HitInfo,
    RunInfo,
    ThreadDetail,
    ThreadInfo,
    UploadResult,
)

__all__ = ["Client"]


class Client:
    """An async client of one citewise service."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        read_timeout: float = 60.0,
        max_reconnects: int = 20,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.read_timeout = read_timeout
        self.max_reconnects = max_reconnects
        self._transport = transport
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=headers, transport=transport,
            timeout=httpx.Timeout(timeout, read=read_timeout),
        )
        #: Reconnections made by streams of this client (observability, tests).
        self.reconnects = 0

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- runs ------------------------------------------------------------------------------

    async def stream(self, question: str, *, thread_id: str | None = None,
                     **options: Any) -> AsyncIterator[Event]:
        """Run the agent on ``question``; yields every event, the terminal one last."""
        body = _run_body(question, thread_id, options, stream=True)
        async for event in self._follow("POST", "/v1/runs", body, None):
            yield event

    async def start(self, question: str, *, thread_id: str | None = None,
                    **options: Any) -> RunInfo:
        """Start a run in the background; attach later with :meth:`events`."""
        body = _run_body(question, thread_id, options, stream=False)
        body["background"] = True
        return RunInfo.model_validate(await self._json("POST", "/v1/runs", json=body))

    async def events(self, run_id: str, *, after: int = 0) -> AsyncIterator[Event]:
        """Attach to a run (live or finished): its events after ``after``."""
        async for event in self._follow("GET", f"/v1/runs/{run_id}/events", None, run_id,
                                        after=after):
            yield event

    async def get_run(self, run_id: str) -> RunInfo:
        return RunInfo.model_validate(await self._json("GET", f"/v1/runs/{run_id}"))

    async def ask_async(self, question: str, *, thread_id: str | None = None,
                        **options: Any) -> Answer:
        """Run to the end and return the Answer (``status`` says if it paused or failed)."""
        body = _run_body(question, thread_id, options, stream=False)
        return Answer.model_validate(await self._json("POST", "/v1/ask", json=body))

    def ask(self, question: str, **kwargs: Any) -> Answer:
        """Synchronous :meth:`ask_async` (not from inside a running event loop)."""
        async def once() -> Answer:
            async with self._fresh() as client:
                return await client.ask_async(question, **kwargs)

        return asyncio.run(once())

    async def resume(self, run_id: str,
                     decisions: Sequence[Decision | dict[str, Any]]) -> AsyncIterator[Event]:
        """Continue a paused run; yields the continuation's events."""
        body = {"decisions": [d.model_dump(mode="json", exclude_none=True)
                              if isinstance(d, Decision) else d for d in decisions],
                "stream": True}
        async for event in self._follow("POST", f"/v1/runs/{run_id}/resume", body, run_id):
            yield event

    async def cancel(self, run_id: str) -> str:
        """Cancel a running or paused run; returns its status afterwards."""
        data = await self._json("POST", f"/v1/runs/{run_id}/cancel")
        return str(data["status"])

    async def provenance(self, run_id: str, format: str = "turtle") -> str:
        response = await self._send("GET", f"/v1/runs/{run_id}/provenance",
                                    params={"format": format})
        return response.text

    # -- threads ---------------------------------------------------------------------------

    async def list_threads(self, *, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        data = await self._json("GET", "/v1/threads", params={"limit": limit, "offset": offset})
        return [ThreadInfo.model_validate(t) for t in data["threads"]]

    async def get_thread(self, thread_id: str) -> ThreadDetail:
        return ThreadDetail.model_validate(await self._json("GET", f"/v1/threads/{thread_id}"))

    async def delete_thread(self, thread_id: str) -> None:
        await self._send("DELETE", f"/v1/threads/{thread_id}")

    # -- documents & search ----------------------------------------------------------------

    async def upload_document(self, file: str | Path | bytes, *, filename: str | None = None,
                              collection: str = "default") -> UploadResult:
        """Upload and ingest one file (a path, or bytes with ``filename``)."""
        if isinstance(file, bytes):
            if not filename:
                raise ValueError("filename is required when uploading bytes")
            data, name = file, filename
        else:
            path = Path(file)
            data, name = await asyncio.to_thread(path.read_bytes), filename or path.name
        files = {"file": (name, data, "application/octet-stream")}
        result = await self._json("POST", "/v1/documents", files=files,
                                  data={"collection": collection})
        return UploadResult.model_validate(result)

    async def list_documents(self, *, collection: str | None = None, limit: int = 100,
                             offset: int = 0) -> list[DocumentInfo]:
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if collection is not None:
            params["collection"] = collection
        data = await self._json("GET", "/v1/documents", params=params)
        return [DocumentInfo.model_validate(d) for d in data["documents"]]

    async def get_document(self, document_id: str, *, text: bool = False) -> DocumentInfo:
        data = await self._json("GET", f"/v1/documents/{document_id}",
                                params={"text": str(text).lower()})
        return DocumentInfo.model_validate(data)

    async def delete_document(self, document_id: str) -> None:
        await self._send("DELETE", f"/v1/documents/{document_id}")

    async def search(self, query: str, *, k: int = 5,
                     filters: dict[str, Any] | None = None) -> list[HitInfo]:
        body: dict[str, Any] = {"query": query, "k": k}
        if filters:
            body["filters"] = filters
        data = await self._json("POST", "/v1/search", json=body)
        return [HitInfo.model_validate(h) for h in data["hits"]]

    # -- feedback --------------------------------------------------------------------------

    async def feedback(self, token: str, rating: int, *, run_id: str | None = None,
                       document_index: int | None = None, snippet_index: int | None = None,
                       comment: str | None = None) -> int:
        """Rate an answer with its ``trajectory.feedback_token``; returns the rating's id."""
        body = {"token": token, "rating": rating, "run_id": run_id,
                "document_index": document_index, "snippet_index": snippet_index,
                "comment": comment}
        data = await self._json("POST", "/v1/feedback",
                                json={k: v for k, v in body.items() if v is not None})
        return int(data["id"])

    async def list_feedback(self, run_id: str | None = None) -> list[FeedbackInfo]:
        params = {"run_id": run_id} if run_id else {}
        data = await self._json("GET", "/v1/feedback", params=params)
        return [FeedbackInfo.model_validate(f) for f in data["feedback"]]

    # -- plumbing --------------------------------------------------------------------------

    def _fresh(self) -> Client:
        return Client(self.base_url, self.api_key, timeout=self.timeout,
                      read_timeout=self.read_timeout, max_reconnects=self.max_reconnects,
                      transport=self._transport)

    async def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self._http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise ServiceUnavailable(f"cannot reach {self.base_url}: {exc}",
                                     details={"type": type(exc).__name__}) from exc
        if response.status_code >= 400:
            raise error_from_response(response.status_code, response.content)
        return response

    async def _json(self, method: str, url: str, **kwargs: Any) -> Any:
        response = await self._send(method, url, **kwargs)
        try:
            return response.json()
        except ValueError as exc:
            raise ServiceError(f"{method} {url} did not answer JSON",
                               code="invalid_response") from exc

    async def _follow(self, method: str, url: str, body: dict[str, Any] | None,
                      run_id: str | None, *, after: int = 0) -> AsyncIterator[Event]:
        """One SSE request, then GET /events with Last-Event-ID after each drop."""
        last = after
        delay = 1.0
        failures = 0
        headers: dict[str, str] = {"Accept": "text/event-stream"}
        if after:
            headers["Last-Event-ID"] = str(after)
        while True:
            try:
                async with self._http.stream(method, url, json=body, headers=headers) as resp:
                    if resp.status_code >= 400:
                        raise error_from_response(resp.status_code, await resp.aread())
                    run_id = run_id or resp.headers.get("X-Run-Id")
                    decoder = SSEDecoder()
                    async for chunk in resp.aiter_bytes():
                        for sse in decoder.feed(chunk):
                            event = event_adapter.validate_json(sse.data)
                            if event.seq <= last:
                                continue  # never twice, even from a misbehaving proxy
                            last = event.seq
                            run_id = event.run_id
                            failures = 0
                            yield event
                            if event.is_terminal:
                                return
                    if decoder.retry is not None:
                        delay = decoder.retry / 1000
            except httpx.TransportError as exc:
                if run_id is None:
                    raise ServiceUnavailable(f"cannot reach {self.base_url}: {exc}",
                                             details={"type": type(exc).__name__}) from exc
            except json.JSONDecodeError as exc:  # pragma: no cover - a broken server
                raise ServiceError("the event stream carried invalid JSON",
                                   code="invalid_response") from exc
            if run_id is None:
                raise ServiceError("the stream ended before naming its run", code="stream_lost")
            failures += 1
            if failures > self.max_reconnects:
                raise ServiceUnavailable(f"lost the stream of run {run_id} and could not "
                                         f"re-attach after {self.max_reconnects} tries",
                                         code="stream_lost", details={"run_id": run_id})
            self.reconnects += 1
            await asyncio.sleep(min(30.0, delay * (2 ** (failures - 1)) if failures > 1 else delay))
            method, url, body = "GET", f"/v1/runs/{run_id}/events", None
            headers = {"Accept": "text/event-stream", "Last-Event-ID": str(last)}


def _run_body(question: str, thread_id: str | None, options: dict[str, Any], *,
              stream: bool) -> dict[str, Any]:
    allowed = {"strict", "max_steps", "output_schema", "persona", "audio", "image"}
    unknown = set(options) - allowed
    if unknown:
        raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
    body: dict[str, Any] = {"question": question, "stream": stream, **options}
    if thread_id is not None:
        body["thread_id"] = thread_id
    return body
