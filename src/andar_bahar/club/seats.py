"""Tables and seats: creating a table, the dealer's sign-in, admitting and seating players.

:class:`Seats` is a part of :class:`~andar_bahar.club.service.TableService`; each
method is one transaction (see :mod:`andar_bahar.club.store`) — except that a PIN is
hashed between two of them, never while the table is locked.

- **The dealer** signs in with the table's PIN (at least 6 characters) on up to
  :data:`MAX_DEALER_DEVICES` devices side by side (one more signs the oldest out); each
  device has its own token and signs out on its own. Wrong PINs are counted per table and
  per address and locked out — except on a device that signed in at the table before,
  counted on its own (:mod:`andar_bahar.club.limits`); every sign-in, failure and sign-out
  is audited.
- **A seat** is given by the dealer: admitting a player issues a *seat code* (six letters
  and digits that cannot be mistaken, read aloud as ``ABC-DEF``). A phone joins with the
  table's code and the seat code, once; a name alone never gets a seat. The dealer can
  reissue a seat's code (the device that held it is signed out and is told why) or release
  the seat (the player's chips are cashed out). Only hashes of codes and tokens are kept.
"""

from __future__ import annotations

import json
import secrets
from decimal import Decimal

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from andar_bahar.club.cashier import Cashier, has_acted
from andar_bahar.club.events import TABLE_CLOSED
from andar_bahar.club.limits import (
    MAX_NAME,
    MAX_PIN,
    MAX_REASON,
    MAX_TABLE_NAME,
    MIN_PIN,
    Limits,
    check_chips,
    check_text,
    finish_attempt,
    reserve_attempt,
)
from andar_bahar.club.store import (
    CODE_ALPHABET,
    PinCost,
    Store,
    pin_hash,
    pin_matches,
    token_hash,
)
from andar_bahar.club.values import CreatedTable, stored_paytable
from andar_bahar.engine.errors import AccessError, ActionError, BetError, ParameterError
from andar_bahar.engine.money import format_amount, parse_stake
from andar_bahar.engine.names import check_name, check_new_name
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import Procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import AuditRow, ClubTableRow, DealerSessionRow, TablePlayerRow

__all__ = ["IN_USE", "JOIN_REFUSED", "LOCAL", "MAX_DEALER_DEVICES", "Seats", "seat_code_text"]

_CODE_LENGTH = 6
_SEAT_LENGTH = 6
MAX_DEALER_DEVICES = 10
"""Devices signed in as the dealer of one table at once (an 11th signs the oldest out)."""
LOCAL = "local"
"""The client address of calls that come from no network (tests, the command line); a
request's is always an IP address (:class:`~andar_bahar.web.http.clients.ClientAddresses`)."""
JOIN_REFUSED = "join refused"
"""The audit log's action of a seat code tried while another device holds the seat."""
IN_USE = N_("This seat code is in use on another device: ask the dealer to sign that device out.")


def seat_code_text(code: str) -> str:
    """A seat code as it is read aloud: ``ABC-DEF``."""
    return f"{code[:3]}-{code[3:]}"


def _seat_key(code: str) -> str:
    """What a typed seat code is compared by: capitals, no spaces or dashes."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def _check_pin(pin: str) -> str:
    stripped = pin.strip()
    if len(stripped) < MIN_PIN:
        raise ParameterError(
            Message(N_("The dealer's PIN needs at least {n} characters."), n=MIN_PIN)
        )
    if len(stripped) > MAX_PIN:
        raise ParameterError(Message(N_("The dealer's PIN has at most {n} characters."), n=MAX_PIN))
    return stripped


class Seats:
    """Create tables, sign the dealer in and out, admit players and give each phone its seat.

    A player admitted gets their buy-in from the :class:`~andar_bahar.club.cashier.Cashier`,
    and a seat released is cashed out by it; guessing is counted by :attr:`limits`; a new
    table's PIN is hashed at :attr:`pin_cost` (``None``: the production cost).
    """

    def __init__(
        self,
        store: Store,
        cashier: Cashier,
        limits: Limits | None = None,
        pin_cost: PinCost | None = None,
    ) -> None:
        self.store = store
        self.cashier = cashier
        self.limits = limits if limits is not None else Limits()
        self.pin_cost = pin_cost

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
        client: str = LOCAL,
    ) -> CreatedTable:
        """Create a table; the PIN lets the dealer sign in again from another device."""
        title = check_text(name, "table", MAX_TABLE_NAME)
        if kind not in ("betting", "teaching"):
            raise ParameterError(
                Message(N_("A table plays 'betting' or 'teaching', not '{kind}'."), kind=kind)
            )
        secret = _check_pin(pin)
        if not 1 <= rounds <= 1000:
            raise ParameterError(Message(N_("A lesson has 1 to 1000 rounds, not {n}."), n=rounds))
        rules = procedure.replace(markers_only=kind == "teaching")
        hashed = pin_hash(secret, cost=self.pin_cost)  # slow: before the transaction
        token = secrets.token_urlsafe(24)
        with self.store.transactions.write() as session:
            reserve_attempt(session, "create", None, client, self.store.now(), self.limits)
            code = self._new_code(session)
            table = ClubTableRow(
                code=code,
                name=title,
                kind=kind,
                procedure_json=json.dumps(rules.to_dict()),
                paytable_toml=paytable.to_toml(),
                pin_hash=hashed,
                rounds_planned=rounds,
                scoring=scoring,
                created_at=self.store.now(),
            )
            session.add(table)
            session.flush()
            self._sign_in(session, table, token, client)
            self.store.audit(session, table, "dealer", "create", None, paytable.name, client)
        return CreatedTable(code, token)

    @staticmethod
    def _new_code(session: Session) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(_CODE_LENGTH))
            taken = session.scalars(select(ClubTableRow.id).where(ClubTableRow.code == code))
            if taken.first() is None:
                return code

    def _sign_in(self, session: Session, table: ClubTableRow, token: str, client: str) -> None:
        """A new dealer device; past :data:`MAX_DEALER_DEVICES` the oldest is signed out
        (most likely one whose token is lost: nothing else could ever sign it out)."""
        devices = session.scalars(
            select(DealerSessionRow)
            .where(DealerSessionRow.table_id == table.id)
            .order_by(DealerSessionRow.id)
        ).all()
        for oldest in devices[: max(0, len(devices) - MAX_DEALER_DEVICES + 1)]:
            session.delete(oldest)
            self.store.audit(
                session, table, "dealer", "logout", oldest.client, client,
                f"more than {MAX_DEALER_DEVICES} devices: the oldest is signed out",
            )  # fmt: skip
        session.add(
            DealerSessionRow(
                table_id=table.id, token_hash=token_hash(token), client=client[:64],
                created_at=self.store.now(),
            )
        )  # fmt: skip

    def dealer_login(self, code: str, pin: str, client: str = LOCAL, device: str = "") -> str:
        """A new dealer token for whoever knows the PIN; the devices already in stay in.

        Wrong PINs are counted per table and per address: too many get 429 (even with the
        right PIN). *device*: the id of a device that signed in at this table before (the
        adapter checked its proof); its attempts are counted on their own, so that no
        stranger's guessing locks it out. The PIN is hashed with no lock held.
        """
        with self.store.transactions.write() as session:
            table = self.store.table(session, code)
            now = self.store.now()
            attempt = reserve_attempt(session, "login", table.id, client, now, self.limits, device)
            self.store.transactions.unseen(
                session, table
            )  # an attempt counted: no change of the table
            stored, table_code = table.pin_hash, table.code
        ok = len(pin.strip()) <= MAX_PIN and pin_matches(pin.strip(), stored)
        token = secrets.token_urlsafe(24)
        with self.store.transactions.write() as session:
            table = self.store.table(session, table_code)
            finish_attempt(session, attempt, ok)
            self.store.audit(
                session, table, "dealer", "login" if ok else "login failed", None, client, ""
            )
            if ok:
                self._sign_in(session, table, token, client)
            else:  # counted and audited, but nothing anyone's page shows has changed
                self.store.transactions.unseen(session, table)
        if not ok:
            raise AccessError(
                Message(N_("The PIN is not right for table {code}."), code=table_code)
            )
        return token

    def dealer_logout(self, code: str, dealer_token: str, client: str = LOCAL) -> None:
        """Sign this device out (the dealer's other devices stay signed in)."""
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            session.execute(
                delete(DealerSessionRow).where(
                    DealerSessionRow.table_id == table.id,
                    DealerSessionRow.token_hash == token_hash(dealer_token),
                )
            )
            self.store.audit(session, table, "dealer", "logout", None, client, "")

    def is_dealer(self, code: str, token: str) -> bool:
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            return bool(token) and self.store.dealer_session(session, table, token)

    # -- seats ---------------------------------------------------------------------------------

    def admit_player(
        self, code: str, dealer_token: str, name: str, balance: str | Decimal, reason: str = ""
    ) -> str:
        """Seat a player with their buy-in (a ledger posting); returns the new seat code."""
        player_name = check_text(check_name(name), "name", MAX_NAME)
        why = check_text(reason, "reason", MAX_REASON, required=False) or "buy-in"
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            self.store.still_open(table)
            amount = Decimal(0)
            if table.kind == "betting":
                amount = parse_stake(balance)
                if amount < 0:
                    raise BetError(
                        Message(
                            N_("A balance cannot be negative: {amount}."),
                            amount=format_amount(amount),
                        )
                    )
                if amount:
                    check_chips(amount, stored_paytable(table.paytable_toml).chip)
            seated = session.scalars(
                select(TablePlayerRow.name).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.released_at.is_(None)
                )
            ).all()
            check_new_name(player_name, seated)  # nor one alike: a cash-out by name is sure
            player = session.scalars(
                select(TablePlayerRow).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.name == player_name
                )
            ).one_or_none()
            if player is None:
                player = TablePlayerRow(
                    table_id=table.id, name=player_name, admitted_at=self.store.now()
                )
                session.add(player)
                session.flush()
            player.released_at, player.admitted_at = None, self.store.now()
            seat = self._new_seat(session, table, player)
            current = self.store.current(session, table)
            rnd = Round.loads(current.record) if current and current.status == "open" else None
            if amount:
                self.cashier.move_chips(session, table, player, amount, "buy-in", why, rnd, current)
            elif rnd is not None and rnd.balances is not None and rnd.bets_open:
                rnd.balances[player_name] = Decimal(0)  # seated while bets are open
                assert current is not None
                current.record = rnd.dumps()
            self.store.audit(
                session, table, "dealer", "admit", None,
                f"{player_name}={format_amount(amount)}", why,
            )  # fmt: skip
            return seat

    def _new_seat(self, session: Session, table: ClubTableRow, player: TablePlayerRow) -> str:
        """A fresh seat code for *player* (only its hash is kept)."""
        while True:
            seat = "".join(secrets.choice(CODE_ALPHABET) for _ in range(_SEAT_LENGTH))
            hashed = token_hash(f"{table.code}:{seat}")
            taken = session.scalars(
                select(TablePlayerRow.id).where(
                    TablePlayerRow.table_id == table.id, TablePlayerRow.seat_code_hash == hashed
                )
            ).first()
            if taken is None:
                player.seat_code_hash = hashed
                return seat_code_text(seat)

    def join(self, code: str, seat_code: str, client: str = LOCAL) -> str:
        """A phone takes the seat whose code it was given; returns the player's secret token."""
        key = _seat_key(seat_code)
        with self.store.transactions.write() as session:
            table = self.store.table(session, code)
            self.store.still_open(table)
            attempt = reserve_attempt(
                session, "join", table.id, client, self.store.now(), self.limits
            )
            player = None
            if 0 < len(key) <= 2 * _SEAT_LENGTH:
                player = session.scalars(
                    select(TablePlayerRow).where(
                        TablePlayerRow.table_id == table.id,
                        TablePlayerRow.seat_code_hash == token_hash(f"{table.code}:{key}"),
                        TablePlayerRow.released_at.is_(None),
                    )
                ).one_or_none()
            free = player is not None and player.token_hash is None
            finish_attempt(session, attempt, free)  # a code in use is no seat taken: counted
            if player is None:
                self.store.transactions.unseen(
                    session, table
                )  # a wrong code, counted: no change of the table
                refusal = Message(
                    N_(
                        "The seat code '{seat}' is not right for table {code}: check it, or ask"
                        " the dealer for a new one."
                    ),
                    seat=seat_code[:20].strip() or "—",
                    code=table.code,
                )
            elif not free:
                refusal = Message(IN_USE)
                self.store.audit(session, table, player.name, JOIN_REFUSED, None, client, "in use")
            else:
                token = secrets.token_urlsafe(24)
                player.token_hash = token_hash(token)  # the code is kept: to say it is in use
                self.store.audit(session, table, player.name, "join", None, client, "")
                return token
        raise AccessError(refusal)  # after the commit: the failed attempt is counted

    def seats_in_use(self, code: str, dealer_token: str) -> list[str]:
        """The seated players whose seat code was tried on another device since their phone
        joined (the audit log says so): the dealer may sign that device out with a new
        seat code (:meth:`reissue_seat`)."""
        with self.store.transactions.read() as session:
            table = self.store.dealer(session, code, dealer_token, lock=False)
            rows = session.execute(
                select(AuditRow.action, AuditRow.actor, AuditRow.new_value)
                .where(AuditRow.table_id == table.id)
                .where(AuditRow.action.in_(("join", JOIN_REFUSED, "reissue", "release")))
                .order_by(AuditRow.id)
            ).all()
            seated = set(
                session.scalars(
                    select(TablePlayerRow.name).where(
                        TablePlayerRow.table_id == table.id,
                        TablePlayerRow.released_at.is_(None),
                        TablePlayerRow.token_hash.is_not(None),
                    )
                )
            )
        tried: dict[str, bool] = {}
        for action, actor, new_value in rows:  # the dealer's rows name the player after
            name = actor if action in ("join", JOIN_REFUSED) else str(new_value)
            tried[name] = action == JOIN_REFUSED
        return [name for name, refused in tried.items() if refused and name in seated]

    def reissue_seat(self, code: str, dealer_token: str, name: str, reason: str = "") -> str:
        """A new seat code for a player; the device that held the seat is signed out."""
        why = check_text(reason, "reason", MAX_REASON, required=False)
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            self.store.still_open(table)
            player = self.store.admitted(session, table, name)
            if player.token_hash is not None:
                player.previous_token_hash = player.token_hash
            player.token_hash = None
            seat = self._new_seat(session, table, player)
            self.store.audit(session, table, "dealer", "reissue", None, player.name, why)
            return seat

    def release_seat(self, code: str, dealer_token: str, name: str, reason: str = "") -> Decimal:
        """The player leaves: their chips are cashed out and the seat is freed (the amount)."""
        why = check_text(reason, "reason", MAX_REASON, required=False) or "seat released"
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            player = self.store.admitted(session, table, name)
            current = self.store.current(session, table)
            rnd = None
            if current is not None and current.status != "settled":
                rnd = Round.loads(current.record)
                if has_acted(rnd, player.name):
                    raise ActionError(
                        Message(
                            N_(
                                "{player} has bets in round {n}: release the seat after it is settled."
                            ),
                            player=player.name,
                            n=current.number,
                        )
                    )
            balance = self.store.balances(session, table).get(player.name, Decimal(0))
            if balance:
                self.cashier.move_chips(
                    session, table, player, -balance, "cash-out", why, rnd, current
                )
            if player.token_hash is not None:
                player.previous_token_hash = player.token_hash
            player.token_hash = player.seat_code_hash = None
            player.released_at = self.store.now()
            self.store.audit(
                session, table, "dealer", "release", format_amount(balance), player.name, why
            )
            return balance

    def close_table(self, code: str, dealer_token: str, reason: str = "") -> None:
        """Close the table for the night (the dealer; audited): no round, bet, seat or join
        after it, while the cashier still cashes the players out (their chips stay on their
        balances until then, and the ledger sums to zero). Refused while a round is not
        settled, and if the table is closed already."""
        why = check_text(reason, "reason", MAX_REASON, required=False) or "closed"
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            self.store.still_open(table)
            self.store.settled_last(
                session,
                table,
                N_("Round {n} is not settled: settle it (or void it), then close the table."),
            )
            table.closed_at = self.store.now()
            left = sum(self.store.balances(session, table).values(), Decimal(0))
            self.store.audit(session, table, "dealer", "close", None, format_amount(left), why)
            self.store.transactions.changed(session, table, TABLE_CLOSED)

    def player_name(self, code: str, token: str) -> str:
        with self.store.transactions.read() as session:
            return self.store.player(
                session, self.store.table(session, code, lock=False), token
            ).name

    def change_paytable(
        self, code: str, dealer_token: str, paytable: Paytable, reason: str
    ) -> None:
        """A new paytable from the next round on (a round open now settles at its own pays),
        written to the audit log with the round it applies from (a TOML comment above it)."""
        if not reason.strip():
            raise ParameterError(Message(N_("Give a reason for changing the paytable.")))
        why = check_text(reason, "reason", MAX_REASON)
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            self.store.still_open(table)
            current = self.store.current(session, table)
            applies = f"# from round {current.number + 1 if current is not None else 1}\n"
            old = table.paytable_toml
            table.paytable_toml = paytable.to_toml()
            self.store.audit(
                session, table, "dealer", "paytable", old, applies + table.paytable_toml, why
            )
