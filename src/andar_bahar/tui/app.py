"""The Textual application: the menu and the shared state of every screen."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Label, Select, Static

from andar_bahar import __version__
from andar_bahar.i18n import LANGUAGES, translations
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.tui.common import tr, trainer

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["MainMenu", "TrainerApp"]

LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "ka": "ქართული"}


class TrainerApp(App[None]):
    """The trainer: the teaching game, the club game, drills, odds and history."""

    TITLE = "Andar Bahar"
    CSS = """
    Screen { overflow-y: auto; }
    .title { text-style: bold; padding: 1 0 0 0; }
    .error { color: $error; height: auto; }
    .note { color: $warning; height: auto; }
    .menu Button { width: 40; margin: 0 0 1 0; }
    Input { width: 40; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit"),
        Binding("escape", "back", "Back"),
        Binding("ctrl+l", "next_language", "Language"),
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
        self._store = store
        self._draws = 0

    @property
    def store(self) -> Storage:
        """The history database, opened on first use (SQLite in the user's data folder)."""
        if self._store is None:
            from andar_bahar.storage import Storage

            self._store = Storage.open(self.db_url)
        return self._store

    def rng(self) -> random.Random:
        """A fresh source of randomness: secure, or seeded and reproducible with ``--seed``."""
        if self.seed is None:
            return random.SystemRandom()
        self._draws += 1
        # --seed: a reproducible lesson for training; never the default.
        return random.Random(f"{self.seed}/{self._draws}")  # noqa: S311

    def set_language(self, lang: str) -> None:
        """Switch every screen to *lang*."""
        self.language = lang
        self.translator = translations(lang)
        for screen in self.screen_stack:
            screen.refresh(recompose=True)

    def action_next_language(self) -> None:
        """Cycle en → ru → ka on every screen."""
        index = LANGUAGES.index(self.language)
        self.set_language(LANGUAGES[(index + 1) % len(LANGUAGES)])

    def on_mount(self) -> None:
        self.push_screen(MainMenu())

    async def action_back(self) -> None:
        if len(self.screen_stack) > 2:
            self.pop_screen()

    def on_unmount(self) -> None:
        if self._store is not None:
            self._store.close()


class MainMenu(Screen[None]):
    """What there is to do."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(classes="menu"):
            yield Label(
                tr(self, Message(N_("Andar Bahar trainer"))) + f" {__version__}", classes="title"
            )
            yield Static(
                tr(
                    self,
                    Message(
                        N_(
                            "Learn the game with markers and tokens, run a club table with chips,"
                            " practise as a dealer, and see the true odds."
                        )
                    ),
                )
            )
            yield Button(tr(self, Message(N_("Teaching game"))), id="teaching", variant="primary")
            yield Button(tr(self, Message(N_("Club game"))), id="club")
            yield Button(tr(self, Message(N_("Drills"))), id="drills")
            yield Button(tr(self, Message(N_("Odds"))), id="odds")
            yield Button(tr(self, Message(N_("History"))), id="history")
            yield Label(tr(self, Message(N_("Language"))))
            yield Select(
                [(LANGUAGE_NAMES[code], code) for code in LANGUAGES],
                value=trainer(self).language,
                allow_blank=False,
                id="language",
            )
            yield Button(tr(self, Message(N_("Quit"))), id="quit")
        yield Footer()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "language" and event.value != trainer(self).language:
            trainer(self).set_language(str(event.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        from andar_bahar.tui import club, drills, history, odds, teaching

        screens = {
            "teaching": teaching.TeachingSetup,
            "club": club.ClubSetup,
            "drills": drills.DrillScreen,
            "odds": odds.OddsScreen,
            "history": history.HistoryScreen,
        }
        if event.button.id == "quit":
            self.app.exit()
        elif event.button.id in screens:
            self.app.push_screen(screens[event.button.id]())
