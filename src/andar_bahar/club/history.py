"""A club table's history, read only: its settled rounds, the house's ledger, the sign-ins.

What the hold report and the shuffle check read (:mod:`andar_bahar.reports.hold`,
:mod:`andar_bahar.chance.shuffle_check`), in three queries and one read transaction:

- the settled rounds opened within the span asked for, with their exact records — the
  rules and paytable of each round, its bets and their settlement, the centre card and the
  first dealt card, whether a bet came after the centre card, whether a real deck was
  dealt (no deck stored, no commitment);
- the house's ledger postings of those rounds, added up per round by the database;
- the dealer's sign-ins (and the table's creation) from the audit log.

Nothing is written; a record is read as stored (``history verify`` replays records).

>>> from andar_bahar.storage import Storage
>>> with Storage.open("sqlite://") as storage:
...     read_club_history(storage, "NONE")
Traceback (most recent call last):
...
andar_bahar.storage.records.StorageError: There is no table with the code NONE: check the code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from andar_bahar.club.values import stored_paytable, stored_procedure
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.cards import Card
from andar_bahar.engine.paytables import Paytable
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.reports.hold import ClubRound, SignIn
from andar_bahar.storage import READ_ONLY_OPTION, Storage, StorageError
from andar_bahar.storage.models import AuditRow, ClubTableRow, LedgerRow, TableRoundRow

__all__ = ["ClubHistory", "read_club_history"]

_BETS = ("bet", "change", "withdraw")


@dataclass(frozen=True, slots=True)
class ClubHistory:
    """A table's settled rounds in a span (oldest first), and the dealer's sign-ins."""

    code: str
    name: str
    kind: str
    procedure: Procedure
    paytable: Paytable
    """The paytable in force now (the shuffle check's bands)."""
    rounds: tuple[ClubRound, ...]
    sign_ins: tuple[SignIn, ...]


def read_club_history(
    storage: Storage, code: str, *, start: datetime | None = None, end: datetime | None = None
) -> ClubHistory:
    """Table *code*'s settled rounds opened at or after *start* and before *end* (UTC)."""
    engine = storage.engine.execution_options(**{READ_ONLY_OPTION: True})
    with Session(engine) as session, session.begin():
        table = session.scalars(
            select(ClubTableRow).where(ClubTableRow.code == code.strip().upper())
        ).one_or_none()
        if table is None or "\x00" in code:
            raise StorageError(
                Message(N_("There is no table with the code {code}: check the code."), code=code)
            )
        span = [TableRoundRow.table_id == table.id, TableRoundRow.status == "settled"]
        if start is not None:
            span.append(TableRoundRow.opened_at >= start)
        if end is not None:
            span.append(TableRoundRow.opened_at < end)
        kept = dict(
            session.execute(
                select(LedgerRow.round_id, func.sum(LedgerRow.amount))
                .join(TableRoundRow, LedgerRow.round_id == TableRoundRow.id)
                .where(LedgerRow.player_id.is_(None), *span)
                .group_by(LedgerRow.round_id)
            ).all()
        )
        rows = session.execute(
            select(
                TableRoundRow.id,
                TableRoundRow.number,
                TableRoundRow.record,
                TableRoundRow.commitment,
                TableRoundRow.winner,
                TableRoundRow.cards_dealt,
                TableRoundRow.opened_at,
            )
            .where(*span)
            .order_by(TableRoundRow.number)
        ).all()
        rounds = tuple(
            _club_round(number, record, commitment, winner, dealt or 0, opened, kept.get(i))
            for i, number, record, commitment, winner, dealt, opened in rows
        )
        audit = session.execute(
            select(AuditRow.action, AuditRow.new_value, AuditRow.reason, AuditRow.created_at)
            .where(AuditRow.table_id == table.id, AuditRow.action.in_(("create", "login")))
            .order_by(AuditRow.id)
        ).all()
        sign_ins = tuple(
            SignIn(at, (reason if action == "create" else new) or "")
            for action, new, reason, at in audit
        )
        return ClubHistory(
            table.code,
            table.name,
            table.kind,
            stored_procedure(table.procedure_json),
            stored_paytable(table.paytable_toml),
            rounds,
            sign_ins,
        )


def _club_round(
    number: int,
    record: str,
    commitment: str | None,
    winner: str | None,
    dealt: int,
    opened: datetime,
    ledger: Decimal | None,
) -> ClubRound:
    """A round from its stored record (read, not replayed)."""
    data: Mapping[str, Any] = json.loads(record)
    procedure = stored_procedure(json.dumps(data["procedure"], sort_keys=True))
    operations: Sequence[Mapping[str, Any]] = data.get("operations", [])
    kinds = [op.get("op") for op in operations]
    centre_at = kinds.index("centre") if "centre" in kinds else None
    centre = Card.parse(str(operations[centre_at]["card"])) if centre_at is not None else None
    first_card = next(
        (Card.parse(str(op["card"])) for op in operations if op.get("op") == "deal"), None
    )
    paid: Sequence[Mapping[str, Any]] = next(
        (op.get("paid", []) for op in operations if op.get("op") == "settle"), []
    )
    after = centre_at is not None and any(k in _BETS for k in kinds[centre_at + 1 :])
    wagers = tuple(
        Wager(str(b["player"]), Bet.parse(str(b["bet"])), Decimal(str(b["stake"]))) for b in paid
    )
    return ClubRound(
        number=number,
        opened_at=opened,
        real_deck="deck" not in data and commitment is None,
        procedure=procedure,
        paytable=stored_paytable(str(data["paytable"])),
        centre=centre,
        first_row=procedure.first_row(centre=centre, first_card=first_card),
        winner=Row(winner) if winner in ("andar", "bahar") else None,
        cards_dealt=dealt,
        wagers=wagers,
        returned=tuple(Decimal(str(b["returned"])) for b in paid),
        bet_after_centre=after,
        ledger=Decimal(ledger) if ledger is not None else Decimal(0),
    )
