"""A bet's house edge at every stake, worked out the long way for the tests: each winning
outcome's pay looked up in the paytable and each win paid by ``Paytable.win`` (the
settlement's own rounding), stake by stake — independent of ``chance/stake_edges``, whose
figures the designer and the rounding check print."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from andar_bahar.chance.design import Design
from andar_bahar.chance.odds import outcome_distribution
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.paytables import Odds, Paytable, Rounding
from andar_bahar.engine.rules import Procedure


def rounded(units: Fraction, rule: Rounding) -> int:
    """*units* rounded by *rule*, with ``math.floor``/``math.ceil`` (not the engine's)."""
    if rule is Rounding.DOWN:
        return math.floor(units)
    if rule is Rounding.UP:
        return math.ceil(units)
    return math.floor(units + Fraction(1, 2))


def edges_by_stake(
    procedure: Procedure, paytable: Paytable, bet: Bet, given: Colour | None, units: Iterable[int]
) -> dict[int, Fraction]:
    """The house edge per unit staked at each stake of *units* chips (centre *given*)."""
    by_pay: dict[Odds, Fraction] = {}
    lose = Fraction(0)
    for (first, winner, k), p in outcome_distribution(
        procedure, centre=given
    ).probabilities.items():
        if bet.wins(winner=winner, cards_dealt=k):
            odds = paytable.odds_for(bet, first_row=first, cards_dealt=k)
            by_pay[odds] = by_pay.get(odds, Fraction(0)) + p
        else:
            lose += p
    edges = {}
    for n in units:
        stake = paytable.chip * n
        won = sum(
            (p * Fraction(paytable.win(stake, odds)) for odds, p in by_pay.items()), Fraction(0)
        )
        edges[n] = lose - won / Fraction(stake)
    return edges


def check_design(design: Design, *, top: int | None = None) -> int:
    """Every printed figure of *design* against :func:`edges_by_stake` over every stake the
    designed table allows (its first *top* stakes when it has no maximum): each row's lowest and
    highest edge and the stake of each; every bet the table serves within the range at every
    stake; every bet it cannot serve missing the range at exactly the stakes it names.
    Returns how many (row, stake) edges were checked."""
    table, procedure, edge = design.paytable, design.report.procedure, design.edge
    if design.stakes.last is None:
        assert top is not None, "give top= for a table without a maximum"
        last = design.stakes.first + top - 1
    else:
        last = design.stakes.last
    missing = {u.bet: u for u in design.unreachable}
    checked = 0
    misses: dict[Bet, set[int]] = {}
    for row in design.rows:
        edges = edges_by_stake(
            procedure, table, row.bet, row.given, range(design.stakes.first, last + 1)
        )
        checked += len(edges)
        low, high = min(edges.values()), max(edges.values())
        if design.stakes.last is not None or top is None:
            assert (row.lowest, row.highest) == (low, high), (row, low, high)
            at_low = min(n for n, e in edges.items() if e == low)
            at_high = min(n for n, e in edges.items() if e == high)
            assert (row.lowest_at, row.highest_at) == (table.chip * at_low, table.chip * at_high)
        else:  # no maximum: the printed extremes bound every stake checked
            assert row.lowest <= low and high <= row.highest
        out = {n for n, e in edges.items() if not edge.low <= e <= edge.high}
        if row.bet not in missing:
            assert not out, (row.bet, row.given, sorted(out)[:10])
        misses.setdefault(row.bet, set()).update(out)
    for bet, gap in missing.items():
        if gap.missed is None or design.stakes.last is None:
            continue
        stakes = gap.missed.stakes
        listed = {*stakes.units, *(range(stakes.from_on, last + 1) if stakes.from_on else ())}
        if bet in misses:  # a main bet: the table shows its nearest pay
            assert listed == misses[bet], (bet, sorted(listed)[:10], sorted(misses[bet])[:10])
    return checked
