"""Text for people about chance: the odds table, a simulation, a session study.

Figures are exact fractions until this module rounds them for display
(half-even, stated precision); JSON output keeps the exact fractions.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from andar_bahar.chance.odds import BetOdds, OddsReport, percent_text
from andar_bahar.chance.rounding import RoundingCheck, StakeOdds
from andar_bahar.engine.bets import CentreBet
from andar_bahar.engine.money import Amount, decimal_sign
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate
from andar_bahar.reports.report import AndList, table_text

if TYPE_CHECKING:
    from andar_bahar.chance.simulation import SessionStudy, SimulationResult

__all__ = [
    "odds_csv",
    "render_given",
    "render_odds",
    "render_simulation",
    "render_study",
    "summary_messages",
]


def _t(message: Message, translator: Translator | None) -> str:
    return message.localized(translator)


def render_given(
    odds: BetOdds | StakeOdds, report: OddsReport, translator: Translator | None
) -> str:
    """When the figure holds: ``any centre``, ``centre black``, ``any round`` (no centre) or,
    for a bet on the centre card itself, ``before centre``."""
    if isinstance(odds.bet, CentreBet):
        return _t(Message(N_("before centre")), translator)
    if odds.given is not None:
        return _t(Message(N_("centre {colour}"), colour=odds.given), translator)
    if not report.procedure.has_centre:
        return _t(Message(N_("any round")), translator)
    return _t(Message(N_("any centre")), translator)


def _decimal(value: Fraction, places: int, translator: Translator | None) -> str:
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}{decimal_sign(translator)}{part:0{places}d}"


def _pays(odds: BetOdds, report: OddsReport, translator: Translator | None) -> str:
    return report.paytable.pays_text(odds.bet).localized(translator)


def _hit_every(odds: BetOdds, translator: Translator | None) -> str:
    if odds.hit_every is None:
        return _t(Message(N_("never")), translator)
    return _t(
        Message(N_("1 in {rounds}"), rounds=_decimal(odds.hit_every, 2, translator)), translator
    )


def render_odds(
    report: OddsReport,
    translator: Translator | None = None,
    *,
    stake: Sequence[StakeOdds] = (),
    rounding: RoundingCheck | None = None,
    outside: Message | None = None,
) -> str:
    """The odds table: every bet's chance, pay, expected return, house edge and spread.

    With *stake* (from :func:`~andar_bahar.chance.rounding.stake_odds`) a second table
    gives each bet's worth at that stake, wins rounded as the table pays them, and
    *outside* says when that stake lies outside the table's limits; with *rounding* (from
    :func:`~andar_bahar.chance.rounding.rounding_check`) its warnings follow the others.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.chance.odds import odds_report
    >>> print(render_odds(odds_report(find_procedure("classic"), find_paytable("wizard"))))
    ... # doctest: +ELLIPSIS
    Procedure: classic — ...
    Paytable: wizard
    <BLANKLINE>
    bet                when        chance   exact      pays      return   house edge  std. dev.  hit rate
    -----------------  ----------  -------  ---------  --------  -------  ----------  ---------  -----------
    Andar              any centre  51.50 %  429/833    0.9 to 1  -2.15 %  2.15 %      0.950      1 in 1.94
    Bahar              any centre  48.50 %  404/833    1 to 1    -3.00 %  3.00 %      1.000      1 in 2.06
    ...
    Cards dealt: 13 on average (exact: 13).
    No bet favours the player: the house has the edge on every bet.
    """
    t = translator
    lines = [
        _t(Message(N_("Procedure: {procedure}"), procedure=report.procedure.describe(t)), t),
        _t(Message(N_("Paytable: {name}"), name=report.paytable.name), t),
        "",
        _odds_table(report, t),
    ]
    if stake:
        lines.extend(["", *_stake_table(report, stake, t)])
    if outside is not None:
        lines.append(_t(outside, t))
    lines.append("")
    mean = report.distribution.mean_cards_dealt
    lines.append(
        _t(
            Message(
                N_("Cards dealt: {mean} on average (exact: {exact})."),
                mean=_decimal(mean, 2, t).rstrip("0").rstrip(decimal_sign(t)),
                exact=str(mean),
            ),
            t,
        )
    )
    lines.extend(_t(m, t) for m in _summary(report))
    if rounding is not None:
        lines.extend(_t(m, t) for m in rounding.messages())
    return "\n".join(lines)


def _odds_table(report: OddsReport, t: Translator | None) -> str:
    """Every bet (and situation): chance, pay, return, house edge, spread, hit rate."""
    headers = [
        translate(text, t) if text else ""
        for text in (
            N_("bet"),
            N_("when"),
            N_("chance"),
            N_("exact"),
            N_("pays"),
            N_("return"),
            N_("house edge"),
            N_("std. dev."),
            N_("hit rate"),
            "",
        )
    ]
    rows = []
    for odds in report.bets:
        rows.append(
            [
                odds.bet.localized(t),
                render_given(odds, report, t),
                percent_text(odds.probability, t),
                str(odds.probability),
                _pays(odds, report, t),
                percent_text(odds.expected_return, t),
                percent_text(odds.house_edge, t),
                _decimal(Fraction(odds.standard_deviation), 3, t),
                _hit_every(odds, t),
                _t(Message(N_("◀ player's edge")), t) if odds.player_advantage else "",
            ]
        )
    return table_text(headers, rows)


def summary_messages(report: OddsReport) -> list[Message]:
    """The verdict of *report* in sentences (the web's table creation shows it too)."""
    return _summary(report)


def _summary(report: OddsReport) -> list[Message]:
    """The verdict: a warning per bet that favours the player, or who has the edge."""
    if report.warnings:
        return report.warning_messages()
    fair = [b for b in report.bets if b.expected_return == 0]
    if not fair:
        return [Message(N_("No bet favours the player: the house has the edge on every bet."))]
    if len(fair) == len(report.bets):
        return [Message(N_("No bet favours the player or the house: every bet is exactly fair."))]
    return [
        Message(
            NP_(
                "No bet favours the player; {bets} is exactly fair (no edge either way), the house"
                " has the edge on the others.",
                "No bet favours the player; {bets} are exactly fair (no edge either way), the"
                " house has the edge on the others.",
            ),
            n=len(fair),
            bets=AndList([_BetIn(b, report) for b in fair]),
        )
    ]


class _BetIn:
    """A bet and, where it matters, the situation: ``Bahar`` or ``Bahar (centre red)``."""

    def __init__(self, odds: BetOdds, report: OddsReport) -> None:
        self.odds, self.report = odds, report

    def localized(self, translator: Translator | None) -> str:
        name = self.odds.bet.localized(translator)
        if self.odds.given is None:
            return name
        return f"{name} ({render_given(self.odds, self.report, translator)})"


def _stake_table(report: OddsReport, stake: Sequence[StakeOdds], t: Translator | None) -> list[str]:
    table = report.paytable
    title = Message(
        N_("At a stake of {stake} (wins {rule}, chip {chip}):"),
        stake=Amount(stake[0].stake),
        rule=table.rounding,
        chip=Amount(table.chip),
    )
    headers = [
        translate(text, t) if text else ""
        for text in (N_("bet"), N_("when"), N_("return"), N_("house edge"), N_("exact odds"), "")
    ]
    rows = []
    for odds in stake:
        note = ""
        if odds.pays_nothing:
            note = _t(Message(N_("◀ a win can pay nothing")), t)
        elif odds.player_advantage:
            note = _t(Message(N_("◀ player's edge")), t)
        rows.append(
            [
                odds.bet.localized(t),
                render_given(odds, report, t),
                percent_text(odds.expected_return, t),
                percent_text(odds.house_edge, t),
                percent_text(-odds.nominal_return, t),
                note,
            ]
        )
    return [_t(title, t), table_text(headers, rows)]


def odds_csv(report: OddsReport, stake: Sequence[StakeOdds] = ()) -> str:
    """The odds as CSV, with the JSON field names and exact fractions; with *stake* (from
    :func:`~andar_bahar.chance.rounding.stake_odds`) each bet's worth at that stake too,
    in the columns ``at_stake_…`` (the JSON's ``at_stake`` object, flattened)."""
    import csv
    import io

    buffer = io.StringIO()
    fields = [
        "bet",
        "given",
        "probability",
        "pays",
        "expected_return",
        "house_edge",
        "player_advantage",
        "variance",
        "standard_deviation",
        "hit_every",
    ]
    at_stake = ["stake", "expected_return", "house_edge", "player_advantage", "pays_nothing"]
    if stake:
        fields += [f"at_stake_{name}" for name in at_stake]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for index, odds in enumerate(report.bets):
        row = odds.to_dict()
        row["given"] = row["given"] or ""
        row["hit_every"] = row["hit_every"] or ""
        if stake:
            row.update({f"at_stake_{k}": v for k, v in stake[index].to_dict().items()})
        for key, value in row.items():
            if isinstance(value, bool):
                row[key] = "true" if value else "false"
        writer.writerow(row)
    return buffer.getvalue()


def render_simulation(result: SimulationResult, translator: Translator | None = None) -> str:
    """Per bet: wins, frequency, mean return ± standard error, the exact value, z."""
    t = translator
    lines = [
        _t(Message(N_("Procedure: {procedure}"), procedure=result.procedure.describe(t)), t),
        _t(Message(N_("Paytable: {name}"), name=result.paytable.name), t),
        _t(
            Message(
                N_("{rounds} rounds, seed {seed}, engine: {engine}"),
                rounds=result.rounds,
                seed=result.seed,
                engine=result.engine,
            ),
            t,
        ),
        "",
    ]
    headers = [
        _t(Message(N_("bet")), t),
        _t(Message(N_("rounds won")), t),
        _t(Message(N_("frequency")), t),
        _t(Message(N_("mean return")), t),
        _t(Message(N_("± std. error")), t),
        _t(Message(N_("exact return")), t),
        _t(Message(N_("z")), t),
    ]
    rows = []
    for stats in result.bets:
        rows.append(
            [
                stats.bet.localized(t),
                str(stats.wins),
                percent_text(stats.frequency, t),
                _decimal(stats.mean_return, 5, t),
                _decimal(Fraction(stats.standard_error), 5, t),
                _decimal(stats.exact_return, 5, t),
                _z_text(stats.z_score, t),
            ]
        )
    lines.append(table_text(headers, rows))
    worst = max((abs(s.z_score) for s in result.bets), default=0)
    lines.append("")
    lines.append(
        _t(
            Message(
                N_("Largest |z| = {z}: the simulation agrees with the exact odds.")
                if worst <= 4
                else N_("Largest |z| = {z}: the simulation disagrees with the exact odds!"),
                z=_z_text(Decimal(worst), t),
            ),
            t,
        )
    )
    if result.paytable.centre and result.procedure.has_centre:
        note = N_(
            "The bets on the centre card are not simulated: each wins on a fixed share of the"
            " 52 cards (see their exact odds with 'odds')."
        )
        lines.append(_t(Message(note), t))
    return "\n".join(lines)


def _z_text(z: Decimal, translator: Translator | None) -> str:
    if not z.is_finite():
        return "-∞" if z < 0 else "∞"
    return _decimal(Fraction(z), 2, translator)


def render_study(study: SessionStudy, translator: Translator | None = None) -> str:
    """The distribution of final bankrolls and the chance of ruin."""
    t = translator
    lines = [
        _t(
            Message(
                N_(
                    "{sessions} sessions of up to {rounds} rounds: {system} on {bet}, base stake"
                    " {stake}, bankroll {bankroll}."
                ),
                sessions=study.sessions,
                rounds=study.rounds,
                system=study.system,
                bet=study.bet,
                stake=study.stake,
                bankroll=study.bankroll,
            ),
            t,
        ),
        _t(
            Message(
                N_("Procedure: {procedure}; paytable: {paytable}; seed {seed}; engine: {engine}"),
                procedure=study.procedure.name,
                paytable=study.paytable.name,
                seed=study.seed,
                engine=study.engine,
            ),
            t,
        ),
        "",
        _t(
            Message(
                N_("Ruined (could not cover the base stake): {p}"),
                p=percent_text(study.ruin_probability, t),
            ),
            t,
        ),
        _t(
            Message(
                N_("Average final bankroll: {mean} (started with {start})"),
                mean=_decimal(study.mean_final, 2, t),
                start=study.bankroll,
            ),
            t,
        ),
        _t(
            Message(
                N_("Lost per unit staked: {loss} — the house edge does not go away."),
                loss=percent_text(study.loss_per_unit_staked, t),
            ),
            t,
        ),
        _t(
            Message(
                N_(
                    "Final bankrolls: 5 % ≤ {p05}, 25 % ≤ {p25}, median {p50}, 75 % ≤ {p75}, 95 % ≤ {p95}"
                ),
                p05=study.quantile(Fraction(5, 100)),
                p25=study.quantile(Fraction(1, 4)),
                p50=study.quantile(Fraction(1, 2)),
                p75=study.quantile(Fraction(3, 4)),
                p95=study.quantile(Fraction(95, 100)),
            ),
            t,
        ),
    ]
    return "\n".join(lines)
