"""A seat code already used on another device, and Back after joining.

Source: the issue — a seat code used on another device was refused as "not right" (it is
right: it was used), and Back after joining showed an empty join form. Now the refusal says
the code is in use and to ask the dealer, still counted as a failed guess; the dealer's
seats view names the seat and signs that device out (a new seat code); the join pages lead
a phone that holds its seat back to it.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club.limits import Limits
from web_support import csrf, served

PIN = "246813"
IN_USE = "in use on another device: ask the dealer to sign that device out"


@pytest.fixture
def site(database_url: str) -> Iterator[TestClient]:
    with served(database_url, secret=b"s" * 32, limits=Limits(failures=3, free=3)) as client:
        yield client


def _table(site: TestClient) -> tuple[str, dict[str, str], str]:
    made = site.post("/api/tables", json={"name": "Seats", "pin": PIN})
    code, token = made.json()["code"], made.json()["dealer_token"]
    dealer = {"Authorization": f"Bearer {token}"}
    seat = site.post(f"/api/tables/{code}/players", json={"name": "Asha", "balance": "100"},
                     headers=dealer).json()["seat_code"]  # fmt: skip
    return code, dealer, seat


def _join(phone: TestClient, code: str, seat: str) -> int:
    answer = phone.post("/join", data={"code": code, "seat": seat, "csrf_token": csrf(phone)},
                        follow_redirects=False)  # fmt: skip
    return answer.status_code


def test_a_used_seat_code_says_so_and_still_counts_as_a_wrong_guess(site: TestClient) -> None:
    code, _, seat = _table(site)
    joined = site.post(f"/api/tables/{code}/join", json={"seat_code": seat})
    assert joined.status_code == 200
    answers = [site.post(f"/api/tables/{code}/join", json={"seat_code": s})
               for s in (seat, "WRONG1", seat, seat)]  # fmt: skip
    assert [a.status_code for a in answers] == [403, 403, 403, 429]  # three failures: locked
    assert IN_USE in answers[0].json()["error"]
    assert "not right" in answers[1].json()["error"]


def test_the_dealer_signs_the_other_device_out_from_the_seats_view(site: TestClient) -> None:
    code, dealer_api, seat = _table(site)
    first, second = TestClient(site.app), TestClient(site.app)
    assert _join(first, code, seat) == 303
    refused = second.post("/join", data={"code": code, "seat": seat, "csrf_token": csrf(second)})
    assert refused.status_code == 403 and IN_USE in refused.text
    dealer = TestClient(site.app)
    dealer.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": csrf(dealer)})
    page = dealer.get(f"/dealer/{code}").text
    assert "Asha's seat code was tried on another device." in html.unescape(page)
    assert 'data-seat-in-use="Asha"' in page
    out = dealer.post(f"/dealer/{code}/seats/reissue", data={
        "name": "Asha", "reason": "seat code in use on another device", "csrf_token": csrf(dealer)})  # fmt: skip
    assert out.status_code == 200
    page = out.text  # the dealer's page again, with the new code and no warning
    assert 'data-seat-in-use="Asha"' not in page
    new_seat = page.split('data-seat-for="Asha">', 1)[1].split("<", 1)[0]
    assert first.get(f"/play/{code}", follow_redirects=False).status_code == 200  # told why
    assert "this device is signed out" in first.get(f"/play/{code}").text
    assert _join(second, code, new_seat) == 303
    assert second.get(f"/play/{code}").status_code == 200
    audit = site.get(f"/api/tables/{code}/audit", headers=dealer_api).json()
    assert [a["action"] for a in audit if a["action"].startswith(("join", "reissue"))] == [
        "join", "join refused", "reissue", "join"]  # fmt: skip


def test_back_after_joining_leads_to_the_seat(site: TestClient) -> None:
    code, dealer_api, seat = _table(site)
    phone = TestClient(site.app)
    assert _join(phone, code, seat) == 303
    for path in ("/", f"/?code={code.lower()}", f"/seat/{code}/{seat}"):
        back = phone.get(path, follow_redirects=False)
        assert back.status_code == 303 and back.headers["location"] == f"/play/{code}", path
    stranger = TestClient(site.app)
    assert stranger.get("/").status_code == 200 and "Join a table" in stranger.get("/").text
    assert stranger.get(f"/seat/{code}/{seat}").status_code == 200  # the join form
    site.post(f"/api/tables/{code}/seats/release", json={"name": "Asha"}, headers=dealer_api)
    assert phone.get("/", follow_redirects=False).status_code == 200  # no seat: the form
