"""``andar-bahar history list|verify|statement|audit``: rounds, the replay check, a table's records."""

from __future__ import annotations

from typing import Annotated

import typer

from andar_bahar.cli.common import LangOption, commands_app, guarded, translator_for
from andar_bahar.cli.lazy import LazyGroup
from andar_bahar.cli.play import database_url
from andar_bahar.i18n.messages import N_, NP_, Message

app = commands_app()
history_app = commands_app(
    cls=LazyGroup,
    help="The stored rounds: list them, or verify every settlement.",
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
    from andar_bahar.engine.money import format_amount
    from andar_bahar.storage import Storage
    from andar_bahar.web.service import TableService

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
    from andar_bahar.storage import Storage
    from andar_bahar.web.service import TableService

    with Storage.open(database_url(db)) as storage:
        rows = TableService(storage).audit_local(code)
    for row in rows:
        new = (row.new_value or "").replace("\n", " ")[:60]
        typer.echo(
            f"{row.created_at:%Y-%m-%d %H:%M:%S}  {row.actor:<10} {row.action:<13} {new}"
            f"  {row.reason}".rstrip()
        )
