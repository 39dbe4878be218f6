"""Creating a table: ``/tables/new``, its odds and warnings, and a paytable designed for it.

The dealer picks a procedure (a preset, changed rule by rule if need be) and a paytable
(a preset or the club's TOML file), then sees, before saving (``/tables/preview``), every
bet's exact chance and house edge, the bets that favour the player, and what chip
rounding does at small stakes (:func:`~andar_bahar.chance.rounding.rounding_check`).
``/tables/design`` designs pays for the procedure that keep every bet's house edge in a
range at every stake the chosen paytable's chip, rounding and limits allow
(:func:`~andar_bahar.chance.design.design_paytable`); the dealer may create the table with
it, unless the design is refused. ``/tables`` creates the table and signs its creator in as
its dealer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, File, Form, Request, UploadFile
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from andar_bahar.chance.design import EdgeRange, OddsStyle, design_paytable
from andar_bahar.chance.odds import OddsReport, Percent, odds_report
from andar_bahar.chance.rounding import rounding_check
from andar_bahar.club.limits import busy
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import Amount, parse_stake
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.design_tables import design_headline
from andar_bahar.reports.odds_tables import render_given, summary_messages
from andar_bahar.web.http.context import localize, request_info, translator
from andar_bahar.web.http.forms import (
    paytable_from_form,
    procedure_choices,
    procedure_from_form,
    whole_number,
)
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.http.security import set_cookie

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["register"]

DEFAULT_EDGE = "1%-5%"
"""The house edge the designer aims every bet at, unless the dealer says otherwise."""
DEFAULT_STEP = "0.05"
"""The step of the designed pays ("0.05 to 1"), unless the dealer says otherwise."""
FINEST_STEP = Fraction(1, 100)
"""The finest step the designer takes here: its work grows with the square of 1/step."""
ODDS_AT_ONCE = threading.BoundedSemaphore(1)
"""Odds and designs worked out at once in this process. Anyone may ask for them (no table
exists yet) and each keeps a core busy for up to seconds: the next request is told to try
again (429) rather than take the cores the club's tables need."""
ODDS_RETRY = 3
"""Seconds a request for odds is told to wait while another is being worked out."""
LESSON_ROUNDS = 10
"""The rounds of a lesson, unless the dealer says otherwise (the form's own value too)."""


def design_step(text: str, lang: str | None = None) -> Fraction:
    """The designer's step from a form (written as people of *lang* write numbers): a
    number from 0.01 to 1000.

    >>> design_step("0,5", "ru"), design_step("0.05", "en")
    (Fraction(1, 2), Fraction(1, 20))
    """
    try:
        value = Fraction(parse_stake(text, lang=lang))
    except ValueError:
        value = Fraction(0)
    if not FINEST_STEP <= value <= 1000:
        raise ParameterError(
            Message(
                N_("The step must be a number from 0.01 to 1000, such as 0.5, not '{value}'."),
                value=text,
            )
        )
    return value


@contextmanager
def odds_slot() -> Iterator[None]:
    """Work out odds or a design, unless another is under way (then 429: try again)."""
    if not ODDS_AT_ONCE.acquire(blocking=False):
        raise busy(ODDS_RETRY)
    try:
        yield
    finally:
        ODDS_AT_ONCE.release()


def report_context(request: Request, report: OddsReport) -> dict[str, Any]:
    """What ``odds_fragment.html`` shows of *report*: the odds, the verdict, the rounding."""
    words = translator(request)
    return {
        "report": report,
        "percent": Percent,
        "given": lambda odds: render_given(odds, report, words),
        "pays": lambda bet: report.paytable.pays_text(bet),
        "summary": summary_messages(report),
        "rounding": rounding_check(report).messages(),
    }


@dataclass(frozen=True, slots=True)
class Pairing:
    """The procedure and the paytable a table-creation form chose."""

    procedure: Procedure
    base: Paytable
    """The preset or the club's file (what a designed table keeps the chip and limits of)."""
    paytable: Paytable
    """The table to play: the designed one when the dealer took it, else *base*."""


async def pairing_form(
    procedure: Annotated[str, Form()] = "classic",
    start: Annotated[str, Form()] = "",
    target: Annotated[str, Form()] = "",
    window: Annotated[str, Form()] = "",
    paytable: Annotated[str, Form()] = "trainer-default",
    paytable_file: Annotated[UploadFile | None, File()] = None,
    designed: Annotated[str, Form()] = "",
    use_design: Annotated[str, Form()] = "",
) -> Pairing:
    """The fields every table-creation form shares, read (each problem one sentence)."""
    rules = procedure_from_form(procedure, start, target, window)
    base = await paytable_from_form(paytable, paytable_file)
    chosen = load_paytable(designed, source="designed") if use_design and designed else base
    return Pairing(rules, base, chosen)


Chosen = Annotated[Pairing, Depends(pairing_form)]


def register(app: FastAPI, club: Club) -> None:
    """Add the table-creation pages to *app*."""

    @app.get("/tables/new")
    def new_table(request: Request) -> Response:
        return render(
            request,
            "new_table.html",
            edge=DEFAULT_EDGE,
            step=DEFAULT_STEP,
            lesson_rounds=LESSON_ROUNDS,
            **procedure_choices(),
        )

    @app.post("/tables/preview")
    async def preview(request: Request, chosen: Chosen) -> Response:
        with odds_slot():
            report = await run_in_threadpool(odds_report, chosen.procedure, chosen.paytable)
        return render(request, "odds_fragment.html", **report_context(request, report))

    @app.post("/tables/design")
    async def design(
        request: Request,
        chosen: Chosen,
        edge: Annotated[str, Form()] = DEFAULT_EDGE,
        step: Annotated[str, Form()] = DEFAULT_STEP,
        odds_style: Annotated[str, Form()] = "to",
    ) -> Response:
        rules, base = chosen.procedure, chosen.base  # the base's chip, rounding and limits
        wanted = EdgeRange.parse(edge)
        unit = design_step(step, request_info(request).lang)
        style = OddsStyle.FOR if odds_style == "for" else OddsStyle.TO
        called = localize(request, Message(N_("designed for {procedure}"), procedure=rules.name))
        with odds_slot():
            made = await run_in_threadpool(
                lambda: design_paytable(
                    rules, edge=wanted, step=unit, style=style, base=base, name=called
                )
            )
        return render(
            request,
            "design_fragment.html",
            design=made,
            headline=design_headline(made),
            amount=Amount,
            toml=made.paytable.to_toml(),
            **report_context(request, made.report),
        )

    @app.post("/tables")
    async def create_table(
        request: Request,
        name: Annotated[str, Form()],
        pin: Annotated[str, Form()],
        chosen: Chosen,
        kind: Annotated[str, Form()] = "betting",
        rounds: Annotated[str, Form()] = str(LESSON_ROUNDS),
        scoring: Annotated[str, Form()] = "",
    ) -> Response:
        rules, table = chosen.procedure, chosen.paytable
        lesson = kind == "teaching"  # a betting table's (hidden) lesson fields are not read
        planned = whole_number(rounds, "rounds") if lesson else LESSON_ROUNDS
        created = await run_in_threadpool(
            lambda: club.service.create_table(
                name=name, kind=kind, procedure=rules, paytable=table, pin=pin,
                rounds=planned, scoring=bool(scoring) or not lesson,
                client=club.client(request),
            )
        )  # fmt: skip
        response = redirect(request, f"/dealer/{created.code}")
        set_cookie(
            response, request, f"dealer_{created.code}", club.dealers.sign(created.dealer_token)
        )
        club.remember_device(request, response, created.code)
        return response
