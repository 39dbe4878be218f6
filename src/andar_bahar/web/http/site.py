"""What every route of the site shares: the :class:`Site` (templates, secret, live hub,
database), kept in ``app.state.site``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from andar_bahar.web.http.security import Signer

if TYPE_CHECKING:
    from jinja2 import Environment

    from andar_bahar.web.live.hub import Hub

__all__ = ["Site", "site_of"]


@dataclass(frozen=True, slots=True)
class Site:
    """What the page routes share: given to the pages' ``register(app, site)``
    (:func:`andar_bahar.web.pages.routes.register`), kept in ``app.state.site``."""

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
