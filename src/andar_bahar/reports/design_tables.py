"""Text for people about a designed paytable: the table of pays and edges, and its TOML file.

>>> from andar_bahar.chance.design import EdgeRange, design_paytable
>>> from andar_bahar.engine.rules import find_procedure
>>> design = design_paytable(find_procedure("classic"), edge=EdgeRange.parse("1%-5%"))
>>> print(design_toml(design).splitlines()[0])
# Designed by andar-bahar for the procedure classic: every bet's house edge between 1.00 % and 5.00 %.
>>> from andar_bahar.engine.paytables import load_paytable
>>> load_paytable(design_toml(design)) == design.paytable
True
"""

from __future__ import annotations

from andar_bahar.chance.design import Design
from andar_bahar.chance.odds import Percent, percent_text
from andar_bahar.engine.money import Amount
from andar_bahar.i18n.messages import N_, NP_, Message, Translator, translate
from andar_bahar.reports.odds_tables import render_given
from andar_bahar.reports.report import table_text

__all__ = ["design_headline", "design_notes", "design_toml", "render_design"]


def design_headline(design: Design) -> Message:
    """What the table was designed for, and how many bets no pay on the step reaches."""
    if not design.unreachable:
        return Message(
            N_(
                "Designed by andar-bahar for the procedure {procedure}: every bet's house"
                " edge between {low} and {high}."
            ),
            procedure=design.procedure.name,
            low=Percent(design.edge.low),
            high=Percent(design.edge.high),
        )
    return Message(
        NP_(
            "Designed by andar-bahar for the procedure {procedure}: every bet's house edge"
            " between {low} and {high}, except {n} bet that no pay on the step keeps there.",
            "Designed by andar-bahar for the procedure {procedure}: every bet's house edge"
            " between {low} and {high}, except {n} bets that no pay on the step keeps there.",
        ),
        n=len(design.unreachable),
        procedure=design.procedure.name,
        low=Percent(design.edge.low),
        high=Percent(design.edge.high),
    )


def design_notes(design: Design) -> list[Message]:
    """The notes under the table: :meth:`Design.messages` (how the main bets are keyed,
    each unreachable bet and what the table does with it), then what rounding still does
    and the minimum the designer set."""
    out = design.messages()
    out.extend(design.rounding.messages())
    if design.raised_min and design.paytable.min_stake is not None:
        out.append(
            Message(
                N_("The table minimum is {min} so that rounding to the chip harms no stake."),
                min=Amount(design.paytable.min_stake),
            )
        )
    return out


def render_design(design: Design, translator: Translator | None = None) -> str:
    """The designed pays, each bet's exact house edge in every situation, and what is missing."""
    t = translator
    lines = [
        design_headline(design).localized(t),
        Message(N_("Procedure: {procedure}"), procedure=design.procedure.describe(t)).localized(t),
        "",
    ]
    headers = [
        translate(text, t)
        for text in (N_("bet"), N_("when"), N_("pays"), N_("house edge"), N_("exact"))
    ]
    rows = [
        [
            odds.bet.localized(t),
            render_given(odds, design.report, t),
            design.paytable.pays_text(odds.bet).localized(t),
            percent_text(odds.house_edge, t),
            str(odds.house_edge),
        ]
        for odds in design.report.bets
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
