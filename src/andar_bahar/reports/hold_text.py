"""The hold report for people and for tools: text, CSV and JSON.

Amounts are written as the user's language writes numbers; the expected result and its
standard deviation are rounded half-even to the cent of a chip for display, while JSON
keeps them as exact fractions too (``expected``, ``variance``) beside the decimals.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from typing import Any

from andar_bahar.chance.shuffle_check import PValue
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.money import decimal_sign, format_amount
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate
from andar_bahar.reports.hold import GroupedAmount, HoldLine, HoldReport, SignIn, Verdict, rounded
from andar_bahar.reports.hold_options import By
from andar_bahar.reports.report import table_text

__all__ = [
    "HEADERS",
    "hold_csv",
    "hold_json",
    "line_cells",
    "line_label",
    "notes",
    "render_hold",
]

HEADERS = {
    By.NIGHT: N_("night"),
    By.DEALER: N_("dealer signed in"),
    By.BET: N_("bet"),
}
COLUMNS = (
    N_("rounds"),
    N_("staked"),
    N_("house kept"),
    N_("expected"),
    N_("SD"),
    N_("z"),
    N_("p"),
    N_("95 % band"),
    N_("verdict"),
)
METHODS = {
    "exact": N_("its exact law"),
    "saddlepoint": N_("a saddlepoint approximation of its exact law"),
}


def line_label(line: HoldLine, report: HoldReport, translator: Translator | None) -> str:
    """The line's night (``2025-05-02``), sign-in (``2025-05-02 19:00, 10.0.0.9``) or bet."""
    key = line.key
    if key is None:
        return translate(N_("all"), translator)
    if isinstance(key, date):
        return key.isoformat()
    if isinstance(key, SignIn):
        return f"{key.at.astimezone(report.zone):%Y-%m-%d %H:%M}, {key.client}"
    if isinstance(key, Bet):
        return key.localized(translator)
    return translate(N_("before any sign-in"), translator)


def _decimal(value: float | None, places: int, translator: Translator | None) -> str:
    if value is None:
        return "—"
    return f"{value:.{places}f}".replace("-", "−").replace(".", decimal_sign(translator))


def line_cells(line: HoldLine, translator: Translator | None, *, night: bool = True) -> list[str]:
    """Rounds, staked, kept, expected, SD, z, p, band and verdict, as a page shows them."""
    j = line.judgement
    t = translator
    return [
        str(line.rounds),
        GroupedAmount(line.handle).localized(t),
        GroupedAmount(j.observed).localized(t),
        GroupedAmount(rounded(j.mean)).localized(t),
        GroupedAmount(j.sd.quantize(Decimal("0.01"))).localized(t),
        _decimal(j.z, 2, t),
        PValue(j.p_value).localized(t),
        f"{GroupedAmount(j.low).localized(t)} … {GroupedAmount(j.high).localized(t)}",
        Verdict(j, night=night).localized(t),
    ]


def notes(report: HoldReport) -> list[Message]:
    """What the report's reader should know: the night, the method, voids, ledger."""
    out = [
        Message(
            N_(
                "A night runs from noon to noon, {zone} time; the expected result and its band"
                " come from the bets placed, at their stakes, under each round's paytable."
            ),
            zone=str(report.zone),
        ),
        Message(
            N_("The band and p-value of the whole come from {method}."),
            method=Message(METHODS[report.total.judgement.method]),
        ),
    ]
    if report.void:
        out.append(
            Message(
                NP_(
                    "{n} void round (every stake returned) is not counted.",
                    "{n} void rounds (every stake returned) are not counted.",
                ),
                n=report.void,
            )
        )
    if report.disagree:
        out.append(
            Message(
                N_(
                    "The ledger and the stored settlement differ in rounds {rounds}: the"
                    " ledger is counted; run andar-bahar history verify."
                ),
                rounds=", ".join(map(str, report.disagree)),
            )
        )
    return out


def render_hold(report: HoldReport, translator: Translator | None = None) -> str:
    """The report as text: the table, the sentence, a line per group, the notes."""
    t = translator
    if report.first is None:
        span = translate(N_("no settled round"), t)
    elif report.first == report.last:
        span = report.first.isoformat()
    else:
        span = f"{report.first.isoformat()} … {report.last}"
    lines = [
        Message(
            N_("Hold report of table {code} ({name}): {span}"),
            code=report.code,
            name=report.name,
            span=span,
        ).localized(t),
        report.summary().localized(t),
        "",
    ]
    headers = [translate(HEADERS[report.by], t), *(translate(c, t) for c in COLUMNS)]
    night = report.by is By.NIGHT
    rows = [[line_label(x, report, t), *line_cells(x, t, night=night)] for x in report.lines]
    rows.append(
        [line_label(report.total, report, t), *line_cells(report.total, t, night=report.one_night)]
    )
    lines.append(table_text(headers, rows))
    lines.append("")
    lines.extend(m.localized(t) for m in notes(report))
    return "\n".join(lines) + "\n"


def _key(line: HoldLine) -> str | None:
    """The line's key for tools: ``2025-05-02``, ``andar``, ``2025-05-02T19:00:00+00:00 10.0.0.9``."""
    key = line.key
    if key is None:
        return None
    if isinstance(key, date):
        return key.isoformat()
    if isinstance(key, SignIn):
        return f"{key.at.isoformat()} {key.client}"
    return str(key)


def _line_data(line: HoldLine, report: HoldReport) -> dict[str, Any]:
    j = line.judgement
    return {
        "key": _key(line),
        "rounds": line.rounds,
        "handle": format_amount(line.handle),
        "kept": format_amount(j.observed),
        "expected": str(j.mean),
        "expected_decimal": format_amount(rounded(j.mean, 6)),
        "variance": str(j.variance),
        "sd": format_amount(j.sd),
        "z": None if j.z is None else round(j.z, 6),
        "p": j.p_value,
        "low": format_amount(j.low),
        "high": format_amount(j.high),
        "verdict": j.verdict,
        "method": j.method,
    }


def hold_json(report: HoldReport) -> dict[str, Any]:
    """The ``history hold --format json`` contract: exact fractions kept as text."""
    return {
        "table": report.code,
        "name": report.name,
        "zone": str(report.zone),
        "first_night": report.first.isoformat() if report.first else None,
        "last_night": report.last.isoformat() if report.last else None,
        "by": report.by.value,
        "summary": str(report.summary()),
        "total": _line_data(report.total, report),
        "lines": [_line_data(x, report) for x in report.lines],
        "nights": [_line_data(x, report) for x in report.nights],
        "void_rounds": report.void,
        "ledger_differs": list(report.disagree),
    }


CSV_COLUMNS = ("group", "rounds", "handle", "kept", "expected", "expected_decimal", "variance",
               "sd", "z", "p", "low", "high", "verdict", "method")  # fmt: skip


def hold_csv(report: HoldReport) -> str:
    """One row per line and the whole (``all``); numbers with a decimal point, no grouping."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for line in (*report.lines, report.total):
        data = _line_data(line, report)
        data["group"] = data.pop("key") or "all"
        writer.writerow(["" if data[c] is None else data[c] for c in CSV_COLUMNS])
    return out.getvalue()
