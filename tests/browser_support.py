"""What the browser tests (``tests/test_web_browser_*.py``) and ``scripts/web_screenshots.py`` share.

The app under uvicorn in a thread on a free loopback port (:class:`ClubServer`), Debian's
Chromium through Playwright (:func:`launch`; never ``playwright install``), a browser
context per person (:class:`People`), and what people do at the table.
"""

from __future__ import annotations

import json
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect, sync_playwright

from andar_bahar.web.app import create_app
from andar_bahar.web.live.hub import Hub

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
TV: ViewportSize = {"width": 1920, "height": 1080}

PIN = "135792"
"""The PIN of the tables the dealer's screen makes (:func:`create_table`)."""

# A setup request (a table's PIN is hashed with scrypt) may wait behind other test
# workers on a busy 2-core CI host; a test fails on what it checks, not on the host's load.
SETUP_TIMEOUT = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Site(Protocol):
    """Where a browser finds the club: a server, or a relay in front of one (``url``)."""

    @property
    def url(self) -> str: ...


class ClubServer:
    """The app under uvicorn in a thread, on a free loopback port (``seed``: its decks)."""

    def __init__(self, database: Path, *, seed: int | None = None) -> None:
        import uvicorn

        self.hub = Hub()
        self.database = f"sqlite:///{database}"
        self.app = create_app(database_url=self.database, secret=b"b" * 32, hub=self.hub)
        if seed is not None:  # reproducible shuffles (screenshots); live play uses the OS
            self.app.state.service.store.rng = random.Random(seed)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, log_level="warning",
            timeout_graceful_shutdown=1,
        )  # fmt: skip
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
        """GET /api/tables/{code}: the table as the token's holder sees it (only dealt cards)."""
        request = urllib.request.Request(
            f"{self.url}/api/tables/{code}", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(request, timeout=SETUP_TIMEOUT) as response:
            data: dict[str, Any] = json.load(response)
        return data

    def post(self, path: str, data: dict[str, Any], token: str = "") -> dict[str, Any]:
        """POST JSON to the API (a bearer token, no cookies, no CSRF token)."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(data).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=SETUP_TIMEOUT) as response:
                answer: dict[str, Any] = json.load(response)
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{path}: {error.code} {error.read().decode()}") from None
        return answer

    def table(self, name: str, *, paytable: str = "wizard", **extra: object) -> tuple[str, str]:
        """A new table over the API: (code, dealer token)."""
        created = self.post(
            "/api/tables", {"name": name, "procedure": "classic", "paytable": paytable,
                            "pin": "246810", **extra},
        )  # fmt: skip
        return str(created["code"]), str(created["dealer_token"])

    def admit(self, code: str, token: str, name: str, chips: str = "500") -> str:
        """Admit *name* over the API; the seat code the dealer hands them."""
        return str(self.post(f"/api/tables/{code}/players", {"name": name, "balance": chips},
                             token)["seat_code"])  # fmt: skip

    def seat(self, code: str, token: str, name: str, chips: str = "500") -> str:
        """Admit and seat *name* over the API (a phone the test does not drive): its token."""
        seat_code = self.admit(code, token, name, chips)
        return str(self.post(f"/api/tables/{code}/join", {"seat_code": seat_code})["token"])

    def wait_followers(self, code: str, count: int) -> None:
        """Until *count* pages follow the table live (their WebSocket is open)."""
        deadline = time.monotonic() + 10
        while self.hub.followers(code) < count:
            assert time.monotonic() < deadline, f"{count} live pages expected at {code}"
            time.sleep(0.02)


@contextmanager
def running(database: Path, *, seed: int | None = None) -> Iterator[ClubServer]:
    server = ClubServer(database, seed=seed)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class People:
    """Browser contexts, one per person, and what went wrong in their pages."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.problems: list[str] = []

    def context(self, viewport: ViewportSize, **options: Any) -> BrowserContext:
        context = self.browser.new_context(viewport=viewport, **{"locale": "en-US", **options})
        context.set_default_timeout(10_000)
        self.contexts.append(context)
        return context

    def page(self, viewport: ViewportSize, **options: Any) -> Page:
        return self.watch(self.context(viewport, **options).new_page())

    def watch(self, page: Page) -> Page:
        def console(message: Any) -> None:
            csp = "Content Security Policy" in message.text
            failed = message.type == "error" and "Failed to load resource" not in message.text
            if csp or failed:
                self.problems.append(f"{page.url}: {message.text}")

        page.on("pageerror", lambda error: self.problems.append(f"{page.url}: {error}"))
        page.on("console", console)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


# -- fixtures: one server and one browser per test module (import them into the module) ------------


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClubServer]:
    """The app on a loopback port with an SQLite file of its own, for one test module."""
    with running(tmp_path_factory.mktemp("club") / "club.sqlite3") as server:
        yield server


@contextmanager
def launch() -> Iterator[Browser]:
    """Debian's Chromium through Playwright (the test is skipped where there is none)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def browser(club: ClubServer) -> Iterator[Browser]:  # the server outlives the browser
    """Debian's Chromium, for one test module."""
    with launch() as chromium:
        yield chromium


@pytest.fixture
def people(browser: Browser) -> Iterator[People]:
    """A test's browser contexts; the test fails on any script error or CSP refusal."""
    crowd = People(browser)
    yield crowd
    crowd.close()
    assert crowd.problems == []


# -- what people do --------------------------------------------------------------------------


def join(player: Page, club: Site, code: str, seat_code: str, name: str) -> None:
    """From the home page, with the table's code (typed in lower case) and the seat code."""
    player.goto(f"{club.url}/")
    player.fill("input[name=code]", code.lower())
    player.fill("input[name=seat]", seat_code)
    player.click("button[type=submit]")
    player.wait_for_url(f"**/play/{code}")
    expect(player.locator(".seat-name strong")).to_have_text(name)


def sign_in(dealer: Page, club: ClubServer, code: str, pin: str = "246810") -> None:
    """The dealer signs in with the table's PIN."""
    dealer.goto(f"{club.url}/dealer/{code}/login")
    dealer.fill("input[name=pin]", pin)
    dealer.click("button[type=submit]")
    dealer.wait_for_url(re.compile(rf"/dealer/{code}$"))


def dealer_token(dealer: Page, code: str) -> str:
    """The dealer's token in the browser's cookie (a sign-in makes a new one, for the API too)."""
    for cookie in dealer.context.cookies():
        if cookie["name"] == f"dealer_{code}":
            return cookie["value"].rpartition(".")[0]
    raise AssertionError(f"no dealer cookie for {code}")


def create_table(dealer: Page, club: Site, **fields: str) -> str:
    """Fill in /tables/new (after looking at the odds of the pairing); the table's code."""
    dealer.goto(f"{club.url}/tables/new")
    form = dealer.locator("#new-table")
    form.locator("input[name=name]").fill(fields["name"])
    form.locator("select[name=kind]").select_option(fields.get("kind", "betting"))
    form.locator("select[name=procedure]").select_option(fields.get("procedure", "classic"))
    form.locator("select[name=paytable]").select_option(fields.get("paytable", "wizard"))
    if "rounds" in fields:
        form.locator("input[name=rounds]").fill(fields["rounds"])
    form.locator("input[name=pin]").fill(PIN)
    form.get_by_role("button", name="Show the odds of this pairing").click()  # in place
    expect(dealer.locator("#preview h2")).to_contain_text(fields.get("procedure", "classic"))
    form.locator("button[type=submit]").click()
    dealer.wait_for_url(re.compile(r"/dealer/[A-Z0-9]{6}$"))
    return dealer.url.rsplit("/", 1)[-1]


def admit(dealer: Page, name: str, chips: str | None = None) -> str:
    """Admit *name* from the dealer's screen; the seat code it shows for them."""
    dealer.fill("#admit input[name=name]", name)
    if chips is not None:
        dealer.fill("#admit input[name=balance]", chips)
    with dealer.expect_navigation():  # the page comes back with the new seat code
        dealer.click("#admit button")
    seat = dealer.locator(f'[data-seat-for="{name}"]')
    expect(seat).to_have_count(1)
    expect(seat.locator("xpath=../..").locator("svg")).to_have_count(1)  # its QR code
    return seat.inner_text()


def next_step(dealer: Page) -> str:
    """Press the dealer's big button and wait until the screen shows the step after it."""
    button = dealer.locator("[data-next-step]")
    before = button.get_attribute("data-step") or ""
    cards = dealer.locator("[data-row] [data-card]").count()
    button.click()
    if before == "deal":
        expect(dealer.locator("[data-row] [data-card]")).to_have_count(cards + 1)
    else:
        expect(button).not_to_have_attribute("data-step", before)
    return before


def row_cards(page: Page, row: str) -> list[str]:
    """The cards in a row, as the hook ``data-card`` names them (``Q♠``)."""
    return [
        str(card.get_attribute("data-card"))
        for card in page.locator(f'[data-row="{row}"] [data-card]').all()
    ]


def fits_the_phone(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


def in_viewport(page: Page, selector: str) -> list[str]:
    """The elements matching *selector* that are not wholly inside the first screen."""
    outside: list[str] = page.evaluate(
        """(selector) => Array.from(document.querySelectorAll(selector)).filter((el) => {
            const r = el.getBoundingClientRect();
            return !(r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                     && r.bottom <= window.innerHeight && r.right <= window.innerWidth);
        }).map((el) => el.outerHTML.slice(0, 80))""",
        selector,
    )
    return outside


CONTROLS = "[data-next-step], [data-picker], .timer-row"
"""The current step's controls: the next-step button, a real deck's picker, the bet timer."""


def in_first_screen(dealer: Page) -> None:
    """The current step's controls are inside the viewport, the page scrolled to the top."""
    assert dealer.evaluate("() => window.scrollY") == 0
    assert in_viewport(dealer, CONTROLS) == [], dealer.viewport_size


OVERLAPS = """(selector) => {
    // Pairs of shown messages, and of a shown message and an element of the selector, whose
    // boxes overlap.
    const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 1 && r.height > 1; };
    const messages = Array.from(document.querySelectorAll(
        '[data-banner], [data-tap-error], [data-tap-note]')).filter(shown);
    const meet = (a, b) => { const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
        return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom; };
    const found = [];
    messages.forEach((m, i) => {
        messages.slice(i + 1).forEach((n) => { if (meet(m, n)) found.push([m.className, n.className]); });
        document.querySelectorAll(selector).forEach((o) => {
            if (meet(m, o)) found.push([m.className, o.outerHTML.slice(0, 40)]);
        });
    });
    return found;
}"""
"""In the page: messages that overlap another message or an element of a selector."""
TAPPED = "[data-bet], [data-chip], [data-action]"
"""What a player taps: the spots, the chips, the buttons under them."""
CARDS = ".felt .card"
"""What the player's felt shows: the cards."""

BROKEN_WORDS = """(selector) => {
    // Words of the matching elements that a line break cuts in two: the first and the last
    // letter of the word on different lines.
    const broken = [];
    for (const el of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.data;
            for (const match of text.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + 1);
                const first = range.getBoundingClientRect();
                range.setStart(node, match.index + match[0].length - 1);
                range.setEnd(node, match.index + match[0].length);
                const last = range.getBoundingClientRect();
                if (first.height && Math.abs(first.top - last.top) > first.height / 2) {
                    broken.push(match[0]);
                }
            }
        }
    }
    return broken;
}"""
"""In the page: the words a line break cuts in two inside the elements of a selector."""
