"""The web app: :func:`create_app` puts the site together.

Its middleware checks every unsafe request's CSRF token and origin before any route runs
(:mod:`~andar_bahar.web.http.security`) and works out each client's address
(:mod:`~andar_bahar.web.http.clients`); the project's errors a route raises become a
sentence in the user's language (:func:`~andar_bahar.web.http.responses.error_response`);
the routes themselves come from the club's pages
(:func:`andar_bahar.web.pages.routes.register`), and live updates go through the app's
:class:`~andar_bahar.web.live.hub.Hub`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

import anyio.to_thread
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ExceptionHandler
from starlette.websockets import WebSocket

from andar_bahar.engine.errors import AccessError, AndarBaharError
from andar_bahar.i18n.messages import N_, Localizable, Message
from andar_bahar.web.http.clients import ClientAddresses, trusted_proxies
from andar_bahar.web.http.responses import API_PREFIX, error_response
from andar_bahar.web.http.security import DEFAULT_CSP, WebMiddleware, new_secret
from andar_bahar.web.http.site import Site
from andar_bahar.web.http.templating import make_environment, warm_up
from andar_bahar.web.live.hub import Hub
from andar_bahar.web.live.memory import limit_pools
from andar_bahar.web.pages.routes import register

__all__ = [
    "GC_YOUNG",
    "WORKER_THREADS",
    "Pages",
    "create_app",
    "limit_threads",
    "tune_garbage_collector",
]

Pages = Callable[[FastAPI, Site], None]
"""What adds a site's routes to its app: ``pages(app, site)``."""

log = logging.getLogger(__name__)

GC_YOUNG = 10_000
"""Objects made (less those freed) before a server's garbage collector looks at the young
ones (Python's default: 700); see :func:`tune_garbage_collector`."""
WORKER_THREADS = 8
"""Threads that run an app's blocking work at once (a route written as a plain function,
a live render); see :func:`limit_threads`."""
NOT_FOUND = Message(N_("There is no such page."))
NOT_ALLOWED = Message(N_("This page does not take that kind of request."))
HTTP_ERROR = N_("The request could not be served (error {status}).")
SERVER_ERROR = Message(
    N_("Something went wrong on the server: try again, and tell the club if it happens again.")
)
INVALID_FORM = N_("Some fields of the form are missing or wrong: {fields}.")


def create_app(
    *,
    database_url: str | None = None,
    secret: bytes | str | None = None,
    hub: Hub | None = None,
    trusted_origins: Iterable[str] = (),
    content_security_policy: str | None = DEFAULT_CSP,
    csrf_exempt_paths: Iterable[str] = (API_PREFIX,),
    reload_templates: bool = False,
    pages: Pages | None = register,
    limits: object | None = None,
    pin_cost: object | None = None,
    serving: bool = False,
    connections: int | None = None,
    proxies: Iterable[str] = (),
) -> FastAPI:
    """The club's web app.

    *secret* signs the CSRF tokens (a fresh random one when ``None``: the pages open
    at a restart then ask to be reloaded). *trusted_origins* (``"https://club.example"``)
    may post besides the app's own host, e.g. behind a proxy that changes the host.
    *csrf_exempt_paths* are path prefixes whose unsafe requests are not checked (none
    by default). The routes come from ``pages(app, site)``: the club's pages, by default
    (``None``: none, a bare app). *limits* (a :class:`~andar_bahar.club.limits.Limits`) replaces the
    default limits on guessing and on new tables; *pin_cost* (a
    :class:`~andar_bahar.club.store.PinCost`) the cost of hashing new tables' PINs
    (``None``: the production cost). *serving*: the app is the server's process
    (``andar-bahar serve``): every template and catalogue loaded before the first answer
    (:func:`~andar_bahar.web.http.templating.warm_up`), then :func:`tune_garbage_collector`.
    *connections*: the most connections to a database server this app opens at once.
    *proxies*: the reverse proxies (addresses or networks) whose ``X-Forwarded-For`` says
    the client's address (:class:`~andar_bahar.web.http.clients.ClientAddresses`).
    """
    key = secret.encode() if isinstance(secret, str) else secret
    site = Site(
        env=make_environment(auto_reload=reload_templates),
        secret=key if key else new_secret(),
        hub=hub if hub is not None else Hub(),
        database_url=database_url,
        connections=connections,
    )

    app = FastAPI(
        title="andar-bahar",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=_lifespan(site, serving=serving),
    )
    app.state.site = site
    app.state.hub = site.hub
    app.state.lifespan_hooks = []  # async context managers' factories, run while the app runs
    app.state.database_url = database_url
    app.state.limits = limits
    app.state.pin_cost = pin_cost
    app.mount("/static", StaticFiles(packages=[("andar_bahar.web", "static")]), name="static")
    app.add_middleware(
        WebMiddleware,
        secret=site.secret,
        reject=_reject,
        trusted_origins=trusted_origins,
        content_security_policy=content_security_policy,
        exempt_paths=csrf_exempt_paths,
    )
    # Every limit counts a request by its client's IP address, worked out once, here.
    app.add_middleware(ClientAddresses, proxies=trusted_proxies(proxies))
    handlers: dict[type[Exception], Any] = {
        AndarBaharError: _on_project_error,
        RequestValidationError: _on_invalid_request,
        StarletteHTTPException: _on_http_error,
        Exception: _on_server_error,
    }
    for exception, handler in handlers.items():
        app.add_exception_handler(exception, cast(ExceptionHandler, handler))

    if pages is not None:
        pages(app, site)
    return app


def _lifespan(
    site: Site, *, serving: bool
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """What the app does while it runs: its blocking work on a few threads
    (:func:`limit_threads`), the hub's heartbeat, the hooks
    of ``app.state.lifespan_hooks``; serving, every template and catalogue loaded before the
    first answer (no phone waits for a compile) and the process's memory tuned."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        limit_threads()
        site.hub.bind(asyncio.get_running_loop())
        beating = asyncio.ensure_future(site.hub.heartbeat())
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(beating.cancel)
            for hook in app.state.lifespan_hooks:
                await stack.enter_async_context(hook())
            if serving:
                warm_up(site.env)
                limit_pools()
                tune_garbage_collector()
            yield
            site.hub.close()  # the browsers reconnect, with backoff, to the next server

    return lifespan


def limit_threads(threads: int = WORKER_THREADS) -> None:
    """Run the event loop's blocking work (AnyIO's thread pool, where Starlette and FastAPI
    run it) on at most *threads* threads at once, the rest waiting their turn; call it in
    the event loop.

    A process runs Python on one thread at a time, and a request waits outside it only for
    its database (a commit's sync to disk, PostgreSQL's round trips): a small part of its
    time, which a few threads cover. With AnyIO's default of forty, a burst of bets takes
    turns in slices of the interpreter's switch interval (5 ms) and all of them finish
    late; with a few, each is answered in turn (docs/performance.md: the p99 of a bet and
    of a card lower in most of ten alternating pairs, the CPU a request too).
    """
    anyio.to_thread.current_default_thread_limiter().total_tokens = threads


def tune_garbage_collector() -> None:
    """For a server process, once started: fewer and shorter pauses of the garbage collector.

    What the server has made by then (the modules, the app, the templates) lives as long
    as it does: frozen out of the collector's sight, so that a full collection (which
    stops every request) looks only at what requests made since. ``serve`` starts with
    the collector off (:func:`andar_bahar.cli.serve.serve`: its imports make hundreds of
    thousands of objects and free almost none), and it is turned on here, without a
    collection first: the start leaves some thousand unreachable objects, which a full
    collection of everything would take a tenth of a second to find. And the collector
    looks at young objects after :data:`GC_YOUNG` of them rather than Python's 700, which
    makes the full collections, tens of milliseconds each, some 14 times rarer under load.
    """
    gc.freeze()
    if gc.get_threshold()[0] < GC_YOUNG:
        gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    gc.enable()


# -- the refusals and the exception handlers ----------------------------------


async def _reject(request: Request, message: Message, status_code: int) -> Response:
    return error_response(request, message, status_code)


async def _close_websocket(conn: Request, code: int) -> None:
    websocket = cast(WebSocket, cast(object, conn))
    with contextlib.suppress(RuntimeError):  # already closed
        await websocket.close(code=code)


async def _on_project_error(request: Request, exc: Exception) -> Response | None:
    """An :class:`AndarBaharError`: 400 (403 for an :class:`AccessError`), its sentence.

    A refusal reaches htmx as 200 (it shows in ``#errors``); a server that cannot serve
    now (503: its database is not answering) says so with its status, so that the page
    knows its action was not done and sends it again with the same key."""
    if request.scope["type"] == "websocket":
        await _close_websocket(request, 1008)
        return None
    status = getattr(exc, "http_status", 403 if isinstance(exc, AccessError) else 400)
    response = error_response(request, exc, status, htmx_status=200 if status < 500 else None)
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


async def _on_invalid_request(request: Request, exc: Exception) -> Response | None:
    """A form that FastAPI could not read into the route's parameters: 422, naming the fields."""
    if request.scope["type"] == "websocket":
        await _close_websocket(request, 1008)
        return None
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    fields = list(dict.fromkeys(str(error["loc"][-1]) for error in errors if error.get("loc")))
    message = Message(INVALID_FORM, fields=", ".join(fields) or "?")
    return error_response(request, message, 422, htmx_status=200)


async def _on_http_error(request: Request, exc: Exception) -> Response | None:
    """404, 405 and the like (a Localizable ``detail`` is shown as it is)."""
    assert isinstance(exc, StarletteHTTPException)
    if request.scope["type"] == "websocket":
        await _close_websocket(request, 1008)
        return None
    if exc.status_code < 400:
        return Response(status_code=exc.status_code, headers=exc.headers)
    detail: object = exc.detail
    message: object
    if isinstance(detail, Localizable):
        message = detail
    elif exc.status_code == 404:
        message = NOT_FOUND
    elif exc.status_code == 405:
        message = NOT_ALLOWED
    else:
        message = Message(HTTP_ERROR, status=exc.status_code)
    response = error_response(request, message, exc.status_code)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _on_server_error(request: Request, exc: Exception) -> Response | None:
    """Anything else: 500 and one sentence (the traceback goes to the server's log only)."""
    if request.scope["type"] == "websocket":
        await _close_websocket(request, 1011)
        return None
    return error_response(request, SERVER_ERROR, 500)
