"""Before a club table opens: what rounding to the chip does at real stakes, and a table
designed for the procedure chosen (issues 12 and 13)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button, Input, Select

from andar_bahar.chance.design import EdgeRange, design_paytable
from andar_bahar.chance.odds import odds_report
from andar_bahar.chance.rounding import rounding_check
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_setup import ClubSetup
from tui_support import LARGE, make_app, note, run, settle, whole_screen_text


async def club_setup(app: TrainerApp, pilot: Pilot[None]) -> ClubSetup:
    await pilot.press("2")
    await settle(app, pilot)
    await app.workers.wait_for_complete()
    await pilot.pause()
    setup = app.screen
    assert isinstance(setup, ClubSetup)
    return setup


def test_the_rounding_warnings_are_shown_before_the_table_opens(tmp_path: Path) -> None:
    # The engine's own check of the same pairing is the reference (chance/rounding.py).
    expected = rounding_check(odds_report(find_procedure("classic"), find_paytable("wizard")))
    assert expected.messages()

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.query_one("#paytable", Select).value = "wizard"
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        text = " ".join((await whole_screen_text(app, pilot)).split())
        for message in expected.messages():
            assert " ".join(str(message).split()) in text

    asyncio.run(run(make_app(tmp_path), scenario, LARGE))


def test_a_table_designed_for_the_procedure_can_be_used(tmp_path: Path) -> None:
    expected = design_paytable(find_procedure("first-card"), edge=EdgeRange.parse("2%-4%"))

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.query_one("#procedure", Select).value = "first-card"
        edge = setup.query_one("#edge", Input)
        edge.value = "4%-2%"
        setup.query_one("#design", Button).press()
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        assert note(app, "#design-note").startswith("The edge range '4%-2%' is not a range")
        edge.value = "2%-4%"
        setup.query_one("#design", Button).press()
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        assert setup.design.design is not None
        assert setup.design.design.paytable == expected.paytable
        rows = setup.query_one("#design-table").row_count  # type: ignore[attr-defined]
        assert rows == len(expected.rows)
        setup.query_one("#use-design", Button).press()
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        assert setup.query_one("#paytable", Select).value == "designed"
        await pilot.press("ctrl+l")  # the choice survives a redraw, in Russian
        await settle(app, pilot)
        assert setup.query_one("#paytable", Select).value == "designed"
        setup.players = {"Asha": expected.paytable.chip * 100}
        setup.start()
        await settle(app, pilot)
        table = app.screen
        assert isinstance(table, ClubRoundScreen)
        assert table.game.paytable == expected.paytable
        title = str(table.query_one("#round-title").render())
        assert title.endswith("составлена для процедуры «По цвету первой карты»"), title

    asyncio.run(run(make_app(tmp_path), scenario, LARGE))
