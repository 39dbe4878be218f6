"""What the terminal trainer does with odd input and at the edges of a game (issue 12):
names that look like markup, a superscript two as a number of rounds, confirmations,
the chosen rank, a learner alone, a void round, long histories, a broken database."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, Input, Select

from andar_bahar.engine.cards import Card
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.storage import Storage
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_summary import SummaryScreen
from andar_bahar.tui.common import ConfirmScreen
from andar_bahar.tui.drills import DrillScreen
from andar_bahar.tui.history import HistoryScreen, ReplayScreen
from andar_bahar.tui.teaching import StandingsScreen, TeachingSetup
from test_tui_state import open_lesson, text_of
from test_tui_walks import store_rounds
from tui_support import (
    LARGE,
    SMALL,
    make_app,
    note,
    press,
    run,
    screen_text,
    settle,
    type_into,
    until,
    whole_screen_text,
)

NAMES = ["[/]", "[red]x", "[bold]"]
"""Names that Rich and Textual would read as markup if they were not shown literally."""


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


async def club_table(
    app: TrainerApp, pilot: Pilot[None], players: dict[str, int], *, physical: bool = False
) -> ClubRoundScreen:
    game = ClubGame(find_procedure("classic"), find_paytable("wizard"), players)
    screen = ClubRoundScreen(game, physical=physical, warnings=[])
    app.push_screen(screen)
    await settle(app, pilot)
    return screen


def test_names_that_look_like_markup_are_shown_as_typed(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, ", ".join(NAMES))
        await pilot.press("a", "b")
        while not screen.round.finished:
            await pilot.press("d")
        await pilot.press("n")
        await pilot.pause()
        shown = screen_text(app)
        for name in NAMES:
            assert name in shown
        await pilot.press("escape", "y")
        await pilot.pause()
        table = await club_table(app, pilot, dict.fromkeys(NAMES, 100))
        table.query_one("#player", Select).value = "[red]x"
        table.query_one("#bet", Select).value = "bahar"
        table.query_one("#stake", Input).value = "10"
        table.place()
        await pilot.pause()
        assert "[red]x bets 10 on Bahar." in note(app, "#bet-note")
        for name in NAMES:
            assert name in screen_text(app)
        drills = DrillScreen()
        app.push_screen(drills)
        await pilot.pause()
        drills.query_one("#learner", Input).value = "[/]"
        await drills.action_new()
        await settle(app, pilot)

    play(tmp_path, scenario, LARGE)


def test_a_bad_number_of_rounds_is_one_sentence(tmp_path: Path) -> None:
    # One setup screen tries each; each sentence names what was typed, so each is new.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, TeachingSetup)
        setup.query_one("#names", Input).value = "Asha, Ravi"
        said = ""
        for rounds in ["²", "١٢", "3.5", "-1", "0", "10000000"]:
            setup.query_one("#rounds", Input).value = rounds
            setup.start()
            await pilot.pause()
            assert app.screen is setup, rounds
            text = note(app, "#error")
            assert text.startswith(
                ("Rounds must be a whole number", "A lesson has 1 to 1000 rounds")
            ), text
            assert text.endswith(".") and "\n" not in text and text != said, (rounds, text)
            said = text

    play(tmp_path, scenario)


def test_deck_exhausted_and_leaving_a_table_are_confirmed(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await club_table(app, pilot, {"Asha": 500}, physical=True)
        screen.round.place_bet("Asha", "andar", 100)
        assert "gather all 52 cards" in text_of(app, "#reminder")  # the real deck's reminder
        for text in ("8D", "2S", "3c"):  # the dealer types each card and presses Enter
            await type_into(pilot, "#card", text, enter=True)
        assert [str(d.card) for d in screen.round.dealt] == ["2♠", "3♣"]
        await press(pilot, "#void")  # Deck exhausted: asks first
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not screen.round.finished
        await press(pilot, "#void")
        await pilot.press("y")
        await settle(app, pilot)
        assert screen.round.result.void
        assert screen.game.balances == {"Asha": Decimal(500)}
        layout = text_of(app, "#layout")
        assert "every stake is returned" in layout and "marker" not in layout
        await pilot.press("escape")  # leaving the table asks too
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # no
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape", "y")
        await settle(app, pilot)
        assert isinstance(app.screen, SummaryScreen)
        assert "Asha" in screen_text(app)

    play(tmp_path, scenario)


def test_leaving_a_lesson_in_play_is_confirmed(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape", "y")
        await pilot.pause()
        assert isinstance(app.screen, TeachingSetup)

    play(tmp_path, scenario)


def test_in_the_chosen_rank_game_the_players_pick_the_rank(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi", procedure="mangatha")
        await pilot.press("a", "d")
        await pilot.pause()
        assert screen.round.target is None
        assert "the players pick it" in note(app, "#panel-note")
        screen.query_one("#rank", Select).value = "7"
        await pilot.press("d")  # the rank is taken, then the cards come
        while not screen.round.finished:
            await pilot.press("d")
        assert screen.round.target is not None and screen.round.target.value == "7"
        assert screen.round.dealt[-1].card.rank.value == "7"

    play(tmp_path, scenario)


def test_a_learner_alone_without_scoring_still_hears_right_or_wrong(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Lali", trainer=True, scoring=False, rounds="1")
        await pilot.press("a")
        while not screen.round.finished:
            await pilot.press("d")
        await pilot.pause()
        verdict = note(app, "#score")
        assert verdict in ("Right: Lali.", "Wrong: Lali.")
        assert "token" not in screen_text(app).replace("Scoring is off", "")
        await pilot.press("n")
        await pilot.pause()
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        headers = [str(c.label) for c in standings.query_one("#standings").columns.values()]  # type: ignore[attr-defined]
        assert headers == ["round", "winner", "right"]  # no token table when scoring is off

    play(tmp_path, scenario)


def test_replaying_a_void_round_shows_the_void(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    rnd = Round(find_procedure("classic"), find_paytable("wizard"))
    rnd.turn_centre(Card.parse("Q♥"))
    for text in ("2♠", "3♣"):
        rnd.deal(Card.parse(text))
    rnd.void()
    with Storage.open(app.db_url) as store:
        store.record_round(rnd)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        await pilot.press("n", "n")
        await pilot.pause()
        assert "the round is void" in text_of(app, "#layout")

    asyncio.run(run(app, scenario))


def test_a_drill_shows_each_fact_once(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("4")
        await pilot.pause()
        drills = app.screen
        assert isinstance(drills, DrillScreen)
        drills.query_one("#learner", Input).value = "Tamar"
        for kind in ("layout", "pay"):
            drills.query_one("#kind", Select).value = kind
            await drills.action_new()
            await pilot.pause()
            text = await whole_screen_text(app, pilot)
            page = text.split("Progress")[0]
            assert page.count("Procedure:") == 1
            assert page.count("Centre card") + page.count("Target rank") == 1
            layout = str(drills.query_one("#layout").render())
            # reading the layout is the exercise: its answers are not printed beside it
            assert ("cards dealt" in layout) == (kind == "pay")

    play(tmp_path, scenario, LARGE)


def test_history_lists_every_round_page_by_page_in_the_users_language(tmp_path: Path) -> None:
    app = make_app(tmp_path, lang="ru")
    store_rounds(app.db_url or "", 55)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one("#rounds")
        assert table.row_count == 50  # type: ignore[attr-defined]
        history.query_one("#more", Button).press()  # a message: its handler queues the read
        await until(pilot, lambda: table.row_count == 55, "the next 5 rounds listed")  # type: ignore[attr-defined]
        assert not history.query_one("#more", Button).display
        row = [str(cell) for cell in table.get_row_at(0)]  # type: ignore[attr-defined]
        assert row[2] == "Классическая" and row[3] in ("Андар", "Бахар")
        assert row[5] == "1" and row[6].startswith("10 → ")  # one bet of 10, and what it paid

    asyncio.run(run(app, scenario, LARGE))


def test_a_database_that_cannot_be_opened_is_one_sentence_in_the_users_language(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    app = TrainerApp(lang="ru", db_url=f"sqlite:///{blocker / 'history.sqlite3'}", seed=1)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(app, pilot)
        text = note(app, "#note")
        # One sentence in Russian (its catalogue entry), naming the file, not the URL,
        # with the reason in Russian too (here the folder is a file: it cannot be made):
        path = str(blocker / "history.sqlite3")
        assert text == f"Историей {path} нельзя воспользоваться: не удаётся создать её папку.", text
        assert "sqlite:" not in text and "Traceback" not in text

    asyncio.run(run(app, scenario))


def test_numbers_placeholders_and_auto_speak_the_users_style(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await pilot.pause()
        names = app.screen.query_one("#names", Input)
        assert names.value == "" and names.placeholder.startswith("например:")
        screen = await open_lesson(app, pilot, "Asha, Ravi")
        screen.query_one("#speed", Select).value = "0.3"
        await pilot.pause()
        assert "каждые 0,3 с" in screen_text(app)
        await pilot.press("a", "t")
        while not screen.round.finished:
            await pilot.pause(0.1)
        await pilot.press("n")
        await pilot.pause()
        assert screen.dealer.speed == "0.3" and not screen.dealer.auto  # the speed is kept
        assert screen.query_one("#speed", Select).value == "0.3"

    play(tmp_path, scenario, lang="ru")
