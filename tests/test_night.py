"""The night from the ledger: every night figure a player or the dealer reads is the whole
night's, never a window of recent rounds.

Source: the issue — "Your bets and wins" and its "This session" total covered the table's
last 20 settled rounds only (a player up 1,080 on the night read +1,075). A night of 60
rounds with three players (bets, wins, top-ups, a cash-out; one player stops betting after
round 30, so the last rounds hold none of theirs) is played on SQLite and PostgreSQL; each
phone (en, ru, ka) must show, as its night total, exactly the statement's result and
balance − (bought in + topped up − cashed out), and its night page must list every round.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club import reads as views
from andar_bahar.club.reads import NIGHT_PAGE
from andar_bahar.club.service import TableService
from andar_bahar.engine.money import parse_stake
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from web_support import csrf, served

ROUNDS = 60
PLAYERS = {"Asha": ("en", "500"), "Nino": ("ru", "300"), "Gela": ("ka", "1000")}
NIGHT = re.compile(r"data-night>([^<]+)<")
BETS = ("andar", "bahar", "cards:1-5", "cards:6-10", "cards:11-15")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def club(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The club on an in-memory SQLite database (a file's every commit would wait for the
    disk: 1,000 transactions a night), and on PostgreSQL where one is set (15 s of durable
    commits: the slow tier; the night's queries on PostgreSQL, paged, are tested below)."""
    url = "sqlite://" if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    with served(url, secret=b"m" * 32) as client:
        yield client


def _shown_total(page: str, lang: str) -> Decimal:
    """The night total a page shows (``+1,080``, ``−12,5``), read as people of *lang* write."""
    [text] = NIGHT.findall(page)
    sign = -1 if text.startswith("−") else 1
    return sign * parse_stake(text.lstrip("+−").replace("\u00a0", " "), lang=lang)


def test_each_phones_night_total_is_the_ledgers_after_60_rounds(club: TestClient) -> None:
    service = club.app.state.service  # type: ignore[attr-defined]
    service.store.rng = random.Random(29)  # the decks of this night, the same on every run
    table = service.create_table(name="Night", kind="betting", pin="246813",
                                 procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
    code, dealer = table.code, table.dealer_token
    phones: dict[str, TestClient] = {}
    tokens: dict[str, str] = {}
    for name, (_, chips) in PLAYERS.items():
        seat = service.admit_player(code, dealer, name, chips)
        phone = phones[name] = TestClient(club.app)
        joined = phone.post("/join", data={"code": code, "seat": seat, "csrf_token": csrf(phone)},
                            follow_redirects=False)  # fmt: skip
        assert joined.status_code == 303, joined.text
        tokens[name] = phone.cookies[f"seat_{code}"].rpartition(".")[0]
    choose = random.Random(60)
    for number in range(1, ROUNDS + 1):
        service.open_round(code, dealer)
        balances = {p.name: p.balance for p in service.state(code).players}
        for name in PLAYERS:
            if (name == "Gela" and number > 30) or balances[name] < 10:
                continue  # Gela sits out the last 30 rounds: none of them in the window
            for n, bet in enumerate(choose.sample(BETS, choose.randint(1, 2))):
                stake = min(choose.choice((5, 10, 20, 50)), int(balances[name]) // 2)
                service.place_bet(code, tokens[name], bet, str(stake), key=f"{number}:{n}")
        service.turn_centre(code, dealer)
        while service.deal(code, dealer).status == "open":
            pass
        service.settle(code, dealer)
        if number % 15 == 0:
            service.top_up(code, dealer, "Nino", "100", "more chips")
        if number == 45:
            service.cash_out(code, dealer, "Asha", "50", "a taxi")
    sheet = {p.name: p for p in service.statement(code, dealer).players}
    assert sheet["Asha"].cashed_out == 50 and sheet["Nino"].topped_up == 400
    assert sum(service.statement(code, dealer).rounds_settled for _ in (1,)) == ROUNDS
    for name, (lang, _) in PLAYERS.items():
        line = sheet[name]
        ledger = line.balance - (line.bought_in + line.topped_up - line.cashed_out)
        page = phones[name].get(f"/play/{code}?lang={lang}").text
        shown = _shown_total(page, lang)
        assert shown == line.result == ledger, (name, shown, line)
        night = phones[name].get(f"/play/{code}/night?lang={lang}")
        assert night.status_code == 200 and _shown_total(night.text, lang) == ledger
        played = service.player_night(code, tokens[name])
        rounds = list(played.rounds)
        for page_number in range(2, played.pages + 1):
            rounds += service.player_night(code, tokens[name], page_number).rounds
        assert [r.number for r in rounds] == sorted({r.number for r in rounds}, reverse=True)
        assert sum((r.net for r in rounds), Decimal(0)) == ledger  # every round, none twice
        assert played.pages == -(-len(rounds) // NIGHT_PAGE)
    assert max(r.number for r in service.player_night(code, tokens["Gela"]).rounds) <= 30
    stranger = TestClient(club.app)
    stranger.cookies.set(f"seat_{code}", "forged.x")
    assert stranger.get(f"/play/{code}/night").status_code == 403  # its own player's only


def _round(service: TableService, code: str, dealer: str, bets: dict[str, tuple[str, str]]) -> None:
    """One round: *bets* (player token → bet, stake), dealt to the match and settled."""
    number = service.open_round(code, dealer).number
    for token, (bet, stake) in bets.items():
        service.place_bet(code, token, bet, stake, key=f"round {number}")
    service.turn_centre(code, dealer)
    while service.deal(code, dealer).status == "open":
        pass
    service.settle(code, dealer)


def test_the_night_page_pages_every_round_and_adds_up_the_ledger(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(views, "NIGHT_PAGE", 2)  # three rounds: two pages
    storage = Storage.open(database_url)
    try:
        service = TableService(storage, rng=random.Random(8))
        table = service.create_table(name="Pages", kind="betting", pin="246813",
                                     procedure=find_procedure("classic"), paytable=find_paytable("wizard"))  # fmt: skip
        code, dealer = table.code, table.dealer_token
        asha = service.join(code, service.admit_player(code, dealer, "Asha", "200"))
        ravi = service.join(code, service.admit_player(code, dealer, "Ravi", "200"))
        for number in (1, 2, 3, 4):
            bets = {asha: ("andar", "10")} if number != 3 else {ravi: ("bahar", "20")}
            _round(service, code, dealer, bets)  # Asha sits round 3 out
        service.top_up(code, dealer, "Asha", "50")
        first, second = service.player_night(code, asha, 1), service.player_night(code, asha, 2)
        assert [r.number for r in (*first.rounds, *second.rounds)] == [4, 2, 1]
        assert (first.pages, second.page, service.player_night(code, asha, 9).page) == (2, 2, 2)
        line = first.account
        assert (line.bought_in, line.topped_up, line.staked) == (200, 50, 30)
        nets = sum((r.net for r in (*first.rounds, *second.rounds)), Decimal(0))
        assert line.result == nets == line.balance - 250
        state = {p.name: p for p in service.state(code).players}
        assert state["Asha"].result == line.result and state["Asha"].balance == line.balance
    finally:
        storage.close()
