"""The short hot path of the table's service (issue 9): what is kept in memory, group commit,
the bet timer.

- The round and the table are kept in memory with the table's version: a second service
  on the same database (another process) that changes the table is seen at once.
- On an SQLite file, writers that arrive together share one commit (one fsync); a refused
  step in the middle of a group changes nothing and the others are kept; no writer returns
  before the commit that holds its change.
- The bet timer: bets are refused from the deadline on, and bets close at it (lazily by
  the next action, or by ``close_expired``, once).
"""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import event

from andar_bahar.club.service import TableService
from andar_bahar.club.transactions import COMMITTED
from andar_bahar.engine.errors import ActionError, BetError, ParameterError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow
from andar_bahar.web.pages.drawing import ROAD_LENGTH

PIN = "246813"


def _table(service: TableService, players: int) -> tuple[str, str, list[str]]:
    created = service.create_table(
        name="Hot", kind="betting", pin=PIN, procedure=find_procedure("classic"),
        paytable=find_paytable("wizard"),
    )  # fmt: skip
    tokens = []
    for n in range(players):
        seat = service.admit_player(created.code, created.dealer_token, f"P{n}", "1000")
        tokens.append(service.join(created.code, seat))
    return created.code, created.dealer_token, tokens


def test_a_change_by_another_process_is_seen_at_once(database_url: str) -> None:
    """Two services on one database are two server processes: each keeps the round in
    memory, and each sees the other's bets and cards (the version moved on)."""
    with Storage.open(database_url) as one, Storage.open(database_url) as two:
        a, b = TableService(one), TableService(two)
        code, dealer, (asha, ravi) = _table(a, 2)
        a.open_round(code, dealer)
        a.place_bet(code, asha, "andar", "10", key="a1")
        b.place_bet(code, ravi, "bahar", "20", key="r1")  # b reads the round a kept
        a.place_bet(code, asha, "cards:1-5", "5", key="a2")  # a must see b's bet
        centre = b.deal(code, dealer).centre
        assert a.state(code).round is not None and a.state(code).round.centre == centre
        wagers = {(p, bet, s) for p, bet, s in b.state(code).round.wagers}  # type: ignore[union-attr]
        assert wagers == {("P0", "andar", 10), ("P1", "bahar", 20), ("P0", "cards:1-5", 5)}
        assert a.state(code).version == b.state(code).version


def test_a_tables_row_kept_in_memory_is_never_stale(database_url: str) -> None:
    """A writer takes the table's row as this process kept it at the table's version (no
    read); a change by another process (a new paytable: another version) is read at once."""
    with Storage.open(database_url) as one, Storage.open(database_url) as two:
        a, b = TableService(one), TableService(two)
        code, dealer, (asha,) = _table(a, 1)
        a.open_round(code, dealer)
        ((table_id, (version, row)),) = a.store.kept._tables.items()
        a.place_bet(code, asha, "andar", "10", key="a1")
        assert a.store.kept._tables[table_id] == (version + 1, row)  # the same row, one version on
        while a.deal(code, dealer).status == "open":
            pass
        a.settle(code, dealer)
        b.change_paytable(code, dealer, find_paytable("even-money"), "a quieter night")
        a.open_round(code, dealer)  # a's kept row is a version behind: read again
        rnd = a.state(code).round
        assert rnd is not None and rnd.paytable.name == "even-money"
        assert a.store.kept._tables[table_id][1] is not row


def test_a_writer_keeps_its_table_row_to_itself_until_its_last_step(postgres_url: str) -> None:
    """On PostgreSQL a writer's steps after its commit run without the table's lock: the row
    it kept must go back to memory only after every other step has read it. Forced here: the
    first bet's writer stops right after it hands the row back, while the dealer closes the
    bets; a bet after that is refused, and the database says the bets are closed (before the
    fix, the first writer kept its older round at the dealer's newer version: the close was
    lost and a late bet accepted — found by review)."""
    with Storage.open(postgres_url) as storage:
        service = TableService(storage, rng=random.Random(5))
        code, dealer, (asha, bo) = _table(service, 2)
        service.open_round(code, dealer)
        service.place_bet(code, asha, "andar", "10", key="warm")  # the row is kept from now
        handed_back, closed = threading.Event(), threading.Event()
        first = threading.Thread(
            target=lambda: service.place_bet(code, asha, "andar", "20", key="k1")
        )
        on_commit = service.store.transactions.on_commit

        def paused_after_handing_back(session, callback, **options):  # type: ignore[no-untyped-def]
            if "keep_table" in callback.__qualname__ and threading.current_thread() is first:

                def hand_back_then_wait() -> None:
                    callback()
                    handed_back.set()
                    closed.wait(10)

                return on_commit(session, hand_back_then_wait, **options)
            return on_commit(session, callback, **options)

        service.store.transactions.on_commit = paused_after_handing_back  # type: ignore[method-assign]
        first.start()
        assert handed_back.wait(10)
        try:
            service.close_bets(code, dealer)
        finally:
            closed.set()
        first.join(10)
        with pytest.raises(BetError):
            service.place_bet(code, bo, "bahar", "30", key="late")
        with Storage.open(postgres_url) as again:  # another process reads the database
            public = TableService(again).state(code).round
        assert public is not None and not public.bets_open
        assert public.wagers == (("P0", "andar", Decimal("30")),)  # 10 and 20 on one spot


def test_writers_that_arrive_together_share_one_commit(tmp_path: Path) -> None:
    with Storage.open(f"sqlite:///{tmp_path / 'club.sqlite3'}") as storage:
        service = TableService(storage, rng=random.Random(2))
        code, dealer, tokens = _table(service, 12)
        service.open_round(code, dealer)
        commits: list[int] = []
        event.listen(storage.engine, "commit", lambda _: commits.append(1))
        start = threading.Barrier(len(tokens))
        outcomes: dict[int, object] = {}

        def bet(n: int) -> None:
            start.wait()
            stake = "0.001" if n == 5 else str(n + 1)  # n = 5: a stake the paytable refuses
            try:
                outcomes[n] = service.place_bet(code, tokens[n], "andar", stake, key=f"k{n}")
            except BetError as refused:
                outcomes[n] = refused

        threads = [threading.Thread(target=bet, args=(n,)) for n in range(len(tokens))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        rnd = service.state(code).round
        assert rnd is not None
        assert isinstance(outcomes[5], BetError)
        expected = {(f"P{n}", "andar", Decimal(n + 1)) for n in range(len(tokens)) if n != 5}
        assert set(rnd.wagers) == expected
        assert len(commits) < len(tokens) - 1  # some writers shared a commit
        # what is kept in memory is what a fresh service reads from the file
        fresh = TableService(storage).state(code).round
        assert fresh is not None and set(fresh.wagers) == expected


def test_a_refused_first_writer_of_a_group_changes_nothing_and_the_group_goes_on(
    tmp_path: Path,
) -> None:
    """The first writer of a group has the transaction to itself, with no savepoint: when it
    is refused after writing, the whole transaction is rolled back, and the writers that
    waited for their turn meanwhile are committed in a new one."""
    with Storage.open(f"sqlite:///{tmp_path / 'club.sqlite3'}") as storage:
        service = TableService(storage)
        code, dealer, (asha,) = _table(service, 1)
        group = service.store.transactions._group
        assert group is not None
        table_id = service.store.kept.version_of(code)[0]  # type: ignore[index]
        planned = service.state(code).rounds_planned
        written = threading.Event()
        outcomes: dict[str, object] = {}

        def refused() -> None:
            try:
                with service.store.transactions.write() as session:
                    session.get(ClubTableRow, table_id).rounds_planned = 99  # type: ignore[union-attr]
                    session.flush()  # in the database's transaction, not yet committed
                    written.set()
                    deadline = time.monotonic() + 10  # bounded: a failure, never a hang
                    while group.waiting == 0 and time.monotonic() < deadline:
                        time.sleep(0.001)  # until the next writer waits for its turn
                    outcomes["waited"] = group.waiting > 0
                    raise ActionError(Message(N_("Refused on purpose.")))
            except ActionError as error:
                outcomes["refused"] = error

        def renamed() -> None:
            written.wait(10)
            with service.store.transactions.write() as session:
                session.get(ClubTableRow, table_id).name = "Kept"  # type: ignore[union-attr]
            outcomes["renamed"] = True

        threads = [threading.Thread(target=refused), threading.Thread(target=renamed)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert outcomes.get("waited") is True  # the second writer came while the first wrote
        assert isinstance(outcomes.get("refused"), ActionError)
        assert outcomes.get("renamed") is True
        fresh = TableService(storage).state(code)  # read afresh from the file
        assert (fresh.name, fresh.rounds_planned) == ("Kept", planned)
        service.open_round(code, dealer)  # and the store goes on
        service.place_bet(code, asha, "andar", "10", key="a1")
        assert TableService(storage).state(code).round.wagers == (  # type: ignore[union-attr]
            ("P0", "andar", Decimal(10)),
        )


def test_a_change_made_here_is_drawn_without_reading_the_tables_version(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer to a request is drawn from the table at the version its own change
    committed, or later: kept in memory at it, the table is taken without even reading its
    version. A version not kept here (another process's change) is read."""
    with Storage.open(database_url) as storage:
        service = TableService(storage)
        code, dealer, (asha, ravi) = _table(service, 2)
        service.open_round(code, dealer)
        service.table_snapshot(code, ROAD_LENGTH)  # read once: kept from now on
        service.place_bet(code, asha, "andar", "10", key="a1")
        version = COMMITTED.get()[code]
        assert version == service.table_version(code)
        asked: list[str] = []
        peek = service.store.kept.version_of
        monkeypatch.setattr(service.store.kept, "version_of", lambda c: asked.append(c) or peek(c))
        kept = service.table_snapshot(code, ROAD_LENGTH, known=version)
        assert asked == [] and kept.state.version == version
        assert kept.state.round is not None
        assert kept.state.round.wagers == (("P0", "andar", Decimal(10)),)
        TableService(storage).place_bet(code, ravi, "bahar", "5", key="r1")  # another process
        newer = service.table_snapshot(code, ROAD_LENGTH, known=version + 1)
        assert asked == [code] and newer.state.version == version + 1
        assert newer.state.round is not None and len(newer.state.round.wagers) == 2


def _same_as_read_afresh(service: TableService, storage: Storage, code: str) -> None:
    """The table as *service* keeps it, at its committed version, is what a process that
    keeps nothing reads (state, last rounds, settled rounds, every player's history)."""
    version = COMMITTED.get()[code]
    kept = service.table_snapshot(code, ROAD_LENGTH, known=version)
    fresh = TableService(storage).table_snapshot(code, ROAD_LENGTH)
    assert kept.state.version == fresh.state.version == version
    assert (kept.state, kept.recent, kept.settled) == (fresh.state, fresh.recent, fresh.settled)
    for player in fresh.state.players:
        assert kept.player_rounds(player.name) == fresh.player_rounds(player.name)


def test_a_round_opened_and_settled_here_moves_the_kept_table_on_without_a_read(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening and settling a round (balances, rounds played, the last and the settled
    rounds) move the table kept in memory on, as a step of the round does: the next page
    reads nothing, and what it draws from is, after every step of three rounds past the
    road's length, what a fresh read gives (expected values: the database, read afresh)."""
    with Storage.open(database_url) as storage:
        service = TableService(storage)
        code, dealer, tokens = _table(service, 3)
        service.open_round(code, dealer)
        service.table_snapshot(code, ROAD_LENGTH)  # read once: kept from now on
        read = service.reads._state
        reads: list[str] = []
        monkeypatch.setattr(
            service.reads, "_state", lambda s, t: reads.append(t.code) or read(s, t)
        )
        rng = random.Random(9)
        for number in range(ROAD_LENGTH + 3):
            if number:
                service.open_round(code, dealer)
                _same_as_read_afresh(service, storage, code)
            for n, token in enumerate(tokens):
                spot = rng.choice(["andar", "bahar", "cards:1-5", "cards:6-10"])
                service.place_bet(code, token, spot, str(rng.randint(1, 50)), key=f"{number}:{n}")
            _same_as_read_afresh(service, storage, code)
            while service.deal(code, dealer).status == "open":
                pass
            service.settle(code, dealer)
            _same_as_read_afresh(service, storage, code)
            # A settled round is never written again: its record, deck and steps are let
            # go (else a night's rounds would stay in memory: 34 KiB a round of 20 bets).
            assert not service.store.kept._records
        # Only the settlements the kept snapshot shows stay kept, not the whole night's.
        kept = service.store.kept
        assert len(kept.paid) == len(kept.rounds_paid) == ROAD_LENGTH
        assert reads == []  # the fresh reads above are the other services'
        assert service.state(code).rounds_settled == ROAD_LENGTH + 3


def test_the_bet_timer_refuses_late_bets_and_closes_once(database_url: str) -> None:
    now = [datetime(2026, 12, 1, 20, 0, tzinfo=UTC)]
    with Storage.open(database_url) as storage:
        service = TableService(storage, now=lambda: now[0])
        code, dealer, (asha, ravi) = _table(service, 2)
        opened = service.open_round(code, dealer, seconds=30)
        assert opened.bets_deadline == now[0] + timedelta(seconds=30)
        service.place_bet(code, asha, "andar", "10", key="a1")
        with pytest.raises(ParameterError, match="1 to 3600 seconds"):
            service.set_timer(code, dealer, 4000)
        timed = service.set_timer(code, dealer, 10)  # shortened while bets are open
        assert timed.bets_deadline == now[0] + timedelta(seconds=10)
        assert service.close_expired(code) is False  # not yet
        now[0] += timedelta(seconds=10)
        with pytest.raises(BetError, match="bet timer has run out"):
            service.place_bet(code, ravi, "bahar", "10", key="r1")  # closes them, lazily
        state = service.state(code)
        assert state.round is not None and not state.round.bets_open
        assert state.round.bets_deadline is None
        assert service.close_expired(code) is False  # already closed: nothing twice
        with pytest.raises(ActionError, match="nothing to time"):
            service.set_timer(code, dealer, 10)
        audit = [(r.action, r.new_value) for r in service.audit_log(code, dealer)]
        assert ("timer", "30") in audit and ("timer", "10") in audit


def test_the_timer_task_closes_the_bets_at_the_deadline(database_url: str) -> None:
    now = [datetime(2026, 12, 1, 20, 0, tzinfo=UTC)]
    with Storage.open(database_url) as storage:
        service = TableService(storage, now=lambda: now[0])
        code, dealer, _ = _table(service, 1)
        service.open_round(code, dealer, seconds=5)
        version = service.table_version(code)
        now[0] += timedelta(seconds=5)
        assert service.close_expired(code) is True
        assert service.close_expired(code) is False
        assert service.table_version(code) == version + 1


def test_a_rounds_record_written_step_by_step_is_the_whole_record() -> None:
    """The record kept as text and added to after each step (club/kept.RecordText) is, after
    every step, exactly ``Round.to_dict()`` as compact JSON — what Round.loads reads."""
    import json

    from andar_bahar.club.kept import RecordText
    from andar_bahar.engine.cards import Card, shuffled
    from andar_bahar.engine.round import Round

    rng = random.Random(11)
    for physical in (False, True):
        deck = None if physical else shuffled(rng)
        rnd = Round(find_procedure("classic"), find_paytable("wizard"), deck=deck,
                    balances={"Ann": Decimal(100), "Бо": Decimal(50)})  # fmt: skip
        record = RecordText(rnd)

        def whole(rnd: Round = rnd) -> str:
            return json.dumps(rnd.to_dict(), ensure_ascii=False, separators=(",", ":"))

        assert record.text() == whole()
        rnd.place_bet("Ann", "andar", "10")
        rnd.place_bet("Бо", "cards:1-5", "5")
        assert record.text() == whole()
        rnd.place_bet("Ann", "andar", "5")
        rnd.withdraw_bet("Бо", "cards:1-5")
        assert record.text() == whole()
        typed = Card.parse_many("7♣ 2♦ 9♠ 7♥ K♣ 7♦")
        cards = iter(typed) if physical else None
        rnd.turn_centre(None if cards is None else next(cards))
        while not rnd.finished:
            rnd.deal(None if cards is None else next(cards))
            assert record.text() == whole()
        rnd.settle()
        assert record.text() == whole()
        assert Round.loads(record.text()).to_dict() == rnd.to_dict()
