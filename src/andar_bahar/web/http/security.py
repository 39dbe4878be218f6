"""Forged requests, foreign origins and cookies: what keeps a club's table honest.

**CSRF** (signed double submit): every browser gets a random cookie
(:data:`~andar_bahar.web.http.context.CSRF_COOKIE`, HttpOnly, SameSite=Lax); pages carry
a token that is an HMAC of that cookie under the app's secret. A POST, PUT, PATCH or
DELETE must send the token back, in the form field ``csrf_token`` or the header
``X-CSRF-Token`` (htmx sends the header from ``hx-headers`` on ``<body>``). A page on
another site cannot read the cookie or the token, so it cannot forge either.

>>> secret = bytes(32)
>>> token = csrf_token(secret, "browser-cookie")
>>> check_csrf_token(secret, "browser-cookie", token), check_csrf_token(secret, "other", token)
(True, False)

**Origin**: an unsafe request whose ``Origin`` is not this host is refused, whatever
its token (and so is a WebSocket opened from another site).

**SameSite**: a browser sends a ``Strict`` cookie only with requests that start on this
site; a ``Lax`` one also with a top-level GET navigation from another site (a link in a
chat), never with another site's POST, fetch or frame. So the cookies that a page needs to
*show* itself are ``Lax``: the CSRF cookie (else such a navigation arrives without it and
gets a new one, which expires the tokens of the player's other open tabs), the player's
seat (``seat_CODE``: the link shows their own seat, not the join form) and the language.
CSRF protection does not rest on SameSite: every unsafe request still needs the token
(which another site cannot read) and this site's ``Origin``. The dealer's cookie stays
``Strict``: it can deal and settle, and the dealer works from their own screen, so a link
from elsewhere may well ask for the PIN.

>>> from starlette.datastructures import Headers
>>> origin_allowed(Headers({"host": "10.0.0.5:8000", "origin": "http://10.0.0.5:8000"}), "http")
True
>>> origin_allowed(Headers({"host": "10.0.0.5:8000", "origin": "https://evil.example"}), "http")
False
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Awaitable, Callable, Collection, Iterable
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as ASGIMessage

from andar_bahar.club.events import ACTOR, SOCKET_HEADER, SOCKET_ID
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import CSRF_COOKIE, INFO_KEY, RequestInfo
from andar_bahar.web.http.language import LANG_COOKIE, LANG_PARAMETER, choose_language

__all__ = [
    "BODY_TOO_LARGE",
    "CROSS_ORIGIN_REFUSED",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "CSRF_REFUSED",
    "DEFAULT_CSP",
    "MAX_BODY_BYTES",
    "SAFE_METHODS",
    "Rejecter",
    "Signer",
    "WebMiddleware",
    "check_csrf_token",
    "cookie_header",
    "csrf_token",
    "load_or_create_secret",
    "new_secret",
    "origin_allowed",
    "set_cookie",
]

CSRF_FIELD = "csrf_token"
"""The form field that carries the CSRF token."""
CSRF_HEADER = "X-CSRF-Token"
"""The header that carries the CSRF token (what htmx sends)."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
MAX_BODY_BYTES = 64 * 1024
"""The largest request body accepted (a form, a club's paytable file, a JSON request): 413."""
CSRF_COOKIE_MAX_AGE = 30 * 24 * 3600
LANG_COOKIE_MAX_AGE = 365 * 24 * 3600
DEFAULT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'{websockets}; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy: scripts only from /static (no inline scripts, no eval)."""

CSRF_REFUSED = Message(
    N_("This form has expired or did not come from this page: reload the page and try again.")
)
CROSS_ORIGIN_REFUSED = Message(N_("This request came from another site and was refused."))
BODY_TOO_LARGE = Message(
    N_("The request is too large: at most {n} KiB can be sent."), n=MAX_BODY_BYTES // 1024
)

_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{32,128}")
_HOST = re.compile(r"[A-Za-z0-9.:\[\]-]{1,300}")
_DEFAULT_PORTS = {"http": ":80", "https": ":443", "ws": ":80", "wss": ":443"}
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

Rejecter = Callable[[Request, Message, int], Awaitable[Response]]
"""Makes the response that refuses a request: (request, the sentence, status code)."""


def new_secret() -> bytes:
    """A fresh random app secret (32 bytes)."""
    return secrets.token_bytes(32)


def load_or_create_secret(path: Path) -> bytes:
    """The app secret kept in *path* (hex), made on first use, readable by its owner only.

    Keeping it means a restarted server still accepts the pages its players have open.
    """
    try:
        kept = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        kept = b""
    if len(kept) >= 16:
        return kept
    secret = new_secret()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(secret.hex() + "\n")
    return secret


def _mac(secret: bytes, purpose: str, value: str) -> str:
    digest = hmac.new(secret, f"{purpose}\0{value}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("ascii"))


class Signer:
    """Signs short text values (say, a player's seat in a cookie) under the app secret.

    >>> signer = Signer(bytes(32), "seat")
    >>> signed = signer.sign("table-7:nino")
    >>> signer.unsign(signed), signer.unsign(signed.replace("nino", "gela"))
    ('table-7:nino', None)
    >>> Signer(bytes(32), "other").unsign(signed) is None
    True
    """

    def __init__(self, secret: bytes, purpose: str) -> None:
        self._secret = secret
        self._purpose = purpose

    def sign(self, value: str) -> str:
        """``value.signature``."""
        return f"{value}.{_mac(self._secret, self._purpose, value)}"

    def unsign(self, signed: str) -> str | None:
        """The value, if the signature is right; ``None`` otherwise."""
        value, dot, signature = signed.rpartition(".")
        if not dot or not _same(signature, _mac(self._secret, self._purpose, value)):
            return None
        return value


def csrf_token(secret: bytes, cookie: str) -> str:
    """The CSRF token of the browser whose CSRF cookie is *cookie*."""
    return _mac(secret, "csrf", cookie)


def check_csrf_token(secret: bytes, cookie: str | None, token: str | None) -> bool:
    """Whether *token* belongs to the browser with *cookie* (in constant time)."""
    if not cookie or not token:
        return False
    return _same(token, csrf_token(secret, cookie))


def _without_default_port(netloc: str, scheme: str) -> str:
    netloc = netloc.lower()
    port = _DEFAULT_PORTS.get(scheme.lower())
    return netloc.removesuffix(port) if port else netloc


def origin_allowed(headers: Headers, scheme: str, trusted: Collection[str] = ()) -> bool:
    """Whether a request comes from this host (or from one of the *trusted* origins).

    Without an ``Origin`` header (programs, old browsers) the answer comes from
    ``Sec-Fetch-Site`` if present; the CSRF token is still required.
    """
    origin = headers.get("origin")
    if origin is None:
        return headers.get("sec-fetch-site", "same-origin").lower() in {"same-origin", "none"}
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return False
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return False  # includes "null": sandboxed frames, privacy redirects
    origin_host = _without_default_port(parts.netloc, parts.scheme)
    if f"{parts.scheme}://{origin_host}" in trusted:
        return True
    host = headers.get("host")
    return host is not None and origin_host == _without_default_port(host, scheme)


def cookie_header(
    name: str,
    value: str,
    *,
    max_age: int | None = None,
    secure: bool = False,
    path: str = "/",
    samesite: str = "Strict",
) -> str:
    """A ``Set-Cookie`` value: HttpOnly, SameSite=Strict (or *samesite*), Secure over HTTPS.

    >>> cookie_header("ab_lang", "ka", max_age=60, samesite="Lax")
    'ab_lang=ka; HttpOnly; Max-Age=60; Path=/; SameSite=Lax'
    """
    jar: SimpleCookie = SimpleCookie()
    jar[name] = value
    morsel = jar[name]
    morsel["path"] = path
    morsel["httponly"] = True
    morsel["samesite"] = samesite
    if max_age is not None:
        morsel["max-age"] = max_age
    if secure:
        morsel["secure"] = True
    return morsel.OutputString()


def set_cookie(
    response: Response,
    conn: HTTPConnection,
    name: str,
    value: str,
    *,
    max_age: int | None = None,
    samesite: Literal["strict", "lax"] = "strict",
) -> None:
    """Set a cookie on *response* the safe way (HttpOnly, SameSite=Strict, Secure over HTTPS).

    *samesite* ``"lax"`` is for a cookie a page needs when a link from another site opens
    it (see the module's notes); never for one that alone authorises a change.
    """
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite=samesite,
        secure=conn.url.scheme in {"https", "wss"},
    )


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands out *body* again, then whatever *receive* says."""
    sent = False

    async def replay() -> ASGIMessage:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _disconnected() -> ASGIMessage:
    return {"type": "http.disconnect"}


class _Gone(Exception):
    """The client left (or was closed: too slow) before its request's body was whole."""


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or ``None`` if it is longer than *limit*; :class:`_Gone` if
    the client left before it was whole (a part of a body is never taken for the whole)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _form_token(scope: Scope, body: bytes) -> str | None:
    request = Request(scope, _replay(body, _disconnected))
    try:
        form = await request.form()
    except Exception:  # a malformed form carries no token
        return None
    try:
        value = form.get(CSRF_FIELD)
        return value if isinstance(value, str) else None
    finally:
        await form.close()


class WebMiddleware:
    """Per request: the language, the CSRF cookie, the checks of unsafe requests, safe headers.

    A refused request gets the response of *reject* (a page or an htmx fragment
    with the sentence in the user's language).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        secret: bytes,
        reject: Rejecter,
        trusted_origins: Iterable[str] = (),
        content_security_policy: str | None = DEFAULT_CSP,
        exempt_paths: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.secret = secret
        self.reject = reject
        self.trusted_origins = frozenset(origin.lower().rstrip("/") for origin in trusted_origins)
        self.content_security_policy = content_security_policy
        self.exempt_paths = tuple(exempt_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in {"http", "websocket"}:
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        secure = conn.url.scheme in {"https", "wss"}
        lang, from_query = choose_language(
            conn.query_params.get(LANG_PARAMETER),
            conn.cookies.get(LANG_COOKIE),
            conn.headers.get("accept-language"),
        )
        cookies: list[str] = []
        if from_query and conn.cookies.get(LANG_COOKIE) != lang:
            cookies.append(
                cookie_header(
                    LANG_COOKIE, lang, max_age=LANG_COOKIE_MAX_AGE, secure=secure, samesite="Lax"
                )
            )
        known = conn.cookies.get(CSRF_COOKIE)
        if known is not None and not _COOKIE_VALUE.fullmatch(known):
            known = None
        browser = known or secrets.token_urlsafe(32)
        if known is None:
            cookies.append(
                cookie_header(
                    CSRF_COOKIE, browser, max_age=CSRF_COOKIE_MAX_AGE, secure=secure, samesite="Lax"
                )
            )
        scope.setdefault("state", {})[INFO_KEY] = RequestInfo(lang=lang, csrf_cookie=browser)

        if scope["type"] == "websocket":
            if not origin_allowed(conn.headers, conn.url.scheme, self.trusted_origins):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: ASGIMessage) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for cookie in cookies:
                    headers.append("set-cookie", cookie)
                self._secure_headers(headers, conn)
            await send(message)

        if scope["method"] not in SAFE_METHODS:
            try:
                receive, too_large = await self._bounded(receive, conn)
            except _Gone:  # nobody to answer, and nothing to do with half a request
                return
            if too_large:
                response = await self.reject(Request(scope, receive), BODY_TOO_LARGE, 413)
                await response(scope, receive, send_with_headers)
                return
        if scope["method"] not in SAFE_METHODS and not self._exempt(scope["path"]):
            problem, status, receive = await self._check(scope, receive, known, conn)
            if problem is not None:
                response = await self.reject(Request(scope, receive), problem, status)
                await response(scope, receive, send_with_headers)
                return
        socket = conn.headers.get(SOCKET_HEADER)  # a live page's own action: see notify.ACTOR
        if socket is None or scope["method"] in SAFE_METHODS or not SOCKET_ID.fullmatch(socket):
            await self.app(scope, receive, send_with_headers)
            return
        acting = ACTOR.set(socket)
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            ACTOR.reset(acting)

    @staticmethod
    async def _bounded(receive: Receive, conn: HTTPConnection) -> tuple[Receive, bool]:
        """The body, read whole (at most :data:`MAX_BODY_BYTES`), and whether it was larger."""
        length = conn.headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_BODY_BYTES:
            return _disconnected, True
        body = await _read_body(receive, MAX_BODY_BYTES)
        if body is None:
            return _disconnected, True
        return _replay(body, receive), False

    async def _check(
        self, scope: Scope, receive: Receive, cookie: str | None, conn: HTTPConnection
    ) -> tuple[Message | None, int, Receive]:
        """What is wrong with an unsafe request (``None`` if nothing), its status, its body."""
        headers = conn.headers
        if not origin_allowed(headers, conn.url.scheme, self.trusted_origins):
            return CROSS_ORIGIN_REFUSED, 403, receive
        token = headers.get(CSRF_HEADER)
        if token is None:
            content_type = headers.get("content-type", "").partition(";")[0].strip().lower()
            if content_type in _FORM_TYPES:
                body = await _read_body(receive, MAX_BODY_BYTES)
                if body is None:
                    return BODY_TOO_LARGE, 413, _disconnected
                receive = _replay(body, receive)
                token = await _form_token(scope, body)
        if not check_csrf_token(self.secret, cookie, token):
            return CSRF_REFUSED, 403, receive
        return None, 200, receive

    def _exempt(self, path: str) -> bool:
        return any(path.startswith(prefix) for prefix in self.exempt_paths)

    def _secure_headers(self, headers: MutableHeaders, conn: HTTPConnection) -> None:
        defaults = {
            "x-content-type-options": "nosniff",
            "x-frame-options": "DENY",
            "referrer-policy": "same-origin",
        }
        if self.content_security_policy is not None:
            host = conn.headers.get("host", "")
            websockets = f" ws://{host} wss://{host}" if _HOST.fullmatch(host) else ""
            defaults["content-security-policy"] = self.content_security_policy.replace(
                "{websockets}", websockets
            )
        for name, value in defaults.items():
            if name not in headers:
                headers[name] = value
