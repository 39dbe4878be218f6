"""Around a club table: players joining, topping up and leaving; the session's summary;
and resuming a table from the history."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.widgets import Button, DataTable, Input, Static

from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.games.wording import paytable_title, procedure_title
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.tui.common import (
    Bar,
    EndScreen,
    Note,
    Table,
    TrainerScreen,
    button,
    literal,
    tr,
    trainer,
)
from andar_bahar.tui.seating import SeatingScreen

if TYPE_CHECKING:
    from andar_bahar.storage import Storage, StoredGame

__all__ = ["PlayersScreen", "ResumeScreen", "SummaryScreen", "table_balances"]


class PlayersScreen(SeatingScreen):
    """Seat a player, top one up, or let one leave with their chips."""

    TITLE_TEXT = N_("Players")

    def __init__(self, game: ClubGame) -> None:
        super().__init__()
        self.game = game

    def compose_body(self) -> ComposeResult:
        seat = Message(N_("Seat the player"))  # the hint names the button as it is labelled
        hint = Message(
            N_(
                "A new player: a name and the chips, then “{seat}”. To top up or to let"
                " a player leave, choose the player in the table first."
            ),
            seat=seat,
        )
        yield Static(literal(tr(self, hint)), classes="hint", id="players-hint")
        yield Table(*self._table(), right=(1,), cursor=True, id="players")
        yield Bar(
            self.field("name", placeholder=tr(self, Message(N_("name, e.g. Asha")))),
            self.field("chips", placeholder=tr(self, Message(N_("chips, e.g. 500")))),
            width=18,
        )
        yield Bar(
            button(tr(self, seat), "seat", variant="primary"),
            button(tr(self, Message(N_("Top up the chosen player"))), "top-up"),
            button(tr(self, Message(N_("The chosen player leaves"))), "leave"),
            button(tr(self, Message(N_("Back to the table"))), "back"),
            width=18,
        )
        yield Note(id="note")

    def _table(self) -> tuple[list[str], list[list[str]], list[str]]:
        lang = language_of(self.t)
        headers = [tr(self, Message(N_("player"))), tr(self, Message(N_("chips")))]
        rows = [[n, format_number(b, lang)] for n, b in self.game.balances.items()]
        return headers, rows, list(self.game.balances)

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#name", Input))

    def _chosen(self) -> str:
        table = self.query_one("#players", Table)
        names = list(self.game.balances)
        if not names:
            raise BetError(Message(N_("Nobody is at the table.")))
        return names[max(0, min(table.cursor_row, len(names) - 1))]

    def seated(self) -> dict[str, Decimal]:
        return self.game.balances

    def add_seat(self, player: str, chips: Decimal) -> None:
        self.game.add_player(player, chips)
        self.query_one("#players", Table).fill(*self._table())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.act(event.button.id or "")

    def act(self, action: str) -> None:
        note = self.query_one("#note", Note)
        lang = language_of(self.t)
        game = self.game
        try:
            if action == "seat":
                self.seat()
                return
            if action == "top-up":
                name = self._chosen()
                amount = game.top_up(name, self.value("chips"))
                text = Message(
                    N_("{player} gets {chips} more chips: {balance} now."),
                    player=name,
                    chips=format_number(amount, lang),
                    balance=format_number(game.balances[name], lang),
                )
            elif action == "leave":
                name = self._chosen()
                taken = game.leave(name)
                text = Message(
                    N_("{player} leaves with {chips} chips."),
                    player=name,
                    chips=format_number(taken, lang),
                )
            elif action == "back":
                self.leave()
                return
            else:
                return
        except AndarBaharError as refused:
            note.say(refused)
            return
        note.say(text, kind="success")
        self.query_one("#players", Table).fill(*self._table())


class SummaryScreen(EndScreen):
    """The end of a session: what each player brought, took away and won."""

    TITLE_TEXT = N_("Session summary")

    def __init__(self, game: ClubGame) -> None:
        super().__init__()
        self.game = game

    def compose_body(self) -> ComposeResult:
        game = self.game
        lang = language_of(self.t)
        headers = [
            tr(self, Message(m))
            for m in (
                N_("player"),
                N_("brought"),
                N_("took away"),
                N_("chips now"),
                N_("staked"),
                N_("won"),
                N_("result"),
            )
        ]
        rows = [
            [
                p.name,
                *(
                    format_number(v, lang)
                    for v in (p.chips_in, p.chips_out, p.balance, p.staked, p.won)
                ),
                ("+" if p.net > 0 else "") + format_number(p.net, lang),
            ]
            for p in game.summary()
        ]
        yield Table(headers, rows, right=range(1, 7), focusable=True, id="summary")
        yield Static(
            literal(
                tr(
                    self,
                    Message(
                        NP_(
                            "{n} round played; the house's result: {amount}.",
                            "{n} rounds played; the house's result: {amount}.",
                        ),
                        n=len(game.rounds),
                        amount=format_number(game.house, lang),
                    ),
                )
            ),
            classes="title",
        )
        yield self.menu_button()


@dataclass(frozen=True, slots=True)
class TableToResume:
    """A club table from the history, with the balances it can continue from."""

    game: StoredGame
    balances: dict[str, Decimal]


def table_balances(store: Storage, game: StoredGame) -> dict[str, Decimal]:
    """The chips of each player where the table stopped.

    A session that ended stored its balances; one that did not (the program stopped)
    continues from its last stored round: the balances that round began with, plus
    what its settlement paid.
    """
    if game.result and isinstance(game.result.get("balances"), dict):
        return {name: Decimal(str(v)) for name, v in game.result["balances"].items()}
    rounds = store.recent_rounds(1, game_id=game.id)
    if rounds:
        rnd = rounds[0].replay()
        balances = dict(rnd.balances or {})
        if rnd.settlement is not None:
            for bet in rnd.settlement.bets:
                balances[bet.player] = as_decimal(balances.get(bet.player, Decimal(0)) + bet.net)
        return balances
    settings = game.settings.get("balances", {})
    return {name: Decimal(str(v)) for name, v in settings.items()}


def _tables(store: Storage) -> list[TableToResume]:
    games = [g for g in store.games(limit=200) if g.kind == "club"]
    return [TableToResume(g, table_balances(store, g)) for g in games]


class ResumeScreen(TrainerScreen):
    """The club tables in the history; choose one to play on with its balances."""

    TITLE_TEXT = N_("Resume a club table")

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[TableToResume] | None = None
        self.error: str | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(
            literal(
                tr(self, Message(N_("Choose a table and press Enter to play on with its chips.")))
            ),
            classes="hint",
        )
        yield Table(*self._table(), cursor=True, right=(0, 5), id="tables")
        yield Note(id="note")

    def _table(self) -> tuple[list[str], list[list[str]], list[str]]:
        t = self.t
        lang = language_of(t)
        headers = [
            tr(self, Message(m))
            for m in (
                N_("table"),
                N_("started"),
                N_("procedure"),
                N_("paytable"),
                N_("chips"),
                N_("rounds"),
            )
        ]
        rows = []
        for table in self.tables or ():
            game = table.game
            chips = ", ".join(f"{n} {format_number(b, lang)}" for n, b in table.balances.items())
            rows.append(
                [
                    str(game.id),
                    game.started_at.strftime("%Y-%m-%d %H:%M"),
                    procedure_title(game.procedure, t),
                    paytable_title(game.paytable, t),
                    chips,
                    str(game.round_count),
                ]
            )
        return headers, rows, [str(table.game.id) for table in self.tables or ()]

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#tables").loading = True
        trainer(self).history(_tables, self._loaded, failed=self._failed)

    def _loaded(self, tables: list[TableToResume]) -> None:
        self.tables = tables
        self.resync()
        if tables and self.query("#tables"):
            self.focus_on(self.query_one("#tables"))

    def _failed(self, text: str) -> None:
        self.error, self.tables = text, []
        self.resync()

    def sync(self) -> None:
        table = self.query_one("#tables", Table)
        table.loading = self.tables is None
        table.fill(*self._table())
        note = self.query_one("#note", Note)
        if self.error:
            note.say(self.error, kind="error")
        elif self.tables == []:
            note.say(Message(N_("No club table is stored yet.")))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from andar_bahar.tui.club import ClubRoundScreen

        chosen = next(t for t in self.tables or () if str(t.game.id) == event.row_key.value)
        try:
            procedure: Procedure = chosen.game.load_procedure()
            paytable: Paytable = chosen.game.load_paytable()
            game = ClubGame(procedure, paytable, chosen.balances)
        except AndarBaharError as refused:
            self.query_one("#note", Note).say(refused)
            return
        physical: Any = chosen.game.settings.get("physical", False)
        self.app.push_screen(
            ClubRoundScreen(game, physical=bool(physical), resumed_from=chosen.game.id)
        )
