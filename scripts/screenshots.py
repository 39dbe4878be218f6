"""Screenshots of the terminal trainer in every language, for docs/screenshots/.

    .venv/bin/python scripts/screenshots.py

Drives the app headless (Textual's pilot) with a fixed seed, through the menu, a
teaching round, a club round with bets and its settlement, a drill and the odds,
and saves each screen as SVG.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from textual.widgets import Button, Input, Select

from andar_bahar.i18n import LANGUAGES
from andar_bahar.tui.app import TrainerApp

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
SIZE = (130, 60)


async def press(app: TrainerApp, pilot, selector: str) -> None:  # type: ignore[no-untyped-def]
    app.screen.query_one(selector, Button).press()
    await pilot.pause()


async def shoot(lang: str, folder: Path) -> None:
    app = TrainerApp(lang=lang, db_url=f"sqlite:///{folder / f'{lang}.sqlite3'}", seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.save_screenshot(f"menu.{lang}.svg", str(OUT))
        await press(app, pilot, "#teaching")
        app.screen.query_one("#names", Input).value = "Asha, Ravi, Nino"
        await press(app, pilot, "#start")
        await press(app, pilot, "#mark-0-andar")
        await press(app, pilot, "#mark-1-bahar")
        for _ in range(6):
            await press(app, pilot, "#deal")
        app.save_screenshot(f"teaching.{lang}.svg", str(OUT))
        app.pop_screen()
        app.pop_screen()
        await pilot.pause()
        await press(app, pilot, "#club")
        app.screen.query_one("#players", Input).value = "Asha=500, Ravi=300"
        app.screen.query_one("#paytable", Input).value = "wizard"
        await press(app, pilot, "#start")
        for player, bet, stake in (
            ("Asha", "andar", "120"),
            ("Asha", "cards:6-10", "100"),
            ("Ravi", "bahar", "50"),
        ):
            app.screen.query_one("#player", Select).value = player
            app.screen.query_one("#bet", Input).value = bet
            app.screen.query_one("#stake", Input).value = stake
            await press(app, pilot, "#place")
        screen = app.screen
        while not screen.round.finished:  # type: ignore[attr-defined]
            await press(app, pilot, "#deal")
        app.save_screenshot(f"club.{lang}.svg", str(OUT))
        app.pop_screen()
        app.pop_screen()
        await pilot.pause()
        await press(app, pilot, "#drills")
        app.screen.query_one("#learner", Input).value = "Tamar"
        app.screen.query_one("#kind", Select).value = "pay"
        await press(app, pilot, "#new")
        for field in app.screen.query(Input):
            if (field.id or "").startswith("answer-"):
                field.value = "90"
        await press(app, pilot, "#check")
        app.save_screenshot(f"drill.{lang}.svg", str(OUT))
        app.pop_screen()
        await pilot.pause()
        await press(app, pilot, "#odds")
        app.save_screenshot(f"odds.{lang}.svg", str(OUT))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for lang in LANGUAGES:
            asyncio.run(shoot(lang, Path(folder)))
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
