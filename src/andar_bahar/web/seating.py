"""Tables and seats: creating a table, the dealer's sign-in, admitting and seating players.

A mixin of :class:`~andar_bahar.web.service.TableService`; each method is one
transaction (see :mod:`andar_bahar.web.store`).
"""

from __future__ import annotations

import hmac
import json
import secrets
from decimal import Decimal

from sqlalchemy import select

from andar_bahar.engine.errors import AccessError, BetError, ParameterError
from andar_bahar.engine.money import as_decimal, format_amount, parse_stake
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import ClubTableRow, LedgerRow, TablePlayerRow
from andar_bahar.web.records import CreatedTable
from andar_bahar.web.store import CODE_ALPHABET, TableStore, pin_hash, pin_matches, token_hash

__all__ = ["Seating"]

_CODE_LENGTH = 6
_MIN_PIN = 4


class Seating(TableStore):
    """Create tables, sign the dealer in, admit players and give each phone its seat."""

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
                pin_hash=pin_hash(pin.strip()),
                dealer_token_hash=token_hash(token),
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
            if not pin_matches(pin.strip(), table.pin_hash):
                raise AccessError(
                    Message(N_("The PIN is not right for table {code}."), code=table.code)
                )
            token = secrets.token_urlsafe(24)
            table.dealer_token_hash = token_hash(token)
            return token

    def is_dealer(self, code: str, token: str) -> bool:
        with self._tx() as session:
            table = self._table(session, code, lock=False)
            return bool(token) and hmac.compare_digest(token_hash(token), table.dealer_token_hash)

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
            player.token_hash = token_hash(token)
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
