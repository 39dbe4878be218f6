"""The web's HTTP plumbing, for every route: no page and no live push in it.

- :mod:`~andar_bahar.web.http.security` — CSRF tokens, origin checks, safe cookies, signers;
- :mod:`~andar_bahar.web.http.language` and :mod:`~andar_bahar.web.http.context` — a
  request's language and translations;
- :mod:`~andar_bahar.web.http.templating` — the Jinja environment and per-language gettext;
- :mod:`~andar_bahar.web.http.forms` — reading forms and JSON into the engine's values;
- :mod:`~andar_bahar.web.http.site` — the :class:`~andar_bahar.web.http.site.Site` every
  route shares;
- :mod:`~andar_bahar.web.http.responses` — a page, a block, a redirect, a refusal;
- :mod:`~andar_bahar.web.http.clients` — who a client is (its address, behind a proxy too);
- :mod:`~andar_bahar.web.http.connections` — what one connection may cost the server.
"""
