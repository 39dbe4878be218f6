"""The club night in Chromium (``test_web_browser_night.py``): who is there, what they do.

- :class:`Club`: the real server (``andar-bahar serve``, a process on an SQLite file), that
  the test can kill with SIGKILL and start again on the same database and port; its JSON
  API with the dealer's token, for what the test checks against.
- :class:`Phone`: a player's phone (Chromium at 390×844 in the player's language) and the
  test's own account of the player's chips — bought in, topped up, cashed out, and the
  sum of every settled bet's return less its stake, taken from each round's settlement.
- What the dealer does on the dealer's screen: the next step, pressed with the mouse, the
  space bar or Enter, each time with the step's controls checked in the first screen
  (:func:`press`); a real deck's card tapped by rank and suit or typed (:func:`pick`).
- What a page shows: its felt (:data:`FELT`), and whether it is the table's now.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from andar_bahar.i18n import format_number
from browser_support import CARDS, OVERLAPS, TAPPED, Site, in_first_screen, in_viewport
from serve_process import ServeProcess

__all__ = [
    "FELT",
    "Club",
    "Phone",
    "felt_of",
    "pick",
    "press",
    "signed",
    "wait_current",
    "wait_live",
]

TURNED = "[data-centre], [data-row] [data-card]"
"""The cards turned in the round: the centre card and the dealt ones."""
RANK_KEYS = {"10": "t", "J": "j", "Q": "q", "K": "k", "A": "a"}
"""The key that picks a rank on the dealer's screen (2–9: the digit itself)."""
SUIT_KEYS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
FELT = """() => {
    // The round this page's felt shows: its number, the centre card, the rows' cards, and
    // the table's version the page is at.
    const cards = (row) => Array.from(
        document.querySelectorAll(`[data-row="${row}"] [data-card]`), (c) => c.dataset.card);
    const centre = document.querySelector('[data-centre]');
    const head = document.querySelector('.felt-head[data-round]');
    return {round: head ? Number(head.dataset.round) : 0,
            centre: centre ? centre.dataset.card : null,
            andar: cards('andar'), bahar: cards('bahar'),
            version: Number(document.body.dataset.liveVersion)};
}"""
CURRENT = f"""(want) => {{
    const shown = ({FELT})();
    return shown.version >= want.version && shown.round === want.round
        && shown.centre === want.centre
        && JSON.stringify(shown.andar) === JSON.stringify(want.andar)
        && JSON.stringify(shown.bahar) === JSON.stringify(want.bahar);
}}"""
"""In the page: whether its felt shows the round *want* (:meth:`Club.felt`), at its version."""


def signed(amount: Decimal, lang: str) -> str:
    """A result as the pages write it in *lang*: ``+1,080``, ``−5``, ``0``."""
    text = format_number(abs(amount), lang)
    return f"+{text}" if amount > 0 else (f"−{text}" if amount < 0 else text)


class Club:
    """The club's server as a process on *database* (a URL), and its API as the dealer."""

    def __init__(self, database: str, folder: Path) -> None:
        self.database = database
        self.folder = folder
        self.starts = 0
        self.server = self._start(None)
        self.url = self.server.url
        self.api = httpx.Client(base_url=self.url, timeout=30)
        self.code = ""
        self.token = ""
        """The dealer's token (the dealer's browser's cookie), for the API."""

    def _start(self, port: int | None) -> ServeProcess:
        server = ServeProcess(self.database, self.folder, str(self.starts), port=port)
        self.starts += 1
        server.wait_ready()
        return server

    def kill(self) -> None:
        """SIGKILL to the server: no shutdown handler, no final commit, no flush."""
        self.server.kill()

    def start_again(self) -> float:
        """The server started again on the same database and port: the moment
        (``perf_counter``) it answers again."""
        self.server = self._start(self.server.port)
        return time.perf_counter()

    def stop(self) -> None:
        self.api.close()
        self.server.stop()

    def get(self, path: str) -> Any:
        answer = self.api.get(path, headers={"Authorization": f"Bearer {self.token}"})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def table(self) -> dict[str, Any]:
        """The table as its dealer sees it (every bet, every balance)."""
        return dict(self.get(f"/api/tables/{self.code}"))

    def felt(self) -> dict[str, Any]:
        """What every page's felt must show now (:data:`CURRENT`), from the API."""
        table = self.table()
        rnd = table["round"] or {}
        dealt = rnd.get("dealt", [])
        return {
            "version": table["version"],
            "round": rnd.get("number", 0),
            "centre": rnd.get("centre"),
            "andar": [d["card"] for d in dealt if d["row"] == "andar"],
            "bahar": [d["card"] for d in dealt if d["row"] == "bahar"],
        }

    def statement(self) -> dict[str, dict[str, Decimal]]:
        """The statement's line of each player: bought in, …, balance, as amounts."""
        sheet = self.get(f"/api/tables/{self.code}/statement")
        return {
            p["name"]: {k: Decimal(v) for k, v in p.items() if k not in ("name", "released")}
            for p in sheet["players"]
        }


@dataclass
class Phone:
    """A player's phone, and the test's own account of the player's chips."""

    name: str
    lang: str
    page: Page
    site: Site
    """Where the phone reaches the club: the server, or a relay in front of it."""
    bought_in: Decimal
    topped_up: Decimal = Decimal(0)
    cashed_out: Decimal = Decimal(0)
    result: Decimal = Decimal(0)
    """The sum of the returns less the stakes of the player's settled bets."""
    bets: dict[str, Decimal] = field(default_factory=dict)
    """The bets of the open round, as the phone placed them (spot: stake)."""

    @property
    def balance(self) -> Decimal:
        return self.bought_in + self.topped_up - self.cashed_out + self.result

    @property
    def available(self) -> Decimal:
        return self.balance - sum(self.bets.values(), Decimal(0))

    def amount(self, value: Decimal) -> str:
        return format_number(value, self.lang)

    def tap(self, chip: int, spot: str) -> None:
        """A chip, then a spot: the stake on the spot goes up by the chip; the messages then
        overlap neither each other nor anything the player taps."""
        self.page.click(f'[data-chip="{chip}"]')
        self.page.click(f'[data-bet="{spot}"]')
        total = self.bets.get(spot, Decimal(0)) + chip
        stake = self.page.locator(f'[data-bet="{spot}"] .spot-stake')
        expect(stake).to_contain_text(self.amount(total))
        expect(self.page.locator("[data-tap-note]")).not_to_have_text("")
        self.bets[spot] = total
        expect(self.page.locator("#available")).to_have_text(self.amount(self.available))
        self.no_message_covers()

    def refused(self, chip: int, spot: str) -> None:
        """A tap the table refuses (more than the chips available): the refusal says so, in
        the one message area, over nothing; nothing is staked."""
        self.page.click(f'[data-chip="{chip}"]')
        self.page.click(f'[data-bet="{spot}"]')
        expect(self.page.locator("[data-tap-error]")).not_to_have_text("")
        assert in_viewport(self.page, "[data-tap-error]") == []
        expect(self.page.locator("[data-tap-note]")).to_have_text("")  # replaced
        self.no_message_covers()

    def no_message_covers(self) -> None:
        assert self.page.evaluate(OVERLAPS, TAPPED) == [], self.name
        assert self.page.evaluate(OVERLAPS, CARDS) == [], self.name

    def night_page(self, code: str) -> str:
        """The night total on the phone's /play/CODE/night page (with the phone's cookies)."""
        url = f"{self.site.url}/play/{code}/night"
        try:
            page = self.page.context.request.get(url)
        except PlaywrightError as error:  # a kept-alive connection the server had just closed
            if "ECONNRESET" not in str(error):  # (idle, or the server killed and started again):
                raise  # sent again once on a new connection, as a browser does with a GET
            page = self.page.context.request.get(url)  # (RFC 9110, 9.2.2: idempotent)
        assert page.status == 200, page.text()
        text = page.text()
        start = text.index("data-night>") + len("data-night>")
        return text[start : text.index("<", start)]


def press(dealer: Page, key: str | None = None) -> str:
    """The dealer's next step: its controls (the button, a real deck's picker, the bet timer)
    checked inside the first screen, the page unscrolled; then the button clicked (or *key*
    pressed); wait for the step after it (a turned card, or another step). The step pressed."""
    in_first_screen(dealer)
    assert in_viewport(dealer, ".countdown") == []
    button = dealer.locator("[data-next-step]")
    step = button.get_attribute("data-step") or ""
    turned = dealer.locator(TURNED).count()
    if key is None:
        button.click()
    else:
        dealer.keyboard.press(key)
    if step in ("centre", "deal"):
        expect(dealer.locator(TURNED)).to_have_count(turned + 1)
    else:
        expect(button).not_to_have_attribute("data-step", step)
    return step


def pick(dealer: Page, card: str, typed: bool) -> None:
    """A real deck's card (``Q♥``) picked by tapping its rank and suit, or by typing them
    (``q`` ``h``): the button then has the focus, for Space or Enter."""
    rank, suit = card[:-1], card[-1]
    in_first_screen(dealer)
    if typed:
        dealer.keyboard.press(RANK_KEYS.get(rank, rank))
        dealer.keyboard.press(SUIT_KEYS[suit])
    else:
        dealer.click(f'[data-pick-rank="{rank}"]')
        dealer.click(f'[data-pick-suit="{suit}"]')
    expect(dealer.locator("[data-picked]")).to_have_value(card)
    expect(dealer.locator("[data-next-step]")).to_be_focused()


def felt_of(page: Page) -> dict[str, Any]:
    return dict(page.evaluate(FELT))


def wait_current(page: Page, want: dict[str, Any], timeout: float = 20.0) -> float:
    """Until *page* shows the round *want* at its version: how long that took (seconds)."""
    started = time.perf_counter()
    page.wait_for_function(CURRENT, arg=want, timeout=timeout * 1000, polling=20)
    return time.perf_counter() - started


def wait_live(page: Page, timeout: float = 20.0) -> None:
    """Until *page* no longer says "reconnecting…": its socket is open again (and has what
    it missed: the server sends that first)."""
    page.wait_for_function(
        "() => document.getElementById('live-status').hidden", timeout=timeout * 1000, polling=20
    )
