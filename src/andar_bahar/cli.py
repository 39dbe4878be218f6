"""The command line: ``andar-bahar deal | settle | paytable | procedures``.

The command forms and their JSON are a contract that other tools read. Every
error is one clear sentence in the user's language on standard error, with a
non-zero exit code and no traceback.
"""

from __future__ import annotations

import functools
import json
import random
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, ParamSpec, TypeVar

import typer

from andar_bahar import __version__
from andar_bahar.bets import Bet, Wager
from andar_bahar.cards import Card, Rank
from andar_bahar.clubfiles import read_paytable, read_procedure, read_text
from andar_bahar.errors import ActionError, AndarBaharError, DeckError, PaytableError
from andar_bahar.i18n import LANGUAGES, detect_language, translations
from andar_bahar.messages import N_, Message, Translator
from andar_bahar.money import format_amount, parse_stake
from andar_bahar.paytables import PAYTABLES, check_paytable
from andar_bahar.report import render_layout, render_paytable, render_settlement
from andar_bahar.round import Round, stacked_deck
from andar_bahar.rules import PROCEDURES, BetWindow, Procedure, StartRule, TargetMode

__all__ = ["app", "main"]

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    name="andar-bahar",
    help="Andar Bahar: deal rounds, settle bets, read paytables — exactly.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
paytable_app = typer.Typer(
    help="Show a paytable or check a club's paytable file.", no_args_is_help=True
)
app.add_typer(paytable_app, name="paytable")


class Lang(StrEnum):
    EN = "en"
    RU = "ru"
    KA = "ka"


class TextOrJson(StrEnum):
    TEXT = "text"
    JSON = "json"


LangOption = Annotated[
    Lang | None,
    typer.Option(
        "--lang", help="Language of the output: en, ru or ka (default: from the environment)."
    ),
]
ProcedureOption = Annotated[
    str,
    typer.Option("--procedure", help=f"A preset ({', '.join(PROCEDURES)}) or a club's .toml file."),
]
StartOption = Annotated[StartRule | None, typer.Option("--start", help="Override the start rule.")]
TargetModeOption = Annotated[
    TargetMode | None, typer.Option("--target-mode", help="Override the target mode.")
]
WindowOption = Annotated[
    BetWindow | None, typer.Option("--window", help="Override the bet window.")
]
FormatOption = Annotated[
    TextOrJson, typer.Option("--format", help="text for people, json for programs.")
]


def translator_for(lang: Lang | None) -> Translator:
    """The catalogue of the chosen language, or of the environment's."""
    return translations(lang.value if lang is not None else detect_language())


def fail(error: AndarBaharError, translator: Translator) -> typer.Exit:
    """Print *error* as one sentence on standard error and return the exit to raise."""
    typer.echo(error.localized(translator), err=True)
    return typer.Exit(code=2)


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command, turning the project's errors into one sentence and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        lang = kwargs.get("lang")
        translator = translator_for(lang if isinstance(lang, Lang) else None)
        try:
            return command(*args, **kwargs)
        except AndarBaharError as error:
            raise fail(error, translator) from None

    return wrapper


def build_procedure(
    name: str,
    start: StartRule | None,
    target_mode: TargetMode | None,
    window: BetWindow | None,
) -> Procedure:
    """A preset or club procedure with the command line's overrides applied (and checked)."""
    procedure = read_procedure(name)
    changes: dict[str, object] = {}
    if start is not None:
        changes["start"] = StartRule(start)
    if target_mode is not None:
        changes["target"] = TargetMode(target_mode)
    if window is not None:
        changes["window"] = BetWindow(window)
    return procedure.replace(**changes) if changes else procedure


def echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


@app.command()
@guarded
def deal(
    procedure: ProcedureOption = "classic",
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed for a reproducible shuffle.")
    ] = None,
    cards: Annotated[
        str | None,
        typer.Option(
            "--cards",
            help="Stack the deck: the centre card first (none in chosen-rank mode), then the"
            " cards in dealing order; the rest of the deck is shuffled below them.",
        ),
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="The target rank in chosen-rank mode.")
    ] = None,
    output: FormatOption = TextOrJson.TEXT,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """Deal one round and show the layout."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    top = Card.parse_many(cards) if cards else ()
    deck = stacked_deck(top, rng)
    rank = _target_rank(rules, target, rng)
    rnd = Round(rules, read_paytable(rules.paytable), deck=deck, target=rank)
    result = rnd.play()
    if output is TextOrJson.JSON:
        echo_json(result.to_dict())
    else:
        typer.echo(render_layout(result, translator))


def _target_rank(rules: Procedure, target: str | None, rng: random.Random) -> Rank | None:
    if rules.has_centre:
        if target is not None:
            raise ActionError(
                Message(
                    N_(
                        "--target is for the target mode 'chosen-rank'; under '{name}' the"
                        " centre card gives the rank."
                    ),
                    name=rules.name,
                )
            )
        return None
    if target is None:
        return rng.choice(list(Rank))
    return Rank.parse(target)


def _parse_bet_option(text: str) -> tuple[Bet, str]:
    bet_text, separator, stake = text.partition("=")
    if not separator:
        raise ActionError(
            Message(
                N_(
                    "The bet '{text}' has no stake: write BET=STAKE, e.g. andar=100 or cards:1-5=50."
                ),
                text=text,
            )
        )
    return Bet.parse(bet_text), stake


@app.command()
@guarded
def settle(
    paytable: Annotated[
        str,
        typer.Option(
            "--paytable", help=f"A preset ({', '.join(PAYTABLES)}) or a club's .toml file."
        ),
    ],
    cards: Annotated[
        str,
        typer.Option(
            "--cards",
            help="The round's cards: the centre card first (none in chosen-rank mode), then the"
            " dealt cards up to and including the match.",
        ),
    ],
    bet: Annotated[
        list[str],
        typer.Option("--bet", help="BET=STAKE, e.g. andar=100, cards:1-5=50; repeat for more."),
    ],
    procedure: ProcedureOption = "classic",
    target: Annotated[
        str | None, typer.Option("--target", help="The target rank in chosen-rank mode.")
    ] = None,
    output: FormatOption = TextOrJson.TEXT,
    start: StartOption = None,
    target_mode: TargetModeOption = None,
    window: WindowOption = None,
    lang: LangOption = None,
) -> None:
    """The dealer's calculator: settle bets on a finished round."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    table = read_paytable(paytable)
    if rules.markers_only:
        rules = rules.replace(markers_only=False)
    given = Card.parse_many(cards)
    rnd = Round(rules, table)
    if rules.has_centre:
        if target is not None:
            _target_rank(rules, target, random.Random(0))
        if not given:
            raise ActionError(Message(N_("Give the round's cards, the centre card first.")))
        wagers = [_parse_bet_option(text) for text in bet]
        for the_bet, stake in wagers:
            rnd.place_bet("player", the_bet, stake)
        rnd.turn_centre(given[0])
        dealt = given[1:]
    else:
        if target is None:
            raise ActionError(
                Message(N_("Give the target rank with --target in chosen-rank mode."))
            )
        rnd.choose_target(Rank.parse(target))
        for the_bet, stake in (_parse_bet_option(text) for text in bet):
            rnd.place_bet("player", the_bet, stake)
        dealt = given
    for index, card in enumerate(dealt):
        if rnd.finished:
            raise DeckError(
                Message(
                    N_(
                        "The card {card} comes after the match {match}: the round stops at the"
                        " first card of the target rank."
                    ),
                    card=card,
                    match=dealt[index - 1],
                )
            )
        rnd.deal(card)
    if not rnd.finished:
        raise DeckError(
            Message(
                N_(
                    "The cards end without a match: give every dealt card up to and including"
                    " the first card of the target rank."
                )
            )
        )
    settlement = rnd.settle().settlement
    result = rnd.result
    if output is TextOrJson.JSON:
        echo_json(
            {
                "paytable": table.name,
                "procedure": rules.name,
                "winner": result.winner.value if result.winner else "void",
                "cards_dealt": result.cards_dealt,
                "first_side": result.first_row.value if result.first_row else None,
                "bets": [
                    {
                        "bet": str(b.bet),
                        "stake": format_amount(b.stake),
                        "pays": str(b.odds),
                        "outcome": b.outcome.value,
                        "win": format_amount(b.win),
                        "returned": format_amount(b.returned),
                    }
                    for b in settlement.bets
                ],
                "total_stake": format_amount(settlement.total_staked),
                "total_win": format_amount(settlement.total_win),
                "total_returned": format_amount(settlement.total_returned),
            }
        )
    else:
        typer.echo(render_layout(result, translator))
        typer.echo("")
        typer.echo(render_settlement(settlement, table, translator))


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
    lang: LangOption = None,
) -> None:
    """Check a club's paytable file and list every problem, each naming the entry."""
    translator = translator_for(lang)
    problems = check_paytable(read_text(file, PaytableError), source=file)
    if problems:
        for problem in problems:
            typer.echo(problem.localized(translator), err=True)
        raise typer.Exit(code=1)
    typer.echo(Message(N_("{file}: the paytable is valid."), file=file).localized(translator))


@app.command("procedures")
@guarded
def procedures_list(lang: LangOption = None) -> None:
    """List the preset procedures."""
    translator = translator_for(lang)
    for rules in PROCEDURES.values():
        typer.echo(rules.describe(translator))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"andar-bahar {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Andar Bahar: deal rounds, settle bets, read paytables — exactly."""


def main() -> None:
    """The console script."""
    app()


_ = (LANGUAGES, Wager, parse_stake, sys)
