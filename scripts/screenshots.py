"""Screenshots of the terminal trainer in every language, for docs/screenshots/.

    .venv/bin/python scripts/screenshots.py

Drives the app headless (Textual's pilot) with a fixed seed, at 80×24 (the smallest
terminal it is made for) and at 120×40, through the menu, a teaching round, a club round
with bets and its settlement, a drill and the odds, and saves each screen as
``NAME.WIDTHxHEIGHT.LANG.svg``. At 80×24 a screen shows what a user sees there: the part
of it around the control in use.
"""

from __future__ import annotations

import asyncio
import tempfile
from decimal import Decimal
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Select

from andar_bahar.i18n import LANGUAGES
from andar_bahar.tui.app import TrainerApp

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
SIZES = ((80, 24), (120, 40))


async def settle(app: TrainerApp, pilot: Pilot[None]) -> None:
    await app.history_idle()
    await pilot.pause()


def save(app: TrainerApp, name: str, lang: str) -> None:
    width, height = app.size
    app.save_screenshot(f"{name}.{width}x{height}.{lang}.svg", str(OUT))


async def teaching(app: TrainerApp, pilot: Pilot[None], lang: str) -> None:
    from andar_bahar.tui.teaching import TeachingSetup

    await pilot.press("1")
    await pilot.pause()
    setup = app.screen
    assert isinstance(setup, TeachingSetup)
    setup.query_one("#names", Input).value = "Asha, Ravi, Nino"
    save(app, "teaching-setup", lang)
    setup.start()
    await pilot.pause()
    await pilot.press("a", "b", *"dddddd")
    await settle(app, pilot)
    save(app, "teaching", lang)
    await pilot.press("escape", "y", "escape")
    await pilot.pause()


async def club(app: TrainerApp, pilot: Pilot[None], lang: str) -> None:
    from andar_bahar.tui.club import ClubRoundScreen
    from andar_bahar.tui.club_setup import ClubSetup

    await pilot.press("2")
    await pilot.pause()
    setup = app.screen
    assert isinstance(setup, ClubSetup)
    setup.players = {"Asha": Decimal(500), "Ravi": Decimal(300), "Nino": Decimal(200)}
    setup.query_one("#paytable", Select).value = "wizard"
    await settle(app, pilot)
    setup.compute()
    await settle(app, pilot)
    save(app, "club-setup", lang)
    setup.start()
    await settle(app, pilot)
    table = app.screen
    assert isinstance(table, ClubRoundScreen)
    for player, bet, stake in (
        ("Asha", "andar", "120"),
        ("Asha", "cards:6-10", "100"),
        ("Ravi", "bahar", "50"),
        ("Nino", "cards:1-5", "20"),
    ):
        table.query_one("#player", Select).value = player
        table.query_one("#bet", Select).value = bet
        table.query_one("#stake", Input).value = stake
        table.place()
    await pilot.pause()
    while not table.round.finished:
        await pilot.press("d")
    await settle(app, pilot)
    save(app, "club", lang)
    await pilot.press("escape", "y")
    await settle(app, pilot)
    save(app, "club-summary", lang)
    await pilot.press("escape")
    await pilot.pause()


async def drill_and_odds(app: TrainerApp, pilot: Pilot[None], lang: str) -> None:
    from andar_bahar.tui.drills import DrillScreen
    from andar_bahar.tui.odds import OddsScreen

    await pilot.press("4")
    await pilot.pause()
    drills = app.screen
    assert isinstance(drills, DrillScreen)
    drills.query_one("#learner", Input).value = "Tamar"
    drills.query_one("#kind", Select).value = "pay"
    await drills.action_new()
    for field in drills.query(Input).results(Input):
        if (field.id or "").startswith("answer-"):
            field.value = "90"
    drills.check()
    await settle(app, pilot)
    save(app, "drill", lang)
    await pilot.press("escape", "5")
    await pilot.pause()
    odds = app.screen
    assert isinstance(odds, OddsScreen)
    await settle(app, pilot)
    await app.workers.wait_for_complete()
    await pilot.pause()
    save(app, "odds", lang)


async def shoot(lang: str, size: tuple[int, int], folder: Path) -> None:
    name = f"{lang}-{size[0]}"
    app = TrainerApp(lang=lang, db_url=f"sqlite:///{folder / f'{name}.sqlite3'}", seed=11)
    async with app.run_test(size=size) as pilot:
        app.animation_level = "none"
        await pilot.pause()
        save(app, "menu", lang)
        await teaching(app, pilot, lang)
        await club(app, pilot, lang)
        await drill_and_odds(app, pilot, lang)
        await settle(app, pilot)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.svg"):
        old.unlink()
    with tempfile.TemporaryDirectory() as folder:
        for lang in LANGUAGES:
            for size in SIZES:
                asyncio.run(shoot(lang, size, Path(folder)))
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
