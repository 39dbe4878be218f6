"""The dealer school: pay a whole table against the clock, level by level.

A round dealt to its end and several players' bets on it — a player may cover several
spots, more chips may have been added to a spot already staked (the spot is paid on its
total, as the table settles it), side bets on the count of cards — and the trainee says
what each spot wins, 0 for a spot that loses. The settlement is the engine's own
(:func:`~andar_bahar.engine.settlement.settle`), so every answer is exact, rounded to the
table's chip by its rule.

Levels grow: more players, more spots each, side bets, chips added to a spot, then
rounds whose count decides the pay (a pay by count, or a side bet's band). A table is
passed when every payout is right within the level's pace (seconds per payout).

>>> import random
>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> table = school_table(random.Random(7), find_procedure("classic"), find_paytable("wizard"),
...                      LEVELS[0])
>>> [(str(q.prompt), q.expected) for q in table.drill.questions]
[('Bet 1: Lena, 25 on Andar.', '22'), ('Bet 2: Asha, 25 on Bahar.', '0')]
>>> print(table.drill.explanation[1])
Bet 1: 25 on Andar at 0.9 to 1 is 22.5, rounded down to the chip of 1: it wins 22.
>>> checked = check_answers(table.drill, {"bet1": "22", "bet2": "0"})
>>> table.passed(checked, Decimal(30)), table.passed(checked, Decimal(41))
(True, False)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal

from andar_bahar.engine.bets import Bet, MainBet, Wager
from andar_bahar.engine.errors import BetError, ParameterError
from andar_bahar.engine.money import Amount, format_amount
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import RoundResult
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.engine.settlement import SettledBet, settle
from andar_bahar.games.drills.answers import check_answers
from andar_bahar.games.drills.facts import bets_to_ask
from andar_bahar.games.drills.layout import deal
from andar_bahar.games.drills.pay import (
    PLAYERS,
    most_win,
    pay_facts,
    pay_line,
    stakes_for,
    won_line,
)
from andar_bahar.games.drills.questions import (
    TITLES,
    Drill,
    DrillKind,
    DrillResult,
    Question,
)
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = [
    "LEVELS",
    "ChipsOnSpot",
    "Level",
    "TableToPay",
    "check_answers",
    "find_level",
    "school_table",
]

REDEALS = 60
"""Rounds dealt at most to find one whose count a pay by count covers (a level that asks
for one): the first whose count does, or the last."""


@dataclass(frozen=True, slots=True)
class Level:
    """What a level of the school puts on the table, and the pace that passes it."""

    number: int
    players: int
    spots: int
    """The most spots one player covers."""
    side_bets: bool
    repeats: bool
    """Chips added to a spot already staked: one stake, paid on its total."""
    count_pays: bool
    """The count of cards decides pays: a pay by count of the table's (if it has one) or a
    side bet on the band that wins."""
    seconds: int
    """The pace to pass: seconds per payout, at most."""


LEVELS = (
    Level(1, players=2, spots=1, side_bets=False, repeats=False, count_pays=False, seconds=20),
    Level(2, players=3, spots=2, side_bets=True, repeats=False, count_pays=False, seconds=15),
    Level(3, players=4, spots=2, side_bets=True, repeats=True, count_pays=False, seconds=12),
    Level(4, players=5, spots=3, side_bets=True, repeats=True, count_pays=False, seconds=10),
    Level(5, players=6, spots=3, side_bets=True, repeats=True, count_pays=True, seconds=8),
)
"""The school's levels, the easiest first."""


def find_level(number: int) -> Level:
    """Level *number* (1 to the last), or one sentence naming the levels there are."""
    if not 1 <= number <= len(LEVELS):
        raise ParameterError(
            Message(
                N_("There is no level {n}: the school has levels 1 to {last}."),
                n=number,
                last=len(LEVELS),
            )
        )
    return LEVELS[number - 1]


class Stacks:
    """The stacks put on one spot, as the table shows them: ``10 + 5``."""

    def __init__(self, stacks: tuple[Decimal, ...]) -> None:
        self.stacks = stacks

    def localized(self, translator: Translator | None) -> str:
        return " + ".join(Amount(stack).localized(translator) for stack in self.stacks)


@dataclass(frozen=True, slots=True)
class ChipsOnSpot:
    """One player's chips on one spot: each stack as it was put down."""

    player: str
    bet: Bet
    stacks: tuple[Decimal, ...]

    @property
    def stake(self) -> Decimal:
        return sum(self.stacks, Decimal(0))


@dataclass(frozen=True, slots=True)
class TableToPay:
    """A settled layout to pay: its spots, and the drill that asks what each one wins."""

    level: Level
    spots: tuple[ChipsOnSpot, ...]
    drill: Drill

    def passed(self, result: DrillResult, seconds: Decimal) -> bool:
        """Every payout right, within the level's pace (*seconds* for the whole table)."""
        return result.correct and seconds <= self.level.seconds * len(self.spots)


def _deal(
    rng: random.Random, procedure: Procedure, paytable: Paytable, level: Level
) -> RoundResult:
    """A round to its end; at a level of pays by count, one whose count a pay covers."""
    result = deal(rng, procedure, paytable)
    if level.count_pays and paytable.main_by_count:
        for _ in range(REDEALS - 1):
            if any(pays.covers(result.cards_dealt) for pays in paytable.main_by_count):
                break
            result = deal(rng, procedure, paytable)
    return result


def _stacks(
    rng: random.Random, stakes: list[Decimal], paytable: Paytable, level: Level
) -> tuple[Decimal, ...]:
    """One stack, or at a level of repeats now and then two or three that the table accepts."""
    first = rng.choice(stakes)
    if not level.repeats or rng.random() < 0.6:
        return (first,)
    stacks = (first, *(rng.choice(stakes) for _ in range(rng.randint(1, 2))))
    try:
        paytable.check_stake(sum(stacks, Decimal(0)))
    except BetError:
        return (first,)
    return stacks


def _spots(
    rng: random.Random, paytable: Paytable, level: Level, result: RoundResult
) -> list[ChipsOnSpot]:
    """Each player's spots: a main bet, then (at levels with them) side bets."""
    stakes = stakes_for(paytable)
    asked = bets_to_ask(rng, paytable, centre=result.centre is not None) if level.side_bets else []
    sides = [bet for bet in asked if not isinstance(bet, MainBet)]
    band = paytable.band_for(result.cards_dealt)
    spots: list[ChipsOnSpot] = []
    for player in rng.sample(PLAYERS, level.players):
        bets: list[Bet] = [MainBet(rng.choice(list(Row)))]
        others = list(sides)
        rng.shuffle(others)
        if level.count_pays and band is not None and band.bet in others and rng.random() < 0.5:
            others.remove(band.bet)  # the band that wins, often: its pay is the one to know
            others.insert(0, band.bet)
        bets.extend(others[: rng.randint(1, level.spots) - 1])
        spots.extend(
            ChipsOnSpot(player, bet, _stacks(rng, stakes, paytable, level)) for bet in bets
        )
    return spots


def _question(number: int, spot: ChipsOnSpot, settled: SettledBet, paytable: Paytable) -> Question:
    return Question(
        f"bet{number}",
        Message(
            N_("Bet {i}: {player}, {chips} on {bet}."),
            i=number,
            player=spot.player,
            chips=Stacks(spot.stacks),
            bet=spot.bet,
        ),
        format_amount(settled.win),
        most=most_win(paytable, spot.bet, spot.stake),
    )


def _explanation(
    spots: list[ChipsOnSpot],
    settled: tuple[SettledBet, ...],
    paytable: Paytable,
    result: RoundResult,
) -> tuple[Message, ...]:
    lines = [won_line(result)]
    for number, (spot, bet) in enumerate(zip(spots, settled, strict=True), start=1):
        if len(spot.stacks) > 1:
            lines.append(
                Message(
                    N_("Bet {i}: {chips} on one spot are one stake of {stake}."),
                    i=number,
                    chips=Stacks(spot.stacks),
                    stake=Amount(spot.stake),
                )
            )
        lines.append(pay_line(number, bet, paytable, result))
    return tuple(lines)


def school_table(
    rng: random.Random, procedure: Procedure, paytable: Paytable, level: Level
) -> TableToPay:
    """A round dealt to its end under *procedure*, the level's players' bets on it at
    *paytable*, and the win of every spot to say."""
    result = _deal(rng, procedure, paytable, level)
    assert result.winner is not None  # a full deck always holds a match
    spots = _spots(rng, paytable, level, result)
    settlement = settle(
        winner=result.winner,
        cards_dealt=result.cards_dealt,
        first_row=result.first_row,
        paytable=paytable,
        wagers=[Wager(spot.player, spot.bet, spot.stake) for spot in spots],
        centre=result.centre,
    )
    questions = tuple(
        _question(number, spot, bet, paytable)
        for number, (spot, bet) in enumerate(zip(spots, settlement.bets, strict=True), start=1)
    )
    facts = (
        *pay_facts(procedure, paytable, result),
        Message(
            N_("Level {n}: pay every spot, at most {seconds} s a payout."),
            n=level.number,
            seconds=level.seconds,
        ),
    )
    drill = Drill(
        DrillKind.PAY,
        TITLES[DrillKind.PAY],
        questions,
        result,
        paytable,
        tuple(Wager(s.player, s.bet, s.stake) for s in spots),
        facts,
        procedure=procedure,
        centre=result.centre,
        explanation=_explanation(spots, settlement.bets, paytable, result),
    )
    return TableToPay(level, tuple(spots), drill)
