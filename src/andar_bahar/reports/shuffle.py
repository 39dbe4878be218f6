"""The shuffle check of a table's rounds, for people and tools: real decks, and the control.

The rounds dealt from a real deck (typed in by the dealer) are checked; so are the rounds
the server shuffled, as a control — the same check on a shuffle known to be fair (see
docs/randomness.md), which should find nothing more often than 5 times in 100.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from andar_bahar.chance.shuffle_check import (
    EARLY_MATCH,
    DealtRound,
    EarlyMatch,
    PValue,
    ShuffleCheck,
    check_shuffle,
)
from andar_bahar.engine.money import decimal_sign
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message, Translator, translate
from andar_bahar.reports.hold import ClubRound
from andar_bahar.reports.hold_options import Deck
from andar_bahar.reports.report import table_text

__all__ = [
    "SECTION_NAMES",
    "Deck",
    "ShuffleSection",
    "render_shuffle",
    "shuffle_json",
    "shuffle_sections",
]


SECTION_NAMES = {
    Deck.REAL: N_("Rounds dealt from a real deck"),
    Deck.SERVER: N_("Rounds the server shuffled (the control)"),
    Deck.ALL: N_("Every round"),
}
TEST_NAMES = {
    "cards-dealt": N_("cards dealt"),
    "first-row-wins": N_("the row dealt first wins"),
    "colour-winner": N_("winner by colour"),
    "centre-rank": N_("centre card's rank"),
}
TEST_METHODS = {"chi-square": N_("χ²"), "exact": N_("exact"), "none": N_("too few")}


@dataclass(frozen=True, slots=True)
class ShuffleSection:
    """One set of rounds and its check."""

    deck: Deck
    check: ShuffleCheck

    def title(self) -> Message:
        return Message(SECTION_NAMES[self.deck])


def dealt(rounds: Sequence[ClubRound]) -> list[DealtRound]:
    """What the check reads of each round that reached a match (a void round did not)."""
    return [
        DealtRound(r.centre, r.first_row, r.winner, r.cards_dealt)
        for r in rounds
        if r.winner is not None and r.first_row is not None
    ]


def shuffle_sections(
    procedure: Procedure,
    paytable: Paytable,
    rounds: Sequence[ClubRound],
    decks: Sequence[Deck] = (Deck.REAL, Deck.SERVER),
    bias: EarlyMatch = EARLY_MATCH,
) -> list[ShuffleSection]:
    """The check of each kind of deck asked for, on the table's *rounds* (cells from the
    *paytable*'s bands)."""
    bands = tuple(b.bet for b in paytable.bands)
    chosen = {
        Deck.REAL: [r for r in rounds if r.real_deck],
        Deck.SERVER: [r for r in rounds if not r.real_deck],
        Deck.ALL: list(rounds),
    }
    return [
        ShuffleSection(deck, check_shuffle(procedure, dealt(chosen[deck]), bands=bands, bias=bias))
        for deck in decks
    ]


def _number(value: float, places: int, translator: Translator | None) -> str:
    return f"{value:.{places}f}".replace(".", decimal_sign(translator))


def check_rows(check: ShuffleCheck, translator: Translator | None) -> list[list[str]]:
    """Per test: name, method, X², degrees of freedom, p, the level it is judged at, and
    the cell furthest from what was expected."""
    t = translator
    rows = []
    for test in check.tests:
        result = test.test
        rows.append([
            translate(TEST_NAMES[test.name], t),
            translate(TEST_METHODS[result.method], t),
            _number(result.statistic, 2, t),
            str(result.df),
            PValue(result.p_value).localized(t) if result.method != "none" else "—",
            _number(test.level, 4, t),
            test.finding().localized(t) if test.rounds else "—",
        ])  # fmt: skip
    return rows


HEADERS = (
    N_("test"),
    N_("method"),
    N_("X²"),
    N_("df"),
    N_("p"),
    N_("flags below"),
    N_("furthest from expected"),
)


def render_shuffle(
    code: str, sections: Sequence[ShuffleSection], translator: Translator | None = None
) -> str:
    """Every section: its verdict, a table of its tests, and the power against the bias."""
    t = translator
    out = [Message(N_("Shuffle check of table {code}"), code=code).localized(t)]
    for section in sections:
        check = section.check
        out += ["", f"{section.title().localized(t)}: {check.rounds}", check.verdict().localized(t)]
        out.append(table_text([translate(h, t) for h in HEADERS], check_rows(check, t)))
        out.append(check.power_sentence().localized(t))
    return "\n".join(out) + "\n"


def shuffle_json(code: str, sections: Sequence[ShuffleSection]) -> dict[str, Any]:
    """The ``history shuffle --format json`` contract."""
    return {
        "table": code,
        "sections": [
            {
                "deck": s.deck.value,
                "rounds": s.check.rounds,
                "unusual": s.check.unusual,
                "verdict": str(s.check.verdict()),
                "bias": str(s.check.bias.localized(None)),
                "rounds_needed": s.check.needed,
                "power_now": round(s.check.power, 4),
                "tests": [
                    {
                        "name": test.name,
                        "method": test.test.method,
                        "statistic": round(test.test.statistic, 6),
                        "df": test.test.df,
                        "p": test.test.p_value,
                        "level": test.level,
                        "flagged": test.flagged,
                        "cells": [str(c) for c in test.cells],
                        "observed": list(test.observed),
                        "expected": [round(e, 6) for e in test.expected()],
                        "probabilities": [str(p) for p in test.probabilities],
                    }
                    for test in s.check.tests
                ],
            }
            for s in sections
        ],
    }
