"""The app factory: ``create_app(config) -> FastAPI``.

Tests and embedders inject what they need (``model=`` a model, a model string, or a
factory called once per run; ``tools=``; extra ``hooks=``); ``citewise serve`` passes only
the config. uvicorn worker processes build theirs with :func:`app_from_env`.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI

from citewise.server.config import ServerConfig, is_loopback

if TYPE_CHECKING:
    from citewise.agent.hooks import RunHook
    from citewise.agent.tools import Tool
    from citewise.server.services import ModelSource
    from citewise.store.base import Store

__all__ = ["app_from_env", "auth_required", "create_app"]

_UPLOAD_OVERHEAD = 64 * 1024  # multipart boundaries and the other form fields
GC_THRESHOLD0 = 10_000  # young-generation threshold once the heap is frozen (default 700)


def auth_required(config: ServerConfig, store: Store) -> bool:
    """Whether requests need an API key; raises ``ConfigError`` (``no_api_keys``) when the
    server would be reachable from other hosts without any key and without ``auth=none``.
    Auto mode fails closed: once the store has had a key (even one since revoked), a
    loopback server requires one too; only ``auth=none`` (``--no-auth``) opens it again."""
    if config.auth == "none":
        return False
    if config.auth == "keys":
        return True
    from citewise.store.keys import active_key_count, any_key_ever

    if active_key_count(store) > 0:
        return True
    if is_loopback(config.host):
        return any_key_ever(store)
    from citewise.errors import ConfigError

    raise ConfigError(
        f"refusing to serve on {config.host} without API keys: create one with "
        "`citewise keys create --tenant NAME`, or pass --no-auth to serve without auth",
        code="no_api_keys", details={"host": config.host})


def _keys_required_now(config: ServerConfig, store: Store) -> bool:
    """``auth_required`` while serving: a server exposed beyond loopback without any key
    left (all revoked) refuses every request rather than stopping or opening up."""
    from citewise.errors import ConfigError

    try:
        return auth_required(config, store)
    except ConfigError:
        return True


def create_app(
    config: ServerConfig | None = None,
    *,
    model: ModelSource | None = None,
    tools: Iterable[Tool | Callable[..., Any]] = (),
    hooks: Callable[[], Sequence[RunHook]] | None = None,
) -> FastAPI:
    """The citewise HTTP API as an ASGI app (start it with uvicorn)."""
    from citewise import __version__
    from citewise.server.errors import install_error_handlers, reject_repeated_query_parameters
    from citewise.server.limits import BodyLimit
    from citewise.server.routes import documents, feedback, health, runs, search, threads

    config = config or ServerConfig()
    tools = list(tools)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from citewise.server.auth import Authenticator
        from citewise.server.deps import AppState
        from citewise.server.leases import keep_leases
        from citewise.server.limits import AuthFailures, RateLimiter
        from citewise.server.manager import RunManager
        from citewise.server.services import Services
        from citewise.server.writer import LogWriter

        services = Services(config, model=model, tools=tools, hooks=hooks)
        await asyncio.to_thread(services.open)
        writer: LogWriter | None = None
        state: AppState | None = None
        leases: asyncio.Task[None] | None = None
        try:
            required = await asyncio.to_thread(auth_required, config, services.store)
            writer = LogWriter(services.store, asyncio.get_running_loop())
            manager = RunManager(services, writer, config)
            auth = Authenticator(services.store, required=required,
                                 default_tenant=config.default_tenant,
                                 cache_s=config.key_cache_s,
                                 recheck=(partial(_keys_required_now, config, services.store)
                                          if config.auth == "auto" else None),
                                 failures=AuthFailures(config.auth_failure_rate_per_s,
                                                       config.auth_failure_burst))
            limiter = RateLimiter(config.rate_limit_per_s, config.rate_limit_burst)
            state = AppState(config, services, manager, auth, limiter, ready=True)
            app.state.citewise = state
            leases = asyncio.ensure_future(keep_leases(manager))
            if config.gc_freeze:
                _freeze_heap(services)
            yield
        finally:
            if leases is not None:
                leases.cancel()
            if state is not None:
                state.ready = False
                await state.manager.shutdown()
            if writer is not None:
                await asyncio.to_thread(writer.close)
            services.close()

    app = FastAPI(
        title="citewise",
        version=__version__,
        summary="Grounded agent answers over your documents, streamed, with verified citations.",
        lifespan=lifespan,
        dependencies=[Depends(reject_repeated_query_parameters)],
        docs_url=None,  # /docs and /redoc: our offline API reference (routes/web.py)
        redoc_url=None,
    )
    install_error_handlers(app)
    for module in (health, runs, threads, documents, search, feedback):
        app.include_router(module.router)
    from citewise.server.routes import status as status_routes

    app.include_router(status_routes.router)  # GET /v1/status: embedding progress
    from citewise.server.routes import a2a, chat, spacefrontiers, trustgraph, trustgraph_socket

    # The compatibility routes: OpenAI chat completions, TrustGraph's agent (REST and its
    # socket), A2A, Space Frontiers' conversations.
    for router in (chat.router, trustgraph.router, trustgraph_socket.router, a2a.router,
                   spacefrontiers.router):
        app.include_router(router)
    from citewise.server.routes import media, personas, responses  # issue 26

    for router in (responses.router, personas.router, media.router):
        app.include_router(router)
    from citewise.server.routes import library, web

    # The web page at / (with /docs and /redoc), and the library status it shows.
    app.include_router(library.router)
    app.include_router(web.router)

    upload_limit = config.max_upload_bytes + _UPLOAD_OVERHEAD

    def limit_for(path: str) -> int:
        return upload_limit if path.startswith("/v1/documents") else config.max_body_bytes

    app.add_middleware(BodyLimit, limit_for=limit_for)
    return app


def _freeze_heap(services: Any) -> None:
    """Load what every run needs, then take all of it out of the cyclic GC's scans.

    Modules, schemas and the app live as long as the process; left in the collector's
    oldest generation they are walked on every full collection — pauses of 100s of ms
    with hundreds of runs in flight, which is what a stream's first event would wait for.
    Fewer, larger young collections (threshold 0) also cut the collector's overhead.
    """
    import importlib

    for name in ("citewise.agent.runner", "citewise.agent.loop", "citewise.agent.search_tool",
                 "citewise.grounding.assemble", "citewise.grounding.provenance",
                 "citewise.grounding.feedback", "citewise.grounding.verify",
                 "citewise.dialects", "citewise.server.formats"):
        importlib.import_module(name)
    services.kb(services.config.default_tenant)
    gc.collect()
    gc.freeze()
    _, t1, t2 = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD0, t1, t2)


def app_from_env() -> FastAPI:
    """uvicorn ``--factory`` entry for worker processes (config in ``CITEWISE_SERVER_CONFIG``)."""
    return create_app(ServerConfig.from_env())
