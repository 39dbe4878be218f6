"""The Textual application: the language, the history's thread, the last resort, quitting.

Only what the menu needs is imported at start-up; each screen imports its own modules
when it opens, and the history database opens in the background (see
:mod:`andar_bahar.tui.records`). The screens know the application only through
:class:`andar_bahar.tui.protocol.Trainer`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.screen import Screen

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n import LANGUAGES
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.common import ConfirmScreen
from andar_bahar.tui.failures import (
    FAULT,
    database_failure,
    default_log_path,
    guard_handlers,
    log_fault,
)
from andar_bahar.tui.menu import MainMenu
from andar_bahar.tui.palette import TrainerPalette, screen_commands
from andar_bahar.tui.records import Records
from andar_bahar.tui.screen import TrainerScreen
from andar_bahar.tui.text import quoting_translations

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["TrainerApp"]

T = TypeVar("T")


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
        log_path: Path | None = None,
    ) -> None:
        super().__init__()
        self.language = lang
        self.translator: Translator = quoting_translations(lang)
        self.db_url = db_url
        self.seed = seed
        self.records = Records(db_url, store)
        self.log_path = log_path
        """Where a fault of the trainer is logged (default: beside the history)."""
        self.failures: list[Exception] = []
        """The faults met so far (each logged, and said in one sentence)."""
        self._draws = 0
        self._quitting = False

    def rng(self) -> random.Random:
        """A fresh source of randomness: secure, or seeded and reproducible with ``--seed``."""
        if self.seed is None:
            return random.SystemRandom()
        self._draws += 1
        # --seed: a reproducible lesson for training; never the default.
        return random.Random(f"{self.seed}/{self._draws}")  # noqa: S311

    # -- the last resort -----------------------------------------------------------------

    def failed(self, error: Exception) -> None:
        """A fault of the trainer: logged with its traceback, said in one sentence."""
        self.failures.append(error)
        path = log_fault(self.log_path or default_log_path(), error)
        text = Message(FAULT, path=str(path)).localized(self.translator)
        self.notify(text, severity="error", markup=False, timeout=15)

    # -- the history ---------------------------------------------------------------------

    def history(
        self,
        work: Callable[[Storage], T],
        then: Callable[[T], object] | None = None,
        *,
        failed: Callable[[str], object] | None = None,
    ) -> None:
        """Run *work* on the history's thread; *then* gets its result on the app's thread.

        A failure is one sentence in the user's language: given to *failed*, or shown
        as a warning. (A screen uses :meth:`TrainerScreen.history`, which answers it
        on the screen.)
        """
        future = self.records.submit(work)

        async def wait() -> None:
            try:
                result = await future
            except asyncio.CancelledError:
                return
            except Exception as error:
                self._history_failed(error, failed)
            else:
                if then is not None:
                    then(result)

        self.run_worker(wait(), group="history")

    def _history_failed(self, error: Exception, failed: Callable[[str], object] | None) -> None:
        database = database_failure(error, self.records.url)
        if database is not None:
            text = database.localized(self.translator)
        elif isinstance(error, AndarBaharError):
            text = error.localized(self.translator)
        else:  # a fault of the trainer's own
            self.failed(error)
            path = str(self.log_path or default_log_path())
            text = Message(FAULT, path=path).localized(self.translator)
            if failed is None:
                return
        if failed is not None:
            failed(text)
        else:
            self.notify(text, severity="warning", markup=False, timeout=8)

    async def history_idle(self) -> None:
        """Wait for every queued history call and its answer (tests, quitting)."""
        from textual.worker import NoActiveWorker, WorkerCancelled, get_current_worker

        try:
            current = get_current_worker()
        except NoActiveWorker:
            current = None
        await self.records.idle()
        for worker in list(self.workers):
            if worker is current:
                continue  # quitting from a worker: it cannot wait for itself
            # a cancelled one was replaced by a newer one (the odds of a newer choice)
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()

    # -- language ------------------------------------------------------------------------

    async def set_language(self, lang: str) -> None:
        """Switch to *lang*: the screens in sight are drawn again at once, keeping what each
        one shows and holds; the others when they come back on top."""
        if lang == self.language:
            return
        self.language = lang
        self.translator = quoting_translations(lang)
        for screen in reversed(self.screen_stack):
            relocalize = getattr(screen, "relocalize", None)
            if relocalize is not None:
                await relocalize()
            if not screen.is_modal:
                break  # the screens under a whole screen are out of sight
        self.refresh_bindings()

    def choose_language(self, lang: str) -> None:
        self.call_later(self.set_language, lang)

    async def action_next_language(self) -> None:
        """Cycle en → ru → ka on every screen."""
        index = LANGUAGES.index(self.language)
        await self.set_language(LANGUAGES[(index + 1) % len(LANGUAGES)])

    # -- moving about --------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(MainMenu())
        self.call_after_refresh(self.records.warm_up)
        self.call_after_refresh(self._warm_up_languages)
        # What is made by now (modules, Textual's classes, the menu) lives as long as the
        # trainer: kept out of the garbage collector's full passes, which then take
        # ~15 ms instead of ~100 ms (a pause a key or Ctrl+L would otherwise wait for).
        self.call_after_refresh(gc.freeze)

    def _warm_up_languages(self) -> None:
        """Compile the other languages' catalogues in the background (0.1–0.3 s each), so
        that the first Ctrl+L to each does not wait for it."""

        def compile_all() -> None:
            for lang in LANGUAGES:
                quoting_translations(lang)

        self.run_worker(compile_all, thread=True, group="catalogues")

    async def action_back(self) -> None:
        screen = self.screen
        if isinstance(screen, TrainerScreen):
            screen.action_leave()

    def action_help_quit(self) -> None:
        self.notify(Message(N_("Press Ctrl+Q to quit.")).localized(self.translator), markup=False)

    def ask_to_quit(self) -> None:
        self.call_later(self.action_quit)

    async def action_quit(self) -> None:
        """Quit; first asking, when a lesson or a table in play would be left (a second
        Ctrl+Q on that question quits; on any other question, it asks the same)."""
        top = self.screen
        if isinstance(top, ConfirmScreen) and top.quitting:
            await self._quit()
            return
        if any(
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

            self.push_screen(ConfirmScreen(question, quitting=True), answered)
            return
        await self._quit()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and (self._quitting or not self.screen_stack):
            return  # typed while the trainer closes: no screen is left to take it
        await super().on_event(event)

    async def _quit(self) -> None:
        self._quitting = True
        for screen in reversed(self.screen_stack):
            closing = getattr(screen, "before_quit", None)
            if closing is not None:
                closing()
        await self.history_idle()
        self.exit()

    def on_unmount(self) -> None:
        self.records.close()

    def action_command_palette(self) -> None:
        opened = any(isinstance(screen, CommandPalette) for screen in self.screen_stack)
        if self.use_command_palette and not opened:
            self.push_screen(
                TrainerPalette(
                    placeholder=self.translator.gettext(N_("Search for a command…")),
                    id="--command-palette",
                )
            )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The commands of the palette, in the user's language: every key of the screen
        and of the app, and every button the screen shows."""
        yield from screen_commands(self, screen)


guard_handlers(TrainerApp, lambda app, error: app.failed(error))
