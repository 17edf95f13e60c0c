"""Shared fixtures. Real model calls are blocked here by default (pydantic-ai style):
a test that wants a real server re-enables requests for 127.0.0.1 explicitly."""

from __future__ import annotations

import os

# The PostgreSQL fixtures (pg_server, pg_url, store) and the browser ones (browser,
# page_of) for every module, without imports that shadow them (ruff F811).
pytest_plugins = ["_stores", "_web"]

os.environ.setdefault("CITEWISE_ALLOW_MODEL_REQUESTS", "0")
# Every model the hot path builds without validation is validated and compared in tests.
os.environ.setdefault("CITEWISE_CHECK_TRUSTED", "1")


def pytest_unconfigure(config: object) -> None:
    # llama_cpp opens /dev/null twice when imported and never closes it; left open, the
    # interpreter's exit reports both as ResourceWarnings after the test summary.
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    if utils is not None:
        for name in ("outnull_file", "errnull_file"):
            f = getattr(utils, name, None)
            if f is not None:
                f.close()
