"""Python client of the citewise HTTP service (httpx), with the local API's surface.

    from citewise.client import Client
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["Client", "SSEDecoder", "ServerSentEvent"]

_EXPORTS = {"Client": "citewise.client.client", "SSEDecoder": "citewise.client.sse",
            "ServerSentEvent": "citewise.client.sse"}

if TYPE_CHECKING:
    from citewise.client.client import Client
    from citewise.client.sse import ServerSentEvent, SSEDecoder


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'citewise.client' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
