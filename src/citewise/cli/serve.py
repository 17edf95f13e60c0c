"""``citewise serve``: the HTTP API on uvicorn."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from citewise.cli.common import add_data_dir, data_dir, database_url, open_store, where

if TYPE_CHECKING:
    from citewise.server.config import ServerConfig

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="serve the HTTP API (ask, runs, documents, search)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="TCP port (default 8080)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--no-auth", action="store_true",
                   help="serve without API keys (every request is the default tenant)")
    p.add_argument("--auth", choices=("auto", "keys", "none"), default="auto",
                   help="auto (default): no auth on loopback until a key exists, keys otherwise")
    p.add_argument("--model", default=None, help="model string for runs (default: extractive)")
    p.add_argument("--max-concurrent-runs", type=int, default=None, metavar="N",
                   help="runs in progress per tenant and process (default 64)")
    p.add_argument("--rate-limit", type=float, default=None, metavar="PER_S",
                   help="requests per second per API key (0 = off; default 20)")
    p.add_argument("--run-lease-s", type=float, default=None, metavar="S",
                   help="a running run not touched for S seconds has lost its process and "
                        "is ended run_lost by any replica (default 120)")
    p.add_argument("--key-cache-s", type=float, default=None, metavar="S",
                   help="how long an API key lookup is cached: a revoked key stops working "
                        "within S seconds (default 5)")
    p.add_argument("--log-level", default="info",
                   choices=("critical", "error", "warning", "info", "debug"))
    add_data_dir(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from citewise.server.app import auth_required
    from citewise.server.config import ENV_CONFIG

    fields: dict[str, object] = {
        "host": args.host, "port": args.port, "workers": args.workers,
        "data_dir": data_dir(args), "auth": "none" if args.no_auth else args.auth,
        "gc_freeze": True,  # this process only serves
        "database_url": database_url(args),
    }
    if args.model:
        fields["model"] = args.model
    if args.max_concurrent_runs is not None:
        fields["max_concurrent_runs"] = args.max_concurrent_runs
    if args.rate_limit is not None:
        fields["rate_limit_per_s"] = args.rate_limit
    if args.run_lease_s is not None:
        fields["run_lease_s"] = args.run_lease_s
    if args.key_cache_s is not None:
        fields["key_cache_s"] = args.key_cache_s
    config = _config(fields)
    store = open_store(args)  # migrates, once, before workers start
    try:
        required = auth_required(config, store)  # refuses to start exposed without keys
    finally:
        store.close()
    mode = "API keys" if required else f"no auth (tenant {config.default_tenant!r})"
    sys.stderr.write(f"citewise: serving {where(args)} on http://{config.host}:{config.port} "
                     f"({mode}, {config.workers} worker(s))\n")
    import uvicorn

    if config.workers > 1:
        os.environ[ENV_CONFIG] = config.to_env()
        uvicorn.run("citewise.server.app:app_from_env", factory=True, host=config.host,
                    port=config.port, workers=config.workers, log_level=args.log_level)
    else:
        from citewise.server.app import create_app

        uvicorn.run(create_app(config), host=config.host, port=config.port,
                    log_level=args.log_level)
    return 0


# The flag that sets each validated field, for the message about a bad value.
_FLAGS = {"max_concurrent_runs": "--max-concurrent-runs", "rate_limit_per_s": "--rate-limit",
          "run_lease_s": "--run-lease-s", "key_cache_s": "--key-cache-s", "port": "--port",
          "workers": "--workers", "model": "--model", "host": "--host"}


def _config(fields: dict[str, object]) -> ServerConfig:
    """The server's config, or one line naming the flag whose value it refuses."""
    from pydantic import ValidationError

    from citewise.errors import InvalidInput
    from citewise.server.config import ServerConfig

    try:
        return ServerConfig.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else ""
        flag = _FLAGS.get(name, name)
        raise InvalidInput(f"{flag}: {first['msg'].lower()}", code="invalid_option",
                           details={"option": flag}) from None
