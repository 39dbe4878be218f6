"""A club table with a played history, fast: what the hold report's tests and benchmark read.

The table, its players and a second sign-in of the dealer go through the service; the
rounds are played by the engine and stored as the service stores a settled round (the
record, the commitment of a server's deck, the ledger's postings of every stake and
return), without a transaction per step — hundreds of rounds in a second.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from andar_bahar.club.cashier import post_all
from andar_bahar.club.service import TableService
from andar_bahar.club.values import commitment_of
from andar_bahar.engine.cards import FULL_DECK, Card
from andar_bahar.engine.paytables import Paytable, find_paytable, load_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure, find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, TablePlayerRow, TableRoundRow

PIN = "246810"
PLAYERS = ("Asha", "Ravi", "Nino", "Dato")
START = datetime(2025, 5, 2, 18, 0, tzinfo=UTC)
"""The first round: 18:00 UTC on a Friday (the night of 2 May in UTC)."""


@dataclass
class Clock:
    """The service's clock, moved by the test."""

    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


@dataclass
class PlayedTable:
    code: str
    token: str
    service: TableService
    clock: Clock
    rounds: list[Round] = field(default_factory=list)


def open_table(
    storage: Storage,
    *,
    procedure: Procedure | None = None,
    paytable: Paytable | None = None,
    seed: int = 1,
) -> PlayedTable:
    clock = Clock()
    service = TableService(storage, rng=random.Random(seed), now=clock)
    created = service.create_table(
        name="Friday", kind="betting", pin=PIN,
        procedure=procedure or find_procedure("classic"),
        paytable=paytable or find_paytable("trainer-default"),
    )  # fmt: skip
    for name in PLAYERS:
        seat = service.admit_player(created.code, created.dealer_token, name, "1000000")
        service.join(created.code, seat)
    return PlayedTable(created.code, created.dealer_token, service, clock)


def deck_with_bias(rng: random.Random, early: float) -> list[Card]:
    """A shuffled deck; in a share *early* of them a card of the top card's rank is moved
    among the first five cards dealt (the planted bias of the shuffle check)."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    if rng.random() < early:
        card = rng.choice([c for c in deck[1:] if c.rank is deck[0].rank])
        deck.remove(card)
        deck.insert(1 + rng.randrange(5), card)
    return deck


def play(
    table: PlayedTable,
    rounds: int,
    *,
    seed: int = 2,
    real_share: float = 0.5,
    early: float = 0.0,
    every: timedelta = timedelta(minutes=2),
    side_bets: float = 0.3,
    voids: float = 0.0,
) -> None:
    """Play *rounds* rounds at *table*, one every *every* on the table's clock (a share
    *voids* of the real-deck rounds called off after two cards; in a share *early* of
    them a matching card placed near the top)."""
    rng = random.Random(seed)
    storage = table.service.storage
    with Session(storage.engine) as session, session.begin():
        row = session.scalars(select(ClubTableRow).where(ClubTableRow.code == table.code)).one()
        players = {
            p.name: p.id
            for p in session.scalars(
                select(TablePlayerRow).where(TablePlayerRow.table_id == row.id)
            )
        }
        number = len(
            session.scalars(select(TableRoundRow.id).where(TableRoundRow.table_id == row.id)).all()
        )
        procedure = Procedure.from_dict(json.loads(row.procedure_json), source="table")
        paytable = load_paytable(row.paytable_toml, source="table")
        for _ in range(rounds):
            number += 1
            real = rng.random() < real_share
            deck = deck_with_bias(rng, early if real else 0.0)  # the dealer's hands only
            rnd = Round(procedure, paytable, deck=None if real else deck)
            bets = _bets(rng, paytable, side_bets)
            for player, bet, stake in bets[: len(bets) // 2 + 1]:
                rnd.place_bet(player, bet, stake)
            if procedure.has_centre:
                rnd.turn_centre(deck[0] if real else None)
            for player, bet, stake in bets[len(bets) // 2 + 1 :]:  # after the centre card
                rnd.place_bet(player, bet, stake)
            position = 1
            void = real and rng.random() < voids
            while not rnd.finished and not (void and position == 3):
                rnd.deal(deck[position] if real else None)
                position += 1
            if not rnd.finished:
                rnd.void("the deck is not complete")
            settlement = rnd.settle().settlement
            assert settlement is not None
            salt = None if real else "00" * 16
            table_round = TableRoundRow(
                table_id=row.id, number=number, status="settled", record=rnd.dumps(),
                salt=salt,
                commitment=None if real else commitment_of(" ".join(map(str, deck)), "00" * 16),
                winner=rnd.result.winner.value if rnd.result.winner else "void",
                cards_dealt=rnd.result.cards_dealt, opened_at=table.clock.now,
                settled_at=table.clock.now, bets_deadline=None,
            )  # fmt: skip
            session.add(table_round)
            session.flush()
            post_all(session, row, (
                (players[p], p, amount, "stake" if amount < 0 else "return", reason)
                for p, amount, reason in settlement.postings()
            ), table.clock.now, table_round.id)  # fmt: skip
            table.rounds.append(rnd)
            table.clock.now += every


def _bets(
    rng: random.Random, paytable: Paytable, side_bets: float
) -> list[tuple[str, str, Decimal]]:
    """1–4 players on a row (now and then twice on the same spot), some on a side bet."""
    bets = []
    bands = [str(b.bet) for b in paytable.bands]
    for player in rng.sample(PLAYERS, rng.randint(1, 4)):
        row = rng.choice(["andar", "bahar"])
        bets.append((player, row, Decimal(rng.choice([10, 20, 25, 50, 100]))))
        if rng.random() < 0.2:
            bets.append((player, row, Decimal(rng.choice([5, 10]))))  # adds up on the spot
        if bands and rng.random() < side_bets:
            bets.append((player, rng.choice(bands), Decimal(rng.choice([5, 10]))))
    return bets


def sign_in_again(table: PlayedTable) -> str:
    """The dealer signs in on another device now (a new sign-in for the report)."""
    return table.service.dealer_login(table.code, PIN, "10.0.0.9")
