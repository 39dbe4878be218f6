"""``andar-bahar deal`` and ``andar-bahar settle``."""

from __future__ import annotations

import random
from typing import Annotated

import typer

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
    translator_for,
)
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import ActionError, DeckError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import PAYTABLES
from andar_bahar.engine.round import Round, stacked_deck
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.report import render_layout, render_settlement


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
    # --seed: a reproducible training deal; without it, the operating system's secure source.
    rng = random.Random(seed) if seed is not None else random.SystemRandom()  # noqa: S311
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
            _target_rank(rules, target, random.SystemRandom())
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
