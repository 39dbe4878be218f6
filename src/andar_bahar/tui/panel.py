"""The dealer's controls for one round: centre card, deal, auto, a real deck, void."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message as TextualMessage
from textual.timer import Timer
from textual.widgets import Button, Input, Label, Select

from andar_bahar.engine.cards import Card
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import tr, trainer
from andar_bahar.tui.layout import LayoutView

__all__ = ["RoundPanel"]

SPEEDS = ("0.3", "0.6", "1", "2")


class RoundPanel(Vertical):
    """Drives a :class:`Round` step by step or automatically, from a virtual or real deck.

    *before_deal* is asked before the first card (the teaching game checks the
    markers there); it raises a project error to refuse.
    """

    DEFAULT_CSS = """
    RoundPanel { height: auto; }
    RoundPanel Horizontal { height: auto; }
    RoundPanel Button { margin: 0 1 0 0; }
    RoundPanel #card { width: 16; }
    RoundPanel #speed { width: 14; }
    RoundPanel #panel-error { color: $error; height: auto; }
    """

    class Finished(TextualMessage):
        """The round has a winner or is void."""

        def __init__(self, rnd: Round) -> None:
            super().__init__()
            self.round = rnd

    class Stepped(TextualMessage):
        """A step was taken (the centre card, a dealt card)."""

    def __init__(
        self,
        rnd: Round,
        *,
        before_deal: Callable[[], None] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.round = rnd
        self.before_deal = before_deal
        self.physical = rnd.deck is None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield LayoutView(id="layout")
        with Horizontal():
            if self.physical:
                yield Input(placeholder=tr(self, Message(N_("card, e.g. QH"))), id="card")
            if self.round.procedure.has_centre:
                yield Button(tr(self, Message(N_("Turn the centre card"))), id="centre")
            else:
                yield Button(tr(self, Message(N_("Choose the target rank"))), id="target")
            yield Button(tr(self, Message(N_("Deal a card"))), id="deal", variant="primary")
            if not self.physical:
                yield Button(tr(self, Message(N_("Auto"))), id="auto")
                yield Select(
                    [(f"{s} s", s) for s in SPEEDS], value="0.6", allow_blank=False, id="speed"
                )
            else:
                yield Button(tr(self, Message(N_("Deck exhausted"))), id="void", variant="warning")
        yield Label("", id="panel-error")

    def on_mount(self) -> None:
        self.refresh_layout()

    def refresh_layout(self) -> None:
        self.query_one(LayoutView).show(self.round, trainer(self).translator)
        finished = self.round.finished
        for button in self.query(Button):
            button.disabled = finished
        if finished:
            self.stop_auto()

    def error(self, message: Message | AndarBaharError | None) -> None:
        label = self.query_one("#panel-error", Label)
        if message is None:
            label.update("")
        elif isinstance(message, AndarBaharError):
            label.update(message.localized(trainer(self).translator))
        else:
            label.update(tr(self, message))

    def _typed_card(self) -> Card | None:
        if not self.physical:
            return None
        field = self.query_one("#card", Input)
        text = field.value.strip()
        if not text:
            raise _Refused(Message(N_("Type the card you turned, e.g. QH or 10♦.")))
        card = Card.parse(text)
        field.value = ""
        return card

    def step(self, action: str) -> bool:
        """Take one step; report a refusal in place and change nothing. True if taken."""
        try:
            if action == "centre":
                self.round.turn_centre(self._typed_card())
            elif action == "target":
                field = self.query_one("#card", Input) if self.physical else None
                text = field.value.strip() if field is not None else self._random_rank()
                if not text:
                    raise _Refused(
                        Message(N_("Type the target rank in the card field, e.g. 7 or Q."))
                    )
                self.round.choose_target(text)
                if field is not None:
                    field.value = ""
            elif action == "deal":
                if self.round.procedure.has_centre and self.round.centre is None:
                    self.round.turn_centre(self._typed_card())
                else:
                    if not self.round.procedure.has_centre and self.round.target is None:
                        if self.physical:
                            raise _Refused(Message(N_("Choose the target rank before dealing.")))
                        self.round.choose_target(self._random_rank())
                    if not self.round.dealt and self.before_deal is not None:
                        self.before_deal()
                    self.round.deal(self._typed_card())
            elif action == "void":
                self.round.void()
        except _Refused as refused:
            self.error(refused.message)
            return False
        except AndarBaharError as error:
            self.error(error)
            return False
        self.error(None)
        self.refresh_layout()
        self.post_message(self.Stepped())
        if self.round.finished:
            self.post_message(self.Finished(self.round))
        return True

    def _random_rank(self) -> str:
        return (
            trainer(self)
            .rng()
            .choice(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"])
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "auto":
            self.toggle_auto()
        elif event.button.id in ("centre", "target", "deal", "void"):
            self.step(event.button.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "card":
            if self.round.procedure.has_centre and self.round.centre is None:
                self.step("centre")
            elif not self.round.procedure.has_centre and self.round.target is None:
                self.step("target")
            else:
                self.step("deal")

    def toggle_auto(self) -> None:
        if self._timer is not None:
            self.stop_auto()
            return
        speed = float(str(self.query_one("#speed", Select).value))
        self._timer = self.set_interval(speed, self._auto_step)

    def stop_auto(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _auto_step(self) -> None:
        if self.round.finished or not self.step("deal"):
            self.stop_auto()


class _Refused(Exception):
    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message
