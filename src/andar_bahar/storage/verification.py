"""Replay check: re-run the engine on every stored round and compare what was paid.

Every round record holds its procedure, its paytable (the whole table, so the
version in force), the engine version that played it, its deck, every
operation, and — once settled — what was paid for every bet. :func:`verify`
replays each record through the state machine of the current engine,
recomputes the settlement, and reports any difference: with the record's own
"paid" list, and for the club table with the ledger entries of the round.

>>> from andar_bahar.storage import Storage
>>> verify(Storage.open("sqlite://")).checked
0
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from andar_bahar._version import __version__
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.money import as_decimal, format_amount
from andar_bahar.engine.round import Round, settlement_to_list
from andar_bahar.i18n.messages import N_, Message, Translator
from andar_bahar.storage import Storage
from andar_bahar.storage.models import (
    ClubTableRow,
    LedgerRow,
    RoundRow,
    TablePlayerRow,
    TableRoundRow,
)

__all__ = ["Discrepancy", "VerifyReport", "verify"]


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """One stored round whose replay does not give what was stored."""

    where: Message
    """``history round 12`` or ``table K7Q2MX round 3``."""
    problem: Message

    def localized(self, translator: Translator | None) -> str:
        return f"{self.where.localized(translator)}: {self.problem.localized(translator)}"


@dataclass(slots=True)
class VerifyReport:
    checked: int = 0
    engines: set[str] = field(default_factory=set)
    discrepancies: list[Discrepancy] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.discrepancies


def verify(storage: Storage) -> VerifyReport:
    """Replay every stored round of *storage* and compare its settlement."""
    report = VerifyReport()
    with Session(storage.engine) as session:
        for where, record, ledger in _records(session):
            report.checked += 1
            _check(where, record, ledger, report)
    return report


def _records(session: Session) -> Iterator[tuple[Message, str, dict[str, Decimal] | None]]:
    for row in session.scalars(select(RoundRow).order_by(RoundRow.id)):
        yield Message(N_("history round {id}"), id=row.id), row.record, None
    tables = {t.id: t.code for t in session.scalars(select(ClubTableRow))}
    players = {p.id: p.name for p in session.scalars(select(TablePlayerRow))}
    for table_round in session.scalars(
        select(TableRoundRow).where(TableRoundRow.status == "settled").order_by(TableRoundRow.id)
    ):
        nets: dict[str, Decimal] = {}
        for entry in session.scalars(select(LedgerRow).where(LedgerRow.round_id == table_round.id)):
            account = players.get(entry.player_id, "") if entry.player_id is not None else "house"
            nets[account] = nets.get(account, Decimal(0)) + entry.amount
        where = Message(
            N_("table {code} round {n}"),
            code=tables.get(table_round.table_id, "?"),
            n=table_round.number,
        )
        yield where, table_round.record, nets


def _check(
    where: Message, record: str, ledger: dict[str, Decimal] | None, report: VerifyReport
) -> None:
    try:
        data = json.loads(record)
        report.engines.add(str(data.get("engine", "0.1.0")))
        paid = next(
            (op.get("paid") for op in data.get("operations", []) if op.get("op") == "settle"), None
        )
        rnd = Round.loads(record)
    except (AndarBaharError, ValueError, KeyError, TypeError) as error:
        report.discrepancies.append(
            Discrepancy(where, Message(N_("the record cannot be replayed: {reason}"), reason=error))
        )
        return
    if rnd.settlement is None:
        return
    recomputed = settlement_to_list(rnd.settlement)
    if paid is not None and paid != recomputed:
        report.discrepancies.append(
            Discrepancy(
                where,
                Message(
                    N_("the stored settlement {stored} differs from the replay {replay}"),
                    stored=_brief(paid),
                    replay=_brief(recomputed),
                ),
            )
        )
    if ledger is not None:
        expected: dict[str, Decimal] = {}
        for bet in rnd.settlement.bets:
            expected[bet.player] = expected.get(bet.player, Decimal(0)) + bet.net
        house = -sum(expected.values(), Decimal(0))
        found = {k: as_decimal(v) for k, v in ledger.items() if k != "house"}
        want = {k: as_decimal(v) for k, v in expected.items()}
        if found != want or as_decimal(ledger.get("house", Decimal(0))) != as_decimal(house):
            report.discrepancies.append(
                Discrepancy(
                    where,
                    Message(
                        N_("the ledger {ledger} differs from the replay {replay}"),
                        ledger=_amounts(ledger),
                        replay=_amounts({**want, "house": house}),
                    ),
                )
            )


def _brief(bets: list[dict[str, str]]) -> str:
    return (
        "; ".join(f"{b['player']} {b['bet']} {b['stake']} → {b['returned']}" for b in bets) or "—"
    )


def _amounts(amounts: dict[str, Decimal]) -> str:
    return ", ".join(f"{k} {format_amount(v)}" for k, v in sorted(amounts.items())) or "—"


_ = __version__
