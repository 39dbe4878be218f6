"""The teaching game at the terminal: markers, the deal, tokens and the standings."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Select, Static

from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import PROCEDURES, Row
from andar_bahar.games.teaching import TRAINER, RoundScore, TeachingGame
from andar_bahar.games.wording import LESSON, procedure_title
from andar_bahar.i18n.messages import N_, NP_, Message
from andar_bahar.tui.common import Note, button, keys, literal, tr
from andar_bahar.tui.panel import DEALING_KEYS, Dealer, RoundPanel
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.records import GameRecord
from andar_bahar.tui.screen import EndScreen, TrainerScreen
from andar_bahar.tui.tables import Table
from andar_bahar.tui.text import short_name

__all__ = ["StandingsScreen", "TeachingRoundScreen", "TeachingSetup", "split_names"]

MARKER_KEYS = Binding.Group(N_("marker"))
"""The footer's name for the keys a and b (the next player's marker)."""

_ROUNDS = re.compile(r"[-+]?[0-9]{1,6}")  # a sign too: "-1" is a number, just not a count


def split_names(text: str) -> list[str]:
    """Names separated by commas or new lines.

    >>> split_names("Asha, Ravi,, [/]")
    ['Asha', 'Ravi', '[/]']
    """
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


def read_rounds(text: str) -> int:
    """The number of rounds as typed: ASCII digits only, or a sentence saying what is wrong.

    >>> read_rounds(" 12 ")
    12
    >>> read_rounds("²")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.BetError: Rounds must be a whole number, not '²'.
    """
    cleaned = text.strip()
    if not _ROUNDS.fullmatch(cleaned):
        raise BetError(Message(N_("Rounds must be a whole number, not '{text}'."), text=cleaned))
    return int(cleaned)


class PlayerName(Static):
    """A player's name in a marker row: in full where the row has room, else cut after the
    part that tells it from the other players' names, and in full again (on more lines)
    while a button of its row has the focus."""

    DEFAULT_CSS = """
    PlayerName { height: auto; max-width: 40%; margin: 0 1 0 0; }
    """

    def __init__(self, name: str, players: tuple[str, ...], *, width: int) -> None:
        super().__init__(markup=False, classes="name")
        self.full_name = name
        self.players = players
        self.styles.width = width
        self.in_full = False

    def render(self) -> Content:
        if self.in_full:
            return literal(self.full_name)
        return literal(short_name(self.full_name, self.players, self.size.width))

    def show_in_full(self, in_full: bool) -> None:
        if in_full != self.in_full:
            self.in_full = in_full
            self.refresh(layout=True)


class TeachingSetup(TrainerScreen):
    """Who plays, how many rounds, with or without tokens, a real deck or not."""

    TITLE_TEXT = N_("Teaching game")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "start", N_("Start the lesson")),
    ]

    def compose_body(self) -> ComposeResult:
        yield Static(
            literal(
                tr(self, Message(N_("Participants, separated by commas (2–8 suit a lesson):")))
            ),
            classes="label",
        )
        yield self.field(
            "names", placeholder=tr(self, Message(N_("e.g. {example}"), example="Asha, Ravi, Nino"))
        )
        yield self.checkbox("trainer", tr(self, Message(N_("The trainer deals (a learner alone)"))))
        yield Static(literal(tr(self, Message(N_("Rounds:")))), classes="label")
        yield self.field("rounds", value="10")
        yield self.checkbox("scoring", tr(self, Message(N_("Score tokens"))), value=True)
        yield self.checkbox(
            "physical", tr(self, Message(N_("Deal from a real deck (type each card)")))
        )
        yield Static(literal(tr(self, Message(N_("Procedure:")))), classes="label")
        yield self.choice(
            "procedure",
            [(procedure_title(name, self.t), name) for name in PROCEDURES],
            "home",
        )
        yield Static("", id="procedure-text", classes="hint", markup=False)
        yield button(tr(self, Message(N_("Start the lesson"))), "start", variant="primary")
        yield Note(id="error")

    def sync(self) -> None:
        procedure = PROCEDURES[self.value("procedure")]
        self.query_one("#procedure-text", Static).update(
            literal(LESSON.describe(procedure, self.t))
        )

    def on_select_changed(self, event: Select.Changed) -> None:
        self.sync()

    def on_input_submitted(self) -> None:
        self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()

    def action_start(self) -> None:
        self.start()

    def start(self) -> None:
        error = self.query_one("#error", Note)
        try:
            rounds = read_rounds(self.value("rounds"))
        except AndarBaharError as refused:
            self.refuse("#error", refused, "rounds")
            return
        try:
            game = TeachingGame(
                split_names(self.value("names")),
                procedure=PROCEDURES[self.value("procedure")],
                rounds=rounds,
                scoring=self.checked("scoring"),
                trainer_deals=self.checked("trainer"),
            )
        except AndarBaharError as refused:
            self.refuse("#error", refused, "names", select=False)  # to add a name to
            return
        error.say(None)
        self.app.push_screen(TeachingRoundScreen(game, physical=self.checked("physical")))


class TeachingRoundScreen(TrainerScreen):
    """One round after another: the dealer, the markers, the deal, the tokens."""

    TITLE_TEXT = N_("Teaching game")
    DEFAULT_CSS = """
    TeachingRoundScreen .marker { height: auto; margin: 0 0 0 0; }
    TeachingRoundScreen .marker Button { margin: 0 1 0 0; min-width: 10; }
    TeachingRoundScreen .marker .marked { width: 1fr; }
    TeachingRoundScreen #next { width: auto; min-width: 20; margin: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # one name for the pair: the footer fits 80 columns in Georgian too
        Binding(keys("a"), "mark('andar')", N_("Andar"), group=MARKER_KEYS),
        Binding(keys("b"), "mark('bahar')", N_("Bahar"), group=MARKER_KEYS),
        *DEALING_KEYS,
        Binding(keys("n"), "next", N_("Next")),
    ]

    def __init__(self, game: TeachingGame, *, physical: bool = False) -> None:
        super().__init__()
        self.game = game
        self.physical = physical
        self.record = GameRecord()
        self.score: RoundScore | None = None
        rnd = game.current or game.start_round(rng=trainer(self).rng(), physical=physical)
        self.dealer = Dealer(rnd, LESSON, physical=physical, before_deal=game.check_ready_to_deal)

    @property
    def round(self) -> Round:
        return self.dealer.round

    @property
    def players(self) -> tuple[str, ...]:
        """Who marks a row in the round shown (the finished one, until the next begins)."""
        return tuple(self.score.tokens) if self.score is not None else self.game.players

    def on_mount(self) -> None:
        super().on_mount()
        game, record = self.game, self.record
        settings = {"rounds": game.rounds, "scoring": game.scoring, "physical": self.physical}

        def start(store) -> None:  # type: ignore[no-untyped-def]
            record.id = store.start_game(
                "teaching", game.procedure, game.paytable, game.participants, settings
            )

        self.history(start)
        self._focus_first()

    def compose_body(self) -> ComposeResult:
        game = self.game
        yield Static("", id="round-title", classes="title", markup=False)
        yield Static(literal(LESSON.describe(game.procedure, self.t)), classes="hint")
        if game.note is not None:
            yield Static(literal(tr(self, game.note)), classes="note")
        yield Static(
            literal(
                tr(
                    self,
                    Message(
                        N_(
                            "Each player puts a marker on a row before the deal; it is locked"
                            " once the first card is dealt."
                        )
                    ),
                )
            ),
            classes="hint",
        )
        andar, bahar = Row.ANDAR.localized(self.t), Row.BAHAR.localized(self.t)
        players = self.players
        width = max((cell_len(name) for name in players), default=1)  # at most 40 % of the row
        for index, name in enumerate(players):
            with Horizontal(classes="marker", id=f"marker-row-{index}"):
                yield PlayerName(name, players, width=width)
                yield button(andar, f"mark-{index}-andar")
                yield button(bahar, f"mark-{index}-bahar")
                yield Static("", id=f"marker-{index}", classes="marked", markup=False)
        yield Note(id="marker-note")
        yield RoundPanel(self.dealer, id="panel")
        yield Note(id="score")
        yield button(tr(self, Message(N_("Next round"))), "next", variant="success")
        yield Static("", id="scores", markup=False)

    def sync(self) -> None:
        game, score = self.game, self.score
        number = score.number if score is not None else game.round_number
        dealer = score.dealer if score is not None else game.dealer
        self.query_one("#round-title", Static).update(
            literal(
                tr(
                    self,
                    Message(
                        N_("Round {number} of {rounds} — dealer: {dealer}"),
                        number=number,
                        rounds=game.rounds,
                        dealer=self._who(dealer),
                    ),
                )
            )
        )
        open_ = self.round.bets_open and score is None
        for index, name in enumerate(self.players):
            for row in Row:
                self.query_one(f"#mark-{index}-{row.value}", Button).disabled = not open_
            self.query_one(f"#marker-{index}", Static).update(literal(self._marker_text(name)))
        self.query_one(RoundPanel).sync()
        self.query_one("#score", Note).say(self._verdict(), kind="success")
        next_button = self.query_one("#next", Button)
        next_button.disabled = score is None
        if game.finished:
            next_button.label = literal(tr(self, Message(N_("Standings"))))
        self.query_one("#scores", Static).update(literal(self._scores_text()))

    def _who(self, name: str) -> str:
        return tr(self, Message(N_("the trainer"))) if name == TRAINER else name

    def _marker_text(self, name: str) -> str:
        row = (self.score.markers if self.score is not None else self.round.markers).get(name)
        if row is None:
            return ""
        text = f"◆ {row.localized(self.t)}"
        if self.score is not None and self.score.winner is not None:
            text += " ✓" if row is self.score.winner else " ✗"
        return text

    def _verdict(self) -> str | None:
        score = self.score
        if score is None:
            return None
        if score.void:
            return tr(
                self, Message(N_("The round is void: it is played again and counts for nobody."))
            )
        right = [name for name in score.tokens if score.markers.get(name) is score.winner]
        wrong = [name for name in score.tokens if name not in right]
        lines = []
        if right:
            lines.append(tr(self, Message(N_("Right: {names}."), names=right)))
        if wrong:
            lines.append(tr(self, Message(N_("Wrong: {names}."), names=wrong)))
        if self.game.scoring:
            lines.append(
                tr(self, Message(N_("A token for: {names}."), names=right))
                if right
                else tr(
                    self, Message(N_("Nobody chose {row}: no tokens this round."), row=score.winner)
                )
            )
        return "\n".join(lines)

    def _scores_text(self) -> str:
        if not self.game.scoring:
            return tr(self, Message(N_("Scoring is off.")))
        parts = [
            tr(self, Message(NP_("{name}: {n} token", "{name}: {n} tokens"), n=tokens, name=name))
            for name, tokens in self.game.scores.items()
        ]
        return " · ".join(parts)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A marker button in focus: its player's name in full."""
        self._name_in_full(event.widget, in_full=True)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._name_in_full(event.widget, in_full=False)

    @staticmethod
    def _name_in_full(widget: Widget, *, in_full: bool) -> None:
        row = widget.parent
        if isinstance(row, Horizontal) and row.has_class("marker"):
            for name in row.query(PlayerName):
                name.show_in_full(in_full)

    def _focus_first(self) -> None:
        buttons = [b for b in self.query(Button) if not b.disabled]
        if buttons:
            self.focus_on(buttons[0])

    # -- markers -------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id.startswith("mark-"):
            _, index, row = button_id.split("-")
            self.mark(int(index), Row(row))
        elif button_id == "next":
            self.run_worker(self.action_next())

    def mark(self, index: int, row: Row) -> None:
        note = self.query_one("#marker-note", Note)
        if self.score is not None or not self.round.bets_open:
            note.say(
                Message(N_("Markers are locked: the first card has been dealt.")), kind="error"
            )
            return
        name = self.players[index]
        try:
            self.round.place_marker(name, row)
        except AndarBaharError as refused:
            note.say(refused)
            return
        note.say(None)
        self.dealer.say(None)
        self.sync()

    def action_mark(self, row: str) -> None:
        """Hotkeys a and b: a marker for the first player without one."""
        waiting = self.game.missing_markers() if self.score is None else ()
        if not waiting:
            self.query_one("#marker-note", Note).say(
                Message(N_("Every player has a marker; press a player's button to move one."))
                if self.score is None and self.round.bets_open
                else Message(N_("Markers are locked: the first card has been dealt.")),
                kind="" if self.round.bets_open and self.score is None else "error",
            )
            return
        self.mark(self.players.index(waiting[0]), Row(row))

    # -- the deal --------------------------------------------------------------------

    def action_panel(self, action: str) -> None:
        self.query_one(RoundPanel).act(action)

    def on_round_panel_stepped(self, event: RoundPanel.Stepped) -> None:
        self.sync()

    def on_round_panel_finished(self, event: RoundPanel.Finished) -> None:
        rnd, game, record = event.round, self.game, self.record
        self.score = game.finish_round()
        number = self.score.number

        def store(storage) -> None:  # type: ignore[no-untyped-def]
            storage.record_round(rnd, game_id=record.id, number=number)

        self.history(store)
        if game.finished:
            self._store_result()
        self.sync()
        self.focus_on(self.query_one("#next", Button))
        self.pin("#layout", "#score")  # the winner and the verdict, in view until Next

    def _store_result(self) -> None:
        game, record = self.game, self.record
        result = {"scores": game.scores, "winners": list(game.winners)}

        def finish(storage) -> None:  # type: ignore[no-untyped-def]
            if record.id is not None and not record.finished:
                record.finished = True
                storage.finish_game(record.id, result)

        self.history(finish)

    async def action_next(self) -> None:
        if self.score is None:
            self.query_one("#panel-note", Note).say(
                Message(N_("Deal the round to its end first.")), kind="error"
            )
            return
        if self.game.finished:
            self.app.switch_screen(StandingsScreen(self.game))
            return
        self.score = None
        self.pin()
        self.dealer.next_round(
            self.game.start_round(rng=trainer(self).rng(), physical=self.physical)
        )
        await self.redraw()
        self._focus_first()

    def leave_question(self) -> Message | None:
        if self.game.finished:
            return None
        return Message(
            N_(
                "Leave the lesson? The rounds played stay in the history, but the lesson"
                " cannot be continued."
            )
        )

    def leave(self) -> None:
        self.dealer.stop()
        super().leave()


class StandingsScreen(EndScreen):
    """After the last round: places and tokens; equal top scores share the victory."""

    TITLE_TEXT = N_("Standings")

    def __init__(self, game: TeachingGame) -> None:
        super().__init__()
        self.game = game

    def compose_body(self) -> ComposeResult:
        game = self.game
        winners = list(game.winners)
        if game.scoring:
            yield Table(
                [tr(self, Message(m)) for m in (N_("place"), N_("name"), N_("tokens"))],
                [[str(s.place), s.name, str(s.tokens)] for s in game.standings()],
                right=(0, 2),
                id="standings",
            )
            text = (
                Message(N_("Shared victory: {names}."), names=winners)
                if len(winners) > 1
                else Message(N_("The winner: {name}."), name=winners[0])
            )
        else:
            yield Table(
                [tr(self, Message(m)) for m in (N_("round"), N_("winner"), N_("right"))],
                [
                    [
                        str(s.number),
                        s.winner.localized(self.t) if s.winner else tr(self, Message(N_("void"))),
                        ", ".join(n for n in s.tokens if s.markers.get(n) is s.winner) or "—",
                    ]
                    for s in game.history
                ],
                right=(0,),
                id="standings",
            )
            text = Message(N_("Scoring was off: everyone followed the matches."))
        yield Static(literal(tr(self, text)), id="verdict", classes="title")
        yield self.menu_button()
