"""The club table in the browser: the dealer on a laptop, every player on a phone.

An adapter, like the command line and the terminal app, over the club's table service
(:mod:`andar_bahar.club`). ``andar-bahar serve`` runs :func:`create_app` under uvicorn.
Its rooms, each importing only the ones above it in this list:

- :mod:`~andar_bahar.web.http` — the HTTP plumbing: security (CSRF, origins, cookies),
  the request's language, forms, templating, the site every route shares, answers
  (:func:`render`, :func:`redirect`, :func:`error_response`), client addresses, the
  uvicorn connections;
- :mod:`~andar_bahar.web.live` — the live push: the :class:`Hub` of each table's
  followers, the WebSocket route, the live blocks of the table pages, their keys and
  their renderer;
- :mod:`~andar_bahar.web.pages` — the pages and the JSON API, their view models and the
  :class:`~andar_bahar.web.pages.shared.Club` they share;
  :func:`~andar_bahar.web.pages.routes.register` adds them all;
- :mod:`~andar_bahar.web.app` — :func:`create_app`, the middleware, the error handlers;
- ``templates/`` and ``static/`` (``app.css``, ``live.js``, ``vendor/htmx.min.js`` …).
"""

from __future__ import annotations

from andar_bahar.web.app import create_app
from andar_bahar.web.http.context import is_htmx, localize, translator
from andar_bahar.web.http.responses import error_response, redirect, render
from andar_bahar.web.http.security import set_cookie
from andar_bahar.web.http.site import Site, site_of
from andar_bahar.web.live.hub import Hub, hub_of

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
