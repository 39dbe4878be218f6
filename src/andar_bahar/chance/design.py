"""Design a club's paytable for its procedure: pays on the club's step that keep every
bet's house edge inside a target range, in every situation a player can see when betting,
at every stake the table allows.

A paytable belongs to a procedure: the rows are not equally likely, and where bets stay
open after the centre card its colour can change who is favoured. A table also pays in
chips: a win of stake × pay is rounded to the chip by the table's rule, so at small stakes
a bet is worth more or less than its exact odds say. The designer works from the exact
outcome distribution of :mod:`andar_bahar.chance.odds` and the edge at every stake of
:mod:`andar_bahar.chance.stake_edges` (searched as :mod:`andar_bahar.chance.design_search`
says):

- each bet's exact edge is linear in its pay, so the pays that keep it in range form an
  interval per situation (overall, and per centre colour when that is seen before the bets
  close); each pay on the step in it is then followed through every stake from the table
  minimum to its maximum, wins rounded as the table rounds them, and the smallest minimum
  from which the edge stays in range is found from the structure of the rounded wins;
- the table minimum is the smallest that lets every bet be served (raised above the club's
  own where rounding requires it, and said so), and each bet takes, of the pays that serve
  it from there, the one whose overall edge is nearest the middle of the range;
- when one pay per row cannot serve both centre colours (the colour start rule with bets
  open after the centre: Andar wins 429/833 or 404/833), the main bets are keyed by the row
  dealt first, which paytables support;
- the bets on the centre card the base table offers are designed as the side bets are, each
  kind at one pay (they close before the centre card, so only the overall odds count: a suit
  wins 1/4, a colour 1/2, a rank or seven 1/13, low or high 6/13); a procedure without a
  centre card leaves them out, and says so;
- a side bet no pay on the step serves is left out of the table; when Andar or Bahar cannot
  be served the design is refused (:attr:`Design.refused`): a table must offer both, and a
  pay outside the range is not what was asked for. Either way each such bet is named, with
  the nearest pay found and the stakes it misses (or, when no pay's exact edge reaches the
  range, the closest pays on each side).

``andar-bahar paytable design`` calls :func:`design_paytable`, and so do the web's and the
terminal's "design a table for this procedure":

>>> from andar_bahar.engine.rules import find_procedure
>>> design = design_paytable(find_procedure("classic"), edge=EdgeRange.parse("1%-5%"))
>>> [(str(row.bet), row.pays, str(row.house_edge)) for row in design.rows[:2]]
[('andar', '0.9 to 1', '179/8330'), ('bahar', '1 to 1', '25/833')]
>>> design.unreachable, design.paytable.min_stake   # chip 1, rounded down: 12 pays 10
((), Decimal('13'))
>>> home = design_paytable(find_procedure("home"), edge=EdgeRange.parse("1%-5%"))
>>> home.paytable.keyed_by.value, [str(o) for o in home.paytable.main]
('first-row', ['0.9 to 1', '1 to 1'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance.design_inputs import DEFAULT_BANDS, EdgeRange, OddsStyle, parse_bands
from andar_bahar.chance.design_messages import Missed, Nearest, Unreachable, exact_nearest
from andar_bahar.chance.design_search import (
    Candidate,
    Grid,
    Line,
    Search,
    Situation,
    band_line,
    centre_line,
    fixed_period,
    main_line,
    union,
)
from andar_bahar.chance.odds import OddsReport, odds_report
from andar_bahar.chance.odds import outcome_distribution as distribution_of
from andar_bahar.chance.rounding import RoundingCheck, bet_pays, rounding_check
from andar_bahar.chance.stake_edges import EdgeProfile, StakeRange, Stakes
from andar_bahar.engine.bets import Bet, CardsBet, CentreBet, MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.money import Amount, as_decimal, format_amount
from andar_bahar.engine.paytables import Band, CentrePays, MainKey, Odds, Paytable
from andar_bahar.engine.rules import BetWindow, Procedure, Row, StartRule
from andar_bahar.i18n.messages import N_, NP_, Localizable, Message

__all__ = [
    "DEFAULT_BANDS",
    "Design",
    "DesignedBet",
    "EdgeRange",
    "Missed",
    "Nearest",
    "OddsStyle",
    "Unreachable",
    "design_paytable",
    "parse_bands",
]

_MAIN = (MainBet(Row.ANDAR), MainBet(Row.BAHAR))


@dataclass(frozen=True, slots=True)
class DesignedBet:
    """One bet of the designed table in one situation: its exact house edge, and the lowest
    and highest edge over the stakes the table allows (each at its smallest stake)."""

    bet: Bet
    given: Colour | None
    pays: str
    house_edge: Fraction
    lowest: Fraction
    lowest_at: Decimal
    highest: Fraction
    highest_at: Decimal

    def to_dict(self) -> dict[str, object]:
        return {
            "bet": str(self.bet),
            "pays": self.pays,
            "house_edge": str(self.house_edge),
            "given": f"centre:{self.given.value}" if self.given is not None else None,
            "at_stakes": {
                "lowest": str(self.lowest),
                "lowest_stake": format_amount(self.lowest_at),
                "highest": str(self.highest),
                "highest_stake": format_amount(self.highest_at),
            },
        }


@dataclass(frozen=True, slots=True)
class Design:
    """A designed paytable, each bet's edge exactly and over the stakes it allows, and the
    bets it cannot serve."""

    procedure: Procedure
    edge: EdgeRange
    step: Fraction
    style: OddsStyle
    paytable: Paytable
    report: OddsReport
    rows: tuple[DesignedBet, ...]
    """Every bet of the table in every situation."""
    unreachable: tuple[Unreachable, ...]
    asked: StakeRange
    """The stakes, in chips, the club's chip and limits allow."""
    stakes: StakeRange
    """The stakes the designed table allows: from its minimum, raised where need be."""
    raised_by: tuple[Bet, ...] = ()
    """The bets for whose sake the table minimum was raised."""
    keyed_for_colour: bool = False
    """True when the designer keyed the main pays by the row dealt first because no pay
    per row fits every centre colour (not because the base table's pays by count are)."""
    centre_dropped: bool = False
    """True when the base offers bets on the centre card and the procedure turns none."""

    @property
    def refused(self) -> bool:
        """True when Andar or Bahar cannot be served: no table is designed."""
        return any(isinstance(u.bet, MainBet) for u in self.unreachable)

    @property
    def raised_min(self) -> bool:
        """True when the designer raised the table minimum above the club's own."""
        return self.stakes.first > self.asked.first

    @property
    def rounding(self) -> RoundingCheck:
        """What rounding to the chip does to the designed table at the stakes it allows."""
        return rounding_check(self.report)

    def amount(self, units: int) -> Amount:
        return Amount(self.paytable.chip * units)

    def messages(self) -> list[Message]:
        """How the main bets are keyed (when the designer keyed them by the row dealt first),
        each bet it cannot serve (one line each), the side bets left out, and the minimum
        it raised. The rounding warnings are :attr:`rounding`'s own."""
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
        out.extend(missing.message() for missing in self.unreachable)
        if self.centre_dropped:
            out.append(
                Message(
                    N_(
                        "The procedure '{name}' turns no centre card: the table leaves out the"
                        " bets on the centre card."
                    ),
                    name=self.procedure.name,
                )
            )
        left_out = [u.bet for u in self.unreachable if not isinstance(u.bet, MainBet)]
        if left_out:
            out.append(
                Message(
                    NP_("The table leaves out {bets}.", "The table leaves out {n} bets: {bets}."),
                    n=len(left_out),
                    bets=left_out,
                )
            )
        if self.raised_min and not self.refused:
            out.append(self._raised())
        return out

    def _raised(self) -> Message:
        if self.asked.first == 1:
            return Message(
                N_(
                    "The table minimum is {min}: at smaller stakes rounding to the chip takes"
                    " {bets} out of the range."
                ),
                min=self.amount(self.stakes.first),
                bets=list(self.raised_by),
            )
        return Message(
            N_(
                "The table minimum is {min}, not {asked}: at smaller stakes rounding to the"
                " chip takes {bets} out of the range."
            ),
            min=self.amount(self.stakes.first),
            asked=self.amount(self.asked.first),
            bets=list(self.raised_by),
        )

    def to_dict(self) -> dict[str, object]:
        """The ``paytable design --format json`` contract: exact fractions as strings."""
        table = self.paytable
        return {
            "procedure": self.procedure.to_dict(),
            "edge": {"low": str(self.edge.low), "high": str(self.edge.high)},
            "step": str(self.step),
            "odds_style": self.style.value,
            "refused": self.refused,
            "stakes": {
                "chip": format_amount(table.chip),
                "rounding": table.rounding.value,
                "min": str(self.amount(self.stakes.first)),
                "max": None if self.stakes.last is None else str(self.amount(self.stakes.last)),
                "min_asked": str(self.amount(self.asked.first)),
            },
            "bets": [row.to_dict() for row in self.rows],
            "unreachable": [u.to_dict() for u in self.unreachable],
            "paytable": table.to_dict(as_written=True),
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
    """Pays for Andar, Bahar, every band and every kind of bet on the centre card the base
    offers that keep each bet's house edge in *edge* at every stake the table allows.

    *step* is the club's step in its *style* ("0.5" to 1, or "for 1"). *base* (optional)
    gives the chip, rounding rule, limits, any pays by count to keep and the kinds of bet
    on the centre card to offer; the designed table's ``[limits] min`` is raised where
    rounding would take a bet out of the range.
    """
    if step <= 0 or step > 1000:
        raise ParameterError(
            Message(N_("The step must be above 0 and at most 1000, not {step}."), step=step)
        )
    grid = Grid(step, style)
    bands = tuple(bands) if bands is not None else parse_bands(DEFAULT_BANDS)
    base = base or Paytable(name="base", main=(Odds.parse(1), Odds.parse(1)))
    asked = StakeRange.of(base)
    if asked.empty:
        raise ParameterError(
            Message(
                N_(
                    "The table allows no stake: no whole number of chips of {chip} lies"
                    " between its minimum {min} and maximum {max}."
                ),
                chip=Amount(base.chip),
                min=Amount(base.min_stake or base.chip),
                max=Amount(base.max_stake or base.chip),
            )
        )
    situations = _situations(procedure)
    keyed_by, main = _main_searches(procedure, base, situations, edge, grid, asked)
    side = [
        (band, _search([band_line(band, s) for s in situations], edge, grid, base, asked))
        for band in bands
    ]
    centre = [
        (bet, _search([centre_line(bet)], edge, grid, base, asked))
        for bet in base.bets
        if isinstance(bet, CentreBet) and procedure.has_centre
    ]
    units = [*zip(_bets_of(keyed_by, main), main, strict=True), *side, *centre]
    needs = [(bets, search.best_need) for bets, search in units]
    minimum = max([asked.first, *(need for _, need in needs if need is not None)])
    if any(search.best_need is None for search in main):
        minimum, needs = asked.first, []  # refused: no table, its stakes left as asked
    table = _table(base, procedure, edge, name, keyed_by, main, [*side, *centre], grid, minimum)
    stakes = asked.from_stake(minimum)
    report = odds_report(procedure, table)
    return Design(
        procedure,
        edge,
        step,
        style,
        table,
        report,
        _rows(report, stakes),
        tuple(_unreachable(table, units, grid, minimum, asked)),
        asked,
        stakes,
        raised_by=tuple(_raised_by(needs, asked)),
        keyed_for_colour=keyed_by is MainKey.FIRST_ROW and not base.main_by_count,
        centre_dropped=bool(base.centre) and not procedure.has_centre,
    )


def _situations(rules: Procedure) -> list[Situation]:
    found = [Situation(None, distribution_of(rules))]
    if rules.has_centre and rules.window is BetWindow.AFTER_CENTRE:
        found += [Situation(c, distribution_of(rules, centre=c)) for c in Colour]
    return found


def _search(
    lines: Sequence[Line], edge: EdgeRange, grid: Grid, base: Paytable, stakes: StakeRange
) -> Search:
    return Search(lines, edge, grid, base.rounding, stakes, fixed_period(lines))


def _main_searches(
    procedure: Procedure,
    base: Paytable,
    situations: Sequence[Situation],
    edge: EdgeRange,
    grid: Grid,
    stakes: StakeRange,
) -> tuple[MainKey, list[Search]]:
    """Row-keyed pays if they serve; else keyed by the row dealt first if those do; else
    the first way tried (the base's own when its pays by count are keyed so), refused."""
    keys = [base.keyed_by] if base.main_by_count else [MainKey.ROW, MainKey.FIRST_ROW]
    if procedure.start is StartRule.ANDAR and MainKey.ROW in keys:
        keys = [MainKey.ROW]  # the first row is always Andar: both keys are the same table
    tried: list[tuple[MainKey, list[Search]]] = []
    for keyed_by in keys:
        lines = [[main_line(b, keyed_by, base, s) for s in situations] for b in _MAIN]
        if keyed_by is MainKey.FIRST_ROW:
            searches = [_search([*lines[0], *lines[1]], edge, grid, base, stakes)]
        else:
            searches = [
                _search([ln.only(slot) for ln in lines[slot]], edge, grid, base, stakes)
                for slot in (0, 1)
            ]
        if all(s.best_need is not None for s in searches):
            return keyed_by, searches
        tried.append((keyed_by, searches))
    return tried[0]


def _bets_of(keyed_by: MainKey, searches: Sequence[Search]) -> list[Bet | tuple[Bet, ...]]:
    """What each main search designs: one bet each, or both (keyed by the first row)."""
    if keyed_by is MainKey.FIRST_ROW:
        return [_MAIN]
    return list(_MAIN[: len(searches)])


def _table(
    base: Paytable,
    procedure: Procedure,
    edge: EdgeRange,
    name: str | None,
    keyed_by: MainKey,
    main: Sequence[Search],
    side: Sequence[tuple[CardsBet | CentreBet, Search]],
    grid: Grid,
    minimum: int,
) -> Paytable:
    """The designed table: each search's choice at *minimum*; a main bet no pay serves at
    its nearest pay (the design is then refused); a side bet (on the cards dealt or the
    centre card) no pay serves left out."""
    pays: list[Odds] = []
    for search in main:
        chosen = search.choose(minimum) or search.nearest()
        if chosen is not None:
            pays += [grid.odds(k) for k in chosen.ks]
        elif search.pair:
            pays += list(base.main)
        else:
            below, _ = exact_nearest(search.lines, edge, grid)
            pays.append(below.odds if below is not None else grid.odds(grid.first()))
    designed, centre = [], []
    for bet, search in side:
        chosen = search.choose(minimum)
        if chosen is not None and isinstance(bet, CentreBet):
            centre.append(CentrePays(bet.kind, grid.odds(chosen.ks[0])))
        elif chosen is not None and isinstance(bet, CardsBet):
            designed.append(Band(bet, grid.odds(chosen.ks[0])))
    low, high = _percent(edge.low), _percent(edge.high)
    return replace(
        base,
        name=name or f"designed for {procedure.name}",
        main=(pays[0], pays[1]),
        keyed_by=keyed_by,
        bands=tuple(designed),
        centre=tuple(centre),
        min_stake=base.chip * minimum if minimum > StakeRange.of(base).first else base.min_stake,
        source=f"andar-bahar paytable design --edge {low}-{high}",
    )


def _rows(report: OddsReport, stakes: StakeRange) -> tuple[DesignedBet, ...]:
    rows = []
    chip, rule = report.paytable.chip, report.paytable.rounding
    for odds in report.bets:
        low, high = EdgeProfile(bet_pays(report, odds), rule, stakes).extremes()
        rows.append(
            DesignedBet(
                odds.bet,
                odds.given,
                odds.pays,
                odds.house_edge,
                low.edge,
                as_decimal(chip * low.stake),
                high.edge,
                as_decimal(chip * high.stake),
            )
        )
    return tuple(rows)


def _unreachable(
    table: Paytable,
    units: Sequence[tuple[Bet | tuple[Bet, ...], Search]],
    grid: Grid,
    minimum: int,
    asked: StakeRange,
) -> list[Unreachable]:
    """Each bet no pay serves: the nearest pay and the stakes it misses, or the closest
    pays on each side when no pay's exact edge reaches the range."""
    out = []
    for bets, search in units:
        if search.choose(minimum) is not None:
            continue
        nearest = search.nearest()
        for index, bet in enumerate(bets if isinstance(bets, tuple) else (bets,)):
            if nearest is None:
                if search.pair:
                    out.append(Unreachable(bet, None, None))
                else:
                    out.append(Unreachable(bet, *exact_nearest(search.lines, search.edge, grid)))
                continue
            count = len(search.lines) // (2 if search.pair else 1)
            lines = search.lines[index * count :][:count]
            shown = table.pays_text(bet) if isinstance(bet, MainBet) else grid.odds(nearest.ks[0])
            missed = _missed(search, nearest, lines, shown, table.chip, asked)
            out.append(Unreachable(bet, None, None, missed))
    return out


def _missed(
    search: Search,
    nearest: Candidate,
    lines: Sequence[Line],
    shown: Localizable,
    chip: Decimal,
    asked: StakeRange,
) -> Missed:
    profiles = [search.profile(line, nearest.pays) for line in lines]
    extremes = [p.extremes() for p in profiles]
    misses = union(p.misses(search.edge.low, search.edge.high) for p in profiles)
    return Missed(
        shown,
        min(low.edge for low, _ in extremes),
        max(high.edge for _, high in extremes),
        Stakes.of(misses, chip, asked),
    )


def _raised_by(
    needs: Sequence[tuple[Bet | tuple[Bet, ...], int | None]], asked: StakeRange
) -> list[Bet]:
    raised: list[Bet] = []
    for bets, need in needs:
        if need is not None and need > asked.first:
            raised += list(bets) if isinstance(bets, tuple) else [bets]
    return raised


def _percent(value: Fraction) -> str:
    return format_amount(as_decimal(Decimal(value.numerator * 100) / value.denominator)) + "%"
