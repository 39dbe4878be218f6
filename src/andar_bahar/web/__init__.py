"""The club table in the browser: the dealer on a laptop, every player on a phone.

An adapter, like the command line and the terminal app. ``andar-bahar serve``
runs :func:`create_app` under uvicorn. The pieces:

- :mod:`~andar_bahar.web.app` — :func:`create_app`, :func:`render` (a page or a
  block of it), :func:`error_response`, :func:`redirect`, the error handlers;
- :mod:`~andar_bahar.web.security` — CSRF tokens, origin checks, safe cookies;
- :mod:`~andar_bahar.web.context` — a request's language and translations;
- :mod:`~andar_bahar.web.templating` — the Jinja environment and per-request gettext;
- :mod:`~andar_bahar.web.live` — the :class:`Hub`: live pages, pushed over WebSockets;
- :mod:`~andar_bahar.web.notify` — a table's changes across processes (LISTEN/NOTIFY);
- ``templates/base.html``, ``static/app.css``, ``static/live.js``, ``static/vendor/htmx.min.js``.

The page routes come from ``andar_bahar.web.pages.register(app, site)``; the table
pages' live blocks are declared in :mod:`~andar_bahar.web.live_pages`.
"""

from __future__ import annotations

from andar_bahar.web.app import Site, create_app, error_response, redirect, render, site_of
from andar_bahar.web.context import is_htmx, localize, translator
from andar_bahar.web.live import Hub, hub_of
from andar_bahar.web.security import set_cookie

__all__ = [
    "Hub",
    "Site",
    "create_app",
    "error_response",
    "hub_of",
    "is_htmx",
    "localize",
    "redirect",
    "render",
    "set_cookie",
    "site_of",
    "translator",
]
