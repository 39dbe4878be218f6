"""Exact odds: the distribution of a round's outcome, and what every bet is worth.

Everything here is a :class:`~fractions.Fraction` worked out by combinatorics
over the deck's composition — never by simulation — so every start rule is
exact, including ``first-card-colour`` (the first card's colour is correlated
with the match) and ``chosen-rank`` (four cards match among 52).

An *outcome* is ``(first_row, winner, cards_dealt)``; every bet on the rows and the
cards dealt is settled by the outcome alone, and every bet on the centre card by the
centre card alone: it wins on a share of the 52 cards (a suit 13, a colour 26, a rank 4,
low 24, seven 4, high 24), and is open only before the centre card is seen.

>>> from andar_bahar.engine.rules import find_procedure
>>> dist = outcome_distribution(find_procedure("classic"))
>>> dist.probability_of(Row.ANDAR), dist.mean_cards_dealt
(Fraction(429, 833), Fraction(13, 1))
>>> home = outcome_distribution(find_procedure("home"))
>>> home.probability_of(Row.ANDAR)                   # centre colour decides: even
Fraction(1, 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm

from andar_bahar.engine.bets import Bet, CentreBet, CentreKind
from andar_bahar.engine.cards import FULL_DECK, Colour, Rank, Suit
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, Row, StartRule, TargetMode
from andar_bahar.i18n.messages import N_, Message, Translator

__all__ = [
    "BetOdds",
    "BetPays",
    "Given",
    "OddsReport",
    "Outcome",
    "OutcomeDistribution",
    "Percent",
    "bet_odds",
    "centre_probability",
    "first_match_distribution",
    "odds_report",
    "outcome_distribution",
    "sqrt_decimal",
]

Outcome = tuple[Row, Row, int]
"""``(first_row, winner, cards_dealt)``."""


def first_match_distribution(cards: int, matching: int) -> dict[int, Fraction]:
    """P(the first matching card is the k-th dealt) in a shuffled pile.

    With *cards* cards of which *matching* match, the first match is at k when
    the k − 1 cards before it miss and the other ``matching − 1`` lie after it:
    ``C(cards − k, matching − 1) / C(cards, matching)``.

    >>> d = first_match_distribution(51, 3)
    >>> d[1], sum(d.values()), max(d)
    (Fraction(1, 17), Fraction(1, 1), 49)
    """
    total = comb(cards, matching)
    return {
        k: Fraction(comb(cards - k, matching - 1), total) for k in range(1, cards - matching + 2)
    }


@dataclass(frozen=True, slots=True)
class _Pile:
    """The cards left to deal: matching and non-matching, black and red."""

    match_black: int
    match_red: int
    other_black: int
    other_red: int

    @property
    def cards(self) -> int:
        return self.match_black + self.match_red + self.other_black + self.other_red

    @property
    def matching(self) -> int:
        return self.match_black + self.match_red


def _deal(pile: _Pile, start: StartRule, fixed_first: Row | None) -> dict[Outcome, Fraction]:
    """The exact outcome distribution of dealing *pile* under *start*."""
    result: dict[Outcome, Fraction] = {}

    def add(outcome: Outcome, p: Fraction) -> None:
        result[outcome] = result.get(outcome, Fraction(0)) + p

    if start is not StartRule.FIRST_CARD_COLOUR:
        assert fixed_first is not None
        for k, p in first_match_distribution(pile.cards, pile.matching).items():
            add((fixed_first, fixed_first if k % 2 else fixed_first.other, k), p)
        return result
    # first-card-colour: condition on the first card, whose colour picks its row.
    n = pile.cards
    for colour, matching, other in (
        (Colour.BLACK, pile.match_black, pile.other_black),
        (Colour.RED, pile.match_red, pile.other_red),
    ):
        first = Row.of_colour(colour)
        if matching:
            add((first, first, 1), Fraction(matching, n))
        if other:
            rest = first_match_distribution(n - 1, pile.matching)
            for k_rest, p in rest.items():
                k = 1 + k_rest
                add((first, first if k % 2 else first.other, k), Fraction(other, n) * p)
    return result


@dataclass(frozen=True, slots=True)
class OutcomeDistribution:
    """The exact distribution of ``(first_row, winner, cards_dealt)``."""

    probabilities: Mapping[Outcome, Fraction]

    def __iter__(self) -> Iterator[tuple[Outcome, Fraction]]:
        return iter(sorted(self.probabilities.items(), key=lambda item: (item[0][2], item[0])))

    def probability_of(self, winner: Row) -> Fraction:
        return sum((p for (_, w, _), p in self.probabilities.items() if w is winner), Fraction(0))

    @property
    def cards_dealt(self) -> dict[int, Fraction]:
        """P(cards dealt = n) for every possible n."""
        counts: dict[int, Fraction] = {}
        for (_, _, k), p in self.probabilities.items():
            counts[k] = counts.get(k, Fraction(0)) + p
        return dict(sorted(counts.items()))

    @property
    def mean_cards_dealt(self) -> Fraction:
        return sum((k * p for (_, _, k), p in self.probabilities.items()), Fraction(0))

    def probability_of_band(self, low: int, high: int) -> Fraction:
        return sum(
            (p for (_, _, k), p in self.probabilities.items() if low <= k <= high), Fraction(0)
        )


def _mix(parts: list[tuple[Fraction, dict[Outcome, Fraction]]]) -> OutcomeDistribution:
    total: dict[Outcome, Fraction] = {}
    for weight, part in parts:
        for outcome, p in part.items():
            total[outcome] = total.get(outcome, Fraction(0)) + weight * p
    return OutcomeDistribution(total)


def outcome_distribution(
    procedure: Procedure, *, centre: Colour | None = None
) -> OutcomeDistribution:
    """The exact outcome distribution of *procedure*, optionally given the centre's colour.

    >>> from andar_bahar.engine.rules import find_procedure
    >>> first_card = outcome_distribution(find_procedure("first-card"))
    >>> first_card.probability_of(Row.ANDAR)
    Fraction(1, 2)
    >>> outcome_distribution(find_procedure("first-card"), centre=Colour.BLACK).probability_of(Row.ANDAR)
    Fraction(25, 51)
    """
    return _outcome_distribution(procedure, centre)


@lru_cache(maxsize=64)
def _outcome_distribution(procedure: Procedure, centre: Colour | None) -> OutcomeDistribution:
    """:func:`outcome_distribution`, worked out once per procedure and colour (a shuffle
    check, a hold report and an odds page ask for the same few)."""
    # Of each rank, two cards are black and two red; 12 other ranks give 24 + 24.
    if procedure.target is TargetMode.CHOSEN_RANK:
        if centre is not None:
            raise ValueError("chosen-rank rounds have no centre card")
        andar = Row.ANDAR if procedure.start is StartRule.ANDAR else None
        return _mix([(Fraction(1), _deal(_Pile(2, 2, 24, 24), procedure.start, andar))])
    colours = [centre] if centre is not None else [Colour.BLACK, Colour.RED]
    parts = []
    for colour in colours:
        pile = _Pile(1, 2, 24, 24) if colour is Colour.BLACK else _Pile(2, 1, 24, 24)
        fixed: Row | None = None
        if procedure.start is StartRule.ANDAR:
            fixed = Row.ANDAR
        elif procedure.start is StartRule.CENTRE_COLOUR:
            fixed = Row.of_colour(colour)
        parts.append((Fraction(1, len(colours)), _deal(pile, procedure.start, fixed)))
    return _mix(parts)


@dataclass(frozen=True, slots=True)
class BetOdds:
    """What one bet is worth: P(win), expected return, house edge and spread per unit staked.

    ``second_moment`` is E[R²] of the return R per unit staked (the odds when the bet
    wins, −1 when it loses), from which the variance and standard deviation follow.
    """

    bet: Bet
    given: Colour | None
    probability: Fraction
    pays: str
    expected_return: Fraction
    second_moment: Fraction = Fraction(0)

    @property
    def house_edge(self) -> Fraction:
        """The player's expected loss per unit staked (negative: the player has the edge)."""
        return -self.expected_return

    @property
    def player_advantage(self) -> bool:
        return self.expected_return > 0

    @property
    def variance(self) -> Fraction:
        """The variance of the return per unit staked: E[R²] − E[R]², exactly."""
        return self.second_moment - self.expected_return**2

    @property
    def standard_deviation(self) -> Decimal:
        """The standard deviation per unit staked (the square root of :attr:`variance`).

        An even-money bet won with probability p has 2·√(p(1 − p)), just under 1.
        """
        return sqrt_decimal(self.variance)

    @property
    def hit_every(self) -> Fraction | None:
        """The bet wins once in this many rounds on average (1 / P(win)); ``None`` if never."""
        return 1 / self.probability if self.probability else None

    @property
    def given_text(self) -> str | None:
        """``None`` overall, or ``centre:black`` / ``centre:red`` once the centre is seen."""
        return f"centre:{self.given.value}" if self.given is not None else None

    def to_dict(self) -> dict[str, object]:
        return {
            "bet": str(self.bet),
            "given": self.given_text,
            "probability": str(self.probability),
            "pays": self.pays,
            "expected_return": str(self.expected_return),
            "house_edge": str(self.house_edge),
            "player_advantage": self.player_advantage,
            "variance": str(self.variance),
            "standard_deviation": f"{self.standard_deviation:.6f}",
            "hit_every": str(self.hit_every) if self.hit_every is not None else None,
        }


def sqrt_decimal(value: Fraction, places: int = 12) -> Decimal:
    """√value rounded half-even to *places* decimals (a square root is rarely a fraction).

    >>> sqrt_decimal(Fraction(1, 4)), sqrt_decimal(Fraction(2), 5)
    (Decimal('0.500000000000'), Decimal('1.41421'))
    """
    with localcontext() as context:
        context.prec = 40
        root = (Decimal(value.numerator) / Decimal(value.denominator)).sqrt()
        return root.quantize(Decimal(1).scaleb(-places))


def bet_odds(
    bet: Bet, paytable: Paytable, distribution: OutcomeDistribution, given: Colour | None = None
) -> BetOdds:
    """The exact worth of *bet* under *paytable* for the outcome *distribution*.

    Expected return per unit staked: Σ P(win in outcome) × odds − P(lose).
    Rounding to the chip unit is not applied: the figures are per unit staked
    (:mod:`andar_bahar.chance.rounding` works out a real stake's).

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.engine.bets import MainBet
    >>> andar = bet_odds(MainBet(Row.ANDAR), find_paytable("wizard"),
    ...                  outcome_distribution(find_procedure("classic")))
    >>> andar.house_edge, andar.hit_every, andar.standard_deviation
    (Fraction(179, 8330), Fraction(833, 429), Decimal('0.949572061410'))
    """
    pays = BetPays.of(bet, paytable, distribution)
    return BetOdds(
        bet,
        given,
        pays.probability,
        _pays_text(bet, paytable, given),
        pays.expected_return,
        pays.second_moment,
    )


@dataclass(frozen=True, slots=True)
class BetPays:
    """One bet against one outcome distribution: the chance of winning at each pay the bet
    can be paid (pays by count can differ), and the chance of losing.

    Every figure of a bet follows from it — at exact pays here, at a real stake with
    each win rounded to the chip in :mod:`andar_bahar.chance.rounding`.
    """

    wins: tuple[tuple[Fraction, Fraction], ...]
    """``(pay to 1, probability)`` for every pay the bet can be paid, the smallest first."""
    lose: Fraction

    @classmethod
    def of(cls, bet: Bet, paytable: Paytable, distribution: OutcomeDistribution) -> BetPays:
        if isinstance(bet, CentreBet):  # the centre card alone decides: one pay
            p = centre_probability(bet)
            return cls(((paytable.odds_for(bet, first_row=None).to_one, p),), 1 - p)
        # Integer weights over one common denominator, summed per distinct pay: a fraction
        # is made once per pay, not once per outcome (the same sums, exactly).
        probabilities = distribution.probabilities.items()
        denominator = lcm(*(p.denominator for _, p in probabilities))
        wins: dict[Fraction, int] = {}
        lose = 0
        for (first, winner, k), p in probabilities:
            weight = p.numerator * (denominator // p.denominator)
            if bet.wins(winner=winner, cards_dealt=k):
                x = paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one
                wins[x] = wins.get(x, 0) + weight
            else:
                lose += weight
        return cls(
            tuple((x, Fraction(w, denominator)) for x, w in sorted(wins.items())),
            Fraction(lose, denominator),
        )

    @property
    def probability(self) -> Fraction:
        """P(win)."""
        return sum((p for _, p in self.wins), Fraction(0))

    @property
    def expected_return(self) -> Fraction:
        """Σ P(win at a pay) × pay − P(lose), per unit staked at exact pays."""
        return sum((p * x for x, p in self.wins), Fraction(0)) - self.lose

    @property
    def second_moment(self) -> Fraction:
        """E[R²] of the return R per unit staked: Σ P × pay² + P(lose)."""
        return sum((p * x * x for x, p in self.wins), Fraction(0)) + self.lose


_ONE_OF: dict[CentreKind, Suit | Colour | Rank] = {
    CentreKind.SUIT: Suit.SPADES,
    CentreKind.COLOUR: Colour.BLACK,
    CentreKind.RANK: Rank.ACE,
}


def centre_probability(bet: CentreBet) -> Fraction:
    """P(*bet* wins): the share of the 52 cards on which it wins, counted card by card (for
    the row of a named kind, that of each one of its bets — they are alike).

    >>> [str(centre_probability(CentreBet(kind))) for kind in CentreKind]
    ['1/4', '1/2', '1/13', '6/13', '1/13', '6/13']
    """
    one = bet if bet.placeable else CentreBet(bet.kind, _ONE_OF[bet.kind])
    return Fraction(sum(one.wins_on(card) for card in FULL_DECK), len(FULL_DECK))


def _pays_text(bet: Bet, paytable: Paytable, given: Colour | None) -> str:
    return str(paytable.pays_text(bet))


@dataclass(frozen=True, slots=True)
class OddsReport:
    """The exact odds of every bet of a paytable under a procedure and bet window."""

    procedure: Procedure
    paytable: Paytable
    distribution: OutcomeDistribution
    bets: tuple[BetOdds, ...]

    @property
    def warnings(self) -> tuple[BetOdds, ...]:
        """Every bet on which the player, not the house, has the edge."""
        return tuple(b for b in self.bets if b.player_advantage)

    def warning_messages(
        self, *, procedure: object | None = None, paytable: object | None = None
    ) -> list[Message]:
        """A warning for every bet on which the player has the edge, naming the procedure
        and the paytable as *procedure* and *paytable* (a screen's titles), or by name."""
        return [
            Message(
                N_(
                    "Warning: with the procedure '{procedure}' and the paytable '{paytable}'"
                    " the player has the edge on {bet}{given}: it returns {edge} per unit"
                    " staked on average."
                ),
                procedure=self.procedure.name if procedure is None else procedure,
                paytable=self.paytable.name if paytable is None else paytable,
                bet=b.bet,
                given=Given(b.given),
                edge=Percent(b.expected_return, signed=True),
            )
            for b in self.warnings
        ]

    def to_dict(self) -> dict[str, object]:
        """The ``odds --format json`` contract."""
        return {
            "procedure": self.procedure.to_dict(),
            "paytable": self.paytable.name,
            "bets": [b.to_dict() for b in self.bets],
            "cards_dealt": {str(k): str(p) for k, p in self.distribution.cards_dealt.items()},
            "mean_cards_dealt": str(self.distribution.mean_cards_dealt),
            "warnings": [str(m) for m in self.warning_messages()],
        }


class Given:
    """`` once the centre card is black`` in a sentence (empty when nothing is seen yet)."""

    def __init__(self, colour: Colour | None) -> None:
        self.colour = colour

    def localized(self, translator: Translator | None) -> str:
        if self.colour is None:
            return ""
        return Message(N_(" once the centre card is {colour}"), colour=self.colour).localized(
            translator
        )


class Percent:
    """A fraction shown as a percentage with two decimals (display only)."""

    def __init__(self, value: Fraction, *, signed: bool = False) -> None:
        self.value = value
        self.signed = signed

    def localized(self, translator: Translator | None) -> str:
        return percent_text(self.value, translator, signed=self.signed)


def percent_text(value: Fraction, translator: Translator | None, *, signed: bool = False) -> str:
    """``+1.23 %``: an exact fraction rounded half-even to two decimals of a percent.

    >>> percent_text(Fraction(179, 8330), None)
    '2.15 %'
    """
    hundredths = round(value * 10000)
    sign = "-" if hundredths < 0 else ("+" if signed and hundredths > 0 else "")
    whole, part = divmod(abs(hundredths), 100)
    return f"{sign}{whole}{decimal_sign(translator)}{part:02d} %"


def odds_report(
    procedure: Procedure, paytable: Paytable, *, window: BetWindow | None = None
) -> OddsReport:
    """Every bet of *paytable* under *procedure*: overall, and per centre colour where
    bets stay open after the centre card and its colour changes the odds. The bets on the
    centre card close when it is turned (so are shown overall only), and a procedure
    without a centre card has none.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> report = odds_report(find_procedure("home"), find_paytable("trainer-default"))
    >>> [(str(b.bet), b.given_text, str(b.probability)) for b in report.bets[:2]]
    [('andar', None, '1/2'), ('bahar', None, '1/2')]
    >>> [(str(b.bet), b.given_text, str(b.probability)) for b in report.bets if b.given]
    [('andar', 'centre:black', '429/833'), ('bahar', 'centre:black', '404/833'), ('andar', 'centre:red', '404/833'), ('bahar', 'centre:red', '429/833')]
    >>> [(str(b.bet), b.given_text) for b in report.warnings]  # doctest: +NORMALIZE_WHITESPACE
    [('cards:1-5', None), ('cards:6-10', None), ('cards:11-15', None), ('cards:16-25', None),
     ('bahar', 'centre:red')]
    """
    rules = procedure.replace(window=window) if window is not None else procedure
    overall = outcome_distribution(rules)
    on_deal = [bet for bet in paytable.bets if not isinstance(bet, CentreBet)]
    overall_bets = [bet_odds(bet, paytable, overall) for bet in on_deal]
    bets = list(overall_bets)
    if rules.window is BetWindow.AFTER_CENTRE and rules.has_centre:
        for colour in Colour:
            given = outcome_distribution(rules, centre=colour)
            for bet, whole in zip(on_deal, overall_bets, strict=True):
                odds = bet_odds(bet, paytable, given, colour)
                if (odds.probability, odds.expected_return) != (
                    whole.probability,
                    whole.expected_return,
                ):
                    bets.append(odds)
    if rules.has_centre:  # last: the bets on the centre card, open only before it
        bets += [bet_odds(b, paytable, overall) for b in paytable.bets if b not in on_deal]
    return OddsReport(rules, paytable, overall, tuple(bets))
