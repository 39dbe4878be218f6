"""The dealer's controls for one round: centre card or target rank, deal, auto, a real deck.

The state lives in a :class:`Dealer` that the screen keeps (the round, the speed, whether
Auto runs, the last message); the :class:`RoundPanel` widget only draws it, so drawing the
screen again (another language) loses nothing and Auto keeps running at its speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message as TextualMessage
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Select, Static
from textual.widgets.select import NoSelection

from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.errors import ActionError, AndarBaharError
from andar_bahar.engine.round import Round
from andar_bahar.games.wording import Wording
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message, Translator, translate
from andar_bahar.tui.common import Bar, Choice, Note, Say, button, keys, literal, tr
from andar_bahar.tui.layout import LayoutView
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.screen import TrainerScreen, steady

__all__ = ["DEALING_KEYS", "Dealer", "RoundPanel"]

SPEEDS = ("0.3", "0.6", "1", "2")
"""Seconds between cards when Auto deals."""

DEALING_KEYS: list[BindingType] = [
    Binding(keys("d"), "panel('deal')", N_("Deal")),
    Binding(keys("t"), "panel('auto')", N_("Auto")),
    Binding(keys("x"), "panel('void')", N_("Deck exhausted"), show=False),
]
"""The dealer's hotkeys, for a screen that holds a :class:`RoundPanel`."""


@dataclass(eq=False)
class Dealer:
    """One table's dealing: the round in play and how it is being dealt."""

    round: Round
    wording: Wording
    physical: bool = False
    before_deal: Callable[[], None] | None = None
    speed: str = "0.6"
    message: Say = None
    kind: str = ""
    timer: Timer | None = field(default=None, repr=False)
    typed: str = ""
    """A card being typed from a real deck (kept when the screen is drawn again)."""
    refused: str | None = None
    """The card text last refused (its sentence goes once the field is changed)."""
    rank: str | None = None
    """The target rank chosen in the list, not yet taken (the chosen-rank procedure)."""
    question: Callable[[str], Message | None] | None = None
    """A question to ask before a step (``centre``, ``target``, ``deal``, ``auto``), or none."""
    declined: Callable[[], object] | None = None
    """What follows a no to that question (the control to correct in focus)."""

    @property
    def auto(self) -> bool:
        """Whether Auto is dealing."""
        return self.timer is not None

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def next_round(self, rnd: Round) -> None:
        """Deal *rnd* next, at the same speed."""
        self.stop()
        self.round = rnd
        self.message, self.kind = None, ""
        self.typed, self.rank = "", None

    def say(self, text: Say, kind: str = "") -> None:
        self.message, self.kind = text, kind
        self.refused = None


@steady
class RoundPanel(Vertical):
    """Draws a :class:`Dealer` and takes its steps; posts :class:`Finished` at the end."""

    DEFAULT_CSS = """
    RoundPanel { height: auto; }
    RoundPanel #reminder { color: $warning; width: 1fr; height: auto; }
    """

    class Finished(TextualMessage):
        """The round has a winner or is void."""

        def __init__(self, rnd: Round) -> None:
            super().__init__()
            self.round = rnd

    class Stepped(TextualMessage):
        """A step was taken (the centre card, a dealt card, the target rank)."""

    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(self, dealer: Dealer, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.dealer = dealer

    @property
    def round(self) -> Round:
        return self.dealer.round

    def compose(self) -> ComposeResult:
        dealer, rnd = self.dealer, self.dealer.round
        t = self.app_translator
        yield LayoutView(id="layout")
        if dealer.physical:
            yield Static("", id="reminder", markup=False)
        controls: list[Widget] = []
        if dealer.physical:
            controls.append(
                Input(
                    value=dealer.typed,
                    placeholder=tr(self, Message(N_("card, e.g. QH"))),
                    id="card",
                    compact=True,
                )
            )
        if not rnd.procedure.has_centre:
            controls.append(
                Choice(
                    [(f"{r.localized(t)} — {r.name_localized(t)}", r.value) for r in Rank],
                    prompt=tr(self, Message(N_("target rank"))),
                    value=self._rank_shown(),
                    id="rank",
                )
            )
            controls.append(button(tr(self, Message(N_("Choose the target rank"))), "target"))
        else:
            controls.append(button(translate(dealer.wording.turn_centre, t), "centre"))
        controls.append(button(tr(self, Message(N_("Deal a card"))), "deal", variant="primary"))
        if not dealer.physical:
            controls.append(button(self._auto_label(), "auto"))
            speeds = [(self._speed_text(s), s) for s in SPEEDS]
            controls.append(Choice(speeds, value=dealer.speed, allow_blank=False, id="speed"))
        else:
            controls.append(
                button(tr(self, Message(N_("Deck exhausted"))), "void", variant="warning")
            )
        yield Bar(*controls, width=16)
        yield Note(id="panel-note")

    def _rank_shown(self) -> str | NoSelection:
        """The target rank taken, or the one chosen in the list, or none yet."""
        target = self.dealer.round.target
        if target is not None:
            return target.value
        return self.dealer.rank if self.dealer.rank is not None else Select.NULL

    @property
    def app_translator(self) -> Translator:
        return trainer(self).translator

    def _speed_text(self, speed: str) -> str:
        number = format_number(Decimal(speed), language_of(self.app_translator))
        return tr(self, Message(N_("every {seconds} s"), seconds=number))

    def _auto_label(self) -> str:
        if self.dealer.auto:
            return tr(self, Message(N_("Stop Auto ⏸")))
        return tr(self, Message(N_("Auto ▶")))

    def on_mount(self) -> None:
        self.sync()

    def sync(self) -> None:
        """Show the round and the controls that can be used now."""
        dealer, rnd = self.dealer, self.dealer.round
        t = self.app_translator
        self.query_one(LayoutView).show(rnd, t, wording=dealer.wording)
        finished = rnd.finished
        for widget_id in ("centre", "target", "deal", "void", "auto"):
            for widget in self.query(f"#{widget_id}"):
                widget.disabled = finished
        if rnd.procedure.has_centre:
            self.query_one("#centre", Button).disabled = finished or rnd.centre is not None
        else:
            chosen = rnd.target is not None
            self.query_one("#target", Button).disabled = finished or chosen
            self.query_one("#rank", Select).disabled = finished or chosen
        for auto in self.query("#auto").results(Button):
            auto.label = literal(self._auto_label())
            auto.variant = "success" if dealer.auto else "default"
        for widget in self.query("#card"):
            widget.disabled = finished
        for reminder in self.query("#reminder").results(Static):
            reminder.update(literal(self._reminder()))
        note = self.query_one("#panel-note", Note)
        if dealer.auto and dealer.message is None:
            note.say(
                Message(N_("Auto is dealing a card every {seconds} s."), seconds=self._seconds())
            )
        else:
            note.say(dealer.message, kind=dealer.kind)
        reveal = getattr(self.screen, "reveal_focus", None)
        if reveal is not None:  # last: once everything above has its new size
            reveal()

    def _seconds(self) -> str:
        return format_number(Decimal(self.dealer.speed), language_of(self.app_translator))

    def _reminder(self) -> str:
        rnd = self.dealer.round
        if rnd.finished:
            return tr(
                self,
                Message(N_("Gather all 52 cards and shuffle them again before the next round.")),
            )
        if rnd.centre is None and not rnd.dealt:
            return tr(
                self,
                Message(
                    N_(
                        "A real deck: gather all 52 cards, shuffle and cut; then type each card"
                        " as you turn it and press Enter."
                    )
                ),
            )
        return tr(self, Message(N_("Type each card as you turn it and press Enter.")))

    # -- steps -----------------------------------------------------------------------

    def _typed_card(self) -> Card | None:
        if not self.dealer.physical:
            return None
        field = self.query_one("#card", Input)
        text = field.value.strip()
        if not text:
            raise ActionError(Message(N_("Type the card you turned, e.g. QH or 10♦.")))
        card = Card.parse(text)
        return card

    def step(self, action: str) -> bool:
        """Take one step; a refusal is shown in place and changes nothing. True if taken."""
        rnd = self.dealer.round
        try:
            if action == "centre":
                rnd.turn_centre(self._typed_card())
            elif action == "target":
                rank = self.query_one("#rank", Select).value
                if rank is Select.NULL:
                    raise ActionError(Message(N_("Choose the target rank in the list first.")))
                rnd.choose_target(str(rank))
            elif action == "deal":
                self._deal()
        except AndarBaharError as refused:
            self.dealer.say(refused, "error")
            for card_field in self.query("#card").results(Input):
                self.dealer.refused = card_field.value
                card_field.select_all()  # the next card typed replaces it
            self.sync()
            return False
        for card_field in self.query("#card").results(Input):
            card_field.value = ""
        self.dealer.say(None)
        if rnd.finished:
            self.dealer.stop()
        self.sync()
        self.post_message(self.Stepped())
        if rnd.finished:
            self.post_message(self.Finished(rnd))
        return True

    def _deal(self) -> None:
        rnd = self.dealer.round
        if rnd.procedure.has_centre and rnd.centre is None:
            rnd.turn_centre(self._typed_card())
            return
        if not rnd.procedure.has_centre and rnd.target is None:
            rank = self.query_one("#rank", Select).value
            if rank is Select.NULL:
                raise ActionError(
                    Message(N_("Choose the target rank before dealing: the players pick it."))
                )
            rnd.choose_target(str(rank))
            return
        if not rnd.dealt and self.dealer.before_deal is not None:
            self.dealer.before_deal()
        rnd.deal(self._typed_card())

    def void(self) -> None:
        """Report the deck exhausted, after the dealer confirms it."""
        rnd = self.dealer.round
        if not rnd.can_void():
            self.dealer.say(
                Message(N_("Nothing is dealt yet: the round cannot be void."))
                if not rnd.finished
                else Message(N_("The round is already over.")),
                "error",
            )
            self.sync()
            return
        screen = self.screen

        def void() -> None:
            if not rnd.finished:
                rnd.void()
                self.dealer.stop()
                self.dealer.say(None)
                panel = screen.query_one(RoundPanel)
                panel.sync()
                panel.post_message(self.Finished(rnd))

        if isinstance(screen, TrainerScreen):
            screen.ask(Message(self.dealer.wording.void_question), void)

    def toggle_auto(self) -> None:
        """Start or stop Auto; it keeps its speed from round to round."""
        dealer = self.dealer
        if dealer.physical or dealer.round.finished:
            return
        if dealer.auto:
            dealer.stop()
        else:
            self._start_timer()
            dealer.say(None)
        self.sync()

    def _start_timer(self) -> None:
        """Auto's timer, the screen's: it finds the panel as the screen is now, and skips
        a tick while the screen is drawn again."""
        screen = self.screen
        dealer = self.dealer

        def tick() -> None:
            panels = screen.query(RoundPanel)
            if not panels or dealer.round.finished:
                dealer.stop()
                return
            panel = panels.first()
            if not panel.step("deal"):
                dealer.stop()
                panel.sync()

        dealer.stop()
        if isinstance(screen, TrainerScreen):
            dealer.timer = screen.every(float(dealer.speed), tick)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "card":
            dealer = self.dealer
            dealer.typed = event.value
            if dealer.refused is not None and event.value != dealer.refused:
                dealer.say(None)  # the card refused is being typed again: its sentence goes
                self.sync()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "rank":
            self.dealer.rank = None if event.value is Select.NULL else str(event.value)
        if event.select.id == "speed" and event.value is not Select.NULL:
            event.stop()
            self.dealer.speed = str(event.value)
            if self.dealer.auto:
                self._start_timer()
            self.sync()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.act(event.button.id or "")

    def act(self, action: str, *, asked: bool = False) -> None:
        """A button or a hotkey: ``centre``, ``target``, ``deal``, ``auto`` or ``void``;
        the dealer's question first, if there is one (*asked*: it has been answered)."""
        dealer, screen = self.dealer, self.screen
        stopping = action == "auto" and dealer.auto
        if dealer.question and not asked and not stopping and isinstance(screen, TrainerScreen):
            question = dealer.question(action)
            if question is not None:
                screen.ask(
                    question,
                    lambda: screen.query_one(RoundPanel).act(action, asked=True),
                    dealer.declined,
                )
                return
        if action == "auto":
            self.toggle_auto()
        elif action == "void":
            if self.dealer.physical:
                self.void()
        elif action in ("centre", "target", "deal"):
            self.step(action)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "card":
            rnd = self.dealer.round
            self.act("centre" if rnd.procedure.has_centre and rnd.centre is None else "deal")
