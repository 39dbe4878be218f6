"""The command palette (Ctrl+P), in the user's language: every command of the screen.

It lists every key of the screen and of the application that has a name (those the
footer leaves out for room too), and every button the screen shows, each run as if
pressed there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from functools import cache
from typing import Any, ClassVar

from rich.align import Align
from rich.text import Text
from textual.app import App, SystemCommand
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList
from textual.widgets.option_list import Option
from textual.worker import Worker

from andar_bahar.i18n.messages import N_
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.screen import TrainerScreen

__all__ = ["TrainerPalette", "screen_commands"]

_PALETTE = N_("palette")  # the description Textual gives the command palette's key


def screen_commands(app: App[None], screen: Screen[object]) -> Iterable[SystemCommand]:
    """The commands of *screen*: its named keys and the app's, then its buttons in sight."""
    t = trainer(screen).translator
    seen: set[str] = set()
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description or binding.action in seen or not active.enabled:
            continue
        if binding.action not in _own_actions(type(active.node)):
            continue  # Textual's own (Tab, copying text, a field's or a list's keys …)
        seen.add(binding.action)
        name = t.gettext(binding.description)
        seen.add(name)
        action, namespace = binding.action, active.node

        async def run(action: str = action, namespace: object = namespace) -> None:
            await app.run_action(action, namespace)  # type: ignore[arg-type]

        yield SystemCommand(name, app.get_key_display(binding), run)
    if not isinstance(screen, TrainerScreen):
        return
    for button in screen.query(Button):
        label = str(button.label).strip()
        if not button.id or button.disabled or not _in_sight(button) or label in seen:
            continue
        seen.add(label)
        yield SystemCommand(label, "", lambda screen=screen, id=button.id: _press(screen, id))


@cache
def _own_actions(kind: type) -> frozenset[str]:
    """The actions of the keys the trainer's own classes bind (not Textual's)."""
    actions = set()
    for cls in kind.__mro__:
        if cls.__module__.startswith("andar_bahar."):
            for binding in vars(cls).get("BINDINGS", ()):
                if isinstance(binding, Binding):
                    actions.add(binding.action)
    return frozenset(actions)


def _in_sight(widget: Widget) -> bool:
    """Whether *widget* is shown (it and every container it is in)."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


def _press(screen: TrainerScreen, id: str) -> None:
    """Press the button *id* of *screen* as it is now (the screen may have been redrawn)."""
    for button in screen.query(f"#{id}").results(Button):
        if not button.disabled:
            button.press()


class TrainerPalette(CommandPalette):
    """Textual's command palette, saying "no matches" in the user's language."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "page_of_commands(1)", show=False),
        Binding("pageup", "page_of_commands(-1)", show=False),
    ]

    def action_page_of_commands(self, direction: int) -> None:
        """Page through the commands (an empty list has no page to go to)."""
        commands = self.query_one(CommandList)
        if commands.option_count and commands.highlighted is not None and commands.size.height:
            if direction > 0:
                commands.action_page_down()  # type: ignore[no-untyped-call]
            else:
                commands.action_page_up()  # type: ignore[no-untyped-call]

    def on_input_changed(self, event: Input.Changed) -> None:
        self._only_while_open(event)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._only_while_open(event)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._only_while_open(event)

    def _only_while_open(self, event: TextualMessage) -> None:
        """A key the palette's field or list takes after it has closed (typed quickly after
        Enter or Esc) searches and chooses nothing: the palette's widgets are gone."""
        if self.app.screen is not self:
            event.prevent_default()
            event.stop()

    def run_worker(self, *args: Any, **kwargs: Any) -> Worker[Any]:
        """The palette's own searches end quietly if the palette closes under them (Esc
        typed at once after Ctrl+P: Textual's search then finds its list gone)."""
        kwargs["exit_on_error"] = False
        return super().run_worker(*args, **kwargs)

    def dismiss(self, result: None = None) -> AwaitComplete:
        """Close once: a key typed after the choice closes nothing else."""
        if self.app.screen is not self:
            return AwaitComplete(asyncio.sleep(0))
        return super().dismiss(result)

    def _start_no_matches_countdown(self, search_value: str) -> None:
        self._stop_no_matches_countdown()
        text = trainer(self).translator.gettext(N_("No command matches."))

        def show() -> None:
            if self.app.screen is not self:
                return  # closed meanwhile (or a command chosen): nothing to say
            if search_value:
                self.query_one(CommandList).add_option(
                    Option(
                        Align.center(Text(text, style="not bold")),
                        disabled=True,
                        id=self._NO_MATCHES,
                    )
                )
                self._list_visible = True
            else:
                self._list_visible = False

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show)
