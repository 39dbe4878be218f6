"""The club table's service: every action is one database transaction.

The server keeps no game state of its own. Each action reads the table and its
open round (locking the table's row), rebuilds the round from its exact record
(:meth:`andar_bahar.engine.round.Round.loads`), applies the step through the engine,
and writes the new record — and, on settlement, the ledger — before it
commits. A server killed at any moment therefore restarts with the last
committed state: the same deck, the same bets, nothing lost and nothing twice.

The shuffled deck is stored when the round opens, with a random salt; until the
round is settled only its SHA-256 commitment is shown, and the public view of a
round (:class:`PublicRound`) never holds an undealt card.

>>> from andar_bahar.storage import Storage
>>> from andar_bahar.engine.rules import find_procedure
>>> from andar_bahar.engine.paytables import find_paytable
>>> import random
>>> service = TableService(Storage.open("sqlite://"), rng=random.Random(5))
>>> table = service.create_table(name="Friday", kind="betting", pin="246813",
...     procedure=find_procedure("classic"), paytable=find_paytable("wizard"))
>>> seat = service.admit_player(table.code, table.dealer_token, "Asha", "500")
>>> seat[3]                               # read aloud as ABC-DEF
'-'
>>> asha = service.join(table.code, seat)   # the table's code and the seat code
>>> _ = service.open_round(table.code, table.dealer_token)
>>> service.place_bet(table.code, asha, "andar", "100", key="k1").stake
Decimal('100')
>>> _ = service.turn_centre(table.code, table.dealer_token)
>>> while service.deal(table.code, table.dealer_token).status == "open":
...     pass
>>> settled = service.settle(table.code, table.dealer_token)
>>> service.round_ledger_sum(table.code, settled.number)
Decimal('0')
>>> [p.kind for p in service.statement(table.code, table.dealer_token).postings][:2]
['buy-in', 'stake']
"""

from __future__ import annotations

from andar_bahar.club.reads import Views
from andar_bahar.club.rounds import Dealing
from andar_bahar.club.seats import Seating
from andar_bahar.club.store import CODE_ALPHABET
from andar_bahar.club.values import (
    CreatedTable,
    PlacedBet,
    PlayerState,
    PublicRound,
    Reveal,
    RoundSummary,
    TableState,
    commitment_of,
)

__all__ = [
    "CODE_ALPHABET",
    "CreatedTable",
    "PlacedBet",
    "PlayerState",
    "PublicRound",
    "Reveal",
    "RoundSummary",
    "TableService",
    "TableState",
    "commitment_of",
]


class TableService(Seating, Dealing, Views):
    """The club tables, their players, rounds, ledger and audit log, in one database.

    Its parts: :mod:`~andar_bahar.club.store` (transactions and checks),
    :mod:`~andar_bahar.club.seats` (tables, the dealer, seats),
    :mod:`~andar_bahar.club.cashier` (chips in and out, the statement),
    :mod:`~andar_bahar.club.rounds` (a round from opening to settlement) and
    :mod:`~andar_bahar.club.reads` (what pages show).
    """
