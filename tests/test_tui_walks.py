"""The terminal trainer walked by keyboard only, at 80×24 and at 120×40 (issue 12).

Every control is reached with Tab (or a hotkey the footer shows) and used with Enter or
typed keys; each one must be on screen — inside the visible part of its scrolling
container — when it is used, and so must every message it answers with.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Row, find_procedure
from andar_bahar.games.drills import DrillKind
from andar_bahar.storage import Storage
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.drills import DrillScreen
from andar_bahar.tui.history import HistoryScreen, ReplayScreen
from andar_bahar.tui.odds import OddsScreen
from andar_bahar.tui.teaching import StandingsScreen, TeachingRoundScreen
from tui_support import (
    LARGE,
    SMALL,
    choose,
    is_visible,
    make_app,
    note,
    press,
    reach,
    run,
    seeded_deck,
    type_into,
    type_keys,
)

SIZES = pytest.mark.parametrize(
    "size",
    [
        SMALL,
        # The same walks on a larger terminal repeat the everyday 80×24 ones (the size the
        # guide requires) at twice their cost: the slow tier, which .ci/run runs.
        pytest.param(LARGE, marks=pytest.mark.slow),
    ],
    ids=["80x24", "120x40"],
)


def choice_of(name: str, number: int) -> Row:
    """Asha always Andar, Ravi always Bahar, Nino alternating."""
    if name == "Asha":
        return Row.ANDAR
    if name == "Ravi":
        return Row.BAHAR
    return Row.ANDAR if number % 2 else Row.BAHAR


def expected_tokens(participants: list[str], rounds: int) -> dict[str, int]:
    """The tokens worked out with the engine alone, on the decks the app deals (draw 1, 2 …)."""
    scores = dict.fromkeys(participants, 0)
    for number in range(1, rounds + 1):
        dealer = participants[(number - 1) % len(participants)]
        rnd = Round(
            find_procedure("home"), find_paytable("trainer-default"), deck=seeded_deck(number)
        )
        winner = rnd.play().winner
        for name in participants:
            if name != dealer and choice_of(name, number) is winner:
                scores[name] += 1
    return scores


async def deal_to_the_end(app: TrainerApp, pilot: Pilot[None]) -> None:
    """Reach "Deal a card" by Tab and press Enter until the round is over."""
    deal = await reach(pilot, "#deal")
    screen = app.screen
    while not screen.dealer.round.finished:  # type: ignore[attr-defined]
        assert app.focused is deal and is_visible(app, deal)
        await pilot.press("enter")
    await pilot.pause()


@SIZES
def test_a_three_person_lesson_by_keyboard(tmp_path: Path, size: tuple[int, int]) -> None:
    participants = ["Asha", "Ravi", "Nino"]
    expected = expected_tokens(participants, 2)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await press(pilot, "#teaching")
        await type_into(pilot, "#names", ", ".join(participants))
        await type_into(pilot, "#rounds", "2")
        await press(pilot, "#start")
        for number in (1, 2):
            screen = app.screen
            assert isinstance(screen, TeachingRoundScreen)
            assert screen.game.round_number == number
            if number == 1:  # the first card is refused until every player has a marker
                await press(pilot, "#deal")  # the centre card
                await press(pilot, "#deal")
                assert "Waiting for a marker from Ravi, Nino" in note(app, "#panel-note")
                assert is_visible(app, screen.query_one("#panel-note"))
            for index, name in enumerate(screen.players):
                await press(pilot, f"#mark-{index}-{choice_of(name, number).value}")
            await deal_to_the_end(app, pilot)
            assert is_visible(app, screen.query_one("#score"))
            await press(pilot, "#next")
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        assert standings.game.scores == expected
        assert is_visible(app, standings.query_one("#verdict"))
        await press(pilot, "#menu")

    run_app(tmp_path, scenario, size)


def run_app(tmp_path: Path, scenario, size: tuple[int, int], **options) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    asyncio.run(run(make_app(tmp_path, **options), scenario, size))


CLUB_BETS = [
    ("Asha", "andar", "120"),
    ("Asha", "cards:6-10", "100"),
    ("[red]x", "bahar", "50"),
    ("Nino", "cards:1-5", "20"),
    ("Asha", "andar", "30"),  # the same spot again: it adds up
]
SEATS = {"Asha": "500", "[red]x": "300", "Nino": "200"}


def reference_balances() -> dict[str, Decimal]:
    """The engine alone, on the deck the app deals first, with the same bets."""
    balances = {name: Decimal(chips) for name, chips in SEATS.items()}
    rnd = Round(
        find_procedure("classic"), find_paytable("wizard"), deck=seeded_deck(1), balances=balances
    )
    for player, bet, stake in CLUB_BETS:
        rnd.place_bet(player, bet, stake)
    rnd.play()
    for settled in rnd.settle().settlement.bets:
        balances[settled.player] += settled.net
    return balances


async def open_club_table(app: TrainerApp, pilot: Pilot[None]) -> ClubRoundScreen:
    await press(pilot, "#club")
    for name, chips in SEATS.items():
        await type_into(pilot, "#name", name, enter=True)
        await type_into(pilot, "#chips", chips, enter=True)
        assert "sits down with" in note(app, "#players-note")
    await choose(pilot, "#paytable", "wizard")
    await press(pilot, "#start")
    screen = app.screen
    assert isinstance(screen, ClubRoundScreen)
    return screen


@SIZES
def test_a_club_round_with_three_players_and_side_bets_by_keyboard(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    expected = reference_balances()

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_club_table(app, pilot)
        for player, bet, stake in CLUB_BETS:
            await choose(pilot, "#player", player)
            await choose(pilot, "#bet", bet)
            await type_into(pilot, "#stake", stake, enter=True)
            assert is_visible(app, screen.query_one("#bet-note"))
        assert "30 more on Andar, 150 on it in all" in note(app, "#bet-note")
        assert {(w.player, str(w.bet)): w.stake for w in screen.round.wagers}[
            ("Asha", "andar")
        ] == Decimal(150)
        await deal_to_the_end(app, pilot)
        assert screen.game.balances == expected
        settlement = screen.query_one("#settlement")
        assert settlement.row_count == 5  # type: ignore[attr-defined]  # four spots and the total
        await reach(pilot, "#next")
        await pilot.press("enter")
        await pilot.pause()
        assert screen.settlement is None and screen.game.round_number == 2

    run_app(tmp_path, scenario, size)


@SIZES
def test_each_drill_by_keyboard(tmp_path: Path, size: tuple[int, int]) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await press(pilot, "#drills")
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        await type_into(pilot, "#learner", "Tamar")
        for kind in DrillKind:
            await choose(pilot, "#kind", kind.value)
            await press(pilot, "#new")
            drill = screen.drill
            assert drill is not None and drill.kind is kind
            for question in drill.questions:  # the right answers, typed; Enter moves on
                await pilot.pause()
                field = app.focused
                assert field is not None and field.id == f"answer-{question.key}"
                assert is_visible(app, field)
                await type_keys(pilot, *question.expected, "enter")
            await pilot.pause()
            assert "Right!" in note(app, "#result")
            again = app.focused
            assert again is not None and again.id == "again" and is_visible(app, again)
        await app.history_idle()
        await pilot.pause()
        assert screen.progress and sum(row.correct for row in screen.progress) == len(DrillKind)

    run_app(tmp_path, scenario, size)


@SIZES
def test_the_odds_by_keyboard(tmp_path: Path, size: tuple[int, int]) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await press(pilot, "#odds")
        screen = app.screen
        assert isinstance(screen, OddsScreen)
        await choose(pilot, "#procedure", "home")
        await choose(pilot, "#window", "before-centre")
        await choose(pilot, "#paytable", "wizard")
        await press(pilot, "#show")
        await app.workers.wait_for_complete()
        await pilot.pause()
        report = screen.report
        assert report is not None and report.procedure.window.value == "before-centre"
        assert report.paytable.name == "wizard"
        await reach(pilot, "#odds")  # the table itself, to scroll it sideways

    run_app(tmp_path, scenario, size)


def store_rounds(url: str, count: int) -> list[Round]:
    """*count* seeded rounds put straight into the history (newest last)."""
    import random

    rounds = []
    with Storage.open(url) as store:
        for number in range(count):
            rnd = Round.shuffled(
                find_procedure("classic"), find_paytable("wizard"), rng=random.Random(number)
            )
            rnd.place_bet("Asha", "andar", 10)
            rnd.play()
            rnd.settle()
            store.record_round(rnd)
            rounds.append(rnd)
    return rounds


@SIZES
def test_history_and_replay_by_keyboard(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    stored = store_rounds(app.db_url or "", 3)

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await press(pilot, "#history")
        await app.history_idle()
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        await reach(pilot, "#rounds")
        await pilot.press("enter")  # the newest round
        await app.history_idle()
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        step = await reach(pilot, "#step")
        while not step.disabled:
            await pilot.press("enter")
        assert [d.card for d in replay.round.dealt] == [d.card for d in stored[-1].dealt]
        assert is_visible(app, replay.query_one("#settlement"))
        assert isinstance(replay.query_one("#step"), Button)

    import asyncio

    asyncio.run(run(app, scenario, size))
