"""History: every stored round, page by page, and any of them replayed card by card."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Button, DataTable, Static

from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Row
from andar_bahar.games.wording import CLUB, LESSON, procedure_title
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import Bar, Note, button, keys, literal, tr
from andar_bahar.tui.layout import LayoutView
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["HistoryScreen", "ReplayScreen"]

PAGE = 50
"""Rounds listed at a time; "Show more" lists the next ones."""


@dataclass(frozen=True, slots=True)
class Listed:
    """One stored round as the history lists it: its result, bets and settlement."""

    id: int
    created_at: datetime
    procedure: str
    winner: Row | None
    cards_dealt: int
    markers: int
    bets: int
    staked: Decimal
    returned: Decimal


def _listed(store: Storage, limit: int) -> list[Listed]:
    listed = []
    for stored in store.recent_rounds(limit):
        rnd = stored.replay()
        settlement = rnd.settlement
        listed.append(
            Listed(
                id=stored.id,
                created_at=stored.created_at,
                procedure=stored.procedure,
                winner=Row(stored.winner) if stored.winner in ("andar", "bahar") else None,
                cards_dealt=stored.cards_dealt,
                markers=len(rnd.markers),
                bets=len(rnd.wagers),
                staked=settlement.total_staked if settlement else Decimal(0),
                returned=settlement.total_returned if settlement else Decimal(0),
            )
        )
    return listed


class HistoryScreen(TrainerScreen):
    """The stored rounds, newest first; Enter replays one."""

    TITLE_TEXT = N_("History")

    def __init__(self) -> None:
        super().__init__()
        self.limit = PAGE
        self.rounds: list[Listed] | None = None
        self.error: str | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(
            literal(
                tr(self, Message(N_("Choose a round and press Enter to replay it card by card.")))
            ),
            classes="hint",
        )
        yield Table(*self._table(), right=(0, 4, 5, 6), cursor=True, id="rounds")
        yield Note(id="note")
        yield button(tr(self, Message(N_("Show more rounds"))), "more")

    def _table(self) -> tuple[list[str], list[list[str]], list[str]]:
        t = self.t
        lang = language_of(t)
        headers = [
            tr(self, Message(m))
            for m in (
                N_("round"),
                N_("time"),
                N_("procedure"),
                N_("winner"),
                N_("cards"),
                N_("bets"),
                N_("staked → paid"),
            )
        ]
        rows = [
            [
                str(r.id),
                r.created_at.strftime("%m-%d %H:%M"),
                procedure_title(r.procedure, t).split(" (")[0],  # the name, not its gloss
                r.winner.localized(t) if r.winner else tr(self, Message(N_("void"))),
                str(r.cards_dealt),
                str(r.bets) if r.bets else (f"◆ {r.markers}" if r.markers else "—"),
                f"{format_number(r.staked, lang)} → {format_number(r.returned, lang)}"
                if r.bets
                else "—",
            ]
            for r in self.rounds or ()
        ]
        return headers, rows, [str(r.id) for r in self.rounds or ()]

    def on_mount(self) -> None:
        super().on_mount()
        self.load()

    def load(self) -> None:
        limit = self.limit
        self.query_one("#rounds").loading = True
        self.history(lambda store: _listed(store, limit), self._loaded, failed=self._failed)

    def _loaded(self, rounds: list[Listed]) -> None:
        first = self.rounds is None
        self.rounds, self.error = rounds, None
        self.resync()
        if first and rounds and self.query("#rounds"):
            self.focus_on(self.query_one("#rounds"))

    def _failed(self, text: str) -> None:
        self.error, self.rounds = text, self.rounds or []
        self.resync()

    def sync(self) -> None:
        table = self.query_one("#rounds", Table)
        table.loading = self.rounds is None
        headers, rows, row_keys = self._table()
        if rows or table.row_count:
            table.fill(headers, rows, row_keys)  # the cursor stays on its round
        table.display = bool(rows)
        note = self.query_one("#note", Note)
        more = self.query_one("#more", Button)
        more.display = self.rounds is not None and len(self.rounds) >= self.limit
        if self.error:
            note.say(self.error, kind="error")
        elif self.rounds == []:
            note.say(Message(N_("No rounds are stored yet.")))
        elif self.rounds is not None:
            note.say(Message(N_("The last {n} rounds, newest first."), n=len(self.rounds)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "more":
            self.limit += PAGE
            self.load()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        if key is None:
            return
        round_id = int(key)
        self.query_one("#rounds").loading = True

        def opened(rnd: Round) -> None:
            self.query_one("#rounds").loading = False
            if self.app.screen is self:  # not once the user has gone elsewhere meanwhile
                self.app.push_screen(ReplayScreen(rnd))

        self.history(lambda store: store.load_round(round_id), opened, failed=self._failed)


class ReplayScreen(TrainerScreen):
    """Replays a stored round: the same cards in the same order, then its settlement."""

    TITLE_TEXT = N_("Replay")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys("n"), "step", N_("Next card")),
        Binding(keys("t"), "auto", N_("Auto")),
    ]

    def __init__(self, rnd: Round) -> None:
        super().__init__()
        self.round = rnd
        self.shown = 0
        self.timer: Timer | None = None
        self.wording = LESSON if rnd.procedure.markers_only else CLUB

    def compose_body(self) -> ComposeResult:
        t = self.t
        rnd = self.round
        yield Static(literal(self.wording.describe(rnd.procedure, t)), classes="hint")
        if rnd.markers:
            marks = ", ".join(f"{n}: {row.localized(t)}" for n, row in rnd.markers.items())
            yield Static(literal(tr(self, Message(N_("Markers: {list}"), list=marks))))
        if rnd.wagers:
            lang = language_of(t)
            yield Table(
                [tr(self, Message(m)) for m in (N_("player"), N_("bet"), N_("stake"))],
                [[w.player, w.bet.localized(t), format_number(w.stake, lang)] for w in rnd.wagers],
                right=(2,),
                id="bets",
            )
        yield LayoutView(id="layout")
        yield Bar(
            button(tr(self, Message(N_("Next card"))), "step", variant="primary"),
            button(tr(self, Message(N_("Auto"))), "auto"),
            button(tr(self, Message(N_("From the start"))), "restart"),
            width=16,
        )
        yield Static("", id="settlement-title", classes="title", markup=False)
        yield Table([], [], right=(2, 4, 5), id="settlement")

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#step", Button))

    def sync(self) -> None:
        rnd, t = self.round, self.t
        self.query_one(LayoutView).show(rnd, t, wording=self.wording, upto=self.shown)
        done = self.shown >= len(rnd.dealt)
        self.query_one("#step", Button).disabled = done
        auto = self.query_one("#auto", Button)
        auto.variant = "success" if self.timer is not None else "default"
        settlement = rnd.settlement if done else None
        table = self.query_one("#settlement", Table)
        table.display = settlement is not None and bool(settlement.bets)
        title = self.query_one("#settlement-title", Static)
        title.display = table.display
        if settlement is not None and settlement.bets:
            lang = language_of(t)
            title.update(literal(tr(self, Message(N_("Settlement")))))
            table.fill(
                [
                    tr(self, Message(m))
                    for m in (
                        N_("player"),
                        N_("bet"),
                        N_("stake"),
                        N_("outcome"),
                        N_("win"),
                        N_("returned"),
                    )
                ],
                [
                    [
                        b.player,
                        b.bet.localized(t),
                        format_number(b.stake, lang),
                        b.outcome.localized(t),
                        format_number(b.win, lang),
                        format_number(b.returned, lang),
                    ]
                    for b in settlement.bets
                ],
            )

    def action_step(self) -> None:
        if self.shown < len(self.round.dealt):
            self.shown += 1
        if self.shown >= len(self.round.dealt) and self.timer is not None:
            self.timer.stop()
            self.timer = None
        self.sync()

    def action_auto(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        elif self.shown < len(self.round.dealt):
            self.timer = self.every(0.5, self.action_step)
        self.sync()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "step":
            self.action_step()
        elif event.button.id == "restart":
            self.shown = 0
            self.sync()
        elif event.button.id == "auto":
            self.action_auto()
