"""Andar Bahar: an exact game engine, odds calculator, simulator and trainer.

>>> from andar_bahar import Card, Round, find_procedure, find_paytable
>>> rnd = Round(find_procedure("home"), find_paytable("wizard"))
>>> rnd.turn_centre(Card.parse("Q♥")).card
Card.parse('Q♥')
>>> [str(rnd.deal(c).row) for c in Card.parse_many("4♣ 7♦ Q♠")]
['bahar', 'andar', 'bahar']
>>> rnd.result.winner, rnd.result.cards_dealt
(<Row.BAHAR: 'bahar'>, 3)
"""

from andar_bahar._version import __version__
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
