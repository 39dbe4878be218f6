"""Andar Bahar: an exact game engine, odds calculator, simulator and trainer.

>>> from andar_bahar import Card, Round, find_procedure, find_paytable
>>> rnd = Round(find_procedure("home"), find_paytable("wizard"))
>>> rnd.turn_centre(Card.parse("Q♥")).card
Card.parse('Q♥')
>>> [str(rnd.deal(c).row) for c in Card.parse_many("4♣ 7♦ Q♠")]
['bahar', 'andar', 'bahar']
>>> rnd.result.winner, rnd.result.cards_dealt
(<Row.BAHAR: 'bahar'>, 3)

The names below are imported from the engine when first used, so that importing a
part of the package (the command line's ``--help``, say) does not load the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from andar_bahar._version import __version__

if TYPE_CHECKING:
    from andar_bahar.engine.bets import Bet, CardsBet, CentreBet, CentreKind, MainBet
    from andar_bahar.engine.cards import FULL_DECK, Card, Colour, Rank, Suit, check_complete
    from andar_bahar.engine.errors import (
        ActionError,
        AndarBaharError,
        BetError,
        CardError,
        DeckError,
        PaytableError,
        ProcedureError,
        RulesError,
    )
    from andar_bahar.engine.paytables import Odds, Paytable, find_paytable, load_paytable
    from andar_bahar.engine.round import Round, RoundResult
    from andar_bahar.engine.rules import (
        BetWindow,
        Procedure,
        Row,
        StartRule,
        TargetMode,
        find_procedure,
        load_procedure,
    )
    from andar_bahar.engine.settlement import Outcome, Settlement, settle

_HOMES = {
    "andar_bahar.engine.bets": ("Bet", "CardsBet", "CentreBet", "CentreKind", "MainBet"),
    "andar_bahar.engine.cards": ("FULL_DECK", "Card", "Colour", "Rank", "Suit", "check_complete"),
    "andar_bahar.engine.errors": (
        "ActionError",
        "AndarBaharError",
        "BetError",
        "CardError",
        "DeckError",
        "PaytableError",
        "ProcedureError",
        "RulesError",
    ),
    "andar_bahar.engine.paytables": ("Odds", "Paytable", "find_paytable", "load_paytable"),
    "andar_bahar.engine.round": ("Round", "RoundResult"),
    "andar_bahar.engine.rules": (
        "BetWindow",
        "Procedure",
        "Row",
        "StartRule",
        "TargetMode",
        "find_procedure",
        "load_procedure",
    ),
    "andar_bahar.engine.settlement": ("Outcome", "Settlement", "settle"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "FULL_DECK",
    "ActionError",
    "AndarBaharError",
    "Bet",
    "BetError",
    "BetWindow",
    "Card",
    "CardError",
    "CardsBet",
    "CentreBet",
    "CentreKind",
    "Colour",
    "DeckError",
    "MainBet",
    "Odds",
    "Outcome",
    "Paytable",
    "PaytableError",
    "Procedure",
    "ProcedureError",
    "Rank",
    "Round",
    "RoundResult",
    "Row",
    "RulesError",
    "Settlement",
    "StartRule",
    "Suit",
    "TargetMode",
    "__version__",
    "check_complete",
    "find_paytable",
    "find_procedure",
    "load_paytable",
    "load_procedure",
    "settle",
]


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'andar_bahar' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})
