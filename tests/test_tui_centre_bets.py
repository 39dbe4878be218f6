"""A played round with bets on the centre card at the terminal (80×24, keyboard only).

The bets on the centre card are in the list until the centre card is turned; the moment
it is, the screen says what each won or lost, and the round's settlement pays them.
Expected figures: the joker preset's pays (suit 2.9, low 1.1 to 1) and the rule.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path

from textual.pilot import Pilot

from andar_bahar.engine.bets import CentreBet
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.games.clubgame import ClubGame
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.club import ClubRoundScreen
from andar_bahar.tui.common import Choice
from tui_support import SMALL, choose, make_app, note, press, run, settle, type_into


def test_a_centre_bet_is_offered_until_the_turn_and_settled_at_it(tmp_path: Path) -> None:
    async def scenario(app: TrainerApp, pilot: Pilot[None]) -> None:
        game = ClubGame(
            find_procedure("classic"), find_paytable("joker"), {"Asha": 500, "Ravi": 300}
        )
        table = ClubRoundScreen(game, warnings=[])
        app.push_screen(table)
        await settle(app, pilot)
        offered = table.query_one("#bet", Choice).values
        assert "centre:suit:♥" in offered and "centre:high" in offered and len(offered) == 32
        await choose(pilot, "#player", "Asha")
        await choose(pilot, "#bet", "centre:suit:♥")
        await type_into(pilot, "#stake", "10", enter=True)
        await choose(pilot, "#player", "Ravi")
        await choose(pilot, "#bet", "centre:low")
        await type_into(pilot, "#stake", "20", enter=True)
        assert note(app, "#bet-note") == "Ravi bets 20 on centre card low (A–6)."
        await press(pilot, "#deal")  # the dealer's first step: the centre card is turned
        await settle(app, pilot)
        rnd = table.round
        centre = rnd.centre
        assert centre is not None and rnd.bets_open and not rnd.centre_bets_open
        suit, low = (centre.suit.value == "♥"), centre.rank.value in "A23456"
        said = note(app, "#bet-note")
        assert said.startswith(f"The centre card is {centre}: Asha's bet on centre card ♥ ")
        assert said.endswith("(paid with the round).")
        assert ("wins 29" if suit else "loses") in said and ("wins 22" if low else "loses") in said
        offered = table.query_one("#bet", Choice).values
        assert not any(value.startswith("centre:") for value in offered)
        assert offered == ["andar", "bahar", *(f"cards:{b}" for b in (
            "1-5", "6-10", "11-15", "16-25", "26-30", "31-35", "36-40", "41-49"))]  # fmt: skip
        while not rnd.finished:
            await press(pilot, "#deal")
            await settle(app, pilot)
        paid = {str(b.bet): b for b in game.rounds[-1].bets}
        assert paid["centre:suit:♥"].win == (29 if suit else 0)
        assert paid["centre:low"].win == (22 if low else 0)
        assert all(isinstance(b.bet, CentreBet) for b in game.rounds[-1].bets)
        assert game.balances == {
            "Asha": Decimal(500 + (29 if suit else -10)),
            "Ravi": Decimal(300 + (22 if low else -20)),
        }
        assert sum(e.amount for e in game.ledger if e.round == 1) == 0

    asyncio.run(run(make_app(tmp_path), scenario, SMALL))
