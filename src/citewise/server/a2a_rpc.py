"""JSON-RPC 2.0 for the A2A endpoint: the envelope, A2A's error objects, the request params.

Every reply is HTTP 200 with a JSON-RPC response object, as A2A's own SDK server answers:
its client maps an error object's ``code`` to a typed exception (``TaskNotFoundError`` for
-32001, …) only when it gets one, and raises a bare HTTP error otherwise. Refusals of the
HTTP request itself (401 no or bad API key, 413 body too large, 429 rate or concurrent-run
limit, 503 not ready) stay HTTP statuses with citewise's error body, as for every route.

An error's ``data`` is A2A v1.0's detail list: one ``google.rpc.ErrorInfo`` whose
``reason`` is A2A's (``TASK_NOT_FOUND``, …) and whose ``metadata`` carries citewise's
stable ``code`` (and its ``details`` as JSON text: ErrorInfo metadata values are strings).
The A2A SDK hands that metadata to the exception it raises as ``error.data``.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from citewise.errors import CitewiseError

__all__ = [
    "CONTENT_TYPE_NOT_SUPPORTED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_JSON_DEPTH",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "PROTOCOL_VERSION",
    "PUSH_NOT_SUPPORTED",
    "TASK_NOT_CANCELABLE",
    "TASK_NOT_FOUND",
    "UNSUPPORTED_OPERATION",
    "VERSION_NOT_SUPPORTED",
    "Message",
    "Params",
    "Part",
    "RequestId",
    "RpcError",
    "SendParams",
    "TaskParams",
    "check_version",
    "envelope",
    "error_body",
    "parse_body",
    "result_body",
    "rpc_error_of",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002
PUSH_NOT_SUPPORTED = -32003
UNSUPPORTED_OPERATION = -32004
CONTENT_TYPE_NOT_SUPPORTED = -32005
VERSION_NOT_SUPPORTED = -32009

_REASONS = {
    PARSE_ERROR: "PARSE_ERROR", INVALID_REQUEST: "INVALID_REQUEST",
    METHOD_NOT_FOUND: "METHOD_NOT_FOUND", INVALID_PARAMS: "INVALID_PARAMS",
    INTERNAL_ERROR: "INTERNAL_ERROR", TASK_NOT_FOUND: "TASK_NOT_FOUND",
    TASK_NOT_CANCELABLE: "TASK_NOT_CANCELABLE",
    PUSH_NOT_SUPPORTED: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    UNSUPPORTED_OPERATION: "UNSUPPORTED_OPERATION",
    CONTENT_TYPE_NOT_SUPPORTED: "CONTENT_TYPE_NOT_SUPPORTED",
    VERSION_NOT_SUPPORTED: "VERSION_NOT_SUPPORTED",
}
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
_DOMAIN = "a2a-protocol.org"

RequestId = str | int | None
PROTOCOL_VERSION = "1.0"


class RpcError(Exception):
    """A JSON-RPC error to answer: A2A's numeric ``rpc_code``, citewise's ``code``."""

    def __init__(self, rpc_code: int, message: str, *, code: str,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.rpc_code = rpc_code
        self.message = message
        self.code = code
        self.details = details or {}


def error_body(request_id: RequestId, error: RpcError) -> dict[str, Any]:
    metadata = {"code": error.code}
    if error.details:
        metadata["details"] = json.dumps(error.details, ensure_ascii=False, default=str)
    info = {"@type": _ERROR_INFO, "reason": _REASONS.get(error.rpc_code, "UNKNOWN_ERROR"),
            "domain": _DOMAIN, "metadata": metadata}
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": error.rpc_code, "message": error.message, "data": [info]}}


def result_body(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


# HTTP statuses that refuse the request itself rather than the operation: kept as HTTP.
_HTTP_LEVEL = frozenset({401, 403, 413, 429, 503})


def rpc_error_of(exc: CitewiseError, status: int) -> RpcError | None:
    """The JSON-RPC error for a typed citewise error answered ``status`` over plain HTTP;
    None for a refusal that stays an HTTP status."""
    if status in _HTTP_LEVEL:
        return None
    if exc.code == "unknown_run":
        rpc = TASK_NOT_FOUND
    elif status == 409:  # the task is not in a state that takes this
        rpc = UNSUPPORTED_OPERATION
    elif status < 500:
        rpc = INVALID_PARAMS
    else:
        rpc = INTERNAL_ERROR
    return RpcError(rpc, exc.message, code=exc.code, details=exc.details)


def envelope(body: Any) -> tuple[RequestId, str, dict[str, Any]]:
    """The id, method and params of a request, or the error that refuses it."""
    if isinstance(body, list):
        raise RpcError(INVALID_REQUEST, "batch requests are not supported",
                       code="invalid_request")
    if not isinstance(body, dict):
        raise RpcError(INVALID_REQUEST, "the request must be a JSON object",
                       code="invalid_request")
    request_id = body.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | None):
        raise RpcError(INVALID_REQUEST, "id must be a string, an integer or null",
                       code="invalid_request")
    if body.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "jsonrpc must be exactly \"2.0\"",
                       code="invalid_request")
    method, params = body.get("method"), body.get("params", {})
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "method must be a non-empty string",
                       code="invalid_request")
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object",
                       code="validation_error")
    return request_id, method, params


def check_version(header: str) -> None:
    """Refuse an ``A2A-Version`` other than 1.0 (patch versions aside); none at all is
    taken as 1.0, so a hand-written call needs no header."""
    version = header.strip()
    if version and version.split(".")[:2] not in (["1"], ["1", "0"]):
        raise RpcError(VERSION_NOT_SUPPORTED,
                       f"A2A version {version} is not supported (this agent speaks "
                       f"{PROTOCOL_VERSION})", code="version_not_supported",
                       details={"supported": [PROTOCOL_VERSION]})


MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a request may have (A2A's own is under 10)."""


def parse_body(raw: bytes) -> Any:
    """The request's JSON, or a parse error: not JSON, or nested too deeply (the parser
    itself recurses, and so would everything that walks the value after it)."""
    try:
        body = json.loads(raw)
    except RecursionError:
        body = None
        depth = MAX_JSON_DEPTH + 1
    except ValueError as exc:
        raise RpcError(PARSE_ERROR, f"the body is not JSON: {exc}",
                           code="parse_error") from None
    else:
        depth = _depth(body)
    if depth > MAX_JSON_DEPTH:
        raise RpcError(PARSE_ERROR, f"the JSON nests deeper than {MAX_JSON_DEPTH} "
                           "levels", code="parse_error", details={"max_depth": MAX_JSON_DEPTH})
    return body


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (iterative: no recursion limit);
    stops counting past :data:`MAX_JSON_DEPTH`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > MAX_JSON_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


class Params(BaseModel):
    # ProtoJSON: camelCase or the proto's own snake_case; unknown fields are ignored for
    # forward compatibility (as the SDK's parser does).
    model_config = ConfigDict(extra="ignore", populate_by_name=True, alias_generator=to_camel)


class Part(Params):
    """One part of a message: exactly one of text, data, url, raw."""

    text: str | None = None
    data: Any = None
    url: str | None = None
    raw: str | None = None
    media_type: str = ""
    filename: str = ""


class Message(Params):
    """The client's message (only what citewise reads)."""

    message_id: str = Field(min_length=1, max_length=256)
    context_id: str = Field(default="", max_length=128)
    task_id: str = Field(default="", max_length=128)
    role: str | int = ""
    parts: list[Part] = Field(min_length=1, max_length=1000)


class Configuration(Params):
    return_immediately: bool = False
    accepted_output_modes: list[str] = Field(default_factory=list)
    history_length: int | None = None


class SendParams(Params):
    """``SendMessage`` / ``SendStreamingMessage`` params (``SendMessageRequest``)."""

    message: Message
    configuration: Configuration = Field(default_factory=Configuration)


class TaskParams(Params):
    """``GetTask`` / ``CancelTask`` / ``SubscribeToTask`` params."""

    id: str = Field(min_length=1, max_length=128)
