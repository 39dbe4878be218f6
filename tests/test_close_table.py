"""Closing a table for the night: who may, what it refuses after, what stays possible.

The club's rule (docs/club-table.md): a closed table takes no round, bet, seat, join or top-up —
each refused in one sentence — while its cashier still cashes the players out; the
statement stays, and the ledger sums to zero throughout. The close is in the audit log
with the chips still on the players' balances. Its live pages get their last message (the
table closed) and their sockets end with 1008, as does any opened later; the process
lets go of the table. On SQLite, and on PostgreSQL in the slow tier.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import AccessError, AndarBaharError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.engines import alembic_config, migrating
from andar_bahar.web.live.hub import HEARTBEAT, POLICY_VIOLATION
from web_support import csrf, served

PIN = "246813"
CLOSED = "Table {code} is closed: the cashier can still cash the players out, nothing more."


@pytest.fixture
def service(database_url: str) -> Iterator[TableService]:
    storage = Storage.open(database_url)
    yield TableService(storage, rng=random.Random(8))
    storage.close()


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(AndarBaharError) as refused:
        call()
    return str(refused.value)


def _play(service: TableService, code: str, dealer: str) -> None:
    service.turn_centre(code, dealer)
    while service.deal(code, dealer).status == "open":
        pass
    service.settle(code, dealer)


def test_a_closed_table_refuses_play_and_still_cashes_out(service: TableService) -> None:
    table = service.create_table(name="Friday", kind="betting", pin="246813",
                                 procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
    code, dealer = table.code, table.dealer_token
    asha = service.join(code, service.admit_player(code, dealer, "Asha", "500"))
    nino_seat = service.admit_player(code, dealer, "Nino", "200")  # never joined
    service.open_round(code, dealer)
    service.place_bet(code, asha, "andar", "100", key="a1")
    # Refused while the round is open, the table unchanged.
    assert _refused(lambda: service.close_table(code, dealer)) == (
        "Round 1 is not settled: settle it (or void it), then close the table."
    )
    assert not service.state(code).closed
    _play(service, code, dealer)
    version = service.table_version(code)
    service.close_table(code, dealer, "end of the night")
    assert service.state(code).closed and service.is_closed(code)
    assert service.table_version(code) == version + 1  # a change the live pages follow
    said = CLOSED.format(code=code)
    for call in (
        lambda: service.open_round(code, dealer),
        lambda: service.place_bet(code, asha, "bahar", "10", key="late"),
        lambda: service.admit_player(code, dealer, "Ravi", "100"),
        lambda: service.join(code, nino_seat),
        lambda: service.top_up(code, dealer, "Asha", "10"),
        lambda: service.reissue_seat(code, dealer, "Asha"),
        lambda: service.change_paytable(code, dealer, find_paytable("joker"), "late"),
        lambda: service.close_table(code, dealer),
    ):
        assert _refused(call) == said
    assert service.table_version(code) == version + 1  # none of them changed anything
    # The cashier still cashes out: every balance back to zero, the ledger at zero.
    balances = {p.name: p.balance for p in service.state(code).players}
    service.cash_out(code, dealer, "Asha", str(balances["Asha"]))
    assert service.release_seat(code, dealer, "Nino") == 200
    assert service.statement(code, dealer).chips_out == 0
    assert service.ledger_total(code) == 0
    closes = [a for a in service.audit_log(code, dealer) if a.action == "close"]
    # Source: what the players held when the table closed, Nino's 200 and Asha's balance.
    assert [(c.actor, c.new_value, c.reason) for c in closes] == [
        ("dealer", str(200 + balances["Asha"]), "end of the night")
    ]


def test_only_the_dealer_closes_a_table(service: TableService) -> None:
    table = service.create_table(name="Lesson", kind="teaching", pin="246813",
                                 procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
    code = table.code
    asha = service.join(code, service.admit_player(code, table.dealer_token, "Asha", "0"))
    for token in ("", asha, "not-a-token"):
        with pytest.raises(AccessError, match=f"Only the dealer can do this at table {code}"):
            service.close_table(code, token)
    assert not service.state(code).closed
    assert _refused(lambda: service.close_table("NOPE", table.dealer_token)) == (
        "There is no table with the code NOPE: check the code."
    )


def test_the_migration_adds_the_closed_time_and_takes_it_away(database_url: str) -> None:
    """0007 down to 0006 and up again: a table closed before comes back open (the column
    is gone, then null), every other value kept."""
    with Storage.open(database_url) as storage:
        service = TableService(storage, rng=random.Random(8))
        table = service.create_table(name="Old", kind="betting", pin=PIN,
                                     procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
        service.close_table(table.code, table.dealer_token)
        config = alembic_config()
        with migrating(storage.engine) as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0006")
            columns = {c["name"] for c in sa.inspect(conn).get_columns("club_tables")}
            assert "closed_at" not in columns and "version" in columns
            command.upgrade(config, "head")
        service = TableService(storage, rng=random.Random(8))  # nothing kept from before
        assert not service.is_closed(table.code)
        assert service.state(table.code).name == "Old"


@pytest.fixture
def site(database_url: str) -> Iterator[TestClient]:
    with served(database_url) as client:
        yield client


def _betting_table(site: TestClient) -> tuple[str, dict[str, str], TestClient, TestClient]:
    """A table (its code, the dealer's API header), its dealer's browser and a seated phone."""
    created = site.post("/api/tables", json={"name": "Live", "pin": PIN, "paytable": "wizard"})
    code = created.json()["code"]
    api = {"Authorization": f"Bearer {created.json()['dealer_token']}"}
    dealer = TestClient(site.app)
    dealer.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": csrf(dealer)})
    seat = site.post(f"/api/tables/{code}/players", json={"name": "Asha", "balance": "500"},
                     headers=api).json()["seat_code"]  # fmt: skip
    phone = TestClient(site.app)
    phone.post("/join", data={"code": code, "seat": seat, "csrf_token": csrf(phone)})
    return code, api, dealer, phone


def test_the_dealer_closes_the_table_from_the_page_with_the_box_ticked(site: TestClient) -> None:
    code, api, dealer, phone = _betting_table(site)
    assert 'id="close-form"' in dealer.get(f"/dealer/{code}").text
    token = csrf(dealer, f"/dealer/{code}")
    unticked = dealer.post(f"/dealer/{code}/close", data={"csrf_token": token})
    assert unticked.status_code == 400
    assert "Tick the box to confirm that the table closes for the night." in unticked.text
    # Neither a phone (its seat) nor a stranger may close it, ticked or not.
    for other in (phone, TestClient(site.app)):
        refused = other.post(f"/dealer/{code}/close",
                             data={"csrf_token": csrf(other), "confirm": "1"})  # fmt: skip
        assert refused.status_code == 403
        assert f"Only the dealer can do this at table {code}." in refused.text
    assert site.get(f"/api/tables/{code}", headers=api).json()["closed"] is False
    closed = dealer.post(f"/dealer/{code}/close", data={"csrf_token": token, "confirm": "1"},
                         follow_redirects=False)  # fmt: skip
    assert closed.status_code == 303 and closed.headers["location"] == f"/dealer/{code}"
    page = dealer.get(f"/dealer/{code}").text
    assert 'id="close-form"' not in page and 'id="admit"' not in page
    # Every page says it is closed, and none still waits for a round (none was played).
    for shown in (page, phone.get(f"/play/{code}").text, site.get(f"/display/{code}").text):
        assert "The table is closed for the night" in shown
        assert "Waiting for the dealer to open a round." not in shown
    assert site.get(f"/api/tables/{code}", headers=api).json()["closed"] is True


def test_the_api_closes_for_the_dealer_alone_and_then_refuses_play(site: TestClient) -> None:
    code, api, _, _ = _betting_table(site)
    joined = site.post(f"/api/tables/{code}/players", json={"name": "Nino"}, headers=api)
    player = {"Authorization": "Bearer " + site.post(f"/api/tables/{code}/join",
              json={"seat_code": joined.json()["seat_code"]}).json()["token"]}  # fmt: skip
    for headers in (player, {}):
        refused = site.post(f"/api/tables/{code}/close", json={}, headers=headers)
        assert refused.status_code == 403
        assert refused.json() == {"error": f"Only the dealer can do this at table {code}."}
    site.post(f"/api/tables/{code}/rounds", json={}, headers=api)
    open_round = site.post(f"/api/tables/{code}/close", json={}, headers=api)
    assert open_round.status_code == 400
    assert open_round.json() == {
        "error": "Round 1 is not settled: settle it (or void it), then close the table."
    }
    step = site.post(f"/api/tables/{code}/actions/centre", json={}, headers=api)
    while step.json()["status"] == "open":
        step = site.post(f"/api/tables/{code}/actions/deal", json={}, headers=api)
    assert site.post(f"/api/tables/{code}/actions/settle", json={}, headers=api).is_success
    closed = site.post(f"/api/tables/{code}/close", json={"reason": "night"}, headers=api)
    assert closed.json() == {"code": code, "closed": True}
    said = {"error": CLOSED.format(code=code)}
    for path, body, headers in (
        ("rounds", {}, api),
        ("players", {"name": "Ravi", "balance": "10"}, api),
        ("bets", {"bet": "andar", "stake": "5", "key": "k"}, player),
    ):
        answer = site.post(f"/api/tables/{code}/{path}", json=body, headers=headers)
        assert (answer.status_code, answer.json()) == (400, said)
    # The cashier still cashes out (the web form, as at the end of any night).
    dealer_cash = site.post(f"/api/tables/{code}/seats/release", json={"name": "Nino"},
                            headers=api)  # fmt: skip
    assert dealer_cash.status_code == 200, dealer_cash.text


def _next(ws: Any) -> dict[str, Any] | int:
    """The next message (heartbeats skipped), or the close code the socket ended with."""
    while True:
        message = ws.receive()
        if message["type"] == "websocket.close":
            return int(message["code"])
        if message.get("text") != HEARTBEAT:
            return json.loads(message["text"])  # type: ignore[no-any-return]


def test_the_live_pages_are_told_and_then_let_go(site: TestClient) -> None:
    code, api, _, phone = _betting_table(site)
    version = site.get(f"/api/tables/{code}", headers=api).json()["version"]
    hub = site.app.state.hub  # type: ignore[attr-defined]
    with (
        phone.websocket_connect(f"/ws/{code}?page=player&v={version}") as mine,
        site.websocket_connect(f"/ws/{code}?page=display&v={version}") as screen,
    ):
        deadline = time.monotonic() + 10
        while not (code in hub.rooms and len(hub.rooms[code].followers) == 2):
            assert time.monotonic() < deadline, "the sockets did not follow within 10 s"
            time.sleep(0.01)
        site.post(f"/api/tables/{code}/close", json={}, headers=api)
        for ws in (mine, screen):
            told = _next(ws)
            assert isinstance(told, dict) and told["v"] == version + 1
            assert "data-table-closed" in told["blocks"]["table"]
            assert _next(ws) == POLICY_VIOLATION  # then the page stops following
    deadline = time.monotonic() + 10
    while code in hub.rooms:  # the room goes with its last socket
        assert time.monotonic() < deadline, "the room stayed after its sockets ended"
        time.sleep(0.01)
    engine = site.app.state.service.storage.engine  # type: ignore[attr-defined]
    while engine.pool.checkedin():  # the night's end here: its idle connections closed
        assert time.monotonic() < deadline, "the idle database connections stayed open"
        time.sleep(0.01)
    with phone.websocket_connect(f"/ws/{code}?page=player&v=0") as late:
        assert _next(late) == POLICY_VIOLATION
