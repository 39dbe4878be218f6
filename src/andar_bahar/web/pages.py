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
- ``/display/{code}`` the screen for the room: the table, live, without controls;
- ``/verify/{code}/{n}`` the revealed deck and salt of a settled round, checked
  against the commitment shown before betting closed.

The table pages' live regions are declared in :mod:`andar_bahar.web.live_pages`;
:meth:`Club.context` is what their templates see.

The JSON API under ``/api/`` takes ``Authorization: Bearer <token>`` (the
dealer's or a player's) and no cookies, so it needs no CSRF token.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.storage import Storage
from andar_bahar.web import api, dealer_pages, display_pages, player_pages, trust_pages
from andar_bahar.web.app import Site, render, render_string
from andar_bahar.web.context import request_info
from andar_bahar.web.limits import Limits
from andar_bahar.web.live import add_live_routes
from andar_bahar.web.live_pages import LIVE_PAGES
from andar_bahar.web.records import TableState
from andar_bahar.web.security import Signer
from andar_bahar.web.service import TableService
from andar_bahar.web.table_view import ROAD_LENGTH, common_context

__all__ = ["LIVE_BLOCKS", "ROAD_LENGTH", "Club", "register"]

LIVE_BLOCKS = frozenset(name for page in LIVE_PAGES.values() for name in page.blocks)
"""Every live block of the table pages (``?block=NAME`` renders one)."""


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

    def context(
        self, request: Request, kind: str, state: TableState, **extra: object
    ) -> dict[str, Any]:
        """What a table page's template sees: :func:`common_context`, then *extra* (its kind's)."""
        recent = self.service.recent_rounds(state.code, ROAD_LENGTH)
        return {
            **common_context(state, recent, request_info(request).lang, datetime.now(UTC)),
            "bet_key": secrets.token_hex(12),
            "live_table": state.code,
            "live_page": kind,
            "live_version": getattr(state, "version", None),
            **extra,
        }

    def page(
        self, request: Request, kind: str, state: TableState, block: str | None, **extra: object
    ) -> Response:
        """A table page of *kind* (or one of its live blocks, ``?block=NAME``) for *state*."""
        page = LIVE_PAGES[kind]
        chosen = block if block in page.blocks else None
        context = self.context(request, kind, state, **extra)
        return render(request, page.template, block=chosen, **context)

    def blocks(
        self, request: Request, kind: str, state: TableState, **extra: object
    ) -> dict[str, str]:
        """Every live block of a *kind* page, rendered for this request (the page's own view)."""
        page = LIVE_PAGES[kind]
        context = self.context(request, kind, state, **extra)
        return {
            name: render_string(request, page.template, block=name, **context)
            for name in sorted(page.blocks)
        }

    def answer(
        self,
        request: Request,
        kind: str,
        state: TableState,
        note: str = "",
        **extra: object,
    ) -> JSONResponse:
        """The answer to a page script's action: the page's new blocks, and a short note."""
        message: dict[str, Any] = {
            "kind": "answer",
            "blocks": self.blocks(request, kind, state, **extra),
            "data": {"note": note} if note else {},
        }
        version = getattr(state, "version", None)
        if version is not None:
            message["v"] = version
        return JSONResponse(message)


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
    display_pages.register(app, club)
    trust_pages.register(app, club)
    api.register(app, club)
