"""The cashier's refusals and the statement's own figures, on SQLite and PostgreSQL.

A cash-out is refused over the balance — exactly the balance is the most (not, say, twice
it); the statement's "rounds settled" counts every settled round (a void one too) and its
"chips still with the players" is the sum of their balances, which the ledger's kinds add
up to: bought in + topped up − cashed out + returned − staked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from andar_bahar.club.cashier import Posting, Statement, player_account
from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import AndarBaharError, BetError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, LedgerRow, TableRoundRow
from sqlite_template import migrated_sqlite


@pytest.fixture
def service(database_url: str) -> Iterator[TableService]:
    storage = Storage.open(database_url)
    yield TableService(storage, rng=random.Random(6))
    storage.close()


@pytest.fixture
def sqlite_service(tmp_path: Path) -> Iterator[TableService]:
    """On SQLite only: there the service's own check is all that keeps a ledger summing to zero
    (PostgreSQL's constraint trigger refuses the bad row itself: tests/test_web_trust.py)."""
    storage = Storage.open(migrated_sqlite(tmp_path / "club.sqlite3"))
    yield TableService(storage, rng=random.Random(6))
    storage.close()


def _table(service: TableService, kind: str = "betting") -> tuple[str, str]:
    table = service.create_table(name="Cash", kind=kind, pin="246813",
                                 procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
    return table.code, table.dealer_token


def test_a_cash_out_over_the_balance_is_refused_and_the_balance_itself_is_the_most(
    service: TableService,
) -> None:
    code, dealer = _table(service)
    service.admit_player(code, dealer, "Asha", "500")
    # Source: the wizard table's chip is 1, so 501 is the balance and the smallest unit more.
    for too_much in ("501", "1000", "999"):  # 1000 = 2 × the balance: refused, as 501 is
        with pytest.raises(BetError) as refused:
            service.cash_out(code, dealer, "Asha", too_much)
        assert str(refused.value) == f"Asha has 500 chips: {too_much} cannot be cashed out."
    assert service.statement(code, dealer).players[0].cashed_out == 0  # nothing moved
    assert service.cash_out(code, dealer, "Asha", "500") == 0  # exactly the balance
    assert _refused(lambda: service.cash_out(code, dealer, "Asha", "1")) == (
        "Asha has 0 chips: 1 cannot be cashed out."
    )
    assert service.ledger_total(code) == 0


def test_the_statement_counts_every_settled_round_and_the_chips_still_out(
    service: TableService,
) -> None:
    code, dealer = _table(service)
    tokens = {
        name: service.join(code, service.admit_player(code, dealer, name, chips))
        for name, chips in (("Asha", "500"), ("Ravi", "300"))
    }
    for number in (1, 2, 3):
        service.open_round(code, dealer)
        for n, token in enumerate(tokens.values()):
            service.place_bet(code, token, ("andar", "bahar")[n], "20", key=f"r{number}")
        service.turn_centre(code, dealer)
        while service.deal(code, dealer).status == "open":
            pass
        service.settle(code, dealer)
    service.open_round(code, dealer, physical=True)  # a real deck, called off: void
    service.place_bet(code, tokens["Asha"], "andar", "50", key="void")
    service.turn_centre(code, dealer, "QH")
    service.void(code, dealer, "a card fell")
    service.settle(code, dealer)
    service.open_round(code, dealer)  # open, not settled: not counted
    service.top_up(code, dealer, "Ravi", "100")
    service.cash_out(code, dealer, "Asha", "70")
    sheet = service.statement(code, dealer)
    assert sheet.rounds_settled == 4  # three played and the void one
    balances = {p.name: p.balance for p in service.state(code).players}
    assert sheet.chips_out == sum(balances.values(), Decimal(0))
    for line in sheet.players:
        assert line.balance == balances[line.name]
        assert line.balance == (
            line.bought_in + line.topped_up - line.cashed_out + line.returned - line.staked
        )
    assert (sheet.players[0].bought_in, sheet.players[0].cashed_out) == (500, 70)
    assert (sheet.players[1].bought_in, sheet.players[1].topped_up) == (300, 100)
    assert sheet.house_result == -sum((p.result for p in sheet.players), Decimal(0))
    assert sheet.chips_out == 500 + 300 + 100 - 70 - sheet.house_result


def _seat(service: TableService, code: str, dealer: str, name: str, chips: str) -> str:
    """Seat *name* with *chips* and join from their phone: the player's token."""
    return service.join(code, service.admit_player(code, dealer, name, chips))


def _play(service: TableService, code: str, dealer: str) -> None:
    """Turn the centre, deal to a match and settle the open round."""
    service.turn_centre(code, dealer)
    while service.deal(code, dealer).status == "open":
        pass
    service.settle(code, dealer)


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(AndarBaharError) as refused:
        call()
    return str(refused.value)


def test_chips_topped_up_while_bets_are_open_can_be_staked_at_once(service: TableService) -> None:
    code, dealer = _table(service)
    asha = _seat(service, code, dealer, "Asha", "100")
    service.open_round(code, dealer)
    assert service.top_up(code, dealer, "Asha", "50") == 150
    service.place_bet(code, asha, "andar", "150", key="all")  # 100 + 50, in this round
    assert _refused(lambda: service.place_bet(code, asha, "bahar", "1", key="more")) == (
        "Asha has 150 chips, 150 of them already staked: a stake of 1 is too much."
    )
    ravi = _seat(service, code, dealer, "Ravi", "30")  # seated while bets are open
    assert _refused(lambda: service.place_bet(code, ravi, "bahar", "31", key="r")) == (
        "Ravi has 30 chips, 0 of them already staked: a stake of 31 is too much."
    )
    service.place_bet(code, ravi, "bahar", "30", key="r")


def test_chips_cashed_out_while_bets_are_open_cannot_be_staked(service: TableService) -> None:
    code, dealer = _table(service)
    asha = _seat(service, code, dealer, "Asha", "100")
    service.open_round(code, dealer)
    assert service.cash_out(code, dealer, "Asha", "40") == 60
    assert _refused(lambda: service.place_bet(code, asha, "andar", "61", key="a")) == (
        "Asha has 60 chips, 0 of them already staked: a stake of 61 is too much."
    )
    service.place_bet(code, asha, "andar", "60", key="a")


def test_a_player_with_bets_in_the_round_cashes_out_after_it_is_settled(
    service: TableService,
) -> None:
    code, dealer = _table(service)
    asha = _seat(service, code, dealer, "Asha", "100")
    _seat(service, code, dealer, "Ravi", "100")
    service.open_round(code, dealer)
    service.place_bet(code, asha, "andar", "10", key="a")
    assert _refused(lambda: service.cash_out(code, dealer, "Asha", "5")) == (
        "Asha has bets in round 1: cash out after it is settled."
    )
    assert service.cash_out(code, dealer, "Ravi", "5") == 95  # no bets of his own
    service.turn_centre(code, dealer)  # bets closed: someone seated now cashes out too
    _seat(service, code, dealer, "Mira", "40")
    assert service.cash_out(code, dealer, "Mira", "15") == 25
    while service.deal(code, dealer).status == "open":
        pass
    service.settle(code, dealer)
    won = service.recent_rounds(code)[0].winner == "andar"
    # Source: the wizard table pays Andar 0.9 to 1: 10 wins 9.
    assert service.cash_out(code, dealer, "Asha", "5") == (104 if won else 85)
    assert service.top_up(code, dealer, "Asha", "1") == (105 if won else 86)


def test_chips_move_before_any_round_too(service: TableService) -> None:
    code, dealer = _table(service)
    _seat(service, code, dealer, "Asha", "100")
    assert service.top_up(code, dealer, "Asha", "25") == 125
    assert service.cash_out(code, dealer, "Asha", "125") == 0


def test_each_cash_movement_is_audited_with_its_reason(service: TableService) -> None:
    code, dealer = _table(service)
    _seat(service, code, dealer, "Asha", "500")
    service.top_up(code, dealer, "Asha", "50", reason="won at cards")
    service.cash_out(code, dealer, "Asha", "20")
    audit = [(a.actor, a.action, a.old_value, a.new_value, a.reason)
             for a in service.audit_local(code)]  # fmt: skip
    assert audit[-2:] == [
        ("dealer", "top-up", "500", "550", "Asha: won at cards"),
        ("dealer", "cash-out", "550", "530", "Asha: cash-out"),  # the kind is the reason
    ]
    postings = [(p.kind, p.amount, p.reason) for p in service.statement(code, dealer).postings]
    assert postings == [
        ("buy-in", 500, "buy-in"),
        ("top-up", 50, "won at cards"),
        ("cash-out", -20, "cash-out"),
    ]
    service.top_up(code, dealer, "Asha", "1")
    assert service.statement(code, dealer).postings[-1].reason == "top-up"


def test_a_player_is_found_by_the_name_as_kept_and_only_at_their_own_table(
    service: TableService,
) -> None:
    first, first_dealer = _table(service)
    code, dealer = _table(service)
    for table, its_dealer in ((first, first_dealer), (code, dealer)):
        _seat(service, table, its_dealer, "Asha Rao", "100")
    assert service.top_up(code, dealer, "  Asha   Rao ", "5") == 105  # typed, kept as one name
    assert service.statement(first, first_dealer).players[0].balance == 100
    _seat(service, code, dealer, "Ravi", "10")
    # A control character is shown escaped (a NUL as \x00); a blank name as a dash.
    for name, shown in (("Nobody", "Nobody"), ("   ", "—"), ("Asha\x00", r"Asha\x00")):
        assert _refused(lambda name=name: service.top_up(code, dealer, name, "5")) == (
            f"{shown} is not at table {code}."
        )
    service.release_seat(code, dealer, "Ravi")
    assert _refused(lambda: service.cash_out(code, dealer, "Ravi", "1")) == (
        f"Ravi is not at table {code}."
    )


def test_a_teaching_table_moves_no_chips(service: TableService) -> None:
    code, dealer = _table(service, kind="teaching")
    service.admit_player(code, dealer, "Asha", "0")
    assert _refused(lambda: service.top_up(code, dealer, "Asha", "5")) == (
        "A teaching table plays without chips."
    )


def test_the_statement_adds_up_each_players_night_from_the_rounds_played(
    service: TableService,
) -> None:
    # Source: the wizard table pays Andar 0.9 to 1 and Bahar 1 to 1: a 20 bet on the
    # winning row returns 38 or 40, on the other row nothing; a void round returns stakes.
    other, other_dealer = _table(service)  # another table's night must not count here
    _seat(service, other, other_dealer, "Asha", "100")
    service.open_round(other, other_dealer)
    _play(service, other, other_dealer)
    code, dealer = _table(service)
    assert service.statement(code, dealer).rounds_settled == 0
    asha = _seat(service, code, dealer, "Asha", "500")
    ravi = _seat(service, code, dealer, "Ravi", "300")
    for number in (1, 2, 3):
        service.open_round(code, dealer)
        service.place_bet(code, asha, "andar", "20", key=f"a{number}")
        service.place_bet(code, ravi, "bahar", "20", key=f"r{number}")
        _play(service, code, dealer)
    winners = [r.winner for r in reversed(service.recent_rounds(code))]
    service.top_up(code, dealer, "Ravi", "100")
    service.cash_out(code, dealer, "Asha", "70")
    _seat(service, code, dealer, "Mira", "10")
    service.release_seat(code, dealer, "Mira")
    sheet = service.statement(code, dealer)
    assert (sheet.code, sheet.name, sheet.rounds_settled) == (code, "Cash", 3)
    andar = winners.count("andar")
    asha_back, ravi_back = 38 * andar, 40 * (3 - andar)
    lines = [(p.name, p.bought_in, p.topped_up, p.cashed_out, p.staked, p.returned, p.balance,
              p.result, p.released) for p in sheet.players]  # fmt: skip
    assert lines == [
        ("Asha", 500, 0, 70, 60, asha_back, 500 - 70 - 60 + asha_back, asha_back - 60, False),
        ("Ravi", 300, 100, 0, 60, ravi_back, 400 - 60 + ravi_back, ravi_back - 60, False),
        ("Mira", 10, 0, 10, 0, 0, 0, 0, True),
    ]
    assert sheet.house_result == 120 - asha_back - ravi_back
    assert sheet.chips_out == 500 + 400 - 70 - 120 + asha_back + ravi_back
    stakes = [(p.player, p.round, p.amount) for p in sheet.postings if p.kind == "stake"]
    assert stakes == [(name, n, -20) for n in (1, 2, 3) for name in ("Asha", "Ravi")]
    assert all(p.at.tzinfo is not None for p in sheet.postings)
    assert service.statement_local(code) == sheet


def _ledger_row(service: TableService, code: str, amount: int, round_number: int | None) -> None:
    """A house posting written behind the service's back (as by hand in the database)."""
    with Session(service.storage.engine) as session, session.begin():
        table = session.scalars(select(ClubTableRow).where(ClubTableRow.code == code)).one()
        round_id = None
        if round_number is not None:
            round_id = session.scalars(
                select(TableRoundRow.id).where(TableRoundRow.table_id == table.id,
                                               TableRoundRow.number == round_number)
            ).one()  # fmt: skip
        session.add(LedgerRow(table_id=table.id, round_id=round_id, player_id=None,
                              amount=Decimal(amount), kind="top-up", reason="by hand",
                              created_at=datetime.now(UTC)))  # fmt: skip


def test_a_ledger_that_does_not_sum_to_zero_refuses_every_further_movement(
    sqlite_service: TableService,
) -> None:
    other, other_dealer = _table(sqlite_service)
    code, dealer = _table(sqlite_service)
    _seat(sqlite_service, code, dealer, "Asha", "100")
    _seat(sqlite_service, other, other_dealer, "Asha", "100")
    _ledger_row(sqlite_service, code, 5, None)
    assert _refused(lambda: sqlite_service.top_up(code, dealer, "Asha", "1")) == (
        f"The ledger of table {code} would not sum to zero (5): refused."
    )
    assert (
        sqlite_service.top_up(other, other_dealer, "Asha", "1") == 101
    )  # its own ledger sums to 0


def test_a_round_whose_postings_do_not_sum_to_zero_is_not_settled(
    sqlite_service: TableService,
) -> None:
    # +5 in round 1 and −5 outside it: the table sums to zero, the round does not.
    code, dealer = _table(sqlite_service)
    asha = _seat(sqlite_service, code, dealer, "Asha", "100")
    sqlite_service.open_round(code, dealer)
    sqlite_service.place_bet(code, asha, "andar", "10", key="a")
    _ledger_row(sqlite_service, code, 5, 1)
    _ledger_row(sqlite_service, code, -5, None)
    assert sqlite_service.top_up(code, dealer, "Asha", "1") == 101  # the table itself sums to zero
    sqlite_service.turn_centre(code, dealer)
    while sqlite_service.deal(code, dealer).status == "open":
        pass
    assert _refused(lambda: sqlite_service.settle(code, dealer)) == (
        f"The ledger of table {code} would not sum to zero (5): refused."
    )


def test_a_player_with_no_postings_has_nothing_in_every_column() -> None:
    # Exact computation: no postings sum to 0 chips in each column and in the balance.
    zero = Decimal(0)
    account = player_account("Asha", {}, released=True)
    assert (account.bought_in, account.topped_up, account.cashed_out, account.staked,
            account.returned, account.balance, account.result) == (zero,) * 7  # fmt: skip
    assert all(isinstance(v, Decimal) for v in (account.balance, account.result))


def test_the_statement_as_csv_lists_every_posting_then_each_players_totals() -> None:
    # A cell that a spreadsheet would run as a formula (=, +, -, @, a tab, a carriage
    # return first: OWASP's list) gets a quote before it; an amount never reads "-0".
    at = datetime(2025, 3, 7, 21, 5, tzinfo=UTC)
    sheet = Statement(
        code="ABC123", name="Friday", rounds_settled=1,
        players=(
            player_account("=Asha", {"buy-in": Decimal(500), "stake": Decimal(-20),
                                     "return": Decimal("38.5")}, released=False),
            player_account("@Ravi", {"buy-in": Decimal(300), "top-up": Decimal(100),
                                     "cash-out": Decimal(-50)}, released=True),
        ),
        postings=(
            Posting(at, "=Asha", "buy-in", None, Decimal(500), "+more"),
            Posting(at, "=Asha", "stake", 1, Decimal(-20), "-andar"),
            Posting(at, "\tTab", "return", 1, Decimal("38.5"), "\rwin andar"),
            Posting(at, "Asha", "top-up", None, Decimal(5), "top-up"),
        ),
    )  # fmt: skip
    assert sheet.csv().split("\n") == [
        "time,player,kind,round,amount,reason",
        "2025-03-07T21:05:00+00:00,'=Asha,buy-in,,500,'+more",
        "2025-03-07T21:05:00+00:00,'=Asha,stake,1,-20,'-andar",
        "2025-03-07T21:05:00+00:00,'\tTab,return,1,38.5,'\rwin andar",
        "2025-03-07T21:05:00+00:00,Asha,top-up,,5,top-up",
        "",
        "player,bought in,topped up,cashed out,staked,returned,balance",
        "'=Asha,500,0,0,20,38.5,518.5",
        "'@Ravi,300,100,50,0,0,350",
        "",
    ]
    assert (sheet.house_result, sheet.chips_out) == (Decimal("-18.5"), Decimal("868.5"))
