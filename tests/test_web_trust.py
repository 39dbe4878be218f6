"""Trust at the table (issue 10), over the JSON API, on SQLite and PostgreSQL.

Voids, the dealer's PIN and its lockout, seat codes, public and private state, request
bounds, idempotency conflicts, the cashier's ledger and statement, the migration of old
ledgers. Every test runs on SQLite and, where ANDAR_BAHAR_TEST_POSTGRES_URL is set (as in
.ci/run), on PostgreSQL too.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError, IntegrityError
from typer.testing import CliRunner

from andar_bahar.cli import app as cli_app
from andar_bahar.club import store
from andar_bahar.club.service import TableService
from andar_bahar.engine.errors import AccessError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.engines import alembic_config as _alembic_config
from andar_bahar.storage.models import ClubTableRow
from andar_bahar.web.app import create_app
from web_support import served as club_site
from web_support import served_by_command

PIN = "246813"


@pytest.fixture
def api(database_url: str) -> Iterator[TestClient]:
    with club_site(database_url, secret=b"t" * 32) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def table(api: TestClient, **extra: str) -> tuple[str, dict[str, str]]:
    made = api.post(
        "/api/tables", json={"name": "Friday", "pin": PIN, "paytable": "wizard", **extra}
    )
    assert made.status_code == 200, made.text
    return made.json()["code"], bearer(made.json()["dealer_token"])


def seated(api: TestClient, code: str, dealer: dict[str, str], name: str) -> dict[str, str]:
    seat = api.post(f"/api/tables/{code}/players", json={"name": name, "balance": "500"},
                    headers=dealer)  # fmt: skip
    assert seat.status_code == 200, seat.text
    joined = api.post(f"/api/tables/{code}/join", json={"seat_code": seat.json()["seat_code"]})
    assert joined.status_code == 200, joined.text
    return bearer(joined.json()["token"])


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def a_bet(api: TestClient, stake: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """A table with Asha seated (500 chips), a round open and her bet on Andar placed."""
    code, dealer = table(api)
    asha = seated(api, code, dealer, "Asha")
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": stake, "key": "1"},
                headers=asha))  # fmt: skip
    return code, dealer, asha


def settle_round(api: TestClient, code: str, dealer: dict[str, str]) -> dict[str, Any]:
    """Deal the stored deck to the match and settle; the settled round."""
    deal = f"/api/tables/{code}/actions/deal"
    while ok(api.post(deal, json={}, headers=dealer))["status"] == "open":
        pass
    return ok(api.post(f"/api/tables/{code}/actions/settle", json={}, headers=dealer))


# -- voids -----------------------------------------------------------------------------------


def test_a_void_is_refused_on_the_committed_deck_and_kept_with_its_reason_on_a_real_one(
    api: TestClient,
) -> None:
    code, dealer, asha = a_bet(api, "100")
    ok(api.post(f"/api/tables/{code}/actions/deal", json={}, headers=dealer))  # the centre
    refused = api.post(f"/api/tables/{code}/actions/void", json={"reason": "misdeal"},
                       headers=dealer)  # fmt: skip
    assert refused.status_code == 400
    assert "cannot be void" in refused.json()["error"]
    assert ok(api.get(f"/api/tables/{code}", headers=dealer))["round"]["status"] == "open"

    # A real deck: the round is played on, void only with a reason, shown to everyone.
    settle_round(api, code, dealer)
    ok(api.post(f"/api/tables/{code}/rounds", json={"physical": True}, headers=dealer))
    ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "50", "key": "2"},
                headers=asha))  # fmt: skip
    ok(api.post(f"/api/tables/{code}/actions/centre", json={"card": "QH"}, headers=dealer))
    ok(api.post(f"/api/tables/{code}/actions/deal", json={"card": "2C"}, headers=dealer))
    no_reason = api.post(f"/api/tables/{code}/actions/void", json={}, headers=dealer)
    assert no_reason.status_code == 400 and no_reason.json()["error"] == "Give a reason."
    voided = ok(api.post(f"/api/tables/{code}/actions/void", json={"reason": "misdeal"},
                         headers=dealer))  # fmt: skip
    assert voided["winner"] == "void" and voided["void_reason"] == "misdeal"
    settled = ok(api.post(f"/api/tables/{code}/actions/settle", json={}, headers=dealer))
    assert settled["void_reason"] == "misdeal"
    assert ok(api.get(f"/api/tables/{code}"))["round"]["void_reason"] == "misdeal"  # anyone
    audit = ok(api.get(f"/api/tables/{code}/audit", headers=dealer))
    assert isinstance(audit, list)
    assert [(a["action"], a["reason"]) for a in audit if a["action"] == "void"] == [
        ("void", "misdeal")
    ]
    history = api.app.state.service.recent_rounds(code)  # type: ignore[attr-defined]
    assert history[0].winner == "void"


# -- the dealer's PIN ------------------------------------------------------------------------------


def test_the_eleventh_wrong_pin_gets_429_even_with_the_right_pin(api: TestClient) -> None:
    # The service's clock stands still: every guess comes at the same instant, however long
    # a loaded machine takes over each (a moving clock let the waits run out between them).
    instant = datetime(2025, 3, 7, 21, 0, tzinfo=UTC)
    api.app.state.service.store.now = lambda: instant  # type: ignore[attr-defined]
    code, dealer = table(api)
    answers = [api.post(f"/api/tables/{code}/login", json={"pin": f"wrong{n}x"}) for n in range(11)]
    # Limits(): 3 failures are free and the 4th waits 0 s; after the 4th each must wait 1 s
    # and more, which no guess at the same instant does: 4 wrong, then 7 refused.
    assert [a.status_code for a in answers] == [403] * 4 + [429] * 7
    assert "PIN is not right" in answers[0].json()["error"]
    assert answers[-1].headers["Retry-After"] == "1"
    right = api.post(f"/api/tables/{code}/login", json={"pin": PIN})
    assert right.status_code == 429
    assert right.json()["error"] == "Too many wrong PINs: try again in 1 s."
    # The dealer's device already signed in still works, and every checked attempt is audited.
    audit = ok(api.get(f"/api/tables/{code}/audit", headers=dealer))
    assert isinstance(audit, list)
    failed = [a for a in audit if a["action"] == "login failed"]
    assert len(failed) == 4
    assert all(a["new"] == "unknown" for a in failed)  # the test client has no IP address


def test_a_second_dealer_device_works_beside_the_first_and_signs_out_alone(
    api: TestClient,
) -> None:
    code, first = table(api)
    second = bearer(ok(api.post(f"/api/tables/{code}/login", json={"pin": PIN}))["dealer_token"])
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=first))
    ok(api.post(f"/api/tables/{code}/actions/deal", json={}, headers=second))
    ok(api.post(f"/api/tables/{code}/logout", json={}, headers=second))
    gone = api.post(f"/api/tables/{code}/actions/deal", json={}, headers=second)
    assert gone.status_code == 403 and "Only the dealer" in gone.json()["error"]
    ok(api.post(f"/api/tables/{code}/actions/deal", json={}, headers=first))
    actions = [a["action"] for a in ok_list(api.get(f"/api/tables/{code}/audit", headers=first))]
    assert actions[:3] == ["create", "login", "logout"]


def ok_list(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()
    return data


HELD = 60.0
"""The longest the test below waits for anything (a deadline, never a measure)."""


def test_players_stay_fast_while_someone_guesses_the_pin(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """12 wrong PINs at once, their checks (a slow key derivation) held until a player has
    placed ten bets: the bets wait for no check. When the hash ran inside the table's
    transaction (the old code), the first bet waited behind a held check and never came."""
    slow = store.pin_matches
    checking = threading.Semaphore(0)
    release = threading.Event()

    def held_check(pin: str, stored: str) -> bool:
        checking.release()
        release.wait(HELD)
        return slow(pin, stored)

    monkeypatch.setattr("andar_bahar.club.seats.pin_matches", held_check)
    app = create_app(database_url=database_url, secret=b"t" * 32)
    with TestClient(app) as api:
        code, dealer = table(api)
        asha = seated(api, code, dealer, "Asha")
        ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
        guesses = [
            threading.Thread(
                target=lambda n=n: api.post(f"/api/tables/{code}/login", json={"pin": f"no{n}pin"})
            )
            for n in range(12)
        ]
        for guess in guesses:
            guess.start()
        placed: list[int] = []

        def bets() -> None:
            for n in range(10):
                answer = api.post(f"/api/tables/{code}/bets",
                                  json={"bet": "andar", "stake": str(10 + n), "key": f"b{n}"},
                                  headers=asha)  # fmt: skip
                placed.append(answer.status_code)

        bettor = threading.Thread(target=bets)
        try:
            assert checking.acquire(timeout=HELD), "no PIN was being checked"
            bettor.start()
            bettor.join(HELD)
            held = not release.is_set()
        finally:
            release.set()
            bettor.join()
            for guess in guesses:
                guess.join()
    app.state.service.storage.close()
    assert held and placed == [200] * 10, placed  # all ten placed while a check was held


@pytest.mark.production_pins
def test_new_tables_hash_their_pin_at_the_production_cost_unless_told_another(
    database_url: str,
) -> None:
    """Unless ``create_app`` is told a cost, a new table's PIN is scrypt at n = 2¹⁴, r = 8,
    p = 1 (16 MiB a hash: the cost from before it was a parameter), and the stored hash
    names it; a table made at another cost names that one. Either signs in with its PIN
    only."""
    for cost, named in (
        (None, "scrypt$16384$8$1$"),
        (store.PinCost(n=2**5, r=2, p=1), "scrypt$32$2$1$"),
    ):
        with club_site(database_url, secret=b"t" * 32, pin_cost=cost) as api:
            code, _ = table(api)
            wrong = api.post(f"/api/tables/{code}/login", json={"pin": "135792"})
            assert wrong.status_code == 403, wrong.text
            ok(api.post(f"/api/tables/{code}/login", json={"pin": PIN}))
            with api.app.state.service.storage.engine.connect() as conn:  # type: ignore[attr-defined]
                stored = conn.scalar(
                    sa.select(ClubTableRow.pin_hash).where(ClubTableRow.code == code)
                )
        assert stored.startswith(named), stored
    assert store.PinCost() == store.PinCost(n=2**14, r=8, p=1)


def test_a_pin_hash_verifies_at_the_cost_it_names_and_an_unnamed_one_at_the_old_cost(
    database_url: str,
) -> None:
    """A stored hash verifies at the cost it names, whatever the current one (the tests'
    quick cost here). A club's table from before hashes named their cost stores
    ``salt$hash``: scrypt at n = 2¹⁴, r = 8, p = 1, computed here with hashlib as it was
    then; its dealer still signs in with the PIN, and only with it."""
    salt = bytes(range(16))
    old = f"{salt.hex()}${hashlib.scrypt(PIN.encode(), salt=salt, n=2**14, r=8, p=1).hex()}"
    assert store.pin_hash(PIN, salt, store.PinCost()) == f"scrypt$16384$8$1${old}"
    for stored in (old, store.pin_hash(PIN, cost=store.PinCost(n=2**6, r=1, p=2))):
        assert store.pin_matches(PIN, stored)
        assert not store.pin_matches("246814", stored)
    service = TableService(Storage.open(database_url))
    made = service.create_table(name="Old", kind="betting", pin=PIN,
                                procedure=find_procedure("classic"),
                                paytable=find_paytable("wizard"))  # fmt: skip
    with service.storage.engine.begin() as conn:
        conn.execute(
            sa.update(ClubTableRow).where(ClubTableRow.code == made.code).values(pin_hash=old)
        )
    service.release(made.code)  # read the table again, as a server started on the old database
    with pytest.raises(AccessError):
        service.dealer_login(made.code, "135792")
    assert service.dealer_login(made.code, PIN)
    service.storage.close()


# -- seats ------------------------------------------------------------------------------------------


def test_a_join_needs_the_seat_code_and_a_reissued_code_signs_the_old_device_out(
    api: TestClient,
) -> None:
    code, dealer = table(api)
    seat = ok(api.post(f"/api/tables/{code}/players", json={"name": "Asha", "balance": "500"},
                       headers=dealer))["seat_code"]  # fmt: skip
    assert len(seat) == 7 and seat[3] == "-"
    for body in ({"name": "Asha"}, {}, {"seat_code": "AAA-AAA"}):
        refused = api.post(f"/api/tables/{code}/join", json=body)
        assert refused.status_code == 403 and "seat code" in refused.json()["error"]
    phone = bearer(
        ok(api.post(f"/api/tables/{code}/join", json={"seat_code": seat.lower()}))["token"]
    )
    assert ok(api.get(f"/api/tables/{code}", headers=phone))["players"][0]["name"] == "Asha"
    used = api.post(f"/api/tables/{code}/join", json={"seat_code": seat})
    assert used.status_code == 403  # a seat code takes a seat once

    new = ok(api.post(f"/api/tables/{code}/seats/reissue", json={"name": "Asha",
                      "reason": "phone died"}, headers=dealer))["seat_code"]  # fmt: skip
    old = api.get(f"/api/tables/{code}", headers=phone)
    assert old.status_code == 403
    assert "new seat code: this device is signed out" in old.json()["error"]
    again = bearer(ok(api.post(f"/api/tables/{code}/join", json={"seat_code": new}))["token"])
    assert ok(api.get(f"/api/tables/{code}", headers=again))["players"][0]["balance"] == "500"

    paid = ok(api.post(f"/api/tables/{code}/seats/release", json={"name": "Asha"},
                       headers=dealer))  # fmt: skip
    assert paid == {"cashed_out": "500"}
    released = api.get(f"/api/tables/{code}", headers=again)
    assert released.status_code == 403 and "released" in released.json()["error"]
    assert ok(api.get(f"/api/tables/{code}", headers=dealer))["players"] == []


def test_the_state_shows_balances_and_bets_only_to_whom_they_belong(api: TestClient) -> None:
    code, dealer = table(api)
    asha, ravi = seated(api, code, dealer, "Asha"), seated(api, code, dealer, "Ravi")
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    for who, key in ((asha, "a"), (ravi, "r")):
        ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "10", "key": key},
                    headers=who))  # fmt: skip
    anyone = api.get(f"/api/tables/{code}")
    assert anyone.status_code == 200
    public = anyone.json()
    assert public["players"] == [] and public["round"]["bets"] == []
    assert "balance" not in anyone.text and '"stake"' not in anyone.text
    mine = ok(api.get(f"/api/tables/{code}", headers=asha))
    assert [p["name"] for p in mine["players"]] == ["Asha"]
    assert [b["player"] for b in mine["round"]["bets"]] == ["Asha"]
    everything = ok(api.get(f"/api/tables/{code}", headers=dealer))
    assert {p["name"] for p in everything["players"]} == {"Asha", "Ravi"}
    assert len(everything["round"]["bets"]) == 2


# -- bounds -------------------------------------------------------------------------------------


def test_bounds_413_409_and_ascii_digits(api: TestClient) -> None:
    code, dealer = table(api)
    asha = seated(api, code, dealer, "Asha")
    big = api.post(f"/api/tables/{code}/players", content=b'{"name": "' + b"x" * 2**20 + b'"}',
                   headers={**dealer, "Content-Type": "application/json"})  # fmt: skip
    assert big.status_code == 413 and "64 KiB" in big.json()["error"]
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    first = ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "10",
                        "key": "k"}, headers=asha))  # fmt: skip
    same = ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "10",
                       "key": "k"}, headers=asha))  # fmt: skip
    assert same == first
    other = api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "20", "key": "k"},
                     headers=asha)  # fmt: skip
    assert other.status_code == 409 and "already used" in other.json()["error"]
    for stake, why in (("１０", "digits 0 to 9"), ("٣", "digits 0 to 9"), ("1e2", "digits 0 to 9"),
                       ("1 0", "separator out of place")):  # fmt: skip
        refused = api.post(f"/api/tables/{code}/bets",
                           json={"bet": "bahar", "stake": stake, "key": stake}, headers=asha)  # fmt: skip
        assert refused.status_code == 400
        assert why in refused.json()["error"]
    assert [b["stake"] for b in ok(api.get(f"/api/tables/{code}", headers=dealer))["round"]
            ["bets"]] == ["10"]  # fmt: skip
    fractional = api.post(f"/api/tables/{code}/players", json={"name": "Ravi", "balance": "12.5"},
                          headers=dealer)  # fmt: skip
    assert fractional.status_code == 400 and "whole number of chips" in fractional.json()["error"]
    long_name = api.post("/api/tables", json={"name": "x" * 61, "pin": PIN})
    assert long_name.status_code == 400 and "at most 60" in long_name.json()["error"]


def test_table_creation_is_limited_per_address(database_url: str) -> None:
    from andar_bahar.club.limits import Limits

    app = create_app(database_url=database_url, secret=b"t" * 32, limits=Limits(tables_per_hour=3))
    with TestClient(app) as api:
        for _ in range(3):
            table(api)
        fourth = api.post("/api/tables", json={"name": "Again", "pin": PIN})
        assert fourth.status_code == 429 and "Too many new tables" in fourth.json()["error"]
        assert int(fourth.headers["Retry-After"]) > 3000
    app.state.service.storage.close()


# -- behind a reverse proxy ------------------------------------------------------------------


def served(monkeypatch: pytest.MonkeyPatch, folder: Path, *options: str) -> tuple[Any, Any]:
    """The app as ``andar-bahar serve OPTIONS`` hands it to uvicorn, and as uvicorn wraps
    it, with one new table per address an hour."""
    from andar_bahar.club.limits import Limits

    return served_by_command(monkeypatch, folder, Limits(tables_per_hour=1), *options)


def new_table(client: TestClient, forwarded_for: str) -> int:
    headers = {"X-Forwarded-For": forwarded_for}
    return client.post(
        "/api/tables", json={"name": "Club", "pin": PIN}, headers=headers
    ).status_code


def test_behind_a_proxy_the_limits_count_the_forwarded_address(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    application, loaded = served(monkeypatch, tmp_path, "--proxy", "127.0.0.1")
    proxy = TestClient(loaded, client=("127.0.0.1", 40000))
    phone = TestClient(loaded, client=("192.168.1.50", 40000))  # on the club's network
    assert new_table(proxy, "203.0.113.7") == 200
    assert new_table(proxy, "203.0.113.7") == 429  # the same person again
    assert new_table(proxy, "198.51.100.2") == 200  # someone else behind the same proxy
    assert new_table(phone, "203.0.113.99") == 200  # a phone is no proxy: its header …
    assert new_table(phone, "198.51.100.3") == 429  # … is not believed
    application.state.service.storage.close()


def test_without_a_proxy_x_forwarded_for_is_not_believed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    application, loaded = served(monkeypatch, tmp_path)
    local = TestClient(loaded, client=("127.0.0.1", 40000))  # uvicorn alone would believe it
    assert new_table(local, "203.0.113.7") == 200
    assert new_table(local, "198.51.100.2") == 429  # the header changes nothing
    application.state.service.storage.close()


def test_a_proxy_that_is_no_address_is_refused_with_a_sentence(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite3")
    result = CliRunner().invoke(cli_app, ["serve", "--db", db, "--proxy", "*", "--lang", "en"])
    assert result.exit_code == 2
    assert "The proxy '*' is not an IP address or network" in result.output


# -- the ledger --------------------------------------------------------------------------------


def test_a_top_up_and_a_cash_out_appear_in_the_statement_and_the_ledger_sums_to_zero(
    api: TestClient,
) -> None:
    code, dealer, asha = a_bet(api, "100")
    early = api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "50",
                     "action": "cash-out"}, headers=dealer)  # fmt: skip
    assert early.status_code == 400 and "has bets in round 1" in early.json()["error"]
    settled = settle_round(api, code, dealer)
    won = settled["winner"] == "andar"
    after_round = 500 + (90 if won else -100)  # wizard: Andar pays 0.9 to 1
    up = ok(api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "200",
                     "action": "top-up", "reason": "second buy-in"}, headers=dealer))  # fmt: skip
    assert up == {"balance": str(after_round + 200)}
    down = ok(api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "300",
                       "action": "cash-out", "reason": "going home"}, headers=dealer))  # fmt: skip
    assert down == {"balance": str(after_round - 100)}
    too_much = api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "99999",
                        "action": "cash-out"}, headers=dealer)  # fmt: skip
    assert too_much.status_code == 400 and "cannot be cashed out" in too_much.json()["error"]

    sheet = ok(api.get(f"/api/tables/{code}/statement", headers=dealer))
    [line] = sheet["players"]
    assert (line["bought_in"], line["topped_up"], line["cashed_out"]) == ("500", "200", "300")
    assert line["staked"] == "100" and line["returned"] == ("190" if won else "0")
    assert line["balance"] == str(after_round - 100)
    assert [p["kind"] for p in sheet["postings"]][-2:] == ["top-up", "cash-out"]
    assert sheet["house_result"] == ("-90" if won else "100")
    csv_text = api.get(f"/api/tables/{code}/statement?format=csv", headers=dealer).text
    assert "top-up" in csv_text and "second buy-in" in csv_text
    service = api.app.state.service  # type: ignore[attr-defined]
    assert service.ledger_total(code) == 0
    with service.storage.engine.connect() as conn:  # the database sums it itself
        total = conn.execute(sa.text("SELECT sum(amount_micros) FROM ledger")).scalar_one()
    assert int(total) == 0
    refused = api.get(f"/api/tables/{code}/statement", headers=asha)
    assert refused.status_code == 403  # the statement is the dealer's


def test_deleting_a_player_or_a_round_with_postings_is_refused(api: TestClient) -> None:
    code, dealer, _ = a_bet(api, "10")
    settle_round(api, code, dealer)
    engine = api.app.state.service.storage.engine  # type: ignore[attr-defined]
    for statement in ("DELETE FROM table_players", "DELETE FROM table_rounds",
                      "DELETE FROM club_tables"):  # fmt: skip
        with pytest.raises(IntegrityError), engine.begin() as conn:
            conn.execute(sa.text(statement))
    with engine.connect() as conn:  # buy-in and stake, and a return if Andar won
        assert conn.execute(sa.text("SELECT count(*) FROM ledger")).scalar_one() in (4, 6)


def test_postgresql_refuses_to_commit_a_ledger_that_does_not_sum_to_zero(
    api: TestClient, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("the constraint trigger is PostgreSQL's (SQLite: the check in the service)")
    code, dealer = table(api)
    seated(api, code, dealer, "Asha")
    engine = api.app.state.service.storage.engine  # type: ignore[attr-defined]
    with pytest.raises(DBAPIError, match="sums to"), engine.begin() as conn:
        conn.execute(sa.text("UPDATE ledger SET amount_micros = amount_micros + 1 WHERE id = 1"))
    assert api.app.state.service.ledger_total(code) == 0  # type: ignore[attr-defined]


def test_the_service_refuses_a_ledger_that_does_not_sum_to_zero_and_names_the_sum(
    api: TestClient,
) -> None:
    """The service's own check (both databases; the database sums the whole millionths):
    a posting of 2.5 chips that nothing balances is refused, with the sum in chips."""
    from andar_bahar.club.cashier import check_balanced
    from andar_bahar.engine.errors import ActionError
    from andar_bahar.storage.models import ClubTableRow, LedgerRow

    code, dealer = table(api)
    seated(api, code, dealer, "Asha")
    service = api.app.state.service  # type: ignore[attr-defined]
    with service.store.transactions.write() as session:
        row = session.scalars(sa.select(ClubTableRow).where(ClubTableRow.code == code)).one()
        check_balanced(session, row)  # the buy-in and the house's: zero, accepted
        session.add(LedgerRow(table_id=row.id, round_id=None, player_id=None, kind="top-up",
                              amount=Decimal("2.5"), reason="", created_at=row.created_at))  # fmt: skip
        with pytest.raises(ActionError) as refused:
            check_balanced(session, row)
        session.rollback()
    assert "(2.5)" in refused.value.message.localized(None)
    assert service.ledger_total(code) == 0


def test_the_migration_converts_an_old_text_ledger_exactly(database_url: str) -> None:
    """A database at revision 0002 (amounts as text, one dealer token per table) with rows,
    upgraded: amounts become whole millionths, kinds are read from the old postings, the
    dealer's token still signs in."""
    storage = Storage.open(database_url)
    config = _alembic_config()
    with storage.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0002")
    token = "old-dealer-token"
    with storage.engine.begin() as conn:
        run = conn.execute
        run(sa.text(
            "INSERT INTO club_tables (id, code, name, kind, procedure_json, paytable_toml,"
            " pin_hash, dealer_token_hash, rounds_planned, scoring, created_at) VALUES (1, 'OLD234',"
            " 'Old', 'betting', '{}', '', 'x$y', :h, 10, true, '2026-11-30 20:00:00')"
        ), {"h": store.token_hash(token)})  # fmt: skip
        run(sa.text("INSERT INTO table_players (id, table_id, name, token_hash, admitted_at)"
                    " VALUES (1, 1, 'Asha', NULL, '2026-11-30 20:00:00')"))  # fmt: skip
        run(sa.text(
            "INSERT INTO table_rounds (id, table_id, number, status, record, opened_at)"
            " VALUES (1, 1, 1, 'settled', '{}', '2026-11-30 20:01:00')"
        ))  # fmt: skip
        for row_id, round_id, player_id, amount, reason in (
            (1, None, 1, "12.5", "chips in"), (2, None, None, "-12.5", "chips in: Asha"),
            (3, 1, 1, "-0.000001", "stake andar"), (4, 1, None, "0.000001", "Asha: stake andar"),
            (5, 1, 1, "1234567890123.5", "win andar"),
            (6, 1, None, "-1234567890123.5", "Asha: win andar"),
        ):  # fmt: skip
            run(sa.text("INSERT INTO ledger (id, table_id, round_id, player_id, amount, reason,"
                        " created_at) VALUES (:i, 1, :r, :p, :a, :why, '2026-11-30 20:02:00')"),
                {"i": row_id, "r": round_id, "p": player_id, "a": amount, "why": reason})  # fmt: skip
    storage.close()
    storage = Storage.open(database_url)  # upgrades to every head
    with storage.engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT id, amount_micros, kind FROM ledger ORDER BY id")).all()
        sessions = conn.execute(sa.text("SELECT token_hash FROM dealer_sessions")).scalars().all()
    assert [(i, int(m), k) for i, m, k in rows] == [
        (1, 12_500_000, "buy-in"), (2, -12_500_000, "buy-in"), (3, -1, "stake"), (4, 1, "stake"),
        (5, 1234567890123_500000, "return"), (6, -1234567890123_500000, "return"),
    ]  # fmt: skip
    assert sessions == [store.token_hash(token)]
    from andar_bahar.club.service import TableService

    service = TableService(storage)
    assert service.is_dealer("OLD234", token)
    assert service.ledger_total("OLD234") == 0
    assert service.statement("OLD234", token).players[0].balance == Decimal(
        "1234567890135.999999"
    )  # 12.5 - 0.000001 + win
    storage.close()


def test_history_statement_and_audit_at_the_command_line(database_url: str) -> None:
    from typer.testing import CliRunner

    from andar_bahar.cli import app as cli

    app = create_app(database_url=database_url, secret=b"t" * 32)
    with TestClient(app) as api:
        code, dealer = table(api)
        seated(api, code, dealer, "Asha")
        ok(api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "40",
                    "action": "cash-out", "reason": "bus home"}, headers=dealer))  # fmt: skip
    app.state.service.storage.close()
    runner = CliRunner()
    statement = runner.invoke(cli, ["history", "statement", code, "--db", database_url])
    assert statement.exit_code == 0, statement.output
    assert "Asha  500  0  40  0  0  460" in statement.output
    csv_text = runner.invoke(cli, ["history", "statement", code, "--csv", "--db", database_url])
    assert "cash-out" in csv_text.output and "bus home" in csv_text.output
    audit = runner.invoke(cli, ["history", "audit", code, "--db", database_url])
    assert audit.exit_code == 0 and "cash-out" in audit.output and "admit" in audit.output
