"""Bets on the centre card at the club table on the web: the service, the phone, the keys.

A round played with a real deck (the dealer types Q♥ as the centre card): the spots on the
centre card are on the phone until the turn; at the turn each bettor's phone says what
they won or lost, the dealer's list says it for everyone, and the settlement pays it
(ledger summing to zero). Expected figures: the joker preset (suit 2.9, low 1.1,
Andar 0.9 to 1) and the rule (Q♥ is a heart, high).
"""

from __future__ import annotations

import itertools
import random
import re
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club.events import TableEvent
from andar_bahar.club.reads import Onlooker, visible_to
from andar_bahar.club.service import CreatedTable, TableService
from andar_bahar.engine.errors import BetError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.storage.verification import verify
from andar_bahar.web.http.templating import make_environment
from andar_bahar.web.live.blocks import Snapshot
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.renderer import TableRenderer
from andar_bahar.web.pages.api import round_json
from andar_bahar.web.pages.drawing import ROAD_LENGTH
from andar_bahar.web.pages.screens import banner, player_view
from test_web_live_keys import check_keys, own_blocks_changed_unannounced, players_of
from test_web_pages import admit, api_table, seat
from web_support import csrf, served

PIN = "246813"


@pytest.fixture
def service(database_url):  # type: ignore[no-untyped-def]
    storage = Storage.open(database_url)
    yield TableService(storage, rng=random.Random(32))
    storage.close()


def centre_table(service: TableService) -> tuple[CreatedTable, str, str]:
    table = service.create_table(
        name="Centre", kind="betting", pin=PIN,
        procedure=find_procedure("classic"), paytable=find_paytable("joker"),
    )  # fmt: skip
    code, dealer = table.code, table.dealer_token
    asha = service.join(code, service.admit_player(code, dealer, "Asha", "500"))
    bela = service.join(code, service.admit_player(code, dealer, "Bela", "500"))
    return table, asha, bela


def seen(service: TableService, code: str, player: str):  # type: ignore[no-untyped-def]
    return visible_to(service.state(code), Onlooker(dealer=False, player=player))


def test_a_centre_bet_settled_in_a_played_round_at_the_web_table(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, bela = centre_table(service)
    code, dealer = table.code, table.dealer_token
    service.open_round(code, dealer, physical=True)
    spots = [s.bet for s in player_view(seen(service, code, "Asha"), "Asha", "en", [])["spots"]]
    assert "centre:suit:♥" in spots and "centre:rank:A" in spots and len(spots) == 10 + 22
    service.place_bet(code, asha, "centre:suit:h", "10", key="a1")
    service.place_bet(code, asha, "andar", "10", key="a2")
    service.place_bet(code, bela, "centre:low", "20", key="b1")
    assert round_json(service.state(code).round)["centre_bets_open"] is True  # type: ignore[arg-type]
    service.turn_centre(code, dealer, "Q♥")
    # at the turn: settled, said on each bettor's phone, gone from the spots
    asha_sees, bela_sees = seen(service, code, "Asha"), seen(service, code, "Bela")
    said = banner(asha_sees, "Asha", "en")
    assert said is not None and (said.kind, said.headline) == ("win", "+29")
    assert said.detail == (
        "the centre card is Q♥: won 29 on centre card ♥ (paid when the round is settled)"
    )
    lost = banner(bela_sees, "Bela", "en")
    assert lost is not None and (lost.kind, lost.headline) == ("lose", "−20")
    assert [b.player for b in asha_sees.round.centre_paid] == ["Asha"]  # type: ignore[union-attr]
    after = [s.bet for s in player_view(asha_sees, "Asha", "en", [])["spots"]]
    assert not any(bet.startswith("centre:") for bet in after)
    with pytest.raises(BetError, match="Bets on the centre card are closed"):
        service.place_bet(code, bela, "centre:high", "20", key="b2")
    # the dealer's list says it for everyone, at once
    renderer = TableRenderer(service, make_environment())
    snapshot = Snapshot(service.table_snapshot(code, ROAD_LENGTH))
    listed = renderer.blocks(snapshot, Viewer("dealer", "dealer", "en"), ("bets",))["bets"]
    assert "The centre card Q♥: its bets, paid with the round" in listed
    assert re.search(r"<td>Asha</td><td>centre card ♥ 10</td><td>wins</td>", listed)
    data = round_json(service.state(code).round)  # type: ignore[arg-type]
    assert data["centre_bets_open"] is False
    assert [(b["player"], b["bet"], b["outcome"], b["win"]) for b in data["centre_settled"]] == [
        ("Asha", "centre:suit:♥", "win", "29"), ("Bela", "centre:low", "lose", "0")]  # fmt: skip
    for card in ("4♣", "7♦", "Q♠"):  # Andar, Bahar, Andar: Andar wins with 3 cards
        service.deal(code, dealer, card)
    settled = service.settle(code, dealer)
    assert settled.settlement is not None
    paid = {(b.player, str(b.bet)): b.win for b in settled.settlement.bets}
    assert paid == {("Asha", "centre:suit:♥"): 29, ("Asha", "andar"): 9, ("Bela", "centre:low"): 0}
    balances = {p.name: p.balance for p in service.state(code).players}
    assert balances == {"Asha": Decimal(538), "Bela": Decimal(480)}
    assert service.round_ledger_sum(code, 1) == 0 and service.ledger_total(code) == 0
    assert verify(service.storage).ok


def test_a_void_round_returns_the_centre_bets(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = centre_table(service)
    code, dealer = table.code, table.dealer_token
    service.open_round(code, dealer, physical=True)
    service.place_bet(code, asha, "centre:colour:red", "10", key="a1")
    service.turn_centre(code, dealer, "Q♥")  # red: decided, not yet paid …
    service.deal(code, dealer, "2♣")
    service.void(code, dealer, "misdeal")
    settled = service.settle(code, dealer)  # … and the round called off returns the stake
    assert settled.settlement is not None
    assert [(b.outcome.value, b.returned) for b in settled.settlement.bets] == [("void", 10)]
    assert {p.name: p.balance for p in service.state(code).players}["Asha"] == 500


def played_centre_table(service: TableService) -> tuple[str, list[Snapshot], dict[str, int]]:
    """Every version of a joker table through two rounds (the second one voided)."""
    table, asha, bela = centre_table(service)
    code, dealer = table.code, table.dealer_token
    snapshots: list[Snapshot] = []

    def take() -> None:
        snapshots.append(Snapshot(service.table_snapshot(code, ROAD_LENGTH)))

    take()
    for number in range(2):
        service.open_round(code, dealer, physical=number == 1)
        take()
        for key, (token, spot, stake) in enumerate(
            [(asha, "centre:suit:s", "10"), (bela, "centre:high", "5"), (asha, "bahar", "5")]
        ):
            service.place_bet(code, token, spot, stake, key=f"{number}-{key}")
            take()
        if number == 1:
            service.turn_centre(code, dealer, "K♠")
        else:  # the dealer's "deal" turns the centre card first: a step of the round
            service.deal(code, dealer)
        take()
        service.place_bet(code, bela, "andar", "5", key=f"{number}-after")
        take()
        if number == 1:
            service.void(code, dealer, "misdeal")
            take()
        else:
            while service.deal(code, dealer).status == "open":
                take()
        service.settle(code, dealer)
        take()
    return code, snapshots, {p.name: p.id for p in players_of(service, code)}


def test_equal_keys_draw_equal_blocks_and_the_turn_names_every_phone() -> None:
    # The spots on the centre card go at the turn and the bettors' banners come: the turn
    # must change those blocks' keys and name every player in its event.
    service = TableService(Storage.open("sqlite://"), rng=random.Random(14))
    events: list[TableEvent] = []
    service.on_change(events.append)
    _, snapshots, ids = played_centre_table(service)
    assert check_keys(snapshots, ids) > 500
    assert own_blocks_changed_unannounced(snapshots, ids, events) == []
    turned = {  # the versions at which the centre card was turned
        after.state.version
        for before, after in itertools.pairwise(snapshots)
        if after.state.round and after.state.round.centre and not before.state.round.centre  # type: ignore[union-attr]
    }
    assert len(turned) == 2
    assert all(e.players is None for e in events if e.version in turned)


def test_a_centre_suit_bet_through_the_club_pages(database_url: str) -> None:
    # The phone bets on hearts while the centre card is still to be turned; the dealer
    # types Q♥: the bet is settled at once (10 at 2.9 to 1 on the joker preset: +29), a
    # second bet on hearts is refused in one sentence, Clear takes back only what is still
    # open, and the settled round pays 29 with the ledger summing to zero.
    with served(database_url) as site:
        code, dealer = api_table(site, paytable="joker", procedure="classic")
        phone = TestClient(site.app)
        seat(phone, code, admit(site, code, dealer, "Asha"))
        opened = site.post(f"/api/tables/{code}/rounds", json={"physical": True}, headers=dealer)
        assert opened.json()["centre_bets_open"] is True
        page = phone.get(f"/play/{code}").text
        assert page.count('data-bet="centre:') == 22  # 4 suits, 2 colours, 13 ranks, 3 bands
        token = csrf(phone)
        for key, spot in enumerate(("centre:suit:♥", "andar")):
            form = {"bet": spot, "stake": "10", "key": f"k{key}", "csrf_token": token}
            assert phone.post(f"/play/{code}/bet", data=form).status_code == 200
        turned = site.post(
            f"/api/tables/{code}/actions/centre", json={"card": "Q♥"}, headers=dealer
        )
        assert turned.json()["centre_settled"] == [
            {"player": "Asha", "bet": "centre:suit:♥", "stake": "10", "outcome": "win", "win": "29"}
        ]
        page = phone.get(f"/play/{code}").text
        assert 'data-bet="centre:' not in page and 'data-bet="andar"' in page
        assert "won 29 on centre card ♥ (paid when the round is settled)" in page
        again = {"bet": "centre:suit:♥", "stake": "10", "key": "k2", "csrf_token": token}
        refused = phone.post(f"/play/{code}/bet", data=again)
        assert refused.status_code >= 400 and "Bets on the centre card are closed" in refused.text
        cleared = phone.post(f"/play/{code}/clear", data={"key": "k3", "csrf_token": token})
        assert cleared.status_code == 200, cleared.text
        state = site.get(f"/api/tables/{code}", headers=dealer).json()
        assert state["round"]["bets"] == [{"player": "Asha", "bet": "centre:suit:♥", "stake": "10"}]
        for card in ("4♣", "7♦", "Q♠"):  # Andar, Bahar, Andar: Andar wins with 3 cards
            site.post(f"/api/tables/{code}/actions/deal", json={"card": card}, headers=dealer)
        site.post(f"/api/tables/{code}/actions/settle", json={}, headers=dealer)
        state = site.get(f"/api/tables/{code}", headers=dealer).json()
        assert state["players"][0]["balance"] == "529"  # 500 + 29: the hearts bet alone
        service = site.app.state.service
        assert service.round_ledger_sum(code, 1) == 0 and service.ledger_total(code) == 0
