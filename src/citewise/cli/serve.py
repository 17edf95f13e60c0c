"""``citewise serve``: the HTTP API on uvicorn.

The listening socket is bound before the "serving … on" line is printed: a busy port is
one line ``error: … [address_in_use]`` and exit status 2, not a claim to serve followed
by uvicorn's ``Errno 98``. With one worker the bound socket itself is handed to uvicorn
(no window for another process to take the port); with several, uvicorn binds again
right after the check.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from typing import TYPE_CHECKING

from citewise.cli.common import (
    add_data_dir,
    add_embedder,
    data_dir,
    database_url,
    embedder_name,
    open_store,
    where,
)

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
    p.add_argument("--auth-failure-rate", type=float, default=None, metavar="PER_S",
                   help="failed authentications per second per client address before "
                        "429 (0 = off; default 10, bursts of 200)")
    p.add_argument("--run-lease-s", type=float, default=None, metavar="S",
                   help="a running run not touched for S seconds has lost its process and "
                        "is ended run_lost by any replica (default 120)")
    p.add_argument("--key-cache-s", type=float, default=None, metavar="S",
                   help="how long an API key lookup is cached: a revoked key stops working "
                        "within S seconds (default 5)")
    p.add_argument("--log-level", default="info",
                   choices=("critical", "error", "warning", "info", "debug"))
    add_data_dir(p)
    add_embedder(p)
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
    if embedder_name(args):
        fields["embedder"] = embedder_name(args)
    if args.max_concurrent_runs is not None:
        fields["max_concurrent_runs"] = args.max_concurrent_runs
    if args.rate_limit is not None:
        fields["rate_limit_per_s"] = args.rate_limit
    if args.auth_failure_rate is not None:
        fields["auth_failure_rate_per_s"] = args.auth_failure_rate
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
    sock = bind(config.host, config.port)
    port = sock.getsockname()[1]  # the one bound (--port 0 picks a free one)
    if config.workers > 1:
        sock.close()  # uvicorn's supervisor binds its own, shared by the workers
    sys.stderr.write(f"citewise: serving {where(args)} on http://{config.host}:{port} "
                     f"({mode}, {config.workers} worker(s))\n")
    sys.stderr.write(f"citewise: the web page is at http://{config.host}:{port}/ "
                     "(API reference: /docs)\n")
    import uvicorn

    if config.workers > 1:
        os.environ[ENV_CONFIG] = config.to_env()
        uvicorn.run("citewise.server.app:app_from_env", factory=True, host=config.host,
                    port=config.port, workers=config.workers, log_level=args.log_level)
    else:
        from citewise.server.app import create_app

        server = uvicorn.Server(uvicorn.Config(create_app(config), host=config.host,
                                               port=config.port, log_level=args.log_level))
        with sock:
            server.run(sockets=[sock])
    return 0


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` as uvicorn binds one (``SO_REUSEADDR``), or
    ``UsageError`` ``address_in_use`` / ``address_unavailable``."""
    from citewise.errors import UsageError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"--host {host}: {exc.strerror or exc}", code="address_unavailable",
                         details={"host": host}) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        code = "address_in_use" if exc.errno == errno.EADDRINUSE else "address_unavailable"
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code=code,
                         details={"host": host, "port": port}) from None
    sock.set_inheritable(True)
    return sock


# The flag that sets each validated field, for the message about a bad value.
_FLAGS = {"max_concurrent_runs": "--max-concurrent-runs", "rate_limit_per_s": "--rate-limit",
          "auth_failure_rate_per_s": "--auth-failure-rate",
          "run_lease_s": "--run-lease-s", "key_cache_s": "--key-cache-s", "port": "--port",
          "workers": "--workers", "model": "--model", "host": "--host", "embedder": "--embedder"}


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
