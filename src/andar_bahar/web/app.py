"""The web app: :func:`create_app`, and the helpers a route uses to answer.

A route renders a page with :func:`render`; the project's errors it raises become
a sentence in the user's language (a page, or an htmx fragment shown in
``#errors``); unsafe requests are checked for their CSRF token before any route
runs (:mod:`andar_bahar.web.security`); live updates go through the app's
:class:`~andar_bahar.web.live.Hub`.

    from andar_bahar.web.app import render

    def register(app: FastAPI, site: Site) -> None:
        @app.get("/t/{code}")
        def table(request: Request, code: str) -> HTMLResponse:
            return render(request, "table.html", live_table=code, table=...)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import html
import importlib
import importlib.util
import logging
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlencode

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from jinja2 import Environment
from markupsafe import Markup
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ExceptionHandler
from starlette.websockets import WebSocket

from andar_bahar.engine.errors import AccessError, AndarBaharError
from andar_bahar.i18n.messages import N_, Localizable, Message
from andar_bahar.web.context import RequestInfo, is_htmx, localize, request_info
from andar_bahar.web.language import LANG_PARAMETER, LANGUAGE_NAMES
from andar_bahar.web.limits import ClientAddresses, trusted_proxies
from andar_bahar.web.live import CountRequests, Hub
from andar_bahar.web.security import (
    CSRF_FIELD,
    CSRF_HEADER,
    DEFAULT_CSP,
    Signer,
    WebMiddleware,
    csrf_token,
    new_secret,
    set_cookie,
)
from andar_bahar.web.templating import gettext_callables, make_environment, static_version

__all__ = [
    "HTMX_CONFIG",
    "Site",
    "create_app",
    "error_response",
    "page_context",
    "redirect",
    "render",
    "render_string",
    "set_cookie",
    "site_of",
]

log = logging.getLogger(__name__)

GC_YOUNG = 10_000
"""Objects made (less those freed) before a server's garbage collector looks at the young
ones (Python's default: 700); see :func:`tune_garbage_collector`."""
API_PREFIX = "/api/"
"""The JSON API: bearer tokens, no cookies, so no CSRF token; errors as JSON."""
PAGES_MODULE = "andar_bahar.web.pages"
"""The other half of the site: its ``register(app, site)`` adds the page routes."""

NOT_FOUND = Message(N_("There is no such page."))
NOT_ALLOWED = Message(N_("This page does not take that kind of request."))
HTTP_ERROR = N_("The request could not be served (error {status}).")
SERVER_ERROR = Message(
    N_("Something went wrong on the server: try again, and tell the club if it happens again.")
)
INVALID_FORM = N_("Some fields of the form are missing or wrong: {fields}.")

HTMX_CONFIG: Mapping[str, object] = {
    # No eval: the Content-Security-Policy allows scripts from /static only
    # (so no hx-on:*, no "js:" values, no [filters] in hx-trigger).
    "allowEval": False,
    "historyRestoreAsHxRequest": False,
    # Error responses to htmx are fragments for #errors (they say so in HX-Retarget);
    # show them even when their status is 403, 404 or 500.
    "responseHandling": [
        {"code": "204", "swap": False},
        {"code": "[23]..", "swap": True},
        {
            "code": "[45]..",
            "swap": True,
            "error": True,
            "target": "#errors",
            "swapOverride": "innerHTML",
        },
    ],
}
"""htmx's settings, given to it by ``<meta name="htmx-config">`` in ``base.html``."""

ERRORS_TARGET = "#errors"
FRAGMENT_HEADERS = {
    "HX-Retarget": ERRORS_TARGET,
    "HX-Reswap": "innerHTML",
    "HX-Reselect": "unset",
    "HX-Push-Url": "false",
}


@dataclass(frozen=True, slots=True)
class Site:
    """What the page routes share: given to ``pages.register(app, site)``, kept in ``app.state.site``."""

    env: Environment
    """The Jinja environment (templates in ``andar_bahar/web/templates``)."""
    secret: bytes
    """The app secret (CSRF tokens, :meth:`signer`)."""
    hub: Hub
    """Live updates: the followers of every table in this process."""
    database_url: str | None
    """The tables' database (``None``: the history's default SQLite file)."""
    connections: int | None = None
    """The most connections to a database server this process opens (``None``: the
    engine's default); ``serve`` splits its ``--db-connections`` among its workers."""

    def signer(self, purpose: str) -> Signer:
        """Sign values (a player's seat in a cookie, say) for one *purpose*."""
        return Signer(self.secret, purpose)


def site_of(conn: HTTPConnection) -> Site:
    """The :class:`Site` of the app that serves *conn*."""
    site = conn.app.state.site
    assert isinstance(site, Site)
    return site


def create_app(
    *,
    database_url: str | None = None,
    secret: bytes | str | None = None,
    hub: Hub | None = None,
    trusted_origins: Iterable[str] = (),
    content_security_policy: str | None = DEFAULT_CSP,
    csrf_exempt_paths: Iterable[str] = (API_PREFIX,),
    reload_templates: bool = False,
    pages_module: str | None = PAGES_MODULE,
    limits: object | None = None,
    serving: bool = False,
    connections: int | None = None,
    proxies: Iterable[str] = (),
) -> FastAPI:
    """The club's web app.

    *secret* signs the CSRF tokens (a fresh random one when ``None``: the pages open
    at a restart then ask to be reloaded). *trusted_origins* (``"https://club.example"``)
    may post besides the app's own host, e.g. behind a proxy that changes the host.
    *csrf_exempt_paths* are path prefixes whose unsafe requests are not checked (none
    by default). The routes come from ``pages_module.register(app, site)`` if that
    module exists. *limits* (a :class:`~andar_bahar.web.limits.Limits`) replaces the
    default limits on guessing and on new tables. *serving*: the app is the server's
    process (``andar-bahar serve``): :func:`tune_garbage_collector` once it has started.
    *connections*: the most connections to a database server this app opens at once.
    *proxies*: the reverse proxies (addresses or networks) whose ``X-Forwarded-For`` says
    the client's address (:class:`~andar_bahar.web.limits.ClientAddresses`).
    """
    key = secret.encode() if isinstance(secret, str) else secret
    site = Site(
        env=make_environment(auto_reload=reload_templates),
        secret=key if key else new_secret(),
        hub=hub if hub is not None else Hub(),
        database_url=database_url,
        connections=connections,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        site.hub.bind(asyncio.get_running_loop())
        beating = asyncio.ensure_future(site.hub.heartbeat())
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(beating.cancel)
            for hook in app.state.lifespan_hooks:
                await stack.enter_async_context(hook())
            if serving:
                tune_garbage_collector()
            yield
            site.hub.close()  # the browsers reconnect, with backoff, to the next server

    app = FastAPI(
        title="andar-bahar",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.site = site
    app.state.hub = site.hub
    app.state.lifespan_hooks = []  # async context managers' factories, run while the app runs
    app.state.database_url = database_url
    app.state.limits = limits
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
    app.add_middleware(CountRequests, hub=site.hub)  # outermost: every request counts
    handlers: dict[type[Exception], Any] = {
        AndarBaharError: _on_project_error,
        RequestValidationError: _on_invalid_request,
        StarletteHTTPException: _on_http_error,
        Exception: _on_server_error,
    }
    for exception, handler in handlers.items():
        app.add_exception_handler(exception, cast(ExceptionHandler, handler))

    if pages_module is not None and _module_exists(pages_module):
        importlib.import_module(pages_module).register(app, site)
    return app


def tune_garbage_collector() -> None:
    """For a server process, once started: fewer and shorter pauses of the garbage collector.

    What the server has made by then (the modules, the app, the templates) lives as long
    as it does: frozen out of the collector's sight, so that a full collection (which
    stops every request) looks only at what requests made since. And the collector looks
    at young objects after :data:`GC_YOUNG` of them rather than Python's 700, which makes
    the full collections, tens of milliseconds each, some 14 times rarer under load.
    """
    gc.collect()
    gc.freeze()
    if gc.get_threshold()[0] < GC_YOUNG:
        gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its package is missing
        return False


# -- rendering ---------------------------------------------------------------


def page_context(request: Request, **context: object) -> dict[str, Any]:
    """What every template sees, then *context* (which may override any of it).

    ``request``, ``lang``, ``translations``, ``_`` / ``gettext`` / ``ngettext`` /
    ``pgettext`` / ``npgettext`` (the request's language), ``csrf_token``,
    ``csrf_field`` (a hidden input for forms), ``static_url(path)``,
    ``languages`` and ``lang_url(code)`` (the switcher), ``home_url``,
    ``live_table`` (``None``; a table code makes the page follow that table),
    ``live_page`` and ``live_version`` (its page kind and version, see
    :mod:`~andar_bahar.web.live_pages`), ``live_beat`` (the hub's heartbeat, seconds: the
    page reconnects after 1.4 beats of silence), ``answering`` (``True`` only in the answer
    to the viewer's own action) and ``live_path(code)``, ``is_htmx``,
    ``htmx_config``, ``url_for``.
    """
    info: RequestInfo = request_info(request)
    token = csrf_token(site_of(request).secret, info.csrf_cookie)
    root = str(request.scope.get("root_path", ""))

    def static_url(path: str) -> str:
        return f"{request.url_for('static', path=path).path}?v={static_version(path)}"

    def lang_url(code: str) -> str:
        query = [(k, v) for k, v in request.query_params.multi_items() if k != LANG_PARAMETER]
        path = "/" + request.url.path.lstrip("/")  # "//host/…" would lead to another site
        return f"{path}?{urlencode([*query, (LANG_PARAMETER, code)])}"

    def live_path(code: str) -> str:
        return request.url_for("live", code=code).path

    values: dict[str, Any] = {
        "request": request,
        "lang": info.lang,
        "translations": info.translations,
        **gettext_callables(info.lang),
        "csrf_token": token,
        "csrf_field": Markup('<input type="hidden" name="{}" value="{}">').format(
            CSRF_FIELD, token
        ),
        "csrf_headers": {CSRF_HEADER: token},
        "static_url": static_url,
        "languages": list(LANGUAGE_NAMES.items()),
        "lang_url": lang_url,
        "home_url": f"{root}/",
        "live_table": None,
        "live_page": None,
        "live_version": 0,
        "live_beat": site_of(request).hub.beat,
        "answering": False,
        "live_path": live_path,
        "is_htmx": is_htmx(request),
        "htmx_config": HTMX_CONFIG,
        "url_for": request.url_for,
    }
    values.update(context)
    return values


def render_string(
    request: Request, template_name: str, /, *, block: str | None = None, **context: object
) -> str:
    """A template (or one *block* of it, for an htmx fragment) rendered for *request*."""
    template = site_of(request).env.get_template(template_name)
    values = page_context(request, **context)
    if block is None:
        return template.render(values)
    return "".join(template.blocks[block](template.new_context(values)))


def render(
    request: Request,
    template_name: str,
    /,
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
    block: str | None = None,
    **context: object,
) -> HTMLResponse:
    """The response of a page: ``render(request, "table.html", table=table)``.

    With *block*, only that block of the template: the fragment an element with
    ``hx-get`` and ``hx-trigger="table-changed from:body"`` reloads.
    """
    body = render_string(request, template_name, block=block, **context)
    return HTMLResponse(body, status_code=status_code, headers=headers)


def redirect(request: Request, url: str, *, status_code: int = 303) -> Response:
    """Go to *url* after a form: a 303 for a browser, ``HX-Redirect`` for htmx."""
    if is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=status_code)


def error_response(
    request: Request, message: object, status_code: int, *, htmx_status: int | None = None
) -> Response:
    """A refusal in the user's language: an error page, or for htmx a fragment for ``#errors``.

    *message* is a :class:`~andar_bahar.i18n.messages.Message`, an error or any
    :class:`~andar_bahar.i18n.messages.Localizable`. The fragment is
    ``<p class="error" role="alert">…</p>`` with ``HX-Retarget: #errors``, sent
    with *htmx_status* (default: *status_code*).
    """
    text = localize(request, message)
    if request.url.path.startswith(API_PREFIX):  # programs get JSON: {"error": sentence}
        return JSONResponse({"error": text}, status_code=status_code)
    try:
        if is_htmx(request):
            body = render_string(request, "error_fragment.html", message=text)
            status = htmx_status if htmx_status is not None else status_code
            return HTMLResponse(body, status_code=status, headers=FRAGMENT_HEADERS)
        return render(request, "error.html", status_code=status_code, message=text)
    except Exception:  # the page itself failed: still one sentence, never a traceback
        log.exception("could not render the error page")
        body = f'<!doctype html><p class="error" role="alert">{html.escape(text)}</p>'
        return HTMLResponse(body, status_code=status_code)


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
