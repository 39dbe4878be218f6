"""A name and its chips typed one after the other with Enter, as fast as anyone types.

Textual hands each key to the control focused at the moment the application reads the
key, while a field reads its keys later, from its own queue. A field's Enter handler that
moves the focus on therefore comes too late for keys already typed: "Asha⏎500⏎" typed
quickly put "500" into the name field. Here the application itself takes Enter (a
priority binding), so the focus moves before the next key is handed out, and the fields
are read only once each has read the keys typed before that Enter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.widgets import Input

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.games.clubgame import check_seat
from andar_bahar.i18n import format_number, language_of
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import Note
from andar_bahar.tui.screen import TrainerScreen

__all__ = ["SeatingScreen"]


@dataclass(slots=True)
class _Typed:
    """A name and chips as typed before one Enter (``None``: that field not read yet)."""

    name: str | None = None
    chips: str | None = None


class SeatingScreen(TrainerScreen):
    """A screen with a name field (``#name``) and a chips field (``#chips``).

    Enter in the name field goes to the chips field; Enter in the chips field seats the
    player and comes back to an empty name field for the next one. A refusal keeps what
    was typed and puts the focus on the field to correct.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "seat_enter", show=False, priority=True),
    ]

    def seated(self) -> Mapping[str, Decimal]:
        """The players already seated (a new name must differ from theirs)."""
        raise NotImplementedError

    SEAT_NOTE: ClassVar[str] = "#note"
    """Where the screen says who sat down, or why not."""

    def add_seat(self, player: str, chips: Decimal) -> None:
        """Seat *player* (checked) with *chips*; a project error if refused."""
        raise NotImplementedError

    def seat_typed(self, name: str, chips: str) -> AndarBaharError | None:
        """Seat *name* with *chips* as typed; the refusal, if refused (nothing said yet)."""
        try:
            player, amount = check_seat(name, chips, self.seated())
            self.add_seat(player, amount)
        except AndarBaharError as refused:
            return refused
        self.query_one(self.SEAT_NOTE, Note).say(
            Message(
                N_("{player} sits down with {chips} chips."),
                player=player,
                chips=format_number(amount, language_of(self.t)),
            ),
            kind="success",
        )
        return None

    def seat(self) -> bool:
        """Seat the player in the fields (the Seat button): the same as Enter, unhurried."""
        name, chips = self.query_one("#name", Input), self.query_one("#chips", Input)
        typed = _Typed(name.value, chips.value)
        name.value = chips.value = ""
        return self._seat(typed, name, chips)

    def action_seat_enter(self) -> None:
        focused = self.focused
        if not isinstance(focused, Input) or focused.id not in ("name", "chips"):
            raise SkipAction()
        name, chips = self.query_one("#name", Input), self.query_one("#chips", Input)
        if focused is name:
            self.set_focus(chips)  # at once: every key after this Enter goes to the chips
            return
        self.set_focus(name)  # at once: the next player's name goes to the name field
        typed = _Typed()
        # Each field is read once it has taken the keys typed before this Enter (they
        # wait in its own queue), and emptied for the keys typed after it.
        name.call_later(self._read, typed, "name", name, chips)
        chips.call_later(self._read, typed, "chips", name, chips)

    def _read(self, typed: _Typed, which: str, name: Input, chips: Input) -> None:
        field = name if which == "name" else chips
        setattr(typed, which, field.value)
        field.value = ""
        if typed.name is not None and typed.chips is not None:
            self._seat(typed, name, chips)

    def _seat(self, typed: _Typed, name: Input, chips: Input) -> bool:
        assert typed.name is not None and typed.chips is not None
        refused = self.seat_typed(typed.name, typed.chips)
        if refused is None:
            self.set_focus(name)
            return True
        name.value = typed.name + name.value  # refused: what was typed is back
        chips.value = typed.chips + chips.value
        # the field to correct, its text selected: the next key typed replaces it
        self.refuse(self.SEAT_NOTE, refused, "chips" if self._name_is_fine(typed.name) else "name")
        return False

    def _name_is_fine(self, typed: str) -> bool:
        try:
            check_seat(typed, "0", self.seated())
        except AndarBaharError:
            return False
        return True
