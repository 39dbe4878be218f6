"""The club table's pages and its JSON API: :func:`register` adds them all to the app.

Pages (HTML, htmx, live over a WebSocket):

- ``/`` join a table by its code with a name, or create one;
- ``/tables/new`` the dealer creates a table (procedure, paytable preset or a
  club's TOML file) and sees the odds and warnings of the pairing before saving;
- ``/dealer/{code}`` the dealer's view: admit players, open a round, turn the
  centre card, close bets, deal (the stored deck, or typed cards of a real
  deck), settle, set the bet timer, change the paytable (from the next round, audited);
- ``/play/{code}`` a player's view: balance, procedure and paytable, bets (or a
  marker at a teaching table) within the window, the deal live, settlements,
  the last ten rounds;
- ``/display/{code}`` the screen for the room: the table, live, without controls;
- ``/verify/{code}/{n}`` the revealed deck and salt of a settled round, checked
  against the commitment shown before betting closed;
- ``/learn`` the trainer: drills, the dealer school, a learner's progress; a table's school
  of learners for its dealer (:mod:`andar_bahar.web.pages.learn`).

The table pages are live (:mod:`andar_bahar.web.live.blocks`): every change of the
table reaches them over ``/ws/{code}`` as the new HTML of their blocks. The JSON API
under ``/api/`` takes ``Authorization: Bearer <token>`` (the dealer's or a player's)
and no cookies, so it needs no CSRF token.

A page module has a ``register(app, club)`` that adds its routes, and one line below
calls it; the :class:`~andar_bahar.web.pages.shared.Club` it gets holds what they share.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI

from andar_bahar.club.events import Listener, TableEvent, psycopg_dsn
from andar_bahar.club.limits import Limits
from andar_bahar.club.service import TableService
from andar_bahar.club.store import PinCost
from andar_bahar.storage import DATABASE_WAIT, Storage
from andar_bahar.web.http.site import Site
from andar_bahar.web.live.renderer import TableRenderer
from andar_bahar.web.pages import (
    api,
    dealer,
    display,
    hold,
    learn,
    live,
    new_table,
    player,
    trust,
)
from andar_bahar.web.pages.shared import Club

__all__ = ["register"]

log = logging.getLogger(__name__)

LISTEN_WAIT = 10.0
"""Seconds a starting server waits for its LISTEN connection before serving anyway."""


def register(app: FastAPI, site: Site) -> None:
    """Add the pages, the JSON API and the live route to *app*."""
    storage = Storage.open(site.database_url, connections=site.connections, wait=DATABASE_WAIT)
    limits = app.state.limits if isinstance(app.state.limits, Limits) else None
    pin_cost = app.state.pin_cost if isinstance(app.state.pin_cost, PinCost) else None
    service = TableService(storage, limits=limits, pin_cost=pin_cost)
    app.state.service = service
    renderer = TableRenderer(service, site.env)
    club = Club(site, service, site.signer("seat"), site.signer("dealer"), renderer)
    site.hub.renderer = renderer
    channel = service.notify_channel
    if channel is None:  # SQLite: one process; the store tells the hub after each commit
        service.on_change(site.hub.deliver_threadsafe)
        service.health.on_back(site.hub.resync_threadsafe)  # renders that failed meanwhile
    else:  # PostgreSQL: every process hears every change (its own too) by LISTEN
        app.state.lifespan_hooks.append(lambda: listening(site, service, channel))
    live.register(app, club)
    player.register(app, club)
    new_table.register(app, club)
    dealer.register(app, club)
    display.register(app, club)
    trust.register(app, club)
    hold.register(app, club)
    learn.register(app, club)
    api.register(app, club)


@contextlib.asynccontextmanager
async def listening(site: Site, service: TableService, channel: str) -> AsyncIterator[None]:
    """While the app runs: LISTEN for the changes of every process, deliver them to the hub."""
    url = service.storage.engine.url.render_as_string(hide_password=False)
    health = service.health  # a lost LISTEN is the database not answering, said once
    hub = site.hub

    def deliver(event: TableEvent) -> None:
        service.follow(event)  # another process's step of a round: kept without a read
        hub.deliver(event)

    listener = Listener(
        psycopg_dsn(url), channel, deliver, hub.resync, lost=health.failed, back=health.answered
    )
    listener.start()
    try:
        await asyncio.wait_for(listener.ready.wait(), LISTEN_WAIT)
    except TimeoutError:
        log.warning("live updates: not listening yet on %s; serving anyway", channel)
    try:
        yield
    finally:
        await listener.stop()
