"""The dealer's trust pages: seats, the cashier, the statement, the audit log, signing out.

- ``/dealer/{code}/seats/{reissue,release,hide}``: a new seat code for a player (the phone
  that held the seat is signed out), a seat released (its chips cashed out), the fresh
  codes hidden from the screen;
- ``/dealer/{code}/cash``: a top-up or a cash-out, with a reason;
- ``/dealer/{code}/statement`` (and ``.csv``): the night's statement;
- ``/dealer/{code}/audit``: the audit log;
- ``/dealer/{code}/logout``: this device signs out (the dealer's others stay in);
- ``/seat/{code}/{seat}``: the link of a seat's QR code — a page that asks to join (a GET
  never takes a seat).

A seat code is kept only as a hash: the dealer's screen shows a new one (text and QR code)
from a signed cookie of the dealer's own browser until the player has joined or the
dealer hides it.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Annotated, Any

import segno
from fastapi import FastAPI, Form, Request
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from andar_bahar.club.values import TableState
from andar_bahar.engine.errors import AccessError, ParameterError
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import request_info
from andar_bahar.web.http.forms import read_amount
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.http.security import set_cookie

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["fresh_seats", "register", "remember_seat", "seats_context"]

FRESH_SEATS = 8
"""New seat codes kept on the dealer's screen at once."""
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def _cookie(code: str) -> str:
    return f"seats_{code.upper()}"


def fresh_seats(request: Request, club: Club, code: str) -> list[tuple[str, str]]:
    """The seat codes issued from this browser not yet hidden: (name, code) pairs."""
    signed = request.cookies.get(_cookie(code), "")
    value = club.dealers.unsign(signed) if signed else None
    try:
        pairs = json.loads(base64.urlsafe_b64decode(value.encode())) if value else []
    except ValueError:
        return []
    return [(str(n), str(s)) for n, s in pairs][-FRESH_SEATS:]


def remember_seat(
    request: Request, response: Response, club: Club, code: str, name: str, seat: str
) -> None:
    """Keep a new seat code for the dealer's screen (in the dealer's own browser only)."""
    pairs = [(n, s) for n, s in fresh_seats(request, club, code) if n != name] + [(name, seat)]
    value = base64.urlsafe_b64encode(json.dumps(pairs[-FRESH_SEATS:]).encode()).decode()
    set_cookie(response, request, _cookie(code), club.dealers.sign(value), max_age=3600)


def seats_context(request: Request, club: Club, state: TableState) -> dict[str, Any]:
    """What ``_seats.html`` shows: each fresh code with its link and QR code (inline SVG),
    and the seats whose code was tried on another device (to sign that device out)."""
    waiting = {p.name for p in state.players if not p.joined}
    seats = []
    for name, seat in fresh_seats(request, club, state.code):
        if name in waiting:
            link = f"{str(request.base_url).rstrip('/')}/seat/{state.code}/{seat}"
            svg = segno.make(link, error="m").svg_inline(scale=4, dark="#000", light="#fff")
            seats.append({"name": name, "seat": seat, "link": link, "qr": Markup(svg)})  # noqa: S704
    host = request.url.hostname or ""
    in_use = club.service.seats_in_use(state.code, club.dealer_token(request, state.code))
    return {"fresh_seats": seats, "loopback": host in _LOOPBACK, "seats_in_use": in_use}


def register(app: FastAPI, club: Club) -> None:
    """Add the dealer's trust pages and the seat link to *app*."""
    _add_seats_and_cash(app, club)
    _add_records(app, club)


def _back(request: Request, code: str) -> Response:
    return redirect(request, f"/dealer/{code.upper()}")


def _add_seats_and_cash(app: FastAPI, club: Club) -> None:
    """Signing out, seat codes given again or released, cash in and out."""

    @app.post("/dealer/{code}/logout")
    def logout(request: Request, code: str) -> Response:
        club.service.dealer_logout(code, club.dealer_token(request, code), club.client(request))
        response = redirect(request, f"/dealer/{code.upper()}/login")
        response.delete_cookie(f"dealer_{code.upper()}", path="/")
        response.delete_cookie(_cookie(code), path="/")
        return response

    @app.post("/dealer/{code}/seats/{action}")
    def seats(
        request: Request,
        code: str,
        action: str,
        name: Annotated[str, Form()] = "",
        reason: Annotated[str, Form()] = "",
    ) -> Response:
        token = club.dealer_token(request, code)
        response = _back(request, code)
        if action == "reissue":
            seat = club.service.reissue_seat(code, token, name, reason)
            remember_seat(request, response, club, code, name.strip(), seat)
        elif action == "release":
            club.service.release_seat(code, token, name, reason)
        elif action == "hide":
            if not club.service.is_dealer(code, token):
                raise AccessError(
                    Message(N_("Only the dealer can do this at table {code}."), code=code.upper())
                )
            response.delete_cookie(_cookie(code), path="/")
            return response
        else:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        return response

    @app.post("/dealer/{code}/cash")
    def cash(
        request: Request,
        code: str,
        name: Annotated[str, Form()],
        amount: Annotated[str, Form()],
        action: Annotated[str, Form()] = "top-up",
        reason: Annotated[str, Form()] = "",
    ) -> Response:
        token = club.dealer_token(request, code)
        chips = read_amount(amount, request_info(request).lang)
        if action == "top-up":
            club.service.top_up(code, token, name, chips, reason)
        elif action == "cash-out":
            club.service.cash_out(code, token, name, chips, reason)
        else:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        return _back(request, code)


def _add_records(app: FastAPI, club: Club) -> None:
    """The statement, the audit log, the seat link."""

    @app.get("/dealer/{code}/statement")
    def statement(request: Request, code: str) -> Response:
        sheet = club.service.statement(code, club.dealer_token(request, code))
        return render(request, "statement.html", statement=sheet, code=sheet.code)

    @app.get("/dealer/{code}/statement.csv")
    def statement_csv(request: Request, code: str) -> Response:
        sheet = club.service.statement(code, club.dealer_token(request, code))
        name = f"statement-{sheet.code}.csv"
        return Response(
            sheet.csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.get("/dealer/{code}/audit")
    def audit(request: Request, code: str) -> Response:
        rows = club.service.audit_log(code, club.dealer_token(request, code))
        return render(request, "audit.html", rows=rows, code=code.upper())

    @app.get("/seat/{code}/{seat}")
    async def seat_link(request: Request, code: str, seat: str) -> Response:
        state = await run_in_threadpool(club.service.view, code)
        token = club.seat_token(request, state.code)
        held = await run_in_threadpool(club.service.player_seat, state.code, token)
        if held is not None:
            return redirect(request, f"/play/{state.code}")  # joined: Back leads to the seat
        return render(request, "seat.html", code=state.code, table=state.name, seat=seat[:20])
