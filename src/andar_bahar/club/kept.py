"""What the club tables' store keeps in memory, with each table's version.

:class:`Kept` is the :class:`~andar_bahar.club.store.Store`'s memory. What is read over
and over is kept with the table's **version** (one more for every change, in the same
transaction): the open round and its row (so a bet or a card is neither a read nor a
replay of the round from its first step), its record as text (written again with one
more step, :class:`RecordText`), what a page may see of it, and the whole table as its
dealer sees it. Each is used only while the version in the database is the one it was
kept at (:meth:`Kept.version_of`: one indexed read) — so a change made by another
process, or a transaction that failed half-way, is never missed.

On PostgreSQL a change of the open round alone made by another process is not read
again either: its event carries the round's new steps (:meth:`Kept.steps`), and a process
that keeps the table at the version before replays them into what it keeps
(:meth:`Kept.follow`) — anything else is read again when it is next asked for.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import bindparam, inspect, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from andar_bahar.club.events import RoundSteps, TableEvent, compact
from andar_bahar.club.transactions import (
    BEFORE,
    CHANGES,
    DIRTY,
    KEEPING,
    ROUNDS,
    TABLES,
    Change,
    Transactions,
)
from andar_bahar.club.values import (
    PublicRound,
    RoundSummary,
    SettledRound,
    TableSnapshot,
    public_round,
    settled_bets,
    settled_round,
)
from andar_bahar.engine.cards import Card
from andar_bahar.engine.money import as_decimal
from andar_bahar.engine.operations import operation_to_dict
from andar_bahar.engine.round import Round
from andar_bahar.engine.round_records import replay
from andar_bahar.storage.models import ClubTableRow, TableRoundRow

__all__ = ["FORWARDED", "RECORDS_KEPT", "ROUND_ONLY", "Kept", "RecordText"]

log = logging.getLogger(__name__)
_Entry = TypeVar("_Entry", bound=tuple[Any, ...])

ROUND_ONLY = frozenset({"bet", "marker", "close", "centre", "target", "deal", "void", "timer"})
"""Changes of the open round alone: no balance, player, paytable or other round changes."""
FORWARDED = ROUND_ONLY - {"timer"}
"""The changes whose events carry their steps (:meth:`Kept.steps`): they write the round's
record (and, as it finishes, its status and result) and the table's version, nothing
else that is kept (a timer writes the round's deadline too)."""


SAVE_RECORD = (
    update(TableRoundRow)
    .where(TableRoundRow.id == bindparam("row_id"))
    .values(record=bindparam("new_record"))
)
SAVE_FINISHED = SAVE_RECORD.values(
    status=bindparam("new_status"),
    winner=bindparam("new_winner"),
    cards_dealt=bindparam("new_cards_dealt"),
)
"""A round's record written again (and, as it finishes, its status and result)."""

RECORDS_KEPT = 256
"""Rounds whose record text is kept ready to be written again: the open ones (a settled
round's goes as its settlement commits: it is never written again), at most this many."""


class RecordText:
    """A round's record as compact JSON — ``Round.to_dict()``, as :meth:`Round.loads` reads
    it — written again after each step without writing it all again: the rules, the
    paytable, the deck and each operation already written are kept as text (a round's
    operations are only ever added to)."""

    def __init__(self, rnd: Round) -> None:
        self.rnd = rnd
        self.head = ""
        self.done: list[object] = []
        self.parts: list[str] = []
        self._start()

    def _start(self) -> None:
        data = self.rnd.to_dict()
        operations = data.pop("operations")
        head = compact(data)
        self.head = head[:-1] + (',"operations":[' if len(head) > 2 else '"operations":[')
        self.done = list(self.rnd.operations)
        self.parts = [compact(op) for op in operations]

    def text(self) -> str:
        operations = self.rnd.operations
        done = self.done
        if len(operations) < len(done) or any(
            a is not b for a, b in zip(done, operations, strict=False)
        ):
            self._start()  # not only added to: all of it again
        for op in operations[len(self.done) :]:
            self.done.append(op)
            self.parts.append(compact(operation_to_dict(op)))
        return self.head + ",".join(self.parts) + "]}"


class Kept:
    """The rounds and tables kept in memory, each with the table's version.

    It keeps what the :class:`~andar_bahar.club.transactions.Transactions` it is given
    commit (each kept once its transaction has committed, never before).
    """

    def __init__(self, transactions: Transactions) -> None:
        self.transactions = transactions
        # table id → (version, its row): see kept_table.
        self._tables: dict[int, tuple[int, ClubTableRow]] = {}
        # table id → (version, round id, round[, its row]): see round_of and public_of.
        self._rounds: dict[int, tuple[int, int, Round, TableRoundRow]] = {}
        self._publics: dict[int, tuple[int, int, PublicRound]] = {}
        # (table id, rounds) → the table as its dealer sees it, its last rounds (its version
        # is the state's).
        self.snapshots: dict[tuple[int, int], TableSnapshot] = {}
        self.ids: dict[str, int] = {}
        """A table's id by its code (codes are never reused), once its snapshot is read."""
        # Settled rounds never change: every bet's settlement, once read (players' histories),
        # for each table's last rounds its kept snapshots show (see settled_kept).
        self.paid: dict[int, tuple[Mapping[str, str], ...]] = {}
        self._settled_ids: dict[int, set[int]] = {}
        # round id → its record as text, ready to be written again with one more step.
        self._records: dict[int, RecordText] = {}
        self.rounds_paid: dict[int, SettledRound] = {}
        # Settled rounds never change: their centre card and markers, once read.
        self.centres: dict[int, Card | None] = {}
        self.markers: dict[int, dict[str, str]] = {}
        # A table's id and version by its code, in the driver's own words (the hot read).
        version_of = select(ClubTableRow.id, ClubTableRow.version).where(
            ClubTableRow.code == bindparam("code")
        )
        compiled = version_of.compile(dialect=self.transactions.peek.dialect)
        self._version_sql, self._version_positional = str(compiled), compiled.positional
        transactions.steps = self.steps

    def version_of(self, code: str) -> tuple[int, int] | None:
        """(id, version) of table *code*, or ``None``: one indexed read of one row, in a
        read transaction of its own (what decides whether what is kept is still good)."""
        with self.transactions.health.guard(), self.transactions.read_lock:
            raw = self.transactions.peek.raw_connection()  # one statement: no session, no ORM
            try:
                cursor = raw.cursor()
                key = code.strip().upper()
                cursor.execute(
                    self._version_sql, (key,) if self._version_positional else {"code": key}
                )
                found = cursor.fetchone()
                cursor.close()
            finally:
                raw.close()  # back to the pool (its transaction, if any, rolled back)
        return (int(found[0]), int(found[1])) if found is not None else None

    def release(self, code: str) -> int | None:
        """Let go of everything kept of table *code* — its row, its round and their texts,
        its snapshots, its round as pages see it, and its settled rounds' centres, markers
        and pays (read again when asked for); its id, if it was kept. A writer of the table
        at work now keeps what it holds (kept again when it commits)."""
        table_id = self.ids.pop(code.strip().upper(), None)
        if table_id is None:
            return None
        self._publics.pop(table_id, None)
        self._tables.pop(table_id, None)
        self._rounds.pop(table_id, None)
        for key in [k for k in list(self.snapshots) if k[0] == table_id]:
            self.snapshots.pop(key, None)
        with self.transactions.read() as session:  # its rounds: one indexed read
            rounds = session.scalars(
                select(TableRoundRow.id).where(TableRoundRow.table_id == table_id)
            ).all()
        self._settled_ids.pop(table_id, None)
        for round_id in rounds:
            for kept in (self.paid, self.rounds_paid, self.centres, self.markers, self._records):
                kept.pop(round_id, None)
        return table_id

    def settled_kept(self, table_id: int, round_ids: Iterable[int]) -> None:
        """Note that the settlements of table *table_id*'s rounds *round_ids* are kept
        (:attr:`paid`, :attr:`rounds_paid`), and let go of its older ones beyond the most
        rounds any of its kept snapshots shows: those are in the snapshots themselves, and
        an older one (a player's night, paged back) is read again when asked for — a
        settled round never changes. So a long night's rounds do not pile up in memory
        (26 KiB a round of 20 bets)."""
        kept = self._settled_ids.setdefault(table_id, set())
        kept.update(round_ids)
        shown = max((limit for tid, limit in list(self.snapshots) if tid == table_id), default=0)
        if len(kept) > shown:
            for old in sorted(kept)[: len(kept) - shown]:  # round ids grow with the night
                kept.discard(old)
                self.paid.pop(old, None)
                self.rounds_paid.pop(old, None)

    # -- the tables' rows kept in memory -----------------------------------------------

    def kept_table(self, session: Session, table_id: int, version: int) -> ClubTableRow | None:
        """The row of table *table_id* for this transaction, without reading it: the one this
        transaction holds already, or the one the last committed transaction of this process
        wrote, if the table is still at that *version* (just read, locked) — every change of
        a table adds one to its version, so its values are the database's. ``None``: read it.

        Taken out of memory until this transaction commits, and kept again then (not if a
        writer of its batch failed half-way: it may hold a rolled-back value).
        """
        present = session.identity_map.get(identity_key(ClubTableRow, (table_id,)))
        if isinstance(present, ClubTableRow):
            self.keep_table(session, present)
            return present
        kept = self._tables.pop(table_id, None)
        if kept is None or kept[0] != version or not inspect(kept[1]).detached:
            return None
        session.add(kept[1])  # detached → this transaction's, no read
        self.keep_table(session, kept[1])
        return kept[1]

    def keep_table(self, session: Session, table: ClubTableRow) -> None:
        """Once committed, keep *table*'s row at its new version (once per transaction)."""
        keeping: set[int] = session.info.setdefault(TABLES, set())
        if table.id in keeping:
            return
        keeping.add(table.id)

        def keep() -> None:
            state = inspect(table)
            if session.info.get(DIRTY) or state.expired_attributes or table.version is None:
                return
            known = self._tables.get(table.id)
            if known is None or known[0] <= table.version:
                self._tables[table.id] = (table.version, table)

        # Last: once kept, another thread's writer may take the row and change it (on
        # PostgreSQL the lock is gone by now), so this transaction's other steps read it first.
        self.transactions.on_commit(session, keep, last=True)

    # -- the rounds kept in memory -----------------------------------------------------

    def kept_round(
        self, session: Session, table: ClubTableRow
    ) -> tuple[TableRoundRow, Round] | None:
        """The table's last round and its row, as this process kept them at the table's
        current version (``None``: not kept, or kept at another version — read it).

        The row is the one the last committed transaction wrote (its values are the
        database's while the version is the same): it joins this transaction without
        a read, and is taken out of memory until this transaction commits — taken out
        first, then looked at (put back if it cannot be used): what :meth:`follow` takes out
        and puts back meanwhile is never a round this transaction is changing.
        """
        used: tuple[int, Round, TableRoundRow] | None = session.info.setdefault(ROUNDS, {}).get(
            table.id
        )
        if used is not None:  # an earlier step of this transaction's
            return used[2], used[1]
        kept = self._rounds.pop(table.id, None)
        if kept is None:
            return None
        row = kept[3]
        state = inspect(row)
        present = session.identity_map.get(state.key) if state.key is not None else None
        if kept[0] != table.version or (present is None and not state.detached):
            self._put_back(self._rounds, table.id, kept)  # another version, or still
            return None  # another session's: read it
        if present is None:
            session.add(row)  # detached → this transaction's, no read
            present = row
        self.keep_round(session, table, present, kept[2])
        return present, kept[2]

    def round_of(self, session: Session, table: ClubTableRow, row: TableRoundRow) -> Round:
        """The round stored in *row*, for this transaction to change (it locked *table*).

        From memory when this process kept it at the table's current version, else
        replayed from its record. It is taken out of memory for the transaction and
        put back only if the transaction commits: a failed step never leaves a
        half-changed round behind, and a change by another process (a higher
        version) is never missed.
        """
        used: tuple[int, Round, TableRoundRow] | None = session.info.setdefault(ROUNDS, {}).get(
            table.id
        )
        if used is not None and used[0] == row.id:  # an earlier step of this transaction's
            return used[1]
        kept = self._rounds.pop(table.id, None)
        if kept is not None and kept[0] == table.version and kept[1] == row.id:
            rnd = kept[2]
        else:
            rnd = Round.loads(row.record)
        self.keep_round(session, table, row, rnd)
        return rnd

    def keep_round(
        self, session: Session, table: ClubTableRow, row: TableRoundRow, rnd: Round
    ) -> None:
        """Once committed, keep *rnd* and its row (and what a page may see of it) at the new
        version (once per table, whatever the writers of a batch did)."""
        session.info.setdefault(ROUNDS, {})[table.id] = (row.id, rnd, row)
        keeping: set[int] = session.info.setdefault(KEEPING, set())
        if table.id in keeping:
            return
        keeping.add(table.id)
        session.info.setdefault(BEFORE, {})[table.id] = (row.id, len(rnd.operations))

        def keep() -> None:
            if session.info.get(DIRTY):  # a step of the batch failed half-way: read again
                return
            row_id, rnd, row = session.info[ROUNDS][table.id]
            version = table.version  # still this transaction's row (kept last, above)
            public = public_round(row, rnd)  # before the round is kept: then it is shared
            seen = self._publics.get(table.id)
            if seen is None or seen[0] <= version:
                self._publics[table.id] = (version, row_id, public)
            change = session.info.get(CHANGES, {}).get(table.id)
            if change is not None:
                self._moved_on(table.id, version, change.kinds, row, public)
            known = self._rounds.get(table.id)
            if known is None or known[0] <= version:
                self._rounds[table.id] = (version, row_id, rnd, row)
            if row.status == "settled":  # never written again: its record, deck and steps go
                self._records.pop(row_id, None)

        self.transactions.on_commit(session, keep)

    def _moved_on(
        self,
        table_id: int,
        version: int,
        kinds: Collection[str],
        row: TableRoundRow,
        public: PublicRound,
    ) -> None:
        """The table kept at the previous version, moved on by this process's own change:
        a change of the round alone, a round opened, or a round settled (its balances,
        its place in the last rounds and among the settled ones). Any other change, or
        a table not kept at the previous version, is read again when it is next asked for.
        """
        if ROUND_ONLY.issuperset(kinds):
            move = partial(_round_changed, public=public)
        elif list(kinds) == ["open"]:
            move = partial(_round_opened, public=public)
        elif list(kinds) == ["settle"] and _plain_win(public) and row.id in self._records:
            done = self.rounds_paid.get(row.id)
            if done is None:  # as Reads._settled reads it: once
                paid = self.paid[row.id] = settled_bets(self._records[row.id].text())
                done = self.rounds_paid[row.id] = settled_round(
                    public.number, row.winner, row.cards_dealt, paid
                )
            self.settled_kept(table_id, [row.id])
            move = partial(_round_settled, public=public, row=row, done=done)
        else:
            return
        for key in [k for k in list(self.snapshots) if k[0] == table_id]:
            kept = self.snapshots.get(key)  # None: released meanwhile (nobody follows it)
            if kept is not None and kept.state.version == version - 1:
                moved = move(kept, version, key[1])
                if moved is not None:
                    self.snapshots[key] = moved

    def public_of(self, table: ClubTableRow, row: TableRoundRow) -> PublicRound:
        """What a page may see of the round in *row* at the version read with *table*."""
        kept = self._publics.get(table.id)
        if kept is not None and kept[0] == table.version and kept[1] == row.id:
            return kept[2]
        public = public_round(row, Round.loads(row.record))
        if kept is None or kept[0] < table.version:
            self._publics[table.id] = (table.version, row.id, public)
        return public

    def save(self, session: Session, row: TableRoundRow, rnd: Round) -> None:
        """Write *rnd* into *row*: its record (see :class:`RecordText`), status and result.

        A row already in the database with nothing else changed is written by one UPDATE
        of its own, without the unit of work (a bet's hot path: :meth:`Transactions.update_row`).
        """
        values = self._written(row, rnd, self._record(row.id, rnd))
        statement = SAVE_RECORD if len(values) == 1 else SAVE_FINISHED
        bound = {f"new_{name}": value for name, value in values.items()}
        self.transactions.update_row(session, row, statement, {"row_id": row.id, **bound}, values)

    def _record(self, row_id: int, rnd: Round) -> RecordText:
        """The record of *rnd*, stored in row *row_id*, as text kept to be written again."""
        kept = self._records.get(row_id)
        if kept is None or kept.rnd is not rnd:
            kept = self._records[row_id] = RecordText(rnd)
            if len(self._records) > RECORDS_KEPT:
                # The oldest rounds' first, from a copy of the keys: another thread (a
                # writer, or the event loop following a step) may add or drop one meanwhile.
                for old in list(self._records)[:-RECORDS_KEPT]:
                    self._records.pop(old, None)
        return kept

    @staticmethod
    def _written(row: TableRoundRow, rnd: Round, record: RecordText) -> dict[str, object]:
        """What :meth:`save` writes of *rnd* into *row*: its *record*, and as it finishes
        its status and result."""
        values: dict[str, object] = {"record": record.text()}
        if rnd.finished and row.status == "open":
            result = rnd.result
            values["status"] = "finished"
            values["winner"] = result.winner.value if result.winner else "void"
            values["cards_dealt"] = result.cards_dealt
        return values

    # -- a change of the round alone, from one process to the others ---------------------

    def steps(self, session: Session, change: Change) -> RoundSteps | None:
        """What this transaction's *change* wrote, if a change of the open round alone
        (:data:`FORWARDED`): the round's steps since the transaction took it (its event
        carries them to the other processes: :meth:`follow`). ``None``: anything else."""
        table = change.table
        used = session.info.get(ROUNDS, {}).get(table.id)
        before = session.info.get(BEFORE, {}).get(table.id)
        if (
            not FORWARDED.issuperset(change.kinds)
            or used is None
            or before is None
            or before[0] != used[0]
            or session.info.get(DIRTY)
        ):
            return None
        operations = used[1].operations
        if len(operations) <= before[1]:
            return None
        added = tuple(compact(operation_to_dict(op)) for op in operations[before[1] :])
        return RoundSteps(table.id, used[0], before[1], added)

    def follow(self, event: TableEvent) -> bool:
        """Move what this process keeps of the event's table on to its version with the
        steps it carries — the round (replayed as :meth:`Round.loads` replays its record),
        its row and record, the table's row, what pages see: each only if kept at exactly
        the version before, with that round at that step. Whether it did; if not, whatever
        it took is read again when it is next asked for.

        In the event loop, in the order of the versions (the events' order)."""
        steps = event.steps  # only a change of the kinds FORWARDED carries them
        if steps is None:
            return False
        version = event.version
        kept = self._rounds.pop(steps.table, None)  # out of memory while it moves on
        if kept is None:
            return False
        if kept[0] != version - 1 or kept[1] != steps.round or not inspect(kept[3]).detached:
            self._put_back(self._rounds, steps.table, kept)
            return False
        _, row_id, rnd, row = kept
        try:
            public = self._replayed(steps, rnd, row)
        except Exception:  # whatever went wrong, nothing half-moved is kept: read it again
            log.exception("table %s: version %s read again", event.code, version)
            return False
        if public is None:
            return False
        table = self._tables.pop(steps.table, None)
        if table is not None and table[0] == version - 1 and inspect(table[1]).detached:
            set_committed_value(table[1], "version", version)
            self._put_back(self._tables, steps.table, (version, table[1]))
        elif table is not None:
            self._put_back(self._tables, steps.table, table)
        self._put_back(self._publics, steps.table, (version, row_id, public))
        self._moved_on(steps.table, version, FORWARDED, row, public)
        self._put_back(self._rounds, steps.table, (version, row_id, rnd, row))
        return True

    def _replayed(self, steps: RoundSteps, rnd: Round, row: TableRoundRow) -> PublicRound | None:
        """*rnd* and its *row* moved on by *steps* (``None``: they are not the steps' round
        at the step before; a step that the round refuses raises)."""
        if len(rnd.operations) != steps.before:
            return None
        replay(rnd, [json.loads(op) for op in steps.operations])
        record = self._record(row.id, rnd)
        values = self._written(row, rnd, record)
        if record.parts[steps.before :] != list(steps.operations):  # written otherwise here
            return None
        for name, value in values.items():
            set_committed_value(row, name, value)
        return public_round(row, rnd)

    @staticmethod
    def _put_back(kept: dict[int, _Entry], table_id: int, entry: _Entry) -> None:
        """Keep *entry* (its version first) unless a newer one is kept meanwhile."""
        known = kept.get(table_id)
        if known is None or known[0] <= entry[0]:
            kept[table_id] = entry


# -- the table kept in memory, moved on by a change made here ----------------------------


def _summary(public: PublicRound, settled_at: datetime | None) -> RoundSummary:
    """The round in the last rounds, as :meth:`Reads._recent` reads it back."""
    result = public.result
    winner = None
    if result is not None:
        winner = result.winner.value if result.winner else "void"
    dealt = result.cards_dealt if result is not None else None
    return RoundSummary(
        public.number, public.status, winner, dealt, public.centre, public.commitment, settled_at
    )


def _round_changed(
    kept: TableSnapshot, version: int, limit: int, *, public: PublicRound
) -> TableSnapshot | None:
    """A step of the open round: the round and its line in the last rounds."""
    state = kept.state
    if state.round is None or state.round.number != public.number:
        return None
    recent = [_summary(public, r.settled_at) if r.number == public.number else r
              for r in kept.recent]  # fmt: skip
    return TableSnapshot(replace(state, round=public, version=version), recent, kept.settled)


def _round_opened(
    kept: TableSnapshot, version: int, limit: int, *, public: PublicRound
) -> TableSnapshot | None:
    """A new round: first of the last rounds; no balance, player or settled round changes;
    the table's paytable is the round's (a new one, changed before, applies now)."""
    state = kept.state
    if (state.round.number if state.round is not None else 0) + 1 != public.number:
        return None
    recent = [_summary(public, None), *kept.recent][:limit]
    opened = replace(state, round=public, version=version, new_pays=False)
    return TableSnapshot(opened, recent, kept.settled)


def _plain_win(public: PublicRound) -> bool:
    """A round settled with a winner (a void round is read again; a lesson's too, see
    :func:`_round_settled`)."""
    result = public.result
    return (
        public.status == "settled"
        and public.settlement is not None
        and result is not None
        and result.winner is not None
        and public.void_reason is None
    )


def _round_settled(
    kept: TableSnapshot,
    version: int,
    limit: int,
    *,
    public: PublicRound,
    row: TableRoundRow,
    done: SettledRound,
) -> TableSnapshot | None:
    """The round settled: every player's balance and night result moved by their ledger
    entries (the settlement's postings, stakes and returns, as
    :meth:`Store.accounts` adds them up), one more round played, the round's line
    in the last rounds, and the round first among the settled."""
    state = kept.state
    if state.teaching or state.round is None or state.round.number != public.number:
        return None
    assert public.settlement is not None and row.settled_at is not None
    moved: dict[str, Decimal] = {}
    for player, amount, _ in public.settlement.postings():
        moved[player] = moved.get(player, Decimal(0)) + as_decimal(amount)
    players = tuple(
        replace(
            p,
            balance=as_decimal(p.balance + moved[p.name]),
            result=as_decimal(p.result + moved[p.name]),
        )
        if p.name in moved
        else p
        for p in state.players
    )
    settled_at = row.settled_at.astimezone(UTC)
    recent = [_summary(public, settled_at) if r.number == public.number else r
              for r in kept.recent]  # fmt: skip
    state = replace(
        state,
        players=players,
        round=public,
        rounds_settled=state.rounds_settled + 1,
        version=version,
    )
    return TableSnapshot(state, recent, (done, *kept.settled)[:limit])
