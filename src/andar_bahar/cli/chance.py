"""``andar-bahar odds``, ``andar-bahar simulate`` and ``andar-bahar sessions``."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from andar_bahar.chance.odds import odds_report
from andar_bahar.chance.rounding import rounding_check, stake_odds
from andar_bahar.chance.simulation_options import Engine, System
from andar_bahar.cli.common import (
    FormatOption,
    LangOption,
    ProcedureOption,
    StartOption,
    TargetModeOption,
    TextOrJson,
    WindowOption,
    app,
    build_procedure,
    echo_json,
    guarded,
    language_for,
    progress_bar,
    require_extra,
    translator_for,
)
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import parse_stake
from andar_bahar.engine.paytables import PAYTABLES, Paytable
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.odds_tables import odds_csv, render_odds, render_simulation, render_study

PaytableOption = Annotated[
    str | None,
    typer.Option(
        "--paytable",
        help=f"A preset ({', '.join(PAYTABLES)}) or a club's .toml file"
        " (default: the procedure's own).",
    ),
]
SeedOption = Annotated[
    int | None, typer.Option("--seed", help="Seed for a bit-for-bit reproducible run.")
]
EngineOption = Annotated[
    Engine,
    typer.Option(
        "--engine", help="cards: deal real shuffled decks; outcomes: sample the exact odds."
    ),
]


class OddsFormat(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


@app.command()
@guarded
def odds(
    procedure: ProcedureOption = "classic",
    paytable: PaytableOption = None,
    stake: Annotated[
        str | None,
        typer.Option(
            "--stake",
            help="Also work out every bet at this stake, wins rounded to the chip as paid.",
        ),
    ] = None,
    output: Annotated[
        OddsFormat, typer.Option("--format", help="table for people, json or csv for programs.")
    ] = OddsFormat.TABLE,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Draw the distribution of cards dealt to FILE.png or .svg."),
    ] = None,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """The exact odds, expected return, house edge and spread of every bet."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    table = read_paytable(paytable or rules.paytable)
    report = odds_report(rules, table)
    amount = _stake(stake, table, language_for(lang)) if stake is not None else None
    at_stake = stake_odds(report, amount) if amount is not None else ()
    outside = table.limits_problem(amount) if amount is not None else None
    rounding = rounding_check(report)
    if plot is not None:
        require_extra("sim", "matplotlib")
        from andar_bahar.chance.charts import plot_cards_dealt

        plot_cards_dealt(report, plot, translator)
    if output is OddsFormat.JSON:
        data = report.to_dict()
        if at_stake:
            data["stake"] = str(at_stake[0].stake)
            data["stake_allowed"] = outside is None
            data["stake_warning"] = str(outside) if outside is not None else None
            for item, odds in zip(data["bets"], at_stake, strict=True):  # type: ignore[call-overload]
                item["at_stake"] = odds.to_dict()
        data["rounding"] = {
            "warnings": [str(m) for m in rounding.messages()],  # as the odds' own: English
            "recommended_min": str(rounding.recommended_min)
            if rounding.recommended_min is not None
            else None,
        }
        echo_json(data)
    elif output is OddsFormat.CSV:
        typer.echo(odds_csv(report, at_stake), nl=False)
        if outside is not None:
            typer.echo(outside.localized(translator), err=True)
    else:
        typer.echo(
            render_odds(report, translator, stake=at_stake, rounding=rounding, outside=outside)
        )


def _stake(text: str, table: Paytable, lang: str) -> Decimal:
    """A stake for ``--stake`` (as people of *lang* write amounts): a positive whole
    number of the table's chips."""
    amount = parse_stake(text, lang=lang)
    table.check_chips(amount)
    return amount


def _check_jobs(jobs: int | None) -> int:
    if jobs is None:
        from andar_bahar.chance.simulation import default_jobs

        return default_jobs()
    if jobs < 1:
        raise ParameterError(
            Message(
                N_("--jobs must be at least 1, not {value}: it is the number of processes."),
                value=jobs,
            )
        )
    return jobs


@app.command(name="simulate")
@guarded
def simulate_command(
    procedure: ProcedureOption = "classic",
    paytable: PaytableOption = None,
    rounds: Annotated[int, typer.Option("--rounds", help="How many rounds.")] = 1_000_000,
    seed: SeedOption = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", help="Processes to use (default: all cores).")
    ] = None,
    engine: EngineOption = Engine.CARDS,
    output: FormatOption = TextOrJson.TEXT,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """Simulate many rounds, settle every bet, and compare with the exact odds."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    table = read_paytable(paytable or rules.paytable)
    if rounds < 1:
        raise ParameterError(Message(N_("--rounds must be at least 1, not {value}."), value=rounds))
    require_extra("sim", "numpy")
    workers = _check_jobs(jobs)
    from andar_bahar.chance.simulation import simulate

    with progress_bar(rounds, at_least=2_000_000) as bar:
        task = bar.add_task(Message(N_("simulating")).localized(translator), total=rounds)
        result = simulate(
            rules,
            table,
            rounds=rounds,
            seed=seed,
            jobs=workers,
            engine=engine,
            progress=lambda n: bar.advance(task, n),
        )
    if output is TextOrJson.JSON:
        echo_json(result.to_dict())
    else:
        typer.echo(render_simulation(result, translator))


def _units(text: str, table: Paytable, option: str, lang: str) -> int:
    amount = parse_stake(text, lang=lang)
    table.check_stake(amount) if option == "--stake" else None
    units = amount / table.chip
    if amount <= 0 or units != units.to_integral_value():
        raise ParameterError(
            Message(
                N_("{option} must be a positive whole number of chips of {chip}, not {value}."),
                option=option,
                chip=str(table.chip),
                value=text,
            )
        )
    return int(units)


@app.command()
@guarded
def sessions(
    procedure: ProcedureOption = "classic",
    paytable: PaytableOption = None,
    bet: Annotated[str, typer.Option("--bet", help="The bet played every round.")] = "bahar",
    system: Annotated[
        System, typer.Option("--system", help="flat, martingale or dalembert.")
    ] = System.FLAT,
    bankroll: Annotated[str, typer.Option("--bankroll", help="Chips at the start.")] = "100",
    stake: Annotated[str, typer.Option("--stake", help="The base stake.")] = "1",
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds per session.")] = 100,
    count: Annotated[int, typer.Option("--sessions", help="How many sessions.")] = 10_000,
    seed: SeedOption = None,
    engine: EngineOption = Engine.OUTCOMES,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Draw the final bankrolls to FILE.png or .svg."),
    ] = None,
    output: FormatOption = TextOrJson.TEXT,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """Play many sessions with a betting system and see where the bankrolls end."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    table = read_paytable(paytable or rules.paytable)
    the_bet = Bet.parse(bet)
    table.check_offers(the_bet)
    require_extra("sim", "numpy")
    from andar_bahar.chance.simulation import session_study

    study = session_study(
        rules,
        table,
        bet=the_bet,
        system=system,
        bankroll=_units(bankroll, table, "--bankroll", language_for(lang)),
        stake=_units(stake, table, "--stake", language_for(lang)),
        rounds=rounds,
        sessions=count,
        seed=seed,
        engine=engine,
    )
    if plot is not None:
        require_extra("sim", "matplotlib")
        from andar_bahar.chance.charts import plot_sessions

        plot_sessions(study, plot, translator)
    if output is TextOrJson.JSON:
        echo_json(study.to_dict())
    else:
        typer.echo(render_study(study, translator))


_ = json
