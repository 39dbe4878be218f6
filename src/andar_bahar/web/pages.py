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
from collections.abc import Callable
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, File, Form, Request, UploadFile
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket

from andar_bahar.chance.odds import Percent, odds_report
from andar_bahar.engine.bets import Bet, MainBet
from andar_bahar.engine.errors import AccessError, AndarBaharError, ParameterError, PaytableError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import (
    PAYTABLES,
    MainKey,
    Odds,
    Paytable,
    find_paytable,
    load_paytable,
)
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, Row, StartRule, TargetMode
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import Storage
from andar_bahar.web.app import Site, redirect, render
from andar_bahar.web.live import add_live_routes
from andar_bahar.web.security import set_cookie
from andar_bahar.web.service import PublicRound, TableService, TableState

__all__ = ["register"]

T = TypeVar("T")
_MAX_UPLOAD = 64 * 1024
_SEAT_DAYS = 30 * 24 * 3600


def register(app: FastAPI, site: Site) -> None:
    """Add the pages, the JSON API and the live route to *app*."""
    storage = Storage.open(site.database_url)
    service = TableService(storage)
    app.state.service = service
    seats = site.signer("seat")
    dealers = site.signer("dealer")

    async def authorize(websocket: WebSocket, code: str) -> bool:
        try:
            await run_in_threadpool(service.state, code)
        except AndarBaharError:
            return False
        return True

    add_live_routes(app, site.hub, authorize=authorize)

    def publish(code: str, kind: str) -> None:
        site.hub.publish(code.upper(), {"kind": kind})

    def dealer_token(request: Request, code: str) -> str:
        signed = request.cookies.get(f"dealer_{code.upper()}", "")
        return dealers.unsign(signed) or ""

    def seat_token(request: Request, code: str) -> str:
        signed = request.cookies.get(f"seat_{code.upper()}", "")
        return seats.unsign(signed) or ""

    # -- home, joining ------------------------------------------------------------------

    @app.get("/", name="home")
    def home(request: Request, code: str = "") -> Response:
        return render(request, "home.html", code=code.upper())

    @app.post("/join")
    def join(
        request: Request, code: Annotated[str, Form()], name: Annotated[str, Form()]
    ) -> Response:
        table = code.strip().upper()
        token = service.join(table, name)
        response = redirect(request, f"/play/{table}")
        set_cookie(response, request, f"seat_{table}", seats.sign(token), max_age=_SEAT_DAYS)
        publish(table, "joined")
        return response

    # -- a new table -----------------------------------------------------------------------

    @app.get("/tables/new")
    def new_table(request: Request) -> Response:
        return render(request, "new_table.html", **_choices())

    @app.post("/tables/preview")
    async def preview(
        request: Request,
        procedure: Annotated[str, Form()] = "classic",
        start: Annotated[str, Form()] = "",
        target: Annotated[str, Form()] = "",
        window: Annotated[str, Form()] = "",
        paytable: Annotated[str, Form()] = "trainer-default",
        paytable_file: Annotated[UploadFile | None, File()] = None,
    ) -> Response:
        rules = _procedure(procedure, start, target, window)
        table = await _paytable(paytable, paytable_file)
        return render(
            request, "odds_fragment.html", report=odds_report(rules, table), percent=Percent
        )

    @app.post("/tables")
    async def create_table(
        request: Request,
        name: Annotated[str, Form()],
        pin: Annotated[str, Form()],
        kind: Annotated[str, Form()] = "betting",
        procedure: Annotated[str, Form()] = "classic",
        start: Annotated[str, Form()] = "",
        target: Annotated[str, Form()] = "",
        window: Annotated[str, Form()] = "",
        paytable: Annotated[str, Form()] = "trainer-default",
        paytable_file: Annotated[UploadFile | None, File()] = None,
        rounds: Annotated[str, Form()] = "10",
        scoring: Annotated[str, Form()] = "",
    ) -> Response:
        rules = _procedure(procedure, start, target, window)
        table = await _paytable(paytable, paytable_file)
        planned = _whole(rounds, "rounds")
        created = await run_in_threadpool(
            lambda: service.create_table(
                name=name, kind=kind, procedure=rules, paytable=table, pin=pin,
                rounds=planned, scoring=bool(scoring) or kind == "betting",
            )
        )  # fmt: skip
        response = redirect(request, f"/dealer/{created.code}")
        set_cookie(response, request, f"dealer_{created.code}", dealers.sign(created.dealer_token))
        return response

    # -- the dealer ---------------------------------------------------------------------------

    @app.get("/dealer/{code}/login")
    def dealer_login_page(request: Request, code: str) -> Response:
        return render(request, "dealer_login.html", code=code.upper())

    @app.post("/dealer/{code}/login")
    def dealer_login(request: Request, code: str, pin: Annotated[str, Form()]) -> Response:
        token = service.dealer_login(code, pin)
        response = redirect(request, f"/dealer/{code.upper()}")
        set_cookie(response, request, f"dealer_{code.upper()}", dealers.sign(token))
        return response

    @app.get("/dealer/{code}")
    def dealer_page(request: Request, code: str, block: str | None = None) -> Response:
        token = dealer_token(request, code)
        if not service.is_dealer(code, token):
            return redirect(request, f"/dealer/{code.upper()}/login")
        return _page(request, "dealer.html", service.state(code), block, dealer=True, token=token)

    @app.post("/dealer/{code}/players")
    def admit(
        request: Request,
        code: str,
        name: Annotated[str, Form()],
        balance: Annotated[str, Form()] = "0",
    ) -> Response:
        service.admit_player(code, dealer_token(request, code), name, balance)
        publish(code, "admitted")
        return redirect(request, f"/dealer/{code.upper()}")

    @app.post("/dealer/{code}/round/{action}")
    def round_action(
        request: Request,
        code: str,
        action: str,
        card: Annotated[str, Form()] = "",
        physical: Annotated[str, Form()] = "",
    ) -> Response:
        token = dealer_token(request, code)
        steps: dict[str, Callable[[], object]] = {
            "open": lambda: service.open_round(code, token, physical=bool(physical)),
            "centre": lambda: service.turn_centre(code, token, card or None),
            "target": lambda: service.choose_target(code, token, card),
            "close": lambda: service.close_bets(code, token),
            "deal": lambda: service.deal(code, token, card or None),
            "void": lambda: service.void(code, token),
            "settle": lambda: service.settle(code, token),
        }
        if action not in steps:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        steps[action]()
        publish(code, action)
        return redirect(request, f"/dealer/{code.upper()}")

    @app.post("/dealer/{code}/paytable")
    async def change_paytable(
        request: Request,
        code: str,
        reason: Annotated[str, Form()],
        paytable: Annotated[str, Form()] = "trainer-default",
        paytable_file: Annotated[UploadFile | None, File()] = None,
    ) -> Response:
        table = await _paytable(paytable, paytable_file)
        token = dealer_token(request, code)
        await run_in_threadpool(service.change_paytable, code, token, table, reason)
        publish(code, "paytable")
        return redirect(request, f"/dealer/{code.upper()}")

    # -- a player --------------------------------------------------------------------------------

    @app.get("/play/{code}")
    def player_page(request: Request, code: str, block: str | None = None) -> Response:
        token = seat_token(request, code)
        try:
            name = service.player_name(code, token)
        except AccessError:
            return redirect(request, f"/?code={code.upper()}")
        return _page(request, "player.html", service.state(code), block, dealer=False, player=name)

    @app.post("/play/{code}/bet")
    def bet(
        request: Request,
        code: str,
        bet: Annotated[str, Form()],
        stake: Annotated[str, Form()],
        key: Annotated[str, Form()],
    ) -> Response:
        service.place_bet(code, seat_token(request, code), bet, stake, key=key)
        publish(code, "bet")
        return redirect(request, f"/play/{code.upper()}")

    @app.post("/play/{code}/withdraw")
    def withdraw(
        request: Request, code: str, bet: Annotated[str, Form()], key: Annotated[str, Form()]
    ) -> Response:
        service.withdraw_bet(code, seat_token(request, code), bet, key=key)
        publish(code, "bet")
        return redirect(request, f"/play/{code.upper()}")

    @app.post("/play/{code}/marker")
    def marker(request: Request, code: str, row: Annotated[str, Form()]) -> Response:
        service.place_marker(code, seat_token(request, code), row)
        publish(code, "marker")
        return redirect(request, f"/play/{code.upper()}")

    # -- fairness ----------------------------------------------------------------------------------

    @app.get("/verify/{code}/{number}")
    def verify(request: Request, code: str, number: int) -> Response:
        return render(
            request, "verify.html", code=code.upper(), reveal=service.reveal(code, number)
        )

    def _page(
        request: Request, template: str, state: TableState, block: str | None, **extra: object
    ) -> Response:
        context: dict[str, Any] = {
            "state": state,
            "round": state.round,
            "recent": service.recent_rounds(state.code, 10),
            "bet_key": secrets.token_hex(12),
            "paytable_rows": _paytable_rows(
                state.round.paytable if state.round else state.paytable
            ),
            "live_table": state.code,
            **extra,
        }
        allowed = {"players", "round", "bets", "history", "me"}
        return render(request, template, block=block if block in allowed else None, **context)

    # -- the JSON API ----------------------------------------------------------------------------

    def bearer(request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" else ""

    @app.post("/api/tables")
    async def api_create(request: Request) -> JSONResponse:
        data = await _json(request)
        rules = _procedure(
            str(data.get("procedure", "classic")), str(data.get("start", "")),
            str(data.get("target", "")), str(data.get("window", "")),
        )  # fmt: skip
        table = find_paytable(str(data.get("paytable", "trainer-default")))
        rounds = _whole(str(data.get("rounds", "10")), "rounds")
        created = await run_in_threadpool(
            lambda: service.create_table(
                name=str(data.get("name", "")), kind=str(data.get("kind", "betting")),
                procedure=rules, paytable=table, pin=str(data.get("pin", "")), rounds=rounds,
            )
        )  # fmt: skip
        return JSONResponse({"code": created.code, "dealer_token": created.dealer_token})

    @app.post("/api/tables/{code}/players")
    async def api_admit(request: Request, code: str) -> JSONResponse:
        data = await _json(request)
        await run_in_threadpool(
            service.admit_player,
            code,
            bearer(request),
            str(data.get("name", "")),
            str(data.get("balance", "0")),
        )
        publish(code, "admitted")
        return JSONResponse({"ok": True})

    @app.post("/api/tables/{code}/join")
    async def api_join(request: Request, code: str) -> JSONResponse:
        data = await _json(request)
        token = await run_in_threadpool(service.join, code, str(data.get("name", "")))
        publish(code, "joined")
        return JSONResponse({"token": token})

    @app.post("/api/tables/{code}/rounds")
    async def api_open(request: Request, code: str) -> JSONResponse:
        data = await _json(request)
        physical = bool(data.get("physical"))
        token = bearer(request)
        opened = await run_in_threadpool(lambda: service.open_round(code, token, physical=physical))
        publish(code, "open")
        return JSONResponse(_round_json(opened))

    @app.post("/api/tables/{code}/actions/{action}")
    async def api_action(request: Request, code: str, action: str) -> JSONResponse:
        data = await _json(request)
        token = bearer(request)
        card = str(data["card"]) if data.get("card") else None
        steps: dict[str, Callable[[], PublicRound]] = {
            "centre": lambda: service.turn_centre(code, token, card),
            "close": lambda: service.close_bets(code, token),
            "deal": lambda: service.deal(code, token, card),
            "void": lambda: service.void(code, token),
            "settle": lambda: service.settle(code, token),
        }
        if action not in steps:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        result = await run_in_threadpool(steps[action])
        publish(code, action)
        return JSONResponse(_round_json(result))

    @app.post("/api/tables/{code}/bets")
    async def api_bet(request: Request, code: str) -> JSONResponse:
        data = await _json(request)
        token = bearer(request)
        placed = await run_in_threadpool(
            lambda: service.place_bet(
                code, token, str(data.get("bet", "")), str(data.get("stake", "")),
                key=str(data.get("key", "")),
            )
        )  # fmt: skip
        publish(code, "bet")
        return JSONResponse(
            {
                "player": placed.player,
                "bet": placed.bet,
                "stake": format_amount(placed.stake),
                "round": placed.round,
            }
        )

    @app.post("/api/tables/{code}/markers")
    async def api_marker(request: Request, code: str) -> JSONResponse:
        data = await _json(request)
        await run_in_threadpool(
            service.place_marker, code, bearer(request), str(data.get("row", ""))
        )
        publish(code, "marker")
        return JSONResponse({"ok": True})

    @app.get("/api/tables/{code}")
    def api_state(code: str) -> JSONResponse:
        state = service.state(code)
        return JSONResponse(
            {
                "code": state.code,
                "name": state.name,
                "kind": state.kind,
                "procedure": state.procedure.to_dict(),
                "paytable": state.paytable.name,
                "players": [
                    {
                        "name": p.name,
                        "joined": p.joined,
                        "balance": format_amount(p.balance),
                        "tokens": p.tokens,
                    }
                    for p in state.players
                ],
                "round": _round_json(state.round) if state.round else None,
                "rounds_settled": state.rounds_settled,
            }
        )

    @app.get("/api/tables/{code}/rounds/{number}/reveal")
    def api_reveal(code: str, number: int) -> JSONResponse:
        reveal = service.reveal(code, number)
        return JSONResponse(
            {"number": reveal.number, "deck": reveal.deck, "salt": reveal.salt,
             "commitment": reveal.commitment, "verified": reveal.verified}
        )  # fmt: skip


def _round_json(rnd: PublicRound) -> dict[str, Any]:
    """A round for programs: only what has been dealt, never the deck."""
    return {
        "number": rnd.number,
        "status": rnd.status,
        "bets_open": rnd.bets_open,
        "physical": rnd.physical,
        "procedure": rnd.procedure.name,
        "paytable": rnd.paytable.name,
        "centre": str(rnd.centre) if rnd.centre else None,
        "target": rnd.target.value if rnd.target else None,
        "dealt": [{"card": str(d.card), "row": d.row.value} for d in rnd.dealt],
        "first_side": rnd.first_row.value if rnd.first_row else None,
        "bets": [{"player": p, "bet": b, "stake": format_amount(s)} for p, b, s in rnd.wagers],
        "markers": {name: row.value for name, row in rnd.markers.items()},
        "winner": (rnd.result.winner.value if rnd.result.winner else "void") if rnd.result else None,
        "cards_dealt": rnd.result.cards_dealt if rnd.result else None,
        "commitment": rnd.commitment,
        "settlement": [
            {"player": b.player, "bet": str(b.bet), "stake": format_amount(b.stake), "outcome": b.outcome.value,
             "win": format_amount(b.win), "returned": format_amount(b.returned)}
            for b in rnd.settlement.bets
        ]
        if rnd.settlement
        else None,
    }  # fmt: skip


async def _json(request: Request) -> dict[str, Any]:
    # Only application/json: a page on another site cannot send that without a CORS
    # preflight, which this server never grants, so the API needs no CSRF token.
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ParameterError(Message(N_("The request body must be a JSON object.")))
    try:
        data = await request.json()
    except ValueError:
        raise ParameterError(Message(N_("The request body must be a JSON object."))) from None
    if not isinstance(data, dict):
        raise ParameterError(Message(N_("The request body must be a JSON object.")))
    return data


def _paytable_rows(paytable: Paytable) -> list[tuple[Bet, Odds | Message]]:
    """Every bet of *paytable* with what it pays, as the pages list them."""
    rows: list[tuple[Bet, Odds | Message]] = []
    for bet in paytable.bets:
        if isinstance(bet, MainBet) and paytable.keyed_by is MainKey.FIRST_ROW:
            first, second = paytable.main
            rows.append(
                (
                    bet,
                    Message(
                        N_("{first} if dealt first, else {second}"), first=first, second=second
                    ),
                )
            )
        else:
            rows.append((bet, paytable.odds_for(bet, first_row=Row.ANDAR)))
    return rows


def _choices() -> dict[str, Any]:
    return {
        "procedures": PROCEDURES,
        "paytables": PAYTABLES,
        "starts": [s.value for s in StartRule],
        "targets": [t.value for t in TargetMode],
        "windows": [w.value for w in BetWindow],
    }


def _procedure(name: str, start: str, target: str, window: str) -> Procedure:
    if name not in PROCEDURES:
        raise ParameterError(
            Message(
                N_("Unknown procedure '{name}': choose one of {names}."),
                name=name,
                names=", ".join(PROCEDURES),
            )
        )
    changes: dict[str, object] = {}
    for field, value, kind in (
        ("start", start, StartRule),
        ("target", target, TargetMode),
        ("window", window, BetWindow),
    ):
        if value:
            choices = [member.value for member in kind]
            if value not in choices:
                raise ParameterError(
                    Message(
                        N_("'{value}' is not one of {choices}."),
                        value=value,
                        choices=", ".join(choices),
                    )
                )
            changes[field] = kind(value)
    rules = PROCEDURES[name]
    return rules.replace(**changes) if changes else rules


async def _paytable(name: str, upload: UploadFile | None) -> Paytable:
    """A preset, or a club's TOML file when one is uploaded (validated, errors name the entry)."""
    if upload is not None and upload.filename:
        content = await upload.read(_MAX_UPLOAD + 1)
        if len(content) > _MAX_UPLOAD:
            raise PaytableError(Message(N_("The paytable file is too large: at most 64 KiB.")))
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise PaytableError(
                Message(N_("The file {file} is not UTF-8 text."), file=upload.filename)
            ) from None
        return load_paytable(text, source=upload.filename)
    return find_paytable(name)


def _whole(text: str, field: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ParameterError(
            Message(N_("'{field}' must be a whole number, not '{text}'."), field=field, text=text)
        ) from None


_ = (Decimal, TableState)
