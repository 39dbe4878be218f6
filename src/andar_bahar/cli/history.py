"""``andar-bahar history list|verify|statement|audit|hold|shuffle``: rounds, the replay check,
a table's records, its hold against the maths and the check of its shuffle (``history
learners`` is :mod:`andar_bahar.cli.learners`)."""

from __future__ import annotations

from datetime import tzinfo
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from andar_bahar.cli.common import (
    FormatOption,
    LangOption,
    TextOrJson,
    app,
    echo_json,
    guarded,
    require_extra,
    translator_for,
)
from andar_bahar.cli.play import database_url
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.reports.hold_options import By, Deck

if TYPE_CHECKING:
    from andar_bahar.club.history import ClubHistory

history_app = typer.Typer(
    help="The stored rounds: list them, verify every settlement, a table's hold and shuffle check.",
    no_args_is_help=True,
)
app.add_typer(history_app, name="history")

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db", help="The database: a file (SQLite) or a URL; default: the one in your data folder."
    ),
]


@history_app.command("verify")
@guarded
def verify_command(db: DbOption = None, lang: LangOption = None) -> None:
    """Replay every stored round with this engine and report any settlement that differs.

    Exit code 0 when every round agrees, 1 when one does not.
    """
    from andar_bahar.storage import Storage
    from andar_bahar.storage.verification import verify

    translator = translator_for(lang)
    with Storage.open(database_url(db)) as storage:
        report = verify(storage)
    for discrepancy in report.discrepancies:
        typer.echo(discrepancy.localized(translator))
    typer.echo(
        Message(
            NP_(
                "{n} round replayed; with a difference: {bad} (engines: {engines}).",
                "{n} rounds replayed; with a difference: {bad} (engines: {engines}).",
            ),
            n=report.checked,
            bad=len(report.discrepancies),
            engines=", ".join(sorted(report.engines)) or "—",
        ).localized(translator)
    )
    if not report.ok:
        raise typer.Exit(code=1)


@history_app.command("list")
@guarded
def list_command(
    db: DbOption = None,
    limit: Annotated[int, typer.Option("--limit", help="How many rounds, newest first.")] = 20,
    lang: LangOption = None,
) -> None:
    """The last rounds of the trainer's history."""
    from andar_bahar.storage import Storage

    translator = translator_for(lang)
    with Storage.open(database_url(db)) as storage:
        rounds = storage.recent_rounds(limit)
    if not rounds:
        typer.echo(Message(N_("No rounds are stored yet.")).localized(translator))
    for stored in rounds:
        typer.echo(
            f"{stored.id:>5}  {stored.created_at:%Y-%m-%d %H:%M}  {stored.procedure:<12} "
            f"{stored.winner:<6} {stored.cards_dealt:>2}"
        )


@history_app.command("statement")
@guarded
def statement_command(
    code: Annotated[str, typer.Argument(help="The table's code.")],
    db: DbOption = None,
    csv: Annotated[bool, typer.Option("--csv", help="Every posting as CSV.")] = False,
    lang: LangOption = None,
) -> None:
    """The end-of-night statement of a web table: per player, and every posting with --csv."""
    from andar_bahar.club.service import TableService
    from andar_bahar.engine.money import format_amount
    from andar_bahar.storage import Storage

    translator = translator_for(lang)
    with Storage.open(database_url(db)) as storage:
        sheet = TableService(storage).statement_local(code)
    if csv:
        typer.echo(sheet.csv(), nl=False)
        return
    typer.echo(f"{sheet.code}  {sheet.name}")
    header = Message(
        N_("player, bought in, topped up, cashed out, staked, returned, balance")
    ).localized(translator)
    typer.echo(header)
    for p in sheet.players:
        amounts = (p.bought_in, p.topped_up, p.cashed_out, p.staked, p.returned, p.balance)
        typer.echo("  ".join([p.name, *(format_amount(a) for a in amounts)]))
    typer.echo(
        Message(
            N_("The house's result: {amount}; chips still with the players: {chips}."),
            amount=format_amount(sheet.house_result),
            chips=format_amount(sheet.chips_out),
        ).localized(translator)
    )


@history_app.command("audit")
@guarded
def audit_command(
    code: Annotated[str, typer.Argument(help="The table's code.")],
    db: DbOption = None,
    lang: LangOption = None,
) -> None:
    """The audit log of a web table: sign-ins, voids, paytables, seats and cash, oldest first."""
    from andar_bahar.club.service import TableService
    from andar_bahar.storage import Storage

    with Storage.open(database_url(db)) as storage:
        rows = TableService(storage).audit_local(code)
    for row in rows:
        new = (row.new_value or "").replace("\n", " ")[:60]
        typer.echo(
            f"{row.created_at:%Y-%m-%d %H:%M:%S}  {row.actor:<10} {row.action:<13} {new}"
            f"  {row.reason}".rstrip()
        )


class HoldFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    CSV = "csv"


FromOption = Annotated[
    str | None,
    typer.Option("--from", help="The first night, as 2025-05-02 (a night runs noon to noon)."),
]
ToOption = Annotated[str | None, typer.Option("--to", help="The last night, as 2025-05-03.")]
ZoneOption = Annotated[
    str | None,
    typer.Option("--tz", help="The club's time zone, as Asia/Tbilisi (default: this machine's)."),
]


@history_app.command("hold")
@guarded
def hold_command(
    code: Annotated[str, typer.Argument(help="The table's code.")],
    first: FromOption = None,
    last: ToOption = None,
    by: Annotated[
        By, typer.Option("--by", help="One line per night, dealer sign-in or bet.")
    ] = By.NIGHT,
    output: Annotated[
        HoldFormat, typer.Option("--format", help="text, json or csv.")
    ] = HoldFormat.TEXT,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Draw each night against its band (.png or .svg).")
    ] = None,
    zone: ZoneOption = None,
    db: DbOption = None,
    lang: LangOption = None,
) -> None:
    """The hold report of a web table: what the house kept, against what the bets would keep."""
    from andar_bahar.reports.hold import hold_report
    from andar_bahar.reports.hold_text import hold_csv, hold_json, render_hold

    translator = translator_for(lang)
    if plot is not None:
        require_extra("sim", "matplotlib")
    history, where = _history(code, first, last, zone, db)
    report = hold_report(
        history.code, history.name, history.rounds, history.sign_ins, zone=where, by=by
    )
    if plot is not None:
        from andar_bahar.reports.hold_chart import plot_nights

        plot_nights(report, plot, translator)
    if output is HoldFormat.JSON:
        echo_json(hold_json(report))
    elif output is HoldFormat.CSV:
        typer.echo(hold_csv(report), nl=False)
    else:
        typer.echo(render_hold(report, translator), nl=False)


@history_app.command("shuffle")
@guarded
def shuffle_command(
    code: Annotated[str, typer.Argument(help="The table's code.")],
    first: FromOption = None,
    last: ToOption = None,
    deck: Annotated[
        Deck | None,
        typer.Option(
            "--deck", help="real, server or all (default: real, then server as the control)."
        ),
    ] = None,
    share: Annotated[
        int,
        typer.Option(
            "--bias",
            help="The bias to size the check for: a matching card among the first"
            " five in this percent of rounds.",
            min=1,
            max=100,
        ),
    ] = 10,
    output: FormatOption = TextOrJson.TEXT,
    zone: ZoneOption = None,
    db: DbOption = None,
    lang: LangOption = None,
) -> None:
    """The shuffle check of a web table's rounds: real decks against a fair shuffle's odds."""
    from fractions import Fraction

    from andar_bahar.chance.shuffle_check import EarlyMatch
    from andar_bahar.reports.shuffle import render_shuffle, shuffle_json, shuffle_sections

    translator = translator_for(lang)
    history, _ = _history(code, first, last, zone, db)
    decks = (deck,) if deck is not None else (Deck.REAL, Deck.SERVER)
    sections = shuffle_sections(
        history.procedure, history.paytable, history.rounds, decks, EarlyMatch(Fraction(share, 100))
    )
    if output is TextOrJson.JSON:
        echo_json(shuffle_json(history.code, sections))
    else:
        typer.echo(render_shuffle(history.code, sections, translator), nl=False)


def _history(
    code: str, first: str | None, last: str | None, zone: str | None, db: str | None
) -> tuple[ClubHistory, tzinfo]:
    """Table *code*'s rounds from night *first* to night *last* in *zone*, and the zone."""
    from andar_bahar.club.history import read_club_history
    from andar_bahar.reports.hold import find_zone, night_span, parse_night
    from andar_bahar.storage import Storage

    where = find_zone(zone)
    start, end = night_span(
        parse_night(first) if first is not None else None,
        parse_night(last) if last is not None else None,
        where,
    )
    with Storage.open(database_url(db)) as storage:
        return read_club_history(storage, code, start=start, end=end), where
