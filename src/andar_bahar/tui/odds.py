"""The odds screen: exact odds and house edge of a table, its warnings, a chart.

The tables and warnings here are also shown before a club table opens.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Input, Select, Static

from andar_bahar.engine.bets import Bet, CentreBet, MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import MainKey, Paytable
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.games.wording import paytable_title, procedure_title
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.common import Note, button, literal, tr
from andar_bahar.tui.rules_form import (
    FILE_FIELDS,
    awaited_file,
    compose_rules,
    read_rules,
    reveal_file_field,
    select_refused_file,
    sync_rules,
)
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.chance.odds import OddsReport

__all__ = [
    "OddsScreen",
    "checked",
    "limits_text",
    "odds_table",
    "pays_text",
    "report",
    "rounding_messages",
    "text_chart",
    "warning_messages",
    "when_text",
]

_BAR = 40


def pays_text(bet: Bet, paytable: Paytable, translator: Translator | None) -> str:
    """What *bet* pays "to 1"; main bets keyed by the first row say both figures."""
    if isinstance(bet, MainBet) and paytable.keyed_by is MainKey.FIRST_ROW:
        return Message(
            N_("{first} if dealt first, else {second}"),
            first=paytable.main[0],
            second=paytable.main[1],
        ).localized(translator)
    return paytable.odds_for(bet, first_row=Row.ANDAR).localized(translator)


def when_text(given: Colour | None, translator: Translator | None, bet: Bet | None = None) -> str:
    """When a bet's odds hold: any centre card, once its colour is seen, or (a bet on the
    centre card itself) before it is turned."""
    if isinstance(bet, CentreBet):
        return Message(N_("before centre")).localized(translator)
    if given is None:
        return Message(N_("any centre")).localized(translator)
    return Message(N_("centre {colour}"), colour=given).localized(translator)


def odds_table(report: OddsReport, translator: Translator | None, *, id: str) -> Table:
    """Every bet: when, the chance, the pay, the house edge; ◀ marks the player's edge
    (explained under the table: see :func:`report_lines`)."""
    from andar_bahar.chance.odds import percent_text

    t = translator
    headers = [
        Message(m).localized(t)
        for m in (N_("bet"), N_("when"), N_("chance"), N_("pays"), N_("house edge"))
    ]
    rows = [
        [
            odds.bet.localized(t),
            when_text(odds.given, t, odds.bet),
            percent_text(odds.probability, t),
            pays_text(odds.bet, report.paytable, t),
            percent_text(odds.house_edge, t) + (" ◀" if odds.player_advantage else "  "),
        ]
        for odds in report.bets
    ]
    return Table(headers, rows, right=(2, 4), focusable=True, id=id)


def warning_messages(report: OddsReport) -> list[Message]:
    """A warning for every bet on which the player has the edge, naming the table as shown."""
    return report.warning_messages(
        procedure=_Title(report.procedure), paytable=_Title(report.paytable)
    )


class _Title:
    def __init__(self, rules: Procedure | Paytable) -> None:
        self.rules = rules

    def localized(self, translator: Translator | None) -> str:
        if isinstance(self.rules, Procedure):
            return procedure_title(self.rules.name, translator)
        return paytable_title(self.rules, translator)


def limits_text(paytable: Paytable, translator: Translator | None) -> str:
    """The chip, its rounding and the table limits in one sentence."""
    lang = language_of(translator)
    chip = Message(
        N_("Wins are paid in chips of {chip}, {rule}; the stake is returned with the win."),
        chip=format_number(paytable.chip, lang),
        rule=paytable.rounding,
    ).localized(translator)
    if paytable.min_stake is None and paytable.max_stake is None:
        return chip + " " + Message(N_("No table limits.")).localized(translator)
    return (
        chip
        + " "
        + Message(
            N_("Table limits: {low} to {high}."),
            low=format_number(paytable.min_stake, lang) if paytable.min_stake is not None else "—",
            high=format_number(paytable.max_stake, lang) if paytable.max_stake is not None else "—",
        ).localized(translator)
    )


def text_chart(report: OddsReport, translator: Translator | None) -> str:
    """The distribution of cards dealt as bars of █, grouped by the paytable's bands."""
    from andar_bahar.chance.odds import percent_text

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


def mean_text(report: OddsReport, translator: Translator | None) -> str:
    """The mean number of cards dealt, to two decimals in the user's style, and exactly."""
    mean = report.distribution.mean_cards_dealt
    rounded = as_decimal((Decimal(mean.numerator) / mean.denominator).quantize(Decimal("0.01")))
    return Message(
        N_("Cards dealt: {mean} on average (exact: {exact})."),
        mean=format_number(rounded, language_of(translator)),
        exact=str(mean),
    ).localized(translator)


def report_lines(
    report: OddsReport, translator: Translator | None, rounding: Iterable[Message] = ()
) -> Iterable[str]:
    """The sentences under the odds table: the mean count, the limits, the warnings (the
    odds' own, then what rounding to the chip does at real stakes)."""
    if any(odds.player_advantage for odds in report.bets):
        yield Message(N_("◀ marks a bet on which the player has the edge.")).localized(translator)
    yield mean_text(report, translator)
    yield limits_text(report.paytable, translator)
    warnings = warning_messages(report)
    if not warnings:
        yield Message(
            N_("No bet favours the player: the house has the edge on every bet.")
        ).localized(translator)
    for warning in [*warnings, *rounding]:
        yield warning.localized(translator)


class OddsScreen(TrainerScreen):
    """Choose a procedure, a paytable and a bet window; see what every bet is worth."""

    TITLE_TEXT = N_("Odds")
    DEFAULT_CSS = """
    OddsScreen #results { height: auto; min-height: 3; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.report: OddsReport | None = None
        self.rounding: list[Message] = []
        self.error: AndarBaharError | None = None
        self.busy = False

    def compose_body(self) -> ComposeResult:
        yield from compose_rules(self)
        yield button(tr(self, Message(N_("Show the odds"))), "show", variant="primary")
        yield Note(id="error")
        with Vertical(id="results"):
            yield from self._results()

    def _results(self) -> ComposeResult:
        report = self.report
        if report is not None:
            t = self.t
            yield Static(
                literal(
                    Message(
                        N_("{procedure}; paytable: {paytable}"),
                        procedure=_Title(report.procedure),
                        paytable=_Title(report.paytable),
                    ).localized(t)
                ),
                classes="title",
            )
            yield odds_table(report, t, id="odds")
            for line in report_lines(report, t, self.rounding):
                yield Static(literal(line), classes="hint")
            yield Static(literal(text_chart(report, t)), id="chart")

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#procedure", Select))
        self.compute()

    def sync(self) -> None:
        sync_rules(self)
        self.query_one("#error", Note).say(self.error)
        self.query_one("#results").loading = self.busy

    def on_select_changed(self, event: Select.Changed) -> None:
        """Each choice shows its odds at once (a club's file once its path is typed)."""
        sync_rules(self)
        if awaited_file(self) is None:
            self.compute()
        else:
            self.error = None
            self.sync()
        reveal_file_field(self, event)

    def on_input_changed(self, event: Input.Changed) -> None:
        """A path refused is being typed again: its sentence goes."""
        if event.input.id in FILE_FIELDS and self.error is not None:
            self.error = None
            self.sync()

    def on_input_submitted(self) -> None:
        self.compute()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "show":
            self.compute()

    def compute(self) -> None:
        """Work the odds out on a worker thread; the screen stays usable meanwhile."""
        try:
            procedure, paytable = read_rules(self)
        except AndarBaharError as refused:
            self.error = refused
            self.sync()
            select_refused_file(self)
            return
        self.error, self.busy = None, True
        self.sync()
        self.run_worker(
            lambda: checked(procedure, paytable), thread=True, exclusive=True, group="odds"
        )

    async def on_worker_state_changed(self, event) -> None:  # type: ignore[no-untyped-def]
        from textual.worker import WorkerState

        if event.worker.group != "odds" or event.state is not WorkerState.SUCCESS:
            return
        (self.report, self.rounding), self.busy = event.worker.result, False
        await self.refill("#results", self._results())
        self.sync()


def rounding_messages(report: OddsReport) -> list[Message]:
    """What rounding to the chip does at the stakes the table allows, and the minimum to set."""
    from andar_bahar.chance.rounding import rounding_check

    return rounding_check(report).messages()


def checked(procedure: Procedure, paytable: Paytable) -> tuple[OddsReport, list[Message]]:
    """The exact odds and the rounding warnings of a table (on a worker thread)."""
    odds = report(procedure, paytable)
    return odds, rounding_messages(odds)


def report(procedure: Procedure, paytable: Paytable) -> OddsReport:
    """The exact odds of every bet (imported when first needed: a quick start-up)."""
    from andar_bahar.chance.odds import odds_report

    return odds_report(procedure, paytable)
