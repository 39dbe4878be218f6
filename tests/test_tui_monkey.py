"""The monkey: seeded random keys through every screen of the terminal trainer, at random
moments, with real timer ticks between them (Auto deals meanwhile), and the terminal
resized between 60×20 and 200×60 now and then.

Nothing a user does may crash the trainer: the run fails on any exception, caught by
Textual or by the trainer's last resort (``TrainerApp.failures``), and every club table
met keeps a ledger that sums to zero. Each seed is a reproducible sequence of keys (their
timing is real, so a race shows on most runs of its seed, not on every one).

The everyday run sends 2,000 keys over two seeds (about 10 s of one worker each: a key
costs the trainer 5–10 ms of CPU, a screen opened or drawn again in another language
100–300 ms); ``ANDAR_BAHAR_FULL_FUZZ=1`` (the long tier of ``.ci/run``) sends 50,000
over ten.
"""

from __future__ import annotations

import asyncio
import os
import random
import string
import traceback
from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import pytest
from textual.pilot import Pilot

from andar_bahar.games.clubgame import ClubGame
from andar_bahar.tui.app import TrainerApp
from tui_support import fresh_database, key_event

FULL = os.environ.get("ANDAR_BAHAR_FULL_FUZZ") == "1"
SEEDS = range(10) if FULL else range(2)
KEYS_PER_SEED = 5_000 if FULL else 1_000
SIZE = (80, 24)

BOUND = [
    *"123456",  # the menu
    *"abdtxnpy",  # markers, deal, Auto, deck exhausted, next, players, yes
    *"фивет",  # the same keys on a Russian keyboard
    "ctrl+o", "ctrl+n", "ctrl+p", "delete",
    "escape", "tab", "shift+tab", "enter", "space", "backspace",
    "up", "down", "left", "right", "home", "end", "pageup", "pagedown",
]  # fmt: skip
"""Every key some screen binds, and the keys that move about (Ctrl+L and Ctrl+Q: below)."""

LANGUAGE = ["ctrl+l"]
"""The next language: every screen in sight drawn again (as costly as twenty other keys)."""
QUIT = ["ctrl+q"]
"""Quitting: the monkey then starts the trainer again on its history (as costly as a
hundred other keys)."""

TYPED = string.ascii_letters + string.digits + ",.-% "
"""What a user types into fields."""

HABITS = [
    # a lesson for three, Auto and the language switched while it deals
    [*"Asha, Ravi, Nino", "ctrl+o", "a", "b", "d", "t", "ctrl+l"],
    [*"Lali", "tab", "space", "ctrl+o", "a", "t"],  # a learner alone
    [*"Asha", "enter", *"500", "enter", *"Ravi", "enter", *"300", "enter", "ctrl+o"],
    ["tab", *"100", "enter", "d", "t"],  # a stake, the deal, Auto
    [*"Tamar", "enter", *"7", "enter"],  # a drill
    ["t", "ctrl+l", "ctrl+l"],
    ["escape", "y"],
    ["p", *"Nino", "enter", *"50", "enter", "escape"],
]
"""Sequences a user types often, so that the monkey gets deep into the games."""


@dataclass
class Monkey:
    """One seed's keys and what they met."""

    seed: int
    rng: random.Random = field(init=False)
    sent: int = 0
    games: dict[int, ClubGame] = field(default_factory=dict)
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=8))
    """The last bursts of keys, each with the screen and the control it went to."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def burst(self) -> list[str]:
        """The keys typed before the trainer catches up: habits, bound keys, typing."""
        keys: list[str] = []
        for _ in range(self.rng.randint(1, 4)):
            roll = self.rng.random()
            if roll < 0.003:
                keys += QUIT
            elif roll < 0.02:
                keys += LANGUAGE
            elif roll < 0.1:
                keys += self.rng.choice(HABITS)
            elif roll < 0.6:
                keys += [self.rng.choice(BOUND) for _ in range(self.rng.randint(1, 3))]
            else:
                keys += [self.rng.choice(TYPED) for _ in range(self.rng.randint(1, 6))]
        return keys

    def pause(self) -> float | None:
        """How long to let the trainer run before the next keys: until it has taken the
        keys, a moment, or now and then long enough for Auto to deal a card or two."""
        roll = self.rng.random()
        if roll < 0.7:
            return None
        if roll < 0.985:
            return self.rng.uniform(0.001, 0.02)
        return self.rng.uniform(0.3, 0.8)

    def note_tables(self, app: TrainerApp) -> None:
        for screen in app.screen_stack:
            game = getattr(screen, "game", None)
            if isinstance(game, ClubGame):
                self.games[id(game)] = game

    async def session(self, app: TrainerApp, pilot: Pilot[None], keys: int) -> None:
        """Keys until *keys* are sent or the app quits (Ctrl+Q)."""
        resized = 0
        while self.sent < keys and app.is_running:
            if resized and (resized := resized - 1) == 0:
                await pilot.resize_terminal(*SIZE)  # back to the size the trainer is made for
            elif self.rng.random() < 0.01:
                width, height = self.rng.randint(60, 200), self.rng.randint(20, 60)
                await pilot.resize_terminal(width, height)
                resized = self.rng.randint(1, 10)  # for a few bursts of keys
            burst = self.burst()
            self.recent.append(f"{' '.join(burst)!r} to {app.screen!r}, {app.focused!r}")
            for key in burst:
                app.post_message(key_event(key))
                self.sent += 1
            await pilot.pause(self.pause())
            self.note_tables(app)
            assert not app.failures, failure(self, app.failures[0])


def failure(monkey: Monkey, error: BaseException) -> str:
    """The seed, the keys sent so far, the last bursts and the traceback of a fault."""
    trace = "".join(traceback.format_exception(error))
    recent = "\n".join(monkey.recent)
    return f"seed {monkey.seed}, after {monkey.sent} keys; the last ones:\n{recent}\n{trace}"


async def run_monkey(seed: int, keys: int, folder: Path) -> Monkey:
    monkey = Monkey(seed)
    database = fresh_database(folder)
    while monkey.sent < keys:  # Ctrl+Q, answered yes: the trainer starts again on its history
        app = TrainerApp(
            lang=monkey.rng.choice(("en", "ru", "ka")),
            db_url=database,
            seed=seed,
            log_path=folder / "errors.log",
        )
        app.animation_level = "none"  # nothing slides: the keys come faster than any slide
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                await monkey.session(app, pilot, keys)
                if app.is_running:
                    await app.history_idle()
        except Exception as crash:  # Textual's own: the trainer stopped
            raise AssertionError(failure(monkey, crash)) from crash
        assert not app.failures, failure(monkey, app.failures[0])
    for game in monkey.games.values():
        assert sum((e.amount for e in game.ledger), Decimal(0)) == 0
    return monkey


@pytest.mark.parametrize("seed", SEEDS)
def test_no_key_at_any_moment_crashes_the_trainer(tmp_path: Path, seed: int) -> None:
    asyncio.run(run_monkey(seed, KEYS_PER_SEED, tmp_path))
