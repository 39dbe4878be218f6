"""The club betting game at the terminal: bets, the deal, the settlement.

The bets on the centre card are offered while it is still to be turned; the moment it is,
the screen says what each won or lost (paid with the round's settlement)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Input, Select, Static

from andar_bahar.engine.bets import Bet, CentreBet
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.money import as_decimal, format_amount
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import BetWindow
from andar_bahar.engine.settlement import Outcome, SettledBet, Settlement
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.games.wording import CLUB, paytable_title
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.tui.common import Bar, Choice, Note, button, keys, literal, tr
from andar_bahar.tui.odds import pays_text, warning_messages
from andar_bahar.tui.panel import DEALING_KEYS, Dealer, RoundPanel
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.records import GameRecord
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.tables import Table

__all__ = ["ClubRoundScreen"]


class ClubRoundScreen(TrainerScreen):
    """Bets, the deal, the settlement as a dealer pays it, balances carried on."""

    TITLE_TEXT = N_("Club game")
    DEFAULT_CSS = """
    ClubRoundScreen #bet-bar Input { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *DEALING_KEYS,
        Binding(keys("n"), "next", N_("Next")),
        Binding(keys("p"), "players", N_("Players"), show=False),
    ]

    def __init__(
        self,
        game: ClubGame,
        *,
        physical: bool = False,
        warnings: list[Message] | None = None,
        resumed_from: int | None = None,
        rounds_before: int = 0,
    ) -> None:
        super().__init__()
        self.game = game
        self.physical = physical
        self.resumed_from = resumed_from
        self.rounds_before = rounds_before
        """The rounds the table played before this session (a resumed table counts on)."""
        self.bettor: str | None = None
        """The player chosen to bet (kept when the screen is drawn again)."""
        self.bettors: list[str] = list(game.balances)
        """The players the list of bettors offered when last shown."""
        self.record = GameRecord()
        self.settlement: Settlement | None = None
        self.announced: Round | None = None
        """The round whose bets on the centre card the screen has announced."""
        self.ended = False
        self.warnings = warnings
        """The odds warnings for this table, as messages: shown in the language of the day."""
        rnd = game.current or game.start_round(rng=trainer(self).rng(), physical=physical)
        self.dealer = Dealer(
            rnd,
            CLUB,
            physical=physical,
            question=self._unplaced_bet,
            declined=lambda: self.focus_on(self.query_one("#stake")),
        )

    @property
    def round(self) -> Round:
        return self.dealer.round

    # -- the history ---------------------------------------------------------------------

    def on_mount(self) -> None:
        super().on_mount()
        game, record = self.game, self.record
        settings: dict[str, Any] = {
            "balances": {p: format_amount(b) for p, b in game.balances.items()},
            "physical": self.physical,
        }
        if self.resumed_from is not None:
            settings["resumed_from"] = self.resumed_from
            settings["rounds_before"] = self.rounds_before

        def start(store) -> None:  # type: ignore[no-untyped-def]
            record.id = store.start_game(
                "club", game.procedure, game.paytable, list(game.balances), settings
            )

        self.history(start)
        self._focus_betting()
        if self.warnings is None:
            self.run_worker(self._find_warnings, thread=True, group="warnings")

    def _find_warnings(self) -> None:
        from andar_bahar.tui.odds import report

        warnings = warning_messages(report(self.game.procedure, self.game.paytable))
        self.app.call_from_thread(self._show_warnings, warnings)

    def _show_warnings(self, warnings: list[Message]) -> None:
        self.warnings = warnings
        self.resync()

    def _store_end(self) -> None:
        """The session's end in the history: the balances, and who left with what."""
        if self.ended:
            return
        self.ended = True
        self.dealer.stop()
        game, record = self.game, self.record
        result = {
            "balances": {p: format_amount(b) for p, b in game.balances.items()},
            "departed": {p: format_amount(b) for p, b in game.departed.items()},
            "rounds": self.rounds_before + len(game.rounds),
        }

        def finish(store) -> None:  # type: ignore[no-untyped-def]
            if record.id is not None and not record.finished:
                record.finished = True
                store.finish_game(record.id, result)

        self.history(finish)

    def before_quit(self) -> None:
        self._store_end()

    # -- drawing ---------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        t = self.t
        game = self.game
        yield Static("", id="round-title", classes="title", markup=False)
        yield Static(literal(CLUB.describe(game.procedure, t)), classes="hint")
        yield Static("", id="warnings", classes="note", markup=False)
        yield Table(self._balance_headers(), self._balance_rows(), right=(1, 2, 3), id="balances")
        yield Bar(
            Choice(
                [(name, name) for name in game.balances],
                prompt=tr(self, Message(N_("player"))),
                value=self.bettor if self.bettor in game.balances else Select.NULL,
                id="player",
            ),
            Choice(
                self._bet_options(),
                prompt=tr(self, Message(N_("bet"))),
                value=self._saved("bet", [value for _, value in self._bet_options()]),
                id="bet",
            ),
            width=34,
        )
        yield Bar(
            self.field("stake", placeholder=tr(self, Message(N_("stake, e.g. 100")))),
            button(tr(self, Message(N_("Place the bet"))), "place", variant="primary"),
            button(tr(self, Message(N_("Take it back"))), "withdraw"),
            width=20,
            id="bet-bar",
        )
        yield Note(id="bet-note")
        yield Table(self._bet_headers(), self._bet_rows(), right=(2,), id="bets")
        yield RoundPanel(self.dealer, id="panel")
        if self.settlement is not None:
            yield Static(
                literal(tr(self, Message(N_("Settlement")))), classes="title", id="settlement-title"
            )
            yield Table(*self._settlement_table(), right=(2, 4, 5), id="settlement")
        yield Bar(
            button(tr(self, Message(N_("Next round"))), "next", variant="success"),
            button(tr(self, Message(N_("Players: join, top up, leave"))), "players"),
            button(tr(self, Message(N_("End the session"))), "end", variant="warning"),
            width=20,
        )
        yield Static("", id="house", classes="hint", markup=False)

    def _saved(self, id: str, values: list[str]) -> Any:
        value = self.form.get(id)
        return value if value in values else Select.NULL

    def _bet_options(self) -> list[tuple[str, str]]:
        """The bets of the table; those on the centre card while it is still to be turned."""
        t, paytable = self.t, self.game.paytable
        bets = [bet for bet in paytable.bets if not isinstance(bet, CentreBet)]
        if self.round.centre_bets_open:
            bets += paytable.centre_bets
        return [(f"{bet.localized(t)} · {pays_text(bet, paytable, t)}", str(bet)) for bet in bets]

    def _money(self, value: Decimal) -> str:
        return format_number(value, language_of(self.t))

    def _balance_headers(self) -> list[str]:
        return [
            tr(self, Message(m)) for m in (N_("player"), N_("chips"), N_("at stake"), N_("free"))
        ]

    def _balance_rows(self) -> list[list[str]]:
        staked: dict[str, Decimal] = {}
        if not self.round.finished:
            for wager in self.round.wagers:
                staked[wager.player] = staked.get(wager.player, Decimal(0)) + wager.stake
        return [
            [
                name,
                self._money(balance),
                self._money(staked.get(name, Decimal(0))),
                self._money(as_decimal(balance - staked.get(name, Decimal(0)))),
            ]
            for name, balance in self.game.balances.items()
        ]

    def _bet_headers(self) -> list[str]:
        return [tr(self, Message(m)) for m in (N_("player"), N_("bet"), N_("stake"))]

    def _bet_rows(self) -> list[list[str]]:
        """Each bet; one on the centre card once it is turned with what it won or lost."""
        settled = {(b.player, b.bet): b for b in self.round.centre_settled}
        rows = []
        for wager in self.round.wagers:
            label = wager.bet.localized(self.t)
            done = settled.get((wager.player, wager.bet))
            if done is not None:
                label = f"{label} — {self._centre_outcome(done)}"
            rows.append([wager.player, label, self._money(wager.stake)])
        return rows

    def _centre_outcome(self, bet: SettledBet) -> str:
        if bet.outcome is Outcome.WIN:
            return tr(self, Message(N_("wins {win}"), win=self._money(bet.win)))
        return bet.outcome.localized(self.t)

    def _settlement_table(self) -> tuple[list[str], list[list[str]]]:
        assert self.settlement is not None
        t = self.t
        headers = [
            tr(self, Message(m))
            for m in (N_("player"), N_("bet"), N_("stake"), N_("pays"), N_("win"), N_("returned"))
        ]
        rows = [
            [
                bet.player,
                bet.bet.localized(t),
                self._money(bet.stake),
                bet.odds.localized(t) if bet.outcome.value == "win" else bet.outcome.localized(t),
                self._money(bet.win),
                self._money(bet.returned),
            ]
            for bet in self.settlement.bets
        ]
        settlement = self.settlement
        rows.append(
            [
                tr(self, Message(N_("total"))),
                "",
                self._money(settlement.total_staked),
                "",
                self._money(settlement.total_win),
                self._money(settlement.total_returned),
            ]
        )
        return headers, rows

    def sync(self) -> None:
        game, rnd = self.game, self.round
        number = self.rounds_before + (
            len(game.rounds) if self.settlement is not None else game.round_number
        )
        self.query_one("#round-title", Static).update(
            literal(
                tr(
                    self,
                    Message(
                        N_("Round {number} — paytable: {paytable}"),
                        number=number,
                        paytable=paytable_title(game.paytable, self.t),
                    ),
                )
            )
        )
        self.query_one("#warnings", Static).update(literal(self._warnings_text()))
        self.query_one("#balances", Table).fill(self._balance_headers(), self._balance_rows())
        self.query_one("#bets", Table).fill(self._bet_headers(), self._bet_rows())
        self.query_one("#bets", Table).display = bool(rnd.wagers)
        self._sync_bettors()
        bets = self.query_one("#bet", Choice)
        if bets.options != (offered := self._bet_options()):
            bets.offer(offered)  # the bets on the centre card go when it is turned
        closed = not rnd.bets_open
        for widget_id in ("#place", "#withdraw", "#player", "#bet", "#stake"):
            self.query_one(widget_id).disabled = closed
        self.query_one(RoundPanel).sync()
        self.query_one("#next", Button).disabled = self.settlement is None
        self.query_one("#house", Static).update(
            literal(
                tr(
                    self,
                    Message(
                        N_("The house's result so far: {amount}."),
                        amount=self._money(game.house),
                    ),
                )
            )
        )

    def _warnings_text(self) -> str:
        """One line at the table; the full warnings were shown before it opened."""
        if not self.warnings:
            return ""
        return tr(
            self,
            Message(
                NP_(
                    "Warning: {n} bet of this table gives the player the edge (see Odds).",
                    "Warning: {n} bets of this table give the player the edge (see Odds).",
                ),
                n=len(self.warnings),
            ),
        )

    def _focus_betting(self) -> None:
        target = self.query_one("#player", Select)
        if target.disabled:
            self.focus_on(self.query_one("#deal", Button))
        else:
            self.focus_on(target)

    # -- bets ----------------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id
        if button_id == "place":
            self.place()
        elif button_id == "withdraw":
            self.withdraw()
        elif button_id == "next":
            self.run_worker(self.action_next())
        elif button_id == "players":
            self.action_players()
        elif button_id == "end":
            self.action_leave()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "stake":
            self.place()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "player":
            self.bettor = None if event.value is Select.NULL else str(event.value)

    def _sync_bettors(self) -> None:
        """The list of bettors as the table is now; when the player chosen has left, the
        next one is chosen, and the screen says so."""
        players, seated = self.query_one("#player", Choice), list(self.game.balances)
        if seated == self.bettors:
            return
        left, before = self.bettor, self.bettors
        self.bettors = seated
        players.offer([(name, name) for name in seated])
        if left is None or left in seated:
            if left is not None:
                players.value = left
            return
        start = before.index(left) + 1 if left in before else 0
        following = [name for name in before[start:] + before[:start] if name in seated]
        chosen = (following or seated)[:1]
        if not chosen:
            self.bettor = None
            return
        self.bettor = players.value = chosen[0]
        self.query_one("#bet-note", Note).say(
            Message(
                N_("{left} has left the table: the bets are now {player}'s."),
                left=left,
                player=self.bettor,
            ),
            kind="warning",
        )

    def _chosen(self) -> tuple[str, Bet]:
        player = self.query_one("#player", Select).value
        bet = self.query_one("#bet", Select).value
        if player is Select.NULL:
            raise BetError(Message(N_("Choose the player who bets.")))
        if bet is Select.NULL:
            raise BetError(Message(N_("Choose a bet in the list.")))
        return str(player), Bet.parse(str(bet))

    def place(self) -> None:
        note = self.query_one("#bet-note", Note)
        try:
            player, bet = self._chosen()
        except AndarBaharError as refused:
            note.say(refused)
            return
        try:
            placed = self.round.place_bet(player, bet, self.value("stake"))
        except AndarBaharError as refused:
            self.refuse("#bet-note", refused, "stake")  # the stake selected: typing replaces it
            return
        lang = language_of(self.t)
        if placed.added:
            text = Message(
                N_("{player}: {stake} more on {bet}, {total} on it in all."),
                player=placed.player,
                stake=format_number(placed.stake, lang),
                bet=placed.bet,
                total=format_number(placed.total, lang),
            )
        else:
            text = Message(
                N_("{player} bets {stake} on {bet}."),
                player=placed.player,
                stake=format_number(placed.stake, lang),
                bet=placed.bet,
            )
        note.say(text, kind="success")
        self.query_one("#stake", Input).value = ""
        self.sync()

    def withdraw(self) -> None:
        note = self.query_one("#bet-note", Note)
        try:
            player, bet = self._chosen()
            if not any(w.player == player and w.bet == bet for w in self.round.wagers):
                raise BetError(
                    Message(
                        N_("{player} has no bet on {bet} to take back."), player=player, bet=bet
                    )
                )
            self.round.withdraw_bet(player, bet)
        except AndarBaharError as refused:
            note.say(refused)
            return
        note.say(
            Message(N_("{player} takes the bet on {bet} back."), player=player, bet=bet),
            kind="success",
        )
        self.sync()

    def _unplaced_bet(self, action: str) -> Message | None:
        """The question before a step that would close the bets with a stake typed but not
        placed (the dealer asks before dealing on without it)."""
        stakes = self.query("#stake").results(Input)
        typed = next((field.value.strip() for field in stakes), "")
        if not typed or not self._closes_bets(action):
            return None
        return Message(
            N_(
                "The stake {stake} is typed but not placed: deal on without it? (No: go back"
                " to the bet and press Enter to place it.)"
            ),
            stake=typed,
        )

    def _closes_bets(self, action: str) -> bool:
        """Whether *action* of the dealer would close the bets now."""
        rnd = self.round
        if not rnd.bets_open:
            return False
        if action == "auto":
            return True
        before_centre = rnd.procedure.window is BetWindow.BEFORE_CENTRE
        if rnd.procedure.has_centre and rnd.centre is None:
            return action in ("centre", "deal") and before_centre
        if not rnd.procedure.has_centre and rnd.target is None:
            return False  # the target rank is chosen first; the bets stay open
        return action == "deal"

    # -- the deal and the settlement -----------------------------------------------------

    def action_panel(self, action: str) -> None:
        self.query_one(RoundPanel).act(action)

    def on_round_panel_stepped(self, event: RoundPanel.Stepped) -> None:
        self.sync()
        paid = self.round.centre_settled
        if paid and self.announced is not self.round:  # the centre card just turned
            self.announced = self.round
            self.query_one("#bet-note", Note).say(self._centre_message(paid), kind="success")
        if self.focused is None:  # the betting controls just closed under the focus
            card = self.query("#card")
            self.focus_on(card.first() if card else self.query_one("#deal"))

    def _centre_message(self, paid: tuple[SettledBet, ...]) -> Message:
        """``The centre card is Q♥: Asha's bet on centre card ♥ wins 29; …``"""
        centre = self.round.centre
        outcomes = "; ".join(
            tr(
                self,
                Message(
                    N_("{player}'s bet on {bet} {outcome}"),
                    player=bet.player,
                    bet=bet.bet,
                    outcome=self._centre_outcome(bet),
                ),
            )
            for bet in paid
        )
        return Message(
            N_("The centre card is {card}: {outcomes} (paid with the round)."),
            card=centre,
            outcomes=outcomes,
        )

    async def on_round_panel_finished(self, event: RoundPanel.Finished) -> None:
        rnd, record = event.round, self.record
        self.settlement = self.game.finish_round()
        number = self.rounds_before + len(self.game.rounds)

        def store(storage) -> None:  # type: ignore[no-untyped-def]
            storage.record_round(rnd, game_id=record.id, number=number)

        self.history(store)
        await self.redraw()
        self.focus_on(self.query_one("#next", Button))
        self.pin(
            "#settlement-title", "#settlement"
        )  # who gets paid, where the dealer's eye is, until Next

    async def action_next(self) -> None:
        if self.settlement is None:
            self.query_one("#panel-note", Note).say(
                Message(N_("Deal the round to its end first.")), kind="error"
            )
            return
        self.settlement = None
        self.pin()
        self.dealer.next_round(
            self.game.start_round(rng=trainer(self).rng(), physical=self.physical)
        )
        await self.redraw()
        self._focus_betting()

    def action_players(self) -> None:
        from andar_bahar.tui.club_summary import PlayersScreen

        self.app.push_screen(PlayersScreen(self.game))

    async def on_screen_resume(self) -> None:
        """Back from the players' screen: the table shows who sits at it now."""
        self.resync()

    # -- leaving ---------------------------------------------------------------------

    def leave_question(self) -> Message | None:
        if self.ended:
            return None
        if not self.round.finished and self.round.wagers:
            return Message(
                N_(
                    "End the session? The round in play is not finished: its bets are not"
                    " settled and stay with the players. The balances are stored and the"
                    " session's summary is shown."
                )
            )
        return Message(
            N_("End the session? The balances are stored and the session's summary is shown.")
        )

    def leave(self) -> None:
        from andar_bahar.tui.club_summary import SummaryScreen

        self._store_end()
        self.app.switch_screen(SummaryScreen(self.game))
