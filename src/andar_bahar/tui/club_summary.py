"""Around a club table: players joining, topping up and leaving; the session's summary."""

from __future__ import annotations

from decimal import Decimal

from textual.app import ComposeResult
from textual.widgets import Button, Input, Static

from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.tui.common import Bar, Note, button, literal, tr
from andar_bahar.tui.screen import EndScreen
from andar_bahar.tui.seating import SeatingScreen
from andar_bahar.tui.tables import Table

__all__ = ["PlayersScreen", "SummaryScreen"]


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
        """The player chosen in the table (the row under its cursor)."""
        table = self.query_one("#players", Table)
        names = list(self.game.balances)
        if not names:
            raise BetError(Message(N_("Nobody is at the table.")))
        return names[max(0, min(table.cursor_row, len(names) - 1))]

    def seated(self) -> dict[str, Decimal]:
        return self.game.balances

    def add_seat(self, player: str, chips: Decimal) -> None:
        self.game.add_player(player, chips)
        self._show_players()

    def _show_players(self) -> None:
        """The table again; its cursor stays on the player it was on (see :class:`Table`)."""
        self.query_one("#players", Table).fill(*self._table())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.act(event.button.id or "")

    def act(self, action: str) -> None:
        """A button: ``seat``, ``top-up``, ``leave`` or ``back``."""
        if action == "seat":
            self.seat()
        elif action == "top-up":
            self.top_up()
        elif action == "leave":
            self.ask_leave()
        elif action == "back":
            self.leave()

    def top_up(self) -> None:
        note, lang = self.query_one("#note", Note), language_of(self.t)
        try:
            name = self._chosen()
            amount = self.game.top_up(name, self.value("chips"))
        except AndarBaharError as refused:
            self.refuse("#note", refused, "chips")
            return
        self.query_one("#chips", Input).value = ""
        note.say(
            Message(
                N_("{player} gets {chips} more chips: {balance} now."),
                player=name,
                chips=format_number(amount, lang),
                balance=format_number(self.game.balances[name], lang),
            ),
            kind="success",
        )
        self._show_players()

    def ask_leave(self) -> None:
        """Ask first, naming the player and the chips they take (the wrong row is a real loss)."""
        try:
            name = self._chosen()
            self.game.check_leave(name)
        except AndarBaharError as refused:
            self.query_one("#note", Note).say(refused)
            return
        chips = format_number(self.game.balances[name], language_of(self.t))
        question = Message(
            N_("{player} leaves the table with {chips} chips?"), player=name, chips=chips
        )
        self.ask(question, lambda: self.let_leave(name))

    def let_leave(self, name: str) -> None:
        try:
            taken = self.game.leave(name)
        except AndarBaharError as refused:
            self.query_one("#note", Note).say(refused)
            return
        self.query_one("#note", Note).say(
            Message(
                N_("{player} leaves with {chips} chips."),
                player=name,
                chips=format_number(taken, language_of(self.t)),
            ),
            kind="success",
        )
        self._show_players()


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
