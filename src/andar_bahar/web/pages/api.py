"""The JSON API under ``/api/``: the same table for programs.

Requests carry ``Authorization: Bearer <token>`` (the dealer's or a player's) and
no cookies, so they need no CSRF token; bodies are JSON objects only (a page on
another site cannot send one without a CORS preflight, which is never granted).
Errors are ``{"error": sentence}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from andar_bahar.club.values import PublicRound
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import request_info
from andar_bahar.web.http.forms import (
    procedure_from_form,
    read_amount,
    read_json,
    true_or_false,
    whole_number,
)
from andar_bahar.web.pages import trust_api

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["bearer", "register", "round_json"]


def register(app: FastAPI, club: Club) -> None:
    """Add the JSON API's routes to *app*."""
    _add_tables(app, club)
    trust_api.register(app, club, bearer)
    _add_rounds(app, club)
    _add_reads(app, club)


def bearer(request: Request) -> str:
    """The token of ``Authorization: Bearer <token>``, or ``""``."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _add_tables(app: FastAPI, club: Club) -> None:
    """Creating a table, admitting a player, joining a seat, closing the table."""

    @app.post("/api/tables")
    async def api_create(request: Request) -> JSONResponse:
        data = await read_json(request)
        rules = procedure_from_form(
            str(data.get("procedure", "classic")), str(data.get("start", "")),
            str(data.get("target", "")), str(data.get("window", "")),
        )  # fmt: skip
        table = find_paytable(str(data.get("paytable", "trainer-default")))
        rounds = whole_number(str(data.get("rounds", "10")), "rounds")
        created = await run_in_threadpool(
            lambda: club.service.create_table(
                name=str(data.get("name", "")), kind=str(data.get("kind", "betting")),
                procedure=rules, paytable=table, pin=str(data.get("pin", "")), rounds=rounds,
                client=club.client(request),
            )
        )  # fmt: skip
        return JSONResponse(
            {"code": created.code, "dealer_token": created.dealer_token,
             "device": club.device_proof(created.code)}
        )  # fmt: skip

    @app.post("/api/tables/{code}/players")
    async def api_admit(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        balance = read_amount(data.get("balance", "0"), request_info(request).lang)
        seat = await run_in_threadpool(
            club.service.admit_player, code, bearer(request), str(data.get("name", "")),
            balance, str(data.get("reason", "")),
        )  # fmt: skip
        return JSONResponse({"seat_code": seat})

    @app.post("/api/tables/{code}/close")
    async def api_close(request: Request, code: str) -> JSONResponse:
        """The dealer closes the table for the night (the cashier still cashes out)."""
        data = await read_json(request)
        await run_in_threadpool(
            club.service.close_table, code, bearer(request), str(data.get("reason", ""))
        )
        return JSONResponse({"code": code.strip().upper(), "closed": True})

    @app.post("/api/tables/{code}/join")
    async def api_join(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        token = await run_in_threadpool(
            club.service.join, code, str(data.get("seat_code", "")), club.client(request)
        )
        return JSONResponse({"token": token})


def _add_rounds(app: FastAPI, club: Club) -> None:
    """The dealer's steps, the bet timer, bets and markers."""

    @app.post("/api/tables/{code}/rounds")
    async def api_open(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        physical = true_or_false(data, "physical")
        seconds = whole_number(str(data["seconds"]), "seconds") if "seconds" in data else None
        token = bearer(request)
        opened = await run_in_threadpool(
            lambda: club.service.open_round(code, token, physical=physical, seconds=seconds)
        )
        return JSONResponse(round_json(opened))

    @app.post("/api/tables/{code}/timer")
    async def api_timer(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        seconds = whole_number(str(data.get("seconds", "")), "seconds")
        token = bearer(request)
        timed = await run_in_threadpool(lambda: club.service.set_timer(code, token, seconds))
        return JSONResponse(round_json(timed))

    @app.post("/api/tables/{code}/actions/{action}")
    async def api_action(request: Request, code: str, action: str) -> JSONResponse:
        data = await read_json(request)
        token = bearer(request)
        card = str(data["card"]) if data.get("card") else None
        steps: dict[str, Callable[[], PublicRound]] = {
            "centre": lambda: club.service.turn_centre(code, token, card),
            "close": lambda: club.service.close_bets(code, token),
            "deal": lambda: club.service.deal(code, token, card),
            "void": lambda: club.service.void(code, token, str(data.get("reason", ""))),
            "settle": lambda: club.service.settle(code, token),
        }
        if action not in steps:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        result = await run_in_threadpool(steps[action])
        return JSONResponse(round_json(result))

    @app.post("/api/tables/{code}/bets")
    async def api_bet(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        token = bearer(request)
        stake = read_amount(data.get("stake", ""), request_info(request).lang)
        placed = await run_in_threadpool(
            lambda: club.service.place_bet(
                code, token, str(data.get("bet", "")), stake, key=str(data.get("key", ""))
            )
        )
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
        data = await read_json(request)
        await run_in_threadpool(
            club.service.place_marker, code, bearer(request), str(data.get("row", ""))
        )
        return JSONResponse({"ok": True})


def _add_reads(app: FastAPI, club: Club) -> None:
    """The table as its reader may see it; a settled round's revealed deck."""

    @app.get("/api/tables/{code}")
    def api_state(request: Request, code: str) -> JSONResponse:
        """The table as the token's holder may see it: anyone never sees balances or bets."""
        token = bearer(request)
        if token and club.service.is_dealer(code, token):
            state = club.service.state(code)
        else:
            state = club.service.view(code, player_token=token)
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
                        "result": format_amount(p.result),  # the night's, from the ledger
                        "tokens": p.tokens,
                    }
                    for p in state.players
                ],
                "round": round_json(state.round) if state.round else None,
                "rounds_settled": state.rounds_settled,
                "closed": state.closed,
                "version": state.version,
            }
        )

    @app.get("/api/tables/{code}/rounds/{number}/reveal")
    def api_reveal(code: str, number: int) -> JSONResponse:
        reveal = club.service.reveal(code, number)
        return JSONResponse(
            {"number": reveal.number, "deck": reveal.deck, "salt": reveal.salt,
             "commitment": reveal.commitment, "verified": reveal.verified}
        )  # fmt: skip


def round_json(rnd: PublicRound) -> dict[str, Any]:
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
        "void_reason": rnd.void_reason,
        "bets_deadline": rnd.bets_deadline.isoformat() if rnd.bets_deadline else None,
        "centre_bets_open": rnd.centre_open and rnd.bets_open,
        "centre_settled": [
            {"player": b.player, "bet": str(b.bet), "stake": format_amount(b.stake), "outcome": b.outcome.value,
             "win": format_amount(b.win)}
            for b in rnd.centre_paid
        ],
        "settlement": [
            {"player": b.player, "bet": str(b.bet), "stake": format_amount(b.stake), "outcome": b.outcome.value,
             "win": format_amount(b.win), "returned": format_amount(b.returned)}
            for b in rnd.settlement.bets
        ]
        if rnd.settlement
        else None,
    }  # fmt: skip
