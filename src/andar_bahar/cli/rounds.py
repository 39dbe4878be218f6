"""``andar-bahar deal`` and ``andar-bahar settle``."""

from __future__ import annotations

import random
from collections.abc import Sequence
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
    build_procedure,
    commands_app,
    echo_json,
    guarded,
    translator_for,
)
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import ActionError, BetError, DeckError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import PAYTABLES
from andar_bahar.engine.round import AddedBets, Round, added_together, stacked_deck
from andar_bahar.engine.rules import Procedure
from andar_bahar.engine.settlement import Settlement
from andar_bahar.i18n.messages import N_, Message, translate
from andar_bahar.reports.report import render_layout, render_settlement

app = commands_app()


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


DEFAULT_PLAYER = "player"
"""The player of a ``--bet`` that names none."""


def parse_bet_option(text: str, default: str = DEFAULT_PLAYER) -> tuple[str, Bet, str]:
    """``[PLAYER:]BET=STAKE`` as (player, bet, stake text); *default* when none is named.

    A bet name comes first when it reads as one (``cards:1-5=50``); otherwise the text
    before the first colon is the player (``asha:cards:1-5=50``, ``ravi:andar=20``).

    >>> parse_bet_option("asha:cards:6-10=100")
    ('asha', CardsBet(low=6, high=10), '100')
    >>> parse_bet_option("Andar=50")
    ('player', MainBet(row=<Row.ANDAR: 'andar'>), '50')
    """
    bet_text, separator, stake = text.partition("=")
    if not separator:
        raise ActionError(
            Message(
                N_(
                    "The bet '{text}' has no stake: write [PLAYER:]BET=STAKE, e.g. andar=100,"
                    " cards:1-5=50 or asha:bahar=20."
                ),
                text=text,
            )
        )
    try:
        return default, Bet.parse(bet_text), stake
    except BetError:
        player, colon, rest = bet_text.partition(":")
        if not colon or not player.strip():
            raise
        return player.strip(), Bet.parse(rest), stake


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
        typer.Option(
            "--bet",
            help="[PLAYER:]BET=STAKE, e.g. andar=100, cards:1-5=50, asha:bahar=20; repeat for"
            " more (a player's bets on one spot add up).",
        ),
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
    """The dealer's calculator: settle a table's bets on a finished round."""
    translator = translator_for(lang)
    rules = build_procedure(procedure, start, target_mode, window)
    table = read_paytable(paytable)
    if rules.markers_only:
        rules = rules.replace(markers_only=False)
    rnd = Round(rules, table)
    dealt = _open_round(rnd, Card.parse_many(cards), target)
    # a bet that names no player is the "player"'s, in the reader's language on screen
    unnamed = DEFAULT_PLAYER if output is TextOrJson.JSON else translate(N_("player"), translator)
    placed = [
        rnd.place_bet(player, the_bet, stake)
        for player, the_bet, stake in (parse_bet_option(text, unnamed) for text in bet)
    ]
    _deal_given(rnd, dealt)
    settlement = rnd.settle().settlement
    result = rnd.result
    added = added_together(placed)
    if output is TextOrJson.JSON:
        echo_json(_settlement_json(rnd, settlement, added))
    else:
        typer.echo(render_layout(result, translator))
        typer.echo("")
        typer.echo(render_settlement(settlement, table, translator, added=added))


def _open_round(rnd: Round, given: Sequence[Card], target: str | None) -> Sequence[Card]:
    """Check the cards and choose the target rank (chosen-rank mode) before the bets."""
    rules = rnd.procedure
    if rules.has_centre:
        if target is not None:
            _target_rank(rules, target, random.SystemRandom())
        if not given:
            raise ActionError(Message(N_("Give the round's cards, the centre card first.")))
        return given
    if target is None:
        raise ActionError(Message(N_("Give the target rank with --target in chosen-rank mode.")))
    rnd.choose_target(Rank.parse(target))
    return given


def _deal_given(rnd: Round, dealt: Sequence[Card]) -> None:
    if rnd.procedure.has_centre and rnd.centre is None:
        rnd.turn_centre(dealt[0])
        dealt = dealt[1:]
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


def _settlement_json(
    rnd: Round, settlement: Settlement, added: Sequence[AddedBets]
) -> dict[str, object]:
    result = rnd.result
    return {
        "paytable": rnd.paytable.name,
        "procedure": rnd.procedure.name,
        "winner": result.winner.value if result.winner else "void",
        "cards_dealt": result.cards_dealt,
        "first_side": result.first_row.value if result.first_row else None,
        "bets": [
            {
                "player": b.player,
                "bet": str(b.bet),
                "stake": format_amount(b.stake),
                "pays": str(b.odds),
                "outcome": b.outcome.value,
                "win": format_amount(b.win),
                "returned": format_amount(b.returned),
            }
            for b in settlement.bets
        ],
        "players": {
            name: {
                "stake": format_amount(totals.staked),
                "win": format_amount(totals.win),
                "returned": format_amount(totals.returned),
            }
            for name, totals in settlement.players.items()
        },
        "added": [a.to_dict() for a in added],
        "total_stake": format_amount(settlement.total_staked),
        "total_win": format_amount(settlement.total_win),
        "total_returned": format_amount(settlement.total_returned),
    }
