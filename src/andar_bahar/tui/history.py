"""History: the last rounds of every game, recalled and replayed card by card."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, DataTable, Footer, Header, Label, Static

from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import tr, trainer
from andar_bahar.tui.layout import LayoutView

__all__ = ["HistoryScreen", "ReplayScreen"]


class HistoryScreen(Screen[None]):
    """The last rounds stored; choose one to replay it."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("History"))), classes="title")
            yield Static(
                tr(self, Message(N_("Choose a round and press Enter to replay it card by card.")))
            )
            yield DataTable(id="rounds", cursor_type="row")
            yield Label("", id="error", classes="error")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(
            *(
                tr(self, Message(m))
                for m in (N_("round"), N_("time"), N_("procedure"), N_("winner"), N_("cards dealt"))
            )
        )
        try:
            rounds = trainer(self).store.recent_rounds(50)
        except Exception as error:
            self.query_one("#error", Label).update(str(error))
            return
        for stored in rounds:
            table.add_row(
                str(stored.id),
                stored.created_at.strftime("%Y-%m-%d %H:%M"),
                stored.procedure,
                stored.winner,
                str(stored.cards_dealt),
                key=str(stored.id),
            )
        if not rounds:
            self.query_one("#error", Label).update(
                tr(self, Message(N_("No rounds are stored yet.")))
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        if key is not None:
            self.app.push_screen(ReplayScreen(trainer(self).store.load_round(int(key))))


class ReplayScreen(Screen[None]):
    """Replays a stored round: the same cards in the same order."""

    def __init__(self, rnd: Round) -> None:
        super().__init__()
        self.round = rnd
        self.shown = 0
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Replay"))), classes="title")
            yield Static(self.round.procedure.describe(trainer(self).translator))
            yield LayoutView(id="layout")
            with Horizontal():
                yield Button(tr(self, Message(N_("Next card"))), id="step", variant="primary")
                yield Button(tr(self, Message(N_("Auto"))), id="auto")
                yield Button(tr(self, Message(N_("From the start"))), id="restart")
        yield Footer()

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        self.query_one(LayoutView).show(self.round, trainer(self).translator, upto=self.shown)
        self.query_one("#step", Button).disabled = self.shown >= len(self.round.dealt)

    def step(self) -> None:
        if self.shown < len(self.round.dealt):
            self.shown += 1
            self._show()
        elif self._timer is not None:
            self._timer.stop()
            self._timer = None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "step":
            self.step()
        elif event.button.id == "restart":
            self.shown = 0
            self._show()
        elif event.button.id == "auto" and self._timer is None:
            self._timer = self.set_interval(0.5, self.step)
