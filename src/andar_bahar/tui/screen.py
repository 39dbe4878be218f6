"""A screen of the trainer: a header, a scrolling body drawn from the screen's state, a
translated footer — and the rules that keep it steady while it is drawn again.

A screen keeps its state in attributes and draws it in :meth:`TrainerScreen.compose_body`
(the widgets) and :meth:`TrainerScreen.sync` (the values that change as the game goes).
Switching the language composes the body again from that state, so nothing typed, chosen
or played is lost.

While the body is being composed again its widgets come and go, so nothing may read them
then: a handler of the screen (a key, a button, a worker's answer) that arrives meanwhile
waits until the body is whole; a timer's tick (Auto) is skipped; :meth:`sync` is left to
the redraw, which shows the state when it is done. An exception nothing expected is the
trainer's last resort's (:meth:`andar_bahar.tui.protocol.Trainer.failed`): logged and
said in one sentence, with the screen and its state kept.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.compose import compose
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Select
from textual.widgets.input import Selection

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.common import (
    Box,
    Choice,
    ConfirmScreen,
    Note,
    TrainerFooter,
    TrainerHeader,
    button,
    literal,
    tr,
)
from andar_bahar.tui.failures import guarded, handlers
from andar_bahar.tui.protocol import trainer

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["Body", "EndScreen", "TrainerScreen", "alive", "steady"]

T = TypeVar("T")
C = TypeVar("C", bound=type)

_STEADY = "_steady"


def steady(cls: C) -> C:
    """Make the handlers (``on_…``) and actions (``action_…``) of *cls* wait for its screen's
    redraw to end, drop them if their widget is gone by then, and give an exception nothing
    expected to the trainer's last resort. *cls*: a screen or a widget of one."""
    for name, method in handlers(cls):
        if getattr(method, _STEADY, False):
            continue
        safe = guarded(method, _fault)
        wrapped = _steady_async(safe) if inspect.iscoroutinefunction(method) else _steady_sync(safe)
        setattr(wrapped, _STEADY, True)
        setattr(cls, name, wrapped)
    return cls


def _screen_of(node: Widget) -> TrainerScreen | None:
    if isinstance(node, TrainerScreen):
        return node
    try:
        screen = node.screen
    except Exception:  # not mounted (yet, or any more)
        return None
    return screen if isinstance(screen, TrainerScreen) else None


def alive(node: Widget) -> bool:
    """Whether *node* is still part of a screen in the app's stack (not being closed)."""
    if not node.is_attached:
        return False
    screen = _screen_of(node)
    return screen is None or screen in node.app.screen_stack


def _steady_async(safe: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(safe)
    async def handler(self: Widget, *args: Any, **kwargs: Any) -> Any:
        if not alive(self):
            return None  # its screen closed before the message came (Esc typed at once)
        screen = _screen_of(self)
        if screen is not None and screen.redrawing:
            if screen is not self:  # a widget's: it may be the one being removed
                screen.after_redraw(lambda: _call(self, safe, *args, **kwargs))
                return None
            await screen.drawn()
            if not alive(self):
                return None
        return await safe(self, *args, **kwargs)

    return handler


def _steady_sync(safe: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(safe)
    def handler(self: Widget, *args: Any, **kwargs: Any) -> Any:
        if not alive(self):
            return None  # its screen closed before the message came (Esc typed at once)
        screen = _screen_of(self)
        if screen is not None and screen.redrawing:
            screen.after_redraw(lambda: _call(self, safe, *args, **kwargs))
            return None
        return safe(self, *args, **kwargs)

    return handler


def _call(node: Widget, method: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Call a handler that waited for a redraw, or a timer's or the history's callback, if
    its widget is still there (a key it would have passed on is no longer anyone's)."""
    if not alive(node):
        return
    try:
        result = method(node, *args, **kwargs)
    except SkipAction:
        return
    except Exception as error:
        _fault(node, error)
        return
    if inspect.isawaitable(result):
        node.run_worker(result, group="after-redraw")


def _fault(node: Widget, error: Exception) -> None:
    """The last resort: the trainer logs *error* and says so; the screen shows its state."""
    trainer(node).failed(error)
    screen = _screen_of(node)
    if screen is not None:
        try:
            screen.resync()
        except Exception:  # the state cannot be shown: the sentence has been said
            return


class Body(VerticalScroll, can_focus=False):
    """The scrolling part of a screen, between the header and the footer."""

    def __init__(self, screen: TrainerScreen) -> None:
        super().__init__(id="body")
        self.owner = screen

    def compose(self) -> ComposeResult:
        yield from self.owner.compose_body()

    def watch_virtual_size(self) -> None:
        """The content grew or shrank: keep the control in use (and a result) in view."""
        if self.is_attached and self.screen.focused is not None:
            self.owner.reveal_focus()


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
        self.pinned: tuple[str, ...] = ()
        """A result the user reads (its parts' selectors): kept in view until the game goes on."""
        self._redrawing = False
        self._whole = asyncio.Event()
        self._whole.set()
        self._redraw_lock = asyncio.Lock()
        self._waiting: list[Callable[[], object]] = []
        self._drawn_in: str | None = None

    def __init_subclass__(cls, **options: Any) -> None:
        """Every screen's :meth:`sync` waits for a redraw and ends by keeping the focused
        control in view; its handlers are :func:`steady`."""
        super().__init_subclass__(**options)
        own = cls.__dict__.get("sync")
        if own is not None and not getattr(own, _STEADY, False):

            @functools.wraps(own)
            def sync(self: TrainerScreen) -> None:
                if self.redrawing:
                    return  # the redraw shows the state once the body is whole
                own(self)
                self.reveal_focus()

            setattr(sync, _STEADY, True)
            cls.sync = sync  # type: ignore[method-assign]
        steady(cls)

    # -- drawing -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self._drawn_in = trainer(self).language
        yield TrainerHeader(icon="♠")
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

    # -- drawing again -------------------------------------------------------------

    @property
    def redrawing(self) -> bool:
        """Whether the body (or a part of it) is being composed again now."""
        return self._redrawing

    async def drawn(self) -> None:
        """Wait until no part of the body is being composed again."""
        while self.redrawing:
            await self._whole.wait()

    def after_redraw(self, callback: Callable[[], object]) -> None:
        """Run *callback* once the body is whole again (at once if it is)."""
        if self.redrawing:
            self._waiting.append(callback)
        else:
            callback()

    @asynccontextmanager
    async def _rebuilding(self) -> AsyncIterator[None]:
        async with self._redraw_lock:  # one redraw at a time, or widgets vanish mid-mount
            self._redrawing = True
            self._whole.clear()
            try:
                yield
            finally:
                self._redrawing = False
                self._whole.set()
        if alive(self):
            self.sync()
            waiting, self._waiting = self._waiting, []
            for callback in waiting:
                callback()

    async def redraw(self, **values: Any) -> None:
        """Compose the body again from the state, keeping the control in use — with a
        field's text, cursor and selection, so that the next key goes on from there —
        and the place scrolled to. *values*: fields and choices set anew (by id).

        The screen is laid out and painted once, when it is whole and shows its state."""
        with self.app.batch_update():
            async with self._rebuilding():
                if not alive(self):
                    return
                self.save_form()
                self.form.update(values)
                focused = self.focused.id if self.focused is not None else None
                selection = self.focused.selection if isinstance(self.focused, Input) else None
                body = self.query_one(Body)
                scroll = body.scroll_y
                await body.recompose()
                self._drawn_in = trainer(self).language
                if focused is not None and self.query(f"#{focused}"):
                    self._refocus(self.query_one(f"#{focused}"), selection)
                body.scroll_to(y=scroll, animate=False, immediate=True)

    def _refocus(self, widget: Widget, selection: Selection | None) -> None:
        if not isinstance(widget, Input) or selection is None:
            self.set_focus(widget, scroll_visible=False)
            return
        field, select_on_focus = widget, widget.select_on_focus
        field.select_on_focus = False  # the text stays as it was, not selected
        self.set_focus(field, scroll_visible=False)

        def restore() -> None:
            field.selection = selection
            field.select_on_focus = select_on_focus

        field.call_later(restore)  # after the field has taken its focus, before any key

    async def refill(self, selector: str, content: ComposeResult) -> None:
        """Replace what the container *selector* shows with *content* (the rest stays)."""
        with self.app.batch_update():
            async with self._rebuilding():
                containers = self.query(selector)
                if not containers:
                    return
                container = containers.first()
                await container.remove_children()
                await container.mount_all(compose(container, content))

    async def relocalize(self) -> None:
        """Draw the screen again in the app's language, from its state."""
        if self._drawn_in == trainer(self).language:
            return
        with self.app.batch_update():  # one layout and one paint for the whole screen
            self.sub_title = self.title_text()
            await self.redraw()
            for footer in self.query(TrainerFooter):
                footer.relocalize()

    async def on_screen_resume(self) -> None:
        """Back on top: drawn again if the language changed meanwhile."""
        await self.relocalize()

    def focus_on(self, widget: Widget) -> None:
        """Focus *widget* and scroll it into view once the screen's layout has settled."""
        widget.focus()
        self.reveal_focus()

    def reveal_focus(self) -> None:
        """After the next refresh, scroll the focused control into view, and then the result
        being read (:attr:`pinned`): its first part wins when not all of it fits."""

        def reveal() -> None:
            if self.redrawing or not alive(self):
                return
            focused = self.focused
            if focused is not None and focused.is_attached:
                focused.scroll_visible(animate=False, immediate=True)
            parts = [
                widget
                for selector in reversed(self.pinned)
                for widget in self.query(selector)
                if widget.display
            ]
            for part in parts:  # the last part first, the first part last
                part.scroll_visible(animate=False, immediate=True)

        self.call_after_refresh(reveal)

    def pin(self, *selectors: str) -> None:
        """Keep the result made of *selectors* in view from now until the game goes on (no
        selectors: nothing pinned)."""
        self.pinned = selectors
        if selectors:
            self.reveal_focus()

    def resync(self) -> None:
        """Show the state again (an answer from the history or a worker has come in).

        While the body is being drawn again, the redraw shows the state anyway.
        """
        if self.is_mounted and alive(self):
            self.sync()

    # -- the screen's own timers and answers ---------------------------------------

    def every(self, seconds: float, callback: Callable[[], object]) -> Timer:
        """A timer of this screen (Auto): a tick is skipped while the body is drawn again,
        and while a question (or the palette) is open over the screen."""

        def tick() -> None:
            if not self.redrawing and alive(self) and self.app.screen is self:
                _call(self, lambda _screen: callback())

        return self.set_interval(seconds, tick)

    def history(
        self,
        work: Callable[[Storage], T],
        then: Callable[[T], object] | None = None,
        *,
        failed: Callable[[str], object] | None = None,
    ) -> None:
        """Run *work* on the history's thread; *then* or *failed* are called on this screen
        once it is whole (not at all if it has closed meanwhile)."""

        def answer(callback: Callable[[Any], object]) -> Callable[[Any], object]:
            def deliver(value: Any) -> None:
                if alive(self):
                    self.after_redraw(lambda: _call(self, lambda _screen: callback(value)))

            return deliver

        trainer(self).history(
            work,
            answer(then) if then is not None else None,
            failed=answer(failed) if failed is not None else None,
        )

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
        self, id: str, options: list[tuple[str, str]], value: str, *, prompt: str = ""
    ) -> Choice:
        """A choice among *options* (label, value), keeping the value chosen before."""
        values = [option for _, option in options]
        saved = self.form.get(id, value)
        return Choice(
            options,
            value=saved if saved in values else value,
            allow_blank=False,
            prompt=prompt,
            id=id,
        )

    def checkbox(self, id: str, label: str, *, value: bool = False) -> Checkbox:
        """A yes/no box with its label, keeping its state."""
        return Box(literal(label), value=bool(self.form.get(id, value)), id=id)

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

    def refuse(
        self, note: str, refused: AndarBaharError | Message, field: str, *, select: bool = True
    ) -> None:
        """Say *refused* in the note *note*, about the field *field*, which takes the focus:
        its text selected, so that the next key typed replaces it (*select*; otherwise the
        cursor at its end, to add to it); the sentence goes once the field is changed."""
        widget = self.query_one(f"#{field}")
        value = self._value_of(widget)
        self.query_one(note, Note).say(refused, kind="error", about={field: value})
        if not isinstance(widget, Input):
            if widget.focusable:
                self.focus_on(widget)
            return
        if self.focused is not widget:
            widget.select_on_focus = select
            self.focus_on(widget)
        if select:
            widget.select_all()
        else:
            widget.cursor_position = len(widget.value)

        def restore() -> None:
            widget.select_on_focus = True

        widget.call_later(restore)

    @staticmethod
    def _value_of(widget: Widget) -> str:
        if isinstance(widget, Input):
            return widget.value
        if isinstance(widget, Select | Checkbox):
            return str(widget.value)
        return ""

    def on_input_changed(self, event: Input.Changed) -> None:
        """A refusal about a field goes once the field is changed."""
        self._field_changed(event.input)

    def on_select_changed(self, event: Select.Changed) -> None:
        self._field_changed(event.select)

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self._field_changed(event.checkbox)

    def _field_changed(self, widget: Widget) -> None:
        for note in self.query(Note):
            note.field_changed(widget.id, self._value_of(widget))

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
        self.ask(question, self.leave)

    def leave(self) -> None:
        if len(self.app.screen_stack) > 2 and self.app.screen is self:
            self.app.pop_screen()

    def action_page(self, direction: int) -> None:
        body = self.query_one(Body)
        if direction > 0:
            body.scroll_page_down(animate=False)
        else:
            body.scroll_page_up(animate=False)

    def ask(
        self,
        question: Message,
        then: Callable[[], object],
        otherwise: Callable[[], object] | None = None,
    ) -> None:
        """Ask *question*; run *then* on yes, *otherwise* on no (once, on this screen, if it
        is still open)."""

        def answered(yes: bool | None) -> None:
            chosen = then if yes else otherwise
            if chosen is not None and alive(self):
                _call(self, lambda _screen: chosen())

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
        while len(self.app.screen_stack) > 2 and isinstance(self.app.screen, TrainerScreen):
            self.app.pop_screen()


steady(TrainerScreen)
