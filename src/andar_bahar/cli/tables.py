"""``andar-bahar paytable show|check`` and ``andar-bahar procedures``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from andar_bahar.chance.odds import odds_report
from andar_bahar.chance.rounding import rounding_check
from andar_bahar.cli.common import (
    LangOption,
    ProcedureOption,
    StartOption,
    TargetModeOption,
    WindowOption,
    app,
    build_procedure,
    echo_json,
    guarded,
    paytable_app,
    translator_for,
)
from andar_bahar.engine.clubfiles import read_paytable, read_text
from andar_bahar.engine.errors import PaytableError
from andar_bahar.engine.paytables import check_paytable
from andar_bahar.engine.rules import PROCEDURES
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.reports.report import render_paytable

SHOWN = 20
"""The most problems ``paytable check`` lists (a file can hold thousands)."""


class PaytableFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    TOML = "toml"


@paytable_app.command("show")
@guarded
def paytable_show(
    name: Annotated[str, typer.Argument(help="A preset name or a club's .toml file.")],
    output: Annotated[
        PaytableFormat, typer.Option("--format", help="text, json, or toml (a club's file).")
    ] = PaytableFormat.TEXT,
    lang: LangOption = None,
) -> None:
    """Show a paytable: every bet "to 1", as written, with the chip and rounding rule."""
    translator = translator_for(lang)
    table = read_paytable(name)
    if output is PaytableFormat.JSON:
        echo_json(table.to_dict())
    elif output is PaytableFormat.TOML:
        typer.echo(table.to_toml(), nl=False)
    else:
        typer.echo(render_paytable(table, translator))


@paytable_app.command("check")
@guarded
def paytable_check(
    file: Annotated[str, typer.Argument(help="A club's paytable .toml file.")],
    procedure: ProcedureOption = "classic",
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """Check a club's paytable file: its problems, each naming the entry (the first 20, then
    how many more; exit code 1), or the bets that favour the player under the procedure and
    the stakes that rounding harms."""
    translator = translator_for(lang)
    problems = check_paytable(read_text(file, PaytableError), source=file)
    if problems:
        for problem in problems[:SHOWN]:
            typer.echo(problem.localized(translator), err=True)
        if len(problems) > SHOWN:
            more = Message(
                NP_("… and {n} more problem.", "… and {n} more problems."),
                n=len(problems) - SHOWN,
            )
            typer.echo(more.localized(translator), err=True)
        raise typer.Exit(code=1)
    typer.echo(Message(N_("{file}: the paytable is valid."), file=file).localized(translator))
    rules = build_procedure(procedure, start, target_mode, window)
    report = odds_report(rules, read_paytable(file))
    for message in [*report.warning_messages(), *rounding_check(report).messages()]:
        typer.echo(message.localized(translator))


@app.command("procedures")
@guarded
def procedures_list(lang: LangOption = None) -> None:
    """List the preset procedures."""
    translator = translator_for(lang)
    for rules in PROCEDURES.values():
        typer.echo(rules.describe(translator))
