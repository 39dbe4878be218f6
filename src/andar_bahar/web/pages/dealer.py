"""The dealer's pages: a new table (with the odds of its pairing), sign-in, the table itself.

``/tables/new`` creates a table (procedure, paytable preset or a club's TOML file)
after showing the odds and warnings of the pairing; ``/dealer/{code}`` is the
dealer's screen: one big button for the next step (open, centre card, close bets,
deal, settle; the space bar presses it), the cards of a real deck picked by rank and
suit, the bet timer, the live bets per player, admitting players, changing the
paytable (from the next round, audited), and closing the table for the night. Each
action answers the page's script with the page's new blocks (JSON), or a browser
without scripts with a redirect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

from fastapi import FastAPI, File, Form, Request, UploadFile
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.web.http.context import request_info
from andar_bahar.web.http.forms import (
    Posted,
    field,
    paytable_from_form,
    read_amount,
    whole_number,
)
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.http.security import set_cookie
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.pages.trust import remember_seat, seats_context

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["CONFIRM_CLOSE", "register"]

CONFIRM_CLOSE = N_("Tick the box to confirm that the table closes for the night.")
"""The answer to closing a table without the box ticked (nothing is closed)."""


def lang(request: Request) -> str:
    return request_info(request).lang


def register(app: FastAPI, club: Club) -> None:
    """Add the dealer's pages to *app*."""
    _add_sign_in(app, club)
    _add_steps(app, club)


def _add_sign_in(app: FastAPI, club: Club) -> None:
    """The dealer's sign-in and screen."""

    @app.get("/dealer/{code}/login")
    def dealer_login_page(request: Request, code: str) -> Response:
        return render(request, "dealer_login.html", code=code.upper())

    @app.post("/dealer/{code}/login")
    def dealer_login(request: Request, code: str, pin: Annotated[str, Form()]) -> Response:
        known = club.device_of(code, request.cookies.get(f"device_{code.upper()}", ""))
        token = club.service.dealer_login(code, pin, club.client(request), known)
        response = redirect(request, f"/dealer/{code.upper()}")
        set_cookie(response, request, f"dealer_{code.upper()}", club.dealers.sign(token))
        club.remember_device(request, response, code)
        return response

    @app.get("/dealer/{code}")
    def dealer_page(request: Request, code: str) -> Response:
        token = club.dealer_token(request, code)
        if not club.service.is_dealer(code, token):
            return redirect(request, f"/dealer/{code.upper()}/login")
        seats = seats_context(request, club, club.service.state(code))
        return club.page(request, "dealer", code, dealer=True, token=token, **seats)


def _add_steps(app: FastAPI, club: Club) -> None:
    """What the dealer does at the table: admit players, the steps of a round, the paytable."""

    @app.post("/dealer/{code}/players")
    def admit(
        request: Request,
        code: str,
        name: Annotated[str, Form()],
        balance: Annotated[str, Form()] = "0",
    ) -> Response:
        chips = read_amount(balance, lang(request))
        seat = club.service.admit_player(code, club.dealer_token(request, code), name, chips)
        # A navigation (not live blocks): the new seat code is kept in this browser only.
        response = redirect(request, f"/dealer/{code.upper()}")
        remember_seat(request, response, club, code, name.strip(), seat)
        return response

    @app.post("/dealer/{code}/round/{action}")
    def round_action(request: Request, code: str, action: str, form: Posted) -> Response:
        card, physical = field(form, "card", ""), field(form, "physical", "")
        reason, seconds = field(form, "reason", ""), field(form, "seconds", "")
        token = club.dealer_token(request, code)
        timer = whole_number(seconds, "seconds") if seconds.strip() else None
        steps: dict[str, Callable[[], object]] = {
            "open": lambda: club.service.open_round(
                code, token, physical=bool(physical), seconds=timer
            ),
            "centre": lambda: club.service.turn_centre(code, token, card or None),
            "target": lambda: club.service.choose_target(code, token, card),
            "close": lambda: club.service.close_bets(code, token),
            "deal": lambda: club.service.deal(code, token, card or None),
            "void": lambda: club.service.void(code, token, reason),
            "settle": lambda: club.service.settle(code, token),
            "timer": lambda: club.service.set_timer(code, token, timer or 0),
        }
        if action not in steps:
            raise ParameterError(Message(N_("Unknown step '{step}'."), step=action))
        steps[action]()
        # The step has just checked the dealer's token: the answer is the dealer's page.
        viewer = Viewer("dealer", "dealer", lang(request))
        return club.done(request, code, "dealer", viewer=viewer, dealt=action == "deal")

    @app.post("/dealer/{code}/close")
    def close_table(request: Request, code: str, form: Posted) -> Response:
        """Close the table for the night: only with the box ticked (it cannot be undone)."""
        if field(form, "confirm", "") != "1":
            raise ParameterError(Message(CONFIRM_CLOSE))
        token = club.dealer_token(request, code)
        club.service.close_table(code, token, field(form, "reason", ""))
        return redirect(request, f"/dealer/{code.upper()}")

    @app.post("/dealer/{code}/paytable")
    async def change_paytable(
        request: Request,
        code: str,
        reason: Annotated[str, Form()],
        paytable: Annotated[str, Form()] = "trainer-default",
        paytable_file: Annotated[UploadFile | None, File()] = None,
    ) -> Response:
        table = await paytable_from_form(paytable, paytable_file)
        token = club.dealer_token(request, code)
        await run_in_threadpool(club.service.change_paytable, code, token, table, reason)
        return await run_in_threadpool(club.done, request, code, "dealer")
