"""``andar-bahar paytable design``: pays for a procedure that keep every house edge in a range
at every stake the table allows; a refusal (Andar or Bahar cannot be served) exits with 3."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Annotated

import typer

from andar_bahar.chance.design import (
    DEFAULT_BANDS,
    EdgeRange,
    OddsStyle,
    design_paytable,
    parse_bands,
)
from andar_bahar.cli.common import (
    LangOption,
    ProcedureOption,
    StartOption,
    TargetModeOption,
    WindowOption,
    build_procedure,
    echo_json,
    guarded,
    language_for,
    paytable_app,
    translator_for,
)
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import parse_stake
from andar_bahar.engine.paytables import Odds, Paytable, Rounding
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.design_tables import (
    design_headline,
    design_notes,
    design_toml,
    render_design,
)

__all__ = ["REFUSED", "paytable_design"]

REFUSED = 3
"""The exit code of a design that cannot serve Andar or Bahar (no table is designed)."""


class DesignFormat(StrEnum):
    TABLE = "table"
    TOML = "toml"
    JSON = "json"


def _step(text: str, lang: str) -> Fraction:
    try:
        value = Fraction(parse_stake(text, lang=lang))
    except ValueError:
        value = Fraction(0)
    if not 0 < value <= 1000:
        raise ParameterError(
            Message(
                N_("--step must be a number above 0 and at most 1000, such as 0.5, not '{value}'."),
                value=text,
            )
        )
    return value


def _stakes_base(
    base: str | None,
    chip: str | None,
    rounding: Rounding | None,
    low: str | None,
    high: str | None,
) -> Paytable:
    """The table whose chip, rounding and limits the design serves: *base*'s (or chip 1,
    rounded down, no limits), each given option taking its place."""
    table = read_paytable(base) if base is not None else None
    table = table or Paytable(name="base", main=(Odds.parse(1), Odds.parse(1)))
    changes: dict[str, Decimal | Rounding] = {}
    for field, option, text in (("chip", "--chip", chip), ("min_stake", "--min", low),
                                ("max_stake", "--max", high)):  # fmt: skip
        if text is not None:
            changes[field] = _amount(text, option)
    if rounding is not None:
        changes["rounding"] = rounding
    return replace(table, **changes)  # type: ignore[arg-type]


def _amount(text: str, option: str) -> Decimal:
    amount = parse_stake(text)
    if amount <= 0:
        raise ParameterError(
            Message(
                N_("{option} must be an amount greater than zero, such as 5, not '{value}'."),
                option=option,
                value=text,
            )
        )
    return amount


@paytable_app.command("design")
@guarded
def paytable_design(
    edge: Annotated[
        str, typer.Option("--edge", help="The house edge every bet must have, e.g. 1%-5%.")
    ] = "1%-5%",
    procedure: ProcedureOption = "classic",
    bands: Annotated[
        str,
        typer.Option("--bands", help=f"The side-bet bands, e.g. {DEFAULT_BANDS}."),
    ] = DEFAULT_BANDS,
    step: Annotated[
        str, typer.Option("--step", help="The club's step for pays, e.g. 0.5 (in the odds style).")
    ] = "0.05",
    odds_style: Annotated[
        OddsStyle, typer.Option("--odds-style", help="Write pays 'X to 1' or 'X for 1'.")
    ] = OddsStyle.TO,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            help="A paytable whose chip, rounding, limits and pays by count to keep.",
        ),
    ] = None,
    chip: Annotated[
        str | None, typer.Option("--chip", help="The table's chip (default: the base's, or 1).")
    ] = None,
    rounding: Annotated[
        Rounding | None,
        typer.Option("--rounding", help="How wins are rounded to the chip: down, half-up, up."),
    ] = None,
    low: Annotated[
        str | None, typer.Option("--min", help="The table minimum (default: the base's, or none).")
    ] = None,
    high: Annotated[
        str | None, typer.Option("--max", help="The table maximum (default: the base's, or none).")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="The new table's name.")] = None,
    output: Annotated[
        DesignFormat,
        typer.Option("--format", help="table for people, toml for a club's file, json."),
    ] = DesignFormat.TABLE,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """Design pays for a procedure so that every bet's house edge lies in a range at every
    stake the table allows (exit code 3 when Andar or Bahar cannot be served)."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    design = design_paytable(
        rules,
        edge=EdgeRange.parse(edge),
        bands=parse_bands(bands),
        step=_step(step, language_for(lang)),
        style=odds_style,
        base=_stakes_base(base, chip, rounding, low, high),
        name=name,
    )
    if output is DesignFormat.JSON:
        echo_json(design.to_dict())
    elif output is DesignFormat.TOML and design.refused:  # no club file of a refused design
        for message in [design_headline(design), *design_notes(design)]:
            typer.echo(message.localized(translator), err=True)
    elif output is DesignFormat.TOML:
        typer.echo(design_toml(design, translator), nl=False)
    else:
        typer.echo(render_design(design, translator))
    if design.refused:
        raise typer.Exit(code=REFUSED)
