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
>>> table = service.create_table(name="Friday", kind="betting", pin="2468",
...     procedure=find_procedure("classic"), paytable=find_paytable("wizard"))
>>> service.admit_player(table.code, table.dealer_token, "Asha", "500")
>>> asha = service.join(table.code, "Asha")
>>> _ = service.open_round(table.code, table.dealer_token)
>>> service.place_bet(table.code, asha, "andar", "100", key="k1").stake
Decimal('100')
>>> _ = service.turn_centre(table.code, table.dealer_token)
>>> while service.deal(table.code, table.dealer_token).status == "open":
...     pass
>>> settled = service.settle(table.code, table.dealer_token)
>>> service.round_ledger_sum(table.code, settled.number)
Decimal('0')
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from andar_bahar.engine.bets import Bet
from andar_bahar.engine.cards import Card, Rank, shuffled
from andar_bahar.engine.errors import AccessError, ActionError, BetError, ParameterError
from andar_bahar.engine.money import as_decimal, format_amount, parse_stake
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.round import CardDealt, Round, RoundResult
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.engine.settlement import Settlement
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import Storage, utc_now
from andar_bahar.storage.models import (
    AuditRow,
    ClubTableRow,
    IdempotencyRow,
    LedgerRow,
    TablePlayerRow,
    TableRoundRow,
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

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Letters and digits that cannot be mistaken for one another (no O/0, I/1/L)."""
_CODE_LENGTH = 6
_MIN_PIN = 4


def commitment_of(deck_text: str, salt: str) -> str:
    """SHA-256 (hex) of ``"<deck>|<salt>"``: what is shown before the deal.

    >>> commitment_of("A♠ 2♠", "00")[:16]  # the same as: printf 'A♠ 2♠|00' | sha256sum
    'd972aa62f7948f2c'
    """
    return hashlib.sha256(f"{deck_text}|{salt}".encode()).hexdigest()


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _pin_hash(pin: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"{salt.hex()}${digest.hex()}"


def _pin_matches(pin: str, stored: str) -> bool:
    salt, _, _ = stored.partition("$")
    return hmac.compare_digest(_pin_hash(pin, bytes.fromhex(salt)), stored)


@dataclass(frozen=True, slots=True)
class CreatedTable:
    """A new table's code (for players) and the dealer's secret token."""

    code: str
    dealer_token: str


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    joined: bool
    balance: Decimal
    tokens: int


@dataclass(frozen=True, slots=True)
class PlacedBet:
    """A bet as accepted (a repeated request gets the same answer)."""

    player: str
    bet: str
    stake: Decimal
    round: int


@dataclass(frozen=True, slots=True)
class PublicRound:
    """A round as a browser may see it: no undealt card, no deck until it is settled."""

    number: int
    status: str
    bets_open: bool
    physical: bool
    procedure: Procedure
    paytable: Paytable
    centre: Card | None
    target: Rank | None
    dealt: tuple[CardDealt, ...]
    first_row: Row | None
    wagers: tuple[tuple[str, str, Decimal], ...]
    markers: Mapping[str, Row]
    result: RoundResult | None
    settlement: Settlement | None
    commitment: str | None

    @property
    def finished(self) -> bool:
        return self.status != "open"


@dataclass(frozen=True, slots=True)
class RoundSummary:
    number: int
    status: str
    winner: str | None
    cards_dealt: int | None
    centre: Card | None
    commitment: str | None
    settled_at: datetime | None


@dataclass(frozen=True, slots=True)
class Reveal:
    """After settlement: the deck as it was shuffled, the salt, and the commitment."""

    number: int
    deck: str
    salt: str
    commitment: str

    @property
    def verified(self) -> bool:
        return commitment_of(self.deck, self.salt) == self.commitment


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a page shows about a table (for the dealer or a player)."""

    code: str
    name: str
    kind: str
    procedure: Procedure
    paytable: Paytable
    """The paytable for the next round opened."""
    players: tuple[PlayerState, ...]
    round: PublicRound | None
    rounds_settled: int
    rounds_planned: int
    scoring: bool

    @property
    def teaching(self) -> bool:
        return self.kind == "teaching"

    @property
    def finished(self) -> bool:
        """A lesson is over after its planned rounds (betting tables never finish)."""
        return self.teaching and self.rounds_settled >= self.rounds_planned

    def standings(self) -> list[tuple[int, str, int]]:
        """(place, name, tokens), equal top scores sharing the first place."""
        ordered = sorted(self.players, key=lambda p: -p.tokens)
        return [
            (1 + sum(1 for o in ordered if o.tokens > p.tokens), p.name, p.tokens) for p in ordered
        ]


class TableService:
    """The club tables, their players, rounds, ledger and audit log, in one database."""

    def __init__(
        self,
        storage: Storage,
        *,
        rng: random.Random | None = None,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self.storage = storage
        self._sessions = sessionmaker(storage.engine, expire_on_commit=False)
        # SQLite has one writer at a time: the threads of one server take turns here
        # rather than time out on the database's own lock under load.
        self._lock = threading.Lock() if storage.engine.dialect.name == "sqlite" else None
        # Live dealing uses the operating system's secure source; tests may seed one.
        self._rng = rng if rng is not None else secrets.SystemRandom()
        self._now = now

    # -- transactions ---------------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[Session]:
        if self._lock is None:
            with self._sessions.begin() as session:
                yield session
            return
        with self._lock, self._sessions.begin() as session:
            yield session

    def _table(self, session: Session, code: str, *, lock: bool = True) -> ClubTableRow:
        query = select(ClubTableRow).where(ClubTableRow.code == code.strip().upper())
        if lock and session.get_bind().dialect.name != "sqlite":  # SQLite: BEGIN IMMEDIATE
            query = query.with_for_update()
        table = session.scalars(query).one_or_none()
        if table is None:
            raise ActionError(
                Message(N_("There is no table with the code {code}: check the code."), code=code)
            )
        return table

    def _dealer(self, session: Session, code: str, token: str) -> ClubTableRow:
        table = self._table(session, code)
        if not token or not hmac.compare_digest(_token_hash(token), table.dealer_token_hash):
            raise AccessError(
                Message(N_("Only the dealer can do this at table {code}."), code=table.code)
            )
        return table

    def _player(self, session: Session, table: ClubTableRow, token: str) -> TablePlayerRow:
        player = None
        if token:
            player = session.scalars(
                select(TablePlayerRow).where(
                    TablePlayerRow.table_id == table.id,
                    TablePlayerRow.token_hash == _token_hash(token),
                )
            ).one_or_none()
        if player is None:
            raise AccessError(
                Message(N_("Join table {code} with your name first."), code=table.code)
            )
        return player

    @staticmethod
    def _current(session: Session, table: ClubTableRow) -> TableRoundRow | None:
        return session.scalars(
            select(TableRoundRow)
            .where(TableRoundRow.table_id == table.id)
            .order_by(TableRoundRow.number.desc())
            .limit(1)
        ).one_or_none()

    def _open_round(self, session: Session, table: ClubTableRow) -> tuple[TableRoundRow, Round]:
        row = self._current(session, table)
        if row is None or row.status == "settled":
            raise ActionError(Message(N_("No round is open: the dealer opens the next round.")))
        return row, Round.loads(row.record)

    @staticmethod
    def _save(row: TableRoundRow, rnd: Round) -> None:
        row.record = rnd.dumps()
        if rnd.finished and row.status == "open":
            row.status = "finished"
            result = rnd.result
            row.winner = result.winner.value if result.winner else "void"
            row.cards_dealt = result.cards_dealt

    def _balances(self, session: Session, table: ClubTableRow) -> dict[str, Decimal]:
        players = session.scalars(
            select(TablePlayerRow)
            .where(TablePlayerRow.table_id == table.id)
            .order_by(TablePlayerRow.id)
        ).all()
        amounts: dict[int, Decimal] = {p.id: Decimal(0) for p in players}
        for player_id, amount in session.execute(
            select(LedgerRow.player_id, LedgerRow.amount).where(
                LedgerRow.table_id == table.id, LedgerRow.player_id.is_not(None)
            )
        ):
            if player_id is not None:
                amounts[player_id] += amount
        return {p.name: as_decimal(amounts[p.id]) for p in players}

    def _audit(
        self,
        session: Session,
        table: ClubTableRow,
        actor: str,
        action: str,
        old: str | None,
        new: str | None,
        reason: str,
    ) -> None:
        session.add(
            AuditRow(
                table_id=table.id,
                actor=actor,
                action=action,
                old_value=old,
                new_value=new,
                reason=reason,
                created_at=self._now(),
            )
        )

    # -- the table ---------------------------------------------------------------

    def create_table(
        self,
        *,
        name: str,
        kind: str,
        procedure: Procedure,
        paytable: Paytable,
        pin: str,
        rounds: int = 10,
        scoring: bool = True,
    ) -> CreatedTable:
        """Create a table; the PIN lets the dealer sign in again from another browser."""
        if not name.strip():
            raise ParameterError(Message(N_("A table needs a name.")))
        if kind not in ("betting", "teaching"):
            raise ParameterError(
                Message(N_("A table plays 'betting' or 'teaching', not '{kind}'."), kind=kind)
            )
        if len(pin.strip()) < _MIN_PIN:
            raise ParameterError(
                Message(N_("The dealer's PIN needs at least {n} characters."), n=_MIN_PIN)
            )
        if not 1 <= rounds <= 1000:
            raise ParameterError(Message(N_("A lesson has 1 to 1000 rounds, not {n}."), n=rounds))
        rules = procedure.replace(markers_only=kind == "teaching")
        token = secrets.token_urlsafe(24)
        with self._tx() as session:
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(_CODE_LENGTH))
                if (
                    session.scalars(
                        select(ClubTableRow.id).where(ClubTableRow.code == code)
                    ).first()
                    is None
                ):
                    break
            table = ClubTableRow(
                code=code,
                name=name.strip(),
                kind=kind,
                procedure_json=json.dumps(rules.to_dict()),
                paytable_toml=paytable.to_toml(),
                pin_hash=_pin_hash(pin.strip()),
                dealer_token_hash=_token_hash(token),
                rounds_planned=rounds,
                scoring=scoring,
                created_at=self._now(),
            )
            session.add(table)
            session.flush()
            self._audit(session, table, "dealer", "create", None, paytable.name, "table created")
        return CreatedTable(code, token)

    def dealer_login(self, code: str, pin: str) -> str:
        """A new dealer token for whoever knows the PIN (the old ones stop working)."""
        with self._tx() as session:
            table = self._table(session, code)
            if not _pin_matches(pin.strip(), table.pin_hash):
                raise AccessError(
                    Message(N_("The PIN is not right for table {code}."), code=table.code)
                )
            token = secrets.token_urlsafe(24)
            table.dealer_token_hash = _token_hash(token)
            return token

    def is_dealer(self, code: str, token: str) -> bool:
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            return bool(token) and hmac.compare_digest(_token_hash(token), table.dealer_token_hash)

    def admit_player(self, code: str, dealer_token: str, name: str, balance: str) -> None:
        """Seat a player with a starting chip balance (a ledger entry from the house)."""
        player_name = name.strip()
        if not player_name:
            raise BetError(Message(N_("A player needs a name.")))
        if len(player_name) > 40:
            raise BetError(Message(N_("A name has at most 40 characters.")))
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            amount = parse_stake(balance) if table.kind == "betting" else Decimal(0)
            if amount < 0:
                raise BetError(
                    Message(
                        N_("A balance cannot be negative: {amount}."), amount=format_amount(amount)
                    )
                )
            exists = session.scalars(
                select(TablePlayerRow.id).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.name == player_name
                )
            ).first()
            if exists is not None:
                raise BetError(Message(N_("{player} is already at the table."), player=player_name))
            player = TablePlayerRow(
                table_id=table.id, name=player_name, token_hash=None, admitted_at=self._now()
            )
            session.add(player)
            session.flush()
            if amount:
                now = self._now()
                session.add(
                    LedgerRow(
                        table_id=table.id,
                        round_id=None,
                        player_id=player.id,
                        amount=as_decimal(amount),
                        reason="chips in",
                        created_at=now,
                    )
                )
                session.add(
                    LedgerRow(
                        table_id=table.id,
                        round_id=None,
                        player_id=None,
                        amount=as_decimal(-amount),
                        reason=f"chips in: {player_name}",
                        created_at=now,
                    )
                )
            self._audit(
                session,
                table,
                "dealer",
                "admit",
                None,
                f"{player_name}={format_amount(amount)}",
                "",
            )
            current = self._current(session, table)
            if current is not None and current.status == "open":
                rnd = Round.loads(current.record)
                if rnd.balances is not None and rnd.bets_open:
                    rnd.balances[player_name] = as_decimal(amount)
                    current.record = rnd.dumps()

    def join(self, code: str, name: str) -> str:
        """A phone claims an admitted name; returns the player's secret token."""
        with self._tx() as session:
            table = self._table(session, code)
            player = session.scalars(
                select(TablePlayerRow).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.name == name.strip()
                )
            ).one_or_none()
            if player is None:
                raise AccessError(
                    Message(
                        N_("{name} is not admitted at table {code}: ask the dealer to admit you."),
                        name=name.strip() or "—",
                        code=table.code,
                    )
                )
            if player.token_hash is not None:
                raise AccessError(
                    Message(
                        N_("{name} has already joined from another device: ask the dealer."),
                        name=player.name,
                    )
                )
            token = secrets.token_urlsafe(24)
            player.token_hash = _token_hash(token)
            return token

    def player_name(self, code: str, token: str) -> str:
        with self._tx() as session:
            return self._player(session, self._table(session, code, lock=False), token).name

    def change_paytable(
        self, code: str, dealer_token: str, paytable: Paytable, reason: str
    ) -> None:
        """A new paytable from the next round on, written to the audit log."""
        if not reason.strip():
            raise ParameterError(Message(N_("Give a reason for changing the paytable.")))
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            old = table.paytable_toml
            table.paytable_toml = paytable.to_toml()
            self._audit(
                session, table, "dealer", "paytable", old, table.paytable_toml, reason.strip()
            )

    # -- a round -----------------------------------------------------------------------

    def open_round(self, code: str, dealer_token: str, *, physical: bool = False) -> PublicRound:
        """Shuffle (unless a real deck is typed in), store the deck, show its commitment."""
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            current = self._current(session, table)
            if current is not None and current.status != "settled":
                raise ActionError(
                    Message(N_("Round {n} is still in play: settle it first."), n=current.number)
                )
            if table.kind == "teaching":
                settled = (
                    session.scalar(
                        select(func.count())
                        .select_from(TableRoundRow)
                        .where(
                            TableRoundRow.table_id == table.id,
                            TableRoundRow.status == "settled",
                            TableRoundRow.winner != "void",
                        )
                    )
                    or 0
                )
                if settled >= table.rounds_planned:
                    raise ActionError(
                        Message(
                            N_("The lesson is over: {n} rounds have been played."),
                            n=table.rounds_planned,
                        )
                    )
            procedure = Procedure.from_dict(json.loads(table.procedure_json), source="table")
            paytable = load_paytable(table.paytable_toml, source="table")
            balances = self._balances(session, table) if table.kind == "betting" else None
            deck = None if physical else shuffled(self._rng)
            rnd = Round(procedure, paytable, deck=deck, balances=balances)
            if not procedure.has_centre and not physical:
                rnd.choose_target(self._rng.choice(list(Rank)))
            salt = commitment = None
            if deck is not None:
                salt = secrets.token_hex(16)
                commitment = commitment_of(" ".join(str(c) for c in deck), salt)
            row = TableRoundRow(
                table_id=table.id,
                number=(current.number + 1) if current else 1,
                status="open",
                record=rnd.dumps(),
                salt=salt,
                commitment=commitment,
                winner=None,
                cards_dealt=None,
                opened_at=self._now(),
                settled_at=None,
            )
            session.add(row)
            session.flush()
            return self._public(row, rnd)

    def place_bet(
        self, code: str, player_token: str, bet: str, stake: str, *, key: str
    ) -> PlacedBet:
        """Place (or change) one's own bet; a request repeated with the same key counts once."""
        return self._idempotent(
            code, player_token, key, lambda rnd, name: rnd.place_bet(name, bet, stake)
        )

    def withdraw_bet(self, code: str, player_token: str, bet: str, *, key: str) -> PlacedBet:
        return self._idempotent(
            code, player_token, key, lambda rnd, name: rnd.withdraw_bet(name, bet)
        )

    def place_marker(self, code: str, player_token: str, row: str) -> None:
        with self._tx() as session:
            table = self._table(session, code)
            player = self._player(session, table, player_token)
            round_row, rnd = self._open_round(session, table)
            rnd.place_marker(player.name, row)
            self._save(round_row, rnd)

    def _idempotent(
        self, code: str, token: str, key: str, action: Callable[[Round, str], object]
    ) -> PlacedBet:
        key = key.strip()
        if not key or len(key) > 80:
            raise ParameterError(
                Message(N_("Every bet request needs its own key (1 to 80 characters)."))
            )
        try:
            with self._tx() as session:
                table = self._table(session, code)
                player = self._player(session, table, token)
                done = session.scalars(
                    select(IdempotencyRow).where(
                        IdempotencyRow.player_id == player.id, IdempotencyRow.key == key
                    )
                ).one_or_none()
                if done is not None:
                    return _placed(json.loads(done.response))
                round_row, rnd = self._open_round(session, table)
                record = action(rnd, player.name)
                self._save(round_row, rnd)
                stake = getattr(record, "stake", Decimal(0))
                placed = PlacedBet(
                    player.name, str(getattr(record, "bet", "")), stake, round_row.number
                )
                session.add(
                    IdempotencyRow(
                        player_id=player.id,
                        key=key,
                        response=json.dumps(
                            {
                                "player": placed.player,
                                "bet": placed.bet,
                                "stake": format_amount(placed.stake),
                                "round": placed.round,
                            }
                        ),
                        created_at=self._now(),
                    )
                )
                return placed
        except IntegrityError:  # the same key raced in from a second request: answer as it did
            with self._tx() as session:
                table = self._table(session, code, lock=False)
                player = self._player(session, table, token)
                done = session.scalars(
                    select(IdempotencyRow).where(
                        IdempotencyRow.player_id == player.id, IdempotencyRow.key == key
                    )
                ).one()
                return _placed(json.loads(done.response))

    def close_bets(self, code: str, dealer_token: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.close_bets())

    def turn_centre(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.turn_centre(_card(card)))

    def choose_target(self, code: str, dealer_token: str, rank: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.choose_target(rank))

    def deal(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        """Deal the next card: from the stored deck, or the card the dealer typed."""

        def step(rnd: Round) -> object:
            if rnd.procedure.has_centre and rnd.centre is None:
                return rnd.turn_centre(_card(card))
            return rnd.deal(_card(card))

        return self._dealer_step(code, dealer_token, step)

    def void(self, code: str, dealer_token: str) -> PublicRound:
        """The real deck ran out with no match: the round is void, every stake returned."""
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.void())

    def _dealer_step(self, code: str, token: str, step: Callable[[Round], object]) -> PublicRound:
        with self._tx() as session:
            table = self._dealer(session, code, token)
            row, rnd = self._open_round(session, table)
            if row.status != "open":
                raise ActionError(Message(N_("The round is over: settle it.")))
            step(rnd)
            self._save(row, rnd)
            return self._public(row, rnd)

    def settle(self, code: str, dealer_token: str) -> PublicRound:
        """Settle the finished round: ledger entries for every stake and every return."""
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            row, rnd = self._open_round(session, table)
            settlement = rnd.settle().settlement
            assert settlement is not None
            players = {
                p.name: p.id
                for p in session.scalars(
                    select(TablePlayerRow).where(TablePlayerRow.table_id == table.id)
                )
            }
            now = self._now()
            for player, amount, reason in settlement.postings():
                for player_id, posted, account_reason in (
                    (players[player], amount, reason),
                    (None, -amount, f"{player}: {reason}"),  # the house's side
                ):
                    session.add(
                        LedgerRow(
                            table_id=table.id,
                            round_id=row.id,
                            player_id=player_id,
                            amount=as_decimal(posted),
                            reason=account_reason,
                            created_at=now,
                        )
                    )
            row.status = "settled"
            row.settled_at = now
            self._save(row, rnd)
            return self._public(row, rnd)

    # -- what pages show -------------------------------------------------------------------

    def state(self, code: str) -> TableState:
        """The table as pages show it (no undealt card is ever part of it)."""
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            row = self._current(session, table)
            rnd = Round.loads(row.record) if row is not None else None
            settled_rounds = session.scalars(
                select(TableRoundRow).where(
                    TableRoundRow.table_id == table.id, TableRoundRow.status == "settled"
                )
            ).all()
            tokens: dict[str, int] = {}
            if table.kind == "teaching" and table.scoring:
                for settled in settled_rounds:
                    if settled.winner in ("andar", "bahar"):
                        markers = Round.loads(settled.record).markers
                        for name, marked in markers.items():
                            tokens[name] = tokens.get(name, 0) + int(marked.value == settled.winner)
            balances = self._balances(session, table)
            joined = {
                p.name: p.token_hash is not None
                for p in session.scalars(
                    select(TablePlayerRow).where(TablePlayerRow.table_id == table.id)
                )
            }
            return TableState(
                code=table.code,
                name=table.name,
                kind=table.kind,
                procedure=Procedure.from_dict(json.loads(table.procedure_json), source="table"),
                paytable=load_paytable(table.paytable_toml, source="table"),
                players=tuple(
                    PlayerState(name, joined[name], balance, tokens.get(name, 0))
                    for name, balance in balances.items()
                ),
                round=self._public(row, rnd) if row is not None and rnd is not None else None,
                rounds_settled=sum(1 for r in settled_rounds if r.winner != "void"),
                rounds_planned=table.rounds_planned,
                scoring=table.scoring,
            )

    def recent_rounds(self, code: str, limit: int = 10) -> list[RoundSummary]:
        """The table's last rounds, newest first (SPEC §9: recall of the last ten)."""
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            rows = session.scalars(
                select(TableRoundRow)
                .where(TableRoundRow.table_id == table.id)
                .order_by(TableRoundRow.number.desc())
                .limit(limit)
            ).all()
            return [
                RoundSummary(
                    r.number,
                    r.status,
                    r.winner,
                    r.cards_dealt,
                    _centre(r.record),
                    r.commitment,
                    r.settled_at,
                )
                for r in rows
            ]

    def reveal(self, code: str, number: int) -> Reveal:
        """The deck and salt of a settled round, for anyone to check the commitment."""
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            row = (
                session.scalars(
                    select(TableRoundRow).where(
                        TableRoundRow.table_id == table.id, TableRoundRow.number == number
                    )
                ).one_or_none()
                if 1 <= number <= 2**31  # a number no round can have never reaches the database
                else None
            )
            if row is None:
                raise ActionError(
                    Message(N_("Table {code} has no round {n}."), code=table.code, n=number)
                )
            if row.status != "settled":
                raise AccessError(
                    Message(
                        N_("The deck of round {n} is shown once the round is settled."), n=number
                    )
                )
            if row.salt is None or row.commitment is None:
                raise ActionError(
                    Message(
                        N_("Round {n} was dealt from a real deck: there is no commitment."),
                        n=number,
                    )
                )
            deck = json.loads(row.record)["deck"]
            return Reveal(number, deck, row.salt, row.commitment)

    def audit_log(self, code: str, dealer_token: str) -> list[AuditRow]:
        with self._tx() as session:
            table = self._dealer(session, code, dealer_token)
            return list(
                session.scalars(
                    select(AuditRow).where(AuditRow.table_id == table.id).order_by(AuditRow.id)
                )
            )

    def round_ledger_sum(self, code: str, number: int) -> Decimal:
        """The sum of a round's ledger entries, house included: always zero."""
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            amounts = session.scalars(
                select(LedgerRow.amount)
                .join(TableRoundRow, LedgerRow.round_id == TableRoundRow.id)
                .where(TableRoundRow.table_id == table.id, TableRoundRow.number == number)
            ).all()
            return as_decimal(sum(amounts, Decimal(0)))

    def ledger_total(self, code: str) -> Decimal:
        """The sum of every ledger entry of the table: always zero."""
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            amounts = session.scalars(
                select(LedgerRow.amount).where(LedgerRow.table_id == table.id)
            ).all()
            return as_decimal(sum(amounts, Decimal(0)))

    @staticmethod
    def _public(row: TableRoundRow, rnd: Round) -> PublicRound:
        return PublicRound(
            number=row.number,
            status=row.status,
            bets_open=rnd.bets_open and row.status == "open",
            physical=rnd.deck is None,
            procedure=rnd.procedure,
            paytable=rnd.paytable,
            centre=rnd.centre,
            target=rnd.target,
            dealt=rnd.dealt,
            first_row=rnd.first_row,
            wagers=tuple((w.player, str(w.bet), w.stake) for w in rnd.wagers),
            markers=rnd.markers,
            result=rnd.result_or_none,
            settlement=rnd.settlement,
            commitment=row.commitment,
        )


def _card(text: str | None) -> Card | None:
    return Card.parse(text) if text is not None and text.strip() else None


def _centre(record: str) -> Card | None:
    for op in json.loads(record).get("operations", []):
        if op.get("op") == "centre":
            return Card.parse(str(op["card"]))
    return None


def _placed(data: Mapping[str, object]) -> PlacedBet:
    return PlacedBet(
        str(data["player"]), str(data["bet"]), Decimal(str(data["stake"])), int(str(data["round"]))
    )


_ = Bet
