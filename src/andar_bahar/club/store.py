"""The club table's storage machinery: lookups, checks of who asks, balances, the audit log.

:class:`Store` is what every part of :class:`~andar_bahar.club.service.TableService`
shares: every action is one database transaction (its
:class:`~andar_bahar.club.transactions.Transactions`) that reads the table (locking its
row), checks who is asking, and writes what changed — the round's exact record, the
ledger, the audit log — before it commits.

What is read over and over is kept in memory with the table's **version**
(:mod:`andar_bahar.club.kept`): used only while the version in the database is the one
it was kept at — so a change made by another process, or a transaction that failed
half-way, is never missed.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from sqlalchemy import ColumnElement, bindparam, func, select
from sqlalchemy.orm import Session, defer

from andar_bahar.club.kept import Kept
from andar_bahar.club.transactions import Transactions
from andar_bahar.engine.errors import AccessError, ActionError
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.names import normalised_name
from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import Storage, utc_now
from andar_bahar.storage.models import (
    AuditRow,
    ClubTableRow,
    DealerSessionRow,
    LedgerRow,
    TablePlayerRow,
    TableRoundRow,
)

__all__ = [
    "CLOSED",
    "CODE_ALPHABET",
    "PIN_COST",
    "PinCost",
    "Store",
    "ledger_sum",
    "pin_hash",
    "pin_matches",
    "signed_out",
    "token_hash",
]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Letters and digits that cannot be mistaken for one another (no O/0, I/1/L)."""


# The hot path's lookups, built once with bound parameters (a statement built per request
# costs more than SQLAlchemy's cached compilation of it).
TABLE_BY_CODE = select(ClubTableRow).where(ClubTableRow.code == bindparam("code"))
TABLE_VERSION = select(ClubTableRow.id, ClubTableRow.version).where(
    ClubTableRow.code == bindparam("code")
)
TABLE_VERSION_FOR_UPDATE = TABLE_VERSION.with_for_update()
DEALER_SESSION = select(DealerSessionRow.id).where(
    DealerSessionRow.table_id == bindparam("table"),
    DealerSessionRow.token_hash == bindparam("hash"),
)
_HOLDING = (
    TablePlayerRow.table_id == bindparam("table"),
    TablePlayerRow.token_hash == bindparam("hash"),
)
SEATED = select(TablePlayerRow).where(*_HOLDING)
SEAT = select(TablePlayerRow.id, TablePlayerRow.name).where(*_HOLDING)
CURRENT_ROUND = (
    select(TableRoundRow)
    .options(defer(TableRoundRow.record))
    .where(TableRoundRow.table_id == bindparam("table"))
    .order_by(TableRoundRow.number.desc())
    .limit(1)
)

ROUNDS_PLAYED = (
    select(func.count())
    .select_from(TableRoundRow)
    .where(
        TableRoundRow.table_id == bindparam("table"),
        TableRoundRow.status == "settled",
        TableRoundRow.winner != "void",
    )
)
PLAYERS_IN_ORDER = (
    select(TablePlayerRow.id, TablePlayerRow.name)
    .where(TablePlayerRow.table_id == bindparam("table"))
    .order_by(TablePlayerRow.id)
)
_PLAYERS_ENTRIES = LedgerRow.table_id == bindparam("table"), LedgerRow.player_id.is_not(None)
_ENTRY = LedgerRow.id, LedgerRow.player_id, LedgerRow.amount, LedgerRow.kind
ENTRIES_SINCE = select(*_ENTRY).where(*_PLAYERS_ENTRIES, LedgerRow.id > bindparam("last"))
ENTRIES_UP_TO = select(func.count()).where(*_PLAYERS_ENTRIES, LedgerRow.id <= bindparam("last"))
ENTRIES = select(*_ENTRY).where(*_PLAYERS_ENTRIES)
CLOSED = N_("Table {code} is closed: the cashier can still cash the players out, nothing more.")
"""What a closed table answers to a new round, a bet, a seat, a join or a top-up."""
PLAYED = frozenset({"stake", "return"})
"""The ledger's kinds of a round's play (what a player's night result adds up), as against
chips bought, topped up and cashed out."""


def token_hash(token: str) -> str:
    """What is stored of a secret token: its SHA-256 (hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


_HASHING = threading.BoundedSemaphore(2)
"""scrypt takes 16 MiB and tens of milliseconds: two at a time, whatever the guessing."""


@dataclass(frozen=True)
class PinCost:
    """scrypt's cost for a dealer's PIN: *n* (work and memory, a power of 2), *r* (the
    block size), *p* (the lanes); one hash takes 128·n·r bytes. The default is the
    production cost (16 MiB, some 44 ms a hash); ``TableService(pin_cost=…)`` and
    ``create_app(pin_cost=…)`` choose another for the tables they create. A stored hash
    names its own cost, so it verifies whatever the current one."""

    n: int = 2**14
    r: int = 8
    p: int = 1


PIN_COST = PinCost()
"""The cost of the hashes made when none is chosen."""

_UNNAMED = PinCost(n=2**14, r=8, p=1)
"""The cost of the hashes stored as ``salt$hash``, before hashes named their cost."""


def pin_hash(pin: str, salt: bytes | None = None, cost: PinCost | None = None) -> str:
    """scrypt of a dealer's PIN with a salt (slow on purpose), as
    ``scrypt$n$r$p$salt$hash`` (salt and hash in hex) at *cost* (:data:`PIN_COST` if none).

    Never call it inside a transaction: it would hold the table's lock while it works.
    """
    salt = salt if salt is not None else secrets.token_bytes(16)
    cost = cost if cost is not None else PIN_COST
    return f"scrypt${cost.n}${cost.r}${cost.p}${salt.hex()}${_scrypt(pin, salt, cost)}"


def _scrypt(pin: str, salt: bytes, cost: PinCost) -> str:
    with _HASHING:
        return hashlib.scrypt(pin.encode(), salt=salt, n=cost.n, r=cost.r, p=cost.p).hex()


def signed_out(session: Session, table: ClubTableRow, token: str) -> Message:
    """Why *token* holds no seat at *table*: never joined, moved to another device, released."""
    before = None
    if token:
        before = session.scalars(
            select(TablePlayerRow).where(
                TablePlayerRow.table_id == table.id,
                TablePlayerRow.previous_token_hash == token_hash(token),
            )
        ).first()
    if before is None:
        return Message(
            N_("Join table {code} with the seat code the dealer gave you."), code=table.code
        )
    if before.released_at is not None:
        return Message(
            N_("The dealer has released {name}'s seat at table {code}: this device is signed out."),
            name=before.name,
            code=table.code,
        )
    return Message(
        N_(
            "The dealer gave {name}'s seat at table {code} a new seat code: this device is"
            " signed out. Join again with the new code."
        ),
        name=before.name,
        code=table.code,
    )


def ledger_sum(session: Session, *where: ColumnElement[bool]) -> Decimal:
    """The sum of the ledger entries that match *where*, the house's included: added up by
    the database, exactly (the column holds whole millionths of a chip)."""
    total = session.scalar(select(func.sum(LedgerRow.amount)).where(*where))
    return as_decimal(total if total is not None else Decimal(0))


def pin_matches(pin: str, stored: str) -> bool:
    """Whether *pin* is the one :func:`pin_hash` stored as *stored*, at the cost it names
    (a ``salt$hash`` of before: :data:`_UNNAMED`)."""
    *named, salt, digest = stored.split("$")
    cost = PinCost(*(int(number) for number in named[1:])) if named else _UNNAMED
    return hmac.compare_digest(_scrypt(pin, bytes.fromhex(salt), cost), digest)


class Store:
    """The database of the club tables, and the checks every action starts with.

    It holds the tables' :attr:`transactions` (every write and read goes through them),
    what is :attr:`kept` in memory with each table's version, the ledger's sums kept
    between reads, the source of the decks' randomness and the clock.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        rng: random.Random | None = None,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self.storage = storage
        self.transactions = Transactions(storage)
        self.kept = Kept(self.transactions)
        # table id → (ledger entries summed, the last entry's id, player id → their sums:
        # the balance, and the result of the night's rounds).
        self._sums: dict[int, tuple[int, int, dict[int, tuple[Decimal, Decimal]]]] = {}
        # Live dealing uses the operating system's secure source; tests may seed one.
        self.rng = rng if rng is not None else secrets.SystemRandom()
        self.now = now

    def release(self, code: str) -> None:
        """Let go of what is kept in memory of table *code* (read again when asked for)."""
        table_id = self.kept.release(code)
        if table_id is not None:
            self._sums.pop(table_id, None)

    # -- lookups ----------------------------------------------------------------------------

    def table(self, session: Session, code: str, *, lock: bool = True) -> ClubTableRow:
        """The table *code* (else why not, in one sentence). *lock*: a writer's, locked (on
        PostgreSQL ``FOR UPDATE``; SQLite has one writer): its row as kept at its version
        when it is (:meth:`~andar_bahar.club.kept.Kept.kept_table`), else read."""
        sqlite = session.get_bind().dialect.name == "sqlite"
        key = code.strip().upper() if "\x00" not in code else None  # no code holds a NUL
        table: ClubTableRow | None = None
        if key is not None and lock:
            found = (
                session.connection()  # one plain statement: no ORM on the way
                .execute(TABLE_VERSION if sqlite else TABLE_VERSION_FOR_UPDATE, {"code": key})
                .one_or_none()
            )
            if found is not None:
                table = self.kept.kept_table(session, found[0], found[1])
                if table is None:
                    table = session.scalars(TABLE_BY_CODE, {"code": key}).one()
                    self.kept.keep_table(session, table)
        elif key is not None:
            table = session.scalars(TABLE_BY_CODE, {"code": key}).one_or_none()
        if table is None:
            raise ActionError(
                Message(N_("There is no table with the code {code}: check the code."), code=code)
            )
        if lock:
            self.transactions.locked(session, table)
        return table

    def table_version(self, code: str) -> int:
        """The version of table *code* (an error if there is no such table)."""
        found = self.kept.version_of(code)
        if found is not None:
            return found[1]
        with self.transactions.read() as session:  # there is none: say so, in one sentence
            return self.table(session, code, lock=False).version

    def is_closed(self, code: str) -> bool:
        """Whether table *code* is closed (an error if there is no such table)."""
        with self.transactions.read() as session:
            return self.table(session, code, lock=False).closed_at is not None

    def player_seat(self, code: str, token: str) -> tuple[int, str] | None:
        """The id and name of the player whose token is *token* (``None``: nobody's)."""
        if not token:
            return None
        with self.transactions.read() as session:
            table = self.table(session, code, lock=False)
            found = session.execute(
                select(TablePlayerRow.id, TablePlayerRow.name).where(
                    TablePlayerRow.table_id == table.id,
                    TablePlayerRow.token_hash == token_hash(token),
                )
            ).one_or_none()
            return (found[0], found[1]) if found is not None else None

    def dealer(self, session: Session, code: str, token: str, *, lock: bool = True) -> ClubTableRow:
        """The table, if *token* is one of its signed-in dealer devices' (else AccessError)."""
        table = self.table(session, code, lock=lock)
        if not token or not self.dealer_session(session, table, token):
            raise AccessError(
                Message(N_("Only the dealer can do this at table {code}."), code=table.code)
            )
        return table

    @staticmethod
    def dealer_session(session: Session, table: ClubTableRow, token: str) -> bool:
        found = (
            session.connection()  # one plain statement: no ORM on the way
            .execute(DEALER_SESSION, {"table": table.id, "hash": token_hash(token)})
            .first()
        )
        return found is not None

    def seat(self, session: Session, table: ClubTableRow, token: str) -> tuple[int, str]:
        """The id and name of the seated player whose phone holds *token* (else why not, in
        one sentence), as :meth:`player`, without the row (one plain statement)."""
        found = None
        if token:
            found = (
                session.connection()
                .execute(SEAT, {"table": table.id, "hash": token_hash(token)})
                .first()
            )
        if found is None:
            raise AccessError(signed_out(session, table, token))
        return int(found[0]), str(found[1])

    def player(self, session: Session, table: ClubTableRow, token: str) -> TablePlayerRow:
        """The seated player whose phone holds *token* (else why not, in one sentence)."""
        player = None
        if token:
            player = session.scalars(
                SEATED, {"table": table.id, "hash": token_hash(token)}
            ).one_or_none()
        if player is None:
            raise AccessError(signed_out(session, table, token))
        return player

    @staticmethod
    def still_open(table: ClubTableRow) -> None:
        """Refuse (in one sentence) if *table* is closed: no round, bet, seat or join then."""
        if table.closed_at is not None:
            raise ActionError(Message(CLOSED, code=table.code))

    def settled_last(
        self, session: Session, table: ClubTableRow, refusal: str
    ) -> TableRoundRow | None:
        """The table's last round, if settled (or none yet); else *refusal* (its ``{n}``:
        the round's number), in one sentence."""
        current = self.current(session, table)
        if current is not None and current.status != "settled":
            raise ActionError(Message(refusal, n=current.number))
        return current

    @staticmethod
    def current(session: Session, table: ClubTableRow) -> TableRoundRow | None:
        # The record is read only if it is needed (the round is not kept in memory).
        return session.scalars(CURRENT_ROUND, {"table": table.id}).one_or_none()

    @staticmethod
    def rounds_played(session: Session, table: ClubTableRow) -> int:
        """The rounds settled at *table*, the void ones not counted (a lesson's progress)."""
        return session.scalar(ROUNDS_PLAYED, {"table": table.id}) or 0

    def round_in_play(self, session: Session, table: ClubTableRow) -> tuple[TableRoundRow, Round]:
        found = self.kept.kept_round(session, table)
        if found is None:
            row = self.current(session, table)
            found = (row, self.kept.round_of(session, table, row)) if row is not None else None
        if found is None or found[0].status == "settled":
            self.still_open(table)
            raise ActionError(Message(N_("No round is open: the dealer opens the next round.")))
        return found

    def balances(self, session: Session, table: ClubTableRow) -> dict[str, Decimal]:
        """Every player's balance (the sum of their ledger entries), in the order admitted."""
        return {name: balance for name, (balance, _) in self.accounts(session, table).items()}

    def accounts(self, session: Session, table: ClubTableRow) -> dict[str, tuple[Decimal, Decimal]]:
        """Every player's balance and result of the night (their stakes and returns: what
        the rounds changed), from the whole ledger, in the order admitted.

        The sums are kept between calls: only the entries added since are read,
        and all of them again if the count shows any other change.
        """
        players = session.execute(PLAYERS_IN_ORDER, {"table": table.id}).all()
        known_count, known_last, known = self._sums.get(table.id, (0, 0, {}))
        rows = session.execute(ENTRIES_SINCE, {"table": table.id, "last": known_last}).all()
        count, last = known_count + len(rows), max((r[0] for r in rows), default=known_last)
        if rows and session.scalar(ENTRIES_UP_TO, {"table": table.id, "last": last}) != count:
            # an entry below the last one known: add them all up again
            rows = session.execute(ENTRIES, {"table": table.id}).all()
            count, known = len(rows), {}
        sums = dict(known)
        zero = (Decimal(0), Decimal(0))
        for _, player_id, amount, kind in rows:
            if player_id is not None:
                balance, result = sums.get(player_id, zero)
                played = amount if kind in PLAYED else Decimal(0)
                sums[player_id] = (balance + amount, result + played)
        self._sums[table.id] = (count, last, sums)
        return {
            name: (as_decimal(balance), as_decimal(result))
            for pid, name in players
            for balance, result in (sums.get(pid, zero),)
        }

    @staticmethod
    def admitted(session: Session, table: ClubTableRow, name: str) -> TablePlayerRow:
        """The player called *name* who holds a seat at *table* (else one sentence): as
        typed, or as a name is kept (:func:`~andar_bahar.engine.names.normalised_name`)."""
        player = None
        if "\x00" not in name:  # no name holds one (and PostgreSQL could not compare it)
            found = session.scalars(
                select(TablePlayerRow).where(
                    TablePlayerRow.table_id == table.id,
                    TablePlayerRow.name.in_({name.strip(), normalised_name(name)}),
                    TablePlayerRow.released_at.is_(None),
                )
            ).all()
            player = next((p for p in found if p.name == name.strip()), None) or next(
                iter(found), None
            )
        if player is None:
            raise ActionError(
                Message(N_("{name} is not at table {code}."), name=name.strip() or "—",
                        code=table.code)
            )  # fmt: skip
        return player

    def audit(
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
                created_at=self.now(),
            )
        )
