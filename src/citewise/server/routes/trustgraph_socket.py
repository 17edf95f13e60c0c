"""TrustGraph's websocket, ``/api/v1/socket`` (issue 26): what ``trustgraph-base``'s socket
clients (``Api(url).socket()`` / ``.async_socket()``) connect to — they have no other
streaming transport, so without it they cannot reach citewise at all.

The protocol is TrustGraph's gateway's (its ``Mux``), read from ``trustgraph-base`` 2.11:

* the first frame is ``{"type": "auth", "token": …}``: the token is a citewise API key (any
  token, even an empty one, on a server that runs without keys). The answer is
  ``{"type": "auth-ok", "workspace", "default_workspace"}`` — the caller's tenant, under
  both names, since the gateway writes the first and the clients read the second — or
  ``{"type": "auth-failed", "error"}``, and the socket stays open for another try;
* then requests, multiplexed on one socket: ``{id, workspace, service, flow, request}``.
  Only ``service: "agent"`` is served (``request`` is TrustGraph's ``AgentRequest``, as on
  the REST route); each request runs concurrently and its responses come as
  ``{id, response, complete}``, ``response`` a TrustGraph 2.x chunk
  (:class:`~citewise.dialects.trustgraph.CurrentEncoder`), ``complete`` true on the last;
* a refusal, and a run that fails or pauses, is ``{id, error: {type, message, code},
  complete: true}`` with TrustGraph's types (``auth-required``, ``access-denied``,
  ``unknown-service``, ``request-error``, ``agent-error``) and citewise's error code beside
  them (``run_paused`` for a pause: resume it through ``/v1/runs/{id}/resume``);
* ``workspace`` is the tenant: empty, ``default`` or the caller's own tenant is accepted,
  another tenant's is ``access-denied``; ``flow`` is accepted and, as on REST, not used.

Closing the socket stops streaming; runs go on and stay in the store, as when an HTTP
client leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from citewise.dialects.base import Obj, dumps
from citewise.dialects.trustgraph import CurrentEncoder, current_final
from citewise.errors import CitewiseError
from citewise.events import event_adapter
from citewise.server.auth import Principal
from citewise.server.formats import check_request, seed_thread, wait_terminal
from citewise.server.trustgraph_request import TrustGraphAgentRequest, turns_of

__all__ = ["router"]

#: Included by the TrustGraph REST router (prefix ``/api/v1``), so the path is /api/v1/socket.
router = APIRouter(prefix="/api/v1", tags=["trustgraph"])

#: Requests one socket may run at once (TrustGraph's gateway allows 15 outstanding).
MAX_OUTSTANDING = 15


class _Refused(Exception):
    def __init__(self, kind: str, message: str, code: str) -> None:
        super().__init__(message)
        self.error = {"type": kind, "message": message, "code": code}


class _Socket:
    """One connection: its caller once authenticated, and its requests in flight."""

    def __init__(self, ws: WebSocket, state: Any) -> None:
        self.ws = ws
        self.state = state
        self.caller: Principal | None = None
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()  # one frame at a time on the wire

    async def send(self, obj: Obj) -> None:
        async with self._lock:
            await self.ws.send_text(dumps(obj))

    async def auth(self, frame: Obj) -> None:
        token = frame.get("token")
        try:
            key = token.strip() if isinstance(token, str) and token.strip() else None
            self.caller = await self.state.auth.principal(None, key)
        except CitewiseError:
            await self.send({"type": "auth-failed", "error": "auth failure"})
            return
        tenant = self.caller.tenant
        await self.send({"type": "auth-ok", "workspace": tenant, "default_workspace": tenant})

    def check(self, frame: Obj) -> Principal:
        if self.caller is None:
            raise _Refused("auth-required", "auth failure", "missing_api_key")
        if frame.get("service") != "agent":
            raise _Refused("unknown-service", f"unknown service {frame.get('service')!r}: "
                           "citewise serves `agent`", "unknown_service")
        workspace = frame.get("workspace") or "default"
        if workspace not in ("default", self.caller.tenant):
            raise _Refused("access-denied", "access denied", "forbidden_workspace")
        if len(self.tasks) >= MAX_OUTSTANDING:
            raise _Refused("request-error", "too many requests in flight on this socket",
                           "too_many_requests")
        self.state.limiter.check(self.caller.limit_key)
        return self.caller

    async def request(self, frame: Obj) -> None:
        request_id = frame.get("id")
        if not isinstance(request_id, str) or not request_id or "request" not in frame:
            await self.send({"error": {"type": "error", "message": "Bad message",
                                       "code": "invalid_message"}, "complete": True,
                             **({"id": request_id} if request_id else {})})
            return
        try:
            caller = self.check(frame)
        except _Refused as refused:
            await self.send({"id": request_id, "error": refused.error, "complete": True})
            return
        except CitewiseError as exc:
            await self.send({"id": request_id, "error": _error_of(exc), "complete": True})
            return
        task = asyncio.ensure_future(self._answer(request_id, caller.tenant, frame["request"]))
        self.tasks[request_id] = task
        task.add_done_callback(lambda _: self.tasks.pop(request_id, None))

    async def _answer(self, request_id: str, tenant: str, body: Any) -> None:
        try:
            await self._run(request_id, tenant, body)
        except CitewiseError as exc:
            await self._send_quietly({"id": request_id, "error": _error_of(exc), "complete": True})
        except ValidationError as exc:
            error = {"type": "request-error", "message": str(exc.errors()[0]["msg"]),
                     "code": "validation_error"}
            await self._send_quietly({"id": request_id, "error": error, "complete": True})

    async def _send_quietly(self, obj: Obj) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            await self.send(obj)

    async def _run(self, request_id: str, tenant: str, body: Any) -> None:
        agent = TrustGraphAgentRequest.model_validate(body)
        check_request(self.state, agent.question)
        history = turns_of(agent.history)
        thread = None
        if history:
            thread = await seed_thread(self.state, tenant, history, title=history[0][0])
        try:
            live = await self.state.manager.start(tenant, agent.question, thread_id=thread)
        except BaseException:
            if thread is not None:
                with contextlib.suppress(CitewiseError):
                    await asyncio.to_thread(self.state.services.store.delete_thread, tenant,
                                            thread)
            raise
        if not agent.streaming:
            from citewise.dialects.base import answer_of

            terminal = await wait_terminal(live)
            interrupts = getattr(terminal, "interrupts", None) or []
            final = current_final(answer_of(terminal), interrupts)  # type: ignore[arg-type]
            await self.send(_envelope(request_id, final))
            return
        encoder = CurrentEncoder()
        frames = await self.state.manager.open_tail(tenant, live.run_id, 0)
        try:
            async for frame in frames:
                if frame is None:
                    continue  # a heartbeat: websockets keep themselves alive (pings)
                for obj in encoder.feed(event_adapter.validate_json(frame.data)):
                    await self.send(_envelope(request_id, obj))
                if encoder.done:
                    break
        finally:
            await frames.aclose()

    async def close(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(BaseException):
                await task


def _envelope(request_id: str, chunk: Obj) -> Obj:
    """A chunk as the socket sends it. A failed or paused run's ``error`` chunk goes in the
    envelope's ``error``, where both of TrustGraph's socket clients raise on it (the async
    one never looks for an error inside a response)."""
    if "error" in chunk:
        return {"id": request_id, "error": chunk["error"], "complete": True}
    return {"id": request_id, "response": chunk, "complete": bool(chunk.get("end_of_dialog"))}


def _error_of(exc: CitewiseError) -> Obj:
    return {"type": "request-error", "message": str(exc), "code": exc.code}


@router.websocket("/socket")
async def trustgraph_socket(ws: WebSocket) -> None:
    """TrustGraph's multiplexed websocket (first-frame auth, then `agent` requests)."""
    state = getattr(ws.app.state, "citewise", None)
    if state is None or not state.ready:
        await ws.close(code=1013)  # try again later
        return
    await ws.accept()
    sock = _Socket(ws, state)
    try:
        while True:
            raw = await ws.receive_text()
            try:
                frame = json.loads(raw)
            except ValueError:
                frame = None
            if not isinstance(frame, dict):
                await sock.send({"error": {"type": "error", "message": "Bad message",
                                           "code": "invalid_message"}, "complete": True})
            elif frame.get("type") == "auth":
                await sock.auth(frame)
            else:
                await sock.request(frame)
    except WebSocketDisconnect:
        pass
    finally:
        await sock.close()
