"""The OpenAPI document of the service, as committed in ``schemas/openapi.json``.

    python -m citewise.server.openapi schemas/openapi.json    # regenerate
    python -m citewise.server.openapi                         # print it

A test checks that the committed file is exactly what the code generates.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["generate", "render"]


def generate() -> dict[str, Any]:
    """The spec of an app with the default configuration (the API does not depend on it)."""
    from citewise.server.app import create_app
    from citewise.server.config import ServerConfig

    spec: dict[str, Any] = create_app(ServerConfig()).openapi()
    return spec


def render(spec: dict[str, Any] | None = None) -> str:
    return json.dumps(spec or generate(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    text = render()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
