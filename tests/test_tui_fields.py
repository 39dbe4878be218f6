"""Fields that forgive, at 80×24: a refused value is selected so that the next key replaces
it, its sentence goes once the field is changed, values are quoted in the user's language,
Ctrl+L keeps the text being typed and its cursor, a drill's answer says what to type and
its explanation stays in view; a broken history is said in the user's language, naming
the file; a fault of the trainer itself is logged, said in one sentence, and the game goes
on."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.drills import DrillScreen
from test_tui_state import open_lesson
from tui_support import (
    SMALL,
    choose,
    is_visible,
    make_app,
    note,
    run,
    screen_text,
    settle,
    type_into,
    type_keys,
    until,
)


def play(tmp_path: Path, scenario, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    asyncio.run(run(make_app(tmp_path, lang=lang), scenario, SMALL))


MINIMUM = Decimal(10)
"""The table minimum of the club tables here (the wizard table has none of its own)."""


async def club_table(app: TrainerApp, pilot: Pilot[None], **players: int) -> ClubRoundScreen:
    """A classic table on the wizard's pays with a minimum stake, and *players*."""
    paytable = replace(find_paytable("wizard"), min_stake=MINIMUM)
    game = ClubGame(find_procedure("classic"), paytable, players)
    table = ClubRoundScreen(game, warnings=[])
    app.push_screen(table)
    await settle(app, pilot)
    return table


def test_a_refused_stake_is_replaced_by_the_next_one_typed(tmp_path: Path) -> None:
    # The review typed 1 Enter (under the minimum), then 500 Enter, and bet 1500.

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        table = await club_table(app, pilot, Asha=1000)
        await choose(pilot, "#player", "Asha")
        await choose(pilot, "#bet", "andar")
        await type_into(pilot, "#stake", "1", enter=True)
        refusal = note(app, "#bet-note")
        assert refusal.startswith("The stake 1 is below the table minimum"), refusal
        stake = table.query_one("#stake", Input)
        assert stake.selection.start == 0 and stake.selection.end == 1  # "1", selected
        await type_keys(pilot, *"500")
        assert stake.value == "500"  # replaced, not "1500"
        assert note(app, "#bet-note") == ""  # the refusal went as the stake changed
        await type_keys(pilot, "enter")
        await until(pilot, lambda: bool(table.round.wagers), "the bet placed")  # a busy host
        assert [(w.player, w.stake) for w in table.round.wagers] == [("Asha", Decimal(500))]

    play(tmp_path, scenario)


@pytest.mark.parametrize(("lang", "quoted"), [("ru", "«2x»"), ("ka", "„2x“")])
def test_a_refused_value_is_quoted_as_the_language_quotes(
    tmp_path: Path, lang: str, quoted: str
) -> None:
    # The review read 'x' (Python's quotes) in Russian and Georgian sentences.
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await pilot.pause()
        await type_into(pilot, "#names", "Asha, Ravi")
        await type_into(pilot, "#rounds", "2x")
        await pilot.press("ctrl+o")
        await pilot.pause()
        text = note(app, "#error")
        assert quoted in text and "'" not in text, text
        rounds = app.screen.query_one("#rounds", Input)
        assert app.focused is rounds and rounds.selection.end - rounds.selection.start == 2
        await type_keys(pilot, "3")  # replaces "2x": fixed, the sentence goes
        assert rounds.value == "3" and note(app, "#error") == ""

    play(tmp_path, scenario, lang=lang)


def test_ctrl_l_keeps_a_card_being_typed_and_the_next_key_adds_to_it(tmp_path: Path) -> None:
    # The review typed 7, Ctrl+L, d and got "d", not "7d" (the seven of diamonds).
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi", physical=True)
        await pilot.press("a")
        await type_into(pilot, "#card", "7")
        await pilot.press("ctrl+l")
        await type_keys(pilot, "d")
        card = screen.query_one("#card", Input)
        assert app.focused is card and card.value == "7d"
        await pilot.press("enter")
        await settle(app, pilot)
        assert str(screen.round.centre) == "7♦"

    play(tmp_path, scenario)


def test_a_drills_answer_says_what_to_type_and_a_wrong_answer_stays_in_view(
    tmp_path: Path,
) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("4")
        await settle(app, pilot)
        drills = app.screen
        assert isinstance(drills, DrillScreen)
        await type_into(pilot, "#learner", "Tamar", enter=True)  # a layout drill
        await settle(app, pilot)
        fields = [f for f in drills.query(Input).results(Input) if f.id != "learner"]
        assert [f.placeholder for f in fields] == [
            "Andar or Bahar (or its first letter)",
            "a number, e.g. 12",
        ]
        await type_keys(pilot, "x", "enter")  # a wrong row …
        await type_keys(pilot, *"999", "enter")  # … and a wrong count: checked
        await until(pilot, lambda: not drills.loading_progress, "the learner's progress")
        result = drills.query_one("#result")
        assert note(app, "#result").startswith("Not quite.")
        assert is_visible(app, result)  # the explanation in view, the progress loaded under it
        await pilot.press("pagedown", "pageup")  # the user scrolls: it is still there
        assert note(app, "#result").startswith("Not quite.")

    play(tmp_path, scenario)


def test_a_damaged_history_is_one_georgian_sentence_naming_the_file(tmp_path: Path) -> None:
    # The review's damaged database said "file is not a database" and sqlite:////… in Georgian.
    damaged = tmp_path / "history.sqlite3"
    damaged.write_bytes(b"not a database at all " * 100)
    app = TrainerApp(lang="ka", db_url=f"sqlite:///{damaged}", log_path=tmp_path / "errors.log")

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        await pilot.press("6")
        await settle(app, pilot)
        text = note(app, "#note")
        assert text == (
            f"ისტორიის ({damaged}) გამოყენება ვერ ხერხდება:"
            " ფაილი დაზიანებულია ან ისტორიის ფაილი არ არის."
        )

    asyncio.run(run(app, scenario))


def test_a_fault_of_the_trainer_is_logged_said_once_and_the_lesson_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from andar_bahar.tui.panel import RoundPanel

    def broken(self: RoundPanel, action: str) -> bool:
        raise RuntimeError("a fault nobody expected")

    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        screen = await open_lesson(app, pilot, "Asha, Ravi")
        await pilot.press("a")
        rnd = screen.round
        monkeypatch.setattr(RoundPanel, "step", broken)
        await pilot.press("d")
        await pilot.pause()
        assert [str(error) for error in app.failures] == ["a fault nobody expected"]
        log = (tmp_path / "errors.log").read_text(encoding="utf-8")
        assert "RuntimeError: a fault nobody expected" in log and "Traceback" in log
        await pilot.pause(0.2)  # the notification slides in
        assert "Something went wrong" in screen_text(app)  # the first words of its sentence
        monkeypatch.undo()
        await pilot.press("d")  # the lesson goes on: the same round, its marker kept
        await pilot.pause()
        assert app.screen is screen and screen.round is rnd and rnd.centre is not None
        assert dict(rnd.markers) == {"Ravi": rnd.markers["Ravi"]}
        app.failures.clear()  # the fault was made on purpose

    asyncio.run(run(make_app(tmp_path), scenario, SMALL, notes=True))
