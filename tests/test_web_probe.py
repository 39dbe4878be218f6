"""The club table tried as an attacker would (a stranger, a player, the dealer): what broke.

Each test names the probe that first broke it; each runs on SQLite and, where
ANDAR_BAHAR_TEST_POSTGRES_URL is set, on PostgreSQL too.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from andar_bahar.web import new_table_pages
from andar_bahar.web.app import create_app
from andar_bahar.web.limits import Limits

PIN = "246813"
FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP, "CSV injection")."""
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
LOCKING = Limits(failures=4, free=4, window=timedelta(minutes=15))
"""Four wrong PINs in a quarter of an hour lock a table (the default is ten)."""


@pytest.fixture
def app(database_url: str) -> Iterator[Any]:
    made = create_app(database_url=database_url, secret=b"p" * 32, limits=LOCKING)
    yield made
    made.state.service.storage.close()


@pytest.fixture
def api(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def a_table(api: TestClient) -> tuple[str, dict[str, Any]]:
    made = ok(api.post("/api/tables", json={"name": "Friday", "pin": PIN, "paytable": "wizard"}))
    return made["code"], made


def admit(api: TestClient, code: str, dealer: str, name: str, balance: str = "500") -> str:
    seat = ok(api.post(f"/api/tables/{code}/players", json={"name": name, "balance": balance},
                       headers=bearer(dealer)))  # fmt: skip
    return str(seat["seat_code"])


def browser(app: Any, address: str = "testclient") -> TestClient:
    return TestClient(app, client=(address, 50000))


def csrf_of(page: str) -> str:
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def join_in_browser(app: Any, code: str, seat: str) -> TestClient:
    """A phone that joined with *seat* (its cookies hold the seat)."""
    phone = browser(app)
    token = csrf_of(phone.get(f"/seat/{code}/{seat}").text)
    joined = phone.post("/join", data={"code": code, "seat": seat, "csrf_token": token},
                        follow_redirects=False)  # fmt: skip
    assert joined.status_code == 303, joined.text
    return phone


# -- the statement's CSV -----------------------------------------------------------------------


def test_no_cell_of_the_statement_csv_is_a_spreadsheet_formula(api: TestClient) -> None:
    """Probe: a player admitted as ``=HYPERLINK(…)`` — the name went into the CSV as it was,
    and a spreadsheet opening the night's statement would run it (OWASP "CSV injection")."""
    code, made = a_table(api)
    dealer = bearer(made["dealer_token"])
    names = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3"]
    seats = [admit(api, code, made["dealer_token"], name) for name in names]
    ok(api.post(f"/api/tables/{code}/cash", json={"name": names[0], "amount": "5",
                "action": "top-up", "reason": "=1+1"}, headers=dealer))  # fmt: skip
    player = ok(api.post(f"/api/tables/{code}/join", json={"seat_code": seats[3]}))["token"]
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    ok(api.post(f"/api/tables/{code}/bets", json={"bet": "andar", "stake": "10", "key": "k"},
                headers=bearer(player)))  # fmt: skip
    deal = f"/api/tables/{code}/actions/deal"
    while ok(api.post(deal, json={}, headers=dealer))["status"] == "open":
        pass
    ok(api.post(f"/api/tables/{code}/actions/settle", json={}, headers=dealer))

    sheet = api.get(f"/api/tables/{code}/statement?format=csv", headers=dealer).text
    rows = list(csv.reader(io.StringIO(sheet)))
    cells = [cell for row in rows for cell in row]
    formulas = [c for c in cells if c[:1] in FORMULA and not NUMBER.fullmatch(c)]
    assert formulas == []
    # every name is still there, marked as text ('=…): once per posting and in the totals
    postings = ok(api.get(f"/api/tables/{code}/statement", headers=dealer))["postings"]
    for name in names:
        expected = 1 + sum(p["player"] == name for p in postings)
        assert cells.count("'" + name) == expected
    assert ["'-2+3", "stake", "1", "-10", "stake andar"] in [row[1:] for row in rows]  # a number


# -- the odds and the designer of a new table ---------------------------------------------------


def designer_form(page: str, **fields: str) -> dict[str, str]:
    return {"procedure": "mangatha", "paytable": "trainer-default", "edge": "-50%-99%",
            "step": "0.05", "csrf_token": csrf_of(page), **fields}  # fmt: skip


def test_a_designer_step_finer_than_a_hundredth_is_refused(app: Any) -> None:
    """Probe: ``/tables/design`` needs no sign-in, and a step of 0.00013 kept a core busy for
    over 100 s (mangatha, edge -50%…99%) — two such requests stopped the club's tables."""
    stranger = browser(app)
    form = designer_form(stranger.get("/tables/new").text, step="0.00013")
    refused = stranger.post("/tables/design", data=form)
    assert refused.status_code == 400
    assert "from 0.01 to 1000" in refused.text and "0.00013" in refused.text
    assert stranger.post("/tables/design", data={**form, "step": "0.01"}).status_code == 200


def test_one_table_s_odds_are_worked_out_at_a_time(app: Any) -> None:
    """Probe: anyone may ask for odds and designs; while one is being worked out the next
    request is told to try again (429), rather than take the cores the tables need."""
    stranger = browser(app)
    form = designer_form(stranger.get("/tables/new").text)
    slot = new_table_pages.ODDS_AT_ONCE
    assert slot.acquire(blocking=False)
    try:
        for path in ("/tables/design", "/tables/preview"):
            busy = stranger.post(path, data=form)
            assert busy.status_code == 429, busy.text
            assert "try again in" in busy.text and int(busy.headers["Retry-After"]) >= 1
    finally:
        slot.release()
    assert stranger.post("/tables/preview", data=form).status_code == 200
