"""The club table's pages and its JSON API.

Pages (HTML, htmx, live over a WebSocket):

- ``/`` join a table by its code with a name, or create one;
- ``/tables/new`` the dealer creates a table (procedure, paytable preset or a
  club's TOML file) and sees the odds and warnings of the pairing before saving;
- ``/dealer/{code}`` the dealer's view: admit players, open a round, turn the
  centre card, close bets, deal (the stored deck, or typed cards of a real
  deck), settle, change the paytable (from the next round, audited);
- ``/play/{code}`` a player's view: balance, procedure and paytable, bets (or a
  marker at a teaching table) within the window, the deal live, settlements,
  the last ten rounds;
- ``/verify/{code}/{n}`` the revealed deck and salt of a settled round, checked
  against the commitment shown before betting closed.

The JSON API under ``/api/`` takes ``Authorization: Bearer <token>`` (the
dealer's or a player's) and no cookies, so it needs no CSRF token.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.websockets import WebSocket

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.storage import Storage
from andar_bahar.web import api, dealer_pages, player_pages, trust_pages
from andar_bahar.web.app import Site, render
from andar_bahar.web.forms import paytable_rows
from andar_bahar.web.limits import Limits
from andar_bahar.web.live import add_live_routes
from andar_bahar.web.records import TableState
from andar_bahar.web.security import Signer
from andar_bahar.web.service import TableService

__all__ = ["LIVE_BLOCKS", "Club", "register"]

LIVE_BLOCKS = frozenset({"players", "round", "bets", "history", "me"})
"""The blocks of the table pages that reload themselves when the table changes."""


@dataclass(frozen=True, slots=True)
class Club:
    """What the routes of the club's pages share: the service, the signers, live updates."""

    site: Site
    service: TableService
    seats: Signer
    """Signs a player's seat token in the ``seat_CODE`` cookie."""
    dealers: Signer
    """Signs the dealer's token in the ``dealer_CODE`` cookie."""

    def publish(self, code: str, kind: str) -> None:
        """Tell every page following table *code* that it changed."""
        self.site.hub.publish(code.upper(), {"kind": kind})

    def dealer_token(self, request: Request, code: str) -> str:
        """The dealer's token from this browser's cookie ("" when there is none)."""
        return self.dealers.unsign(request.cookies.get(f"dealer_{code.upper()}", "")) or ""

    def seat_token(self, request: Request, code: str) -> str:
        """The player's token from this browser's cookie ("" when there is none)."""
        return self.seats.unsign(request.cookies.get(f"seat_{code.upper()}", "")) or ""

    @staticmethod
    def client(request: Request) -> str:
        """The address a request came from (what guessing is counted by)."""
        return request.client.host if request.client else "unknown"

    def page(
        self, request: Request, template: str, state: TableState, block: str | None, **extra: object
    ) -> Response:
        """A table page (or one of its live blocks) for *state*."""
        context: dict[str, Any] = {
            "state": state,
            "round": state.round,
            "recent": self.service.recent_rounds(state.code, 10),
            "bet_key": secrets.token_hex(12),
            "paytable_rows": paytable_rows(state.round.paytable if state.round else state.paytable),
            "live_table": state.code,
            **extra,
        }
        chosen = block if block in LIVE_BLOCKS else None
        return render(request, template, block=chosen, **context)


def register(app: FastAPI, site: Site) -> None:
    """Add the pages, the JSON API and the live route to *app*."""
    service = TableService(Storage.open(site.database_url))
    if isinstance(app.state.limits, Limits):
        service.limits = app.state.limits
    app.state.service = service
    club = Club(site, service, site.signer("seat"), site.signer("dealer"))

    async def authorize(websocket: WebSocket, code: str) -> bool:
        try:
            await run_in_threadpool(service.state, code)
        except AndarBaharError:
            return False
        return True

    add_live_routes(app, site.hub, authorize=authorize)
    player_pages.register(app, club)
    dealer_pages.register(app, club)
    trust_pages.register(app, club)
    api.register(app, club)
