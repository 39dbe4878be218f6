"""What the web middleware learns about a request, for routes and templates to read.

:class:`~andar_bahar.web.http.security.WebMiddleware` works out the language and the
browser's CSRF cookie once per request and keeps them in the ASGI scope's
``state``; :func:`request_info` reads them back (or works them out, for a request
that did not pass the middleware).
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from andar_bahar.i18n import translations
from andar_bahar.i18n.messages import render
from andar_bahar.web.http.language import LANG_COOKIE, LANG_PARAMETER, choose_language

__all__ = [
    "CSRF_COOKIE",
    "INFO_KEY",
    "RequestInfo",
    "is_htmx",
    "localize",
    "request_info",
    "translator",
]

CSRF_COOKIE = "ab_csrf"
"""The random per-browser value that CSRF tokens are tied to (HttpOnly, SameSite=Lax)."""
INFO_KEY = "andar_bahar.web"
"""The key of :class:`RequestInfo` in ``scope["state"]``."""


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """The language of a request and the value of its browser's CSRF cookie."""

    lang: str
    csrf_cookie: str

    @property
    def translations(self) -> gettext.GNUTranslations:
        return translations(self.lang)


def request_info(conn: HTTPConnection) -> RequestInfo:
    """The :class:`RequestInfo` of a request or WebSocket."""
    state = conn.scope.get("state")
    if isinstance(state, dict):
        info = state.get(INFO_KEY)
        if isinstance(info, RequestInfo):
            return info
    lang, _ = choose_language(
        conn.query_params.get(LANG_PARAMETER),
        conn.cookies.get(LANG_COOKIE),
        conn.headers.get("accept-language"),
    )
    return RequestInfo(lang=lang, csrf_cookie=conn.cookies.get(CSRF_COOKIE, ""))


def translator(conn: HTTPConnection) -> gettext.GNUTranslations:
    """The catalogue of the request's language (immutable, shared: safe in any thread)."""
    return request_info(conn).translations


def localize(conn: HTTPConnection, value: object) -> str:
    """A :class:`~andar_bahar.i18n.messages.Message` (or an error, or any value) in the request's language."""
    return render(value, translator(conn))


def is_htmx(conn: HTTPConnection) -> bool:
    """Whether htmx sent the request (it then wants a fragment, not a page)."""
    return conn.headers.get("hx-request", "").lower() == "true"
