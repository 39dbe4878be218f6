"""Text for people about a designed paytable: the table of pays and edges — exact, and the
lowest and highest over the stakes the table allows — and its TOML file.

>>> from andar_bahar.chance.design import EdgeRange, design_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> design = design_paytable(find_procedure("classic"), edge=EdgeRange.parse("1%-5%"))
>>> print(design_toml(design).splitlines()[0])
# Designed by andar-bahar for the procedure classic: every bet's house edge between 1.00 % and 5.00 % at every stake of 13 or more.
>>> from andar_bahar.engine.paytables import load_paytable
>>> load_paytable(design_toml(design)) == design.paytable
True
"""

from __future__ import annotations

from andar_bahar.chance.design import Design
from andar_bahar.chance.odds import Percent, percent_text
from andar_bahar.engine.bets import MainBet
from andar_bahar.engine.money import Amount
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate
from andar_bahar.reports.odds_tables import render_given
from andar_bahar.reports.report import AndList, table_text

__all__ = ["design_headline", "design_notes", "design_toml", "render_design"]


def design_headline(design: Design) -> Message:
    """What the table was designed for and at which stakes, how many bets it leaves out —
    or, when Andar or Bahar cannot be served, that no table is designed."""
    procedure, low, high = (
        design.procedure.name,
        Percent(design.edge.low),
        Percent(design.edge.high),
    )
    if design.refused:
        refused = [u.bet for u in design.unreachable if isinstance(u.bet, MainBet)]
        return Message(
            N_(
                "No table designed for the procedure {procedure}: no pay on the step keeps"
                " {bets} between {low} and {high} at every stake the table allows."
            ),
            bets=AndList(refused),
            procedure=procedure,
            low=low,
            high=high,
        )
    stakes = _stakes(design)
    if not design.unreachable:
        return Message(
            N_(
                "Designed by andar-bahar for the procedure {procedure}: every bet's house"
                " edge between {low} and {high} at every stake {stakes}."
            ),
            stakes=stakes,
            procedure=procedure,
            low=low,
            high=high,
        )
    return Message(
        NP_(
            "Designed by andar-bahar for the procedure {procedure}: every bet's house edge"
            " between {low} and {high} at every stake {stakes}, except {n} bet that no pay"
            " on the step keeps there.",
            "Designed by andar-bahar for the procedure {procedure}: every bet's house edge"
            " between {low} and {high} at every stake {stakes}, except {n} bets that no pay"
            " on the step keeps there.",
        ),
        n=len(design.unreachable),
        stakes=stakes,
        procedure=procedure,
        low=low,
        high=high,
    )


def _stakes(design: Design) -> Message:
    """``of 13 or more`` / ``from 25 to 5000``: the stakes the designed table allows."""
    low = design.amount(design.stakes.first)
    if design.stakes.last is None:
        return Message(N_("of {min} or more"), min=low)
    return Message(N_("from {min} to {max}"), min=low, max=design.amount(design.stakes.last))


def design_notes(design: Design) -> list[Message]:
    """The notes under the table: :meth:`Design.messages` (how the main bets are keyed,
    each bet it cannot serve, the bets left out, the minimum it raised), then what rounding
    still does at the stakes the table allows (not of a refused design: there is no table)."""
    if design.refused:
        return design.messages()
    return [*design.messages(), *design.rounding.messages()]


def render_design(design: Design, translator: Translator | None = None) -> str:
    """The designed pays, each bet's exact house edge in every situation and its lowest and
    highest over the stakes the table allows (with the stake), and what is missing. Amounts
    are written as the messages write them (no grouping), so that one number reads one way."""
    t = translator
    table = design.paytable
    lines = [
        design_headline(design).localized(t),
        Message(N_("Procedure: {procedure}"), procedure=design.procedure.describe(t)).localized(t),
        Message(
            N_("Wins are paid in chips of {chip}, {rule}; the stake is returned with the win."),
            chip=Amount(table.chip),
            rule=table.rounding,
        ).localized(t),
        "",
    ]
    headers = [
        translate(text, t)
        for text in (
            N_("bet"),
            N_("when"),
            N_("pays"),
            N_("house edge"),
            N_("lowest (stake)"),
            N_("highest (stake)"),
        )
    ]
    rows = [
        [
            row.bet.localized(t),
            render_given(odds, design.report, t),
            table.pays_text(row.bet).localized(t),
            percent_text(row.house_edge, t),
            f"{percent_text(row.lowest, t)} ({Amount(row.lowest_at).localized(t)})",
            f"{percent_text(row.highest, t)} ({Amount(row.highest_at).localized(t)})",
        ]
        for row, odds in zip(design.rows, design.report.bets, strict=True)
    ]
    lines.append(table_text(headers, rows))
    notes = [m.localized(t) for m in design_notes(design)]
    if notes:
        lines.extend(["", *notes])
    return "\n".join(lines)


def design_toml(design: Design, translator: Translator | None = None) -> str:
    """The designed paytable as a club's TOML file, its comments saying what was not reached."""
    t = translator
    comments = [
        design_headline(design).localized(t),
        *(m.localized(t) for m in design_notes(design)),
    ]
    header = "".join(f"# {line}\n" for line in comments)
    return header + "\n" + design.paytable.to_toml(as_written=True)
