"""What a review at 80×24 found (issue 12): keys typed faster than the screen moves the
focus, a typed card or a chosen rank kept through Ctrl+L, tables that fit the screen, the
bet named in the user's language when the table maximum refuses an addition."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_setup import ClubSetup
from tui_support import SMALL, choose, make_app, note, run, settle, type_into


def play(tmp_path: Path, scenario, size: tuple[int, int] = SMALL, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, size))


async def type_fast(app: TrainerApp, pilot: Pilot[None], text: str) -> None:
    """Every key of *text* ("\\n" is Enter) handed to the app at once, as a terminal does
    when someone types faster than the screen is drawn (or a barcode reader types)."""
    driver = app._driver
    assert driver is not None
    for char in text:
        key = events.Key("enter", "\r") if char == "\n" else events.Key(char, char)
        key.set_sender(app)
        driver.send_message(key)
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
        assert "'lots'" in note(app, "#players-note")
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
        assert text.startswith("У игрока Asha уже 60 на Андар: с добавкой 50 выходит 110")
        assert "andar" not in text

    play(tmp_path, scenario, lang="ru")
