"""The club table in a real browser: the dealer's laptop and two players' phones (issue 5).

Debian's Chromium (``/usr/bin/chromium``) through Playwright, against the whole app
(:func:`andar_bahar.web.app.create_app`) under uvicorn on loopback, with an SQLite
file of its own. Each person has a browser context of their own (their own cookies):
the dealer at 1280×900, the players at 390×844. The players' pages are never
reloaded while the cards are dealt: what they show comes over the WebSocket.
Issue 10: a phone's verify page flags a deck swapped (and committed anew) after the
phone saw the round's commitment while its bets were open.

The screenshots of the dealer's and a player's page in each language are taken on
every run (into pytest's temporary folder); ``UPDATE_SCREENSHOTS=1`` also writes
them to ``docs/screenshots/web/`` (the deck, the code and so the pictures change
on every run).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

try:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        Page,
        ViewportSize,
        expect,
        sync_playwright,
    )
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Row
from andar_bahar.engine.settlement import settle
from andar_bahar.i18n import format_number
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, TableRoundRow
from andar_bahar.web.app import create_app
from andar_bahar.web.live import Hub
from andar_bahar.web.records import commitment_of

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAPTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots" / "web"
CLOSED = (
    "Bets are closed: the first card has been dealt, so nothing can be placed,"
    " changed or taken back."
)
MATCHES = "the deck matches the commitment"
SAME = "the same: the deck was fixed before you bet"
DIFFERENT = "DIFFERENT: the deck revealed is not the one committed to while you were betting"
NOT_SEEN = (
    "this browser did not see this round while its bets were open"
    " (it keeps what it saw, on this device only)"
)

expect.set_options(timeout=10_000)


# -- the server and the browser ------------------------------------------------------------------


class Club:
    """The app under uvicorn in a thread, on a free loopback port."""

    def __init__(self, database: Path) -> None:
        import uvicorn

        self.hub = Hub()
        self.database = f"sqlite:///{database}"
        app = create_app(database_url=f"sqlite:///{database}", secret=b"b" * 32, hub=self.hub)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while True:  # until GET / answers
            try:
                with urllib.request.urlopen(f"{self.url}/", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def api(self, code: str, token: str = "") -> dict[str, Any]:
        """GET /api/tables/{code}: the table as a program (with the dealer's token) sees it."""
        request = urllib.request.Request(
            f"{self.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            data: dict[str, Any] = json.load(response)
        return data

    def post(self, path: str, data: dict[str, Any], token: str = "") -> dict[str, Any]:
        """POST JSON to the API (a bearer token, no cookies, no CSRF token)."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(data).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            answer: dict[str, Any] = json.load(response)
        return answer

    def wait_followers(self, code: str, count: int) -> None:
        """Until *count* pages follow the table live (their WebSocket is open)."""
        deadline = time.monotonic() + 10
        while self.hub.followers(code) < count:
            assert time.monotonic() < deadline, f"{count} live pages expected at {code}"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    server = Club(tmp_path_factory.mktemp("club") / "club.sqlite3")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(club: Club) -> Iterator[Browser]:  # the server outlives the browser
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class People:
    """Browser contexts, one per person, and what went wrong in their pages."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.problems: list[str] = []

    def page(self, viewport: ViewportSize) -> Page:
        context = self.browser.new_context(viewport=viewport, locale="en-US")
        self.contexts.append(context)
        return self.watch(context.new_page())

    def watch(self, page: Page) -> Page:
        page.on("pageerror", lambda error: self.problems.append(f"{page.url}: {error}"))
        page.on(
            "console",
            lambda message: (
                self.problems.append(f"{page.url}: {message.text}")
                if "Content Security Policy" in message.text
                else None
            ),
        )
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def people(browser: Browser) -> Iterator[People]:
    crowd = People(browser)
    yield crowd
    crowd.close()
    assert crowd.problems == []


# -- what people do --------------------------------------------------------------------------------


def act(page: Page, selector: str) -> None:
    """Press a button whose action succeeds: htmx posts it, and its answer (the blocks it
    changed) is applied in place — the page is not loaded again."""
    with page.expect_response(lambda response: response.request.method == "POST") as answer:
        page.click(selector)
    assert answer.value.ok, answer.value.text()


def create_table(dealer: Page, club: Club, **fields: str) -> str:
    """Fill in /tables/new and create the table; returns its code."""
    dealer.goto(f"{club.url}/tables/new")
    form = dealer.locator("#new-table")
    form.locator("input[name=name]").fill(fields["name"])
    form.locator("select[name=kind]").select_option(fields["kind"])
    form.locator("select[name=procedure]").select_option(fields["procedure"])
    form.locator("select[name=paytable]").select_option(fields.get("paytable", "trainer-default"))
    if "rounds" in fields:
        form.locator("input[name=rounds]").fill(fields["rounds"])
    form.locator("input[name=pin]").fill(fields["pin"])
    form.get_by_role("button", name="Show the odds of this pairing").click()  # htmx, in place
    expect(dealer.locator("#preview h2")).to_contain_text(fields["procedure"])
    form.locator("button[type=submit]").click()
    dealer.wait_for_url(re.compile(r"/dealer/[A-Z0-9]{6}$"))
    return dealer.url.rsplit("/", 1)[-1]


def admit(dealer: Page, name: str, chips: str | None = None) -> str:
    """Admit *name*; the seat code the dealer's screen shows (with its QR code)."""
    dealer.fill("#admit input[name=name]", name)
    if chips is not None:
        dealer.fill("#admit input[name=balance]", chips)
    act(dealer, "#admit button")
    expect(dealer.locator("#players tbody td", has_text=name)).to_have_count(1)
    seat = dealer.locator(f'[data-seat-for="{name}"]')
    expect(seat.locator("xpath=../..").locator("svg")).to_have_count(1)  # the QR code
    return seat.inner_text()


def dealer_token(dealer: Page, code: str) -> str:
    """The dealer's token, from the signed cookie of the dealer's browser."""
    [cookie] = [c for c in dealer.context.cookies() if c["name"] == f"dealer_{code}"]
    return cookie["value"].strip('"').rpartition(".")[0]


def join(player: Page, club: Club, code: str, seat: str, name: str) -> None:
    """From the home page, with the table's code (typed in lower case) and the seat code."""
    player.goto(f"{club.url}/")
    player.fill("input[name=code]", code.lower())
    player.fill("input[name=seat]", seat)
    player.click("button[type=submit]")
    player.wait_for_url(f"**/play/{code}")
    expect(player.locator("#me h1")).to_contain_text(name)


def deal_to_the_match(dealer: Page) -> None:
    """Deal one card at a time from the stored deck until one matches the centre card."""
    cards = dealer.locator("#round .cards-row .card")
    while dealer.locator("#settle").count() == 0:
        dealt = cards.count()
        act(dealer, "#deal")
        expect(cards).to_have_count(dealt + 1)
    expect(dealer.locator("#round .verdict")).to_be_visible()


def mark_document(*pages: Page) -> None:
    """Tag each page's document: a page that reloads loses the tag."""
    for page in pages:
        page.evaluate("() => { window.sameDocument = true; }")


def same_document(page: Page) -> bool:
    return bool(page.evaluate("() => window.sameDocument === true"))


def card_texts(page: Page, row: str) -> list[str]:
    return page.locator(f"#round .cards-row.{row} .card").all_inner_texts()


def fits_the_phone(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


# -- issue 5: a betting round ------------------------------------------------------------------


def test_a_betting_round_from_the_laptop_and_two_phones(
    club: Club, people: People, tmp_path: Path
) -> None:
    dealer = people.page(LAPTOP)
    code = create_table(
        dealer, club, name="Friday club", kind="betting", procedure="classic",
        paytable="wizard", pin="246813",
    )  # fmt: skip
    expect(dealer.locator("h1")).to_contain_text("Friday club")
    token = dealer_token(dealer, code)
    seats = {"Asha": admit(dealer, "Asha", "500"), "Ravi": admit(dealer, "Ravi", "300")}
    expect(dealer.locator("#players td.balance")).to_have_text(["500", "300"])
    dealer.fill("#admit input[name=name]", "Asha")  # a refusal shows on the dealer's page
    dealer.click("#admit button")
    expect(dealer.locator("#errors")).to_have_text("Asha is already at the table.")

    asha, ravi = people.page(PHONE), people.page(PHONE)
    join(asha, club, code, seats["Asha"], "Asha")
    join(ravi, club, code, seats["Ravi"], "Ravi")
    expect(asha.locator("#balance strong")).to_have_text("500")
    expect(ravi.locator("#balance strong")).to_have_text("300")
    expect(dealer.locator("#players tbody tr", has_text="✓")).to_have_count(2)  # live
    club.wait_followers(code, 3)

    # The round opens: the players' pages show the bet form, live, with the commitment.
    act(dealer, "#open")
    commitment = dealer.locator(".commitment code").inner_text()
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    for player in (asha, ravi):
        expect(player.locator("#bet-form")).to_be_visible()
        expect(player.locator(".commitment code")).to_have_text(commitment)

    # Asha is typing her bet when the centre card is turned: the live update shows the
    # card and keeps what she typed (the form is preserved, not replaced).
    asha.select_option("#bet", "andar")
    asha.fill("#stake", "100")
    asha.evaluate("() => { document.querySelector('#round h2').dataset.before = 'centre'; }")
    act(dealer, "#centre")
    centre = dealer.locator("#round .centre .card").inner_text()
    for player in (asha, ravi):
        expect(player.locator("#round .centre .card")).to_have_text(centre)
    expect(asha.locator("#round h2[data-before]")).to_have_count(0)  # #round was refreshed
    expect(asha.locator("#bet")).to_have_value("andar")
    expect(asha.locator("#stake")).to_have_value("100")
    act(asha, "#place")
    expect(asha.locator("#my-bets li")).to_have_text(["Andar — 100"])

    # Ravi: a main bet and a side bet (cards dealt), after the centre card.
    for bet, stake in (("bahar", "40"), ("cards:6-10", "25")):
        ravi.select_option("#bet", bet)
        ravi.fill("#stake", stake)
        act(ravi, "#place")
    expect(ravi.locator("#my-bets li")).to_have_text(["Bahar — 40", "6–10 cards dealt — 25"])
    expect(dealer.locator("#round table.bets tbody tr")).to_have_count(3)  # live

    # A second tab of Asha's whose live connection is dead (the test holds its socket,
    # which opens but never hears anything): its bet form stays open after the window.
    stale = people.watch(asha.context.new_page())
    stale.route_web_socket(re.compile(r"/ws/"), lambda socket: None)
    stale.goto(f"{club.url}/play/{code}")
    stale.select_option("#bet", "cards:1-5")
    stale.fill("#stake", "30")

    mark_document(asha, ravi)
    act(dealer, "#deal")  # the first card closes the window
    first = dealer.locator("#round .cards-row .card").inner_text()
    for player in (asha, ravi):
        expect(player.locator("#round .cards-row .card").first).to_have_text(first)
        expect(player.locator("#closed")).to_be_visible()
        expect(player.locator("#bet-form")).to_have_count(0)
    expect(stale.locator("#round .cards-row .card")).to_have_count(0)
    stale.click("#place")
    expect(stale.locator("#errors")).to_have_text(CLOSED)
    expect(stale.locator("#errors p.error[role=alert]")).to_be_visible()
    assert stale.url == f"{club.url}/play/{code}"  # the refusal is shown on the same page
    bets = {(b["player"], b["bet"], b["stake"]) for b in club.api(code, token)["round"]["bets"]}
    assert bets == {("Asha", "andar", "100"), ("Ravi", "bahar", "40"), ("Ravi", "cards:6-10", "25")}
    expect(asha.locator("#my-bets li")).to_have_text(["Andar — 100"])

    deal_to_the_match(dealer)
    andar, bahar = card_texts(dealer, "andar"), card_texts(dealer, "bahar")
    act(dealer, "#settle")
    expect(dealer.locator("#round h2").first).to_contain_text("settled")

    # The players saw the same cards, live.
    for player in (asha, ravi):
        expect(player.locator("#round h2").first).to_contain_text("Round 1 — settled")
        expect(player.locator("#round .cards-row.andar .card")).to_have_text(andar)
        expect(player.locator("#round .cards-row.bahar .card")).to_have_text(bahar)
        expect(player.locator("#round .centre .card")).to_have_text(centre)
        assert same_document(player), "a player's page was reloaded"

    # The expected balances: andar_bahar.engine.settlement.settle on the outcome read from the
    # API (GET /api/tables/{code}): winner, cards dealt, first row, and the bets placed.
    state = club.api(code, token)
    played = state["round"]
    assert played["status"] == "settled"
    assert [d["card"] for d in played["dealt"] if d["row"] == "andar"] == andar
    assert [d["card"] for d in played["dealt"] if d["row"] == "bahar"] == bahar
    assert played["centre"] == centre
    expected = settle(
        winner=None if played["winner"] == "void" else Row(played["winner"]),
        cards_dealt=played["cards_dealt"],
        first_row=Row(played["first_side"]),
        paytable=find_paytable("wizard"),
        wagers=[
            Wager(b["player"], Bet.parse(b["bet"]), Decimal(b["stake"])) for b in played["bets"]
        ],
    )
    balances = {"Asha": Decimal(500), "Ravi": Decimal(300)}
    for settled in expected.bets:
        balances[settled.player] += settled.returned - settled.stake
    assert {p["name"]: Decimal(p["balance"]) for p in state["players"]} == balances
    shown = {name: format_number(amount, "en") for name, amount in balances.items()}
    expect(asha.locator("#balance strong")).to_have_text(shown["Asha"])
    expect(ravi.locator("#balance strong")).to_have_text(shown["Ravi"])
    expect(dealer.locator("#players td.balance")).to_have_text([shown["Asha"], shown["Ravi"]])
    # Each player's settlement lists their own bets only, as the engine settled them
    # (bet, stake, outcome, win, returned).
    for player, name in ((asha, "Asha"), (ravi, "Ravi")):
        rows = [
            [b.bet.localized(None), format_number(b.win, "en"), format_number(b.returned, "en")]
            for b in expected.bets
            if b.player == name
        ]
        table = player.locator("#mine table.settlement tbody tr")
        expect(table).to_have_count(len(rows))
        for row, (bet, win, returned) in zip(table.all(), rows, strict=True):
            expect(row.locator("td").nth(0)).to_have_text(bet)
            expect(row.locator("td").nth(3)).to_have_text(win)
            expect(row.locator("td").nth(4)).to_have_text(returned)

    # The history lists the settled round with its "verify" link (live, too).
    for player in (asha, ravi):
        link = player.locator("#history a", has_text="verify")
        expect(link).to_have_attribute("href", f"/verify/{code}/1")
        assert same_document(player)
    stale.close()

    # The dealer's and a player's view in each language, cards dealt and settled.
    for lang in ("en", "ru", "ka"):
        if lang != "en":  # the English pages are the live ones, as they are
            dealer.goto(f"{club.url}/dealer/{code}?lang={lang}")
            asha.goto(f"{club.url}/play/{code}?lang={lang}")
        for page in (dealer, asha):
            expect(page.locator("html")).to_have_attribute("lang", lang)
            expect(page.locator("#round .cards-row .card")).to_have_count(len(andar + bahar))
        expect(asha.locator("#balance strong")).to_have_text(format_number(balances["Asha"], lang))
        assert fits_the_phone(asha), f"the player's page is wider than the phone in {lang}"
        if lang == "ka":  # Georgian letters come from a Georgian font, not as boxes
            font = asha.evaluate("() => getComputedStyle(document.body).fontFamily")
            assert font.startswith('"Noto Sans Georgian"')
            assert asha.evaluate(
                "() => document.fonts.check('16px \"Noto Sans Georgian\"', 'ანდარი')"
            )
        for page, who in ((dealer, "dealer"), (asha, "player")):
            shot = tmp_path / f"{who}.{lang}.png"
            page.screenshot(path=shot, full_page=True)
            assert shot.stat().st_size > 10_000
            if os.environ.get("UPDATE_SCREENSHOTS") == "1":
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(shot, SCREENSHOTS / shot.name)

    # The fairness link: the revealed deck is the one dealt, and the browser checks it.
    asha.goto(f"{club.url}/play/{code}?lang=en")
    with asha.expect_navigation():
        asha.locator("#history a", has_text="verify").click()
    assert asha.url == f"{club.url}/verify/{code}/1"
    expect(asha.locator("#browser-check")).to_have_text(MATCHES)
    expect(asha.locator("#browser-check")).to_have_class("ok")
    box = asha.locator("#verify")
    expect(box).to_have_attribute("data-commitment", commitment)
    deck = (box.get_attribute("data-deck") or "").split()
    dealt = [d["card"] for d in played["dealt"]]
    assert len(deck) == 52 and deck[: 1 + len(dealt)] == [centre, *dealt]


def test_the_browser_checks_the_deck_without_crypto_subtle(club: Club, people: People) -> None:
    """A phone on the club's Wi-Fi (plain http, no secure context) has no crypto.subtle."""
    table = club.post("/api/tables", {"name": "Quick", "procedure": "classic", "pin": "135791"})
    code, token = table["code"], table["dealer_token"]
    club.post(f"/api/tables/{code}/rounds", {}, token)
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass  # the first "deal" turns the centre card
    club.post(f"/api/tables/{code}/actions/settle", {}, token)
    phone = people.page(PHONE)
    phone.add_init_script("delete Crypto.prototype.subtle;")
    phone.goto(f"{club.url}/verify/{code}/1")
    assert phone.evaluate("() => window.crypto.subtle === undefined")
    expect(phone.locator("#browser-check")).to_have_text(MATCHES)
    expect(phone.locator("#browser-check")).to_have_class("ok")


def test_live_messages_send_no_request_and_a_page_catches_up_after_a_drop(
    club: Club, people: People
) -> None:
    """Cards dealt in quick succession reach the page over its socket alone; a page whose
    connection dropped gets what it missed in one message when it is back."""
    table = club.post("/api/tables", {"name": "Race", "procedure": "classic", "pin": "975312"})
    code, token = table["code"], table["dealer_token"]
    seat = club.post(f"/api/tables/{code}/players", {"name": "Asha", "balance": "100"}, token)
    club.post(f"/api/tables/{code}/rounds", {"physical": True}, token)  # typed cards
    club.post(f"/api/tables/{code}/actions/centre", {"card": "QH"}, token)
    phone = people.page(PHONE)
    join(phone, club, code, seat["seat_code"], "Asha")
    club.wait_followers(code, 1)
    phone.wait_for_load_state("networkidle")
    requests: list[str] = []
    phone.on("request", lambda request: requests.append(request.url))
    club.post(f"/api/tables/{code}/actions/deal", {"card": "2C"}, token)
    club.post(f"/api/tables/{code}/actions/deal", {"card": "3D"}, token)
    expect(phone.locator("#round .cards-row .card")).to_have_text(["2♣", "3♦"])
    expect(phone.locator("#closed")).to_be_visible()  # its own block: the window closed
    assert requests == [], f"live messages made the page ask for {requests}"
    version = int(phone.evaluate("() => document.body.dataset.liveVersion"))
    assert version == club.api(code)["version"]

    phone.context.set_offline(True)  # the Wi-Fi drops; meanwhile a card is dealt
    club.wait_followers(code, 0)
    club.post(f"/api/tables/{code}/actions/deal", {"card": "4H"}, token)
    phone.context.set_offline(False)  # back: live.js reconnects and is sent what it missed
    cards = phone.locator("#round .cards-row .card")  # Andar's row, then Bahar's
    expect(cards).to_have_text(["2♣", "4♥", "3♦"])
    expect(phone.locator("#live-status")).to_be_hidden()
    assert [url for url in requests if "/ws/" not in url] == []


# -- issue 5: a teaching round ----------------------------------------------------------------------


def test_a_teaching_round_with_markers_and_tokens(club: Club, people: People) -> None:
    dealer = people.page(LAPTOP)
    code = create_table(
        dealer, club, name="Lesson", kind="teaching", procedure="home", rounds="1", pin="864213"
    )
    expect(dealer.locator("#admit input[name=balance]")).to_have_count(0)  # no chips
    seats = {"Asha": admit(dealer, "Asha"), "Ravi": admit(dealer, "Ravi")}
    asha, ravi = people.page(PHONE), people.page(PHONE)
    join(asha, club, code, seats["Asha"], "Asha")
    join(ravi, club, code, seats["Ravi"], "Ravi")
    expect(asha.locator("#tokens")).to_have_text("0 tokens")
    club.wait_followers(code, 3)

    act(dealer, "#open")
    for player in (asha, ravi):
        expect(player.locator("#mark-andar")).to_be_visible()
        expect(player.locator("#bet-form")).to_have_count(0)  # markers, not stakes
    act(asha, "#mark-bahar")
    expect(asha.locator("#my-marker")).to_have_text("Bahar")
    act(asha, "#mark-andar")  # a marker moves while the window is open
    expect(asha.locator("#my-marker")).to_have_text("Andar")
    act(ravi, "#mark-bahar")
    expect(ravi.locator("#my-marker")).to_have_text("Bahar")
    expect(dealer.locator("#round .tag")).to_have_text(["Asha: Andar", "Ravi: Bahar"])  # live

    mark_document(asha, ravi)
    act(dealer, "#centre")
    deal_to_the_match(dealer)
    andar, bahar = card_texts(dealer, "andar"), card_texts(dealer, "bahar")
    act(dealer, "#settle")
    for player in (asha, ravi):
        expect(player.locator("#round h2").first).to_contain_text("settled")
        expect(player.locator("#round .cards-row.andar .card")).to_have_text(andar)
        expect(player.locator("#round .cards-row.bahar .card")).to_have_text(bahar)
        expect(player.locator("#mark-andar")).to_have_count(0)
        assert same_document(player), "a player's page was reloaded"

    # A token for a marker on the winning row (the winner read from the API).
    played = club.api(code)["round"]
    assert played["markers"] == {"Asha": "andar", "Ravi": "bahar"}
    tokens = {name: int(row == played["winner"]) for name, row in played["markers"].items()}

    def words(n: int) -> str:
        return "1 token" if n == 1 else f"{n} tokens"

    expect(asha.locator("#tokens")).to_have_text(words(tokens["Asha"]))
    expect(ravi.locator("#tokens")).to_have_text(words(tokens["Ravi"]))
    expect(dealer.locator("#players td.balance")).to_have_text(
        [str(tokens["Asha"]), str(tokens["Ravi"])]
    )
    # One round was planned: the lesson is over and the standings show, live.
    winner, loser = sorted(tokens, key=lambda name: -tokens[name])
    for player in (asha, ravi):
        expect(player.locator(".standings li")).to_have_text(
            [f"{winner} — 1 token", f"{loser} — 0 tokens"]
        )
    expect(dealer.locator("#open")).to_have_count(0)


# -- issue 10: the verify page compares with what the player saw while betting ---------------------


def kept_commitment(page: Page, code: str, number: int) -> str:
    """The commitment this browser kept for round *number* (verify.js, in localStorage)."""
    key = f"andar-bahar:commitment:{code}:{number}"
    page.wait_for_function(f"() => localStorage.getItem({key!r}) !== null", timeout=10_000)
    return str(page.evaluate(f"() => localStorage.getItem({key!r})"))


def swap_the_deck(database: str, code: str, number: int) -> str:
    """What a cheating server would do once bets are open: put another deck in, commit anew.

    The round's stored deck is reversed (no card has been turned yet) and a new salt and
    commitment are stored with it, so that everything the server shows later agrees with
    itself — only the commitment the player's browser saw while betting differs.
    """
    with Storage.open(database) as storage, storage.engine.begin() as connection:
        table_id = connection.execute(
            select(ClubTableRow.id).where(ClubTableRow.code == code)
        ).scalar_one()
        row = connection.execute(
            select(TableRoundRow.id, TableRoundRow.record).where(
                TableRoundRow.table_id == table_id, TableRoundRow.number == number
            )
        ).one()
        record = json.loads(row.record)
        deck = " ".join(reversed(record["deck"].split()))
        record["deck"] = deck
        salt = "00" * 16
        commitment = commitment_of(deck, salt)
        connection.execute(
            update(TableRoundRow)
            .where(TableRoundRow.id == row.id)
            .values(record=json.dumps(record, ensure_ascii=False), salt=salt, commitment=commitment)
        )
        connection.execute(  # a change of the table: the server reads the round again
            update(ClubTableRow)
            .where(ClubTableRow.id == table_id)
            .values(version=ClubTableRow.version + 1)
        )
    return commitment


def play_out(club: Club, code: str, token: str) -> None:
    """Turn the centre card, deal to the match and settle, over the API."""
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass  # the first "deal" turns the centre card
    club.post(f"/api/tables/{code}/actions/settle", {}, token)


def test_the_verify_page_flags_a_deck_other_than_the_one_seen_while_betting(
    club: Club, people: People
) -> None:
    table = club.post("/api/tables", {"name": "Watch", "procedure": "classic", "pin": "531246"})
    code, token = table["code"], table["dealer_token"]
    seat = club.post(f"/api/tables/{code}/players", {"name": "Asha", "balance": "100"}, token)
    phone = people.page(PHONE)
    join(phone, club, code, seat["seat_code"], "Asha")
    club.wait_followers(code, 1)
    checks = {which: phone.locator(f"#{which}-check") for which in ("browser", "seen", "deal")}

    # A fair round: the phone keeps the commitment it is shown (live) while bets are open.
    fair = club.post(f"/api/tables/{code}/rounds", {}, token)["commitment"]
    assert kept_commitment(phone, code, 1) == fair
    play_out(club, code, token)
    phone.goto(f"{club.url}/verify/{code}/1")
    expect(checks["browser"]).to_have_text(MATCHES)
    expect(checks["seen"]).to_have_text(SAME)
    expect(checks["deal"]).to_have_text("yes")
    for check in checks.values():
        expect(check).to_have_class("ok")

    # The next round's deck is swapped once the phone has seen its commitment (the page is
    # loaded while bets are open, this time) and been put away: the server's own checks
    # still agree with themselves and the cards turned are the new deck's, but the phone
    # says DIFFERENT. (A phone still watching would be shown the second commitment too,
    # and warn that it saw two.)
    phone.goto(f"{club.url}/play/{code}")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    seen = kept_commitment(phone, code, 2)
    phone.goto(f"{club.url}/")
    swapped = swap_the_deck(club.database, code, 2)
    assert swapped != seen
    play_out(club, code, token)
    phone.goto(f"{club.url}/verify/{code}/2")
    expect(phone.locator("#verify")).to_have_attribute("data-commitment", swapped)
    expect(checks["browser"]).to_have_text(MATCHES)
    expect(checks["deal"]).to_have_text("yes")
    expect(checks["seen"]).to_have_text(DIFFERENT)
    expect(checks["seen"]).to_have_class("bad")

    # A browser that never saw the round says so, rather than vouching for it.
    stranger = people.page(PHONE)
    stranger.goto(f"{club.url}/verify/{code}/2")
    expect(stranger.locator("#seen-check")).to_have_text(NOT_SEEN)
    expect(stranger.locator("#browser-check")).to_have_text(MATCHES)
