"""The HTTP service (FastAPI on uvicorn). Imported lazily: ``import citewise`` never
loads the web stack.

    from citewise.server import ServerConfig, create_app
    app = create_app(ServerConfig(data_dir="./data"))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["ServerConfig", "create_app"]

_EXPORTS = {"ServerConfig": "citewise.server.config", "create_app": "citewise.server.app"}

if TYPE_CHECKING:
    from citewise.server.app import create_app
    from citewise.server.config import ServerConfig


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'citewise.server' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
