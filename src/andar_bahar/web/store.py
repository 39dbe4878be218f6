"""The club table's storage machinery: transactions, lookups and the audit log.

:class:`TableStore` is the base of :class:`~andar_bahar.web.service.TableService`:
every action is one database transaction (:meth:`TableStore._tx`) that reads the
table (locking its row), checks who is asking, and writes what changed — the
round's exact record, the ledger, the audit log — before it commits.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from andar_bahar.engine.errors import AccessError, ActionError
from andar_bahar.engine.money import as_decimal
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
    "CODE_ALPHABET",
    "TableStore",
    "pin_hash",
    "pin_matches",
    "signed_out",
    "token_hash",
]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Letters and digits that cannot be mistaken for one another (no O/0, I/1/L)."""


def token_hash(token: str) -> str:
    """What is stored of a secret token: its SHA-256 (hex)."""
    return hashlib.sha256(token.encode()).hexdigest()


_HASHING = threading.BoundedSemaphore(2)
"""scrypt takes 16 MiB and tens of milliseconds: two at a time, whatever the guessing."""


def pin_hash(pin: str, salt: bytes | None = None) -> str:
    """scrypt of a dealer's PIN with a salt, as ``salt$hash`` in hex (slow on purpose).

    Never call it inside a transaction: it would hold the table's lock while it works.
    """
    salt = salt if salt is not None else secrets.token_bytes(16)
    with _HASHING:
        digest = hashlib.scrypt(pin.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"{salt.hex()}${digest.hex()}"


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


def pin_matches(pin: str, stored: str) -> bool:
    """Whether *pin* is the one :func:`pin_hash` stored as *stored*."""
    salt, _, _ = stored.partition("$")
    return hmac.compare_digest(pin_hash(pin, bytes.fromhex(salt)), stored)


class TableStore:
    """The database of the club tables, and the checks every action starts with."""

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

    def _dealer(
        self, session: Session, code: str, token: str, *, lock: bool = True
    ) -> ClubTableRow:
        """The table, if *token* is one of its signed-in dealer devices' (else AccessError)."""
        table = self._table(session, code, lock=lock)
        if not token or not self._dealer_session(session, table, token):
            raise AccessError(
                Message(N_("Only the dealer can do this at table {code}."), code=table.code)
            )
        return table

    @staticmethod
    def _dealer_session(session: Session, table: ClubTableRow, token: str) -> bool:
        found = session.scalars(
            select(DealerSessionRow.id).where(
                DealerSessionRow.table_id == table.id,
                DealerSessionRow.token_hash == token_hash(token),
            )
        ).first()
        return found is not None

    def _player(self, session: Session, table: ClubTableRow, token: str) -> TablePlayerRow:
        """The seated player whose phone holds *token* (else why not, in one sentence)."""
        player = None
        if token:
            player = session.scalars(
                select(TablePlayerRow).where(
                    TablePlayerRow.table_id == table.id,
                    TablePlayerRow.token_hash == token_hash(token),
                )
            ).one_or_none()
        if player is None:
            raise AccessError(signed_out(session, table, token))
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
