"""The cashier: buy-ins, top-ups and cash-outs as ledger postings, and the night's statement.

Every change of a balance is two postings, the player's and the house's opposite one, so
that every round and every cash movement sums to zero; :func:`check_balanced` checks that
in the same transaction (and on PostgreSQL a deferred constraint trigger checks it again
at commit). Amounts are kept as whole millionths of a chip (see
:class:`~andar_bahar.storage.models.Micros`).

:class:`Cashier` is a part of :class:`~andar_bahar.club.service.TableService`; each method
is one transaction.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import cast

from sqlalchemy import Table, func, insert, select
from sqlalchemy.orm import Session

from andar_bahar.club.limits import MAX_REASON, check_chips, check_text
from andar_bahar.club.store import Store, ledger_sum
from andar_bahar.club.values import stored_paytable
from andar_bahar.engine.errors import ActionError, BetError
from andar_bahar.engine.money import Amount, as_decimal, format_amount, parse_stake
from andar_bahar.engine.names import printable
from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import (
    AuditRow,
    ClubTableRow,
    LedgerRow,
    TablePlayerRow,
    TableRoundRow,
)

__all__ = [
    "Cashier",
    "PlayerStatement",
    "Posting",
    "Statement",
    "check_balanced",
    "player_account",
    "post",
    "post_all",
]


def post(
    session: Session,
    table: ClubTableRow,
    player: TablePlayerRow,
    amount: Decimal,
    kind: str,
    reason: str,
    now: datetime,
) -> None:
    """Post *amount* to *player*'s balance and the opposite to the house's (a cash movement:
    outside any round; a round's postings go through :func:`post_all`)."""
    for player_id, posted, text in (
        (player.id, amount, reason),
        (None, -amount, f"{player.name}: {reason}"),
    ):
        session.add(
            LedgerRow(
                table_id=table.id,
                player_id=player_id,
                amount=as_decimal(posted),
                kind=kind,
                reason=text,
                created_at=now,
            )
        )


LEDGER = cast(Table, LedgerRow.__table__)


def post_all(
    session: Session,
    table: ClubTableRow,
    entries: Iterable[tuple[int, str, Decimal, str, str]],
    now: datetime,
    round_id: int | None = None,
) -> None:
    """:func:`post` of many (player id, player name, amount, kind, reason) at once: one
    INSERT of all the rows, in the same order, without an ORM object each (a settlement
    posts every stake and return of the round). The caller names its change."""
    rows: list[dict[str, object]] = []
    for player_id, name, amount, kind, reason in entries:
        common = {"table_id": table.id, "round_id": round_id, "kind": kind, "created_at": now}
        rows.append({**common, "player_id": player_id, "amount_micros": as_decimal(amount),
                     "reason": reason})  # fmt: skip
        rows.append({**common, "player_id": None, "amount_micros": as_decimal(-amount),
                     "reason": f"{name}: {reason}"})  # fmt: skip
    if rows:  # the table's own INSERT, many rows at once (no ids fetched back)
        session.connection().execute(insert(LEDGER), rows)


def check_balanced(session: Session, table: ClubTableRow, round_id: int | None = None) -> None:
    """Refuse (roll back) a transaction after which a round or the table does not sum to zero."""
    session.flush()
    scopes = [LedgerRow.table_id == table.id]
    if round_id is not None:
        scopes.append(LedgerRow.round_id == round_id)
    for scope in scopes:
        total = ledger_sum(session, scope)
        if total != 0:
            raise ActionError(
                Message(
                    N_("The ledger of table {code} would not sum to zero ({total}): refused."),
                    code=table.code,
                    total=Amount(total),
                )
            )


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of the statement: a change of a player's balance."""

    at: datetime
    player: str
    kind: str
    round: int | None
    amount: Decimal
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerStatement:
    """A player's night: chips bought, topped up, cashed out, won and lost, and what is left."""

    name: str
    bought_in: Decimal
    topped_up: Decimal
    cashed_out: Decimal
    staked: Decimal
    returned: Decimal
    balance: Decimal
    released: bool

    @property
    def result(self) -> Decimal:
        """What the player won (positive) or lost at the table: returns less stakes."""
        return as_decimal(self.returned - self.staked)


@dataclass(frozen=True, slots=True)
class Statement:
    """The end-of-night statement of a table: per player, the totals, every posting."""

    code: str
    name: str
    players: tuple[PlayerStatement, ...]
    postings: tuple[Posting, ...]
    rounds_settled: int

    @property
    def house_result(self) -> Decimal:
        """What the house won at the table (the players' results, the other way round)."""
        return as_decimal(-sum((p.result for p in self.players), Decimal(0)))

    @property
    def chips_out(self) -> Decimal:
        """Chips still in the players' hands (their balances)."""
        return as_decimal(sum((p.balance for p in self.players), Decimal(0)))

    def csv(self) -> str:
        """Every posting as CSV (time, player, kind, round, amount, reason), then the totals."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["time", "player", "kind", "round", "amount", "reason"])
        for p in self.postings:
            writer.writerow(
                [p.at.isoformat(), _safe_cell(p.player), p.kind, p.round or "",
                 format_amount(p.amount), _safe_cell(p.reason)]
            )  # fmt: skip
        writer.writerow([])
        writer.writerow(
            ["player", "bought in", "topped up", "cashed out", "staked", "returned", "balance"]
        )
        for s in self.players:
            writer.writerow(
                [_safe_cell(s.name), *(format_amount(v) for v in (s.bought_in, s.topped_up, s.cashed_out,
                 s.staked, s.returned, s.balance))]
            )  # fmt: skip
        return out.getvalue()


def player_account(name: str, by_kind: Mapping[str, Decimal], *, released: bool) -> PlayerStatement:
    """A player's line of the statement from the sums of their ledger postings by kind.

    >>> line = player_account("Asha", {"buy-in": Decimal(500), "stake": Decimal(-100),
    ...                                "return": Decimal(190)}, released=False)
    >>> line.balance, line.result, line.staked
    (Decimal('590'), Decimal('90'), Decimal('100'))
    """

    def total(kind: str, sign: int = 1) -> Decimal:
        value = by_kind.get(kind, Decimal(0))
        return as_decimal(sign * value) if value else Decimal(0)

    return PlayerStatement(
        name=name,
        bought_in=total("buy-in"),
        topped_up=total("top-up"),
        cashed_out=total("cash-out", -1),
        staked=total("stake", -1),
        returned=total("return"),
        balance=as_decimal(sum(by_kind.values(), Decimal(0))),
        released=released,
    )


def _safe_cell(text: str) -> str:
    """A cell of names or words that a spreadsheet will not run as a formula (OWASP).

    >>> _safe_cell("=1+1"), _safe_cell("-2+3"), _safe_cell("Asha")
    ("'=1+1", "'-2+3", 'Asha')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def has_acted(rnd: Round, name: str) -> bool:
    """Whether *name* has bet (or placed a marker) in *rnd*."""
    return any(getattr(op, "player", None) == name for op in rnd.operations)


class Cashier:
    """Chips in and out at the dealer's hand, and the statement of the night."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def top_up(
        self, code: str, dealer_token: str, name: str, amount: str | Decimal, reason: str = ""
    ) -> Decimal:
        """More chips for a seated player (a ledger posting); returns the new balance."""
        return self._cash(code, dealer_token, name, amount, reason, "top-up")

    def cash_out(
        self, code: str, dealer_token: str, name: str, amount: str | Decimal, reason: str = ""
    ) -> Decimal:
        """Chips back to the cashier (a ledger posting); returns the new balance."""
        return self._cash(code, dealer_token, name, amount, reason, "cash-out")

    def _cash(
        self, code: str, token: str, name: str, amount: str | Decimal, reason: str, kind: str
    ) -> Decimal:
        why = check_text(reason, "reason", MAX_REASON, required=False) or kind
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, token)
            if kind == "top-up":
                self.store.still_open(table)
            player = self._seated(session, table, name)
            value = check_chips(parse_stake(amount), stored_paytable(table.paytable_toml).chip)
            balance = self.store.balances(session, table)[player.name]
            current = self.store.current(session, table)
            rnd = None
            if current is not None and current.status != "settled":
                rnd = Round.loads(current.record)
            if kind == "cash-out":
                if rnd is not None and has_acted(rnd, player.name):
                    raise ActionError(
                        Message(
                            N_("{player} has bets in round {n}: cash out after it is settled."),
                            player=player.name,
                            n=current.number if current else 0,
                        )
                    )
                if value > balance:
                    raise BetError(
                        Message(
                            N_("{player} has {balance} chips: {amount} cannot be cashed out."),
                            player=player.name,
                            balance=Amount(balance),
                            amount=Amount(value),
                        )
                    )
            signed = value if kind == "top-up" else -value
            self.move_chips(session, table, player, signed, kind, why, rnd, current)
            self.store.audit(
                session, table, "dealer", kind, format_amount(balance),
                format_amount(balance + signed), f"{player.name}: {why}",
            )  # fmt: skip
            return as_decimal(balance + signed)

    def move_chips(
        self,
        session: Session,
        table: ClubTableRow,
        player: TablePlayerRow,
        amount: Decimal,
        kind: str,
        reason: str,
        rnd: Round | None,
        current: TableRoundRow | None,
    ) -> None:
        """Post a cash movement; an open round's balance follows while bets are open."""
        post(session, table, player, amount, kind, reason, self.store.now())
        check_balanced(session, table)
        if rnd is None or current is None or rnd.balances is None:
            return
        betting = rnd.bets_open and current.status == "open"
        if player.name in rnd.balances and (betting or amount < 0):
            rnd.balances[player.name] = as_decimal(rnd.balances[player.name] + amount)
        elif betting:  # seated while bets are open: may bet at once
            rnd.balances[player.name] = as_decimal(amount)
        else:
            return
        current.record = rnd.dumps()

    def _seated(self, session: Session, table: ClubTableRow, name: str) -> TablePlayerRow:
        """The player called *name* at a betting table (chips move only there)."""
        if table.kind != "betting":
            raise ActionError(Message(N_("A teaching table plays without chips.")))
        return self.store.admitted(session, table, name)

    # -- the statement ---------------------------------------------------------------------

    def statement(self, code: str, dealer_token: str) -> Statement:
        """The night's statement of the table, for its dealer (a read: it never waits for
        the writer, whoever asks)."""
        with self.store.transactions.read() as session:
            return self._statement(
                session, self.store.dealer(session, code, dealer_token, lock=False)
            )

    def statement_local(self, code: str) -> Statement:
        """The statement for someone at the server itself (``andar-bahar history statement``)."""
        with self.store.transactions.read() as session:
            return self._statement(session, self.store.table(session, code, lock=False))

    def _statement(self, session: Session, table: ClubTableRow) -> Statement:
        players = session.scalars(
            select(TablePlayerRow)
            .where(TablePlayerRow.table_id == table.id)
            .order_by(TablePlayerRow.id)
        ).all()
        names = {p.id: printable(p.name) for p in players}  # never a name printed backwards
        sums: dict[int, dict[str, Decimal]] = {p.id: {} for p in players}
        postings: list[Posting] = []
        rows = session.execute(
            select(LedgerRow, TableRoundRow.number)
            .outerjoin(TableRoundRow, LedgerRow.round_id == TableRoundRow.id)
            .where(LedgerRow.table_id == table.id, LedgerRow.player_id.is_not(None))
            .order_by(LedgerRow.id)
        ).all()
        for row, number in rows:
            assert row.player_id is not None
            by_kind = sums[row.player_id]
            by_kind[row.kind] = by_kind.get(row.kind, Decimal(0)) + row.amount
            postings.append(
                Posting(row.created_at, names[row.player_id], row.kind, number, row.amount,
                        printable(row.reason))
            )  # fmt: skip
        statements = tuple(
            player_account(names[p.id], sums[p.id], released=p.released_at is not None)
            for p in players
        )
        settled = session.scalar(
            select(func.count())
            .select_from(TableRoundRow)
            .where(TableRoundRow.table_id == table.id, TableRoundRow.status == "settled")
        )
        return Statement(table.code, table.name, statements, tuple(postings), int(settled or 0))

    # -- the audit log -------------------------------------------------------------------------

    def audit_local(self, code: str) -> list[AuditRow]:
        """The audit log for someone at the server itself (``andar-bahar history audit``)."""
        with self.store.transactions.read() as session:
            table = self.store.table(session, code, lock=False)
            return list(
                session.scalars(
                    select(AuditRow).where(AuditRow.table_id == table.id).order_by(AuditRow.id)
                )
            )
