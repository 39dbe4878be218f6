"""The live table pages over ``/ws/CODE`` (issue 9; the protocol: web/live/hub.py): what each socket is sent.

- A phone's socket gets the shared blocks of its page and its *own* blocks only; a public
  viewer (no seat) never a balance nor anyone's bet; the dealer's page everything.
- No message ever holds an undealt card (the deck is read from the database itself).
- A page that opens its socket with an old version gets every block of its page in one
  message; one that is current gets nothing until something changes.
- The dealer's page is refused (1008) without the dealer's cookie.
- The answer to a phone's own bet carries its own blocks (a fresh bet form, a new key);
  what a page's own action changed is not sent down that page's socket again.

On SQLite, and on PostgreSQL when ANDAR_BAHAR_TEST_POSTGRES_URL is set (there every
message comes back through LISTEN/NOTIFY).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from andar_bahar.engine.cards import Card
from andar_bahar.storage.models import TableRoundRow
from andar_bahar.web.live.blocks import LIVE_PAGES
from andar_bahar.web.live.hub import HEARTBEAT
from web_support import csrf, served

PLAYER_SHARED = set(LIVE_PAGES["player"].shared)
PLAYER_OWN = set(LIVE_PAGES["player"].private)

PIN = "246813"


@pytest.fixture
def site(database_url: str) -> Iterator[TestClient]:
    with served(database_url) as client:
        yield client


class Table:
    """A table with a dealer's browser, two seated phones and a stranger's browser."""

    def __init__(self, site: TestClient) -> None:
        created = site.post("/api/tables", json={"name": "Live", "pin": PIN, "paytable": "wizard"})
        self.code, self.token = created.json()["code"], created.json()["dealer_token"]
        self.api = {"Authorization": f"Bearer {self.token}"}
        self.dealer = TestClient(site.app)
        self.dealer.post(
            f"/dealer/{self.code}/login", data={"pin": PIN, "csrf_token": csrf(self.dealer)}
        )
        self.phones: dict[str, TestClient] = {}
        for name in ("Asha", "Ravi"):
            seat = site.post(f"/api/tables/{self.code}/players", json={"name": name, "balance": "500"},
                             headers=self.api).json()["seat_code"]  # fmt: skip
            phone = TestClient(site.app)
            phone.post("/join", data={"code": self.code, "seat": seat, "csrf_token": csrf(phone)})
            self.phones[name] = phone
        self.stranger = TestClient(site.app)
        self.site = site

    def version(self) -> int:
        return int(self.site.get(f"/api/tables/{self.code}", headers=self.api).json()["version"])

    def follow(self, client: TestClient, page: str, version: int) -> Any:
        return client.websocket_connect(f"/ws/{self.code}?page={page}&v={version}")

    def first_look_done(self) -> None:
        """Until every socket following the table has had its first look (a current page:
        nothing sent). Before that, a change counts as the page being behind: a catch-up."""
        deadline = time.monotonic() + 10
        while True:
            room = self.site.app.state.hub.rooms.get(self.code)  # type: ignore[attr-defined]
            if room is not None and room.followers and not any(f.full for f in room.followers):
                return
            assert time.monotonic() < deadline, "no first look within 10 s"
            time.sleep(0.01)

    def do(self, path: str, **body: object) -> dict[str, Any]:
        answer = self.site.post(f"/api/tables/{self.code}/{path}", json=body, headers=self.api)
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]


def next_message(ws: WebSocketTestSession, at_least: int) -> dict[str, Any]:
    """The next message whose version is at least *at_least* (earlier ones, and the
    server's heartbeats, are skipped)."""
    while True:
        text = ws.receive_text()
        if text == HEARTBEAT:
            continue
        message: dict[str, Any] = json.loads(text)
        if message["v"] >= at_least:
            return message


def test_each_socket_gets_only_what_its_viewer_may_see(site: TestClient) -> None:
    table = Table(site)
    v = table.version()
    with (
        table.follow(table.phones["Asha"], "player", v) as asha,
        table.follow(table.stranger, "player", v) as stranger,
        table.follow(table.dealer, "dealer", v) as dealer,
    ):
        table.first_look_done()  # else, on a busy machine, a late first look is a catch-up
        table.do("rounds")
        token = table.phones["Ravi"]
        page = token.get(f"/play/{table.code}").text
        assert "Ravi" in page and "Asha" not in page.split("<main", 1)[1]
        headers = {"HX-Request": "true", "X-CSRF-Token": csrf(token)}
        answer = token.post(f"/play/{table.code}/bet", data={"bet": "bahar", "stake": "37", "key": "r1"},
                            headers=headers)  # fmt: skip
        assert answer.headers["x-live"] == "1"
        mine = answer.json()
        assert set(mine["blocks"]) == PLAYER_OWN  # its own blocks only, at once
        assert "37" in json.dumps(mine["blocks"], ensure_ascii=False)
        opened = v + 1
        table.do("actions/deal")  # after the bet (opened + 1): a card, for every page
        seen_by = {
            name: [next_message(ws, opened), next_message(ws, opened + 1)]
            for name, ws in (("asha", asha), ("stranger", stranger), ("dealer", dealer))
        }
    # Ravi's bet tells another phone nothing it shows (the felt has no bets): it is not sent
    # there at all, and the next message another phone gets is the card's.
    assert seen_by["dealer"][1]["v"] == opened + 1
    assert seen_by["asha"][1]["v"] == seen_by["stranger"][1]["v"] == opened + 2
    text = {name: json.dumps(messages, ensure_ascii=False) for name, messages in seen_by.items()}
    assert "Ravi" in text["dealer"] and "37" in text["dealer"]  # the dealer sees every bet
    assert "Ravi" not in text["asha"] and "Ravi" not in text["stranger"]
    assert "balance" in seen_by["asha"][0]["data"] and PLAYER_OWN & set(
        seen_by["asha"][0]["blocks"]
    )
    assert "balance" not in text["stranger"]  # a public viewer: no balance, no one's bets
    assert all(set(m["blocks"]) <= PLAYER_SHARED for m in seen_by["stranger"])


def test_a_pages_own_action_is_not_sent_down_its_own_socket(site: TestClient) -> None:
    """A page names its socket (``?s=``) and sends that id with its actions (live.js,
    table.js): the change its action made comes in the action's answer, and its socket
    is not sent it again — only what else changed (events.ACTOR, followers.Messages.message).
    Another page of the same player, not named, gets its own blocks as before."""
    table = Table(site)
    v = table.version()
    asha, phone, dealer = "ashasock01", table.phones["Asha"], table.dealer
    with (
        phone.websocket_connect(f"/ws/{table.code}?page=player&v={v}&s={asha}") as named,
        table.follow(phone, "player", v) as other_tab,
        dealer.websocket_connect(f"/ws/{table.code}?page=dealer&v={v}&s=dealersock1") as desk,
    ):
        table.first_look_done()
        table.do("rounds")  # v + 1, by the API: no page's action
        for ws in (named, other_tab, desk):
            assert next_message(ws, v + 1)["v"] == v + 1
        bet = phone.post(f"/play/{table.code}/bet", data={"bet": "andar", "stake": "5", "key": "b1"},
                         headers={"HX-Request": "true", "X-CSRF-Token": csrf(phone),
                                  "X-Live-Socket": asha})  # fmt: skip
        assert set(bet.json()["blocks"]) == PLAYER_OWN  # v + 2: the answer brings them
        assert next_message(desk, v + 2)["v"] == v + 2  # the dealer's list of bets
        tab = next_message(other_tab, v + 2)
        assert tab["v"] == v + 2 and PLAYER_OWN & set(tab["blocks"])
        ravi = table.phones["Ravi"]  # names the dealer's socket: a player's bet is not the dealer's
        ravi.post(f"/play/{table.code}/bet", data={"bet": "bahar", "stake": "7", "key": "b2"},
                  headers={"HX-Request": "true", "X-CSRF-Token": csrf(ravi),
                           "X-Live-Socket": "dealersock1"})  # fmt: skip
        step = dealer.post(f"/dealer/{table.code}/round/deal",
                           headers={"HX-Request": "true", "X-CSRF-Token": csrf(dealer),
                                    "X-Live-Socket": "dealersock1"})  # fmt: skip
        assert step.json()["complete"] is True and step.json()["v"] == v + 4
        # Its own bet (v + 2) never comes down this socket; Ravi's bet (v + 3) may come on
        # its own or, read after the card was dealt, as v + 3 drawn at h = v + 4 (hub.py).
        seen = [next_message(named, v + 2)]
        while max(seen[-1]["v"], seen[-1].get("h", 0)) < v + 4:
            seen.append(next_message(named, seen[-1]["v"] + 1))
        assert [m["v"] for m in seen] in ([v + 4], [v + 3, v + 4], [v + 3])
        assert not any(PLAYER_OWN & set(m["blocks"]) for m in seen)
        table.do("actions/deal")  # v + 5
        assert next_message(desk, v + 3)["v"] == v + 3  # Ravi's bet: the dealer's page is told
        assert next_message(desk, v + 4)["v"] == v + 5  # its own card (v + 4) did not come


def test_no_message_holds_an_undealt_card(site: TestClient, database_url: str) -> None:
    table = Table(site)
    table.do("rounds")
    with site.app.state.service.store.transactions.read() as session:
        record = session.query(TableRoundRow).one().record
    deck = Card.parse_many(json.loads(record)["deck"])
    with (
        table.follow(table.phones["Asha"], "player", -1) as asha,
        table.follow(table.dealer, "dealer", -1) as dealer,
    ):
        texts = [json.dumps(asha.receive_json(), ensure_ascii=False),
                 json.dumps(dealer.receive_json(), ensure_ascii=False)]  # fmt: skip
        for turned in range(1, 4):
            held = site.app.state.service.state(table.code).round
            if held is None or held.status != "open":  # the deck matched early: nothing to deal
                break
            v = table.version()
            table.do("actions/deal")
            texts += [
                json.dumps(next_message(ws, v + 1), ensure_ascii=False) for ws in (asha, dealer)
            ]
            shown = {str(c) for c in deck[:turned]}
            undealt = {str(c) for c in deck[turned:]}
            for text in texts[-2:]:
                cards = {
                    f"{r}{s}"
                    for r, s in re.findall(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣])", text)
                }
                assert cards & shown and not cards & undealt


def test_an_old_page_catches_up_in_one_message_and_a_current_one_waits(site: TestClient) -> None:
    table = Table(site)
    stale = table.version()
    table.do("rounds")
    table.do("actions/deal")  # the centre card
    current = table.version()
    with table.follow(table.phones["Asha"], "player", stale) as old:
        caught_up = old.receive_json()
        assert caught_up["v"] == current and caught_up["kind"] == "sync"
        assert set(caught_up["blocks"]) == PLAYER_SHARED | PLAYER_OWN
        assert caught_up["data"]["card"] is not None and caught_up["data"]["round"] == 1
    with table.follow(table.phones["Asha"], "player", current) as fresh:
        table.first_look_done()  # else, on a busy machine, the deal may come first: a catch-up
        table.do("actions/deal")
        message = fresh.receive_json()  # the first message is the new card, not a catch-up
        assert message["v"] == current + 1 and message["kind"] == "deal"
        assert set(message["blocks"]) <= PLAYER_SHARED | PLAYER_OWN


def test_the_dealers_page_is_refused_without_the_dealers_cookie(site: TestClient) -> None:
    table = Table(site)
    for client in (table.stranger, table.phones["Asha"]):
        with table.follow(client, "dealer", 0) as ws:
            assert ws.receive() == {"type": "websocket.close", "code": 1008, "reason": ""}
    with site.websocket_connect("/ws/NOSUCH?page=player&v=0") as ws:
        assert ws.receive() == {"type": "websocket.close", "code": 1008, "reason": ""}


def test_the_bet_timer_is_in_the_live_data_and_the_state(site: TestClient) -> None:
    table = Table(site)
    v = table.version()
    with table.follow(table.phones["Asha"], "player", v) as asha:
        table.do("rounds", seconds=60)
        opened = next_message(asha, v + 1)
        deadline = opened["data"]["deadline"]
        assert deadline is not None and "data-deadline" in json.dumps(opened["blocks"])
        timed = table.do("timer", seconds=0)  # no timer after all
        assert timed["bets_deadline"] is None
        assert next_message(asha, v + 2)["data"]["deadline"] is None
    state = site.get(f"/api/tables/{table.code}").json()
    assert state["round"]["bets_deadline"] is None and state["round"]["bets_open"] is True


def test_steps_of_a_round_do_not_read_the_seats_again_and_any_other_change_does(
    site: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Who holds a seat or a sign-in changes only by a change that is not a step of the round
    (notify.ROUND_STEPS): bets do not read the seats again; a top-up (a change of the
    table's cash) does, and so would a new seat code."""
    table = Table(site)
    service = site.app.state.service
    reads: list[str] = []
    credentials = service.credentials
    monkeypatch.setattr(
        service, "credentials", lambda code: reads.append(code) or credentials(code)
    )
    table.do("rounds")
    v = table.version()
    ravi = table.phones["Ravi"]
    headers = {"HX-Request": "true", "X-CSRF-Token": csrf(ravi)}
    with table.follow(table.dealer, "dealer", v) as dealer:
        table.do("actions/deal")  # the centre card
        next_message(dealer, v + 1)
        after_first = len(reads)
        for n in range(2, 5):  # bets: steps of the round (the deck may match at any card)
            bet = {"bet": "bahar", "stake": str(n), "key": f"k{n}"}
            assert ravi.post(f"/play/{table.code}/bet", data=bet, headers=headers).is_success
            next_message(dealer, v + n)
        assert len(reads) == after_first  # no read
        table.do("cash", name="Ravi", amount="5", action="top-up")
        next_message(dealer, v + 5)
        assert len(reads) == after_first + 1  # a change other than a step: read again


def test_writers_that_share_a_transaction_make_a_change_if_one_is_not_a_round_step() -> None:
    """A bet and a new seat code committed together (group commit) are one event: its kind is
    ``change``, so that live pages read the seats again (the bet's kind would not)."""
    from andar_bahar.club.transactions import Change

    assert Change(None, ["bet", "bet"], set()).kind == "bet"  # type: ignore[arg-type]
    assert Change(None, ["change", "bet"], set()).kind == "change"  # type: ignore[arg-type]


def test_a_read_sees_one_state_of_the_database(database_url: str) -> None:
    """A table read at version V holds nothing committed after it (PostgreSQL: repeatable
    read; SQLite: WAL's snapshot): the live pages order blocks by the version they were
    read at, so a block of V + 1 labelled V could be kept off a page as old."""
    import random

    from sqlalchemy import select

    from andar_bahar.club.service import TableService
    from andar_bahar.engine.paytables import find_paytable
    from andar_bahar.engine.rules import find_procedure
    from andar_bahar.storage import Storage
    from andar_bahar.storage.models import ClubTableRow

    service = TableService(Storage.open(database_url), rng=random.Random(3))
    table = service.create_table(
        name="Snapshot", kind="betting", pin=PIN,
        procedure=find_procedure("classic"), paytable=find_paytable("wizard"),
    )  # fmt: skip
    version = select(ClubTableRow.version).where(ClubTableRow.code == table.code)
    with service.store.transactions.read() as session:
        before = session.scalar(version)
        service.open_round(table.code, table.dealer_token)  # committed meanwhile
        assert session.scalar(select(TableRoundRow.id)) is None  # its round: not seen here
        assert session.scalar(version) == before
    assert service.table_version(table.code) == before + 1


def test_a_refused_seat_code_or_pin_changes_nothing_a_page_shows(site: TestClient) -> None:
    """A wrong seat code or PIN is counted (for the limits on guessing) and a wrong PIN is in
    the audit log, but the table has not changed: its version stays, and no page following
    it is drawn again or sent anything — a stranger's guesses are not changes of the table."""
    table = Table(site)
    code, stranger = table.code, table.stranger
    v = table.version()
    with table.follow(table.dealer, "dealer", v) as dealer:
        table.first_look_done()
        token = csrf(stranger)
        guesses = [
            stranger.post("/join", data={"code": code, "seat": "ABC-DEF", "csrf_token": token}),
            stranger.post(f"/dealer/{code}/login", data={"pin": "000000", "csrf_token": token}),
            stranger.post(f"/api/tables/{code}/join", json={"seat_code": "ABCDEF"}),
            stranger.post(f"/api/tables/{code}/login", json={"pin": "000001"}),
        ]
        assert [guess.status_code for guess in guesses] == [403] * 4
        assert table.version() == v
        table.do("rounds")  # the next change is the first thing the dealer's page is sent
        assert next_message(dealer, 0)["v"] == v + 1
    audit = site.get(f"/api/tables/{code}/audit", headers=table.api).json()
    assert [row["action"] for row in audit].count("login failed") == 2
