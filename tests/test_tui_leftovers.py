"""What a second look at 80×24 found (issue 12): a top-up refused in the words of a stake,
a hint naming a button the screen does not have, a percentage split across two lines,
a dialog under a footer of keys that do nothing there, a list of drills wider than its
place."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Select, Static

from andar_bahar.chance.odds import odds_report
from andar_bahar.engine.errors import BetError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import parse_chips
from andar_bahar.games.drills import DrillKind
from andar_bahar.i18n import translations
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_summary import PlayersScreen
from andar_bahar.tui.common import ConfirmScreen, TrainerFooter
from andar_bahar.tui.drills import DrillScreen
from andar_bahar.tui.text import quoting_translations, unbroken
from test_tui_design import club_setup
from test_tui_state import open_lesson
from tui_support import (
    SMALL,
    footer_line,
    is_visible,
    make_app,
    note,
    press,
    reach,
    run,
    screen_text,
    settle,
    type_into,
    whole_screen_text,
)

LANGS = pytest.mark.parametrize("lang", ["en", "ru", "ka"])
TOP_UP_LANGS = pytest.mark.parametrize(
    "lang",
    [
        # The same six-second keyboard walk in each language, for one sentence of the
        # catalogue: Russian everyday, English and Georgian in the slow tier (.ci/run).
        pytest.param("en", marks=pytest.mark.slow),
        "ru",
        pytest.param("ka", marks=pytest.mark.slow),
    ],
)


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


async def players_screen(app: TrainerApp, pilot: Pilot[None]) -> PlayersScreen:
    """A club table with Asha and Ravi, and its Players screen open (the key p)."""
    await club_setup(app, pilot)
    await type_into(pilot, "#name", "Asha", enter=True)
    await type_into(pilot, "#chips", "500", enter=True)
    await type_into(pilot, "#name", "Ravi", enter=True)
    await type_into(pilot, "#chips", "300", enter=True)
    await press(pilot, "#start")
    assert isinstance(app.screen, ClubRoundScreen)
    await pilot.press("p")
    await settle(app, pilot)
    players = app.screen
    assert isinstance(players, PlayersScreen)
    return players


@TOP_UP_LANGS
def test_a_bad_top_up_speaks_of_chips_as_seating_does(tmp_path: Path, lang: str) -> None:
    # The review topped Ravi up with "lots": "The stake 'lots' is not a number". The
    # sentence to expect is the one seating says of chips (games/clubgame.py), with the
    # value in the language's quotes, as the terminal shows it.
    t = quoting_translations(lang)
    with pytest.raises(BetError) as refused:
        parse_chips("Ravi", "lots")
    expected = refused.value.localized(t)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        players = await players_screen(app, pilot)
        await type_into(pilot, "#chips", "lots")
        table = await reach(pilot, "#players")
        await pilot.press("down")  # Ravi
        assert table.cursor_row == 1  # type: ignore[attr-defined]
        await press(pilot, "#top-up")
        said = note(app, "#note")
        assert said == expected
        assert "stake" not in said and "ставк" not in said and "ფსონ" not in said
        assert is_visible(app, players.query_one("#note"))
        assert str(players.game.balances["Ravi"]) == "300"  # nothing changed
        await type_into(pilot, "#name", "Nino")
        await type_into(pilot, "#chips", "lots", enter=True)  # seating says the same of Nino
        assert note(app, "#note") == expected.replace("Ravi", "Nino")

    play(tmp_path, scenario, lang=lang)


@TOP_UP_LANGS  # the same walk in each language: Russian everyday, the others in the slow tier
def test_the_players_hint_names_the_seat_button_as_it_is_labelled(
    tmp_path: Path, lang: str
) -> None:
    # The review read «Посадить» in the hint beside a button labelled «Посадить игрока».
    quotes = {"en": "“{}”", "ru": "«{}»", "ka": "„{}“"}[lang]

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        players = await players_screen(app, pilot)
        hint = str(players.query_one("#players-hint", Static).render())
        label = str(players.query_one("#seat", Button).label)
        assert quotes.format(label) in hint, (label, hint)

    play(tmp_path, scenario, lang=lang)


def test_a_number_and_its_percent_sign_stay_on_one_line() -> None:
    # Rich and Textual break at a no-break space too (the reason for tui/text.py).
    from textual.content import Content

    for space in (" ", "\u00a0", "\u202f"):
        broken = Content(f"the expected return is +8,52{space}%").wrap(28)
        assert [line.plain for line in broken][-1].strip() == "%"
        kept = Content(unbroken(f"the expected return is +8,52{space}%")).wrap(28)
        assert [line.plain for line in kept][-1] == "+8,52%"


@pytest.mark.parametrize("lang", ["ru", "ka"])
def test_no_percentage_on_screen_can_break_from_its_number(tmp_path: Path, lang: str) -> None:
    # The review saw "+8,52" at the end of one line of a club table's warnings and "%" on
    # the next. The warning's figure comes from the engine's odds (chance/odds.py).
    t = translations(lang)
    report = odds_report(find_procedure("classic"), find_paytable("trainer-default"))
    figures = [unbroken(w.localized(t)) for w in report.warning_messages()]
    assert any("+8,52%" in figure for figure in figures)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.query_one("#procedure", Select).value = "classic"
        setup.query_one("#paytable", Select).value = "trainer-default"
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        text = await whole_screen_text(app, pilot)
        assert "+8,52%" in text
        assert re.findall(r".{0,12}(?<!\d)%", text) == []  # every % right after its number
        for line in text.splitlines():
            assert not line.strip().startswith("%"), line

    play(tmp_path, scenario, lang=lang)


def test_a_dialog_shows_only_its_own_keys_in_the_footer(tmp_path: Path) -> None:
    # The review saw "d Deal t Auto n Next" under "Leave the lesson?": keys that do
    # nothing while the question is open.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        def lesson_keys(line: str) -> bool:
            return "Deal" in line and "Next" in line

        def dialog_keys(line: str) -> bool:
            return line.split() == ["y", "Yes", "n", "No"]

        def dialog_keys_ru(line: str) -> bool:
            return line.split() == ["y", "Да", "n", "Нет"]

        await open_lesson(app, pilot, "Asha, Ravi")
        lesson_footer = await footer_line(app, pilot, lesson_keys)
        assert lesson_keys(lesson_footer), lesson_footer
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        footer = await footer_line(app, pilot, dialog_keys)
        assert dialog_keys(footer), footer
        assert app.screen.query_one(TrainerFooter).region.bottom == app.size.height
        await pilot.press("ctrl+l")  # the dialog's keys in the dialog's language
        await settle(app, pilot)
        footer = await footer_line(app, pilot, dialog_keys_ru)
        assert dialog_keys_ru(footer), footer
        await pilot.press("n")  # no: the lesson and its keys are back
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        footer = await footer_line(app, pilot, lambda line: "Сдать" in line)
        assert "Сдать" in footer, footer

    play(tmp_path, scenario)


@LANGS
@pytest.mark.parametrize("width", [80, 100])
def test_the_list_of_drills_fits_its_place(tmp_path: Path, lang: str, width: int) -> None:
    # At 80 columns the review saw the longest kinds wrap over the text behind the list;
    # at 96–110 columns (three controls a row) every language's did.
    t = translations(lang)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("4")
        await settle(app, pilot)
        assert isinstance(app.screen, DrillScreen)
        await type_into(pilot, "#learner", "Tamar", enter=True)  # a drill below the list
        await settle(app, pilot)
        kind = await reach(pilot, "#kind")
        await pilot.press("enter")
        await pilot.pause()
        overlay = kind.query_one("SelectOverlay")
        assert overlay.virtual_size.height == len(DrillKind)  # one line each: none wraps
        assert is_visible(app, overlay)
        shown = screen_text(app)
        for drill in DrillKind:
            assert drill.localized(t) in shown
        await pilot.press("escape")  # closes the list, and only the list
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen) and not kind.expanded  # type: ignore[attr-defined]

    play(tmp_path, scenario, (width, 24), lang=lang)
