"""What the screen shows at its edges, at 80×24 (and 60×20): long names that can still be
told apart, lists that open above the footer, a footer that keeps Ctrl+L, checkboxes
readable without colour, every command of a screen in the palette, and Ctrl+Q on a
question asking the same as anywhere else."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Select

from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.common import ConfirmScreen, TrainerFooter, TrainerHeader
from andar_bahar.tui.teaching import PlayerName
from test_tui_design import club_setup
from test_tui_fields import club_table
from test_tui_state import open_lesson
from tui_support import SMALL, make_app, reach, run, screen_text, settle, until


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


LONG = (
    "Alexandra Konstantinovna Rimsky-Korsakova",  # 41 characters
    "Alexandra Konstantinovna Rimsky-Kovalenko",  # the same first 32
)


def test_long_names_are_cut_after_what_tells_them_apart_and_shown_in_full_in_focus(
    tmp_path: Path,
) -> None:
    # The review's two 40-character names were both cut to the same 18 characters.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, ", ".join(["Nino", *LONG]))  # Nino deals first
        names = {name.full_name: name for name in screen.query(PlayerName)}
        await reach(pilot, "#mark-0-andar")  # the first long name's row in focus
        assert str(names[LONG[0]].render()) == LONG[0]  # in full while in focus
        assert LONG[0].split()[-1] in screen_text(app)
        shown = str(names[LONG[1]].render())  # the other, cut: 40 % of the row
        assert "…" in shown and 20 < len(shown) < len(LONG[1])
        head, tail = shown.split("…")
        assert LONG[1].startswith(head) and LONG[1].endswith(tail)  # cut, not changed
        assert tail.endswith("Kovalenko")  # the part that tells it apart (past 31 cells)
        await reach(pilot, "#mark-1-andar")  # the focus moves to the second row
        assert str(names[LONG[1]].render()) == LONG[1]
        first = str(names[LONG[0]].render())
        assert first.endswith("Korsakova") and first != shown  # cut again, told apart

    play(tmp_path, scenario)


def test_a_name_with_room_is_shown_in_full(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, f"Nino, Lali, {LONG[0]}")
        shown = [str(name.render()) for name in screen.query(PlayerName)]
        assert shown == ["Lali", LONG[0]]  # 41 characters fit a row of 120 columns

    play(tmp_path, scenario, (120, 40))


def lists_cover_the_footer(app: TrainerApp) -> list[str]:
    """The open lists of the screen that reach into the footer or past the screen."""
    footer = app.screen.query_one(TrainerFooter).region.y
    return [
        f"{overlay.parent.id}: {overlay.region}"  # type: ignore[union-attr]
        for overlay in app.screen.query("SelectOverlay")
        if overlay.display and overlay.region.height and overlay.region.bottom > footer
    ]


def test_an_open_list_never_covers_the_footer(tmp_path: Path) -> None:
    # The review saw the paytables' list drawn over the footer (its last items unseen,
    # stray letters left behind).
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        for selector in ("#paytable", "#window"):
            choice = await reach(pilot, selector)
            await pilot.press("enter")
            await pilot.pause()
            assert lists_cover_the_footer(app) == [], selector
            overlay = choice.query_one("SelectOverlay")
            assert overlay.region.height == len(choice.options)  # type: ignore[attr-defined]
            await pilot.press("escape")
            await pilot.pause()
        assert setup.query_one("#paytable").value == "own"  # type: ignore[attr-defined]
        await club_table(app, pilot, Asha=500)
        for selector in ("#bet", "#speed"):
            await reach(pilot, selector)
            await pilot.press("enter")
            await pilot.pause()
            assert lists_cover_the_footer(app) == [], selector
            await pilot.press("escape")
            await pilot.pause()

    play(tmp_path, scenario)


@pytest.mark.parametrize(
    "lang",
    [
        # Georgian's keys are the widest: everyday; Russian repeats it in the slow tier.
        pytest.param("ru", marks=pytest.mark.slow),
        "ka",
    ],
)
def test_the_footer_keeps_ctrl_l_at_60_columns(tmp_path: Path, lang: str) -> None:
    # At 60 columns the review's footer lost Ctrl+L off its right edge, with a stray letter.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await open_lesson(app, pilot, "Asha, Ravi")
        footer = app.screen.query_one(TrainerFooter)
        language = {"ru": "Язык", "ka": "ენა"}[lang]

        def fitted() -> bool:  # it leaves out a key, then looks again, a frame later
            last = screen_text(app).splitlines()[-1].rstrip()
            return footer.virtual_size.width <= footer.size.width and last.endswith(language)

        await until(pilot, fitted, "the footer fitted, the language key last")
        line = screen_text(app).splitlines()[-1].rstrip()
        assert "^l " in line and "d " in line, line  # the language, and the deal
        assert line.endswith(language), line  # nothing after it

    play(tmp_path, scenario, (60, 20), lang=lang)


def test_a_checkbox_shows_its_state_without_colour(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await pilot.pause()
        box = app.screen.query_one("#trainer", Checkbox)
        line = next(line for line in screen_text(app).splitlines() if "trainer deals" in line)
        assert "▐ ▌" in line  # not checked: an empty box
        box.toggle()
        await pilot.pause()
        line = next(line for line in screen_text(app).splitlines() if "trainer deals" in line)
        assert "▐X▌" in line  # checked: an X

    play(tmp_path, scenario)


def test_the_palette_lists_every_command_of_the_screen_in_the_users_language(
    tmp_path: Path,
) -> None:
    # The review's palette listed only the footer's keys.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        lesson = await open_lesson(app, pilot, "Asha, Ravi")
        titles = [str(command.title) for command in app.get_system_commands(lesson)]
        assert "Открыть центральную карту" in titles and "Сдать карту" in titles, titles
        lesson.query_one("#deal", Button).disabled = True  # a button that cannot be used
        titles = [str(command.title) for command in app.get_system_commands(lesson)]
        assert "Сдать карту" not in titles
        await club_table(app, pilot, Asha=500)
        titles = [str(command.title) for command in app.get_system_commands(app.screen)]
        for title in ("Игроки", "Закончить сессию", "Открыть джокер", "Сдать карту", "Язык"):
            assert title in titles, (title, titles)  # Players has a key the footer leaves out
        await pilot.press("ctrl+p")
        await pilot.pause(0.5)
        await pilot.pause()
        shown = screen_text(app)
        assert "Игроки" in shown and "Закончить сессию" in shown

    play(tmp_path, scenario, lang="ru")


def test_ctrl_q_on_a_question_asks_the_same_as_anywhere(tmp_path: Path) -> None:
    # The review pressed Ctrl+Q on "Leave the lesson?": the trainer quit at once.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        lesson = await open_lesson(app, pilot, "Asha, Ravi")
        lesson.query_one("#speed", Select).value = "0.3"
        await pilot.press("a", "t")  # Auto deals a card every 0.3 s …
        await pilot.press("escape")
        await pilot.pause()
        leave = app.screen
        assert isinstance(leave, ConfirmScreen) and not leave.quitting
        dealt = len(lesson.round.dealt)
        await pilot.pause(0.7)  # … but not while a question is open over the lesson
        assert len(lesson.round.dealt) == dealt and lesson.dealer.auto
        await pilot.press("ctrl+q")
        await pilot.pause()
        quit_question = app.screen
        assert isinstance(quit_question, ConfirmScreen) and quit_question.quitting
        assert str(quit_question.query_one("#question").render()).startswith("Quit the trainer?")
        await pilot.press("n")  # no: back to the first question, then to the lesson
        await pilot.pause()
        assert app.screen is leave and app.is_running
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is lesson
        await pilot.press("t")  # Auto stopped
        await pilot.press("escape", "ctrl+q", "ctrl+q")  # on the quit question: it quits
        await settle(app, pilot)
        assert not app.is_running

    play(tmp_path, scenario)


def test_a_title_changed_while_the_header_is_taken_down_does_not_stop_the_trainer(
    tmp_path: Path,
) -> None:
    # The long monkey (seed 8) stopped the trainer: a title changed just as a screen left,
    # and Textual's header looked for its title widget, already gone.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        header = app.screen.query_one(TrainerHeader)
        await header.query_one("HeaderTitle").remove()  # as when the screen is taken down
        app.title = "Andar Bahar"
        app.screen.sub_title = "—"
        await pilot.pause()
        assert app.is_running and not app.failures

    play(tmp_path, scenario)
