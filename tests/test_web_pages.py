"""The club table's pages and API over HTTP (issue 5): access, CSRF, validation, secrecy."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from andar_bahar.engine.cards import Card
from web_support import csrf, served


@pytest.fixture
def site(database_url: str) -> Iterator[TestClient]:
    with served(database_url) as client:
        yield client


def api_table(client: TestClient, **extra: object) -> tuple[str, dict[str, str]]:
    created = client.post(
        "/api/tables", json={"name": "Friday", "pin": "246813", "paytable": "wizard", **extra}
    )
    assert created.status_code == 200, created.text
    data = created.json()
    return data["code"], {"Authorization": f"Bearer {data['dealer_token']}"}


def admit(client: TestClient, code: str, dealer: dict[str, str], name: str) -> str:
    """Admit *name* with 500 chips over the API; the seat code."""
    response = client.post(
        f"/api/tables/{code}/players", json={"name": name, "balance": "500"}, headers=dealer
    )
    assert response.status_code == 200, response.text
    return str(response.json()["seat_code"])


def seat(client: TestClient, code: str, seat_code: str) -> None:
    """Join with the seat code through the page, as a phone does (the seat cookie is set)."""
    response = client.post(
        "/join",
        data={"code": code, "seat": seat_code, "csrf_token": csrf(client)},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text


def test_a_full_round_through_the_pages(site: TestClient, database_url: str) -> None:
    code, dealer = api_table(site)
    player = TestClient(site.app)
    seat(player, code, admit(site, code, dealer, "Asha"))
    # the dealer signs in with the PIN in their own browser
    token = csrf(site)
    assert (
        site.post(f"/dealer/{code}/login", data={"pin": "246813", "csrf_token": token}).status_code
        == 200
    )
    assert site.post(f"/dealer/{code}/round/open", data={"csrf_token": token}).status_code == 200
    page = player.get(f"/play/{code}")
    key = re.search(r'name="key" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    form = {"bet": "andar", "stake": "120", "key": key, "csrf_token": csrf(player)}
    assert player.post(f"/play/{code}/bet", data=form).status_code == 200
    assert player.post(f"/play/{code}/bet", data=form).status_code == 200  # a double click
    state = site.get(f"/api/tables/{code}", headers=dealer).json()
    assert state["round"]["bets"] == [{"player": "Asha", "bet": "andar", "stake": "120"}]
    for _ in range(52):  # a refused deal fails the test at once instead of looping for ever
        if site.get(f"/api/tables/{code}", headers=dealer).json()["round"]["status"] != "open":
            break
        dealt = site.post(f"/dealer/{code}/round/deal", data={"csrf_token": token})
        assert dealt.status_code == 200 and 'class="error"' not in dealt.text, dealt.text
    assert site.post(f"/dealer/{code}/round/settle", data={"csrf_token": token}).status_code == 200
    state = site.get(f"/api/tables/{code}", headers=dealer).json()
    [settled] = state["round"]["settlement"]
    expected = 500 + (228 - 120 if state["round"]["winner"] == "andar" else -120)  # 0.9 to 1 on 120
    assert int(state["players"][0]["balance"]) == expected
    assert settled["win"] == ("108" if state["round"]["winner"] == "andar" else "0")
    verify = player.get(f"/verify/{code}/1")
    assert verify.status_code == 200 and "data-commitment" in verify.text


def test_forms_without_a_csrf_token_are_refused(site: TestClient) -> None:
    code, dealer = api_table(site)
    seat_code = admit(site, code, dealer, "Asha")
    response = site.post("/join", data={"code": code, "seat": seat_code})
    assert response.status_code == 403
    assert site.get(f"/api/tables/{code}", headers=dealer).json()["players"][0]["joined"] is False


def test_a_player_cannot_deal_settle_or_admit(site: TestClient) -> None:
    code, dealer = api_table(site)
    player = TestClient(site.app)
    seat(player, code, admit(site, code, dealer, "Asha"))
    token = csrf(player)
    # the dealer's pages send a player (no dealer cookie) to the PIN form
    assert (
        player.get(f"/dealer/{code}", follow_redirects=False).headers["location"]
        == f"/dealer/{code}/login"
    )
    for action in ("open", "deal", "settle", "close", "void"):
        refused = player.post(f"/dealer/{code}/round/{action}", data={"csrf_token": token})
        assert refused.status_code == 403
        assert "Only the dealer" in refused.text
    assert (
        player.post(
            f"/dealer/{code}/players", data={"name": "Mallory", "balance": "9", "csrf_token": token}
        ).status_code
        == 403
    )
    # a name alone never takes a seat
    asha = site.post(f"/api/tables/{code}/join", json={"name": "Asha"})
    assert asha.status_code == 403 and "seat code" in asha.json()["error"]


def test_a_player_bets_only_for_themselves(site: TestClient) -> None:
    code, dealer = api_table(site)
    admit(site, code, dealer, "Asha")
    ravi = TestClient(site.app)
    seat(ravi, code, admit(site, code, dealer, "Ravi"))
    site.post(f"/api/tables/{code}/rounds", json={}, headers=dealer)
    # a forged extra field naming another player changes nothing: the seat cookie decides
    form = {"bet": "andar", "stake": "10", "key": "k", "player": "Asha", "csrf_token": csrf(ravi)}
    ravi.post(f"/play/{code}/bet", data=form)
    assert site.get(f"/api/tables/{code}", headers=dealer).json()["round"]["bets"] == [
        {"player": "Ravi", "bet": "andar", "stake": "10"}
    ]


def test_a_bet_form_is_read_whatever_its_encoding_and_a_missing_field_is_named(
    site: TestClient,
) -> None:
    """The bet and the dealer's steps read their forms with ``forms.posted`` (not FastAPI's
    form model): a missing field is still one sentence that names it (the sentence of
    ``app.INVALID_FORM``) and changes nothing; a multipart form reads as a urlencoded one;
    a name sent twice counts with its last value, as Starlette's reader counts it."""
    code, dealer = api_table(site)
    ravi = TestClient(site.app)
    seat(ravi, code, admit(site, code, dealer, "Ravi"))
    site.post(f"/api/tables/{code}/rounds", json={}, headers=dealer)
    token = csrf(ravi)
    missing = ravi.post(
        f"/play/{code}/bet", data={"bet": "andar", "key": "k1", "csrf_token": token}
    )
    assert missing.status_code == 422
    assert "Some fields of the form are missing or wrong: stake." in missing.text
    assert site.get(f"/api/tables/{code}", headers=dealer).json()["round"]["bets"] == []
    body = "bet=bahar&stake=99&stake=15&key=k2&csrf_token=" + token  # stake twice: the last
    typed = {"Content-Type": "application/x-www-form-urlencoded"}
    assert ravi.post(f"/play/{code}/bet", content=body, headers=typed).status_code == 200
    fields = {"bet": (None, "andar"), "stake": (None, "10"), "key": (None, "k3"),
              "csrf_token": (None, token)}  # fmt: skip
    assert ravi.post(f"/play/{code}/bet", files=fields).status_code == 200  # multipart
    assert site.get(f"/api/tables/{code}", headers=dealer).json()["round"]["bets"] == [
        {"player": "Ravi", "bet": "bahar", "stake": "15"},
        {"player": "Ravi", "bet": "andar", "stake": "10"},
    ]


def test_no_page_or_answer_holds_an_undealt_card(site: TestClient, database_url: str) -> None:
    code, dealer = api_table(site)
    player = TestClient(site.app)
    seat(player, code, admit(site, code, dealer, "Asha"))
    site.post(f"/api/tables/{code}/rounds", json={}, headers=dealer)
    site.post(f"/api/tables/{code}/actions/deal", json={}, headers=dealer)  # the centre card
    site.post(f"/api/tables/{code}/actions/deal", json={}, headers=dealer)  # one card
    service = site.app.state.service
    with (
        service.store.transactions.write() as session
    ):  # the stored deck, read from the database itself
        from andar_bahar.storage.models import TableRoundRow

        record = session.query(TableRoundRow).one().record
    deck = Card.parse_many(json.loads(record)["deck"])
    state = service.state(code)
    shown = {state.round.centre, *(d.card for d in state.round.dealt)}
    undealt = [str(c) for c in deck if c not in shown]
    token = csrf(site)
    site.post(f"/dealer/{code}/login", data={"pin": "246813", "csrf_token": token})
    bodies = [
        player.get(f"/play/{code}").text,
        player.get(f"/play/{code}?block=round").text,
        site.get(f"/dealer/{code}").text,
        site.get(f"/api/tables/{code}").text,
        player.get(f"/verify/{code}/1").text,
    ]
    for body in bodies:
        text = re.sub(r"\s+", " ", body)
        cards_in_page = set(re.findall(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♠♥♦♣])", text))
        assert not {f"{r}{s}" for r, s in cards_in_page} & set(undealt)


@pytest.mark.parametrize(
    ("path", "payload", "fragment"),
    [
        ("/api/tables", {"name": "", "pin": "246813"}, "needs a name"),
        ("/api/tables", {"name": "x", "pin": "12345"}, "PIN needs at least"),
        ("/api/tables", {"name": "x", "pin": "246813", "paytable": "vegas"}, "Unknown paytable"),
        ("/api/tables", {"name": "x", "pin": "246813", "procedure": "katti"}, "Unknown procedure"),
    ],
)
def test_bad_api_input_is_one_sentence(
    site: TestClient, path: str, payload: dict[str, str], fragment: str
) -> None:
    response = site.post(path, json=payload)
    assert response.status_code == 400
    assert fragment in response.json()["error"]


def test_a_club_paytable_file_with_errors_is_refused_on_the_form(
    site: TestClient, tmp_path: Path
) -> None:
    token = csrf(site)
    bad = b'name = "club"\n[main]\nandar = "0 to 1"\nbahar = "1 to 1"\n'
    response = site.post(
        "/tables",
        data={"name": "Club", "pin": "246813", "csrf_token": token},
        files={"paytable_file": ("club.toml", bad, "text/plain")},
    )
    assert response.status_code == 400
    assert (
        "club.toml, main.andar: The odds &#39;0 to 1&#39; must be greater than zero."
        in response.text
    )
    preview = site.post(
        "/tables/preview",
        data={"procedure": "home", "paytable": "trainer-default", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert preview.status_code == 200 and "player" in preview.text.lower()
