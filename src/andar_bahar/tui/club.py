"""The club betting game at the terminal (seeds 001/002)."""

from __future__ import annotations

from decimal import Decimal

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static, Switch

from andar_bahar.chance.odds import odds_report
from andar_bahar.engine.clubfiles import read_paytable
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import PROCEDURES
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.report import money
from andar_bahar.tui.common import tr, trainer
from andar_bahar.tui.panel import RoundPanel

__all__ = ["ClubRoundScreen", "ClubSetup", "parse_players"]


def parse_players(text: str) -> dict[str, str]:
    """``Asha=500, Ravi=300`` → names and starting balances (checked by the game)."""
    players: dict[str, str] = {}
    for part in text.replace("\n", ",").split(","):
        if not part.strip():
            continue
        name, separator, balance = part.partition("=")
        if not separator:
            raise BetError(
                Message(
                    N_("Write each player as NAME=CHIPS, e.g. Asha=500, not '{text}'."),
                    text=part.strip(),
                )
            )
        if name.strip() in players:
            raise BetError(Message(N_("{player} is already at the table."), player=name.strip()))
        players[name.strip()] = balance.strip()
    return players


class ClubSetup(Screen[None]):
    """The players and their chips, the procedure and the club's paytable."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Club game"))), classes="title")
            yield Label(
                tr(self, Message(N_("Players and their chips (NAME=CHIPS, separated by commas):")))
            )
            yield Input(placeholder="Asha=500, Ravi=300", id="players")
            yield Label(tr(self, Message(N_("Procedure:"))))
            yield Select(
                [
                    (rules.describe(trainer(self).translator), name)
                    for name, rules in PROCEDURES.items()
                    if not rules.markers_only
                ],
                value="classic",
                allow_blank=False,
                id="procedure",
            )
            yield Label(tr(self, Message(N_("Paytable (a preset name or a club's .toml file):"))))
            yield Input(value="trainer-default", id="paytable")
            with Horizontal(classes="row"):
                yield Label(tr(self, Message(N_("Deal from a real deck (type each card)"))))
                yield Switch(value=False, id="physical")
            yield Static("", id="warnings", classes="note")
            yield Label("", id="error", classes="error")
            yield Button(tr(self, Message(N_("Open the table"))), id="start", variant="primary")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "start":
            return
        error = self.query_one("#error", Label)
        try:
            procedure = PROCEDURES[str(self.query_one("#procedure", Select).value)]
            paytable = read_paytable(
                self.query_one("#paytable", Input).value.strip() or procedure.paytable
            )
            game = ClubGame(
                procedure, paytable, parse_players(self.query_one("#players", Input).value)
            )
        except AndarBaharError as refused:
            error.update(refused.localized(trainer(self).translator))
            return
        error.update("")
        warnings = odds_report(game.procedure, game.paytable).warning_messages()
        self.app.push_screen(
            ClubRoundScreen(
                game,
                physical=self.query_one("#physical", Switch).value,
                warnings=[tr(self, w) for w in warnings],
            )
        )


class ClubRoundScreen(Screen[None]):
    """Bets, the deal, the settlement as a dealer pays it, balances carried on."""

    DEFAULT_CSS = """
    ClubRoundScreen .bet-form { height: auto; }
    ClubRoundScreen .bet-form Input { width: 18; }
    ClubRoundScreen .bet-form Select { width: 24; }
    ClubRoundScreen DataTable { height: auto; max-height: 14; }
    """

    def __init__(
        self, game: ClubGame, *, physical: bool = False, warnings: list[str] | None = None
    ) -> None:
        super().__init__()
        self.game = game
        self.physical = physical
        self.warnings = warnings or []
        self.game_id: int | None = None
        self.round: Round = game.current or game.start_round(
            rng=trainer(self).rng(), physical=physical
        )

    def on_mount(self) -> None:
        try:
            self.game_id = trainer(self).store.start_game(
                "club",
                self.game.procedure,
                self.game.paytable,
                list(self.game.balances),
                {
                    "balances": {p: format_amount(b) for p, b in self.game.balances.items()},
                    "physical": self.physical,
                },
            )
        except Exception as error:
            self.notify(str(error), severity="warning")
        self._fill_tables()

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(
                tr(
                    self,
                    Message(
                        N_("Round {number} — {procedure}; paytable {paytable}"),
                        number=self.game.round_number,
                        procedure=self.game.procedure.name,
                        paytable=self.game.paytable.name,
                    ),
                ),
                classes="title",
            )
            for warning in self.warnings:
                yield Static(warning, classes="note")
            yield DataTable(id="balances")
            with Horizontal(classes="bet-form"):
                yield Select(
                    [(name, name) for name in self.game.balances],
                    prompt=tr(self, Message(N_("player"))),
                    id="player",
                )
                yield Input(placeholder="andar | cards:1-5", id="bet")
                yield Input(placeholder=tr(self, Message(N_("stake"))), id="stake")
                yield Button(tr(self, Message(N_("Place bet"))), id="place", variant="primary")
                yield Button(tr(self, Message(N_("Take back"))), id="withdraw")
            yield Label("", id="bet-error", classes="error")
            yield Static(
                tr(
                    self,
                    Message(
                        N_("Bets on offer: {bets}"),
                        bets=", ".join(str(b) for b in self.game.paytable.bets),
                    ),
                )
            )
            yield DataTable(id="bets")
            yield RoundPanel(self.round, id="panel")
            yield DataTable(id="settlement")
            yield Button(
                tr(self, Message(N_("Next round"))), id="next", variant="success", disabled=True
            )
        yield Footer()

    def _fill_tables(self) -> None:
        t = trainer(self).translator
        balances = self.query_one("#balances", DataTable)
        balances.clear()
        if not balances.columns:
            balances.add_column(tr(self, Message(N_("player"))), width=20)
            balances.add_column(tr(self, Message(N_("chips"))), width=12)
        for name, amount in self.game.balances.items():
            balances.add_row(name, money(amount, t))
        bets = self.query_one("#bets", DataTable)
        bets.clear()
        if not bets.columns:
            bets.add_column(tr(self, Message(N_("player"))), width=20)
            bets.add_column(tr(self, Message(N_("bet"))), width=28)
            bets.add_column(tr(self, Message(N_("stake"))), width=12)
        for wager in self.round.wagers:
            bets.add_row(wager.player, wager.bet.localized(t), money(wager.stake, t))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id
        if button in ("place", "withdraw"):
            self._bet(button)
        elif button == "next":
            self.round = self.game.start_round(rng=trainer(self).rng(), physical=self.physical)
            self.refresh(recompose=True)
            self.call_after_refresh(self._fill_tables)

    def _bet(self, action: str) -> None:
        error = self.query_one("#bet-error", Label)
        player = self.query_one("#player", Select).value
        bet = self.query_one("#bet", Input).value.strip()
        stake = self.query_one("#stake", Input).value.strip()
        try:
            if player is Select.BLANK:
                raise BetError(Message(N_("Choose the player who bets.")))
            if action == "place":
                self.round.place_bet(str(player), bet, stake)
            else:
                self.round.withdraw_bet(str(player), bet)
        except AndarBaharError as refused:
            error.update(refused.localized(trainer(self).translator))
            return
        error.update("")
        self.query_one("#stake", Input).value = ""
        self._fill_tables()

    def on_round_panel_stepped(self, event: RoundPanel.Stepped) -> None:
        if not self.round.bets_open:
            for widget_id in ("#place", "#withdraw"):
                self.query_one(widget_id, Button).disabled = True

    def on_round_panel_finished(self, event: RoundPanel.Finished) -> None:
        t = trainer(self).translator
        settlement = self.game.finish_round()
        try:
            trainer(self).store.record_round(
                event.round, game_id=self.game_id, number=len(self.game.rounds)
            )
        except Exception as error:
            self.notify(str(error), severity="warning")
        table = self.query_one("#settlement", DataTable)
        table.clear(columns=True)
        table.add_columns(
            *(
                tr(self, Message(m))
                for m in (
                    N_("player"),
                    N_("bet"),
                    N_("stake"),
                    N_("pays"),
                    N_("outcome"),
                    N_("win"),
                    N_("returned"),
                )
            )
        )
        for bet in settlement.bets:
            table.add_row(
                bet.player,
                bet.bet.localized(t),
                money(bet.stake, t),
                bet.odds.localized(t),
                bet.outcome.localized(t),
                money(bet.win, t),
                money(bet.returned, t),
            )
        self._fill_tables()
        self.query_one("#next", Button).disabled = False

    def on_unmount(self) -> None:
        """Leaving the table ends the game in the history, with the final balances."""
        if self.game_id is not None and self.game.rounds:
            try:
                trainer(self).store.finish_game(
                    self.game_id,
                    {"balances": {p: format_amount(b) for p, b in self.game.balances.items()}},
                )
            except Exception as error:
                self.log.warning(str(error))


_ = Decimal
