"""The club table's pages and its JSON API.

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
  of learners for its dealer (:mod:`andar_bahar.web.learn_pages`).

The table pages are live (:mod:`andar_bahar.web.live_pages`): every change of the
table reaches them over ``/ws/{code}`` as the new HTML of their blocks. The JSON API
under ``/api/`` takes ``Authorization: Bearer <token>`` (the dealer's or a player's)
and no cookies, so it needs no CSRF token.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request
from starlette.requests import HTTPConnection
from starlette.responses import Response

from andar_bahar.storage import Storage
from andar_bahar.web import (
    api,
    dealer_pages,
    display_pages,
    hold_pages,
    learn_pages,
    new_table_pages,
    player_pages,
    trust_pages,
)
from andar_bahar.web.app import Site, redirect, render
from andar_bahar.web.context import is_htmx, request_info
from andar_bahar.web.limits import UNKNOWN, Limits
from andar_bahar.web.live import Viewer as LiveViewer
from andar_bahar.web.live_pages import (
    LIVE_PAGES,
    LivePage,
    add_table_socket,
    answer,
    page_extras,
)
from andar_bahar.web.notify import Listener, psycopg_dsn
from andar_bahar.web.security import Signer, set_cookie
from andar_bahar.web.service import TableService
from andar_bahar.web.table_renderer import TableRenderer
from andar_bahar.web.table_view import ROAD_LENGTH
from andar_bahar.web.views import Viewer, visible_to

__all__ = ["LIVE_PAGES", "Club", "LivePage", "register"]

log = logging.getLogger(__name__)

DEVICE_SECONDS = 365 * 24 * 3600
"""How long a browser is remembered as a device the dealer signed in on (see limits)."""
LISTEN_WAIT = 10.0
"""Seconds a starting server waits for its LISTEN connection before serving anyway."""


@dataclass(frozen=True, slots=True)
class Club:
    """What the routes of the club's pages share: the service, the signers, live updates."""

    site: Site
    service: TableService
    seats: Signer
    """Signs a player's seat token in the ``seat_CODE`` cookie."""
    dealers: Signer
    """Signs the dealer's token in the ``dealer_CODE`` cookie."""
    renderer: TableRenderer
    """Renders the live blocks of the table pages."""

    def dealer_token(self, conn: HTTPConnection, code: str) -> str:
        """The dealer's token from this browser's cookie ("" when there is none)."""
        return self.dealers.unsign(conn.cookies.get(f"dealer_{code.upper()}", "")) or ""

    def seat_token(self, conn: HTTPConnection, code: str) -> str:
        """The player's token from this browser's cookie ("" when there is none)."""
        return self.seats.unsign(conn.cookies.get(f"seat_{code.upper()}", "")) or ""

    def device_of(self, code: str, proof: str) -> str:
        """The id of the dealer's device that *proof* shows signed in at table *code* before
        (the ``device_CODE`` cookie, or the API's ``device``); "" when it shows nothing."""
        value = self.site.signer("dealer-device").unsign(proof) if proof else None
        table, _, device = (value or "").partition(":")
        return device if device and table == code.strip().upper() else ""

    def device_proof(self, code: str, device: str = "") -> str:
        """What proves that the device *device* (a new one when "") signed in at *code*."""
        made = device or secrets.token_urlsafe(12)
        return self.site.signer("dealer-device").sign(f"{code.strip().upper()}:{made}")

    def remember_device(self, request: Request, response: Response, code: str) -> None:
        """After a sign-in at *code*: this browser is a device the dealer has used there."""
        name = f"device_{code.strip().upper()}"
        device = self.device_of(code, request.cookies.get(name, ""))
        proof = self.device_proof(code, device)
        set_cookie(response, request, name, proof, max_age=DEVICE_SECONDS)

    @staticmethod
    def client(request: Request) -> str:
        """The IP address a request came from (what guessing is counted by), as
        :class:`~andar_bahar.web.limits.ClientAddresses` worked it out."""
        return request.client.host if request.client else UNKNOWN

    def page(self, request: Request, page: str, code: str, **extra: object) -> Response:
        """The live table page *page* (``player``, ``dealer``, ``display``) of *code*, now.

        The table as the viewer may see it (:func:`~andar_bahar.web.views.visible_to`):
        ``extra`` names the ``player`` (or ``dealer=True``; neither: anyone's view).
        """
        table = self.service.table_snapshot(code, ROAD_LENGTH)
        whole, recent = table.state, table.recent
        player = extra.get("player")
        dealer = extra.get("dealer") is True
        sight = Viewer(dealer=dealer, player=str(player) if player else None)
        state = visible_to(whole, sight)
        role = "dealer" if dealer else ("player" if player else "public")
        viewer = LiveViewer(page, role, request_info(request).lang, player=sight.player)
        context: dict[str, Any] = {
            **page_extras(viewer, state, table, datetime.now(UTC)),
            "recent": recent,
            "live_table": state.code,
            "live_page": page,
            "live_version": state.version,
            **extra,
        }
        return render(request, LIVE_PAGES[page].template, **context)

    def done(
        self,
        request: Request,
        code: str,
        page: str,
        note: str = "",
        viewer: LiveViewer | None = None,
    ) -> Response:
        """After an action on a live page: its new blocks for the page's script (and a
        *note* to show by what was tapped), else the page again. *viewer*: who acted, if
        the action has just checked it (else the request's cookies say)."""
        if is_htmx(request):
            return answer(self, request, code, page, note, viewer)
        return redirect(request, f"/{'dealer' if page == 'dealer' else 'play'}/{code.upper()}")


def register(app: FastAPI, site: Site) -> None:
    """Add the pages, the JSON API and the live route to *app*."""
    service = TableService(Storage.open(site.database_url, connections=site.connections))
    if isinstance(app.state.limits, Limits):
        service.limits = app.state.limits
    app.state.service = service
    renderer = TableRenderer(service, site.env)
    club = Club(site, service, site.signer("seat"), site.signer("dealer"), renderer)
    site.hub.renderer = renderer
    channel = service.notify_channel
    if channel is None:  # SQLite: one process; the store tells the hub after each commit
        service.on_change(site.hub.deliver_threadsafe)
    else:  # PostgreSQL: every process hears every change (its own too) by LISTEN
        app.state.lifespan_hooks.append(lambda: listening(site, service, channel))
    add_table_socket(app, club)
    player_pages.register(app, club)
    new_table_pages.register(app, club)
    dealer_pages.register(app, club)
    display_pages.register(app, club)
    trust_pages.register(app, club)
    hold_pages.register(app, club)
    learn_pages.register(app, club)
    api.register(app, club)


@contextlib.asynccontextmanager
async def listening(site: Site, service: TableService, channel: str) -> AsyncIterator[None]:
    """While the app runs: LISTEN for the changes of every process, deliver them to the hub."""
    url = service.storage.engine.url.render_as_string(hide_password=False)
    listener = Listener(psycopg_dsn(url), channel, site.hub.deliver, site.hub.resync)
    listener.start()
    try:
        await asyncio.wait_for(listener.ready.wait(), LISTEN_WAIT)
    except TimeoutError:
        log.warning("live updates: not listening yet on %s; serving anyway", channel)
    try:
        yield
    finally:
        await listener.stop()
