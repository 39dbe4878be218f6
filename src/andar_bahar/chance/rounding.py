"""What chip rounding does to a bet at a real stake, and the table minimum that avoids harm.

The odds of :mod:`andar_bahar.chance.odds` are per unit staked, as if every win were
paid exactly. A club pays in chips: a win of stake × odds is rounded to the chip by
the paytable's rule. At small stakes that changes a bet's worth a great deal — with
the default rule (round down) a 1-chip Andar win at 0.9 to 1 pays nothing; rounding
up pays a 1-to-9-chip Andar stake 1 to 1 and hands the player the edge. This module
works out, exactly, what each bet returns at a stake *N*, the stakes at which rounding
makes a winning bet pay nothing or hands the player the edge, and the smallest table
minimum (``[limits] min``) that avoids both.

``andar-bahar odds`` and ``paytable check`` call :func:`rounding_check` and show its
:meth:`RoundingCheck.messages` (a table-creation screen shows the same sentences):

>>> from andar_bahar.chance.odds import odds_report
>>> from andar_bahar.engine.paytables import find_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> import dataclasses
>>> up = dataclasses.replace(find_paytable("wizard"), rounding=Rounding.UP, bands=())
>>> check = rounding_check(odds_report(find_procedure("classic"), up))
>>> for message in check.messages():
...     print(message)
Rounding: at stakes of 1–9, 18–19 the player has the edge on Andar: up to +3.00 % per unit staked (the odds give the house 2.15 %).
Set the table minimum ([limits] min) to 20 or more to avoid these stakes.
>>> check.recommended_min
Decimal('20')
>>> rounding_check(odds_report(find_procedure("classic"), find_paytable("wizard"))).messages()[0]
...     # doctest: +ELLIPSIS
Message(msgid='Rounding: a winning bet on {bet}{given} can be paid nothing at a stake of {stakes}...
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance.odds import BetOdds, Given, OddsReport, Percent, outcome_distribution
from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.money import Amount, as_decimal
from andar_bahar.engine.paytables import Paytable, Rounding
from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "RoundingCheck",
    "RoundingRisk",
    "StakeOdds",
    "Stakes",
    "rounding_check",
    "stake_odds",
]

_SCAN_LIMIT = 10_000
"""Never scan more stakes than this for one bet (a house edge under about 0.01 % with
rounding up); beyond it the risk is reported as having no end."""


@dataclass(frozen=True, slots=True)
class _Pays:
    """One bet in one situation: P(win) at each distinct odds, and P(lose)."""

    wins: tuple[tuple[Fraction, Fraction], ...]
    """(odds to 1, probability) for every odds the bet can be paid at."""
    lose: Fraction

    @classmethod
    def of(cls, bet: Bet, paytable: Paytable, odds: BetOdds, report: OddsReport) -> _Pays:
        distribution = (
            report.distribution
            if odds.given is None
            else outcome_distribution(report.procedure, centre=odds.given)
        )
        wins: dict[Fraction, Fraction] = {}
        lose = Fraction(0)
        for (first, winner, k), p in distribution.probabilities.items():
            if bet.wins(winner=winner, cards_dealt=k):
                x = paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one
                wins[x] = wins.get(x, Fraction(0)) + p
            else:
                lose += p
        return cls(tuple(sorted(wins.items())), lose)

    def expected(self, units: int, rounding: Rounding) -> Fraction:
        """Return per unit staked at a stake of *units* chips, wins rounded to whole chips."""
        total = sum((p * rounding.apply(units * x) for x, p in self.wins), Fraction(0))
        return total / units - self.lose

    def pays_nothing(self, units: int, rounding: Rounding) -> bool:
        return any(rounding.apply(units * x) == 0 for x, _ in self.wins)


@dataclass(frozen=True, slots=True)
class StakeOdds:
    """One bet at a stake of ``stake``: what it returns with wins paid as the table pays them."""

    bet: Bet
    given: Colour | None
    stake: Decimal
    probability: Fraction
    expected_return: Fraction
    """Per unit staked, every win rounded to the chip by the table's rule."""
    nominal_return: Fraction
    """Per unit staked at the exact odds (the figure of :class:`~andar_bahar.chance.odds.BetOdds`)."""
    pays_nothing: bool
    """True when a winning bet at this stake is paid no chips at all."""

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_return

    @property
    def player_advantage(self) -> bool:
        return self.expected_return > 0

    def to_dict(self) -> dict[str, object]:
        return {
            "stake": str(as_decimal(self.stake)),
            "expected_return": str(self.expected_return),
            "house_edge": str(self.house_edge),
            "player_advantage": self.player_advantage,
            "pays_nothing": self.pays_nothing,
        }


def stake_odds(report: OddsReport, stake: Decimal) -> tuple[StakeOdds, ...]:
    """Every bet of *report* (each situation too) at a stake of *stake*, wins as paid.

    *stake* must be a positive whole number of chips.

    >>> from andar_bahar.chance.odds import odds_report
    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> report = odds_report(find_procedure("classic"), find_paytable("wizard"))
    >>> andar = stake_odds(report, Decimal(5))[0]         # 5 × 0.9 = 4.5, paid 4
    >>> andar.house_edge, andar.pays_nothing
    (Fraction(304, 4165), False)
    >>> stake_odds(report, Decimal(1))[0].pays_nothing    # 0.9 rounded down: nothing
    True
    """
    paytable = report.paytable
    paytable.check_chips(stake)
    units = int(stake / paytable.chip)
    result = []
    for odds in report.bets:
        pays = _Pays.of(odds.bet, paytable, odds, report)
        result.append(
            StakeOdds(
                odds.bet,
                odds.given,
                as_decimal(stake),
                odds.probability,
                pays.expected(units, paytable.rounding),
                odds.expected_return,
                pays.pays_nothing(units, paytable.rounding),
            )
        )
    return tuple(result)


@dataclass(frozen=True, slots=True)
class Stakes:
    """Stakes in chips, shown as runs: ``1–9``, ``2, 4–6``, and ``…`` after the sixth run."""

    units: tuple[int, ...]
    chip: Decimal
    endless: bool = False
    """True when the stakes go on without end (only the first few are listed)."""

    def runs(self) -> Iterator[tuple[int, int]]:
        start = previous = None
        for unit in self.units:
            if previous is not None and unit == previous + 1:
                previous = unit
                continue
            if start is not None and previous is not None:
                yield start, previous
            start = previous = unit
        if start is not None and previous is not None:
            yield start, previous

    def localized(self, translator: Translator | None) -> str:
        def amount(units: int) -> str:
            return Amount(self.chip * units).localized(translator)

        runs = list(self.runs())
        parts = [amount(a) if a == b else f"{amount(a)}–{amount(b)}" for a, b in runs[:6]]
        if len(runs) > 6 or self.endless:
            parts.append("…")
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.localized(None)


@dataclass(frozen=True, slots=True)
class RoundingRisk:
    """Where rounding harms one bet (in one situation) at the stakes the table allows."""

    bet: Bet
    given: Colour | None
    nominal_return: Fraction
    pays_nothing: Stakes
    """Stakes at which a winning bet is paid nothing (always the smallest stakes)."""
    player_edge: Stakes
    """Stakes at which rounding turns the house's edge (or a fair bet) into the player's."""
    best_return: Fraction
    """The player's best return per unit staked among :attr:`player_edge` (0 if none)."""

    @property
    def harmful(self) -> bool:
        return bool(self.pays_nothing.units or self.player_edge.units)

    @property
    def safe_from(self) -> int | None:
        """The smallest stake in chips from which on no stake is harmed (``None``: none)."""
        if self.player_edge.endless:
            return None
        worst = max((*self.pays_nothing.units, *self.player_edge.units), default=0)
        return worst + 1


@dataclass(frozen=True, slots=True)
class RoundingCheck:
    """Every bet's rounding risks under a paytable and procedure, and the minimum to set."""

    report: OddsReport
    risks: tuple[RoundingRisk, ...]
    """Only the bets (and situations) that rounding harms at some allowed stake."""

    @property
    def recommended_min(self) -> Decimal | None:
        """The smallest ``[limits] min`` that avoids every risk; ``None`` when none is needed
        or when no minimum avoids them (see :attr:`avoidable`)."""
        if not self.risks or not self.avoidable:
            return None
        units = max(r.safe_from or 0 for r in self.risks)
        return as_decimal(self.report.paytable.chip * units)

    @property
    def avoidable(self) -> bool:
        """False when rounding hands the player the edge at stakes without end."""
        return all(r.safe_from is not None for r in self.risks)

    def messages(self) -> list[Message]:
        """The warnings, one sentence each, then what to do; empty when rounding is harmless."""
        table = self.report.paytable
        out: list[Message] = []
        said: set[tuple[Bet, tuple[int, ...]]] = set()
        for risk in self.risks:
            given = Given(risk.given)
            nothing = (risk.bet, risk.pays_nothing.units)
            if risk.pays_nothing.units and nothing not in said:
                said.add(nothing)  # the same whatever the centre: said once per bet
                out.append(
                    Message(
                        NP_(
                            "Rounding: a winning bet on {bet}{given} can be paid nothing at a"
                            " stake of {stakes} (wins {rule}, chip {chip}).",
                            "Rounding: a winning bet on {bet}{given} can be paid nothing at"
                            " stakes of {stakes} (wins {rule}, chip {chip}).",
                        ),
                        n=len(risk.pays_nothing.units),
                        bet=risk.bet,
                        given=given,
                        stakes=risk.pays_nothing,
                        rule=table.rounding,
                        chip=Amount(table.chip),
                    )
                )
            if risk.player_edge.units:
                out.append(
                    Message(
                        NP_(
                            "Rounding: at a stake of {stakes} the player has the edge on"
                            " {bet}{given}: up to {best} per unit staked (the odds give the"
                            " house {edge}).",
                            "Rounding: at stakes of {stakes} the player has the edge on"
                            " {bet}{given}: up to {best} per unit staked (the odds give the"
                            " house {edge}).",
                        ),
                        n=len(risk.player_edge.units),
                        stakes=risk.player_edge,
                        bet=risk.bet,
                        given=given,
                        best=Percent(risk.best_return, signed=True),
                        edge=Percent(-risk.nominal_return),
                    )
                )
        minimum = self.recommended_min
        if minimum is not None:
            if table.max_stake is not None and minimum > table.max_stake:
                out.append(
                    Message(
                        N_(
                            "Only a table minimum of {min} or more avoids these stakes, above the"
                            " table maximum of {max}: change the pays or the rounding rule."
                        ),
                        min=Amount(minimum),
                        max=Amount(table.max_stake),
                    )
                )
            else:
                out.append(
                    Message(
                        N_(
                            "Set the table minimum ([limits] min) to {min} or more to avoid these"
                            " stakes."
                        ),
                        min=Amount(minimum),
                    )
                )
        elif self.risks:
            out.append(
                Message(
                    N_(
                        "No table minimum avoids it: with wins {rule}, some stakes of every size"
                        " give the player the edge; round wins down or lower the pays."
                    ),
                    rule=table.rounding,
                )
            )
        return out


def rounding_check(report: OddsReport) -> RoundingCheck:
    """Where rounding to the chip harms each bet of *report*, at every stake the table allows.

    A stake is harmed when a winning bet is paid nothing, or when rounding gives the
    player the edge on a bet whose exact odds give it to the house (or to neither).
    Bets the exact odds already give the player are warned about by the odds report.
    """
    paytable = report.paytable
    first = 1
    if paytable.min_stake is not None:
        first = max(1, math.ceil(Fraction(paytable.min_stake) / Fraction(paytable.chip)))
    last = None
    if paytable.max_stake is not None:
        last = math.floor(Fraction(paytable.max_stake) / Fraction(paytable.chip))
    risks = []
    for odds in report.bets:
        if odds.player_advantage:
            continue
        risk = _risk(odds, _Pays.of(odds.bet, paytable, odds, report), paytable, first, last)
        if risk.harmful:
            risks.append(risk)
    return RoundingCheck(report, tuple(risks))


def _risk(
    odds: BetOdds, pays: _Pays, paytable: Paytable, first: int, last: int | None
) -> RoundingRisk:
    rule = paytable.rounding
    nothing_below = _zero_pay_limit(pays.wins, rule)
    end, endless = _player_edge_limit(odds.expected_return, pays, rule)
    top = end if last is None else min(end, last)
    nothing = list(range(first, nothing_below if last is None else min(nothing_below, last + 1)))
    edge: list[int] = []
    best = Fraction(0)
    if rule is not Rounding.DOWN:
        for units in range(first, top + 1):
            value = pays.expected(units, rule)
            if value > 0:
                edge.append(units)
                best = max(best, value)
    endless = endless and (last is None or last > end)
    return RoundingRisk(
        odds.bet,
        odds.given,
        odds.expected_return,
        Stakes(tuple(nothing), paytable.chip),
        Stakes(tuple(edge), paytable.chip, endless=endless and bool(edge)),
        best,
    )


def _zero_pay_limit(wins: Sequence[tuple[Fraction, Fraction]], rule: Rounding) -> int:
    """The smallest stake in chips at which every win pays at least one chip."""
    if rule is Rounding.UP or not wins:
        return 1
    smallest = min(x for x, _ in wins)
    # down: k·x ≥ 1 ⇔ k ≥ 1/x; half-up: k·x ≥ 1/2 ⇔ k ≥ 1/(2x)
    need = 1 / smallest if rule is Rounding.DOWN else 1 / (2 * smallest)
    return max(1, math.ceil(need))


def _player_edge_limit(nominal: Fraction, pays: _Pays, rule: Rounding) -> tuple[int, bool]:
    """The largest stake in chips worth scanning for a player's edge, and whether the
    risk may go on without end.

    Rounding adds at most one chip (rounding up) or half a chip (half-up) to a win,
    so at a stake of k chips it adds at most P(win)·g/k per unit staked: with a house
    edge h > 0 the player can have the edge only while k < P(win)·g/h.
    """
    if rule is Rounding.DOWN:
        return 0, False
    gain = Fraction(1) if rule is Rounding.UP else Fraction(1, 2)
    p_win = sum((p for _, p in pays.wins), Fraction(0))
    edge = -nominal
    if edge <= 0:
        return _SCAN_LIMIT, True
    bound = math.ceil(p_win * gain / edge)
    if bound > _SCAN_LIMIT:
        return _SCAN_LIMIT, True
    return bound, False
