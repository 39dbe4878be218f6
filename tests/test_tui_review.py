"""What a review at 80×24 found (issue 12): keys typed faster than the screen moves the
focus, a typed card or a chosen rank kept through Ctrl+L, tables that fit the screen, the
bet named in the user's language when the table maximum refuses an addition."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.games.drills import DrillKind
from andar_bahar.storage import Storage
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_setup import ClubSetup
from andar_bahar.tui.common import ConfirmScreen, TrainerFooter
from andar_bahar.tui.odds import OddsScreen
from andar_bahar.tui.tables import Table
from test_tui_state import open_lesson, text_of
from test_tui_walks import store_rounds
from tui_support import (
    SMALL,
    choose,
    is_visible,
    make_app,
    note,
    press,
    run,
    settle,
    type_into,
    type_keys,
)


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


async def type_fast(app: TrainerApp, pilot: Pilot[None], text: str) -> None:
    """Every key of *text* ("\\n" is Enter) handed to the app at once, as a terminal does
    when someone types faster than the screen is drawn (or a barcode reader types)."""
    for char in text:
        app.post_message(events.Key("enter", "\r") if char == "\n" else events.Key(char, char))
    await settle(app, pilot)
    await pilot.pause()


def test_names_and_chips_typed_at_once_each_land_in_their_field(tmp_path: Path) -> None:
    # The review typed "Asha⏎500⏎" in one go: "500" went into the name field, because the
    # focus moved to the chips field only after the keys had been handed out.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await settle(app, pilot)
        setup = app.screen
        assert isinstance(setup, ClubSetup)
        await type_fast(app, pilot, "Asha\n500\nRavi\n300\n[/]\n20\n")
        assert setup.players == {"Asha": Decimal(500), "Ravi": Decimal(300), "[/]": Decimal(20)}
        assert setup.query_one("#name", Input).value == ""
        assert app.focused is setup.query_one("#name")
        await type_fast(app, pilot, "Nino\nlots\n")  # refused: the name stays, the chips to fix
        assert "Nino" not in setup.players
        assert setup.query_one("#name", Input).value == "Nino"
        assert app.focused is setup.query_one("#chips")
        assert "“lots”" in note(app, "#players-note")  # English quotes, not Python's
        await pilot.press("ctrl+u", "4", "0", "0", "enter")
        assert setup.players["Nino"] == Decimal(400)
        setup.start()
        await settle(app, pilot)
        table = app.screen
        assert isinstance(table, ClubRoundScreen)
        await pilot.press("p")
        await settle(app, pilot)
        await type_fast(app, pilot, "Tamar\n250\nLena\n90\n")
        assert table.game.balances["Tamar"] == Decimal(250)
        assert table.game.balances["Lena"] == Decimal(90)

    play(tmp_path, scenario)


def test_an_addition_over_the_maximum_names_the_bet_in_the_users_language(
    tmp_path: Path,
) -> None:
    # engine/betting.py named the bet by its code ("andar") in this sentence.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = replace(find_paytable("wizard"), max_stake=Decimal(100))
        game = ClubGame(find_procedure("classic"), table, {"Asha": 500})
        app.push_screen(ClubRoundScreen(game, warnings=[]))
        await settle(app, pilot)
        await choose(pilot, "#player", "Asha")
        await choose(pilot, "#bet", "andar")
        await type_into(pilot, "#stake", "60", enter=True)
        await type_into(pilot, "#stake", "50", enter=True)
        text = note(app, "#bet-note")
        assert text.startswith("У игрока Asha уже 60 на «Андар»: с добавкой 50 выходит 110")
        assert "andar" not in text

    play(tmp_path, scenario, lang="ru")


def tables_that_do_not_fit(app: TrainerApp) -> list[str]:
    """The tables on screen whose columns are wider than the table (cut at the right),
    and the footer if its keys are (Textual cuts them at the right edge)."""
    cut = [
        f"{table.id}: {table.virtual_size.width} > {table.scrollable_content_region.width}"
        for table in app.screen.query(Table)
        if table.display and table.virtual_size.width > table.scrollable_content_region.width
    ]
    footer = app.screen.query_one(TrainerFooter)
    if footer.virtual_size.width > footer.size.width:
        cut.append(f"footer: {footer.virtual_size.width} > {footer.size.width}")
    return cut


@pytest.mark.parametrize(
    "lang",
    ["ru", pytest.param("ka", marks=pytest.mark.slow)],  # Georgian: the slow tier (.ci/run)
)
def test_every_table_fits_80_columns(tmp_path: Path, lang: str) -> None:
    # At 80 columns the review found the house edge of Odds, the cards of History, the
    # chips of "Resume a club table" and a learner's mean time cut off at the right edge.
    app = make_app(tmp_path, lang=lang)
    store_rounds(app.db_url or "", 2)
    with Storage.open(app.db_url or "") as store:
        for kind in DrillKind:
            store.record_drill("Tamar", kind.value, True, Decimal("12.5"), session="s1")

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await open_lesson(app, pilot, "Asha, Ravi")  # the most keys in the footer
        assert not tables_that_do_not_fit(app), "lesson"
        await pilot.press("escape", "y", "escape", "2")  # a club table, played, ended, resumed
        await settle(app, pilot)
        setup = app.screen
        assert isinstance(setup, ClubSetup)
        setup.players = {name: Decimal(1000) for name in ("Asha", "Ravi", "Nino-Tamar [red]x")}
        setup.start()
        await settle(app, pilot)
        table = app.screen
        assert isinstance(table, ClubRoundScreen)
        for name in table.game.balances:
            table.round.place_bet(name, "cards:41+", 10)
        while not table.round.finished:
            await pilot.press("d")
        await settle(app, pilot)
        assert table.settlement is not None
        assert not tables_that_do_not_fit(app), "club table"
        await pilot.press("escape", "y")  # the session's summary
        await settle(app, pilot)
        assert not tables_that_do_not_fit(app), "summary"
        await pilot.press("escape", "3")
        await settle(app, pilot)
        await pilot.pause()
        assert app.screen.query_one("#tables", Table).row_count == 1
        assert not tables_that_do_not_fit(app), "resume"
        await pilot.press("escape", "4")  # drills: the learner's progress, every kind
        await settle(app, pilot)
        await type_into(pilot, "#learner", "Tamar", enter=True)
        await settle(app, pilot)
        assert app.screen.query_one("#progress", Table).row_count == len(DrillKind)
        assert not tables_that_do_not_fit(app), "drills"
        await pilot.press("escape", "5")  # odds: the colour of the centre card matters
        await settle(app, pilot)
        odds = app.screen
        assert isinstance(odds, OddsScreen)
        odds.query_one("#procedure", Select).value = "home"
        odds.query_one("#window", Select).value = "after-centre"
        for _ in range(200):  # each choice starts the odds again: wait for the last
            await pilot.pause(0.05)
            if not odds.busy and odds.report and odds.report.procedure.name == "home":
                break
        await settle(app, pilot)
        assert odds.query_one("#odds", Table).row_count == 14
        assert not tables_that_do_not_fit(app), "odds"
        await pilot.press("escape", "6")
        await settle(app, pilot)
        await pilot.pause()
        assert not tables_that_do_not_fit(app), "history"

    asyncio.run(run(app, scenario, SMALL))


def test_a_card_being_typed_and_a_rank_being_chosen_survive_ctrl_l(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi", physical=True)
        await pilot.press("a")
        await type_into(pilot, "#card", "5s")  # typed, Enter not yet pressed
        await pilot.press("ctrl+l")
        await settle(app, pilot)
        assert screen.query_one("#card", Input).value == "5s"
        assert app.focused is screen.query_one("#card")
        await pilot.press("enter")  # the card typed before the switch is the centre card
        await settle(app, pilot)
        assert str(screen.round.centre) == "5♠"
        await pilot.press("escape", "y", "escape")
        await settle(app, pilot)
        screen = await open_lesson(app, pilot, "Nino", trainer=True, procedure="mangatha")
        # Ctrl+L went on to Georgian; Mangatha has no centre card to speak of
        assert text_of(app, "#layout").splitlines()[0] == "სამიზნე ღირსება ჯერ არ არჩეულა."
        await choose(pilot, "#rank", "7")
        await pilot.press("ctrl+l")
        await settle(app, pilot)
        assert screen.query_one("#rank", Select).value == "7"
        assert screen.round.target is None
        await pilot.press("d")  # the rank chosen before the switch is the target
        await settle(app, pilot)
        assert str(screen.round.target) == "7"

    play(tmp_path, scenario, lang="ru")


def test_deck_exhausted_in_a_lesson_speaks_of_markers_not_stakes(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await open_lesson(app, pilot, "Asha, Ravi", physical=True)
        await pilot.press("a")
        for card in ("qh", "4c"):
            await type_into(pilot, "#card", card, enter=True)
        await press(pilot, "#void")
        question = str(app.screen.query_one("#question", Static).render())
        assert "marker" in question and "stake" not in question

    play(tmp_path, scenario)


def test_ctrl_q_asks_before_a_lesson_in_play_is_left(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi")
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # no: the lesson goes on
        await pilot.pause()
        assert app.screen is screen and app.is_running
        await pilot.press("ctrl+q", "ctrl+q")  # a second Ctrl+Q on the question quits
        await settle(app, pilot)
        assert not app.is_running

    play(tmp_path, scenario)


def test_choosing_a_club_file_goes_to_its_path_not_to_an_error(tmp_path: Path) -> None:
    # The review chose "A club's procedure file…": an error appeared at the bottom of the
    # form and the screen scrolled to it, away from the list just used.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await settle(app, pilot)
        setup = app.screen
        assert isinstance(setup, ClubSetup)
        await choose(pilot, "#procedure", "file")
        await settle(app, pilot)
        path = setup.query_one("#procedure-file", Input)
        assert app.focused is path and is_visible(app, path)
        assert note(app, "#error") == ""
        await type_keys(pilot, *"nowhere.toml", "enter")
        await settle(app, pilot)
        assert "nowhere.toml" in note(app, "#error")

    play(tmp_path, scenario)


def test_a_long_row_goes_on_under_its_cards() -> None:
    # A deck whose match comes last: 24 cards a row, wider than 80 columns.
    from andar_bahar.engine.cards import FULL_DECK, Card
    from andar_bahar.engine.round import Round
    from andar_bahar.tui.layout import layout_text

    centre, match = Card.parse("K♣"), Card.parse("K♦")
    kings = [c for c in FULL_DECK if c.rank == centre.rank and c not in (centre, match)]
    deck = [centre, *(c for c in FULL_DECK if c.rank != centre.rank), match, *kings]
    rnd = Round(find_procedure("classic"), find_paytable("wizard"), deck=deck)
    rnd.play()
    text = layout_text(rnd, None, columns=60).plain
    rows = text.splitlines()[1:5]  # Andar and its second line, Bahar and its second line
    assert all(len(line) <= 60 for line in text.splitlines()[:5])
    assert rows[0].startswith("Andar →") and rows[2].startswith("Bahar")
    assert rows[1].startswith(" " * 8) and rows[1].strip()  # under the cards, not the name
    cards = " ".join(rows[:2]).split()[2:] + " ".join(rows[2:4]).split()[1:]
    assert len(cards) == len(rnd.dealt) == 49
