"""What every screen shares: text in the user's language, shown literally; messages, button
bars, the translated footer, a confirmation dialog.

The screens themselves are built on :class:`andar_bahar.tui.screen.TrainerScreen`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import ItemGrid, ScrollableContainer, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.dom import DOMNode, NoScreen
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Header, Select, Static
from textual.widgets._footer import FooterKey, FooterLabel
from textual.widgets._select import SelectCurrent, SelectOverlay
from textual.widgets.select import NoSelection

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.failures import guard_handlers
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.text import unbroken

__all__ = [
    "Bar",
    "Box",
    "Choice",
    "ConfirmScreen",
    "Note",
    "Say",
    "TrainerFooter",
    "TrainerHeader",
    "button",
    "keys",
    "literal",
    "tr",
]

Say = Message | AndarBaharError | str | None
"""What a note shows: a message, a refusal, text already in the user's language, or nothing."""


def tr(node: DOMNode, message: Message | AndarBaharError) -> str:
    """*message* (or a refusal) in the language the app is set to."""
    return message.localized(trainer(node).translator)


def literal(text: str) -> Content:
    """*text* exactly as it is: square brackets in a name are never markup.

    Only a number is kept on one line with its percent sign (see :mod:`andar_bahar.tui.text`).
    """
    return Content(unbroken(text))


def keys(*names: str) -> str:
    """A hotkey with its twins on Russian and Georgian keyboards (``d`` is ``в`` and ``დ``)."""
    twins = {
        "a": "ф,ა",
        "b": "и,ბ",
        "c": "с,ც",
        "d": "в,დ",
        "n": "т,ნ",
        "p": "з,პ",
        "s": "ы,ს",
        "t": "е,ტ",
        "v": "м,ვ",
        "x": "ч,ხ",
        "y": "н,ყ",
    }
    return ",".join(f"{name},{twins[name]}" if name in twins else name for name in names)


TEXTUAL_KEYS = (N_("Dismiss menu"), N_("Exit the command palette"))
"""Descriptions Textual gives keys of its own widgets (an open choice list, the palette):
in the catalogue, so that the footer shows them in the user's language too."""


class TrainerHeader(Header):
    """Textual's header, whose title follows the app's and the screen's as Textual's does,
    but a title changed while the header is being taken down (its title already gone, the
    screen leaving) is let go instead of stopping the trainer: Textual's own watcher
    expects the title widget to be there still."""

    def _on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not Header's watchers: these replace them
        Widget._on_mount(self, event)  # what every widget does when mounted

        async def set_title() -> None:
            with contextlib.suppress(NoScreen, NoMatches):
                self.query_one("HeaderTitle", Static).update(self.format_title())

        for source in (self.app, self.screen):
            self.watch(source, "title", set_title)
            self.watch(source, "sub_title", set_title)


class TrainerFooter(Footer):
    """Textual's footer with every key's description in the user's language.

    It is drawn again only when the keys it shows change (Textual redraws it on every
    move of the focus, which makes Tab slow on a busy machine). On a narrow terminal it
    leaves out what is known anyway — the palette's key, then Esc, then Ctrl+Q — rather
    than cutting the screen's keys or Ctrl+L off at the right edge.
    """

    DEFAULT_CSS = """
    TrainerFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    SPARED: ClassVar[tuple[str, ...]] = ("command_palette", "back", "quit")
    """The keys left out, in this order, when the footer does not fit."""

    _shown: tuple[object, ...] | None = None
    _left_out = 0

    def __init__(self, *, compact: bool = True) -> None:
        super().__init__(compact=compact)
        self._msgids: dict[FooterKey | FooterLabel, str] = {}
        """The msgid of each key's description shown (and of each group's name)."""

    def compose(self) -> ComposeResult:
        translator = trainer(self).translator
        signature = self._signature() if self._bindings_ready else None
        if signature != self._shown:
            self._left_out = 0  # other keys, another language or width: all of them again
        self._shown = signature
        left_out = self.SPARED[: self._left_out]
        self._msgids = {}
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action in left_out:
                continue
            if isinstance(widget, FooterKey) and widget.description:
                self._msgids[widget] = widget.description
                widget.description = translator.gettext(widget.description)
            elif isinstance(widget, FooterLabel):  # the name of a group of keys
                self._msgids[widget] = str(widget.render())
                widget.update(translator.gettext(self._msgids[widget]))
            yield widget

    def relocalize(self) -> None:
        """The same keys in the app's language, written over in place (no new widgets)."""
        translator = trainer(self).translator
        for widget, msgid in self._msgids.items():
            if isinstance(widget, FooterKey):
                widget.description = translator.gettext(msgid)
                widget.refresh(layout=True)
            else:
                widget.update(translator.gettext(msgid))
        self._shown = self._signature()

    def watch_virtual_size(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Leave out one more of the keys everyone knows while the keys do not fit."""
        width = self.scrollable_content_region.width
        overflows = self.is_attached and width and self.virtual_size.width > width
        if overflows and self._left_out < len(self.SPARED):
            self._left_out += 1
            self.refresh(recompose=True)

    def _signature(self) -> tuple[object, ...]:
        keys = tuple(
            (key, active.binding.description, active.enabled)
            for key, active in self.screen.active_bindings.items()
            if active.binding.show
        )
        return (trainer(self).language, self.app.size.width, keys)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._bindings_ready and self.is_attached and self._signature() == self._shown:
            return
        super().bindings_changed(screen)

    def on_resize(self) -> None:
        if self._bindings_ready:
            self.bindings_changed(self.screen)


class Note(Static):
    """A message that wraps and is scrolled into view when it appears.

    A refusal may name the fields it is about, with their values then: it disappears as
    soon as one of them is changed (see :meth:`field_changed`).
    """

    DEFAULT_CSS = """
    Note { width: 1fr; height: auto; }
    Note.-error { color: $error; }
    Note.-warning { color: $warning; }
    Note.-success { color: $success; }
    Note.-empty { display: none; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes, markup=False)
        self.add_class("-empty")
        self._said: tuple[str | None, str] = (None, "")
        self._about: dict[str, str] = {}

    def say(self, text: Say, *, kind: str = "", about: dict[str, str] | None = None) -> None:
        """Show *text* (``None``: nothing); *kind*: ``error``, ``warning`` or ``success``;
        *about*: the fields a refusal is about (id → value refused)."""
        if isinstance(text, AndarBaharError) and not kind:
            kind = "error"
        if isinstance(text, Message | AndarBaharError):
            text = tr(self, text)
        self._about = dict(about or {})
        if (text, kind) == self._said:
            return
        self._said = (text, kind)
        for name in ("error", "warning", "success"):
            self.set_class(kind == name, f"-{name}")
        self.set_class(not text, "-empty")
        self.update(literal(text or ""))
        if text:
            self.call_after_refresh(self._reveal)

    @property
    def shown(self) -> str:
        """The text shown now (empty: none)."""
        return self._said[0] or ""

    def field_changed(self, field: str | None, value: str) -> None:
        """A field was changed: a refusal about its value before is gone."""
        if field in self._about and self._about[field] != value:
            self.say(None)

    def _reveal(self) -> None:
        """The message, then the control in use, scrolled into view (both, when they fit)."""
        if not self.is_attached:
            return
        self.scroll_visible(animate=False, immediate=True)
        focused = self.screen.focused
        if focused is not None:
            focused.scroll_visible(animate=False, immediate=True)


class ChoiceList(SelectOverlay):
    """The open list of a :class:`Choice`. PageUp/PageDown just after it opens, before it
    is drawn, page nothing (Textual's own list looks up a line it has not laid out yet)."""

    def action_page_down(self) -> None:
        with contextlib.suppress(KeyError):
            super().action_page_down()  # type: ignore[no-untyped-call]

    def action_page_up(self) -> None:
        with contextlib.suppress(KeyError):
            super().action_page_up()  # type: ignore[no-untyped-call]


class Choice(Select[str]):
    """A list to choose from, its labels shown literally; it says what it offers
    (:attr:`labels`, :attr:`values`), which Textual's own list keeps to itself, and its
    list never covers the footer."""

    LIST_LINES: ClassVar[int] = 12
    """The most options the open list shows at once (Textual's own maximum)."""

    def __init__(
        self,
        options: Sequence[tuple[str, str]],
        *,
        value: str | NoSelection = Select.NULL,
        allow_blank: bool = True,
        prompt: str = "",
        id: str | None = None,
    ) -> None:
        self.options = list(options)
        self.allow_blank = allow_blank
        super().__init__(
            [(Text(label), option) for label, option in self.options],
            value=value,
            allow_blank=allow_blank,
            prompt=prompt or "Select",
            id=id,
            compact=True,
        )

    @property
    def labels(self) -> list[str]:
        return [label for label, _ in self.options]

    @property
    def values(self) -> list[str]:
        return [option for _, option in self.options]

    def compose(self) -> ComposeResult:
        """Textual's own parts of a choice, its list a :class:`ChoiceList`."""
        yield SelectCurrent(self.prompt)
        yield ChoiceList(type_to_search=True).data_bind(compact=Select.compact)

    def watch_expanded(self, expanded: bool) -> None:
        """The list opens below the choice, above the footer: the screen scrolls up to make
        room for it, and a list that still does not fit scrolls within its room."""
        if expanded:
            self._make_room()
            self.call_after_refresh(self._fit_list)

    def _room_below(self) -> int:
        """The lines between the choice and the footer (or the bottom of the screen)."""
        footers = self.screen.query(TrainerFooter)
        bottom = footers.first().region.y if footers else self.screen.region.bottom
        return bottom - self.region.bottom

    def _list_lines(self) -> int:
        """The lines the open list takes: its options (and the blank one), its frame."""
        frame = sum(overlay.styles.gutter.height for overlay in self.query("SelectOverlay"))
        return min(len(self.options) + (1 if self.allow_blank else 0), self.LIST_LINES) + frame

    def _make_room(self) -> None:
        missing = self._list_lines() - self._room_below()
        for scroller in self.ancestors:
            if missing <= 0:
                break
            if isinstance(scroller, ScrollableContainer) and scroller.max_scroll_y:
                step = min(missing, scroller.max_scroll_y - round(scroller.scroll_y))
                scroller.scroll_relative(y=step, animate=False, immediate=True)
                missing -= step

    def _fit_list(self) -> None:
        for overlay in self.query("SelectOverlay"):
            overlay.styles.max_height = max(3, min(self._list_lines(), self._room_below()))

    def offer(self, options: Sequence[tuple[str, str]]) -> None:
        """Offer *options* instead (the value is kept if it is still among them)."""
        self.options = list(options)
        self.set_options([(Text(label), option) for label, option in self.options])


class Box(Checkbox):
    """A yes/no box whose state shows without colour: ``X`` when checked, empty when not."""

    def __init__(self, label: Content, *, value: bool, id: str | None = None) -> None:
        super().__init__(label, value=value, id=id, compact=True)
        self.BUTTON_INNER = "X" if value else " "

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()


class Bar(ItemGrid):
    """Buttons (and small fields) side by side, wrapping onto more lines when narrow."""

    DEFAULT_CSS = """
    Bar { height: auto; grid-gutter: 0 1; margin: 0 0 1 0; }
    Bar > * { width: 1fr; }
    """

    def __init__(self, *children: Widget, width: int = 0, id: str | None = None) -> None:
        widest = max([width, *(_natural_width(child) for child in children)])
        super().__init__(*children, min_column_width=widest, stretch_height=False, id=id)


def _natural_width(widget: Widget) -> int:
    if isinstance(widget, Button):
        return len(str(widget.label)) + (2 if widget.compact else 4)
    if isinstance(widget, Choice):
        # Its list opens as wide as the choice: every option on one line, the arrow beside it.
        shown = [str(widget.prompt), *widget.labels]
        return max(cell_len(text) for text in shown) + 2
    width = widget.styles.width
    return int(width.value) if width is not None and width.is_cells else 12


def button(label: str, id: str, *, variant: str = "default", disabled: bool = False) -> Button:
    """A one-line button whose label is shown literally; every Enter presses it.

    (Textual ignores a second press within 0.2 s, for its animation: a dealer pressing
    Enter card after card would lose cards.)
    """
    widget = Button(
        literal(label),
        id=id,
        variant=variant,  # type: ignore[arg-type]
        disabled=disabled,
        compact=True,
    )
    widget.active_effect_duration = 0
    return widget


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question over the screen; Esc says no.

    It has a footer of its own, with its own keys: the screen's below it do nothing
    while the question is open.
    """

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 70; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmScreen Static { width: 1fr; height: auto; margin: 0 0 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(keys("y"), "answer(True)", N_("Yes")),
        Binding(keys("n"), "answer(False)", N_("No")),
        Binding("escape", "answer(False)", N_("No")),
    ]

    def __init__(self, question: Message, *, quitting: bool = False) -> None:
        super().__init__()
        self.question = question
        self.quitting = quitting
        """Whether this is the question before quitting (a second Ctrl+Q answers yes)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(literal(tr(self, self.question)), id="question")
            yield Bar(
                button(tr(self, Message(N_("Yes"))), "yes", variant="warning"),
                button(tr(self, Message(N_("No"))), "no", variant="primary"),
            )
        yield TrainerFooter(compact=True)

    def on_mount(self) -> None:
        self._focus_no()

    async def relocalize(self) -> None:
        await self.recompose()
        self._focus_no()

    def _focus_no(self) -> None:
        """ "No" in focus: Enter pressed at once by habit keeps the game."""
        for no in self.query("#no").results(Button):  # none if closed already
            no.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def dismiss(self, result: bool | None = None) -> AwaitComplete:
        """Answer once: a key typed after the answer (y, then Esc) closes nothing else."""
        if self.app.screen is not self:
            return AwaitComplete(asyncio.sleep(0))
        return super().dismiss(result)


guard_handlers(ConfirmScreen, lambda screen, error: trainer(screen).failed(error))
