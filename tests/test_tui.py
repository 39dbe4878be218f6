"""The trainer at the terminal, driven headless with Textual's pilot (issue 4)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path

import pytest
from textual.widgets import Button, DataTable, Input, Label, Select, Static, Switch

from andar_bahar.engine.cards import Card, shuffled
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Row, find_procedure
from andar_bahar.games.drills import DrillKind
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.drills import DrillScreen
from andar_bahar.tui.history import HistoryScreen, ReplayScreen
from andar_bahar.tui.teaching import StandingsScreen, TeachingRoundScreen

SEED = 7
SIZE = (160, 120)


def run_app(app: TrainerApp, scenario: Callable[[TrainerApp, object], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await scenario(app, pilot)

    asyncio.run(main())


def make_app(tmp_path: Path, lang: str = "en", seed: int | None = SEED) -> TrainerApp:
    return TrainerApp(lang=lang, db_url=f"sqlite:///{tmp_path / 'history.sqlite3'}", seed=seed)


async def press(pilot, app: TrainerApp, selector: str) -> None:  # type: ignore[no-untyped-def]
    app.screen.query_one(selector, Button).press()
    await pilot.pause()


def seeded_deck(draw: int) -> list[Card]:
    """The deck the app deals in its *draw*-th round: TrainerApp.rng() seeds "seed/draw"."""
    return shuffled(random.Random(f"{SEED}/{draw}"))


def expected_teaching(
    participants: list[str], rounds: int, choose: Callable[[str, int], Row]
) -> dict[str, int]:
    """Tokens worked out with the engine alone, from the same seeded decks."""
    scores = dict.fromkeys(participants, 0)
    home = find_procedure("home")
    for number in range(1, rounds + 1):
        dealer = participants[(number - 1) % len(participants)]
        rnd = Round(home, find_paytable("trainer-default"), deck=seeded_deck(number))
        winner = rnd.play().winner
        for name in participants:
            if name != dealer and choose(name, number) is winner:
                scores[name] += 1
    return scores


def choose_by_name(name: str, number: int) -> Row:
    # Asha always Andar, Ravi always Bahar, Nino alternates
    if name == "Asha":
        return Row.ANDAR
    if name == "Ravi":
        return Row.BAHAR
    return Row.ANDAR if number % 2 else Row.BAHAR


async def play_teaching_rounds(app: TrainerApp, pilot, choose) -> None:  # type: ignore[no-untyped-def]
    screen = app.screen
    assert isinstance(screen, TeachingRoundScreen)
    while True:
        screen = app.screen
        assert isinstance(screen, TeachingRoundScreen)
        number = screen.game.round_number
        for index, name in enumerate(screen.game.players):
            await press(pilot, app, f"#mark-{index}-{choose(name, number).value}")
        while not screen.round.finished:
            await press(pilot, app, "#deal")
        finished = screen.game.finished
        await press(pilot, app, "#next")
        if finished:
            return


def test_a_ten_round_lesson_for_three_ends_with_the_right_standings(tmp_path: Path) -> None:
    participants = ["Asha", "Ravi", "Nino"]
    expected = expected_teaching(participants, 10, choose_by_name)

    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#teaching")
        app.screen.query_one("#names", Input).value = ", ".join(participants)
        await press(pilot, app, "#start")
        first = app.screen
        assert isinstance(first, TeachingRoundScreen)
        assert first.game.dealer == "Asha" and first.game.players == ("Ravi", "Nino")
        await play_teaching_rounds(app, pilot, choose_by_name)
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        assert standings.game.scores == expected
        table = standings.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert {row[1]: int(row[2]) for row in rows} == expected
        verdict = str(standings.query_one("#verdict", Static).render())
        top = max(expected.values())
        leaders = [name for name, score in expected.items() if score == top]
        assert ("Shared victory" in verdict) == (len(leaders) > 1)
        for name in leaders:
            assert name in verdict

    run_app(make_app(tmp_path), scenario)


def test_a_tie_is_a_shared_victory(tmp_path: Path) -> None:
    # Two learners with the trainer dealing, both always on Andar: equal tokens.
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#teaching")
        app.screen.query_one("#names", Input).value = "Lali, Giorgi"
        app.screen.query_one("#trainer", Switch).value = True
        app.screen.query_one("#rounds", Input).value = "3"
        await press(pilot, app, "#start")
        await play_teaching_rounds(app, pilot, lambda name, number: Row.ANDAR)
        standings = app.screen
        assert isinstance(standings, StandingsScreen)
        verdict = str(standings.query_one("#verdict", Static).render())
        assert "Shared victory" in verdict and "Lali" in verdict and "Giorgi" in verdict

    run_app(make_app(tmp_path), scenario)


def test_markers_are_locked_once_the_first_card_is_dealt(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#teaching")
        app.screen.query_one("#names", Input).value = "Asha, Ravi"
        await press(pilot, app, "#start")
        screen = app.screen
        assert isinstance(screen, TeachingRoundScreen)
        await press(pilot, app, "#deal")  # turns the centre card
        await press(pilot, app, "#deal")  # refused: Ravi has no marker yet
        assert not screen.round.dealt
        assert "Waiting for a marker from Ravi" in str(
            screen.query_one("#panel-error", Label).render()
        )
        await press(pilot, app, "#mark-0-andar")
        await press(pilot, app, "#mark-0-bahar")  # still open: a change is allowed
        await press(pilot, app, "#deal")
        if not screen.round.finished:
            await press(pilot, app, "#mark-0-andar")  # locked now
            assert screen.round.markers == {"Ravi": Row.BAHAR}
            assert "Bets are closed" in str(screen.query_one("#panel-error", Label).render())

    run_app(make_app(tmp_path), scenario)


async def open_club(app: TrainerApp, pilot, *, physical: bool = False) -> ClubRoundScreen:  # type: ignore[no-untyped-def]
    await press(pilot, app, "#club")
    app.screen.query_one("#players", Input).value = "Asha=500, Ravi=300"
    app.screen.query_one("#paytable", Input).value = "wizard"
    app.screen.query_one("#physical", Switch).value = physical
    await press(pilot, app, "#start")
    screen = app.screen
    assert isinstance(screen, ClubRoundScreen)
    return screen


async def bet(app: TrainerApp, pilot, player: str, name: str, stake: str) -> str:  # type: ignore[no-untyped-def]
    app.screen.query_one("#player", Select).value = player
    app.screen.query_one("#bet", Input).value = name
    app.screen.query_one("#stake", Input).value = stake
    await press(pilot, app, "#place")
    return str(app.screen.query_one("#bet-error", Label).render())


def test_a_club_round_settles_to_the_engines_amounts(tmp_path: Path) -> None:
    bets = [("Asha", "andar", "120"), ("Asha", "cards:6-10", "100"), ("Ravi", "bahar", "50")]
    # The engine alone, on the deck the app deals first (draw 1):
    reference = Round(
        find_procedure("classic"), find_paytable("wizard"), deck=seeded_deck(1),
        balances={"Asha": Decimal(500), "Ravi": Decimal(300)},
    )  # fmt: skip
    for player, name, stake in bets:
        reference.place_bet(player, name, stake)
    reference.play()
    settlement = reference.settle().settlement
    expected = {"Asha": Decimal(500), "Ravi": Decimal(300)}
    for settled in settlement.bets:
        expected[settled.player] += settled.net

    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await open_club(app, pilot)
        for player, name, stake in bets:
            assert await bet(app, pilot, player, name, stake) == ""
        while not screen.round.finished:
            await press(pilot, app, "#deal")
        assert screen.game.balances == expected
        table = screen.query_one("#settlement", DataTable)
        assert table.row_count == 3
        assert screen.game.house == -sum(expected.values()) + 800

    run_app(make_app(tmp_path), scenario)


def test_bets_are_refused_in_place_and_after_the_first_card(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await open_club(app, pilot)
        assert "is not a number" in await bet(app, pilot, "Asha", "andar", "abc")
        assert "Unknown bet 'middle'" in await bet(app, pilot, "Asha", "middle", "10")
        assert "too much" in await bet(app, pilot, "Ravi", "bahar", "301")
        assert screen.round.wagers == ()
        assert await bet(app, pilot, "Asha", "andar", "10") == ""
        await press(pilot, app, "#deal")  # the centre card: bets stay open (after-centre)
        await press(pilot, app, "#deal")  # the first card: bets close
        if not screen.round.finished:
            screen.query_one("#place", Button).disabled = False  # even if a user got to it
            assert "Bets are closed" in await bet(app, pilot, "Asha", "andar", "20")
            assert [w.stake for w in screen.round.wagers] == [Decimal(10)]

    run_app(make_app(tmp_path), scenario)


def test_bad_setup_input_is_refused_in_place(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#teaching")
        await press(pilot, app, "#start")  # no names at all
        assert "needs a dealer and at least one player" in str(
            app.screen.query_one("#error", Label).render()
        )
        app.screen.query_one("#names", Input).value = "Asha, Ravi"
        app.screen.query_one("#rounds", Input).value = "ten"
        await press(pilot, app, "#start")
        assert "whole number" in str(app.screen.query_one("#error", Label).render())
        app.pop_screen()
        await pilot.pause()
        await press(pilot, app, "#club")
        app.screen.query_one("#players", Input).value = "=500"
        await press(pilot, app, "#start")
        assert "A player needs a name" in str(app.screen.query_one("#error", Label).render())
        app.screen.query_one("#players", Input).value = "Asha=lots"
        await press(pilot, app, "#start")
        assert "is not a number" in str(app.screen.query_one("#error", Label).render())

    run_app(make_app(tmp_path), scenario)


def test_a_real_deck_refuses_a_repeated_card_and_voids_when_exhausted(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await open_club(app, pilot, physical=True)
        assert await bet(app, pilot, "Asha", "andar", "100") == ""
        card = screen.query_one("#card", Input)
        for text in ("8D", "2S"):
            card.value = text
            await press(pilot, app, "#deal")
        card.value = "Z♥"
        await press(pilot, app, "#deal")
        assert "Unknown card 'Z♥'" in str(screen.query_one("#panel-error", Label).render())
        card.value = "2s"
        await press(pilot, app, "#deal")
        assert "already been turned" in str(screen.query_one("#panel-error", Label).render())
        assert [str(d.card) for d in screen.round.dealt] == ["2♠"]
        await press(pilot, app, "#void")
        assert screen.round.result.void
        assert screen.game.balances == {"Asha": Decimal(500), "Ravi": Decimal(300)}
        assert (
            "check that the deck is complete"
            in str(screen.query_one("#layout", Static).render()).lower()
        )

    run_app(make_app(tmp_path), scenario)


def test_history_survives_reopening_and_replays_the_same_cards(tmp_path: Path) -> None:
    played: list[str] = []

    async def first(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await open_club(app, pilot)
        while not screen.round.finished:
            await press(pilot, app, "#deal")
        played.extend(str(d.card) for d in screen.round.dealt)
        played.insert(0, str(screen.round.centre))

    run_app(make_app(tmp_path), first)

    async def second(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#history")
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 1
        table.focus()
        await pilot.press("enter")
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        shown = []
        while not replay.query_one("#step", Button).disabled:
            await press(pilot, app, "#step")
            shown.append(str(replay.round.dealt[replay.shown - 1].card))
        assert [str(replay.round.centre), *shown] == played

    run_app(make_app(tmp_path, seed=None), second)


def test_a_wrong_drill_answer_is_marked_wrong_with_the_right_answer(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        await press(pilot, app, "#drills")
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        screen.query_one("#learner", Input).value = "Tamar"
        screen.query_one("#kind", Select).value = DrillKind.LAYOUT.value
        await press(pilot, app, "#new")
        drill = screen.drill
        assert drill is not None
        winner = next(q for q in drill.questions if q.key == "winner")
        wrong = "bahar" if winner.expected == "andar" else "andar"
        screen.query_one("#answer-winner", Input).value = wrong
        await press(pilot, app, "#check")
        result = str(screen.query_one("#result", Static).render())
        assert "Not quite" in result
        assert f"the right answer: {Row(winner.expected).localized(None)}" in result
        progress = screen.query_one("#progress", DataTable)
        assert progress.row_count == 1

    run_app(make_app(tmp_path), scenario)


@pytest.mark.parametrize("lang", ["ru", "ka"])
def test_the_menu_speaks_each_language_and_switches(tmp_path: Path, lang: str) -> None:
    async def scenario(app: TrainerApp, pilot) -> None:  # type: ignore[no-untyped-def]
        label = str(app.screen.query_one("#teaching", Button).label)
        assert label != "Teaching game"
        app.screen.query_one("#language", Select).value = "en"
        await pilot.pause()
        assert str(app.screen.query_one("#teaching", Button).label) == "Teaching game"

    run_app(make_app(tmp_path, lang=lang), scenario)
