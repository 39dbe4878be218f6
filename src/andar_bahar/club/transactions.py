"""The club tables' transactions: versions and events of every change, group commit.

:class:`Transactions` belong to the :class:`~andar_bahar.club.store.Store`.
Every transaction that changes a table also adds one to the table's **version**
and makes a :class:`~andar_bahar.club.events.TableEvent` (what happened, whose own
blocks changed): on PostgreSQL it is sent with ``pg_notify`` inside the
transaction; on SQLite it goes to :meth:`Transactions.on_change`'s listeners right
after the commit. A method names the change with :meth:`Transactions.changed`; a
transaction that locked a table (:meth:`Transactions.locked`) and wrote anything without naming it
counts as a change of everything (``"change"``, every player), so no change goes
unseen.

**Group commit** (an SQLite file): SQLite has one writer, and each commit waits for
the disk (``synchronous=FULL``). The threads that want to write take turns on one
open transaction, each in a savepoint of its own (but the first, which has the
transaction to itself); the last of those waiting commits for all of them, once. No
thread returns — no request is answered — before that commit, so no answered request
can be lost; one whose own step fails is rolled back to its savepoint (the first: the
whole transaction, begun again) and changes nothing. A thread alone commits at once.

Reads (:meth:`Transactions.read`) do not take the table's lock: on SQLite they are
plain (deferred) transactions that see one snapshot of the WAL while the writer
goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from sqlalchemy import bindparam, event, func, inspect, select, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql.expression import Executable

from andar_bahar.club.events import (
    ACTOR,
    ROUND_STEPS,
    TABLE_CLOSED,
    RoundSteps,
    TableEvent,
    channel_of,
)
from andar_bahar.club.health import DatabaseUnavailable, Health
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.storage import READ_ONLY_OPTION, Storage
from andar_bahar.storage.models import ClubTableRow

__all__ = ["COMMITTED", "MAX_BATCH", "Transactions"]

MAX_BATCH = 64
"""The most writes one commit of a group carries."""
LOCKED, CHANGES, WROTE, ON_COMMIT = "ab_locked", "ab_changes", "ab_wrote", "ab_on_commit"
ROUNDS, DIRTY, NAMED, KEEPING = "ab_rounds", "ab_dirty", "ab_named", "ab_keeping"
TABLES, BEFORE = "ab_tables", "ab_before"
"""``session.info`` keys: the tables locked, the changes named and written (by the writer
at work, for LOCKED, NAMED and WROTE), callbacks after the commit, rounds in use (and the
tables whose rounds are kept once committed), the tables whose rows are kept then, and
how many steps each round in use had when this transaction took it."""
COMMITTED: ContextVar[Mapping[str, int]] = ContextVar(
    "andar_bahar_committed", default=MappingProxyType({})
)
"""The tables that this context's last write transaction changed, by code: the version it
committed each at (the answer to the request that made the change is drawn from the table
at that version or a later one: :meth:`~andar_bahar.club.reads.Reads.table_snapshot`)."""


NEXT_VERSION = (
    update(ClubTableRow)
    .where(ClubTableRow.id == bindparam("table_id"))
    .values(version=bindparam("next_version"))
)
"""A table's version, one more (its row's other values unchanged)."""


@dataclass(slots=True)
class Change:
    """What a transaction changed of one table: every kind named, whose own blocks."""

    table: ClubTableRow
    kinds: list[str]
    players: set[int] | None
    actors: set[str] = field(default_factory=set)
    """The pages whose own actions these are (:data:`~andar_bahar.club.events.ACTOR`)."""

    @property
    def kind(self) -> str:
        """The last kind named; ``"change"`` if any is not a step of the round (writers
        that share a transaction: a bet and a new seat code make one event), and
        :data:`~andar_bahar.club.events.TABLE_CLOSED` if the table was closed."""
        if TABLE_CLOSED in self.kinds:
            return TABLE_CLOSED
        if any(kind not in ROUND_STEPS for kind in self.kinds):
            return "change"
        return self.kinds[-1]


@dataclass(eq=False)
class _Batch:
    """One open transaction that the waiting writers share, and its outcome."""

    session: Session
    members: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    events: list[TableEvent] = field(default_factory=list)
    """What its commit changed (once committed)."""


class _Group:
    """The turn on SQLite's one writer, and the batch it is filling."""

    def __init__(self) -> None:
        self.turn = threading.Lock()
        self.count = threading.Lock()
        self.waiting = 0
        self.batch: _Batch | None = None


class Transactions:
    """Write and read transactions on the tables' database; versions and events."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        engine = storage.engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        one_snapshot = (
            {"isolation_level": "REPEATABLE READ"} if engine.dialect.name == "postgresql" else {}
        )
        self.peek = engine.execution_options(**{READ_ONLY_OPTION: True}, **one_snapshot)
        """The engine of reads: short ones that need no session (a table's version, say),
        and the read transactions, each of which sees one committed state of the database
        (PostgreSQL: repeatable read — a table read at version V holds nothing of V + 1, as
        the live pages, which order blocks by version, need; SQLite: WAL's own snapshot)."""
        self._readers = sessionmaker(self.peek, expire_on_commit=False)
        event.listen(self._sessions, "after_flush", _wrote)
        sqlite = engine.dialect.name == "sqlite"
        shared = isinstance(engine.pool, StaticPool)
        # An in-memory database is one connection, which readers share with the writer:
        # one at a time, no group. A file: writers take turns in groups (see above).
        self._lock = threading.Lock() if sqlite and shared else None
        self._group = _Group() if sqlite and not shared else None
        self.read_lock: AbstractContextManager[Any] = self._lock or nullcontext()
        self._channel = channel_of(engine)
        self._listeners: list[Callable[[TableEvent], None]] = []
        self.steps: Callable[[Session, Change], RoundSteps | None] | None = None
        """What a change of a table's open round alone wrote, sent with its event on
        PostgreSQL (``None``: nothing; :meth:`~andar_bahar.club.kept.Kept.steps`)."""
        self.health = Health(self._ping)
        """Whether the database answers: a failure that says it does not is refused with
        one sentence (:class:`~andar_bahar.club.health.DatabaseUnavailable`), and logged once."""

    @property
    def notify_channel(self) -> str | None:
        """The PostgreSQL channel the changes are announced on (``None`` on SQLite)."""
        return self._channel

    def on_change(self, listener: Callable[[TableEvent], None]) -> None:
        """Call *listener* with every change committed through this store (SQLite).

        On PostgreSQL changes are announced by NOTIFY instead, to every process
        (:class:`~andar_bahar.club.events.Listener`); *listener* is not called.
        On SQLite it is called in the committing thread, in the order of the
        commits, while the writer's turn is still held: keep it short.
        """
        self._listeners.append(listener)

    # -- writing --------------------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction: the table's version and event go with what it changed."""
        with self.health.guard():
            if self._group is not None:
                with self._grouped() as session:
                    yield session
                return
            with self._lock or nullcontext():
                with self._sessions.begin() as session:
                    _start(session)
                    yield session
                    self._name_unnamed(session)
                    events = self._finish(session)
                self._committed(session, events)
            _remember(events)

    def _committed(self, session: Session, events: list[TableEvent]) -> None:
        steps: list[tuple[bool, Callable[[], None]]] = session.info.get(ON_COMMIT, [])
        for _, callback in sorted(steps, key=lambda step: step[0]):  # stable: in order
            callback()
        if self._channel is None:
            for made in events:
                for listener in self._listeners:
                    listener(made)

    @contextmanager
    def _grouped(self) -> Iterator[Session]:
        group = self._group
        assert group is not None
        with group.count:
            group.waiting += 1
        group.turn.acquire()
        with group.count:
            group.waiting -= 1
        batch = group.batch
        if batch is None:
            if self.health.down:  # it failed while this writer waited: do not wait again
                group.turn.release()
                raise DatabaseUnavailable
            session = self._sessions()
            session.begin()
            batch = group.batch = _Batch(session)
        failure: BaseException | None = None
        kept = _keep(batch.session)
        # The first writer has the transaction to itself: no savepoint (two statements
        # fewer); refused, the whole transaction is rolled back, and begun again.
        alone = batch.members == 0
        try:
            with nullcontext() if alone else batch.session.begin_nested():
                _start(batch.session)
                yield batch.session
                self._name_unnamed(batch.session)
            batch.members += 1
        except AndarBaharError as error:  # refused: back to its savepoint, the batch goes on
            failure = error
            if alone:
                batch.session.rollback()
                batch.session.begin()
            _restore(batch.session, kept)
        except BaseException as error:  # the database failed: nothing of the batch is kept
            failure = batch.error = error
        self._pass_turn(group, batch)
        if failure is not None:
            raise failure
        if batch.error is not None:
            raise batch.error
        _remember(batch.events)

    def _pass_turn(self, group: _Group, batch: _Batch) -> None:
        """Let the next writer into the batch, or commit it (and wait for that commit)."""
        with group.count:
            more = group.waiting > 0
        if more and batch.error is None and batch.members < MAX_BATCH:
            group.turn.release()
            batch.done.wait()
            return
        group.batch = None
        session = batch.session
        try:
            if batch.error is not None:
                raise batch.error
            events = batch.events = self._finish(session)
            session.commit()
            self._committed(session, events)
        except BaseException as error:
            batch.error = error
            session.rollback()
        finally:
            session.close()
            batch.done.set()
            group.turn.release()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction: no table lock, and on SQLite no writer's turn."""
        with self.health.guard(), self.read_lock, self._readers.begin() as session:
            yield session

    def _ping(self) -> None:
        """Ask the database for an answer (:attr:`health`'s probe): on SQLite with the
        writer's lock, as a write would take it."""
        with self.storage.engine.begin() as connection:
            connection.execute(select(1))

    # -- versions and events ----------------------------------------------------------------

    @staticmethod
    def locked(session: Session, table: ClubTableRow) -> None:
        """*table* was read to be changed by the writer at work."""
        session.info.setdefault(LOCKED, {})[table.id] = table

    def _name_unnamed(self, session: Session) -> None:
        """A writer that locked a table and wrote without naming its change: a change of
        everything (``"change"``, every player's blocks), so that nothing goes unseen."""
        session.flush()
        if session.info.get(WROTE):
            named = session.info.get(NAMED, set())
            for table in session.info.get(LOCKED, {}).values():
                if table.id not in named:
                    self.changed(session, table, "change")

    @staticmethod
    def unseen(session: Session, table: ClubTableRow) -> None:
        """What this writer wrote at *table* is no change of it (a refused guess, counted for
        the limits): no new version, no event — unless a change of it is named too."""
        session.info.setdefault(NAMED, set()).add(table.id)

    def changed(
        self, session: Session, table: ClubTableRow, kind: str, players: set[int] | None = None
    ) -> None:
        """Name this transaction's change of *table*: *kind*, and whose own blocks it changes.

        *players* are player ids (``None``: every player's; an empty set: nobody's
        own blocks, only what everyone sees). Called twice, the players add up.
        """
        session.info.setdefault(NAMED, set()).add(table.id)
        changes: dict[int, Change] = session.info.setdefault(CHANGES, {})
        known = changes.get(table.id)
        if known is None:
            known = changes[table.id] = Change(table, [], None if players is None else set(players))
        elif known.players is not None:
            known.players = None if players is None else known.players | players
        known.kinds.append(kind)
        actor = ACTOR.get()
        if actor is not None:
            known.actors.add(actor)

    @staticmethod
    def update_row(
        session: Session,
        row: object,
        statement: Executable,
        params: dict[str, Any],
        values: dict[str, Any],
    ) -> None:
        """Set *values* on *row*: by *statement* (one UPDATE with *params*, no unit of work)
        when the row is in the database with nothing else of it changed — the values are
        then the row's as committed; a writer of a batch that fails has the rows it used
        expired (:func:`_restore`) — else through the unit of work."""
        state = inspect(row)
        if not state.persistent or state.modified:
            for name, value in values.items():
                setattr(row, name, value)
            return
        session.connection().execute(statement, params)
        session.info[WROTE] = True
        for name, value in values.items():
            set_committed_value(row, name, value)

    @staticmethod
    def on_commit(session: Session, callback: Callable[[], None], *, last: bool = False) -> None:
        """Run *callback* once this transaction has committed (never if it rolls back), in
        the order given; *last*: after every other one (one that hands an object this
        transaction used to other threads: nothing of the transaction may read it after)."""
        session.info.setdefault(ON_COMMIT, []).append((last, callback))

    def _finish(self, session: Session) -> list[TableEvent]:
        """Before the commit: one more on the version of every table changed, and its event."""
        session.flush()
        changes: dict[int, Change] = session.info.setdefault(CHANGES, {})
        events = []
        steps = self.steps if self._channel is not None else None
        for change in changes.values():
            table = change.table
            version = (table.version or 0) + 1
            params = {"table_id": table.id, "next_version": version}
            self.update_row(session, table, NEXT_VERSION, params, {"version": version})
            players = None if change.players is None else frozenset(change.players)
            actors = frozenset(change.actors)
            wrote = steps(session, change) if steps is not None else None
            events.append(
                TableEvent(table.code, table.version, change.kind, players, actors, wrote)
            )
        session.flush()  # what the unit of work still has (a version set above)
        if self._channel is not None:
            for made in events:
                session.execute(select(func.pg_notify(self._channel, made.to_json())))
        return events


def _remember(events: list[TableEvent]) -> None:
    """The versions this context's write committed (:data:`COMMITTED`)."""
    COMMITTED.set(MappingProxyType({made.code: made.version for made in events}))


def _wrote(session: Session, _: object) -> None:
    session.info[WROTE] = True


def _start(session: Session) -> None:
    """A writer begins: what it locks, names and writes is its own."""
    session.info[LOCKED], session.info[NAMED], session.info[WROTE] = {}, set(), False


def _keep(session: Session) -> tuple[dict[int, Change], int]:
    """What a writer of a batch may change in ``session.info``, as it was before it."""
    changes = {
        k: Change(c.table, [*c.kinds], None if c.players is None else {*c.players}, {*c.actors})
        for k, c in session.info.get(CHANGES, {}).items()
    }
    return changes, len(session.info.get(ON_COMMIT, []))


def _restore(session: Session, kept: tuple[dict[int, Change], int]) -> None:
    """A writer's step failed and was rolled back: forget what it named or meant to keep."""
    changes, callbacks = kept
    session.info[CHANGES] = changes
    del session.info.setdefault(ON_COMMIT, [])[callbacks:]
    for _, _, row in session.info.pop(ROUNDS, {}).values():  # they may be half-changed,
        if inspect(row).persistent:  # and written without the unit of work: read them again
            session.expire(row)
    session.info[DIRTY] = True
