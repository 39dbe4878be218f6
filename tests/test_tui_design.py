"""Before a club table opens: what rounding to the chip does at real stakes, and a table
designed for the procedure chosen (issues 12 and 13)."""

from __future__ import annotations

import asyncio
from decimal import Decimal
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
from andar_bahar.tui.common import Choice
from tui_support import LARGE, make_app, note, run, settle, until, whole_screen_text


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


async def shown(pilot: Pilot[None], setup: ClubSetup, refused: bool) -> None:
    """Wait until the design worked out on a worker is drawn: a refusal's headline without a
    button to use it, or the button."""

    def drawn() -> bool:
        design = setup.design.design
        usable = bool(setup.query("#use-design"))
        headline = bool(setup.query("#design-headline")) and usable is not refused
        return design is not None and design.refused is refused and headline

    await until(pilot, drawn, "the design drawn")


def test_a_table_designed_for_the_procedure_can_be_used(tmp_path: Path) -> None:
    # the chosen paytable's chip, rounding and limits are the design's (trainer-default:
    # chip 1, rounded down, no limits); with bets open after the centre no pay on the 0.05
    # step keeps Andar in 2 %–4 % for both colours (the design is refused, nothing to use)
    base = find_paytable("trainer-default")
    first_card = find_procedure("first-card")
    refused = design_paytable(first_card, edge=EdgeRange.parse("2%-4%"), base=base)
    assert refused.refused
    expected = design_paytable(first_card, edge=EdgeRange.parse("1%-5%"), base=base)
    assert not expected.refused

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.query_one("#procedure", Select).value = "first-card"
        edge = setup.query_one("#edge", Input)
        edge.value = "4%-2%"
        setup.query_one("#design", Button).press()
        await until(pilot, lambda: setup.design.error is not None, "the range refused")
        assert note(app, "#design-note").startswith("The edge range “4%-2%” is not a range")
        edge.value = "2%-4%"
        setup.query_one("#design", Button).press()
        await shown(pilot, setup, refused=True)
        assert setup.design.design is not None and setup.design.design.refused
        headline = str(setup.query_one("#design-headline").render())
        assert headline.startswith("No table designed for the procedure first-card")
        assert not setup.query("#use-design")  # a refused design offers nothing to use
        edge.value = "1%-5%"
        setup.query_one("#design", Button).press()
        await shown(pilot, setup, refused=False)
        assert setup.design.design is not None
        assert setup.design.design.paytable == expected.paytable
        rows = setup.query_one("#design-table").row_count  # type: ignore[attr-defined]
        assert rows == len(expected.rows)
        setup.query_one("#use-design", Button).press()
        await until(pilot, lambda: setup.designed is not None, "the designed table in use")
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


def test_a_club_plays_its_own_procedure_file_with_bets_closing_before_the_centre(
    tmp_path: Path,
) -> None:
    (tmp_path / "club.toml").write_text(
        'name = "our-club"\nstart = "first-card-colour"\nwindow = "before-centre"\n'
        'paytable = "table.toml"\n',
        encoding="utf-8",
    )
    (tmp_path / "table.toml").write_text(
        'name = "our-table"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        encoding="utf-8",
    )

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.query_one("#procedure", Select).value = "file"
        await pilot.pause()
        setup.query_one("#procedure-file", Input).value = str(tmp_path / "club.toml")
        setup.compute()
        await app.workers.wait_for_complete()
        await settle(app, pilot)
        setup.players = {"Asha": Decimal(100)}
        setup.start()
        await settle(app, pilot)
        table = app.screen
        assert isinstance(table, ClubRoundScreen)
        assert table.game.procedure.name == "our-club"
        assert table.game.paytable.name == "our-table"  # found beside the procedure's file
        table.round.place_bet("Asha", "andar", 10)
        await pilot.press("d")  # the centre card: under this procedure the bets close now
        await pilot.pause()
        assert not table.round.bets_open
        assert table.query_one("#place", Button).disabled

    asyncio.run(run(make_app(tmp_path), scenario, LARGE))


def test_players_join_top_up_and_leave_and_a_table_resumes_with_their_chips(
    tmp_path: Path,
) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        setup = await club_setup(app, pilot)
        setup.players = {"Asha": Decimal(500), "Ravi": Decimal(300)}
        setup.start()
        await settle(app, pilot)
        table = app.screen
        assert isinstance(table, ClubRoundScreen)
        await pilot.press("p")
        await pilot.pause()
        players = app.screen
        players.query_one("#name", Input).value = "Nino"
        players.query_one("#chips", Input).value = "200"
        players.act("seat")  # type: ignore[attr-defined]
        players.query_one("#players").move_cursor(row=1)  # type: ignore[attr-defined]  # Ravi
        players.query_one("#chips", Input).value = "50"
        players.act("top-up")  # type: ignore[attr-defined]
        assert note(app, "#note") == "Ravi gets 50 more chips: 350 now."
        players.query_one("#players").move_cursor(row=0)  # type: ignore[attr-defined]  # Asha
        players.act("leave")  # type: ignore[attr-defined]
        await pilot.pause()
        question = app.screen.query_one("#question").render()
        assert str(question) == "Asha leaves the table with 500 chips?"  # asked first, by name
        await pilot.press("y")
        assert note(app, "#note") == "Asha leaves with 500 chips."
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table
        assert table.query_one("#player", Choice).labels == ["Ravi", "Nino"]
        table.round.place_bet("Nino", "bahar", 20)
        while not table.round.finished:
            await pilot.press("d")
        await settle(app, pilot)
        game = table.game
        assert sum(e.amount for e in game.ledger) == 0  # every chip movement has its entry
        balances = dict(game.balances)
        await pilot.press("escape", "y")
        await settle(app, pilot)
        summary = {row.name: row for row in game.summary()}
        assert summary["Asha"].chips_out == 500 and summary["Asha"].net == 0
        assert summary["Ravi"].chips_in == 350
        await pilot.press("escape", "3")  # the menu; Resume a club table
        await settle(app, pilot)
        resume = app.screen
        assert resume.query_one("#tables").row_count == 1  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(app, pilot)
        again = app.screen
        assert isinstance(again, ClubRoundScreen) and again is not table
        assert again.game.balances == balances
        assert again.resumed_from is not None

    asyncio.run(run(make_app(tmp_path), scenario, LARGE))
