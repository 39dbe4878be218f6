"""The terminal trainer keeps its state: Ctrl+L (the language) redraws every screen from
what it holds — a round in play, a finished round, the club's table, History, Odds, a
drill and half-filled forms — and nothing typed, chosen or played is lost (issue 12)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Select, Static

from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_setup import ClubSetup
from andar_bahar.tui.drills import DrillScreen
from andar_bahar.tui.history import HistoryScreen
from andar_bahar.tui.odds import OddsScreen
from andar_bahar.tui.teaching import TeachingRoundScreen, TeachingSetup
from test_tui_walks import store_rounds
from tui_support import LARGE, SMALL, make_app, note, run, screen_text, settle


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


def text_of(app: TrainerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_lesson(
    app: TrainerApp, pilot: Pilot[None], names: str, **options: object
) -> TeachingRoundScreen:
    await pilot.press("1")
    await pilot.pause()
    setup = app.screen
    assert isinstance(setup, TeachingSetup)
    setup.query_one("#names", Input).value = names
    for key, value in options.items():
        widget = setup.query_one(f"#{key}")
        widget.value = value  # type: ignore[attr-defined]
    setup.start()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, TeachingRoundScreen)
    return screen


async def ctrl_l(pilot: Pilot[None]) -> None:
    await pilot.press("ctrl+l")
    await pilot.pause()


def test_ctrl_l_during_a_round_keeps_the_markers_the_cards_and_auto(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi, Nino")
        await pilot.press("a", "b", "d", "d")  # markers for Ravi and Nino, centre, a card
        await pilot.pause()
        rnd, dealt = screen.round, screen.round.dealt
        screen.query_one("#speed", Select).value = "2"
        await pilot.pause()
        await pilot.press("t")  # Auto, every 2 s
        await pilot.pause()
        assert screen.dealer.auto
        await ctrl_l(pilot)  # → ru
        assert screen.round is rnd and screen.round.dealt[: len(dealt)] == dealt
        assert text_of(app, "#round-title").startswith("Раунд 1 из 10")
        assert "◆ Андар" in text_of(app, "#marker-0") and "◆ Бахар" in text_of(app, "#marker-1")
        assert screen.dealer.auto and screen.query_one("#speed", Select).value == "2"
        assert "Остановить авто" in str(screen.query_one("#auto", Button).label)
        assert "каждые 2 с" in note(app, "#panel-note")
        await pilot.press("t")  # stops
        assert not screen.dealer.auto

    play(tmp_path, scenario)


def test_ctrl_l_after_a_finished_round_keeps_the_round_shown(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi, Nino")
        await pilot.press("a", "b")
        while not screen.round.finished:
            await pilot.press("d")
        await pilot.pause()
        before = screen_text(app)
        winner = screen.score.winner if screen.score else None
        for _ in range(3):  # ru, ka, en again
            await ctrl_l(pilot)
        assert not screen.query_one("#next", Button).disabled
        assert text_of(app, "#round-title") == "Round 1 of 10 — dealer: Asha"
        assert list(screen.players) == ["Ravi", "Nino"]  # the round's players, not the next's
        marks = {text_of(app, "#marker-0"), text_of(app, "#marker-1")}
        assert marks == {f"◆ Andar {'✓' if winner and winner.value == 'andar' else '✗'}",
                         f"◆ Bahar {'✓' if winner and winner.value == 'bahar' else '✗'}"}  # fmt: skip
        assert screen_text(app) == before
        await pilot.press("n")
        await pilot.pause()
        assert text_of(app, "#round-title") == "Round 2 of 10 — dealer: Ravi"

    play(tmp_path, scenario)


def test_ctrl_l_keeps_the_club_table_its_bets_and_settlement(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("2")
        await pilot.pause()
        setup = app.screen
        assert isinstance(setup, ClubSetup)
        setup.players = {"Asha": Decimal(500), "Ravi": Decimal(300)}
        setup.start()
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ClubRoundScreen)
        screen.round.place_bet("Asha", "andar", 100)
        screen.round.place_bet("Ravi", "cards:1-5", 50)
        screen.sync()
        await pilot.pause()
        balances = screen.query_one("#balances").get_row_at(0)  # type: ignore[attr-defined]
        assert [str(c) for c in balances] == ["Asha", "500", "100", "400"]  # chips at stake
        await ctrl_l(pilot)
        assert screen.query_one("#bets").row_count == 2  # type: ignore[attr-defined]
        while not screen.round.finished:
            await pilot.press("d")
        await settle(app, pilot)
        shown = screen_text(app)
        settled = screen.query_one("#settlement").row_count  # type: ignore[attr-defined]
        await ctrl_l(pilot)
        await ctrl_l(pilot)
        await ctrl_l(pilot)
        assert screen.query_one("#settlement").row_count == settled == 3  # type: ignore[attr-defined]
        assert not screen.query_one("#next", Button).disabled
        assert screen_text(app) == shown

    play(tmp_path, scenario, LARGE)


def test_ctrl_l_keeps_history_odds_and_a_drill(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    store_rounds(app.db_url or "", 3)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(app, pilot)
        history = app.screen
        assert isinstance(history, HistoryScreen)
        assert history.query_one("#rounds").row_count == 3  # type: ignore[attr-defined]
        await ctrl_l(pilot)
        assert history.query_one("#rounds").row_count == 3  # type: ignore[attr-defined]
        assert "Бахар" in screen_text(app) or "Андар" in screen_text(app)
        await ctrl_l(pilot)
        await ctrl_l(pilot)  # back to English
        await pilot.press("escape", "5")
        await settle(app, pilot)
        odds = app.screen
        assert isinstance(odds, OddsScreen)
        odds.query_one("#paytable", Select).value = "wizard"
        odds.compute()
        await settle(app, pilot)
        rows = odds.query_one("#odds").row_count  # type: ignore[attr-defined]
        await ctrl_l(pilot)
        assert odds.query_one("#paytable", Select).value == "wizard"
        assert odds.query_one("#odds").row_count == rows  # type: ignore[attr-defined]
        assert "Wizard of Odds" in screen_text(app)
        await ctrl_l(pilot)
        await ctrl_l(pilot)
        await pilot.press("escape", "4")
        await pilot.pause()
        drills = app.screen
        assert isinstance(drills, DrillScreen)
        drills.query_one("#learner", Input).value = "Tamar"
        await drills.action_new()
        await pilot.pause()
        drill = drills.drill
        first = drills.query(Input).results(Input)
        answer = next(f for f in first if (f.id or "").startswith("answer-"))
        answer.value = "half"  # a half-typed answer
        await ctrl_l(pilot)
        assert drills.drill is drill
        assert drills.query_one(f"#{answer.id}", Input).value == "half"
        drills.check()
        await settle(app, pilot)
        progress = drills.query_one("#progress").row_count  # type: ignore[attr-defined]
        result = note(app, "#result")
        await ctrl_l(pilot)
        assert drills.query_one("#progress").row_count == progress == 1  # type: ignore[attr-defined]
        assert note(app, "#result") != result and note(app, "#result")  # the same result, in ru

    asyncio.run(run(app, scenario, SMALL))


def test_ctrl_l_keeps_half_filled_forms(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await pilot.pause()
        setup = app.screen
        setup.query_one("#names", Input).value = "Asha, Ra"
        setup.query_one("#rounds", Input).value = "3"
        setup.query_one("#trainer", Checkbox).value = True
        setup.query_one("#procedure", Select).value = "first-card"
        setup.query_one("#names", Input).focus()
        await ctrl_l(pilot)
        assert setup.query_one("#names", Input).value == "Asha, Ra"
        assert setup.query_one("#rounds", Input).value == "3"
        assert setup.query_one("#trainer", Checkbox).value
        assert setup.query_one("#procedure", Select).value == "first-card"
        assert app.focused is setup.query_one("#names")
        await pilot.press("escape", "2")
        await pilot.pause()
        club = app.screen
        assert isinstance(club, ClubSetup)
        club.query_one("#name", Input).value = "Asha"
        club.query_one("#chips", Input).value = "500"
        club.seat()
        club.query_one("#name", Input).value = "Rav"
        club.query_one("#paytable", Select).value = "file"
        await pilot.pause()
        club.query_one("#paytable-file", Input).value = "club/tab"
        await ctrl_l(pilot)
        assert club.players == {"Asha": Decimal(500)}
        assert club.query_one("#players").row_count == 1  # type: ignore[attr-defined]
        assert club.query_one("#name", Input).value == "Rav"
        assert club.query_one("#paytable", Select).value == "file"
        assert club.query_one("#paytable-file", Input).value == "club/tab"
        assert club.query_one("#paytable-file", Input).display

    play(tmp_path, scenario)
