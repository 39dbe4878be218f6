"""The Textual application: the menu, the language, the history's thread, the command palette.

Only what the menu needs is imported at start-up; each screen imports its own modules
when it opens, and the history database opens in the background (see
:mod:`andar_bahar.tui.records`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.align import Align
from rich.text import Text
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandList, CommandPalette
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, Select, Static
from textual.widgets.option_list import Option

from andar_bahar import __version__
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n import LANGUAGES, translations
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.common import ConfirmScreen, TrainerScreen, button, literal, tr, trainer
from andar_bahar.tui.records import Records

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["MainMenu", "TrainerApp"]

T = TypeVar("T")

LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "ka": "ქართული"}

_PALETTE = N_("palette")  # the description Textual gives the command palette's key


class TrainerApp(App[None]):
    """The trainer: the teaching game, the club game, drills, odds and history."""

    TITLE = "Andar Bahar"
    CSS = """
    #body { height: 1fr; padding: 0 1; }
    .title { text-style: bold; width: 1fr; height: auto; margin: 1 0 0 0; }
    .hint { color: $text-muted; width: 1fr; height: auto; }
    .note { color: $warning; width: 1fr; height: auto; }
    .label { width: 1fr; height: auto; margin: 1 0 0 0; }
    Input { width: 1fr; max-width: 60; margin: 0 0 0 0; }
    Select { width: 1fr; max-width: 100; }
    Checkbox { width: 1fr; margin: 1 0 0 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), priority=True),
        Binding("escape", "back", N_("Back")),
        Binding("ctrl+l", "next_language", N_("Language"), priority=True),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(
        self,
        *,
        lang: str = "en",
        db_url: str | None = None,
        seed: int | None = None,
        store: Storage | None = None,
    ) -> None:
        super().__init__()
        self.language = lang
        self.translator: Translator = translations(lang)
        self.db_url = db_url
        self.seed = seed
        self.records = Records(db_url, store)
        self._draws = 0
        self._switching = False

    def rng(self) -> random.Random:
        """A fresh source of randomness: secure, or seeded and reproducible with ``--seed``."""
        if self.seed is None:
            return random.SystemRandom()
        self._draws += 1
        # --seed: a reproducible lesson for training; never the default.
        return random.Random(f"{self.seed}/{self._draws}")  # noqa: S311

    # -- the history ---------------------------------------------------------------------

    def history(
        self,
        work: Callable[[Storage], T],
        then: Callable[[T], object] | None = None,
        *,
        failed: Callable[[str], object] | None = None,
    ) -> None:
        """Run *work* on the history's thread; *then* gets its result on the screen's thread.

        A failure is one sentence in the user's language: given to *failed*, or shown
        as a warning.
        """
        future = self.records.submit(work)

        async def wait() -> None:
            try:
                result = await future
            except asyncio.CancelledError:
                return
            except AndarBaharError as error:
                self._history_failed(error.localized(self.translator), failed)
            except Exception as error:
                reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
                self._history_failed(
                    Message(
                        N_("The history could not be read or written: {reason}."),
                        reason=reason.rstrip("."),
                    ).localized(self.translator),
                    failed,
                )
            else:
                if then is not None:
                    then(result)

        self.run_worker(wait(), group="history")

    def _history_failed(self, text: str, failed: Callable[[str], object] | None) -> None:
        if failed is not None:
            failed(text)
        else:
            self.notify(text, severity="warning", markup=False, timeout=8)

    async def history_idle(self) -> None:
        """Wait for every queued history call and its answer (tests, quitting)."""
        from textual.worker import WorkerCancelled

        await self.records.idle()
        for worker in list(self.workers):
            # a cancelled one was replaced by a newer one (the odds of a newer choice)
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()

    # -- language ------------------------------------------------------------------------

    async def set_language(self, lang: str) -> None:
        """Switch every screen to *lang*, keeping what each one shows and holds."""
        if lang == self.language or self._switching:
            return
        self._switching = True
        try:
            self.language = lang
            self.translator = translations(lang)
            for screen in list(self.screen_stack):
                relocalize = getattr(screen, "relocalize", None)
                if relocalize is not None:
                    await relocalize()
        finally:
            self._switching = False
        self.refresh_bindings()

    async def action_next_language(self) -> None:
        """Cycle en → ru → ka on every screen."""
        index = LANGUAGES.index(self.language)
        await self.set_language(LANGUAGES[(index + 1) % len(LANGUAGES)])

    # -- moving about --------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(MainMenu())
        self.call_after_refresh(self.records.warm_up)

    async def action_back(self) -> None:
        screen = self.screen
        if isinstance(screen, TrainerScreen):
            screen.action_leave()

    def action_help_quit(self) -> None:
        self.notify(Message(N_("Press Ctrl+Q to quit.")).localized(self.translator), markup=False)

    async def action_quit(self) -> None:
        """Quit; first asking, when a lesson or a table in play would be left (a second
        Ctrl+Q on the question quits)."""
        asking = isinstance(self.screen, ConfirmScreen)
        if not asking and any(
            isinstance(screen, TrainerScreen) and screen.leave_question() is not None
            for screen in self.screen_stack
        ):
            question = Message(
                N_(
                    "Quit the trainer? The game in play is left unfinished; the rounds played"
                    " and a table's balances stay in the history."
                )
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self.run_worker(self._quit())

            self.push_screen(ConfirmScreen(question), answered)
            return
        await self._quit()

    async def _quit(self) -> None:
        for screen in reversed(self.screen_stack):
            closing = getattr(screen, "before_quit", None)
            if closing is not None:
                closing()
        await self.history_idle()
        self.exit()

    def on_unmount(self) -> None:
        self.records.close()

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(
                TrainerPalette(
                    placeholder=self.translator.gettext(N_("Search for a command…")),
                    id="--command-palette",
                )
            )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The commands of the palette, in the user's language: the screen's keys and the app's."""
        t = self.translator
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.description or binding.action in seen or not active.enabled:
                continue
            if not binding.show or not isinstance(active.node, App | TrainerScreen):
                continue  # Textual's own keys (Tab, copy …) and the widgets' keys
            if binding.action == "command_palette":
                continue
            seen.add(binding.action)
            action, namespace = binding.action, active.node

            async def run(action: str = action, namespace: object = namespace) -> None:
                await self.run_action(action, namespace)  # type: ignore[arg-type]

            yield SystemCommand(t.gettext(binding.description), self.get_key_display(binding), run)
        if isinstance(screen, MainMenu):
            for key, msgid in MENU:
                yield SystemCommand(t.gettext(msgid), "", lambda key=key: screen.open(key))


class TrainerPalette(CommandPalette):
    """Textual's command palette, saying "no matches" in the user's language."""

    def _start_no_matches_countdown(self, search_value: str) -> None:
        self._stop_no_matches_countdown()
        text = trainer(self).translator.gettext(N_("No command matches."))

        def show() -> None:
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


MENU = (
    ("teaching", N_("Teaching game")),
    ("club", N_("Club game")),
    ("resume", N_("Resume a club table")),
    ("drills", N_("Drills")),
    ("odds", N_("Odds")),
    ("history", N_("History")),
)


class MainMenu(TrainerScreen):
    """What there is to do."""

    DEFAULT_CSS = """
    MainMenu Button { width: 44; max-width: 100%; margin: 1 0 0 0; content-align: left middle; }
    MainMenu Select { width: 44; max-width: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(str(number), f"open('{key}')", show=False)
        for number, (key, _) in enumerate(MENU, start=1)
    ]

    def compose_body(self) -> ComposeResult:
        with Vertical():
            yield Static(
                literal(tr(self, Message(N_("Andar Bahar trainer"))) + f" {__version__}"),
                classes="title",
            )
            yield Static(
                literal(
                    tr(
                        self,
                        Message(
                            N_(
                                "Learn the game with markers and tokens, run a club table with"
                                " chips, practise as a dealer, and see the true odds."
                            )
                        ),
                    )
                ),
                classes="hint",
            )
            for number, (key, msgid) in enumerate(MENU, start=1):
                yield button(f"{number}  {self.t.gettext(msgid)}", key)
            yield Static(literal(tr(self, Message(N_("Language")))), classes="label")
            yield self.choice(
                "language",
                [(LANGUAGE_NAMES[code], code) for code in LANGUAGES],
                trainer(self).language,
            )
            yield button(tr(self, Message(N_("Quit"))), "quit")

    def save_form(self) -> None:
        super().save_form()
        self.form.pop("language", None)  # the app's language, not a field's

    def sync(self) -> None:
        language = self.query_one("#language", Select)
        if language.value != trainer(self).language:
            language.value = trainer(self).language

    def on_mount(self) -> None:
        super().on_mount()
        self.focus_on(self.query_one("#teaching", Button))

    def leave(self) -> None:
        """The menu is the first screen: Esc stays here (Ctrl+Q quits)."""

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "language" and event.value != trainer(self).language:
            await trainer(self).set_language(str(event.value))

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "quit":
            await trainer(self).action_quit()
        elif event.button.id is not None:
            self.open(event.button.id)

    def action_open(self, key: str) -> None:
        self.open(key)

    def open(self, key: str) -> None:
        """Open a screen, importing its module only now (a quick start-up)."""
        if key == "teaching":
            from andar_bahar.tui.teaching import TeachingSetup

            self.app.push_screen(TeachingSetup())
        elif key == "club":
            from andar_bahar.tui.club_setup import ClubSetup

            self.app.push_screen(ClubSetup())
        elif key == "resume":
            from andar_bahar.tui.club_summary import ResumeScreen

            self.app.push_screen(ResumeScreen())
        elif key == "drills":
            from andar_bahar.tui.drills import DrillScreen

            self.app.push_screen(DrillScreen())
        elif key == "odds":
            from andar_bahar.tui.odds import OddsScreen

            self.app.push_screen(OddsScreen())
        elif key == "history":
            from andar_bahar.tui.history import HistoryScreen

            self.app.push_screen(HistoryScreen())
