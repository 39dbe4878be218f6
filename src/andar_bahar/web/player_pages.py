"""The players' pages: joining a table, the table on a phone, and the check of a dealt deck.

``/`` joins a table by its code; ``/play/{code}`` shows the player's balance,
the procedure and paytable, takes bets (or a marker at a teaching table) within
the window, and follows the deal live; ``/verify/{code}/{n}`` shows the revealed
deck and salt of a settled round, checked against the commitment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import FastAPI, Form, Request
from starlette.responses import Response

from andar_bahar.engine.errors import AccessError
from andar_bahar.web.app import redirect, render
from andar_bahar.web.security import set_cookie

if TYPE_CHECKING:
    from andar_bahar.web.pages import Club

__all__ = ["register"]

SEAT_SECONDS = 30 * 24 * 3600
"""How long a phone keeps its seat cookie."""


def register(app: FastAPI, club: Club) -> None:
    """Add the players' pages to *app*."""

    # -- home, joining ------------------------------------------------------------------

    @app.get("/", name="home")
    def home(request: Request, code: str = "") -> Response:
        return render(request, "home.html", code=code.upper())

    @app.post("/join")
    def join(
        request: Request, code: Annotated[str, Form()], seat: Annotated[str, Form()]
    ) -> Response:
        table = code.strip().upper()
        token = club.service.join(table, seat, club.client(request))
        response = redirect(request, f"/play/{table}")
        set_cookie(response, request, f"seat_{table}", club.seats.sign(token), max_age=SEAT_SECONDS)
        return response

    # -- a player --------------------------------------------------------------------------------

    @app.get("/play/{code}")
    def player_page(request: Request, code: str) -> Response:
        token = club.seat_token(request, code)
        try:
            name = club.service.player_name(code, token)
        except AccessError as refused:
            if not token:
                return redirect(request, f"/?code={code.upper()}")
            # a phone signed out by the dealer (a new seat code, a released seat): say so
            return render(request, "home.html", code=code.upper(), notice=refused)
        return club.page(request, "player", code, dealer=False, player=name)

    @app.post("/play/{code}/bet")
    def bet(
        request: Request,
        code: str,
        bet: Annotated[str, Form()],
        stake: Annotated[str, Form()],
        key: Annotated[str, Form()],
    ) -> Response:
        club.service.place_bet(code, club.seat_token(request, code), bet, stake, key=key)
        return club.done(request, code, "player")

    @app.post("/play/{code}/withdraw")
    def withdraw(
        request: Request, code: str, bet: Annotated[str, Form()], key: Annotated[str, Form()]
    ) -> Response:
        club.service.withdraw_bet(code, club.seat_token(request, code), bet, key=key)
        return club.done(request, code, "player")

    @app.post("/play/{code}/marker")
    def marker(request: Request, code: str, row: Annotated[str, Form()]) -> Response:
        club.service.place_marker(code, club.seat_token(request, code), row)
        return club.done(request, code, "player")

    # -- fairness ----------------------------------------------------------------------------------

    @app.get("/verify/{code}/{number}")
    def verify(request: Request, code: str, number: int) -> Response:
        reveal = club.service.reveal(code, number)
        has_centre = club.service.state(code).procedure.has_centre
        return render(
            request, "verify.html", code=code.upper(), reveal=reveal, has_centre=has_centre
        )
