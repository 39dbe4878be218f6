"""Resuming a club table from the history: its players' chips where it stopped, and its
rounds counted on from the last one stored."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.widgets import DataTable, Static

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.games.wording import paytable_title, procedure_title
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import Note, literal, tr
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.tables import Table

if TYPE_CHECKING:
    from andar_bahar.storage import Storage, StoredGame

__all__ = ["ResumeScreen", "rounds_before", "table_balances"]


@dataclass(frozen=True, slots=True)
class TableToResume:
    """A club table from the history, with the balances it can continue from."""

    game: StoredGame
    balances: dict[str, Decimal]

    @property
    def rounds(self) -> int:
        """The rounds the table has played, in this session and the ones it resumed."""
        return rounds_before(self.game) + self.game.round_count


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


def rounds_before(game: StoredGame) -> int:
    """The rounds the table had played before the session *game* resumed it."""
    before = game.settings.get("rounds_before", 0)
    return before if isinstance(before, int) and before >= 0 else 0


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
                    str(table.rounds),
                ]
            )
        return headers, rows, [str(table.game.id) for table in self.tables or ()]

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#tables").loading = True
        self.history(_tables, self._loaded, failed=self._failed)

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
            ClubRoundScreen(
                game,
                physical=bool(physical),
                resumed_from=chosen.game.id,
                rounds_before=chosen.rounds,
            )
        )
