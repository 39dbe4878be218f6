"""The JSON API of trust at the table: the dealer's sign-in, seats, the cashier, the records.

- ``POST /api/tables/{code}/login`` ``{"pin": …, "device": …}`` → ``{"dealer_token": …,
  "device": …}`` (429 with ``Retry-After`` after too many wrong PINs; ``device``, from an
  earlier sign-in or the new table's answer, keeps a stranger's wrong PINs from locking
  this program out); ``POST …/logout`` signs this token out;
- ``POST /api/tables/{code}/seats/reissue`` ``{"name": …, "reason": …}`` →
  ``{"seat_code": …}``; ``…/seats/release`` → ``{"cashed_out": …}``;
- ``POST /api/tables/{code}/cash`` ``{"name", "amount", "action": "top-up"|"cash-out",
  "reason"}`` → ``{"balance": …}``;
- ``GET /api/tables/{code}/statement`` (``?format=csv`` for CSV) and ``GET …/audit``,
  for the dealer's token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, Response

from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import request_info
from andar_bahar.web.http.forms import read_amount, read_json

if TYPE_CHECKING:
    from andar_bahar.club.cashier import Statement
    from andar_bahar.web.pages.shared import Club

__all__ = ["register", "statement_json"]


def register(app: FastAPI, club: Club, bearer: Callable[[Request], str]) -> None:
    """Add the sign-in, seat, cashier, statement and audit routes of the API to *app*."""

    @app.post("/api/tables/{code}/login")
    async def api_login(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        known = club.device_of(code, str(data.get("device", "")))
        token = await run_in_threadpool(
            club.service.dealer_login, code, str(data.get("pin", "")), club.client(request), known
        )
        return JSONResponse({"dealer_token": token, "device": club.device_proof(code, known)})

    @app.post("/api/tables/{code}/logout")
    async def api_logout(request: Request, code: str) -> JSONResponse:
        await run_in_threadpool(
            club.service.dealer_logout, code, bearer(request), club.client(request)
        )
        return JSONResponse({"ok": True})

    @app.post("/api/tables/{code}/seats/{action}")
    async def api_seats(request: Request, code: str, action: str) -> JSONResponse:
        data = await read_json(request)
        name, reason = str(data.get("name", "")), str(data.get("reason", ""))
        token = bearer(request)
        if action == "reissue":
            seat = await run_in_threadpool(club.service.reissue_seat, code, token, name, reason)
            answer: dict[str, object] = {"seat_code": seat}
        elif action == "release":
            paid = await run_in_threadpool(club.service.release_seat, code, token, name, reason)
            answer = {"cashed_out": format_amount(paid)}
        else:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        return JSONResponse(answer)

    @app.post("/api/tables/{code}/cash")
    async def api_cash(request: Request, code: str) -> JSONResponse:
        data = await read_json(request)
        action = str(data.get("action", ""))
        moves = {"top-up": club.service.top_up, "cash-out": club.service.cash_out}
        if action not in moves:
            raise ParameterError(
                Message(N_("'{value}' is not one of {choices}."), value=action,
                        choices="top-up, cash-out")
            )  # fmt: skip
        amount = read_amount(data.get("amount", ""), request_info(request).lang)
        balance = await run_in_threadpool(
            moves[action], code, bearer(request), str(data.get("name", "")), amount,
            str(data.get("reason", "")),
        )  # fmt: skip
        return JSONResponse({"balance": format_amount(balance)})

    @app.get("/api/tables/{code}/statement")
    def api_statement(request: Request, code: str, format: str = "json") -> Response:
        sheet = club.service.statement(code, bearer(request))
        if format == "csv":
            return Response(sheet.csv(), media_type="text/csv; charset=utf-8")
        return JSONResponse(statement_json(sheet))

    @app.get("/api/tables/{code}/audit")
    def api_audit(request: Request, code: str) -> JSONResponse:
        rows = club.service.audit_log(code, bearer(request))
        return JSONResponse(
            [
                {"at": r.created_at.isoformat(), "actor": r.actor, "action": r.action,
                 "old": r.old_value, "new": r.new_value, "reason": r.reason}
                for r in rows
            ]
        )  # fmt: skip


def statement_json(sheet: Statement) -> dict[str, Any]:
    """A table's end-of-night statement for programs: per player, then every posting."""
    return {
        "code": sheet.code,
        "rounds_settled": sheet.rounds_settled,
        "house_result": format_amount(sheet.house_result),
        "players": [
            {
                "name": p.name, "bought_in": format_amount(p.bought_in),
                "topped_up": format_amount(p.topped_up),
                "cashed_out": format_amount(p.cashed_out),
                "staked": format_amount(p.staked), "returned": format_amount(p.returned),
                "balance": format_amount(p.balance), "released": p.released,
            }
            for p in sheet.players
        ],
        "postings": [
            {"at": p.at.isoformat(), "player": p.player, "kind": p.kind, "round": p.round,
             "amount": format_amount(p.amount), "reason": p.reason}
            for p in sheet.postings
        ],
    }  # fmt: skip
