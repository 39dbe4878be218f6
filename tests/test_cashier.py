"""The cashier's refusals and the statement's own figures, on SQLite and PostgreSQL.

A cash-out is refused over the balance — exactly the balance is the most (not, say, twice
it); the statement's "rounds settled" counts every settled round (a void one too) and its
"chips still with the players" is the sum of their balances, which the ledger's kinds add
up to: bought in + topped up − cashed out + returned − staked.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from decimal import Decimal

import pytest

from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import BetError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage


@pytest.fixture
def service(database_url: str) -> Iterator[TableService]:
    storage = Storage.open(database_url)
    yield TableService(storage, rng=random.Random(6))
    storage.close()


def _table(service: TableService) -> tuple[str, str]:
    table = service.create_table(name="Cash", kind="betting", pin="246813",
                                 procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
    return table.code, table.dealer_token


def test_a_cash_out_over_the_balance_is_refused_and_the_balance_itself_is_the_most(
    service: TableService,
) -> None:
    code, dealer = _table(service)
    service.admit_player(code, dealer, "Asha", "500")
    # Source: the wizard table's chip is 1, so 501 is the balance and the smallest unit more.
    for too_much in ("501", "1000", "999"):  # 1000 = 2 × the balance: refused, as 501 is
        with pytest.raises(BetError, match=r"Asha has 500 chips: .* cannot be cashed out"):
            service.cash_out(code, dealer, "Asha", too_much)
    assert service.statement(code, dealer).players[0].cashed_out == 0  # nothing moved
    assert service.cash_out(code, dealer, "Asha", "500") == 0  # exactly the balance
    with pytest.raises(BetError, match="Asha has 0 chips: 1 cannot be cashed out"):
        service.cash_out(code, dealer, "Asha", "1")
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
