"""The players of a club table, at 80×24: leaving is asked first and names the player, the
chosen player stays chosen, the bets follow the next player when the one chosen leaves,
a stake typed but not placed is asked about before the deal, the settlement is in view
when Auto ends the round, and a resumed table counts its rounds on."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Select

from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.club_summary import PlayersScreen
from andar_bahar.tui.common import ConfirmScreen
from test_tui_fields import club_table
from tui_support import (
    SMALL,
    choose,
    is_visible,
    make_app,
    note,
    press,
    reach,
    run,
    settle,
    type_into,
    type_keys,
    until,
)


def play(tmp_path: Path, scenario) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path), scenario, SMALL))


async def players_of(app: TrainerApp, pilot: Pilot[None]) -> PlayersScreen:
    await pilot.press("p")
    await settle(app, pilot)
    players = app.screen
    assert isinstance(players, PlayersScreen)
    return players


def test_a_player_leaves_only_when_asked_and_the_right_one_stays_chosen(tmp_path: Path) -> None:
    # The review topped Ravi up; the cursor jumped back to the first row, and the wrong
    # player left without a question.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = await club_table(app, pilot, Asha=500, Ravi=300, Nino=200)
        await choose(pilot, "#player", "Asha")
        players = await players_of(app, pilot)
        rows = await reach(pilot, "#players")
        await pilot.press("down")  # Ravi
        await type_into(pilot, "#chips", "50")
        await press(pilot, "#top-up")
        assert note(app, "#note") == "Ravi gets 50 more chips: 350 now."
        assert rows.cursor_row == 1  # type: ignore[attr-defined]  # still Ravi
        await press(pilot, "#leave")
        assert isinstance(app.screen, ConfirmScreen)
        assert str(app.screen.query_one("#question").render()) == (
            "Ravi leaves the table with 350 chips?"
        )
        await pilot.press("n")  # no: Ravi stays
        await pilot.pause()
        assert "Ravi" in players.game.balances
        await reach(pilot, "#players")
        await pilot.press("up")  # Asha, the player chosen to bet at the table
        await press(pilot, "#leave")
        await pilot.press("y")
        await pilot.pause()
        assert note(app, "#note") == "Asha leaves with 500 chips."
        assert rows.cursor_row == 0  # type: ignore[attr-defined]  # the next one: Ravi
        assert list(players.game.balances) == ["Ravi", "Nino"]
        await pilot.press("escape")
        await settle(app, pilot)
        # back at the table: the bets are Ravi's now, and the screen says so
        assert app.screen is table and table.query_one("#player", Select).value == "Ravi"
        assert note(app, "#bet-note") == "Asha has left the table: the bets are now Ravi's."
        assert sum(e.amount for e in table.game.ledger) == 0  # every chip in the ledger

    play(tmp_path, scenario)


def test_a_stake_typed_but_not_placed_is_asked_about_before_the_deal(tmp_path: Path) -> None:
    # The review dealt two rounds with typed stakes that were never placed, and no warning.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = await club_table(app, pilot, Asha=500)
        await choose(pilot, "#player", "Asha")
        await choose(pilot, "#bet", "andar")
        await type_into(pilot, "#stake", "100")  # typed, Enter not pressed
        await press(pilot, "#deal")  # the centre card (classic: the bets stay open): no question
        assert table.round.centre is not None and not isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # the first card would close the bets: asked first
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        question = str(app.screen.query_one("#question").render())
        assert question.startswith("The stake 100 is typed but not placed: deal on without it?")
        await pilot.press("n")
        await pilot.pause()
        assert not table.round.dealt and table.round.bets_open  # nothing dealt
        assert app.focused is table.query_one("#stake")  # back at the stake
        await type_keys(pilot, "enter")  # placed after all
        assert [(w.player, w.stake) for w in table.round.wagers] == [("Asha", Decimal(100))]
        await type_into(pilot, "#stake", "20")  # another, not placed; deal on without it
        await press(pilot, "#deal")
        await pilot.press("y")
        await settle(app, pilot)
        assert len(table.round.dealt) == 1 and not table.round.bets_open
        assert [w.stake for w in table.round.wagers] == [Decimal(100)]

    play(tmp_path, scenario)


def test_the_settlement_is_in_view_when_auto_ends_the_round(tmp_path: Path) -> None:
    # At 80×24 the dealer had to press End to see who gets paid.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = await club_table(app, pilot, Asha=500, Ravi=300, Nino=200)
        for player, bet in (("Asha", "andar"), ("Ravi", "bahar"), ("Nino", "cards:1-5")):
            table.round.place_bet(player, bet, 20)
        table.query_one("#speed", Select).value = "0.3"
        await pilot.press("t")
        await until(pilot, lambda: table.settlement is not None, "Auto's last card")
        await settle(app, pilot)
        assert is_visible(app, table.query_one("#settlement"))
        assert is_visible(app, table.query_one("#settlement-title"))
        assert app.focused is table.query_one("#next") and is_visible(app, app.focused)

    play(tmp_path, scenario)


def test_a_resumed_table_counts_its_rounds_on(tmp_path: Path) -> None:
    # The review resumed a table with 4 rounds stored: it began again at "Round 1".
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = await club_table(app, pilot, Asha=500)
        for _ in range(2):
            table.round.place_bet("Asha", "andar", 10)
            while not table.round.finished:
                await pilot.press("d")
            await settle(app, pilot)
            await pilot.press("n")
            await settle(app, pilot)
        assert str(table.query_one("#round-title").render()).startswith("Round 3 —")
        await pilot.press("escape", "y")  # the session ends: its balances are stored
        await settle(app, pilot)
        await pilot.press("escape", "3")  # Resume a club table
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        again = app.screen
        assert isinstance(again, ClubRoundScreen) and again is not table
        assert str(again.query_one("#round-title").render()).startswith("Round 3 —")
        again.round.place_bet("Asha", "bahar", 10)
        while not again.round.finished:
            await pilot.press("d")
        await settle(app, pilot)
        await pilot.press("n", "escape", "y")
        await settle(app, pilot)
        await pilot.press("escape", "3")  # resumed twice: 3 rounds in all, listed so
        await settle(app, pilot)
        rows = app.screen.query_one("#tables")
        assert [str(rows.get_row_at(i)[5]) for i in range(rows.row_count)] == ["3", "2"]  # type: ignore[attr-defined]

    play(tmp_path, scenario)
