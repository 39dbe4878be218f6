"""What every screen shares: text in the user's language, shown literally; a scrolling body;
forms that survive a change of language; tables, button bars, a confirmation dialog.

A screen keeps its state in attributes and draws it in :meth:`TrainerScreen.compose_body`
(the widgets) and :meth:`TrainerScreen.sync` (the values that change as the game goes).
Switching the language composes the screen again from that state, so nothing typed,
chosen or played is lost.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.compose import compose
from textual.containers import ItemGrid, Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Footer, Header, Input, Select, Static
from textual.widgets._footer import FooterKey, FooterLabel

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.tables import Table
from andar_bahar.tui.text import unbroken

if TYPE_CHECKING:
    from andar_bahar.tui.app import TrainerApp

__all__ = [
    "Bar",
    "ConfirmScreen",
    "EndScreen",
    "Note",
    "Table",
    "TrainerFooter",
    "TrainerScreen",
    "literal",
    "refill",
    "tr",
    "trainer",
]

Say = Message | AndarBaharError | str | None
"""What a note shows: a message, a refusal, text already in the user's language, or nothing."""


def trainer(node: DOMNode) -> TrainerApp:
    """The running trainer application, typed."""
    return cast("TrainerApp", node.app)


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


class TrainerFooter(Footer):
    """Textual's footer with every key's description in the user's language.

    It is drawn again only when the keys it shows change (Textual redraws it on every
    move of the focus, which makes Tab slow on a busy machine).
    """

    DEFAULT_CSS = """
    TrainerFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """

    _shown: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        translator = trainer(self).translator
        self._shown = self._signature() if self._bindings_ready else None
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.description:
                widget.description = translator.gettext(widget.description)
            elif isinstance(widget, FooterLabel):  # the name of a group of keys
                widget.update(translator.gettext(str(widget.render())))
            yield widget

    def _signature(self) -> tuple[object, ...]:
        keys = tuple(
            (key, active.binding.description, active.enabled)
            for key, active in self.screen.active_bindings.items()
            if active.binding.show
        )
        return (trainer(self).language, keys)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._bindings_ready and self.is_attached and self._signature() == self._shown:
            return
        super().bindings_changed(screen)


class Note(Static):
    """A message that wraps and is scrolled into view when it appears."""

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

    def say(self, text: Say, *, kind: str = "") -> None:
        """Show *text* (``None``: nothing); *kind*: ``error``, ``warning`` or ``success``."""
        if isinstance(text, AndarBaharError) and not kind:
            kind = "error"
        if isinstance(text, Message | AndarBaharError):
            text = tr(self, text)
        if (text, kind) == self._said:
            return
        self._said = (text, kind)
        for name in ("error", "warning", "success"):
            self.set_class(kind == name, f"-{name}")
        self.set_class(not text, "-empty")
        self.update(literal(text or ""))
        if text:
            self.call_after_refresh(self._reveal)

    def _reveal(self) -> None:
        """The message, then the control in use, scrolled into view (both, when they fit)."""
        if not self.is_attached:
            return
        self.scroll_visible(animate=False, immediate=True)
        focused = self.screen.focused
        if focused is not None:
            focused.scroll_visible(animate=False, immediate=True)


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
    if isinstance(widget, Select):
        # Its list opens as wide as the choice: every option on one line, the arrow beside it.
        options = getattr(widget, "_options", ())
        shown = [str(widget.prompt), *(str(prompt) for prompt, _ in options)]
        return max(cell_len(text) for text in shown) + 2
    width = widget.styles.width
    return int(width.value) if width is not None and width.is_cells else 12


async def refill(container: Widget, content: ComposeResult) -> None:
    """Replace what *container* shows with *content* (the rest of the screen stays)."""
    await container.remove_children()
    await container.mount_all(compose(container, content))


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


class TrainerScreen(Screen[None]):
    """A screen of the trainer: a header, a scrolling body, a translated footer."""

    TITLE_TEXT: ClassVar[str] = ""
    """The screen's name (a msgid), shown in the header."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "page(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.form: dict[str, Any] = {}
        self._redrawing = False
        self._redraw_lock = asyncio.Lock()

    def __init_subclass__(cls, **options: Any) -> None:
        """Every screen's :meth:`sync` ends by keeping the focused control in view."""
        super().__init_subclass__(**options)
        own = cls.__dict__.get("sync")
        if own is not None and not getattr(own, "_reveals", False):

            @functools.wraps(own)
            def sync(self: TrainerScreen) -> None:
                own(self)
                self.reveal_focus()

            sync._reveals = True  # type: ignore[attr-defined]
            cls.sync = sync  # type: ignore[method-assign]

    # -- drawing -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        yield Body(self)
        yield TrainerFooter(compact=True)

    def compose_body(self) -> ComposeResult:
        """The screen's widgets, drawn from its state."""
        return
        yield

    def sync(self) -> None:
        """Show the state in the widgets that change as the screen is used."""

    def on_mount(self) -> None:
        self.sub_title = self.title_text()
        self.sync()

    def title_text(self) -> str:
        return trainer(self).translator.gettext(self.TITLE_TEXT) if self.TITLE_TEXT else ""

    @property
    def t(self) -> Translator:
        return trainer(self).translator

    def text(self, message: Message | AndarBaharError) -> str:
        return tr(self, message)

    # -- forms that survive a change of language -----------------------------------------

    def field(self, id: str, *, value: str = "", placeholder: str = "", **options: Any) -> Input:
        """A text field holding what was typed before the screen was drawn again."""
        return Input(
            value=str(self.form.get(id, value)),
            placeholder=placeholder,
            id=id,
            compact=True,
            **options,
        )

    def choice(
        self, id: str, options: Sequence[tuple[str, str]], value: str, *, prompt: str = ""
    ) -> Select[str]:
        """A choice among *options* (label, value), keeping the value chosen before."""
        values = [option for _, option in options]
        saved = self.form.get(id, value)
        return Select(
            [(Text(label), option) for label, option in options],
            value=saved if saved in values else value,
            allow_blank=False,
            prompt=prompt,
            id=id,
            compact=True,
        )

    def checkbox(self, id: str, label: str, *, value: bool = False) -> Checkbox:
        """A yes/no box with its label, keeping its state."""
        return Checkbox(literal(label), value=bool(self.form.get(id, value)), id=id, compact=True)

    def save_form(self) -> None:
        """Remember every field, choice and box by its id."""
        for widget in self.query("Input, Select, Checkbox"):
            if widget.id:
                self.form[widget.id] = cast("Input | Select[str] | Checkbox", widget).value

    def value(self, id: str) -> str:
        """The current text of a field or the value of a choice."""
        widget = self.query_one(f"#{id}")
        if isinstance(widget, Input):
            return widget.value
        if isinstance(widget, Select):
            return str(widget.value)
        raise TypeError(id)

    def checked(self, id: str) -> bool:
        return self.query_one(f"#{id}", Checkbox).value

    async def relocalize(self) -> None:
        """Draw the screen again in the app's language, from its state, keeping the focus."""
        focused = self.focused.id if self.focused is not None else None
        scroll = self.query_one("#body").scroll_y if self.query("#body") else 0
        self.save_form()
        await self.redraw()
        self.sub_title = self.title_text()
        self.query_one(TrainerFooter).refresh(recompose=True)
        if focused and self.query(f"#{focused}"):
            self.set_focus(self.query_one(f"#{focused}"), scroll_visible=False)
        body = self.query("#body")
        if body:
            body.first().scroll_to(y=scroll, animate=False, immediate=True)

    async def redraw(self) -> None:
        """Compose the body again from the state, and show the state in it."""
        async with self._redraw_lock:  # one redraw at a time, or widgets vanish mid-mount
            if not self.is_attached:
                return
            self._redrawing = True
            try:
                await self.query_one(Body).recompose()
            finally:
                self._redrawing = False
        self.sync()
        self.reveal_focus()

    def focus_on(self, widget: Widget) -> None:
        """Focus *widget* and scroll it into view once the screen's layout has settled."""
        widget.focus()
        self.reveal_focus()

    def reveal_focus(self) -> None:
        """After the next refresh, scroll the focused control into view."""

        def reveal() -> None:
            focused = self.focused
            if focused is not None and focused.is_attached:
                focused.scroll_visible(animate=False, immediate=True)

        self.call_after_refresh(reveal)

    def resync(self) -> None:
        """Show the state again (an answer from the history or a worker has come in).

        While the body is being drawn again, its :meth:`sync` will show the state anyway.
        """
        if self.is_mounted and not self._redrawing and self.query("#body"):
            self.sync()

    # -- leaving -------------------------------------------------------------------------

    def leave_question(self) -> Message | None:
        """A question to confirm before leaving (a game in progress), or ``None``."""
        return None

    def action_leave(self) -> None:
        """Go back: at once, or after a confirmation when something would be abandoned."""
        question = self.leave_question()
        if question is None:
            self.leave()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.leave()

        self.app.push_screen(ConfirmScreen(question), answered)

    def leave(self) -> None:
        if len(self.app.screen_stack) > 2 and self.app.screen is self:
            self.app.pop_screen()

    def action_page(self, direction: int) -> None:
        body = self.query_one("#body", VerticalScroll)
        if direction > 0:
            body.scroll_page_down(animate=False)
        else:
            body.scroll_page_up(animate=False)

    def ask(self, question: Message, then: Callable[[], object]) -> None:
        """Ask *question*; run *then* on yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmScreen(question), answered)


class EndScreen(TrainerScreen):
    """The last screen of a game (standings, a session's summary): it leads to the menu."""

    def menu_button(self) -> Button:
        return button(tr(self, Message(N_("Back to the menu"))), "menu", variant="primary")

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#menu", Button))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "menu":
            self.leave()

    def leave(self) -> None:
        """The game is over: back to the menu (Esc too)."""
        while len(self.app.screen_stack) > 2:
            self.app.pop_screen()


class Body(VerticalScroll, can_focus=False):
    """The scrolling part of a screen, between the header and the footer."""

    def __init__(self, screen: TrainerScreen) -> None:
        super().__init__(id="body")
        self.owner = screen

    def compose(self) -> ComposeResult:
        yield from self.owner.compose_body()

    def watch_virtual_size(self) -> None:
        """The content grew or shrank: keep the control in use in view."""
        if self.is_attached and self.screen.focused is not None:
            self.owner.reveal_focus()


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

    def __init__(self, question: Message) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(literal(tr(self, self.question)), id="question")
            yield Bar(
                button(tr(self, Message(N_("Yes"))), "yes", variant="warning"),
                button(tr(self, Message(N_("No"))), "no", variant="primary"),
            )
        yield TrainerFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    async def relocalize(self) -> None:
        await self.recompose()
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
