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

import random
from collections.abc import Callable
from datetime import datetime

from andar_bahar.club.cashier import Cashier
from andar_bahar.club.health import Health
from andar_bahar.club.limits import Limits
from andar_bahar.club.reads import Reads
from andar_bahar.club.rounds import Rounds
from andar_bahar.club.seats import Seats
from andar_bahar.club.store import CODE_ALPHABET, PinCost, Store
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
from andar_bahar.storage import Storage, utc_now

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


class TableService:
    """The club tables, their players, rounds, ledger and audit log, in one database.

    Made of parts that share one :class:`~andar_bahar.club.store.Store` (the transactions,
    what is kept in memory, the rows and the checks of who asks): :attr:`seats` (tables,
    the dealer, seats), :attr:`cashier` (chips in and out, the statement), :attr:`rounds`
    (a round from opening to settlement) and :attr:`reads` (what pages show). Its methods
    are theirs, named below part by part.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        rng: random.Random | None = None,
        now: Callable[[], datetime] = utc_now,
        limits: Limits | None = None,
        pin_cost: PinCost | None = None,
    ) -> None:
        self.storage = storage
        self.store = Store(storage, rng=rng, now=now)
        self.cashier = Cashier(self.store)
        self.seats = Seats(self.store, self.cashier, limits, pin_cost)
        self.rounds = Rounds(self.store)
        self.reads = Reads(self.store)

        transactions = self.store.transactions
        self.health: Health = transactions.health
        self.on_change = transactions.on_change
        self.follow = self.store.kept.follow
        # tables, the dealer, seats
        self.create_table = self.seats.create_table
        self.dealer_login = self.seats.dealer_login
        self.dealer_logout = self.seats.dealer_logout
        self.is_dealer = self.seats.is_dealer
        self.admit_player = self.seats.admit_player
        self.join = self.seats.join
        self.seats_in_use = self.seats.seats_in_use
        self.reissue_seat = self.seats.reissue_seat
        self.release_seat = self.seats.release_seat
        self.player_name = self.seats.player_name
        self.change_paytable = self.seats.change_paytable
        self.close_table = self.seats.close_table
        self.is_closed = self.store.is_closed
        self.player_seat = self.store.player_seat
        self.table_version = self.store.table_version
        # chips in and out, the statement
        self.top_up = self.cashier.top_up
        self.cash_out = self.cashier.cash_out
        self.statement = self.cashier.statement
        self.statement_local = self.cashier.statement_local
        self.audit_local = self.cashier.audit_local
        # a round
        self.open_round = self.rounds.open_round
        self.set_timer = self.rounds.set_timer
        self.close_expired = self.rounds.close_expired
        self.place_bet = self.rounds.place_bet
        self.withdraw_bet = self.rounds.withdraw_bet
        self.take_back_bet = self.rounds.take_back_bet
        self.double_bets = self.rounds.double_bets
        self.place_bets = self.rounds.place_bets
        self.place_marker = self.rounds.place_marker
        self.close_bets = self.rounds.close_bets
        self.turn_centre = self.rounds.turn_centre
        self.choose_target = self.rounds.choose_target
        self.deal = self.rounds.deal
        self.void = self.rounds.void
        self.settle = self.rounds.settle
        # what pages show
        self.view = self.reads.view
        self.state = self.reads.state
        self.snapshot = self.reads.snapshot
        self.table_snapshot = self.reads.table_snapshot
        self.recent_rounds = self.reads.recent_rounds
        self.player_rounds = self.reads.player_rounds
        self.player_night = self.reads.player_night
        self.reveal = self.reads.reveal
        self.credentials = self.reads.credentials
        self.audit_log = self.reads.audit_log
        self.round_ledger_sum = self.reads.round_ledger_sum
        self.ledger_total = self.reads.ledger_total

    @property
    def limits(self) -> Limits:
        """The limits on guessing and on new tables (:attr:`Seats.limits`)."""
        return self.seats.limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        self.seats.limits = limits

    @property
    def notify_channel(self) -> str | None:
        """The PostgreSQL channel the changes are announced on (``None`` on SQLite)."""
        return self.store.transactions.notify_channel

    def release(self, code: str) -> None:
        """Let go of what this process keeps in memory of table *code* (nobody follows it
        here): it is read again from the database if it is asked for."""
        self.store.release(code)

    def rest(self) -> None:
        """The night's end in this process (its last followed table closed): close the
        database connections kept open for later
        (:meth:`~andar_bahar.storage.Storage.close_idle`)."""
        self.storage.close_idle()
