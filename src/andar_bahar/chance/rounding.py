"""What chip rounding does to a bet at a real stake, and the table minimum that avoids harm.

The odds of :mod:`andar_bahar.chance.odds` are per unit staked, as if every win were
paid exactly. A club pays in chips: a win of stake × odds is rounded to the chip by
the paytable's rule. At small stakes that changes a bet's worth a great deal — with
the default rule (round down) a 1-chip Andar win at 0.9 to 1 pays nothing; rounding
up pays a 1-to-9-chip Andar stake 1 to 1 and hands the player the edge. This module
works out, exactly, what each bet returns at a stake *N*, the stakes at which rounding
makes a winning bet pay nothing and those at which the player has the edge (for every bet,
whatever its exact odds), and the smallest table minimum (``[limits] min``) that avoids
both. The stakes are found from the structure of the rounded wins, not by trying each
one (:mod:`andar_bahar.chance.stake_edges`).

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
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from andar_bahar.chance.odds import (
    BetOdds,
    BetPays,
    Given,
    OddsReport,
    Percent,
    outcome_distribution,
)
from andar_bahar.chance.stake_edges import ENDLESS, EdgeProfile, StakeRange, Stakes
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

LISTED = 10_000
"""The most stakes listed for one risk (the messages show the first few runs)."""


def bet_pays(report: OddsReport, odds: BetOdds) -> BetPays:
    """What *odds*' bet can be paid, in its situation, under *report*'s paytable."""
    distribution = (
        report.distribution
        if odds.given is None
        else outcome_distribution(report.procedure, centre=odds.given)
    )
    return BetPays.of(odds.bet, report.paytable, distribution)


def _pays_nothing(pays: BetPays, units: int, rounding: Rounding) -> bool:
    return any(rounding.apply(units * x) == 0 for x, _ in pays.wins)


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
        pays = bet_pays(report, odds)
        edge = EdgeProfile(pays, paytable.rounding, StakeRange(units, units)).edge_at(units)
        result.append(
            StakeOdds(
                odds.bet,
                odds.given,
                as_decimal(stake),
                odds.probability,
                -edge,
                odds.expected_return,
                _pays_nothing(pays, units, paytable.rounding),
            )
        )
    return tuple(result)


@dataclass(frozen=True, slots=True)
class RoundingRisk:
    """Where rounding harms one bet (in one situation) at the stakes the table allows."""

    bet: Bet
    given: Colour | None
    nominal_return: Fraction
    pays_nothing: Stakes
    """Stakes at which a winning bet is paid nothing (always the smallest stakes)."""
    player_edge: Stakes
    """Stakes at which, wins rounded, the player has the edge (whatever the exact odds say)."""
    best_return: Fraction
    """The player's best return per unit staked among :attr:`player_edge` (0 if none)."""
    safe_from: int | None
    """The smallest stake in chips from which on no stake is harmed (``None``: none)."""

    @property
    def harmful(self) -> bool:
        return bool(self.pays_nothing or self.player_edge)


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
            if risk.pays_nothing and nothing not in said:
                said.add(nothing)  # the same whatever the centre: said once per bet
                out.append(
                    Message(
                        NP_(
                            "Rounding: a winning bet on {bet}{given} can be paid nothing at a"
                            " stake of {stakes} (wins {rule}, chip {chip}).",
                            "Rounding: a winning bet on {bet}{given} can be paid nothing at"
                            " stakes of {stakes} (wins {rule}, chip {chip}).",
                        ),
                        n=risk.pays_nothing.plural,
                        bet=risk.bet,
                        given=given,
                        stakes=risk.pays_nothing,
                        rule=table.rounding,
                        chip=Amount(table.chip),
                    )
                )
            if risk.player_edge:
                out.append(_player_edge_message(risk, given))
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
            out.append(self._no_minimum())
        return out

    def _no_minimum(self) -> Message:
        """Why no table minimum helps: the exact pays, or the rounding rule."""
        endless = [r for r in self.risks if r.safe_from is None]
        if all(r.nominal_return > 0 for r in endless):
            return Message(
                N_(
                    "No table minimum avoids it: at the exact pays the player has the edge on"
                    " {bets}, so larger stakes keep it; lower the pays."
                ),
                bets=_Bets(endless),
            )
        return Message(
            N_(
                "No table minimum avoids it: with wins {rule}, some stakes of every size"
                " give the player the edge; round wins down or lower the pays."
            ),
            rule=self.report.paytable.rounding,
        )


def _player_edge_message(risk: RoundingRisk, given: Given) -> Message:
    if risk.nominal_return > 0:  # the exact odds already favour the player
        forms = NP_(
            "Rounding: at a stake of {stakes} the player has the edge on {bet}{given}: up"
            " to {best} per unit staked (the exact odds give the player {edge}).",
            "Rounding: at stakes of {stakes} the player has the edge on {bet}{given}: up"
            " to {best} per unit staked (the exact odds give the player {edge}).",
        )
    else:
        forms = NP_(
            "Rounding: at a stake of {stakes} the player has the edge on"
            " {bet}{given}: up to {best} per unit staked (the odds give the"
            " house {edge}).",
            "Rounding: at stakes of {stakes} the player has the edge on"
            " {bet}{given}: up to {best} per unit staked (the odds give the"
            " house {edge}).",
        )
    return Message(
        forms,
        n=risk.player_edge.plural,
        stakes=risk.player_edge,
        bet=risk.bet,
        given=given,
        best=Percent(risk.best_return, signed=True),
        edge=Percent(abs(risk.nominal_return), signed=risk.nominal_return > 0),
    )


class _Bets:
    """The bets of some risks: ``Andar, Bahar once the centre card is red``."""

    def __init__(self, risks: Sequence[RoundingRisk]) -> None:
        self.risks = risks

    def localized(self, translator: Translator | None) -> str:
        return ", ".join(
            r.bet.localized(translator) + Given(r.given).localized(translator) for r in self.risks
        )


def rounding_check(report: OddsReport) -> RoundingCheck:
    """Where rounding to the chip harms each bet of *report*, at every stake the table allows.

    A stake is harmed when a winning bet is paid nothing, or when, wins rounded, the
    player has the edge — on every bet, whatever its exact odds (a bet the exact odds give
    the player is also warned about by the odds report).
    """
    stakes = StakeRange.of(report.paytable)
    risks = []
    for odds in report.bets:
        risk = _risk(odds, bet_pays(report, odds), report.paytable, stakes)
        if risk.harmful:
            risks.append(risk)
    return RoundingCheck(report, tuple(risks))


def _risk(odds: BetOdds, pays: BetPays, paytable: Paytable, stakes: StakeRange) -> RoundingRisk:
    rule = paytable.rounding
    below = _zero_pay_limit(pays.wins, rule)
    top = below if stakes.last is None else min(below, stakes.last + 1)
    nothing = range(stakes.first, top)  # a win pays nothing at the smallest stakes only
    profile = EdgeProfile(pays, rule, stakes)
    edge = Stakes.of(profile.misses(Fraction(0), None, limit=LISTED), paytable.chip, stakes)
    worst = profile.last_miss(Fraction(0), None)
    safe_from = None if worst == ENDLESS else max(worst or 0, top - 1) + 1
    lowest = profile.extremes()[0].edge if edge else Fraction(0)
    return RoundingRisk(
        odds.bet,
        odds.given,
        odds.expected_return,
        Stakes(tuple(nothing[:LISTED]), paytable.chip, more=len(nothing) > LISTED),
        edge,
        -lowest,
        safe_from,
    )


def _zero_pay_limit(wins: Sequence[tuple[Fraction, Fraction]], rule: Rounding) -> int:
    """The smallest stake in chips at which every win pays at least one chip."""
    if rule is Rounding.UP or not wins:
        return 1
    smallest = min(x for x, _ in wins)
    # down: k·x ≥ 1 ⇔ k ≥ 1/x; half-up: k·x ≥ 1/2 ⇔ k ≥ 1/(2x)
    need = 1 / smallest if rule is Rounding.DOWN else 1 / (2 * smallest)
    return max(1, math.ceil(need))
