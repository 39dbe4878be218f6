"""The night's hold against the maths: the exact law of what the house keeps.

**One round.** The house's result in a round is a function of the round's outcome
``(first_row, winner, cards_dealt)`` (:mod:`andar_bahar.chance.odds`) and of the bets
actually placed: every player's every spot at its whole stake (repeated bets on a spot add
up to one stake, paid as one win), under the table's paytable — its pays by row or by the
row dealt first, its pays by count, and the rounding of each win to the chip, exactly as
:func:`~andar_bahar.engine.settlement.settle` pays it. A losing bet gives the house its
stake, a winning one costs the house its rounded win. So for each outcome ``o`` of the
exact outcome distribution the house keeps ``h(o) = Σ stakes lost − Σ wins paid``, and

    E[h] = Σ_o P(o) h(o),   Var[h] = Σ_o P(o) h(o)² − E[h]²,

exactly (:class:`RoundLaw`). Bets in one round are settled by the same outcome, so they
are added outcome by outcome first: the round's variance is that of their sum, never a
sum of their variances.

**What the bets knew.** Under the ``after-centre`` window a player may bet after seeing
the centre card, and under the colour start rules its colour changes the odds (it picks
the row dealt first, or the colours left in the pile). A bet chosen knowing the colour is
judged against the outcome distribution *given* that colour — else a player who bets on
the row dealt first only when it is red would look lucky. :func:`known_centre` decides:
the round's distribution is conditioned on the centre card's colour exactly when a bet
was placed, changed or withdrawn after the centre card was turned; otherwise (every bet
placed before it, or no centre card at all) it is the unconditional one, the centre's
colour being part of the round's luck. Only the colour matters: the rank is matched by
three cards whatever it is.

**Bets on the centre card** are settled by the centre card itself, whose colour the deal
depends on: with such bets the law runs over the centre card and the outcome together —
each card of each colour (equally likely within its colour), then the outcomes given
that colour.

**A night.** Rounds are dealt from separate shuffles, so their results are independent:
the night's mean and variance are the sums of the rounds' (:class:`HoldLaw`). Where the
result lies in its law is said by z (the distance from the mean in standard deviations),
a two-sided p-value and the band that holds 95 % of nights, from the law of the total:
exact while it can be written out, else a saddlepoint approximation
(:mod:`andar_bahar.chance.hold_tails`).

>>> from andar_bahar.engine.bets import Bet, Wager
>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> from decimal import Decimal
>>> law = round_law(find_procedure("classic"), find_paytable("wizard"),
...                 [Wager("asha", Bet.parse("andar"), Decimal(100))])
>>> law.mean, law.variance                         # 100 × the house edge 179/8330
(Fraction(1790, 833), Fraction(6256707600, 693889))
>>> night = HoldLaw.of([law] * 100)
>>> night.mean, night.judge(Decimal(-1000)).verdict
(Fraction(179000, 833), 'ordinary')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache, reduce

from andar_bahar.chance.hold_tails import MICROS, RoundLaw, Tails
from andar_bahar.chance.odds import Outcome, outcome_distribution, sqrt_decimal
from andar_bahar.chance.significance import two_sided
from andar_bahar.engine.bets import Bet, CentreBet, Wager
from andar_bahar.engine.cards import FULL_DECK, Card, Colour
from andar_bahar.engine.paytables import Odds, Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, Row, StartRule, TargetMode

__all__ = [
    "LEVEL",
    "HoldLaw",
    "Judgement",
    "RoundLaw",
    "known_centre",
    "round_law",
]

LEVEL = Fraction(95, 100)
"""The share of nights the band holds."""


def known_centre(
    procedure: Procedure, centre: Colour | None, bet_after_centre: bool
) -> Colour | None:
    """The centre card's colour to condition a round's odds on, or ``None``.

    Conditioned exactly when the window let bets be placed after the centre card and one
    was (placed, changed or withdrawn after it was turned): the bets then knew it.

    >>> from andar_bahar.engine.rules import find_procedure
    >>> known_centre(find_procedure("classic"), Colour.RED, bet_after_centre=True)
    <Colour.RED: 'red'>
    >>> known_centre(find_procedure("classic"), Colour.RED, bet_after_centre=False) is None
    True
    """
    if procedure.window is BetWindow.AFTER_CENTRE and procedure.has_centre and bet_after_centre:
        return centre
    return None


@dataclass(frozen=True, slots=True, eq=False)
class _Outcomes:
    """The outcomes of a situation with whole-number weights over one denominator (one
    object per situation: compared and hashed by identity)."""

    outcomes: tuple[Outcome, ...]
    weights: tuple[int, ...]
    denominator: int


@lru_cache(maxsize=64)
def _outcomes(start: StartRule, target: TargetMode, centre: Colour | None) -> _Outcomes:
    rules = Procedure("hold", start=start, target=target)
    items = list(outcome_distribution(rules, centre=centre))
    denominator = reduce(math.lcm, (p.denominator for _, p in items), 1)
    weights = tuple(p.numerator * (denominator // p.denominator) for _, p in items)
    return _Outcomes(tuple(o for o, _ in items), weights, denominator)


_PAYS: dict[int, tuple[Paytable, dict[tuple[Bet, Decimal, _Outcomes], tuple[int, ...]]]] = {}
"""What each bet keeps at each stake, per paytable (kept by the paytable's identity, with the
paytable itself: hashing a paytable's every odds for each bet would cost more than the sum)."""


def _kept(paytable: Paytable, bet: Bet, stake: Decimal, situation: _Outcomes) -> tuple[int, ...]:
    """What the house keeps from one bet in each outcome, in millionths of a chip: the
    stake when it loses, minus the win (rounded as the table pays it) when it wins."""
    entry = _PAYS.get(id(paytable))
    if entry is None or entry[0] is not paytable:
        if len(_PAYS) >= 64:
            _PAYS.clear()
        entry = _PAYS[id(paytable)] = (paytable, {})
    known = entry[1].get((bet, stake, situation))
    if known is not None:
        return known
    lost = int(stake * MICROS)
    paid: dict[Odds, int] = {}  # a bet has few odds: each win worked out once
    kept = []
    for first, winner, k in situation.outcomes:
        if bet.wins(winner=winner, cards_dealt=k):
            odds = paytable.odds_for(bet, first_row=first, cards_dealt=k)
            if odds not in paid:
                paid[odds] = -int(paytable.win(stake, odds) * MICROS)
            kept.append(paid[odds])
        else:
            kept.append(lost)
    entry[1][(bet, stake, situation)] = result = tuple(kept)
    return result


def round_law(
    procedure: Procedure,
    paytable: Paytable,
    wagers: Iterable[Wager],
    *,
    centre: Colour | None = None,
) -> RoundLaw:
    """The exact law of what the house keeps from *wagers* in one round.

    *procedure* gives the start rule and target mode (hence the outcome distribution);
    *centre* is the colour the bets knew (see :func:`known_centre`), ``None`` if none.
    A round without bets keeps 0 for certain.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> law = round_law(find_procedure("classic"), find_paytable("joker"),
    ...                 [Wager("asha", Bet.parse("centre:suit:h"), Decimal(10))])
    >>> law.mean, law.variance            # 10 × the edge 1/40; keeps 10 or pays 29
    (Fraction(1, 4), Fraction(4563, 16))
    """
    wagers = list(wagers)
    on_centre = [w for w in wagers if isinstance(w.bet, CentreBet)]
    on_deal = [w for w in wagers if not isinstance(w.bet, CentreBet)]
    colours = [centre] if centre is not None else list(Colour)
    merged: dict[int, int] = {}
    denominator = 1
    parts = []
    for colour in colours if on_centre else [centre]:
        situation = _outcomes(procedure.start, procedure.target, colour)
        total = [0] * len(situation.outcomes)
        for wager in on_deal:
            for i, value in enumerate(_kept(paytable, wager.bet, wager.stake, situation)):
                total[i] += value
        cards = Counter(
            sum(_kept_on(paytable, w, card) for w in on_centre)
            for card in FULL_DECK
            if colour is None or card.colour is colour
        )
        parts.append((total, situation, cards))
        denominator = math.lcm(denominator, situation.denominator * sum(cards.values()))
    for total, situation, cards in parts:
        scale = denominator // (situation.denominator * sum(cards.values()))
        for value, weight in zip(total, situation.weights, strict=True):
            for kept, count in cards.items():
                merged[value + kept] = merged.get(value + kept, 0) + weight * count * scale
    if len(parts) > 1:
        denominator *= len(parts)  # each colour half the time
    values = tuple(sorted(merged))
    return RoundLaw(values, tuple(merged[v] for v in values), denominator)


def _kept_on(paytable: Paytable, wager: Wager, card: Card) -> int:
    """What the house keeps from a bet on the centre card when the centre card is *card*."""
    if wager.bet.wins(winner=Row.ANDAR, cards_dealt=0, centre=card):
        odds = paytable.odds_for(wager.bet, first_row=None)
        return -int(paytable.win(wager.stake, odds) * MICROS)
    return int(wager.stake * MICROS)


@dataclass(frozen=True, slots=True)
class Judgement:
    """Where an observed result lies in its law, in chips.

    ``low`` and ``high`` bound the band that holds at least 95 % of results; ``p_value``
    is two-sided; ``verdict`` is ``ordinary`` (inside the band), ``high`` or ``low``
    (outside, above or below it); ``method`` is ``exact`` or ``saddlepoint``.
    """

    observed: Decimal
    mean: Fraction
    variance: Fraction
    z: float | None
    """(observed − mean) / SD; ``None`` when the result could not vary."""
    p_value: float
    low: Decimal
    high: Decimal
    method: str

    @property
    def sd(self) -> Decimal:
        return sqrt_decimal(self.variance, 6)

    @property
    def verdict(self) -> str:
        if self.observed < self.low:
            return "low"
        if self.observed > self.high:
            return "high"
        return "ordinary"


@dataclass(frozen=True, slots=True)
class HoldLaw:
    """The law of the house's result over independent rounds: the sum of their laws.

    ``laws`` are the distinct round laws, each with the number of rounds that have it.
    The mean and the variance are exact sums.
    """

    laws: tuple[tuple[RoundLaw, int], ...]
    mean: Fraction
    variance: Fraction

    @classmethod
    def of(cls, laws: Iterable[RoundLaw]) -> HoldLaw:
        counted = tuple(Counter(laws).items())
        sums: dict[int, list[int]] = {}  # per denominator: whole numbers, added exactly
        for law, count in counted:
            first, second = law.spread()
            entry = sums.setdefault(law.denominator, [0, 0])
            entry[0] += count * first
            entry[1] += count * second
        mean = sum((Fraction(a, d * MICROS) for d, (a, _) in sums.items()), Fraction(0))
        variance = sum((Fraction(b, d**3 * MICROS**2) for d, (_, b) in sums.items()), Fraction(0))
        return cls(counted, mean, variance)

    @property
    def rounds(self) -> int:
        return sum(count for _, count in self.laws)

    @property
    def sd(self) -> Decimal:
        return sqrt_decimal(self.variance, 6)

    def judge(self, observed: Decimal, level: Fraction = LEVEL) -> Judgement:
        """z, the two-sided p-value and the band of *observed* (chips) in this law."""
        tails = Tails.of(self.laws, self.variance)
        t = int(observed * MICROS)
        below, above = tails.at_most(t), tails.at_least(t)
        low, high = tails.band((1 - level) / 2)
        z = None
        if self.variance:
            z = float((Fraction(observed) - self.mean) / Fraction(str(self.sd)))
        return Judgement(
            observed,
            self.mean,
            self.variance,
            z,
            two_sided(below, above),
            _chips(low),
            _chips(high),
            tails.method,
        )


def _chips(micros: int) -> Decimal:
    return (Decimal(micros) / MICROS).normalize() + 0  # + 0: no exponent for whole numbers
