"""A club table survives its server being killed (issue 5's acceptance).

The real server (``python -m andar_bahar serve``) runs in its own process group and
is killed with SIGKILL — never stopped gracefully — during betting, after the centre
card, in the middle of the deal and between the deal and the settlement, then started
again on the same database. The round resumes with the same deck, the same dealt cards
and the same bets; a bet request repeated with the same key after the restart counts
once; the settlement is the engine's on the revealed deck; the ledger sums to zero.
A last test kills the server while bet requests are still in flight.

Every test runs on SQLite and, where ANDAR_BAHAR_TEST_POSTGRES_URL is set (as in
.ci/run), on a fresh schema of that PostgreSQL server too.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.sync.client import connect

from andar_bahar.club.service import TableService
from andar_bahar.engine.cards import Card
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, TableRoundRow
from andar_bahar.web.live.hub import HEARTBEAT
from serve_process import ServeProcess

START_TIMEOUT = 30.0
PROCEDURE, PAYTABLE = "classic", "wizard"
BALANCES = {"Asha": Decimal(500), "Ravi": Decimal(300)}
BETS = [  # (player, bet, stake, key)
    ("Asha", "andar", "120", "asha-1"),
    ("Asha", "cards:6-10", "100", "asha-2"),
    ("Ravi", "bahar", "50", "ravi-1"),
]
LATE_BET = ("Ravi", "cards:1-5", "20", "ravi-2")
"""Placed after the restart, where bets are still open (betting, after the centre card)."""


# -- the server, as a process ---------------------------------------------------------------


class Server(ServeProcess):
    """``andar-bahar serve`` on a free loopback port, its *starts*-th start on this database."""

    def __init__(self, database_url: str, folder: Path, starts: int) -> None:
        super().__init__(database_url, folder, str(starts), start_timeout=START_TIMEOUT)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


@pytest.fixture
def servers(database_url, tmp_path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """``start()`` a server on the test's database; every one is killed at teardown."""
    started: list[Server] = []

    def start() -> Server:
        for _ in range(3):  # another program may take the free port first
            server = Server(database_url, tmp_path, len(started))
            started.append(server)
            try:
                server.wait_ready()
            except RuntimeError:
                continue
            return server
        raise RuntimeError(f"the server did not start: {server.log.read_text(errors='replace')}")

    try:
        yield start
    finally:
        for server in started:
            server.kill()


class Api:
    """The JSON API of one running server."""

    def __init__(self, server: Server) -> None:
        self.client = httpx.Client(base_url=server.base, timeout=10.0)

    def call(self, method: str, path: str, token: str | None = None, **body: object) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if method == "GET":
            response = self.client.get(path, headers=headers)
        else:
            response = self.client.post(path, json=body, headers=headers)
        assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()

    def refused(self, method: str, path: str, token: str, **body: object) -> int:
        """The status of a request that must be refused with a sentence."""
        response = self.client.request(
            method, path, json=body, headers={"Authorization": f"Bearer {token}"}
        )
        assert not response.is_success and response.json()["error"], response.text
        return response.status_code

    def close(self) -> None:
        self.client.close()


# -- a table and its round -----------------------------------------------------------------


def _new_table(api: Api) -> tuple[str, str, dict[str, str]]:
    created = api.call("POST", "/api/tables", name="Friday", pin="246813", paytable=PAYTABLE)
    code, dealer = created["code"], created["dealer_token"]
    seats = {}
    for name, balance in BALANCES.items():
        seat = api.call(
            "POST", f"/api/tables/{code}/players", dealer, name=name, balance=str(balance)
        )["seat_code"]
        seats[name] = api.call("POST", f"/api/tables/{code}/join", seat_code=seat)["token"]
    return code, dealer, seats


def _stored_deck(database_url: str, code: str, number: int) -> tuple[Card, ...]:
    """The deck of round *number* as the server stored it (the test peeks; players cannot)."""
    with Storage.open(database_url) as storage, storage.engine.connect() as connection:
        record = connection.execute(
            select(TableRoundRow.record)
            .join(ClubTableRow, TableRoundRow.table_id == ClubTableRow.id)
            .where(ClubTableRow.code == code, TableRoundRow.number == number)
        ).scalar_one()
    deck = Round.loads(record).deck
    assert deck is not None
    return deck


def _match_at(deck: tuple[Card, ...]) -> int:
    """How many cards are dealt after the centre card until one matches its rank."""
    return next(i for i, card in enumerate(deck[1:], 1) if card.rank == deck[0].rank)


def _deal_out(api: Api, code: str, dealer: str) -> dict[str, Any]:
    for _ in range(60):
        played = api.call("POST", f"/api/tables/{code}/actions/deal", dealer)
        if played["status"] != "open":
            return played  # type: ignore[no-any-return]
    raise AssertionError("the round did not finish within a deck")


def _open_round(api: Api, code: str, dealer: str, database_url: str, moment: str) -> int:
    """Open a round; for the middle of the deal, one whose first dealt card does not match."""
    for _ in range(10):
        number = int(api.call("POST", f"/api/tables/{code}/rounds", dealer)["number"])
        if moment != "deal" or _match_at(_stored_deck(database_url, code, number)) > 1:
            return number
        _deal_out(api, code, dealer)  # no bets on it: settled, it changes no balance
        api.call("POST", f"/api/tables/{code}/actions/settle", dealer)
    raise AssertionError("ten decks in a row matched at the first dealt card")


def _advance(api: Api, code: str, dealer: str, moment: str, deck: tuple[Card, ...]) -> None:
    if moment == "betting":
        return
    api.call("POST", f"/api/tables/{code}/actions/centre", dealer)
    if moment == "deal":  # at least one card dealt, the match still ahead
        for _ in range(max(1, _match_at(deck) // 2)):
            assert api.call("POST", f"/api/tables/{code}/actions/deal", dealer)["status"] == "open"
    elif moment == "dealt":
        assert _deal_out(api, code, dealer)["status"] == "finished"


def _engine_settlement(
    deck: tuple[Card, ...], bets: list[tuple[str, str, str]]
) -> tuple[Round, dict[str, Decimal]]:
    """The engine alone on the revealed deck: the round and every player's new balance."""
    reference = Round(
        find_procedure(PROCEDURE), find_paytable(PAYTABLE), deck=deck, balances=BALANCES
    )
    for player, bet, stake in bets:
        reference.place_bet(player, bet, stake)
    reference.play()
    settlement = reference.settle().settlement
    assert settlement is not None
    balances = dict(BALANCES)
    for settled in settlement.bets:
        balances[settled.player] += settled.net
    return reference, balances


def _balances(state: dict[str, Any]) -> dict[str, Decimal]:
    return {p["name"]: Decimal(p["balance"]) for p in state["players"]}


# -- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("moment", ["betting", "centre", "deal", "dealt"])
def test_a_killed_server_resumes_the_round(servers, database_url, moment) -> None:  # type: ignore[no-untyped-def]
    server = servers()
    api = Api(server)
    code, dealer, seats = _new_table(api)
    number = _open_round(api, code, dealer, database_url, moment)
    deck = _stored_deck(database_url, code, number)
    answers = {}
    for player, bet, stake, key in BETS:
        answers[key] = api.call("POST", f"/api/tables/{code}/bets", seats[player], bet=bet, stake=stake, key=key)  # fmt: skip
    _advance(api, code, dealer, moment, deck)
    before = api.call("GET", f"/api/tables/{code}", dealer)
    api.close()

    server.kill()
    assert not server.alive
    server = servers()
    api = Api(server)

    after = api.call("GET", f"/api/tables/{code}", dealer)
    assert after == before  # the same commitment, dealt cards, bets, balances and status
    anyone = api.call("GET", f"/api/tables/{code}")  # without a token: no bet, no balance
    assert anyone["round"]["commitment"] == after["round"]["commitment"]
    assert anyone["round"]["bets"] == [] and anyone["players"] == []
    rnd = after["round"]
    assert rnd["number"] == number and rnd["commitment"] and len(rnd["commitment"]) == 64
    assert [(b["player"], b["bet"], b["stake"]) for b in rnd["bets"]] == [
        (player, bet, stake) for player, bet, stake, _ in BETS
    ]
    assert _stored_deck(database_url, code, number) == deck
    expected_status = {"betting": "open", "centre": "open", "deal": "open", "dealt": "finished"}
    assert rnd["status"] == expected_status[moment]
    assert rnd["bets_open"] == (moment in ("betting", "centre"))
    assert (rnd["centre"] is not None) == (moment != "betting")
    assert (len(rnd["dealt"]) > 0) == (moment in ("deal", "dealt"))

    # The same request again answers as before and counts once; the same key with another
    # stake is refused (409), and changes nothing either.
    player, bet, stake, key = BETS[0]
    repeat = api.call("POST", f"/api/tables/{code}/bets", seats[player], bet=bet, stake=stake, key=key)  # fmt: skip
    assert repeat == answers[key]
    assert api.refused("POST", f"/api/tables/{code}/bets", seats[player], bet=bet, stake="7", key=key) == 409  # fmt: skip
    assert api.call("GET", f"/api/tables/{code}", dealer) == before

    bets = [(player, bet, stake) for player, bet, stake, _ in BETS]
    if rnd["bets_open"]:  # the resumed round takes new bets, and their repeats count once
        player, bet, stake, key = LATE_BET
        first = api.call("POST", f"/api/tables/{code}/bets", seats[player], bet=bet, stake=stake, key=key)  # fmt: skip
        again = api.call("POST", f"/api/tables/{code}/bets", seats[player], bet=bet, stake=stake, key=key)  # fmt: skip
        assert first == again == {"player": player, "bet": bet, "stake": stake, "round": number}
        bets.append((player, bet, stake))

    with connect(f"ws://127.0.0.1:{server.port}/ws/{code}", open_timeout=10) as live:
        finished = rnd if moment == "dealt" else _deal_out(api, code, dealer)
        assert finished["status"] == "finished"
        settled = api.call("POST", f"/api/tables/{code}/actions/settle", dealer)
        # The restarted server's live updates reach the table: a message shows the round
        # settled (its first one, a full "sync", may already, when it was drawn after the
        # settlement: the socket's later messages for the deals and the settlement are then
        # not sent, its page having them all).
        shown: dict[str, Any] = {}
        while shown.get("status") != "settled":
            text = live.recv(timeout=10)
            shown = {} if text == HEARTBEAT else json.loads(text)["data"]
        assert shown["round"] == number
    assert settled["status"] == "settled"
    assert [(b["player"], b["bet"], b["stake"]) for b in settled["bets"]] == bets

    # The revealed deck is the committed one, and the cards were dealt from its top.
    reveal = api.call("GET", f"/api/tables/{code}/rounds/{number}/reveal")
    assert reveal["verified"] is True and reveal["commitment"] == before["round"]["commitment"]
    revealed = Card.parse_many(reveal["deck"])
    assert revealed == deck
    dealt = [d["card"] for d in settled["dealt"]]
    assert [str(c) for c in revealed[: 1 + len(dealt)]] == [settled["centre"], *dealt]
    assert dealt[: len(before["round"]["dealt"])] == [d["card"] for d in before["round"]["dealt"]]

    # The settlement and the balances are the engine's own on that deck.
    reference, balances = _engine_settlement(revealed, bets)
    assert dealt == [str(d.card) for d in reference.dealt]
    assert settled["winner"] == reference.result.winner.value  # type: ignore[union-attr]
    assert settled["settlement"] == [
        {"player": b.player, "bet": str(b.bet), "stake": format_amount(b.stake),
         "outcome": b.outcome.value, "win": format_amount(b.win),
         "returned": format_amount(b.returned)}
        for b in reference.settlement.bets  # type: ignore[union-attr]
    ]  # fmt: skip
    assert _balances(api.call("GET", f"/api/tables/{code}", dealer)) == balances
    # A settlement sent again (its answer lost, say) is refused: the ledger is written once.
    again = api.client.post(f"/api/tables/{code}/actions/settle", json={}, headers={"Authorization": f"Bearer {dealer}"})  # fmt: skip
    assert again.status_code == 400 and "error" in again.json()
    assert _balances(api.call("GET", f"/api/tables/{code}", dealer)) == balances
    api.close()
    server.kill()

    with Storage.open(database_url) as storage:
        service = TableService(storage)
        assert service.round_ledger_sum(code, number) == 0
        assert service.ledger_total(code) == 0
        assert {p.name: p.balance for p in service.state(code).players} == balances


def test_a_server_killed_with_bets_in_flight_loses_and_doubles_none(servers, database_url) -> None:  # type: ignore[no-untyped-def]
    """Bets acknowledged before the kill are kept; re-sent after it, every key counts once."""
    server = servers()
    api = Api(server)
    created = api.call("POST", "/api/tables", name="Rush", pin="246813", paytable=PAYTABLE)
    code, dealer = created["code"], created["dealer_token"]
    names = [f"P{i}" for i in range(6)]
    seats = {}
    for name in names:
        seat = api.call("POST", f"/api/tables/{code}/players", dealer, name=name, balance="1000")[
            "seat_code"
        ]
        seats[name] = api.call("POST", f"/api/tables/{code}/join", seat_code=seat)["token"]
    number = api.call("POST", f"/api/tables/{code}/rounds", dealer)["number"]
    bets = [str(b) for b in find_paytable(PAYTABLE).bets]
    requests = [(name, bet, f"{name}-{bet}", str(1 + i % 7)) for name in names for i, bet in enumerate(bets)]  # fmt: skip

    acknowledged: dict[str, dict[str, Any]] = {}
    lock, enough = threading.Lock(), threading.Event()

    def send(name: str, bet: str, key: str, stake: str) -> None:
        try:
            response = phones.post(
                f"/api/tables/{code}/bets",
                json={"bet": bet, "stake": stake, "key": key},
                headers={"Authorization": f"Bearer {seats[name]}"},
            )
        except httpx.TransportError:
            return  # killed before it answered: the bet may or may not have been committed
        if response.status_code == 200:
            with lock:
                acknowledged[key] = response.json()
                if len(acknowledged) >= 5:
                    enough.set()

    limits = httpx.Limits(max_connections=12)
    phones = httpx.Client(base_url=server.base, timeout=10.0, limits=limits)
    with phones, ThreadPoolExecutor(max_workers=12) as pool:
        for request in requests:
            pool.submit(send, *request)
        enough.wait(timeout=20)
        server.kill()  # while the rest of the requests are queued or in flight
    api.close()
    assert acknowledged, "no bet was answered before the kill"

    server = servers()
    api = Api(server)
    kept = {(b["player"], b["bet"]): b["stake"] for b in api.call("GET", f"/api/tables/{code}", dealer)["round"]["bets"]}  # fmt: skip
    for answer in acknowledged.values():  # nothing acknowledged is lost
        assert kept[(answer["player"], answer["bet"])] == answer["stake"]
    # Every request again, as the phones would re-send it: a committed key answers as it did.
    final: dict[tuple[str, str], str] = {}
    for name, bet, key, stake in requests:
        answer = api.call("POST", f"/api/tables/{code}/bets", seats[name], bet=bet, stake=stake, key=key)  # fmt: skip
        if key in acknowledged:
            assert answer == acknowledged[key]
        if (name, bet) in kept:
            assert answer["stake"] == kept[(name, bet)] == stake
        final[(name, bet)] = answer["stake"]
    state = api.call("GET", f"/api/tables/{code}", dealer)
    assert {(b["player"], b["bet"]): b["stake"] for b in state["round"]["bets"]} == final
    assert len(state["round"]["bets"]) == len(requests)

    _deal_out(api, code, dealer)
    settled = api.call("POST", f"/api/tables/{code}/actions/settle", dealer)
    expected = {name: Decimal(1000) for name in names}
    for bet in settled["settlement"]:
        expected[bet["player"]] += Decimal(bet["returned"]) - Decimal(bet["stake"])
    assert _balances(api.call("GET", f"/api/tables/{code}", dealer)) == expected
    api.close()
    server.kill()
    with Storage.open(database_url) as storage:
        service = TableService(storage)
        assert service.round_ledger_sum(code, number) == 0
        assert service.ledger_total(code) == 0
