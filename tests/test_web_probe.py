"""The club table tried as an attacker would (a stranger, a player, the dealer): what broke.

Each test names the probe that first broke it; each runs on SQLite and, where
ANDAR_BAHAR_TEST_POSTGRES_URL is set, on PostgreSQL too.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from andar_bahar.club.limits import Limits, client_key
from andar_bahar.club.seats import MAX_DEALER_DEVICES
from andar_bahar.web.app import create_app
from andar_bahar.web.live.hub import HEARTBEAT, POLICY_VIOLATION, SERVICE_RESTART
from andar_bahar.web.pages import new_table as new_table_pages

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
    assert stranger.post("/tables/design", data={**form, "step": "0.009"}).status_code == 400
    # The finest step itself is taken (over an edge of 1%…2%: the widest one's eight seconds
    # of work at this step are the slow tier's test below).
    narrow = {**form, "step": "0.01", "edge": "1%-2%"}
    assert stranger.post("/tables/design", data=narrow).status_code == 200


@pytest.mark.slow
def test_the_finest_step_over_the_widest_edge_is_answered(app: Any) -> None:
    """The costliest design a stranger may ask for (step 0.01, mangatha, edge -50%…99%: some
    8 s of a core) is worked out and answered, not refused."""
    stranger = browser(app)
    form = designer_form(stranger.get("/tables/new").text, step="0.01")
    assert stranger.post("/tables/design", data=form).status_code == 200


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


# -- guessing: the limits per address and per table ---------------------------------------------


def test_an_ipv6_network_counts_as_one_address(app: Any) -> None:
    """Probe: each address of one IPv6 /64 had its own count of wrong seat codes, and one
    phone holds 2⁶⁴ of them — the limit on guessing did not hold at all."""
    code, made = a_table(browser(app))
    seat = admit(browser(app), code, made["dealer_token"], "Asha")
    answers = []
    for n in range(1, 7):  # six neighbours, one wrong seat code each
        guesser = browser(app, f"2001:db8:0:7::{n:x}")
        answers.append(guesser.post(f"/api/tables/{code}/join", json={"seat_code": "AAA-AAA"}))
    assert [a.status_code for a in answers] == [403] * 4 + [429] * 2
    assert "Too many wrong seat codes" in answers[-1].json()["error"]
    elsewhere = browser(app, "2001:db8:0:8::1")  # another network: its own count
    assert elsewhere.post(f"/api/tables/{code}/join", json={"seat_code": seat}).status_code == 200


def test_a_client_s_key_for_the_limits() -> None:
    assert (
        client_key("2001:db8:0:7::1") == client_key("2001:DB8:0:7:ffff::2") == "2001:db8:0:7::/64"
    )
    assert client_key("::ffff:192.0.2.7") == client_key("192.0.2.7") == "192.0.2.7"
    assert client_key("testclient") == "testclient"  # not an address: counted as it is


def locked_by_a_stranger(app: Any, code: str, stranger_address: str) -> None:
    """A stranger's wrong PINs lock the table for anyone not known to it."""
    stranger = browser(app, stranger_address)
    for n in range(LOCKING.failures):
        wrong = stranger.post(f"/api/tables/{code}/login", json={"pin": f"wrong-{n}"})
        assert wrong.status_code == 403
    unknown = browser(app, "192.0.2.7").post(f"/api/tables/{code}/login", json={"pin": PIN})
    assert unknown.status_code == 429


def test_a_stranger_s_wrong_pins_never_lock_out_a_device_the_dealer_used_before(app: Any) -> None:
    """Probe: four wrong PINs (ten by default) every quarter of an hour, from one address,
    kept the table locked forever — the dealer, signed out or on a fresh browser, could never
    sign in again. A device that signed in at the table before is now counted on its own."""
    laptop = browser(app, "192.0.2.7")
    form = {"name": "Friday", "pin": PIN, "procedure": "classic", "paytable": "wizard",
            "csrf_token": csrf_of(laptop.get("/tables/new").text)}  # fmt: skip
    created = laptop.post("/tables", data=form, follow_redirects=False)
    assert created.status_code == 303
    code = created.headers["location"].rsplit("/", 1)[-1]
    page = laptop.get(f"/dealer/{code}").text
    assert laptop.post(f"/dealer/{code}/logout", data={"csrf_token": csrf_of(page)},
                       follow_redirects=False).status_code == 303  # fmt: skip

    locked_by_a_stranger(app, code, "203.0.113.9")
    login = csrf_of(laptop.get(f"/dealer/{code}/login").text)
    back = laptop.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": login},
                       follow_redirects=False)  # fmt: skip
    assert back.status_code == 303 and back.headers["location"] == f"/dealer/{code}"
    assert "Only the dealer" not in laptop.get(f"/dealer/{code}").text

    # Over the API: the device a login or a new table answers with.
    api = browser(app, "192.0.2.8")
    made = ok(api.post("/api/tables", json={"name": "Sat", "pin": PIN, "paytable": "wizard"}))
    other = made["code"]
    locked_by_a_stranger(app, other, "203.0.113.10")
    again = ok(api.post(f"/api/tables/{other}/login", json={"pin": PIN, "device": made["device"]}))
    assert again["device"] == made["device"] and again["dealer_token"]
    # A device of another table is a stranger here; the device's own wrong PINs count for it.
    assert api.post(f"/api/tables/{code}/login",
                    json={"pin": PIN, "device": made["device"]}).status_code == 429  # fmt: skip
    for n in range(LOCKING.failures):
        own = api.post(
            f"/api/tables/{other}/login", json={"pin": f"typo-{n}", "device": made["device"]}
        )
        assert own.status_code == 403
    assert api.post(f"/api/tables/{other}/login",
                    json={"pin": PIN, "device": made["device"]}).status_code == 429  # fmt: skip
    forged = made["device"][:-3] + "AAA"
    assert (
        api.post(f"/api/tables/{other}/login", json={"pin": PIN, "device": forged}).status_code
        == 429
    )


def test_an_eleventh_sign_in_signs_out_the_oldest_device_and_says_so(api: TestClient) -> None:
    """Probe: ten sign-ins whose tokens were lost (a browser closed: the dealer's cookie lasts
    a session) and the table could never have a dealer again — nothing signs a lost device
    out. Now the oldest device is signed out, in the audit log, and the new one is in."""
    code, made = a_table(api)
    first = bearer(made["dealer_token"])
    tokens = [ok(api.post(f"/api/tables/{code}/login", json={"pin": PIN}))["dealer_token"]
              for _ in range(MAX_DEALER_DEVICES)]  # fmt: skip
    newest = bearer(tokens[-1])
    gone = api.get(f"/api/tables/{code}/audit", headers=first)
    assert gone.status_code == 403  # the device the table was created on: the oldest
    assert api.get(f"/api/tables/{code}/audit", headers=bearer(tokens[0])).status_code == 200
    audit = ok_list(api.get(f"/api/tables/{code}/audit", headers=newest))
    signed_out = [a for a in audit if a["action"] == "logout"]
    assert len(signed_out) == 1 and str(MAX_DEALER_DEVICES) in signed_out[0]["reason"]


def ok_list(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()
    return data


# -- live sockets of devices signed out ----------------------------------------------------------


def messages_until_closed(socket: Any, leak: str) -> list[dict[str, Any]]:
    """Every message a socket gets until the server closes it (a message with *leak* fails)."""
    got: list[dict[str, Any]] = []

    def receive() -> None:
        while True:
            text = socket.receive_text()
            if text == HEARTBEAT:  # the server's, when it has nothing else to say
                continue
            message = json.loads(text)
            assert leak not in json.dumps(message), f"a signed-out device got: {message}"
            got.append(message)

    with pytest.raises(WebSocketDisconnect) as closed:
        receive()
    assert closed.value.code == SERVICE_RESTART  # it reconnects: who it is now is asked again
    return got


@pytest.mark.timeout(60)
def test_a_phone_signed_out_by_the_dealer_stops_getting_the_player_s_blocks(
    app: Any, api: TestClient
) -> None:
    """Probe: a stranger took Asha's seat; the dealer gave it a new code (the stranger's phone
    is signed out) — and the stranger's open page went on getting Asha's balance and bets,
    live, for as long as it stayed open."""
    code, made = a_table(api)
    dealer = bearer(made["dealer_token"])
    thief = join_in_browser(app, code, admit(api, code, made["dealer_token"], "Asha", "777"))
    with thief.websocket_connect(f"/ws/{code}?page=player&v=0") as socket:
        first = socket.receive_json()
        assert first["data"]["balance"] == "777" and "me" in first["blocks"]  # hers, for now
        seat = ok(api.post(f"/api/tables/{code}/seats/reissue", json={"name": "Asha"},
                           headers=dealer))["seat_code"]  # fmt: skip
        ok(api.post(f"/api/tables/{code}/join", json={"seat_code": seat}))
        ok(api.post(f"/api/tables/{code}/cash", json={"name": "Asha", "amount": "23",
                    "action": "top-up"}, headers=dealer))  # fmt: skip
        messages_until_closed(socket, '"800"')
    with thief.websocket_connect(f"/ws/{code}?page=player&v=0") as socket:  # back: a stranger
        again = socket.receive_json()
        assert "me" not in again["blocks"] and "balance" not in again["data"]
        assert set(again["blocks"]) == {"table", "strip", "road"}


@pytest.mark.timeout(60)
def test_a_dealer_device_signed_out_stops_getting_the_dealer_s_blocks(
    app: Any, api: TestClient
) -> None:
    """The same for the dealer's screen: the oldest device, signed out by an eleventh sign-in,
    stops getting everyone's bets and balances, and may not follow the dealer's page again."""
    laptop = browser(app)
    form = {"name": "Friday", "pin": PIN, "procedure": "classic", "paytable": "wizard",
            "csrf_token": csrf_of(laptop.get("/tables/new").text)}  # fmt: skip
    code = laptop.post("/tables", data=form, follow_redirects=False).headers["location"][8:]
    with laptop.websocket_connect(f"/ws/{code}?page=dealer&v=-1") as socket:
        assert "players" in socket.receive_json()["blocks"]
        tokens = [ok(api.post(f"/api/tables/{code}/login", json={"pin": PIN}))["dealer_token"]
                  for _ in range(MAX_DEALER_DEVICES)]  # fmt: skip
        admit(api, code, tokens[-1], "Gela", "987")
        messages_until_closed(socket, "Gela")
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        laptop.websocket_connect(f"/ws/{code}?page=dealer&v=-1") as socket,
    ):
        socket.receive_json()
    assert refused.value.code == POLICY_VIOLATION


# -- characters no database column takes ----------------------------------------------------------


def test_control_characters_are_refused_with_a_sentence_never_a_500(api: TestClient) -> None:
    """Probe: a NUL character (``\\u0000``) in a table's or a player's name, a reason, a bet's
    key or a table code answered 500 on PostgreSQL (its text cannot hold one) — from the
    players' side too. Now each is refused with a sentence, the table unchanged."""
    code, made = a_table(api)
    dealer = bearer(made["dealer_token"])
    player = bearer(ok(api.post(f"/api/tables/{code}/join",
                                json={"seat_code": admit(api, code, made["dealer_token"], "Asha")}))["token"])  # fmt: skip
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    version = ok(api.get(f"/api/tables/{code}", headers=dealer))["version"]
    refusals = {
        "/api/tables": ({"name": "Fri\x00day", "pin": PIN}, {}, "table's name"),
        f"/api/tables/{code}/players": ({"name": "Gela\x00", "balance": "5"}, dealer, "name"),
        f"/api/tables/{code}/cash": (
            {"name": "Asha", "amount": "5", "action": "top-up", "reason": "late\x00"}, dealer,
            "reason",
        ),
        f"/api/tables/{code}/seats/release": ({"name": "Asha\x00"}, dealer, "not at table"),
        f"/api/tables/{code}/bets": (
            {"bet": "andar", "stake": "5", "key": "k\x00"}, player, "printable characters",
        ),
        f"/api/tables/{code}%00/join": ({"seat_code": "ABC-DEF"}, {}, "no table with the code"),
    }  # fmt: skip
    for path, (body, headers, said) in refusals.items():
        refused = api.post(path, json=body, headers=headers)
        assert refused.status_code in (400, 403), (path, refused.text)
        assert said in refused.json()["error"], (path, refused.text)
    for text in ("Asha\tB", "Line\nbreak", "Bell\x07"):
        named = api.post(f"/api/tables/{code}/players", json={"name": text}, headers=dealer)
        assert "control character" in named.json()["error"]
    assert ok(api.get(f"/api/tables/{code}", headers=dealer))["version"] == version
    assert api.get(f"/play/{code}%00").status_code == 400


# -- reads that took the writer's lock ----------------------------------------------------------------


@pytest.mark.timeout(60)
def test_the_statement_and_the_audit_log_never_wait_for_the_writer(api: TestClient) -> None:
    """Probe: ``/dealer/CODE/statement`` and ``…/audit``, asked by anyone (refused without the
    dealer's cookie, but only after the check), took SQLite's writer lock — so a stranger
    asking many times held up every bet. They only read: they no longer queue for it."""
    code, made = a_table(api)
    service = api.app.state.service  # type: ignore[attr-defined]
    writer = (
        service.store.transactions._group.turn
        if service.store.transactions._group is not None
        else service.store.transactions._lock
    )
    if writer is None:
        pytest.skip("PostgreSQL has no writer's turn to wait for")
    answers: list[object] = []

    def read() -> None:
        answers.append(service.statement(code, made["dealer_token"]).code)
        answers.append(len(service.audit_log(code, made["dealer_token"])))
        answers.append(service.statement_local(code).code)
        answers.append(len(service.audit_local(code)))

    with writer:  # a writer at work
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(10)
        assert not reader.is_alive(), "the reads waited for the writer"
    assert answers == [code, 1, code, 1]


# -- links on the pages --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/%2F%2Fevil.example", "/%2F/evil.example/x", "/%5C/evil.example"]
)
def test_no_link_on_a_page_leads_to_another_site(app: Any, path: str) -> None:
    """Probe: a link to ``http://club/%2F%2Fevil.example`` showed the club's "no such page"
    with a language switcher whose links were ``///evil.example?lang=ru`` — which a browser
    follows to evil.example (a look-alike join page could then ask for seat codes)."""
    page = browser(app).get(path)
    assert page.status_code == 404
    links = re.findall(r'href="([^"]*)"', page.text)
    assert links and all(link.startswith(("/", "?", "#")) for link in links)
    assert [link for link in links if link.startswith("//")] == []  # "///x" too: another site


# -- a round dealt from a real deck ----------------------------------------------------------------


def test_every_screen_says_when_a_round_has_no_commitment(api: TestClient, app: Any) -> None:
    """Probe: the dealer opened a round "from a real deck" (the cards typed in as turned,
    after every bet is on the dealer's screen) and the phones and the room's screen looked
    the same as with a committed deck — only the commitment line was missing. They now say
    that the round rests on the cards on the table."""
    code, made = a_table(api)
    dealer = bearer(made["dealer_token"])
    phone = join_in_browser(app, code, admit(api, code, made["dealer_token"], "Asha"))
    said = "dealt from a real deck"
    ok(api.post(f"/api/tables/{code}/rounds", json={}, headers=dealer))
    assert "Deck commitment" in phone.get(f"/play/{code}").text
    assert said not in phone.get(f"/play/{code}").text
    ok(api.post(f"/api/tables/{code}/actions/centre", json={}, headers=dealer))
    while (
        ok(api.post(f"/api/tables/{code}/actions/deal", json={}, headers=dealer))["status"]
        == "open"
    ):
        pass
    ok(api.post(f"/api/tables/{code}/actions/settle", json={}, headers=dealer))
    ok(api.post(f"/api/tables/{code}/rounds", json={"physical": True}, headers=dealer))
    for page in (f"/play/{code}", f"/display/{code}"):
        shown = phone.get(page).text
        assert said in shown and "Deck commitment" not in shown, page


def test_a_round_is_dealt_from_a_real_deck_only_when_the_program_says_true(
    api: TestClient,
) -> None:
    """Probe: ``{"physical": "false"}`` opened a round from a real deck (any non-empty text
    counted as yes) — no commitment, the cards typed by the dealer. Only ``true`` does."""
    code, made = a_table(api)
    dealer = bearer(made["dealer_token"])
    for wrong in ("false", "no", 1, "true"):
        refused = api.post(f"/api/tables/{code}/rounds", json={"physical": wrong}, headers=dealer)
        assert refused.status_code == 400, wrong
        assert "'physical' must be true or false" in refused.json()["error"]
    assert ok(api.get(f"/api/tables/{code}", headers=dealer))["round"] is None
    committed = ok(api.post(f"/api/tables/{code}/rounds", json={"physical": False}, headers=dealer))
    assert committed["physical"] is False and committed["commitment"]
