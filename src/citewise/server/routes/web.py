"""The web page: ``/`` and its static assets, plus ``/docs`` and ``/redoc`` served offline.

Why a route module rather than ``StaticFiles``: every page response must carry the same
security headers (a CSP that allows no inline script, ``nosniff``, ``frame-ancestors``) as
real HTTP headers, and the asset set is small and fixed, so an allow-list of files read
once from the package is both simpler and safer than serving a folder. Nothing here is
fetched from a CDN: the API reference at ``/docs`` and ``/redoc`` is our own page that
renders ``/openapi.json`` in the browser.

The page itself needs no key (it holds no data); it asks ``/web/config.json`` whether the
API needs one, so it can ask the user before the first API call instead of after a 401.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from citewise.errors import NotFound

__all__ = ["ASSETS", "SECURITY_HEADERS", "asset_bytes", "router"]

router = APIRouter(include_in_schema=False)

#: File name → content type: everything the page may load (nothing else is served).
ASSETS: dict[str, str] = {
    "app.js": "text/javascript; charset=utf-8",
    "api.js": "text/javascript; charset=utf-8",
    "dom.js": "text/javascript; charset=utf-8",
    "stream.js": "text/javascript; charset=utf-8",
    "run.js": "text/javascript; charset=utf-8",
    "answer.js": "text/javascript; charset=utf-8",
    "viewer.js": "text/javascript; charset=utf-8",
    "library.js": "text/javascript; charset=utf-8",
    "threads.js": "text/javascript; charset=utf-8",
    "apiref.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}

#: Sent with the page and every asset. ``style-src`` allows no inline styles either: the
#: page sets styles through CSSOM (``element.style``), which CSP does not restrict.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'; object-src 'none'")
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


@cache
def asset_bytes(name: str) -> bytes:
    """One file of ``citewise/server/web`` (read once; the package does not change)."""
    return (resources.files("citewise.server") / "web" / name).read_bytes()


def _send(request: Request, name: str, media_type: str) -> Response:
    body = asset_bytes(name)
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    headers = {**SECURITY_HEADERS, "ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


@router.get("/")
async def index(request: Request) -> Response:
    return _send(request, "index.html", "text/html; charset=utf-8")


@router.get("/docs")
@router.get("/redoc")
async def api_reference(request: Request) -> Response:
    return _send(request, "apiref.html", "text/html; charset=utf-8")


@router.get("/favicon.ico")
async def favicon(request: Request) -> Response:
    return _send(request, "icon.svg", ASSETS["icon.svg"])


@router.get("/web/config.json")
async def page_config(request: Request) -> Response:
    """What the page needs before its first API call: whether to ask for a key."""
    from citewise import __version__

    state = getattr(request.app.state, "citewise", None)
    required = bool(state is not None and state.auth.required)
    return JSONResponse({"auth_required": required, "version": __version__},
                        headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})


@router.get("/web/{name}")
async def asset(name: str, request: Request) -> Response:
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFound(f"no such asset {name!r}", code="not_found", details={"name": name})
    return _send(request, name, media_type)
