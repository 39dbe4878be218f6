"""Design a club's paytable for its procedure: pays on the club's step that keep every bet's
exact house edge inside a target range, in every situation a player can see when betting.

A paytable belongs to a procedure (seed 000 §06): the rows are not equally likely, and
where bets stay open after the centre card its colour can change who is favoured. The
designer works from the exact outcome distribution of :mod:`andar_bahar.chance.odds`:

- each bet's return is linear in its pay, so the pays that keep its edge in range form
  an interval per situation (overall, and per centre colour when that is seen before
  the bets close); the designer takes the pay on the step whose edge lies nearest the
  middle of the range;
- when one pay per row cannot serve both centre colours (the colour start rule with
  bets open after the centre: Andar wins 429/833 or 404/833), the main bets are keyed
  by the row dealt first, which paytables support;
- where no pay on the step fits, the bet is *unreachable*: the closest pays on each side
  are given with their edges.

``andar-bahar paytable design`` calls :func:`design_paytable`, and so can a table-creation
screen that offers "design a table for this procedure":

>>> from andar_bahar.engine.rules import find_procedure
>>> design = design_paytable(find_procedure("classic"), edge=EdgeRange.parse("1%-5%"))
>>> [(str(row.bet), row.pays, str(row.house_edge)) for row in design.rows[:2]]
[('andar', '0.9 to 1', '179/8330'), ('bahar', '1 to 1', '25/833')]
>>> design.unreachable
()
>>> home = design_paytable(find_procedure("home"), edge=EdgeRange.parse("1%-5%"))
>>> home.paytable.keyed_by.value, [str(o) for o in home.paytable.main]
('first-row', ['0.9 to 1', '1 to 1'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance.design_inputs import DEFAULT_BANDS, EdgeRange, OddsStyle, parse_bands
from andar_bahar.chance.odds import OddsReport, OutcomeDistribution, Percent, odds_report
from andar_bahar.chance.odds import outcome_distribution as distribution_of
from andar_bahar.chance.rounding import RoundingCheck, rounding_check
from andar_bahar.engine.bets import Bet, CardsBet, MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import as_decimal, format_amount
from andar_bahar.engine.paytables import MAX_ODDS, Band, MainKey, Odds, Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, Row, StartRule
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "DEFAULT_BANDS",
    "Design",
    "DesignedBet",
    "EdgeRange",
    "Nearest",
    "OddsStyle",
    "Unreachable",
    "design_paytable",
    "parse_bands",
]

# -- the exact worth of a pay ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Situation:
    """What a player can see when betting: nothing yet, or the centre card's colour."""

    given: Colour | None
    distribution: OutcomeDistribution


@dataclass(frozen=True, slots=True)
class _Linear:
    """A bet's return in one situation as ``Σ coefficient × pay + fixed − lose``."""

    given: Colour | None
    coefficients: tuple[Fraction, ...]
    fixed: Fraction
    lose: Fraction

    def edge(self, pays: Sequence[Fraction]) -> Fraction:
        value = sum((c * x for c, x in zip(self.coefficients, pays, strict=True)), Fraction(0))
        return self.lose - self.fixed - value


def _situations(rules: Procedure) -> list[_Situation]:
    found = [_Situation(None, distribution_of(rules))]
    if rules.has_centre and rules.window is BetWindow.AFTER_CENTRE:
        found += [_Situation(c, distribution_of(rules, centre=c)) for c in Colour]
    return found


def _main_linear(bet: MainBet, keyed_by: MainKey, base: Paytable, situation: _Situation) -> _Linear:
    """Andar/Bahar in one situation; variables (Andar, Bahar) or (first row, other row)."""
    coefficients = [Fraction(0), Fraction(0)]
    fixed = lose = Fraction(0)
    for (first, winner, k), p in situation.distribution.probabilities.items():
        if not bet.wins(winner=winner, cards_dealt=k):
            lose += p
            continue
        if keyed_by is MainKey.ROW:
            slot = 0 if bet.row is Row.ANDAR else 1
        else:
            slot = 0 if winner is first else 1
        special = next(
            (c.main[slot] for c in base.main_by_count if c.covers(k) and c.main[slot]), None
        )
        if special is not None:
            fixed += p * special.to_one
        else:
            coefficients[slot] += p
    return _Linear(situation.given, tuple(coefficients), fixed, lose)


def _band_linear(bet: CardsBet, situation: _Situation) -> _Linear:
    win = situation.distribution.probability_of_band(bet.low, bet.high)
    return _Linear(situation.given, (win,), Fraction(0), 1 - win)


# -- pays on the step ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Grid:
    """The pays a club can write: multiples of *step* in its style, paying more than nothing."""

    step: Fraction
    style: OddsStyle

    def offset(self) -> Fraction:
        return Fraction(1) if self.style is OddsStyle.FOR else Fraction(0)

    def to_one(self, k: int) -> Fraction:
        return k * self.step - self.offset()

    def first(self) -> int:
        """The smallest k that pays more than nothing."""
        return math.floor(self.offset() / self.step) + 1

    def at_least(self, x: Fraction) -> int:
        return max(self.first(), math.ceil((x + self.offset()) / self.step))

    def at_most(self, x: Fraction) -> int:
        return math.floor((x + self.offset()) / self.step)

    def odds(self, k: int) -> Odds:
        number = format_amount(as_decimal(Decimal(k * self.step.numerator) / self.step.denominator))
        return Odds.parse(f"{number} {self.style.value} 1")

    @property
    def last(self) -> int:
        return self.at_most(Fraction(MAX_ODDS))


def _interval(lines: Sequence[_Linear], edge: EdgeRange) -> tuple[Fraction, Fraction] | None:
    """The pays x with every line's edge in range (one variable): [low, high], or None."""
    low, high = Fraction(0), Fraction(MAX_ODDS)
    for line in lines:
        c = line.coefficients[0]
        base = line.lose - line.fixed
        if c == 0:
            if base not in edge:
                return None
            continue
        low = max(low, (base - edge.high) / c)
        high = min(high, (base - edge.low) / c)
    return (low, high) if low <= high else None


@dataclass(frozen=True, slots=True)
class Nearest:
    """A pay just outside what the range allows, with its edge overall and in each
    situation where that differs."""

    odds: Odds
    edges: tuple[tuple[Colour | None, Fraction], ...]


@dataclass(frozen=True, slots=True)
class Unreachable:
    """A bet no pay on the step keeps in range: the closest pays on each side."""

    bet: Bet
    below: Nearest | None
    """The largest pay that gives the house at least the lower edge everywhere."""
    above: Nearest | None
    """The smallest pay that gives the house at most the upper edge everywhere."""

    def message(self) -> Message:
        if self.below is None and self.above is None:
            return Message(
                N_(
                    "No pair of pays on the step, keyed by the row dealt first as the base"
                    " table's pays by count are, keeps {bet} in the range."
                ),
                bet=self.bet,
            )
        parts = [
            Message(N_("{odds} (house edge {edges})"), odds=n.odds, edges=_Edges(n.edges))
            for n in (self.below, self.above)
            if n is not None
        ]
        return Message(
            N_("No pay on the step keeps {bet} in the range; the closest: {choices}."),
            bet=self.bet,
            choices=_Or(parts),
        )


class _Edges:
    def __init__(self, edges: Sequence[tuple[Colour | None, Fraction]]) -> None:
        self.edges = edges

    def localized(self, translator: Translator | None) -> str:
        if len(self.edges) == 1:
            return Percent(self.edges[0][1]).localized(translator)
        parts = []
        for given, edge in self.edges:
            where = (
                Message(N_("any centre"))
                if given is None
                else Message(N_("centre {colour}"), colour=given)
            )
            parts.append(f"{Percent(edge).localized(translator)} {where.localized(translator)}")
        return ", ".join(parts)


class _Or:
    def __init__(self, parts: Sequence[Message]) -> None:
        self.parts = parts

    def localized(self, translator: Translator | None) -> str:
        joiner = Message(N_(" or ")).localized(translator)
        return joiner.join(p.localized(translator) for p in self.parts)


def _nearest(lines: Sequence[_Linear], grid: _Grid, k: int) -> Nearest | None:
    if not grid.first() <= k <= grid.last:
        return None
    x = grid.to_one(k)
    edges = [(line.given, line.edge([x])) for line in lines]
    overall = edges[0][1]
    return Nearest(grid.odds(k), (edges[0], *(e for e in edges[1:] if e[1] != overall)))


def _solve_one(
    bet: Bet, lines: Sequence[_Linear], edge: EdgeRange, grid: _Grid
) -> Odds | Unreachable:
    """The pay on the step whose overall edge is nearest the middle, or the nearest misses."""
    bounds = _interval(lines, edge)
    if bounds is not None:
        low, high = bounds
        choices = range(grid.at_least(low), grid.at_most(high) + 1)
        if choices:
            best = min(choices, key=lambda k: abs(lines[0].edge([grid.to_one(k)]) - edge.middle))
            return grid.odds(best)
    # the edge falls as the pay rises: below = every edge ≥ low, above = every edge ≤ high
    need_low = max(
        (
            (ln.lose - ln.fixed - edge.high) / ln.coefficients[0]
            for ln in lines
            if ln.coefficients[0]
        ),
        default=Fraction(0),
    )
    need_high = min(
        (
            (ln.lose - ln.fixed - edge.low) / ln.coefficients[0]
            for ln in lines
            if ln.coefficients[0]
        ),
        default=Fraction(MAX_ODDS),
    )
    below_k = grid.at_most(min(need_high, need_low))
    if grid.to_one(below_k) >= need_low:
        below_k -= 1
    above_k = grid.at_least(max(need_low, need_high))
    if grid.to_one(above_k) <= need_high:
        above_k += 1
    return Unreachable(bet, _nearest(lines, grid, below_k), _nearest(lines, grid, above_k))


def _solve_two(lines: Sequence[_Linear], edge: EdgeRange, grid: _Grid) -> tuple[Odds, Odds] | None:
    """Pays (first row, other row) that keep every line in range, as even as they can be."""
    best: tuple[tuple[Fraction, Fraction], int, int] | None = None
    top = max(
        (
            (ln.lose - ln.fixed - edge.low) / ln.coefficients[0]
            for ln in lines
            if ln.coefficients[0]
        ),
        default=Fraction(0),
    )
    for k in range(grid.first(), min(grid.at_most(top), grid.last) + 1):
        x = grid.to_one(k)
        rest = [
            _Linear(ln.given, (ln.coefficients[1],), ln.fixed + ln.coefficients[0] * x, ln.lose)
            for ln in lines
        ]
        bounds = _interval(rest, edge)
        if bounds is None:
            continue
        for j in range(grid.at_least(bounds[0]), grid.at_most(bounds[1]) + 1):
            pays = (x, grid.to_one(j))
            # the least lopsided pair (a club's table, not a corner of the region), then
            # the one whose edges stay nearest the middle of the range
            score = (abs(pays[0] - pays[1]), max(abs(ln.edge(pays) - edge.middle) for ln in lines))
            if best is None or score < best[0]:
                best = (score, k, j)
    return None if best is None else (grid.odds(best[1]), grid.odds(best[2]))


# -- the design ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DesignedBet:
    """One bet of the designed table and its exact house edge in one situation."""

    bet: Bet
    given: Colour | None
    pays: str
    house_edge: Fraction

    def to_dict(self) -> dict[str, object]:
        return {
            "bet": str(self.bet),
            "pays": self.pays,
            "house_edge": str(self.house_edge),
            "given": f"centre:{self.given.value}" if self.given is not None else None,
        }


@dataclass(frozen=True, slots=True)
class Design:
    """A designed paytable, the exact edge of each of its bets, and the bets it cannot reach."""

    procedure: Procedure
    edge: EdgeRange
    step: Fraction
    style: OddsStyle
    paytable: Paytable
    report: OddsReport
    unreachable: tuple[Unreachable, ...]
    raised_min: bool = False
    """True when the designer set ``[limits] min`` so that rounding harms no stake."""
    keyed_for_colour: bool = False
    """True when the designer keyed the main pays by the row dealt first because no pay
    per row fits every centre colour (not because the base table's pays by count are)."""

    @property
    def rounding(self) -> RoundingCheck:
        """What rounding to the chip does to the designed table at the stakes it allows."""
        return rounding_check(self.report)

    @property
    def rows(self) -> tuple[DesignedBet, ...]:
        """Every bet of the table in every situation, with its pay and exact house edge."""
        return tuple(DesignedBet(b.bet, b.given, b.pays, b.house_edge) for b in self.report.bets)

    def messages(self) -> list[Message]:
        """How the main bets are keyed (when the designer keyed them by the row dealt first),
        each unreachable bet and what the table does with it (Andar and Bahar kept at a pay,
        bands left out). The rounding warnings are :attr:`rounding`'s own."""
        out: list[Message] = []
        if self.keyed_for_colour:
            out.append(
                Message(
                    N_(
                        "No single pay per row on this step keeps every centre colour in the"
                        " range, so the main bets are keyed by the row dealt first."
                    )
                )
            )
        left_out = []
        for missing in self.unreachable:
            out.append(missing.message())
            if isinstance(missing.bet, MainBet):
                kept = next(b for b in self.report.bets if b.bet == missing.bet)
                out.append(
                    Message(
                        N_(
                            "A table always offers {bet}: this one pays {odds} (house edge {edge})."
                        ),
                        bet=missing.bet,
                        odds=self.paytable.pays_text(missing.bet),
                        edge=Percent(kept.house_edge),
                    )
                )
            else:
                left_out.append(missing.bet)
        if left_out:
            out.append(
                Message(
                    NP_(
                        "The table leaves out {bets}.",
                        "The table leaves out {n} bets: {bets}.",
                    ),
                    n=len(left_out),
                    bets=left_out,
                )
            )
        return out

    def to_dict(self) -> dict[str, object]:
        """The ``paytable design --format json`` contract: exact fractions as strings."""
        return {
            "procedure": self.procedure.to_dict(),
            "edge": {"low": str(self.edge.low), "high": str(self.edge.high)},
            "step": str(self.step),
            "odds_style": self.style.value,
            "bets": [row.to_dict() for row in self.rows],
            "unreachable": [
                {
                    "bet": str(u.bet),
                    "nearest": [
                        {
                            "pays": str(n.odds),
                            "house_edge": str(e),
                            "given": f"centre:{g.value}" if g is not None else None,
                        }
                        for n in (u.below, u.above)
                        if n is not None
                        for g, e in n.edges
                    ],
                }
                for u in self.unreachable
            ],
            "paytable": self.paytable.to_dict(as_written=True),
        }


def design_paytable(
    procedure: Procedure,
    *,
    edge: EdgeRange,
    bands: Sequence[CardsBet] | None = None,
    step: Fraction = Fraction(1, 20),
    style: OddsStyle = OddsStyle.TO,
    base: Paytable | None = None,
    name: str | None = None,
) -> Design:
    """Pays for Andar, Bahar and every band that keep each bet's house edge in *edge*.

    *step* is the club's step in its *style* ("0.5" to 1, or "for 1"). *base* (optional)
    gives the chip, rounding rule, limits and any pays by count to keep; the designed
    table's ``[limits] min`` is raised where rounding would harm small stakes.
    """
    if step <= 0 or step > 1000:
        raise ParameterError(
            Message(N_("The step must be above 0 and at most 1000, not {step}."), step=step)
        )
    grid = _Grid(step, style)
    bands = tuple(bands) if bands is not None else parse_bands(DEFAULT_BANDS)
    base = base or Paytable(name="base", main=(Odds.parse(1), Odds.parse(1)))
    situations = _situations(procedure)
    unreachable: list[Unreachable] = []
    keyed_by, main = _design_main(procedure, base, situations, edge, grid, unreachable)
    designed_bands = []
    for band in bands:
        solved = _solve_one(band, [_band_linear(band, s) for s in situations], edge, grid)
        if isinstance(solved, Unreachable):
            unreachable.append(solved)
        else:
            designed_bands.append(Band(band, solved))
    table = replace(
        base,
        name=name or f"designed for {procedure.name}",
        main=main,
        keyed_by=keyed_by,
        bands=tuple(designed_bands),
        source=f"andar-bahar paytable design --edge {_percent(edge.low)}-{_percent(edge.high)}",
    )
    safe = _with_safe_minimum(table, procedure)
    return Design(
        procedure,
        edge,
        step,
        style,
        safe,
        odds_report(procedure, safe),
        tuple(unreachable),
        raised_min=safe.min_stake != table.min_stake,
        keyed_for_colour=keyed_by is MainKey.FIRST_ROW and not base.main_by_count,
    )


def _design_main(
    procedure: Procedure,
    base: Paytable,
    situations: Sequence[_Situation],
    edge: EdgeRange,
    grid: _Grid,
    unreachable: list[Unreachable],
) -> tuple[MainKey, tuple[Odds, Odds]]:
    """Row-keyed pays if they fit; else keyed by the row dealt first if those fit."""
    bets = (MainBet(Row.ANDAR), MainBet(Row.BAHAR))
    keys = [base.keyed_by] if base.main_by_count else [MainKey.ROW, MainKey.FIRST_ROW]
    if procedure.start is StartRule.ANDAR and MainKey.ROW in keys:
        keys = [MainKey.ROW]  # the first row is always Andar: both keys are the same table
    for keyed_by in keys:
        lines = [_main_linear(b, keyed_by, base, s) for b in bets for s in situations]
        if keyed_by is MainKey.FIRST_ROW:
            pair = _solve_two(lines, edge, grid)
            if pair is not None:
                return keyed_by, pair
            continue
        solved = [
            _solve_one(
                b,
                [_single(ln, slot) for ln in lines[i * len(situations) :][: len(situations)]],
                edge,
                grid,
            )
            for i, (b, slot) in enumerate(zip(bets, (0, 1), strict=True))
        ]
        if all(isinstance(s, Odds) for s in solved):
            return keyed_by, (solved[0], solved[1])  # type: ignore[return-value]
    if keys == [MainKey.FIRST_ROW]:
        # the base's pays by count are keyed by the row dealt first, so the table must be
        # too: no pair fits, and the club's own main pays are kept, said to be out of range
        unreachable.extend(Unreachable(bet, None, None) for bet in bets)
        return MainKey.FIRST_ROW, base.main
    # nothing fits: row-keyed, the unreachable bets at their nearest house-side pay
    lines = [_main_linear(b, MainKey.ROW, base, s) for b in bets for s in situations]
    pays: list[Odds] = []
    for i, bet in enumerate(bets):
        mine = [_single(ln, i) for ln in lines[i * len(situations) :][: len(situations)]]
        solved_one = _solve_one(bet, mine, edge, grid)
        if isinstance(solved_one, Unreachable):
            # a table must offer both main bets: the closest pay on the house's side, or
            # the smallest pay on the step when even that leaves the house too little
            unreachable.append(solved_one)
            below = solved_one.below
            pays.append(below.odds if below is not None else grid.odds(grid.first()))
        else:
            pays.append(solved_one)
    return MainKey.ROW, (pays[0], pays[1])


def _single(line: _Linear, slot: int) -> _Linear:
    """A row-keyed main bet's line with only its own pay as the variable."""
    return _Linear(line.given, (line.coefficients[slot],), line.fixed, line.lose)


def _with_safe_minimum(table: Paytable, procedure: Procedure) -> Paytable:
    minimum = rounding_check(odds_report(procedure, table)).recommended_min
    if minimum is None:
        return table
    if table.max_stake is not None and minimum > table.max_stake:
        return table
    return replace(table, min_stake=minimum)


def _percent(value: Fraction) -> str:
    return format_amount(as_decimal(Decimal(value.numerator * 100) / value.denominator)) + "%"
