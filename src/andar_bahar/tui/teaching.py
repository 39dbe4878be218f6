"""The teaching game at the terminal (seed 000, SPEC §8)."""

from __future__ import annotations

import random

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Select, Static, Switch

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import PROCEDURES, Row
from andar_bahar.games.teaching import TRAINER, TeachingGame
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.tui.common import tr, trainer
from andar_bahar.tui.panel import RoundPanel

__all__ = ["StandingsScreen", "TeachingRoundScreen", "TeachingSetup"]


def split_names(text: str) -> list[str]:
    """Names separated by commas or new lines."""
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


class TeachingSetup(Screen[None]):
    """Who plays, how many rounds, with or without tokens, a real deck or not."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Teaching game"))), classes="title")
            yield Label(
                tr(self, Message(N_("Participants, separated by commas (2–8 suit a lesson):")))
            )
            yield Input(placeholder="Asha, Ravi, Nino", id="names")
            with Horizontal(classes="row"):
                yield Label(tr(self, Message(N_("The trainer deals (a learner alone)"))))
                yield Switch(value=False, id="trainer")
            yield Label(tr(self, Message(N_("Rounds:"))))
            yield Input(value="10", id="rounds")
            with Horizontal(classes="row"):
                yield Label(tr(self, Message(N_("Score tokens"))))
                yield Switch(value=True, id="scoring")
            with Horizontal(classes="row"):
                yield Label(tr(self, Message(N_("Deal from a real deck (type each card)"))))
                yield Switch(value=False, id="physical")
            yield Label(tr(self, Message(N_("Procedure:"))))
            yield Select(
                [
                    (rules.describe(trainer(self).translator), name)
                    for name, rules in PROCEDURES.items()
                ],
                value="home",
                allow_blank=False,
                id="procedure",
            )
            yield Label("", id="error", classes="error")
            yield Button(tr(self, Message(N_("Start the lesson"))), id="start", variant="primary")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id != "start":
            return
        error = self.query_one("#error", Label)
        rounds_text = self.query_one("#rounds", Input).value.strip()
        if not rounds_text.isdigit():
            error.update(
                tr(
                    self,
                    Message(N_("Rounds must be a whole number, not '{text}'."), text=rounds_text),
                )
            )
            return
        try:
            game = TeachingGame(
                split_names(self.query_one("#names", Input).value),
                procedure=PROCEDURES[str(self.query_one("#procedure", Select).value)],
                rounds=int(rounds_text),
                scoring=self.query_one("#scoring", Switch).value,
                trainer_deals=self.query_one("#trainer", Switch).value,
            )
        except AndarBaharError as refused:
            error.update(refused.localized(trainer(self).translator))
            return
        error.update("")
        physical = self.query_one("#physical", Switch).value
        self.app.push_screen(TeachingRoundScreen(game, physical=physical))


class TeachingRoundScreen(Screen[None]):
    """One round after another: the dealer, the markers, the deal, the tokens."""

    DEFAULT_CSS = """
    TeachingRoundScreen .marker { height: auto; }
    TeachingRoundScreen .marker Label { width: 20; padding: 1 0 0 0; }
    TeachingRoundScreen .marker Button { margin: 0 1 0 0; }
    """

    def __init__(self, game: TeachingGame, *, physical: bool = False) -> None:
        super().__init__()
        self.game = game
        self.physical = physical
        self.game_id: int | None = None
        self.round: Round = game.current or game.start_round(rng=self._rng(), physical=physical)

    def _rng(self) -> random.Random:
        rng: random.Random = trainer(self).rng()
        return rng

    def on_mount(self) -> None:
        try:
            self.game_id = trainer(self).store.start_game(
                "teaching",
                self.game.procedure,
                self.game.paytable,
                self.game.participants,
                {
                    "rounds": self.game.rounds,
                    "scoring": self.game.scoring,
                    "physical": self.physical,
                },
            )
        except Exception as error:
            self.notify(str(error), severity="warning")

    def compose(self) -> ComposeResult:
        game = self.game
        yield Header()
        with Vertical():
            yield Label(
                tr(
                    self,
                    Message(
                        N_("Round {number} of {rounds} — dealer: {dealer}"),
                        number=game.round_number,
                        rounds=game.rounds,
                        dealer=self._dealer_name(),
                    ),
                ),
                classes="title",
                id="round-title",
            )
            yield Static(
                tr(
                    self,
                    Message(
                        N_("Procedure: {procedure}"),
                        procedure=game.procedure.describe(trainer(self).translator),
                    ),
                )
            )
            if game.note is not None:
                yield Static(tr(self, game.note), classes="note")
            yield Static(
                tr(
                    self,
                    Message(
                        N_(
                            "Each player puts a marker on a row before the deal; it is locked once the first card is dealt."
                        )
                    ),
                ),
            )
            for index, name in enumerate(game.players):
                with Horizontal(classes="marker"):
                    yield Label(name)
                    yield Button(
                        Row.ANDAR.localized(trainer(self).translator), id=f"mark-{index}-andar"
                    )
                    yield Button(
                        Row.BAHAR.localized(trainer(self).translator), id=f"mark-{index}-bahar"
                    )
                    yield Label(self._marker_text(name), id=f"marker-{index}")
            yield RoundPanel(self.round, before_deal=game.check_ready_to_deal, id="panel")
            yield Static("", id="score")
            yield Button(
                tr(self, Message(N_("Next round"))), id="next", variant="success", disabled=True
            )
            yield Static(self._scores_text(), id="scores")
        yield Footer()

    def _dealer_name(self) -> str:
        if self.game.dealer == TRAINER:
            return tr(self, Message(N_("the trainer")))
        return self.game.dealer

    def _marker_text(self, name: str) -> str:
        row = self.round.markers.get(name)
        return f"◆ {row.localized(trainer(self).translator)}" if row else ""

    def _scores_text(self) -> str:
        if not self.game.scoring:
            return tr(self, Message(N_("Scoring is off.")))
        parts = [
            tr(self, Message(NP_("{name}: {n} token", "{name}: {n} tokens"), n=tokens, name=name))
            for name, tokens in self.game.scores.items()
        ]
        return " · ".join(parts)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button.startswith("mark-"):
            _, index, row = button.split("-")
            name = self.game.players[int(index)]
            try:
                self.round.place_marker(name, row)
            except AndarBaharError as refused:
                self.query_one(RoundPanel).error(refused)
                return
            self.query_one(f"#marker-{index}", Label).update(self._marker_text(name))
            self.query_one(RoundPanel).error(None)
        elif button == "next":
            if self.game.finished:
                self.app.switch_screen(StandingsScreen(self.game))
                return
            self.round = self.game.start_round(rng=self._rng(), physical=self.physical)
            self.refresh(recompose=True)

    def on_round_panel_finished(self, event: RoundPanel.Finished) -> None:
        score = self.game.finish_round()
        try:
            trainer(self).store.record_round(event.round, game_id=self.game_id, number=score.number)
        except Exception as error:
            self.notify(str(error), severity="warning")
        for button in self.query(Button):
            if (button.id or "").startswith("mark-"):
                button.disabled = True
        if score.void:
            text = tr(
                self, Message(N_("The round is void: it is played again and counts for nobody."))
            )
        elif self.game.scoring:
            scorers = [name for name, tokens in score.tokens.items() if tokens]
            text = tr(
                self,
                Message(N_("A token for: {names}."), names=scorers)
                if scorers
                else Message(N_("Nobody chose {row}: no tokens this round."), row=score.winner),
            )
        else:
            text = ""
        self.query_one("#score", Static).update(text)
        self.query_one("#scores", Static).update(self._scores_text())
        next_button = self.query_one("#next", Button)
        next_button.disabled = False
        if self.game.finished:
            next_button.label = tr(self, Message(N_("Standings")))
            if self.game_id is not None:
                try:
                    trainer(self).store.finish_game(
                        self.game_id,
                        {"scores": self.game.scores, "winners": list(self.game.winners)},
                    )
                except Exception as error:
                    self.notify(str(error), severity="warning")


class StandingsScreen(Screen[None]):
    """After the last round: places and tokens; equal top scores share the victory."""

    def __init__(self, game: TeachingGame) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Label(tr(self, Message(N_("Standings"))), classes="title")
            yield DataTable(id="standings")
            winners = list(self.game.winners)
            if not self.game.scoring:
                text = Message(N_("Scoring was off: everyone followed the matches."))
            elif len(winners) > 1:
                text = Message(N_("Shared victory: {names}."), names=winners)
            else:
                text = Message(N_("The winner: {name}."), name=winners[0])
            yield Static(tr(self, text), id="verdict", classes="title")
            yield Button(tr(self, Message(N_("Back to the menu"))), id="menu")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(
            tr(self, Message(N_("place"))),
            tr(self, Message(N_("name"))),
            tr(self, Message(N_("tokens"))),
        )
        for standing in self.game.standings():
            table.add_row(str(standing.place), standing.name, str(standing.tokens))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "menu":
            while len(self.app.screen_stack) > 2:
                self.app.pop_screen()
