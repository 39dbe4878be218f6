"""Text for people about chance: the odds table, a simulation, a session study.

Figures are exact fractions until this module rounds them for display
(half-even, stated precision); JSON output keeps the exact fractions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from andar_bahar.chance.odds import BetOdds, OddsReport, percent_text
from andar_bahar.engine.bets import MainBet
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.paytables import MainKey
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.reports.report import table_text

if TYPE_CHECKING:
    from andar_bahar.chance.simulation import SessionStudy, SimulationResult

__all__ = ["odds_csv", "render_odds", "render_simulation", "render_study"]


def _t(message: Message, translator: Translator | None) -> str:
    return message.localized(translator)


def _given(odds: BetOdds, translator: Translator | None) -> str:
    if odds.given is None:
        return _t(Message(N_("any centre")), translator)
    return _t(Message(N_("centre {colour}"), colour=odds.given), translator)


def _decimal(value: Fraction, places: int, translator: Translator | None) -> str:
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10**places)
    return f"{sign}{whole}{decimal_sign(translator)}{part:0{places}d}"


def _pays(odds: BetOdds, report: OddsReport, translator: Translator | None) -> str:
    table = report.paytable
    if isinstance(odds.bet, MainBet) and table.keyed_by is MainKey.FIRST_ROW:
        return _t(
            Message(
                N_("{first} if dealt first, else {second}"),
                first=table.main[0],
                second=table.main[1],
            ),
            translator,
        )
    return table.odds_for(odds.bet, first_row=Row.ANDAR).localized(translator)


def render_odds(report: OddsReport, translator: Translator | None = None) -> str:
    """The odds table: every bet's chance, pay, expected return and house edge.

    >>> from andar_bahar.engine.paytables import find_paytable
    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.chance.odds import odds_report
    >>> print(render_odds(odds_report(find_procedure("classic"), find_paytable("wizard"))))
    ... # doctest: +ELLIPSIS
    Procedure: classic — ...
    Paytable: wizard
    <BLANKLINE>
    bet                when        chance   exact      pays      return   house edge
    -----------------  ----------  -------  ---------  --------  -------  ----------
    Andar              any centre  51.50 %  429/833    0.9 to 1  -2.15 %  2.15 %
    Bahar              any centre  48.50 %  404/833    1 to 1    -3.00 %  3.00 %
    ...
    Cards dealt: 13 on average (exact: 13).
    No bet favours the player: the house has the edge on every bet.
    """
    t = translator
    lines = [
        _t(Message(N_("Procedure: {procedure}"), procedure=report.procedure.describe(t)), t),
        _t(Message(N_("Paytable: {name}"), name=report.paytable.name), t),
        "",
    ]
    headers = [
        _t(Message(N_("bet")), t),
        _t(Message(N_("when")), t),
        _t(Message(N_("chance")), t),
        _t(Message(N_("exact")), t),
        _t(Message(N_("pays")), t),
        _t(Message(N_("return")), t),
        _t(Message(N_("house edge")), t),
        "",
    ]
    rows = []
    for odds in report.bets:
        pays = _pays(odds, report, t)
        rows.append(
            [
                odds.bet.localized(t),
                _given(odds, t),
                percent_text(odds.probability, t),
                str(odds.probability),
                pays,
                percent_text(odds.expected_return, t),
                percent_text(odds.house_edge, t),
                _t(Message(N_("◀ player's edge")), t) if odds.player_advantage else "",
            ]
        )
    lines.append(table_text(headers, rows))
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
    if report.warnings:
        lines.extend(_t(m, t) for m in report.warning_messages())
    else:
        lines.append(
            _t(Message(N_("No bet favours the player: the house has the edge on every bet.")), t)
        )
    return "\n".join(lines)


def odds_csv(report: OddsReport) -> str:
    """The odds as CSV, with the JSON field names and exact fractions."""
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
    ]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for odds in report.bets:
        row = odds.to_dict()
        row["given"] = row["given"] or ""
        row["player_advantage"] = "true" if row["player_advantage"] else "false"
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
                _decimal(Fraction(stats.z_score), 2, t),
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
                z=_decimal(Fraction(worst), 2, t),
            ),
            t,
        )
    )
    return "\n".join(lines)


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
