"""The odds screen: exact odds and house edge of a table, its warnings, a chart."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from andar_bahar.chance.odds import OddsReport, odds_report, percent_text
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.rules import PROCEDURES, BetWindow
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.reports.odds_tables import render_odds
from andar_bahar.tui.common import tr, trainer

__all__ = ["OddsScreen", "text_chart"]

_BAR = 40


def text_chart(report: OddsReport, translator: Translator | None) -> str:
    """The distribution of cards dealt as bars of █, grouped by the paytable's bands."""
    lines = [Message(N_("Cards dealt — chance of each band:")).localized(translator)]
    bands = report.paytable.bands
    groups = [(band.label, band.bet.low, band.bet.high) for band in bands] or [
        (f"{k}", k, k) for k in report.distribution.cards_dealt
    ]
    chances = [report.distribution.probability_of_band(low, high) for _, low, high in groups]
    top = max(chances)
    for (label, _, _), chance in zip(groups, chances, strict=True):
        bar = "█" * max(1, round(chance / top * _BAR))
        lines.append(f"{label:>6} {bar} {percent_text(chance, translator)}")
    return "\n".join(lines)


class OddsScreen(Screen[None]):
    """Choose a procedure, a paytable and a bet window; see what every bet is worth."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Odds"))), classes="title")
            with Horizontal(classes="row"):
                yield Select(
                    [(name, name) for name in PROCEDURES],
                    value="classic",
                    allow_blank=False,
                    id="procedure",
                )
                yield Input(value="trainer-default", id="paytable")
                yield Select(
                    [(w.value, w.value) for w in BetWindow],
                    value="after-centre",
                    allow_blank=False,
                    id="window",
                )
                yield Button(tr(self, Message(N_("Show"))), id="show", variant="primary")
            yield Label("", id="error", classes="error")
            yield Static("", id="table")
            yield Static("", id="chart")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "show":
            self.show()

    def show(self) -> None:
        t = trainer(self).translator
        error = self.query_one("#error", Label)
        try:
            procedure = PROCEDURES[str(self.query_one("#procedure", Select).value)]
            paytable = read_paytable(
                self.query_one("#paytable", Input).value.strip() or procedure.paytable
            )
            window = BetWindow(str(self.query_one("#window", Select).value))
            report = odds_report(procedure, paytable, window=window)
        except AndarBaharError as refused:
            error.update(refused.localized(t))
            return
        error.update("")
        self.query_one("#table", Static).update(render_odds(report, t))
        self.query_one("#chart", Static).update(text_chart(report, t))
