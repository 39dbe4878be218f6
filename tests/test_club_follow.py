"""A step of a round made by one server process, followed by another without reading the table.

On PostgreSQL the event of a change of the open round alone carries the round's new steps
(club/kept.Kept.steps); a process that keeps the table at the version before replays them
into what it keeps (Kept.follow). Two services on one schema are two processes, the second
with its own LISTEN (club/events.Listener, in a thread with its own event loop, as a
server's); a third, which only reads, is the database's word for what the table is:

- after every bet, take-back, double, close, centre card or card made through either
  process, the second keeps the table at the new version — its snapshot, round, round row
  and table row — equal, value for value, to what the third reads;
- the second's next bet reads no more than after a bet of its own, and a page's read
  reads nothing;
- an event too long for a notification goes without its steps (then read again).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, select

from andar_bahar.club.events import NOTIFY_LIMIT, Listener, RoundSteps, TableEvent, psycopg_dsn
from andar_bahar.club.reads import RECENT
from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.engine.round import Round
from andar_bahar.storage import Storage
from andar_bahar.storage.models import TableRoundRow
from test_web_hot_path import _table

WAIT = 15.0
"""Seconds to wait for an event to reach the second process (it comes in milliseconds)."""


class Following:
    """The second process's LISTEN: each event is handed to its service's ``follow`` (as a
    server's event loop does), then counted."""

    def __init__(self, service: TableService, url: str) -> None:
        self.service = service
        self.seen: dict[str, int] = {}
        self.followed: dict[str, list[bool]] = {}
        self.changed = threading.Condition()
        self.loop = asyncio.new_event_loop()
        channel = service.notify_channel
        assert channel is not None
        self.listener = Listener(psycopg_dsn(url), channel, self._deliver, self._resync)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def _deliver(self, made: TableEvent) -> None:
        followed = self.service.follow(made)
        with self.changed:
            self.followed.setdefault(made.code, []).append(followed)
            self.seen[made.code] = max(self.seen.get(made.code, 0), made.version)
            self.changed.notify_all()

    async def _resync(self) -> None:
        return None

    async def _listen(self) -> None:
        self.listener.start()
        await asyncio.wait_for(self.listener.ready.wait(), WAIT)

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result(WAIT)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.listener.stop(), self.loop).result(WAIT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(WAIT)
        self.loop.close()

    def wait_for(self, code: str, version: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.seen.get(code, 0) >= version, WAIT)


@dataclass
class Processes:
    one: TableService
    two: TableService
    reader: TableService
    following: Following


@pytest.fixture
def processes(postgres_url: str) -> Iterator[Processes]:
    with (
        Storage.open(postgres_url) as one,
        Storage.open(postgres_url) as two,
        Storage.open(postgres_url) as three,
    ):
        second = TableService(two)
        following = Following(second, postgres_url)
        following.start()
        try:
            yield Processes(TableService(one), second, TableService(three), following)
        finally:
            following.stop()


def _started(p: Processes) -> tuple[str, str, list[str], int]:
    """A table with a round open by the first process; the second keeps it (a bet of its
    own, and a page's read)."""
    code, dealer, tokens = _table(p.one, 3)
    p.one.open_round(code, dealer)
    p.two.place_bet(code, tokens[1], "andar", "10", key="first")
    p.two.table_snapshot(code)
    return code, dealer, tokens, p.two.store.kept.ids[code]


def _kept_at(p: Processes, table_id: int) -> tuple[int | None, int | None]:
    """The versions the second process keeps the table's round and snapshot at."""
    kept = p.two.store.kept
    rnd, snapshot = kept._rounds.get(table_id), kept.snapshots.get((table_id, RECENT))
    return (rnd[0] if rnd else None), (snapshot.state.version if snapshot else None)


def _check_kept(p: Processes, code: str, table_id: int) -> int:
    """What the second process keeps of the table at the database's version is what the
    reader reads (the version, once the second process has heard of it)."""
    version = p.reader.table_version(code)
    p.following.wait_for(code, version)
    kept = p.two.store.kept
    snapshot = kept.snapshots.get((table_id, RECENT))
    if snapshot is not None and snapshot.state.version == version:
        p.reader.release(code)
        assert snapshot == p.reader.table_snapshot(code)
    if table_id in kept._rounds and kept._rounds[table_id][0] == version:
        _, row_id, rnd, row = kept._rounds[table_id]
        with p.reader.store.transactions.read() as session:
            stored = session.scalars(select(TableRoundRow).where(TableRoundRow.id == row_id)).one()
            values = (stored.record, stored.status, stored.winner, stored.cards_dealt)
        assert (row.record, row.status, row.winner, row.cards_dealt) == values
        assert rnd.dumps() == Round.loads(values[0]).dumps()
    if table_id in kept._tables and kept._tables[table_id][0] == version:
        assert kept._tables[table_id][1].version == version
    return version


ACTIONS = ("bet", "bet", "double", "take back", "close", "centre", "deal", "deal", "deal out")
STEPS = st.lists(
    st.tuples(
        st.booleans(),  # through the second process (else the first)
        st.sampled_from(ACTIONS),
        st.integers(0, 2),  # the player
        st.sampled_from(("andar", "bahar", "cards:1-5")),
        st.sampled_from(("5", "10", "25")),
    ),
    min_size=1,
    max_size=20,
)


@settings(max_examples=8, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_another_process_s_steps_of_a_round_are_followed_value_for_value(
    processes: Processes, steps: list[tuple[bool, str, int, str, str]]
) -> None:
    p = processes
    code, dealer, tokens, table_id = _started(p)
    keys = itertools.count()
    version = _check_kept(p, code, table_id)
    for second, action, player, spot, stake in steps:
        service = p.two if second else p.one
        token, key = tokens[player], f"k{next(keys)}"
        held = _kept_at(p, table_id) == (version, version)
        refused = False
        try:
            if action == "bet":
                service.place_bet(code, token, spot, stake, key=key)
            elif action == "double":
                service.double_bets(code, token, key=key)
            elif action == "take back":
                service.take_back_bet(code, token, key=key)
            elif action == "close":
                service.close_bets(code, dealer)
            elif action == "centre":
                service.turn_centre(code, dealer)
            elif action == "deal":
                service.deal(code, dealer)
            else:  # to the round's end, each card an event of its own
                while service.deal(code, dealer).status == "open":
                    pass
        except AndarBaharError:  # bets closed, nothing to take back, the round over …
            refused = True  # nothing changed (a refused writer drops the round it took)
        version = _check_kept(p, code, table_id)
        if held and not (second and refused):  # kept at the version before: moved on
            assert _kept_at(p, table_id) == (version, version)
        if refused and second:
            p.two.table_snapshot(code)  # a page's read: kept again (its round: when it bets)


@contextmanager
def _selects(service: TableService) -> Iterator[list[str]]:
    """The SELECT statements *service* sends meanwhile (the version's own read, a raw
    cursor's, is not among them)."""
    seen: list[str] = []

    def count(_c: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    engine = service.storage.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_after_another_process_s_step_the_next_request_reads_nothing_again(
    processes: Processes,
) -> None:
    p = processes
    code, dealer, tokens, _ = _started(p)
    with _selects(p.two) as own:  # a bet after one of its own: the table and round kept
        p.two.place_bet(code, tokens[1], "bahar", "10", key="own")
    p.one.place_bet(code, tokens[0], "andar", "5", key="other")
    p.following.wait_for(code, p.reader.table_version(code))
    with _selects(p.two) as after:
        p.two.place_bet(code, tokens[1], "andar", "5", key="after")
    assert len(after) == len(own) > 0
    p.one.deal(code, dealer)
    version = p.reader.table_version(code)
    p.following.wait_for(code, version)
    with _selects(p.two) as read:
        snapshot = p.two.table_snapshot(code)
    assert read == [] and snapshot.state.version == version
    assert p.following.followed[code][-1]  # followed: its steps came with it


def test_an_event_too_long_for_a_notification_goes_without_its_steps() -> None:
    """PostgreSQL refuses a notification of 8000 bytes or more: the steps are left out (the
    other processes read the table again), the event itself goes."""
    short = RoundSteps(3, 41, 7, ('{"op":"deal","card":"4♣"}',))
    made = TableEvent("K7QX2M", 12, "deal", frozenset(), steps=short)
    back = TableEvent.from_json(made.to_json())
    assert back is not None and back.steps == short
    name = "ა" * 3000  # three bytes a letter in UTF-8
    long = RoundSteps(3, 41, 7, (f'{{"op":"marker","player":"{name}","row":"andar"}}',))
    text = TableEvent("K7QX2M", 12, "marker", frozenset({1}), steps=long).to_json()
    assert len(text.encode()) < NOTIFY_LIMIT and '"s"' not in text
    back = TableEvent.from_json(text)
    assert back is not None and back.steps is None and back.version == 12
