"""How a route answers: a page or one block of it (:func:`render`), a redirect after a
form (:func:`redirect`), a refusal in the user's language (:func:`error_response`).

    from andar_bahar.web.http.responses import render

    def register(app: FastAPI, club: Club) -> None:
        @app.get("/t/{code}")
        def table(request: Request, code: str) -> HTMLResponse:
            return render(request, "table.html", live_table=code, table=...)
"""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from andar_bahar.web.http.context import RequestInfo, is_htmx, localize, request_info
from andar_bahar.web.http.language import LANG_PARAMETER, LANGUAGE_NAMES
from andar_bahar.web.http.security import CSRF_FIELD, CSRF_HEADER, csrf_token
from andar_bahar.web.http.site import site_of
from andar_bahar.web.http.templating import gettext_callables, static_version

__all__ = [
    "API_PREFIX",
    "HTMX_CONFIG",
    "error_response",
    "page_context",
    "redirect",
    "render",
    "render_string",
]

log = logging.getLogger(__name__)

API_PREFIX = "/api/"
"""The JSON API: bearer tokens, no cookies, so no CSRF token; errors as JSON."""

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


def page_context(request: Request, **context: object) -> dict[str, Any]:
    """What every template sees, then *context* (which may override any of it).

    ``request``, ``lang``, ``translations``, ``_`` / ``gettext`` / ``ngettext`` /
    ``pgettext`` / ``npgettext`` (the request's language), ``csrf_token``,
    ``csrf_field`` (a hidden input for forms), ``static_url(path)``,
    ``languages`` and ``lang_url(code)`` (the switcher), ``home_url``,
    ``live_table`` (``None``; a table code makes the page follow that table),
    ``live_page`` and ``live_version`` (its page kind and version, see
    :mod:`~andar_bahar.web.live.blocks`), ``live_beat`` (the hub's heartbeat, seconds: the
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
