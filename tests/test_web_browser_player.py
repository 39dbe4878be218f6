"""The player's phone in a real browser (issue 11): Debian's Chromium at 390×844.

One server and one browser for the module (``tests/browser_support.py``); each test has
its own table and its own browser contexts (cookies). The dealer acts over the JSON API
here; the dealer's screen has its own module (``test_web_browser_dealer.py``).
"""

# ruff: noqa: F811 - the fixtures club, browser and people come from browser_support
from __future__ import annotations

import http.server
import json
import re
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import (
        Page,
        Route,
        WebSocketRoute,
        expect,
    )
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from andar_bahar.engine.paytables import find_paytable
from andar_bahar.web.pages.drawing import chip_values
from browser_support import (  # noqa: F401 - club, browser, people: the fixtures
    BROKEN_WORDS,
    CARDS,
    OVERLAPS,
    PHONE,
    TAPPED,
    ClubServer,
    People,
    browser,
    club,
    fits_the_phone,
    free_port,
    in_viewport,
    join,
    people,
    row_cards,
)

expect.set_options(timeout=10_000)

CONTRAST = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
"""In the page: the WCAG 2.1 contrast of text against what is really behind it."""


def seated_phone(
    people: People, club: ClubServer, code: str, token: str, name: str, chips: str = "500"
) -> Page:
    """A phone that joined *code* as *name* through the home page."""
    phone = people.page(PHONE)
    join(phone, club, code, club.admit(code, token, name, chips), name)
    return phone


def bets_of(club: ClubServer, code: str, token: str) -> set[tuple[str, str, str]]:
    """The round's bets as the dealer's API lists them."""
    return {(b["player"], b["bet"], b["stake"]) for b in club.api(code, token)["round"]["bets"]}


# -- acceptance: two taps, everything in the first screen, refusals in view --------------------


def test_a_bet_is_two_taps_and_every_spot_and_chip_is_in_the_first_screen(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Tbilisi 7", paytable="wizard")
    phone = seated_phone(people, club, code, token, "Nino")
    club.wait_followers(code, 1)
    club.post(f"/api/tables/{code}/rounds", {}, token)
    # The bet spots of the wizard paytable (SPEC §7: Andar, Bahar and its eight bands), live.
    wizard = find_paytable("wizard")
    spots = phone.locator("[data-bet]")
    expect(spots).to_have_count(2 + len(wizard.bands))
    expect(spots.first).to_be_enabled()
    assert [s.get_attribute("data-bet") for s in spots.all()] == [str(b) for b in wizard.bets]
    chips = [str(v) for v in chip_values(wizard)]
    assert [c.get_attribute("data-chip") for c in phone.locator("[data-chip]").all()] == chips
    assert in_viewport(phone, "[data-bet], [data-chip]") == []
    assert fits_the_phone(phone)

    taps = 0
    phone.click('[data-chip="5"]')
    taps += 1
    phone.click('[data-bet="andar"]')
    taps += 1
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text("5")
    assert taps <= 3
    assert bets_of(club, code, token) == {("Nino", "andar", "5")}
    expect(phone.locator("#at-stake")).to_have_text("5")
    expect(phone.locator("[data-tap-note]")).to_contain_text("Andar")

    # The same spot again adds to it (issue 13: the engine adds), and the phone says so.
    phone.click('[data-bet="andar"]')
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text("10")
    expect(phone.locator("[data-tap-note]")).to_have_text("Andar: 5 added, 10 on the spot.")
    assert bets_of(club, code, token) == {("Nino", "andar", "10")}

    # Clear takes every bet back; the chip chosen stays chosen across the live updates.
    phone.click('[data-action="clear"]')
    expect(phone.locator(".spot-stake")).to_have_count(0)
    assert bets_of(club, code, token) == set()
    expect(phone.locator('[data-chip="5"] input')).to_be_checked()


def test_a_refused_bet_says_why_under_the_felt_never_over_a_spot(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Refusals")
    phone = seated_phone(people, club, code, token, "Gela", chips="20")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="cards:41-49"]')).to_be_enabled()
    phone.click('[data-chip="25"]')
    phone.click('[data-bet="cards:41-49"]')  # 25 of a balance of 20: refused by the engine
    alert = phone.locator("[data-tap-error]")
    expect(alert).to_have_text(re.compile(r"^Gela has 20 chips, 0 of them already staked"))
    assert in_viewport(phone, "[data-tap-error]") == []
    assert phone.evaluate(OVERLAPS, TAPPED) == []
    # It stays (a live update does not take it away) until the next tap says something new.
    club.post(f"/api/tables/{code}/actions/centre", {}, token)
    expect(phone.locator("[data-centre]")).to_have_count(1)
    expect(alert).to_be_visible()
    phone.click('[data-chip="5"]')
    phone.click('[data-bet="bahar"]')
    expect(phone.locator("[data-tap-note]")).to_have_text("Bahar: 5 on the spot.")
    expect(alert).to_have_text("")  # the newest message replaces the last
    assert phone.evaluate(OVERLAPS, TAPPED) == []
    assert bets_of(club, code, token) == {("Gela", "bahar", "5")}


def test_a_bet_sent_while_the_server_is_down_says_so_and_counts_once(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Offline")
    phone = seated_phone(people, club, code, token, "Ravi")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="bahar"]')).to_be_enabled()
    sent: list[str] = []

    def lost(route: Route) -> None:  # the request reaches the server; the answer never comes
        sent.append(route.request.post_data or "")
        route.fetch()
        route.abort("connectionreset")

    def heard(route: Route) -> None:
        sent.append(route.request.post_data or "")
        route.continue_()

    bet_url = re.compile(r"/play/[A-Z0-9]+/bet$")
    phone.route(bet_url, lost)
    phone.click('[data-chip="10"]')
    phone.click('[data-bet="bahar"]')
    alert = phone.locator("[data-tap-error]")
    expect(alert).to_contain_text("The table did not answer")
    assert in_viewport(phone, "[data-tap-error]") == []
    phone.unroute(bet_url)
    phone.route(bet_url, heard)
    phone.click('[data-bet="bahar"]')  # the same tap again, with the same key: it counts once
    expect(phone.locator("[data-tap-note]")).to_have_text("Bahar: 10 on the spot.")
    assert bets_of(club, code, token) == {("Ravi", "bahar", "10")}
    keys = [re.search(r"key=([0-9a-f]+)", body) for body in sent]
    assert len(keys) == 2 and keys[0] and keys[1] and keys[0][1] == keys[1][1]


def test_dealt_cards_appear_live_in_their_rows_and_are_announced(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Live rows")
    phone = seated_phone(people, club, code, token, "Asha")
    club.wait_followers(code, 1)
    phone.evaluate("() => { window.sameDocument = true; }")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    centre = club.post(f"/api/tables/{code}/actions/centre", {}, token)["centre"]
    expect(phone.locator("[data-centre]")).to_have_attribute("data-card", centre)
    dealt: list[dict[str, Any]] = []
    for _ in range(4):
        played = club.post(f"/api/tables/{code}/actions/deal", {}, token)
        dealt = played["dealt"]
        for row in ("andar", "bahar"):  # each card in the row the engine dealt it to
            expected = [d["card"] for d in dealt if d["row"] == row]
            expect(phone.locator(f'[data-row="{row}"] [data-card]')).to_have_count(len(expected))
            assert row_cards(phone, row) == expected
        last = dealt[-1]
        words = phone.locator(f'[data-card="{last["card"]}"]').get_attribute("aria-label")
        expect(phone.locator("#announce")).to_contain_text(str(words))
        if played["status"] != "open":
            break
    assert phone.evaluate("() => window.sameDocument === true"), "the page was reloaded"
    expect(phone.locator("[data-bet]").first).to_be_disabled()  # the first card closed bets


def test_the_spots_follow_the_felt_open_shut_and_open_again(
    club: ClubServer, people: People
) -> None:
    """The spots take bets while the felt says the round is open (table.js sets their
    fieldset from it): the first card shuts them without drawing them again, and a round
    that opens after one where nobody bet, whose spots are the same HTML, opens them."""
    code, token = club.table("Shut and open")
    phone = seated_phone(people, club, code, token, "Asha", chips="100")
    club.wait_followers(code, 1)
    andar = phone.locator('[data-bet="andar"]')
    expect(andar).to_be_disabled()  # no round yet
    for _ in range(2):  # nobody bets: the spots' block is the same in both rounds
        club.post(f"/api/tables/{code}/rounds", {}, token)
        expect(andar).to_be_enabled()
        expect(phone.locator("[data-bet-spots]")).not_to_have_attribute("disabled", "")
        spots = phone.inner_html('[data-live-block="bets"]')
        dealt = {"bets_open": True, "status": "open"}
        while dealt["bets_open"]:  # the centre card leaves them open; the first card shuts them
            dealt = club.post(f"/api/tables/{code}/actions/deal", {}, token)
        expect(andar).to_be_disabled()
        while dealt["status"] == "open":  # the first card may have ended the round already
            dealt = club.post(f"/api/tables/{code}/actions/deal", {}, token)
        club.post(f"/api/tables/{code}/actions/settle", {}, token)
        expect(phone.locator("[data-banner], .felt-head[data-winner]").first).to_be_attached()
        expect(andar).to_be_disabled()
        assert phone.inner_html('[data-live-block="bets"]') == spots  # never drawn again
    phone.reload()  # a page loaded while the bets are shut has them shut from the server
    expect(andar).to_be_disabled()
    assert phone.get_attribute("[data-bet-spots]", "disabled") is not None


# -- the result, the road, the player's own rounds ------------------------------------------------


def test_the_result_banner_the_road_and_my_own_rounds(club: ClubServer, people: People) -> None:
    code, token = club.table("Road")
    phone = seated_phone(people, club, code, token, "Asha", chips="100")
    club.wait_followers(code, 1)
    rounds = 3
    for number in range(1, rounds + 1):
        club.post(f"/api/tables/{code}/rounds", {}, token)
        expect(phone.locator("[data-banner]")).to_have_count(0)  # gone at the next round
        expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
        phone.click('[data-chip="10"]')
        phone.click('[data-bet="andar"]')
        expect(phone.locator("#at-stake")).to_have_text("10")
        while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
            pass
        played = club.post(f"/api/tables/{code}/actions/settle", {}, token)
        # The result beside the felt: the round's net for the player, with its parts (0.9 to
        # 1 on 10 is 9, rounded down to whole chips: wizard's Andar), until the next round.
        banner = phone.locator("[data-banner]")
        expect(banner).to_have_attribute("data-banner", str(number))
        won = played["winner"] == "andar"
        expect(banner).to_have_text("+9: won 9 on Andar" if won else "−10: lost 10 on Andar")
        assert in_viewport(phone, "[data-banner]") == []
        assert phone.evaluate(OVERLAPS, TAPPED) == []
        assert phone.evaluate(OVERLAPS, CARDS) == []
    # The road: the last rounds with the winner, the cards dealt and the centre card.
    history = club.api(code, token)
    assert history["round"]["number"] == rounds
    strip = phone.locator(".road-strip .bead")
    expect(strip).to_have_count(rounds)
    table = phone.locator(".road-table tbody tr")
    expect(table).to_have_count(rounds)
    assert played["number"] == rounds
    last = table.first.locator("td")
    expect(last.nth(2)).to_have_text(str(played["cards_dealt"]))
    expect(last.nth(3).locator("[data-road-card]")).to_have_attribute(
        "data-road-card", history["round"]["centre"]
    )
    # A round's link to the check of its deck is a 44 px target; the beads' letters 12 px.
    for link in phone.locator(".road-table a").all():
        box = link.bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    sizes = phone.evaluate(
        "() => Array.from(document.querySelectorAll('.bead span[aria-hidden]'),"
        " (el) => parseFloat(getComputedStyle(el).fontSize))"
    )
    assert sizes and min(sizes) >= 12, sizes
    # The player's own bets this session: three rounds of 10 on Andar.
    mine = phone.locator(".mine-table tbody tr")
    expect(mine).to_have_count(rounds)
    balance = Decimal(phone.locator("#balance").inner_text())
    net = balance - 100
    expect(phone.locator(".mine-table tfoot td")).to_have_text(
        f"+{net}" if net > 0 else (f"−{-net}" if net < 0 else "0")
    )
    # In Georgian (long words) nothing is cut mid-word on the phone: the headers, the spots.
    phone.goto(f"{club.url}/play/{code}?lang=ka")
    assert phone.evaluate(BROKEN_WORDS, "th, button, .seat, .felt-status, h2") == []
    assert fits_the_phone(phone)
    phone.goto(f"{club.url}/play/{code}?lang=en")
    # "Repeat my last bets" puts 10 on Andar again in the next round.
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-action="repeat"]')).to_be_enabled()
    phone.click('[data-action="repeat"]')
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text("10")
    assert bets_of(club, code, token) == {("Asha", "andar", "10")}


def test_available_goes_down_and_undo_double_and_repeat_say_what_they_do(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Undo")
    phone = seated_phone(people, club, code, token, "Asha", chips="100")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    note, alert = phone.locator("[data-tap-note]"), phone.locator("[data-tap-error]")
    phone.click('[data-chip="10"]')
    phone.click('[data-bet="andar"]')
    phone.click('[data-chip="5"]')
    phone.click('[data-bet="cards:1-5"]')
    expect(phone.locator("#at-stake")).to_have_text("15")
    expect(phone.locator("#available")).to_have_text("85")  # 100 chips less 15 at stake
    phone.click('[data-action="undo"]')  # the last chip placed comes off
    expect(note).to_have_text("1–5 cards dealt: 5 taken back.")
    assert bets_of(club, code, token) == {("Asha", "andar", "10")}
    expect(phone.locator("#available")).to_have_text("90")
    for doubled in ("20", "40", "80"):
        phone.click('[data-action="double"]')
        expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text(doubled)
    expect(note).to_have_text("Every bet of yours is doubled.")
    expect(phone.locator("#available")).to_have_text("20")
    phone.click('[data-action="double"]')  # 80 more of 20 available: refused, in a sentence
    expect(alert).to_have_text(
        "Doubling needs 80 more chips and Asha has 20 available: nothing was doubled."
    )
    expect(note).to_have_text("")  # the newest message replaces the last
    assert phone.evaluate(OVERLAPS, TAPPED) == []
    for left in ("40", "20"):  # undo takes the doublings back, the last first
        phone.click('[data-action="undo"]')
        expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text(left)
    expect(note).to_have_text("Andar: 20 taken back, 20 left on the spot.")
    assert bets_of(club, code, token) == {("Asha", "andar", "20")}
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass
    club.post(f"/api/tables/{code}/actions/settle", {}, token)
    # The next round: Repeat puts the last bets on; pressed again, it says beforehand that
    # it puts them on a second time, and then what is on the table.
    club.post(f"/api/tables/{code}/rounds", {}, token)
    repeat = phone.locator('[data-action="repeat"]')
    expect(repeat).to_have_text("Repeat my last bets")
    repeat.click()
    expect(note).to_have_text("Your last bets are on the table again.")
    expect(repeat).to_have_text("Repeat again (2×)")
    repeat.click()
    expect(note).to_have_text("Your last bets are on the table again: now 2× each.")
    assert bets_of(club, code, token) == {("Asha", "andar", "40")}
    expect(repeat).to_have_text("Repeat again (3×)")


def test_sideways_the_felt_is_beside_the_spots_and_chips(club: ClubServer, people: People) -> None:
    code, token = club.table("Landscape")
    phone = people.page({"width": 844, "height": 390})
    join(phone, club, code, club.admit(code, token, "Asha", "20"), "Asha")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    phone.evaluate("() => window.scrollTo(0, 0)")
    assert in_viewport(phone, "[data-bet], [data-chip], [data-action], .felt") == []
    felt = phone.locator(".felt").bounding_box()
    spots = phone.locator(".bet-spots").bounding_box()
    assert felt is not None and spots is not None
    assert felt["x"] + felt["width"] <= spots["x"]  # beside, not above
    phone.click('[data-chip="25"]')  # 25 of 20: refused (all in view: nothing scrolls)
    phone.click('[data-bet="andar"]')
    expect(phone.locator("[data-tap-error]")).to_contain_text("Asha has 20 chips")
    assert in_viewport(phone, "[data-tap-error]") == []
    assert phone.evaluate(OVERLAPS, TAPPED) == []
    assert fits_the_phone(phone)


# -- links that keep the seat -------------------------------------------------------------------


class _LinkPage(http.server.BaseHTTPRequestHandler):
    """Another site (a chat): one page with a link to the table."""

    target = ""

    def do_GET(self) -> None:
        body = f'<!doctype html><title>chat</title><a id="link" href="{self.target}">table</a>'
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_a_link_from_another_site_shows_my_seat_and_my_other_tab_still_bets(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Links")
    phone = seated_phone(people, club, code, token, "Nino")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()

    # The other site is http://localhost:PORT, the table http://127.0.0.1:PORT2: two sites.
    handler = type("Link", (_LinkPage,), {"target": f"{club.url}/play/{code}"})
    other = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        chat = people.watch(phone.context.new_page())
        chat.goto(f"http://localhost:{other.server_address[1]}/")
        with chat.expect_request(re.compile(rf"/play/{code}$")) as followed:
            chat.click("#link")
        chat.wait_for_url(f"{club.url}/play/{code}")
    finally:
        other.shutdown()
        other.server_close()
    headers = followed.value.all_headers()
    assert headers.get("sec-fetch-site") == "cross-site"  # the navigation really crossed sites
    expect(chat.locator(".seat-name strong")).to_have_text("Nino")  # the seat, not the join form
    # The first tab, never reloaded, still bets (its CSRF token still holds) …
    phone.click('[data-chip="5"]')
    phone.click('[data-bet="andar"]')
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text("5")
    # … and so does the tab the link opened.
    chat.click('[data-chip="10"]')
    chat.click('[data-bet="bahar"]')
    expect(chat.locator('[data-bet="bahar"] .spot-stake')).to_contain_text("10")
    assert bets_of(club, code, token) == {("Nino", "andar", "5"), ("Nino", "bahar", "10")}
    # The join form itself, reached again by this browser (Back after joining), leads back
    # to the seat, and so does the link of the seat's QR code.
    for join_page in (f"/?code={code}", "/", f"/seat/{code}/ABC-DEF"):
        chat.goto(f"{club.url}{join_page}")
        chat.wait_for_url(f"{club.url}/play/{code}")


# -- the live connection: a page that missed events catches up, says so ------------------------------


def test_live_messages_send_no_request_and_a_page_catches_up_after_a_drop(
    club: ClubServer, people: People
) -> None:
    """Cards dealt in quick succession reach the page over its socket alone; a page whose
    connection dropped gets what it missed in one message when it is back (issue 9)."""
    code, token = club.table("Race")
    seat = club.admit(code, token, "Asha", "100")
    club.post(f"/api/tables/{code}/rounds", {"physical": True}, token)  # typed cards
    club.post(f"/api/tables/{code}/actions/centre", {"card": "QH"}, token)
    phone = people.page(PHONE)
    join(phone, club, code, seat, "Asha")
    club.wait_followers(code, 1)
    phone.wait_for_load_state("networkidle")
    requests: list[str] = []
    phone.on("request", lambda request: requests.append(request.url))
    club.post(f"/api/tables/{code}/actions/deal", {"card": "2C"}, token)
    club.post(f"/api/tables/{code}/actions/deal", {"card": "3D"}, token)
    expect(phone.locator("[data-row] [data-card]")).to_have_count(2)
    assert row_cards(phone, "andar") == ["2♣"] and row_cards(phone, "bahar") == ["3♦"]
    expect(phone.locator('[data-bet="andar"]')).to_be_disabled()  # the window closed
    assert requests == [], f"live messages made the page ask for {requests}"
    # The page's version is the v of the last message it was sent: the second deal's (the
    # table's), or the first deal's when one render, started after the second deal was
    # committed, drew both cards (live/hub.py: a message's HTML may be newer than its v, never
    # older; the next render then had nothing new for this page and sent it nothing).
    version = int(phone.evaluate("() => document.body.dataset.liveVersion"))
    assert version in (club.api(code)["version"] - 1, club.api(code)["version"])

    phone.context.set_offline(True)  # the Wi-Fi drops; meanwhile a card is dealt
    club.wait_followers(code, 0)
    club.post(f"/api/tables/{code}/actions/deal", {"card": "4H"}, token)
    phone.context.set_offline(False)  # back: live.js reconnects and is sent what it missed
    expect(phone.locator("[data-row] [data-card]")).to_have_count(3)
    assert row_cards(phone, "andar") == ["2♣", "4♥"] and row_cards(phone, "bahar") == ["3♦"]
    expect(phone.locator("#live-status")).to_be_hidden()
    assert [url for url in requests if "/ws/" not in url] == []


def test_a_late_answer_does_not_take_newer_blocks_off_the_page(
    club: ClubServer, people: People
) -> None:
    """The answer to a bet and the socket's messages race: an answer that arrives after the
    socket brought the settled round must not put the bet's stake back on the page (live.js
    replaces a block only with HTML at least as new as the page's)."""
    code, token = club.table("Late answer")
    phone = seated_phone(people, club, code, token, "Asha", chips="100")
    club.wait_followers(code, 1)
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    held: list[tuple[Route, Any]] = []

    def hold(route: Route) -> None:  # the server answers; the answer waits in the network
        held.append((route, route.fetch()))

    phone.route(re.compile(r"/play/[A-Z0-9]+/bet$"), hold)
    phone.click('[data-chip="10"]')
    phone.click('[data-bet="andar"]')
    while not held:
        phone.wait_for_timeout(20)
    assert bets_of(club, code, token) == {("Asha", "andar", "10")}  # placed: only the answer waits
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass
    number = club.post(f"/api/tables/{code}/actions/settle", {}, token)["number"]
    expect(phone.locator("[data-banner]")).to_have_attribute("data-banner", str(number))
    seat = phone.inner_html('[data-live-block="me"]')  # the settled round: nothing at stake
    route, answer = held[0]
    route.fulfill(response=answer)  # the bet's answer, drawn before the first card, arrives
    expect(phone.locator("[data-tap-note]")).to_have_text("Andar: 10 on the spot.")
    assert phone.inner_html('[data-live-block="me"]') == seat
    # The spots have not changed since the bet (the socket left them to its answer): they
    # show its stake, as a fresh page does, and stay shut, as the felt says.
    andar = phone.locator('[data-bet="andar"]')
    expect(andar).to_have_class(re.compile(r"\bstaked\b"))
    expect(andar).to_be_disabled()
    fresh = phone.context.new_page()  # the same phone, its page loaded again
    fresh.goto(phone.url)
    spots = [p.inner_html('[data-live-block="bets"]').split("<div", 1)[1] for p in (fresh, phone)]
    assert spots[0].split() == spots[1].split()  # the same spots, chips and buttons (the
    # no-script form's own key, before them, aside)


def test_a_socket_message_counts_by_the_version_of_its_html(
    club: ClubServer, people: People
) -> None:
    """A complete answer (the dealer's) may move the page to version v before the socket's
    message for v arrives, drawn later with a bet that came meanwhile (``h`` = v + 1): that
    message is applied; one whose HTML is not newer than the page is not (live.js)."""
    code, token = club.table("By the HTML")
    sockets: list[WebSocketRoute] = []

    def line(socket: WebSocketRoute) -> None:
        socket.connect_to_server()
        sockets.append(socket)

    phone = people.page(PHONE)
    phone.route_web_socket(re.compile(r"/ws/"), line)
    join(phone, club, code, club.admit(code, token, "Asha"), "Asha")
    club.wait_followers(code, 1)
    v = int(phone.evaluate("() => document.body.dataset.liveVersion")) + 1
    phone.evaluate(f"() => andarBahar.apply({{v: {v}, complete: true, blocks: {{}}}})")
    me = phone.locator('[data-live-block="me"]')

    def message(blocks: dict[str, str], v: int, h: int | None = None) -> None:
        head = {"v": v} if h is None else {"v": v, "h": h}
        sockets[-1].send(json.dumps({**head, "kind": "bet", "blocks": blocks, "data": {}}))

    message({"me": "<p>newer</p>"}, v, v + 1)
    expect(me).to_have_text("newer")
    assert phone.evaluate("() => document.body.dataset.liveVersion") == str(v)  # not h
    message({"me": "<p>old</p>"}, v)  # no newer than the page: dropped
    message({"mine": "<p>next</p>"}, v + 2)  # the messages are taken in order
    expect(phone.locator('[data-live-block="mine"]')).to_have_text("next")
    expect(me).to_have_text("newer")


def test_a_reconnecting_page_says_so_and_catches_up(club: ClubServer, people: People) -> None:
    code, token = club.table("Reconnect")
    seat_code = club.admit(code, token, "Asha")
    phone = people.page(PHONE)
    # The phone's live connection goes through the test: it can refuse to reconnect.
    allowed = [True]

    def line(socket: WebSocketRoute) -> None:
        if allowed[0]:
            socket.connect_to_server()
        else:
            socket.close(code=1011, reason="no network")

    phone.route_web_socket(re.compile(r"/ws/"), line)
    join(phone, club, code, seat_code, "Asha")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    club.wait_followers(code, 1)
    # The server ends every live connection (as at a restart) and the phone cannot get
    # back: the page says it is reconnecting.
    allowed[0] = False
    club.hub.close()
    expect(phone.locator("#live-status")).to_be_visible()
    club.post(f"/api/tables/{code}/actions/centre", {}, token)  # missed while away
    expect(phone.locator("[data-centre]")).to_have_count(0)
    allowed[0] = True
    phone.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(phone.locator("#live-status")).to_be_hidden()
    expect(phone.locator("[data-centre]")).to_have_count(1)  # caught up
    expect(phone.locator("#live-back")).to_be_visible()


# -- accessibility: contrast in light and dark mode, the keyboard -------------------------------------


@pytest.mark.parametrize(
    "scheme",
    ["light", pytest.param("dark", marks=pytest.mark.slow)],  # dark: the slow tier
)
def test_text_cards_and_buttons_have_contrast_in_light_and_dark_mode(
    club: ClubServer, people: People, scheme: str
) -> None:
    code, token = club.table(f"Contrast {scheme}")
    phone = seated_phone(people, club, code, token, "Asha")
    phone.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    club.post(f"/api/tables/{code}/rounds", {"physical": True}, token)
    # Black and red cards in both rows (classic: Andar first, then alternating), so black
    # cards on the Bahar row too (they were drawn in the row's rust colour, 1.03:1).
    club.post(f"/api/tables/{code}/actions/centre", {"card": "KD"}, token)
    phone.click('[data-bet="bahar"]')
    expect(phone.locator(".spot-stake")).to_have_count(1)
    for card in ("2S", "3C", "4H", "5D"):
        club.post(f"/api/tables/{code}/actions/deal", {"card": card}, token)
    expect(phone.locator("[data-row] [data-card]")).to_have_count(4)
    assert phone.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (
        scheme == "dark"
    )
    failures = phone.evaluate(CONTRAST)
    assert failures == [], f"{scheme}: " + "; ".join(failures)
    # The result banner and a refusal's alert, too.
    club.post(f"/api/tables/{code}/actions/deal", {"card": "KS"}, token)
    club.post(f"/api/tables/{code}/actions/settle", {}, token)
    expect(phone.locator("[data-banner]")).to_be_visible()
    assert phone.evaluate(CONTRAST) == []
    club.post(f"/api/tables/{code}/rounds", {}, token)
    phone.click('[data-chip="100"]')
    for _ in range(6):  # 600 of 500: the last taps are refused
        phone.click('[data-bet="cards:1-5"]')
    expect(phone.locator("[data-tap-error]")).not_to_have_text("")
    assert phone.evaluate(CONTRAST) == []


def test_the_phone_works_from_the_keyboard(club: ClubServer, people: People) -> None:
    code, token = club.table("Keys")
    phone = seated_phone(people, club, code, token, "Asha")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    phone.focus('[data-bet="andar"]')
    phone.keyboard.press("Enter")
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_contain_text("1")
    # the focus stays on the spot after the live blocks were replaced
    assert phone.evaluate("() => document.activeElement.getAttribute('data-bet')") == "andar"
    phone.focus('[data-chip="1"] input')
    phone.keyboard.press("ArrowRight")
    expect(phone.locator('[data-chip="5"] input')).to_be_checked()
    phone.focus('[data-bet="bahar"]')
    phone.keyboard.press("Space")
    expect(phone.locator('[data-bet="bahar"] .spot-stake')).to_contain_text("5")


def test_the_centre_card_spots_show_until_it_is_turned(club: ClubServer, people: People) -> None:
    # The joker preset: 4 suits, 2 colours, 13 ranks, A–6, 7, 8–K before the turn;
    # the centre card Q♥ typed by the dealer: a heart wins 5 × 2.9 = 14.5, paid 14.
    code, token = club.table("Centre", paytable="joker")
    phone = seated_phone(people, club, code, token, "Nino")
    club.wait_followers(code, 1)
    club.post(f"/api/tables/{code}/rounds", {"physical": True}, token)
    centre = phone.locator('[data-bet^="centre:"]')
    expect(centre).to_have_count(22)
    assert fits_the_phone(phone)
    phone.click('[data-chip="5"]')
    phone.click('[data-bet="centre:suit:♥"]')
    expect(phone.locator('[data-bet="centre:suit:♥"] .spot-stake')).to_contain_text("5")
    club.post(f"/api/tables/{code}/actions/centre", {"card": "Q♥"}, token)
    expect(centre).to_have_count(0)  # gone at the turn; Andar, Bahar and the bands stay
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    expect(phone.locator("[data-banner]")).to_have_text(
        "+14: the centre card is Q♥: won 14 on centre card ♥ (paid when the round is settled)"
    )
