"""The menu: what there is to do, and the language."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Select, Static

from andar_bahar import __version__
from andar_bahar.i18n import LANGUAGES
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.tui.common import button, literal, tr
from andar_bahar.tui.protocol import trainer
from andar_bahar.tui.screen import TrainerScreen

__all__ = ["MENU", "MainMenu"]

LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "ka": "ქართული"}


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

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "language" and event.value != trainer(self).language:
            trainer(self).choose_language(str(event.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "quit":
            trainer(self).ask_to_quit()
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
            from andar_bahar.tui.resume import ResumeScreen

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
