"""Opening a club table: the players and their chips, the rules, and — before it opens —
the table's odds, limits and warnings for exactly that pairing."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Input, Select, Static

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import Bar, Note, button, literal, tr
from andar_bahar.tui.designer import DesignPanel, DesignState, design_table
from andar_bahar.tui.odds import checked, odds_table, report_lines, warning_messages
from andar_bahar.tui.rules_form import (
    DESIGNED,
    FILE_FIELDS,
    awaited_file,
    compose_rules,
    read_procedure_chosen,
    read_rules,
    reveal_file_field,
    select_refused_file,
    sync_rules,
)
from andar_bahar.tui.seating import SeatingScreen
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.chance.odds import OddsReport

__all__ = ["ClubSetup"]


class ClubSetup(SeatingScreen):
    """The players and their chips, the procedure and the club's paytable."""

    TITLE_TEXT = N_("Club game")
    DEFAULT_CSS = """
    ClubSetup #preview { height: auto; min-height: 3; }
    ClubSetup #seat-bar Input { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "start", N_("Open the table")),
        Binding("delete", "remove", N_("Remove the player"), show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.players: dict[str, Decimal] = {}
        self.report: OddsReport | None = None
        self.rules: tuple[Procedure, Paytable] | None = None
        self.rules_error: AndarBaharError | None = None
        self.rounding: list[Message] = []
        self.busy = False
        self.design = DesignState()
        self.designed: Paytable | None = None
        """A table made by the designer, offered among the paytables once used."""

    def compose_body(self) -> ComposeResult:
        t = self.t
        yield Static(
            literal(tr(self, Message(N_("Players and their chips: a name, the chips, Enter.")))),
            classes="label",
        )
        yield Bar(
            self.field("name", placeholder=tr(self, Message(N_("name, e.g. Asha")))),
            self.field("chips", placeholder=tr(self, Message(N_("chips, e.g. 500")))),
            button(tr(self, Message(N_("Seat the player"))), "seat"),
            width=18,
            id="seat-bar",
        )
        yield Note(id="players-note")
        lang = language_of(t)
        yield Table(
            [tr(self, Message(N_("player"))), tr(self, Message(N_("chips")))],
            [[name, format_number(chips, lang)] for name, chips in self.players.items()],
            keys=list(self.players),
            right=(1,),
            cursor=True,
            id="players",
        )
        yield button(tr(self, Message(N_("Remove the chosen player"))), "remove")
        yield from compose_rules(self)
        yield self.checkbox(
            "physical", tr(self, Message(N_("Deal from a real deck (type each card)")))
        )
        yield Static(
            literal(tr(self, Message(N_("The table's odds, limits and warnings")))),
            classes="title",
        )
        with Vertical(id="preview"):
            yield from self._preview()
        yield button(tr(self, Message(N_("Open the table"))), "start", variant="primary")
        yield Note(id="error")
        yield DesignPanel(self, self.design)

    def _preview(self) -> ComposeResult:
        report = self.report
        if report is None:
            return
        yield odds_table(report, self.t, id="odds")
        for line in report_lines(report, self.t, self.rounding):
            yield Static(literal(line), classes="hint")

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#name", Input))
        self.compute()

    def sync(self) -> None:
        sync_rules(self)
        self.query_one("#preview").loading = self.busy
        self.query_one(DesignPanel).sync()
        self.query_one("#players", Table).display = bool(self.players)
        self.query_one("#remove", Button).display = bool(self.players)
        if self.rules_error is not None:
            self.query_one("#error", Note).say(self.rules_error)

    # -- players ------------------------------------------------------------------------

    def seated(self) -> dict[str, Decimal]:
        return self.players

    SEAT_NOTE = "#players-note"

    def add_seat(self, player: str, chips: Decimal) -> None:
        self.players[player] = chips
        self._show_players()

    def _show_players(self) -> None:
        lang = language_of(self.t)
        self.query_one("#players", Table).fill(
            [tr(self, Message(N_("player"))), tr(self, Message(N_("chips")))],
            [[name, format_number(chips, lang)] for name, chips in self.players.items()],
            keys=list(self.players),
        )
        self.sync()

    def action_remove(self) -> None:
        table = self.query_one("#players", Table)
        if not self.players or table.cursor_row < 0:
            return
        name = list(self.players)[min(table.cursor_row, len(self.players) - 1)]
        del self.players[name]
        self.query_one("#players-note", Note).say(
            Message(N_("{player} leaves the table."), player=name)
        )
        self._show_players()

    # -- the rules and their odds ---------------------------------------------------------

    def compute(self) -> None:
        """Read the rules; work their odds out on a worker thread when they changed."""
        if awaited_file(self) is not None:  # a file chosen, its path still to be typed
            self.rules_error, self.rules, self.report = None, None, None
            self.query_one("#error", Note).say(None)
            self.run_worker(self.refill("#preview", self._preview()))
            self.sync()
            return
        try:
            rules = read_rules(self)
        except AndarBaharError as refused:
            self.rules_error, self.rules, self.report = refused, None, None
            self.run_worker(self.refill("#preview", self._preview()))
            self.sync()
            select_refused_file(self)
            return
        self.rules_error = None
        self.query_one("#error", Note).say(None)
        if rules == self.rules and self.report is not None:
            self.sync()
            return
        self.rules, self.busy = rules, True
        self.sync()
        procedure, paytable = rules
        self.run_worker(
            lambda: checked(procedure, paytable), thread=True, exclusive=True, group="preview"
        )

    async def on_worker_state_changed(self, event) -> None:  # type: ignore[no-untyped-def]
        from textual.worker import WorkerState

        if event.state is not WorkerState.SUCCESS:
            return
        if event.worker.group == "preview":
            (self.report, self.rounding), self.busy = event.worker.result, False
            await self.refill("#preview", self._preview())
        elif event.worker.group == "design":
            result, self.design.busy = event.worker.result, False
            if isinstance(result, AndarBaharError):  # a range that is not one: a sentence
                self.design.error = result
                self.query_one("#edge", Input).select_all()  # the next range typed replaces it
            else:
                self.design.design, self.design.rounding = result
                await self.refill("#design-result", self.query_one(DesignPanel).result())
                # the designed table where the eye is, and its button under the focus
                shown = self.query_one("#design-result")
                self.call_after_refresh(shown.scroll_visible, animate=False, top=True)
                refused = self.design.design is not None and self.design.design.refused
                self.focus_on(self.query_one("#design-table" if refused else "#use-design"))
        self.resync()

    def on_design_panel_design(self) -> None:
        """Design a table for the procedure chosen (on a worker thread)."""
        try:
            procedure = read_procedure_chosen(self)
        except AndarBaharError as refused:
            self.design.error = refused
            self.sync()
            return
        edge = self.value("edge")
        base = self.rules[1] if self.rules is not None else None  # its chip, rounding, limits
        self.design.error, self.design.busy = None, True
        self.sync()
        self.run_worker(
            lambda: design_table(procedure, edge, base), thread=True, exclusive=True, group="design"
        )

    async def on_design_panel_use(self, event: DesignPanel.Use) -> None:
        """The designed table becomes the table's paytable (and is shown among the choices)."""
        self.designed = event.paytable
        await self.redraw(paytable=DESIGNED)
        self.compute()
        self.focus_on(self.query_one("#paytable"))

    def on_select_changed(self, event: Select.Changed) -> None:
        self.compute()
        reveal_file_field(self, event)

    def on_input_changed(self, event: Input.Changed) -> None:
        """A path or a range refused is being typed again: its sentence goes."""
        if event.input.id in FILE_FIELDS and self.rules_error is not None:
            self.rules_error = None
            self.query_one("#error", Note).say(None)
        elif event.input.id == "edge" and self.design.error is not None:
            self.design.error = None
            self.sync()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.compute()  # a file's path (the name and the chips: see SeatingScreen)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "seat":
            self.seat()
        elif event.button.id == "remove":
            self.action_remove()
        elif event.button.id == "start":
            self.start()

    def action_start(self) -> None:
        self.start()

    def start(self) -> None:
        from andar_bahar.tui.club import ClubRoundScreen

        error = self.query_one("#error", Note)
        try:
            procedure, paytable = read_rules(self)
            if self.value("name").strip() and not self.seat():  # typed, not yet seated
                return
            game = ClubGame(procedure, paytable, self.players)
        except AndarBaharError as refused:
            error.say(refused)
            return
        error.say(None)
        warnings = None
        if self.report is not None and self.rules == (procedure, paytable):
            warnings = warning_messages(self.report)
        self.app.push_screen(
            ClubRoundScreen(game, physical=self.checked("physical"), warnings=warnings)
        )
