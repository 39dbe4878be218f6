"""The players' pages: joining a table, the table on a phone, and the check of a dealt deck.

``/`` joins a table by its code; ``/play/{code}`` is the player's phone: the felt, the
spots to tap with the chosen chip (``/play/{code}/bet``), "repeat my last bets"
(``…/repeat``), "double" (``…/double``), "undo" the last chip (``…/undo``) and "clear"
(``…/clear``), a marker at a teaching table (``…/marker``),
the road and the player's own rounds (``…/night``: all of them, page by page, with the
night's totals from the ledger). Each action answers the page's script with the
page's new blocks (JSON), or a browser without scripts with a redirect back to the page.
``/verify/{code}/{n}`` shows the revealed deck and salt of a settled round.

The seat is the ``seat_CODE`` cookie (SameSite=Lax, see :mod:`andar_bahar.web.http.security`):
a link to ``/play/CODE`` from a chat or another site shows the player's own seat.
"""

from __future__ import annotations

from decimal import Decimal
from importlib import resources
from typing import TYPE_CHECKING, Annotated

from fastapi import FastAPI, Form, Request
from starlette.responses import Response

from andar_bahar.club.values import PlacedBet
from andar_bahar.engine.bets import Bet, CentreBet
from andar_bahar.engine.cards import Card
from andar_bahar.engine.errors import AccessError, AndarBaharError
from andar_bahar.engine.money import Amount
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import localize, request_info
from andar_bahar.web.http.forms import Posted, field, read_amount
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.http.security import set_cookie
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.pages.drawing import ROAD_LENGTH, bet_labels, faces, signed_amount
from andar_bahar.web.pages.screens import last_bets, repeat_times

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["register"]

SEAT_SECONDS = 30 * 24 * 3600
"""How long a phone keeps its seat cookie."""
FAVICON = (resources.files("andar_bahar.web") / "static" / "favicon.svg").read_bytes()


def register(app: FastAPI, club: Club) -> None:
    """Add the players' pages to *app*."""
    _add_joining(app, club)
    _add_playing(app, club)
    _add_betting(app, club)
    _add_fairness(app, club)


def _bet_note(club: Club, code: str, placed: PlacedBet) -> Message:
    """What the phone says: the stake on the spot, or what was added and the total."""
    total = placed.total
    if total is None:  # a repeated request: its first answer did not keep the total
        held = club.service.state(code).round
        wagers = held.wagers if held else ()
        total = sum((s for p, b, s in wagers if p == placed.player and b == placed.bet), Decimal(0))
    name = Bet.parse(placed.bet)
    if total == placed.stake:
        return Message(N_("{bet}: {stake} on the spot."), bet=name, stake=Amount(total))
    return Message(
        N_("{bet}: {stake} added, {total} on the spot."),
        bet=name,
        stake=Amount(placed.stake),
        total=Amount(total),
    )


def _add_joining(app: FastAPI, club: Club) -> None:
    """The home page (join by code and seat code), the icon, joining."""

    @app.get("/", name="home")
    def home(request: Request, code: str = "") -> Response:
        """The join form — or, for a phone that holds its seat (at *code*, or its one seat),
        that seat: Back after joining leads to the table, never to an empty form."""
        asked = [code] if code.strip() else _cookie_tables(request)
        held = [table for table in asked if _holds_seat(club, request, table)]
        if len(held) == 1:
            return redirect(request, f"/play/{held[0].strip().upper()}")
        return render(request, "home.html", code=code.upper())

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(
            FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"}
        )

    @app.post("/join")
    def join(
        request: Request, code: Annotated[str, Form()], seat: Annotated[str, Form()]
    ) -> Response:
        table = code.strip().upper()
        try:  # this browser already has its seat here: go to it, never "already joined"
            club.service.player_name(table, club.seat_token(request, table))
            return redirect(request, f"/play/{table}")
        except AndarBaharError:
            pass
        token = club.service.join(table, seat, club.client(request))
        response = redirect(request, f"/play/{table}")
        set_cookie(
            response,
            request,
            f"seat_{table}",
            club.seats.sign(token),
            max_age=SEAT_SECONDS,
            samesite="lax",
        )
        return response


MAX_SEATS_LOOKED_AT = 8
"""Seat cookies the home page looks at (a phone seated at more tables sees the form)."""


def _cookie_tables(request: Request) -> list[str]:
    """The tables this browser has a seat cookie of (at most :data:`MAX_SEATS_LOOKED_AT`)."""
    tables = [name[5:] for name in request.cookies if name.startswith("seat_")]
    return tables if len(tables) <= MAX_SEATS_LOOKED_AT else []


def _holds_seat(club: Club, request: Request, code: str) -> bool:
    """Whether this browser's seat cookie holds a seat at table *code* now."""
    token = club.seat_token(request, code)
    try:
        return bool(token) and club.service.player_seat(code, token) is not None
    except AndarBaharError:  # no such table
        return False


def _done(
    club: Club, request: Request, code: str, note: Message | None = None,
    viewer: Viewer | None = None,
) -> Response:  # fmt: skip
    """After the player's action: their own new blocks (and a note) for the page's script,
    or the page again for a browser without scripts."""
    text = localize(request, note) if note is not None else ""
    return club.done(request, code, "player", note=text, viewer=viewer)


def _seated(club: Club, request: Request, code: str) -> str:
    """The name of the player whose seat the request's cookie holds."""
    return club.service.player_name(code, club.seat_token(request, code))


def _bettor(request: Request, placed: PlacedBet) -> Viewer | None:
    """Who the bet has just checked the seat of: the answer is this player's own blocks."""
    if not placed.player_id:
        return None
    lang = request_info(request).lang
    return Viewer("player", "player", lang, placed.player_id, placed.player)


def _repeat_note(times: int) -> Message:
    """What the player is told once their last round's bets are on the table again."""
    if times > 1:
        return Message(N_("Your last bets are on the table again: now {n}× each."), n=times)
    if times == 1:
        return Message(N_("Your last bets are on the table again."))
    return Message(N_("Your last bets are added to the bets you had on the table."))


def _add_playing(app: FastAPI, club: Club) -> None:
    """A player's phone: the page and the night's rounds."""

    @app.get("/play/{code}")
    def player_page(request: Request, code: str) -> Response:
        try:
            name = _seated(club, request, code)
        except AccessError as refused:
            if not club.seat_token(request, code):
                return redirect(request, f"/?code={code.upper()}")
            # a phone signed out by the dealer (a new seat code, a released seat): say so
            return render(request, "home.html", code=code.upper(), notice=refused)
        return club.page(request, "player", code, player=name)

    @app.get("/play/{code}/night")
    def night(request: Request, code: str, page: int = 1) -> Response:
        """The player's whole night: the totals from the ledger, the rounds page by page."""
        played = club.service.player_night(code, club.seat_token(request, code), page)
        lang = request_info(request).lang
        return render(
            request, "night.html", code=code.strip().upper(), night=played,
            bet_label=bet_labels(lang), signed=lambda amount: signed_amount(amount, lang),
        )  # fmt: skip


def _add_betting(app: FastAPI, club: Club) -> None:
    """A player's actions: bets, withdrawing, repeating, doubling, taking back, clearing,
    markers."""

    @app.post("/play/{code}/bet")
    def bet(request: Request, code: str, form: Posted) -> Response:
        token = club.seat_token(request, code)
        lang = request_info(request).lang
        spot, key = field(form, "bet"), field(form, "key")
        stake = read_amount(field(form, "stake"), lang)
        placed = club.service.place_bet(code, token, spot, stake, key=key)
        return _done(club, request, code, _bet_note(club, code, placed), _bettor(request, placed))

    @app.post("/play/{code}/withdraw")
    def withdraw(request: Request, code: str, form: Posted) -> Response:
        spot, key = field(form, "bet"), field(form, "key")
        club.service.withdraw_bet(code, club.seat_token(request, code), spot, key=key)
        return _done(club, request, code)

    @app.post("/play/{code}/repeat")
    def repeat(request: Request, code: str, form: Posted) -> Response:
        key = field(form, "key")
        name = _seated(club, request, code)
        state = club.service.state(code)
        mine = club.service.player_rounds(code, name, ROAD_LENGTH)
        last = last_bets(mine, state.round.number if state.round else None)
        if not last:
            raise AccessError(Message(N_("You have no earlier bets to repeat at this table.")))
        token = club.seat_token(request, code)
        club.service.place_bets(code, token, last, key=key)  # all of them or none
        now = club.service.state(code).round
        times = repeat_times(last, now.wagers if now else (), name)
        return _done(club, request, code, _repeat_note(times))

    @app.post("/play/{code}/double")
    def double(request: Request, code: str, form: Posted) -> Response:
        token = club.seat_token(request, code)
        placed = club.service.double_bets(code, token, key=field(form, "key"))
        return _done(
            club,
            request,
            code,
            Message(N_("Every bet of yours is doubled.")),
            _bettor(request, placed),
        )

    @app.post("/play/{code}/undo")
    def undo(request: Request, code: str, form: Posted) -> Response:
        token = club.seat_token(request, code)
        taken = club.service.take_back_bet(code, token, key=field(form, "key"))
        bet, stake = Bet.parse(taken.bet), Amount(taken.stake)
        if taken.total:
            note = Message(
                N_("{bet}: {stake} taken back, {total} left on the spot."),
                bet=bet, stake=stake, total=Amount(taken.total),
            )  # fmt: skip
        else:
            note = Message(N_("{bet}: {stake} taken back."), bet=bet, stake=stake)
        return _done(club, request, code, note, _bettor(request, taken))

    @app.post("/play/{code}/clear")
    def clear(request: Request, code: str, form: Posted) -> Response:
        key = field(form, "key")
        name = _seated(club, request, code)
        rnd = club.service.state(code).round
        held = [b for p, b, _ in (rnd.wagers if rnd else ()) if p == name]
        if rnd is not None and not rnd.centre_open:  # those on the centre card closed at the turn
            held = [b for b in held if not isinstance(Bet.parse(b), CentreBet)]
        token = club.seat_token(request, code)
        for spot in held:
            club.service.withdraw_bet(code, token, spot, key=f"{key}:{spot}")
        return _done(club, request, code, Message(N_("Your bets are off the table.")))

    @app.post("/play/{code}/marker")
    def marker(request: Request, code: str, form: Posted) -> Response:
        club.service.place_marker(code, club.seat_token(request, code), field(form, "row"))
        return _done(club, request, code)


def _add_fairness(app: FastAPI, club: Club) -> None:
    """The check of a settled round's revealed deck."""

    @app.get("/verify/{code}/{number}")
    def verify(request: Request, code: str, number: int) -> Response:
        reveal = club.service.reveal(code, number)
        has_centre = club.service.state(code).procedure.has_centre
        table = code.upper()
        dealer = club.dealer_token(request, table)
        back = f"/dealer/{table}" if dealer and club.service.is_dealer(table, dealer) else None
        return render(
            request,
            "verify.html",
            code=table,
            reveal=reveal,
            has_centre=has_centre,
            back=back or f"/play/{table}",  # the dealer's screen, or the seat (or joining)
            deck_cards=[Card.parse(card) for card in reveal.deck.split()],
            dealt_cards=[Card.parse(card) for card in reveal.dealt],
            face=faces(request_info(request).lang),  # the felt's own card names
        )
