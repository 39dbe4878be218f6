"""The pay drill: a finished round and a few bets on it; what does each bet win?

The answer is the win only (the stake returned not counted), after the paytable's
rounding to its chip. A table with bets on the centre card has them asked about too.
"""

from __future__ import annotations

import random
from decimal import Decimal

from andar_bahar.engine.bets import Bet, CentreBet, MainBet, Wager
from andar_bahar.engine.cards import FULL_DECK
from andar_bahar.engine.errors import BetError
from andar_bahar.engine.money import Amount, format_amount
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import RoundResult
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.engine.settlement import Outcome, SettledBet, settle
from andar_bahar.games.drills.facts import (
    Exact,
    TableName,
    bets_to_ask,
    procedure_fact,
    target_fact,
)
from andar_bahar.games.drills.layout import deal
from andar_bahar.games.drills.questions import TITLES, Drill, DrillKind, Question
from andar_bahar.i18n.messages import N_, NP_, Message

__all__ = [
    "PLAYERS",
    "STAKES",
    "most_win",
    "pay_drill",
    "pay_facts",
    "pay_line",
    "stakes_for",
    "won_line",
]

STAKES: tuple[int, ...] = (10, 15, 20, 25, 50, 100, 120)
"""Round stakes for the pay drill; 15, 25 and 120 give fractional pays at 0.9 or 0.95 to 1."""

PLAYERS = ("Asha", "Ravi", "Nino", "Dato", "Lena", "Vikram")


def stakes_for(paytable: Paytable) -> list[Decimal]:
    """The round stakes this table accepts (its chip unit and limits).

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> stakes_for(find_paytable("trainer-default"))
    [Decimal('10'), Decimal('15'), Decimal('20'), Decimal('25'), Decimal('50'), Decimal('100'), Decimal('120')]
    """
    accepted = []
    for stake in STAKES:
        try:
            paytable.check_stake(Decimal(stake))
        except BetError:
            continue
        accepted.append(Decimal(stake))
    if accepted:
        return accepted
    fallback = paytable.min_stake or paytable.chip
    return [fallback]


def _pick_bets(rng: random.Random, paytable: Paytable, result: RoundResult) -> list[Bet]:
    """2–4 different bets: at least one main bet, often the winning band too."""
    count = rng.randint(2, 4)
    bets: list[Bet] = [MainBet(rng.choice(list(Row)))]
    band = paytable.band_for(result.cards_dealt)
    if band is not None and rng.random() < 0.5:
        bets.append(band.bet)
    asked = bets_to_ask(rng, paytable, centre=result.centre is not None)
    others = [bet for bet in asked if bet not in bets]
    rng.shuffle(others)
    bets.extend(others[: max(0, count - len(bets))])
    rng.shuffle(bets)
    return bets


def most_win(paytable: Paytable, bet: Bet, stake: Decimal) -> Decimal:
    """The most *stake* on *bet* could win at *paytable*, whatever the deal (an answer's
    bound that does not give the answer away).

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> wizard = find_paytable("wizard")
    >>> most_win(wizard, MainBet(Row.ANDAR), Decimal(15)), most_win(wizard, MainBet(Row.BAHAR), Decimal(15))
    (Decimal('13'), Decimal('15'))
    """
    counts = range(1, len(FULL_DECK) + 1)
    return max(
        paytable.win(stake, paytable.odds_for(bet, first_row=row, cards_dealt=count))
        for row in Row
        for count in counts
    )


def pay_line(number: int, bet: SettledBet, paytable: Paytable, result: RoundResult) -> Message:
    """Why bet *number* wins what it wins (or loses), as the drill explains it."""
    if bet.outcome is Outcome.WIN and bet.rounded:
        return Message(
            N_(
                "Bet {i}: {stake} on {bet} at {odds} is {exact}, {rounding} of {chip}:"
                " it wins {win}."
            ),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            odds=bet.odds,
            exact=Exact(bet.exact_win),
            rounding=paytable.rounding,
            chip=Amount(paytable.chip),
            win=Amount(bet.win),
        )
    if bet.outcome is Outcome.WIN:
        return Message(
            N_("Bet {i}: {stake} on {bet} at {odds} wins {win}."),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            odds=bet.odds,
            win=Amount(bet.win),
        )
    if isinstance(bet.bet, CentreBet):
        return Message(
            N_("Bet {i}: {stake} on {bet} loses, because the centre card is {card}: it wins 0."),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            card=result.centre,
        )
    if isinstance(bet.bet, MainBet):
        return Message(
            N_("Bet {i}: {stake} on {bet} loses, because {row} won: it wins 0."),
            i=number,
            stake=Amount(bet.stake),
            bet=bet.bet,
            row=result.winner,
        )
    return Message(
        NP_(
            "Bet {i}: {stake} on {bet} loses, because {n} card was dealt: it wins 0.",
            "Bet {i}: {stake} on {bet} loses, because {n} cards were dealt: it wins 0.",
        ),
        i=number,
        stake=Amount(bet.stake),
        bet=bet.bet,
        n=result.cards_dealt,
    )


def _question(number: int, bet: SettledBet, paytable: Paytable) -> Question:
    return Question(
        f"bet{number}",
        Message(
            N_("Bet {i}: {player} has {stake} on {bet} at {odds}."),
            i=number,
            player=bet.player,
            stake=Amount(bet.stake),
            bet=bet.bet,
            odds=bet.odds,
        ),
        format_amount(bet.win),
        most=most_win(paytable, bet.bet, bet.stake),
    )


def won_line(result: RoundResult) -> Message:
    """The round's verdict, the first line of a payout's explanation."""
    return Message(
        NP_("{row} won with {n} card dealt.", "{row} won with {n} cards dealt."),
        row=result.winner,
        n=result.cards_dealt,
    )


def pay_facts(procedure: Procedure, paytable: Paytable, result: RoundResult) -> tuple[Message, ...]:
    """What a drill of payouts shows first: the rules, the centre card, the rounding, what to
    answer."""
    return (
        procedure_fact(procedure),
        target_fact(result.centre, result.target),
        Message(
            N_(
                "Paytable: {name}; a win that is not a whole number of chips of {chip} is {rounding}."
            ),
            name=TableName(paytable),
            chip=Amount(paytable.chip),
            rounding=paytable.rounding,
        ),
        Message(N_("Answer with the win only, without the stake returned; 0 for a losing bet.")),
    )


def pay_drill(rng: random.Random, procedure: Procedure, paytable: Paytable) -> Drill:
    """A round dealt to its end, 2–4 players' bets on it, and the win of each to say."""
    result = deal(rng, procedure, paytable)
    assert result.winner is not None
    stakes = stakes_for(paytable)
    bets = _pick_bets(rng, paytable, result)
    players = rng.sample(PLAYERS, len(bets))
    wagers = tuple(
        Wager(player, bet, rng.choice(stakes)) for player, bet in zip(players, bets, strict=True)
    )
    settlement = settle(
        winner=result.winner,
        cards_dealt=result.cards_dealt,
        first_row=result.first_row,
        paytable=paytable,
        wagers=wagers,
        centre=result.centre,
    )
    explanation = (
        won_line(result),
        *(
            pay_line(number, bet, paytable, result)
            for number, bet in enumerate(settlement.bets, start=1)
        ),
    )
    return Drill(
        DrillKind.PAY,
        TITLES[DrillKind.PAY],
        tuple(
            _question(number, bet, paytable) for number, bet in enumerate(settlement.bets, start=1)
        ),
        result,
        paytable,
        wagers,
        pay_facts(procedure, paytable, result),
        procedure=procedure,
        centre=result.centre,
        explanation=explanation,
    )
