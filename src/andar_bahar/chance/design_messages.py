"""What the paytable designer says of a bet it cannot serve: the nearest pay it found and
the stakes that pay misses, or — when no pay on the step has its exact edge in range — the
closest pays on each side with their edges (:mod:`andar_bahar.chance.design`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from andar_bahar.chance.design_inputs import EdgeRange
from andar_bahar.chance.design_search import Grid, Line
from andar_bahar.chance.odds import Percent
from andar_bahar.chance.stake_edges import Stakes
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import MAX_ODDS, Odds
from andar_bahar.i18n.messages import N_, NP_, Localizable, Message, Translator, render

__all__ = ["Missed", "Nearest", "Unreachable", "exact_nearest"]


@dataclass(frozen=True, slots=True)
class Nearest:
    """A pay just outside what the range allows at exact pays, with its edge overall and in
    each situation where that differs."""

    odds: Odds
    edges: tuple[tuple[Colour | None, Fraction], ...]


@dataclass(frozen=True, slots=True)
class Missed:
    """The pay nearest to serving a bet at every stake the table allows: the lowest and
    highest edge it gives over those stakes, and the stakes at which it leaves the range."""

    pays: Localizable
    lowest: Fraction
    highest: Fraction
    stakes: Stakes


@dataclass(frozen=True, slots=True)
class Unreachable:
    """A bet no pay on the step serves: the nearest pay and the stakes it misses, or the
    closest pays on each side at exact pays."""

    bet: Bet
    below: Nearest | None
    """The largest pay that gives the house at least the lower edge everywhere."""
    above: Nearest | None
    """The smallest pay that gives the house at most the upper edge everywhere."""
    missed: Missed | None = None
    """A pay whose exact edges lie in range, but not at every stake the table allows."""

    def message(self) -> Message:
        """One line: which bet, and the nearest the designer found."""
        if self.missed is not None:
            missed = self.missed
            return Message(
                NP_(
                    "No pay on the step keeps {bet} in the range at every stake the table"
                    " allows; the nearest, {pays}, gives {lowest} to {highest} and is out of"
                    " the range at a stake of {stakes}.",
                    "No pay on the step keeps {bet} in the range at every stake the table"
                    " allows; the nearest, {pays}, gives {lowest} to {highest} and is out of"
                    " the range at stakes of {stakes}.",
                ),
                n=missed.stakes.plural,
                bet=self.bet,
                pays=missed.pays,
                lowest=Percent(missed.lowest),
                highest=Percent(missed.highest),
                stakes=missed.stakes,
            )
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

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "bet": str(self.bet),
            "nearest": [
                {
                    "pays": str(n.odds),
                    "house_edge": str(e),
                    "given": f"centre:{g.value}" if g is not None else None,
                }
                for n in (self.below, self.above)
                if n is not None
                for g, e in n.edges
            ],
        }
        if self.missed is not None:
            stakes = self.missed.stakes
            data["at_stakes"] = {
                "pays": render(self.missed.pays, None),
                "lowest": str(self.missed.lowest),
                "highest": str(self.missed.highest),
                "misses": [format_amount(stakes.chip * n) for n in stakes.units],
                "misses_from": None
                if stakes.from_on is None
                else format_amount(stakes.chip * stakes.from_on),
                "more": stakes.more,
            }
        return data


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


def exact_nearest(
    lines: Sequence[Line], edge: EdgeRange, grid: Grid
) -> tuple[Nearest | None, Nearest | None]:
    """The closest pays on each side of the range at exact pays (one variable): the largest
    that gives the house at least the lower edge everywhere, and the smallest that gives it
    at most the upper edge everywhere. The edge falls as the pay rises."""
    need_low = max(
        (
            (ln.lose - ln.base - edge.high) / ln.coefficients[0]
            for ln in lines
            if ln.coefficients[0]
        ),
        default=Fraction(0),
    )
    need_high = min(
        ((ln.lose - ln.base - edge.low) / ln.coefficients[0] for ln in lines if ln.coefficients[0]),
        default=Fraction(MAX_ODDS),
    )
    below_k = grid.at_most(min(need_high, need_low))
    if grid.to_one(below_k) >= need_low:
        below_k -= 1
    above_k = grid.at_least(max(need_low, need_high))
    if grid.to_one(above_k) <= need_high:
        above_k += 1
    return _nearest(lines, grid, below_k), _nearest(lines, grid, above_k)


def _nearest(lines: Sequence[Line], grid: Grid, k: int) -> Nearest | None:
    if not grid.first() <= k <= grid.last:
        return None
    x = grid.to_one(k)
    edges = [(line.given, line.edge([x])) for line in lines]
    overall = edges[0][1]
    return Nearest(grid.odds(k), (edges[0], *(e for e in edges[1:] if e[1] != overall)))
