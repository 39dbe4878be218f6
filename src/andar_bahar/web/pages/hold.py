"""The dealer's and the cashier's pages of the night's maths: the hold report, the shuffle check.

- ``/dealer/{code}/hold`` (``?from=2025-05-02&to=2025-05-03&by=night|dealer|bet``): what the
  house kept against what the bets placed would keep, per night, sign-in or bet, with the
  chart of each night against its band (SVG drawn here: no script, nothing from elsewhere);
- ``/dealer/{code}/hold.csv``: the same lines as CSV, for the cashier's books;
- ``/dealer/{code}/shuffle`` (``?from=…&to=…&deck=real|server|all``): the shuffle check of
  the rounds dealt from a real deck, and of the server's as the control.

Only a signed-in dealer of the table sees them. Nights are the server's local time, noon to
noon (``tz=Asia/Tbilisi`` names another zone). Everything is read from the stored rounds
and the ledger (:mod:`andar_bahar.club.history`), in one read transaction.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from markupsafe import Markup
from starlette.responses import Response

from andar_bahar.club.history import ClubHistory, read_club_history
from andar_bahar.engine.errors import AccessError, ParameterError
from andar_bahar.i18n.messages import N_, Message, translate
from andar_bahar.reports.hold import HoldReport, find_zone, hold_report, night_span, parse_night
from andar_bahar.reports.hold_chart import nights_svg
from andar_bahar.reports.hold_options import By, Deck
from andar_bahar.reports.hold_text import COLUMNS, HEADERS, hold_csv, line_cells, line_label, notes
from andar_bahar.reports.shuffle import HEADERS as CHECK_HEADERS
from andar_bahar.reports.shuffle import SECTION_NAMES, check_rows, shuffle_sections
from andar_bahar.web.http.context import translator
from andar_bahar.web.http.responses import render

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["register"]


def _choice(kind: type[By] | type[Deck], value: str | None, field: str) -> str:
    """*value* if it is one of *kind*'s choices (else one sentence that lists them)."""
    try:
        return kind(value.strip().lower()).value if value else next(iter(kind)).value
    except ValueError:
        raise ParameterError(
            Message(
                N_("'{value}' is not a choice for {field}: choose one of {choices}."),
                value=value,
                field=field,
                choices=", ".join(kind),
            )
        ) from None


def _history(club: Club, request: Request, code: str) -> tuple[ClubHistory, tzinfo, dict[str, str]]:
    """The table's rounds in the nights asked for, if the dealer asks (else one sentence)."""
    if not club.service.is_dealer(code, club.dealer_token(request, code)):
        raise AccessError(
            Message(N_("Only the dealer can do this at table {code}."), code=code.upper())
        )
    query = request.query_params
    zone = find_zone(query.get("tz") or None)
    first = parse_night(query["from"]) if query.get("from") else None
    last = parse_night(query["to"]) if query.get("to") else None
    start, end = night_span(first, last, zone)
    history = read_club_history(club.service.storage, code, start=start, end=end)
    asked = {
        "from": first.isoformat() if first else "",
        "to": last.isoformat() if last else "",
        "tz": query.get("tz", ""),
    }
    return history, zone, asked


def _report(club: Club, request: Request, code: str) -> tuple[HoldReport, dict[str, str]]:
    history, zone, asked = _history(club, request, code)
    by = By(_choice(By, request.query_params.get("by"), "by"))
    asked["by"] = by.value
    report = hold_report(
        history.code, history.name, history.rounds, history.sign_ins, zone=zone, by=by
    )
    return report, asked


def register(app: FastAPI, club: Club) -> None:
    """Add the hold report and the shuffle check to *app*."""

    @app.get("/dealer/{code}/hold")
    def hold(request: Request, code: str) -> Response:
        report, asked = _report(club, request, code)
        t = translator(request)
        night = report.by is By.NIGHT
        rows = [(line_label(x, report, t), line_cells(x, t, night=night)) for x in report.lines]
        total = (
            line_label(report.total, report, t),
            line_cells(report.total, t, night=report.one_night),
        )
        return render(
            request, "hold.html", code=report.code, report=report, asked=asked,
            columns=[translate(h, t) for h in (HEADERS[report.by], *COLUMNS)], rows=rows, total=total,
            chart=Markup(nights_svg(report, t)),  # noqa: S704 — numbers and escaped words
            notes=notes(report), choices=[(b.value, translate(HEADERS[b], t)) for b in By],
        )  # fmt: skip

    @app.get("/dealer/{code}/hold.csv")
    def hold_as_csv(request: Request, code: str) -> Response:
        report, asked = _report(club, request, code)
        span = "-".join(filter(None, (asked["from"], asked["to"]))) or "all"
        return Response(
            hold_csv(report),
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="hold-{report.code}-{span}.csv"'
            },
        )

    @app.get("/dealer/{code}/shuffle")
    def shuffle(request: Request, code: str) -> Response:
        history, _, asked = _history(club, request, code)
        deck = request.query_params.get("deck")
        decks = (Deck(_choice(Deck, deck, "deck")),) if deck else (Deck.REAL, Deck.SERVER)
        asked["deck"] = deck or ""
        t = translator(request)
        sections = [
            (s, check_rows(s.check, t))
            for s in shuffle_sections(history.procedure, history.paytable, history.rounds, decks)
        ]
        return render(
            request, "shuffle.html", code=history.code, name=history.name, asked=asked,
            sections=sections, columns=[translate(h, t) for h in CHECK_HEADERS],
            choices=[(d.value, translate(SECTION_NAMES[d], t)) for d in Deck],
        )  # fmt: skip
