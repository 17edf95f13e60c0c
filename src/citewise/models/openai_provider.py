"""Where an OpenAI-compatible server lives and how we talk to it: base URL, key, headers,
timeouts, retries, and the ``httpx.AsyncClient`` they share.

Why httpx and not the ``openai`` SDK: httpx is already a core dependency; we need the raw
SSE stream to tolerate servers that bend the format (llama.cpp, older Ollama); we want our
own retry policy (honouring ``Retry-After``, giving up early so a fallback chain can move
on) and our own error codes; and closing a stream must close the socket at once — with
``client.send(stream=True)`` inside an async generator, ``aclose()`` on the generator
closes the response, nothing in between buffers.

Retries happen only before the first byte of a response body is handed on: once parts
have been streamed to the loop a retry would duplicate them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any

import httpx

from citewise.errors import ModelError
from citewise.models.failures import (
    ModelAuthFailed,
    ModelBadResponse,
    ModelRateLimited,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
)
from citewise.models.guard import check_model_request

__all__ = ["RETRY_STATUS", "OpenAIProvider", "retry_delay"]

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def retry_delay(headers: Mapping[str, str], attempt: int, *, base: float,
                cap: float) -> float:
    """Seconds to wait before retry ``attempt`` (0-based): the server's ``retry-after-ms``
    / ``Retry-After`` (seconds or an HTTP date) when given, else exponential backoff with
    full jitter, never above ``cap``."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if ra:
        try:
            return max(0.0, float(ra))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(ra).timestamp() - time.time())
            except (TypeError, ValueError):
                pass
    return random.uniform(0, min(cap, base * 2**attempt))


def _error_message(body: bytes) -> str:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return body[:300].decode("utf-8", "replace").strip()
    err = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(err, dict):
        return str(err.get("message") or err.get("detail") or err)[:300]
    return str(err)[:300]


async def _close_at_loop_shutdown(client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await client.aclose()


class OpenAIProvider:
    """An OpenAI-compatible endpoint.

    Args:
        base_url: e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:11434/v1``.
        api_key: sent as ``Authorization: Bearer …`` when given.
        headers: extra headers (``api-key`` for Azure, ``OpenAI-Organization`` …).
        connect_timeout / read_timeout: seconds; the read timeout bounds the gap between
            two chunks of a stream (and the wait for the response headers).
        max_retries: extra attempts on connect errors, timeouts before any output, 408,
            409, 429 and 5xx.
        backoff / max_backoff: exponential backoff base and cap, in seconds.
        max_retry_after: a ``Retry-After`` longer than this is not waited for; the call
            fails at once with ``model_rate_limited`` / ``model_unavailable`` (so a fallback
            chain moves on instead of sleeping for minutes).
        client: an ``httpx.AsyncClient`` you own (we then never close it).
        name: the provider's name in model names (``openai``, ``openai-compat``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        max_retry_after: float = 60.0,
        client: httpx.AsyncClient | None = None,
        name: str = "openai-compat",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._headers = {"Accept": "application/json", **dict(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._own_client = client is None
        self._client = client
        self._loop: asyncio.AbstractEventLoop | None = None
        self._keeper: AsyncGenerator[None, None] | None = None
        self.attempts = 0  # HTTP requests sent (tests and benchmarks read it)

    # -- client lifecycle ----------------------------------------------------------------

    async def _get_client(self) -> httpx.AsyncClient:
        # An AsyncClient's pool belongs to one event loop: when called from a new loop
        # (each asyncio.run), start a fresh client rather than reuse dead connections.
        loop = asyncio.get_running_loop()
        if self._client is None or (self._own_client and self._loop is not loop):
            self._client = httpx.AsyncClient(timeout=self.timeout, headers=self._headers)
            self._loop = loop
            if self._own_client:
                # Close it when its loop shuts down (asyncio.run finalises live async
                # generators), so no socket outlives the loop it belongs to.
                self._keeper = _close_at_loop_shutdown(self._client)
                await anext(self._keeper)
        return self._client

    async def aclose(self) -> None:
        """Close the client we created (a client passed in stays open)."""
        if self._own_client and self._client is not None:
            client, self._client = self._client, None
            keeper, self._keeper = self._keeper, None
            if keeper is not None:
                await keeper.aclose()  # its finally closes the client
            else:
                await client.aclose()

    async def __aenter__(self) -> OpenAIProvider:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    # -- requests ------------------------------------------------------------------------

    async def post_json(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST and return the JSON body (with retries)."""
        response = await self._send(path, payload, stream=False)
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ModelBadResponse(f"{self.base_url}{path} did not return JSON") from exc
        if not isinstance(data, dict):
            raise ModelBadResponse(f"{self.base_url}{path} returned JSON that is not an object")
        return data

    async def post_stream(self, path: str, payload: dict[str, Any]) -> AsyncGenerator[Any, None]:
        """POST and yield each server-sent event's JSON ``data`` until ``[DONE]``.

        Closing this generator (``aclose()``, or cancelling the task iterating it) closes
        the HTTP response, which drops the connection: the server stops generating.
        """
        response = await self._send(path, payload, stream=True)
        try:
            async for data in self._events(response):
                yield data
        except httpx.TimeoutException as exc:
            raise ModelTimeout(f"no data from {self.base_url} for {self.timeout.read}s "
                               "in the middle of a stream",
                               details={"read_timeout": self.timeout.read}) from exc
        except httpx.HTTPError as exc:
            raise ModelUnavailable(f"the stream from {self.base_url} broke: {exc!r}") from exc
        finally:
            await response.aclose()

    async def _events(self, response: httpx.Response) -> AsyncIterator[Any]:
        data: list[str] = []
        done = False
        async for line in response.aiter_lines():
            if done:  # drain what follows [DONE] so the connection goes back to the pool
                continue
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
                continue
            if line or not data:  # "event:", "id:", ":" comments; or a stray blank line
                continue
            payload, data = "\n".join(data), []
            if payload.strip() == "[DONE]":
                done = True
                continue
            yield self._json(payload)
        if not done and data and "\n".join(data).strip() != "[DONE]":  # a last event without a blank line
            yield self._json("\n".join(data))

    def _json(self, payload: str) -> Any:
        try:
            return json.loads(payload)
        except json.JSONDecodeError as exc:
            raise ModelBadResponse(f"{self.base_url} sent an event that is not JSON: "
                                   f"{payload[:200]!r}") from exc

    async def _send(self, path: str, payload: dict[str, Any], *, stream: bool) -> httpx.Response:
        url = f"{self.base_url}{path}"
        check_model_request(url)
        client = await self._get_client()
        attempt = 0
        while True:
            self.attempts += 1
            request = client.build_request("POST", url, json=payload, headers=self._headers)
            try:
                response = await client.send(request, stream=stream)
            except httpx.TimeoutException as exc:
                failure: ModelError = ModelTimeout(
                    f"{url} did not answer in time ({type(exc).__name__})",
                    details={"connect_timeout": self.timeout.connect,
                             "read_timeout": self.timeout.read})
                delay = retry_delay({}, attempt, base=self.backoff, cap=self.max_backoff)
            except httpx.HTTPError as exc:
                failure = ModelUnavailable(f"cannot reach {url}: {exc!r}")
                delay = retry_delay({}, attempt, base=self.backoff, cap=self.max_backoff)
            else:
                if response.status_code < 400:
                    return response
                body = await response.aread()
                await response.aclose()
                failure = self._status_error(response.status_code, body, url)
                if response.status_code not in RETRY_STATUS:
                    raise failure
                delay = retry_delay(response.headers, attempt, base=self.backoff,
                                    cap=self.max_backoff)
                if delay > self.max_retry_after:
                    failure.details["retry_after"] = delay
                    raise failure
            if attempt >= self.max_retries:
                failure.details["attempts"] = attempt + 1
                raise failure
            attempt += 1
            await asyncio.sleep(delay)

    def _status_error(self, status: int, body: bytes, url: str) -> ModelError:
        msg = f"{url} answered HTTP {status}: {_error_message(body)}"
        details = {"status": status}
        if status in (401, 403):
            return ModelAuthFailed(msg, details=details)
        if status == 429:
            return ModelRateLimited(msg, details=details)
        if status == 408:
            return ModelTimeout(msg, details=details)
        if status >= 500 or status == 409:
            return ModelUnavailable(msg, details=details)
        return ModelRequestRejected(msg, details=details)
