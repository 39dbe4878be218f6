"""The players' pages: joining a table, the table on a phone, and the check of a dealt deck.

``/`` joins a table by its code; ``/play/{code}`` is the player's phone: the felt, the
spots to tap with the chosen chip (``/play/{code}/bet``), "repeat my last bets"
(``…/repeat``) and "clear" (``…/clear``), a marker at a teaching table (``…/marker``),
the road and the player's own rounds. Each action answers the page's script with the
page's new blocks (JSON), or a browser without scripts with a redirect back to the page.
``/verify/{code}/{n}`` shows the revealed deck and salt of a settled round.

The seat is the ``seat_CODE`` cookie (SameSite=Lax, see :mod:`andar_bahar.web.security`):
a link to ``/play/CODE`` from a chat or another site shows the player's own seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Form, Request
from starlette.responses import Response

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.errors import AccessError, AndarBaharError
from andar_bahar.engine.money import Amount
from andar_bahar.i18n import translations
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.web.app import redirect, render
from andar_bahar.web.context import localize, request_info
from andar_bahar.web.live_pages import wants_json
from andar_bahar.web.records import PlayerRound, PlayerState, TableState
from andar_bahar.web.security import set_cookie
from andar_bahar.web.table_view import ROAD_LENGTH, chip_values, spots, staked
from andar_bahar.web.views import Viewer, visible_to

if TYPE_CHECKING:
    from andar_bahar.web.pages import Club
    from andar_bahar.web.service import TableService

__all__ = ["Banner", "banner", "player_view", "register"]

SEAT_SECONDS = 30 * 24 * 3600
"""How long a phone keeps its seat cookie."""
FAVICON = (resources.files("andar_bahar.web") / "static" / "favicon.svg").read_bytes()


def player_view(service: TableService, state: TableState, name: str, lang: str) -> dict[str, Any]:
    """What the player's page shows of *state* for the player *name* (no request: a live
    render of the player's own blocks calls it too). *state* is what *name* may see."""
    me = next((p for p in state.players if p.name == name), PlayerState(name, True, Decimal(0), 0))
    rnd = state.round
    wagers = rnd.wagers if rnd else ()
    paytable = rnd.paytable if rnd else state.paytable
    mine = [] if state.teaching else service.player_rounds(state.code, name, ROAD_LENGTH)
    return {
        "player": name,
        "me": me,
        "at_stake": staked(wagers, name) if rnd and rnd.status != "settled" else Decimal(0),
        "spots": spots(paytable, wagers, name),
        "chips": chip_values(paytable),
        "can_repeat": bool(_last_bets(mine, rnd.number if rnd else None)),
        "my_rounds": mine,
        "session_net": sum((r.net for r in mine), Decimal(0)),
        "my_result": banner(state, name, translations(lang)),
    }


def _last_bets(mine: list[PlayerRound], current: int | None) -> tuple[tuple[str, Decimal], ...]:
    """The bets of the player's last settled round before the current one."""
    for played in mine:
        if played.number != current:
            return tuple((bet, stake) for bet, stake, _, _ in played.bets)
    return ()


@dataclass(frozen=True, slots=True)
class Banner:
    """The banner after a round: the headline, and what it meant for this player."""

    kind: str
    """``win``, ``lose`` or ``even`` (no bet, a void round)."""
    headline: str
    detail: str


def banner(state: TableState, name: str, words: Translator) -> Banner | None:
    """The result banner of the settled round for *name* (``None`` until it is settled)."""
    rnd = state.round
    if rnd is None or rnd.status != "settled" or rnd.result is None:
        return None
    winner = rnd.result.winner
    headline = Message(N_("{row} wins"), row=winner) if winner else Message(N_("The round is void"))
    kind, detail = "even", None
    bets = [b for b in (rnd.settlement.bets if rnd.settlement else ()) if b.player == name]
    marker = rnd.markers.get(name)
    if state.teaching and marker is not None and winner is not None:
        kind = "win" if marker is winner else "lose"
        detail = Message(
            N_("Your marker was on the winning row.")
            if marker is winner
            else N_("Your marker was not on the winning row.")
        )
    elif bets and winner is None:
        detail = Message(N_("Your stakes are back with you."))
    elif bets:
        won = sum((b.win for b in bets if b.outcome.value == "win"), Decimal(0))
        if any(b.outcome.value == "win" for b in bets):
            kind, detail = "win", Message(N_("You won {amount}."), amount=Amount(won))
        else:
            kind, detail = "lose", Message(N_("No win for you this round."))
    return Banner(kind, headline.localized(words), detail.localized(words) if detail else "")


def register(app: FastAPI, club: Club) -> None:
    """Add the players' pages to *app*."""

    def view(request: Request, whole: TableState, name: str) -> tuple[TableState, dict[str, Any]]:
        """What *name* may see of the table, and what their page adds to it."""
        state = visible_to(whole, Viewer(player=name))
        return state, player_view(club.service, state, name, request_info(request).lang)

    def answer(
        request: Request, code: str, name: str, note: object = None, *, publish: bool = True
    ) -> Response:
        """After an action: the page's new blocks for its script, or back to the page."""
        if publish:
            club.publish(code, "bet")
        if not wants_json(request):
            return redirect(request, f"/play/{code.upper()}")
        state, values = view(request, club.service.state(code), name)
        text = localize(request, note) if note is not None else ""
        return club.answer(request, "player", state, text, **values)

    # -- home, joining ------------------------------------------------------------------

    @app.get("/", name="home")
    def home(request: Request, code: str = "") -> Response:
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
        club.publish(table, "joined")
        return response

    # -- a player --------------------------------------------------------------------------------

    def seated(request: Request, code: str) -> str:
        return club.service.player_name(code, club.seat_token(request, code))

    @app.get("/play/{code}")
    def player_page(request: Request, code: str, block: str | None = None) -> Response:
        try:
            name = seated(request, code)
        except AccessError as refused:
            if not club.seat_token(request, code):
                return redirect(request, f"/?code={code.upper()}")
            # a phone signed out by the dealer (a new seat code, a released seat): say so
            return render(request, "home.html", code=code.upper(), notice=refused)
        state, values = view(request, club.service.state(code), name)
        return club.page(request, "player", state, block, **values)

    @app.post("/play/{code}/bet")
    def bet(
        request: Request,
        code: str,
        bet: Annotated[str, Form()],
        stake: Annotated[str, Form()],
        key: Annotated[str, Form()],
    ) -> Response:
        placed = club.service.place_bet(code, club.seat_token(request, code), bet, stake, key=key)
        held = club.service.state(code).round
        total = sum(
            (
                s
                for p, b, s in (held.wagers if held else ())
                if p == placed.player and b == placed.bet
            ),
            Decimal(0),
        )
        name = Bet.parse(placed.bet)
        note = (
            Message(N_("{bet}: {stake} on the spot."), bet=name, stake=Amount(total))
            if total == placed.stake
            else Message(
                N_("{bet}: {stake} added, {total} on the spot."),
                bet=name,
                stake=Amount(placed.stake),
                total=Amount(total),
            )
        )
        return answer(request, code, placed.player, note)

    @app.post("/play/{code}/withdraw")
    def withdraw(
        request: Request, code: str, bet: Annotated[str, Form()], key: Annotated[str, Form()]
    ) -> Response:
        placed = club.service.withdraw_bet(code, club.seat_token(request, code), bet, key=key)
        return answer(request, code, placed.player)

    @app.post("/play/{code}/repeat")
    def repeat(request: Request, code: str, key: Annotated[str, Form()]) -> Response:
        name = seated(request, code)
        state = club.service.state(code)
        mine = club.service.player_rounds(code, name, ROAD_LENGTH)
        last = _last_bets(mine, state.round.number if state.round else None)
        if not last:
            raise AccessError(Message(N_("You have no earlier bets to repeat at this table.")))
        token = club.seat_token(request, code)
        try:
            for index, (spot, stake) in enumerate(last):
                club.service.place_bet(code, token, spot, str(stake), key=f"{key}:{index}")
        finally:  # what was placed before a refusal is on the table: show it everywhere
            club.publish(code, "bet")
        note = Message(N_("Your last bets are on the table again."))
        return answer(request, code, name, note, publish=False)

    @app.post("/play/{code}/clear")
    def clear(request: Request, code: str, key: Annotated[str, Form()]) -> Response:
        name = seated(request, code)
        state = club.service.state(code)
        held = [b for p, b, _ in (state.round.wagers if state.round else ()) if p == name]
        token = club.seat_token(request, code)
        try:
            for spot in held:
                club.service.withdraw_bet(code, token, spot, key=f"{key}:{spot}")
        finally:
            club.publish(code, "bet")
        return answer(
            request, code, name, Message(N_("Your bets are off the table.")), publish=False
        )

    @app.post("/play/{code}/marker")
    def marker(request: Request, code: str, row: Annotated[str, Form()]) -> Response:
        name = seated(request, code)
        club.service.place_marker(code, club.seat_token(request, code), row)
        return answer(request, code, name)

    # -- fairness ----------------------------------------------------------------------------------

    @app.get("/verify/{code}/{number}")
    def verify(request: Request, code: str, number: int) -> Response:
        reveal = club.service.reveal(code, number)
        has_centre = club.service.state(code).procedure.has_centre
        return render(
            request, "verify.html", code=code.upper(), reveal=reveal, has_centre=has_centre
        )
