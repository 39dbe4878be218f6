"""A whole club night in Chromium, on the real server: the acceptance of the club's night.

Who is there (``night_support``): the server (``andar-bahar serve``, a process on an SQLite
file); the dealer at 1280×680 (a 1280×800 laptop less the browser's bars), in English; three
phones at 390×844 in English, Russian and Georgian (their browsers' language), who join with
the table's code and the seat code the dealer's screen shows, as a person types them —
Nino's phone through a relay that can black-hole its line (``link_support.Link``); and the
room's display at 1920×1080, open all night.

What happens: the dealer makes the table on /tables/new and admits the players (typing
"1,000"); each round the phones tap chips and spots; the rounds take turns — the server's
deck dealt by the button (clicked, or the space bar), a real deck whose cards are tapped by
rank and suit, a real deck whose cards are typed (``q`` ``h``) and dealt with Space or Enter;
some rounds with a bet timer; the cashier tops up and cashes out (typing "1,000"), one
cash-out leaving a player less than a chip, whose tap is refused. In one round the server is
killed with SIGKILL after the bets and a card, and started again on the same database and
port; in another (a real deck, in the long night) Nino's line goes silent while cards are
dealt.

What is checked, and against what:
- in every step the dealer's next-step button, a real deck's picker and the bet timer are
  inside the 1280×680 viewport, the page unscrolled (bounding boxes: ``press``, ``pick``);
- after every message on a phone (a bet's note, a refusal, the round's result) no two
  messages overlap and none covers a spot, a chip, a button or a card (bounding boxes);
- after every round, each phone's balance and night total ("This session", and its
  /play/CODE/night page) are the test's own account — the chips it bought, topped up and
  cashed out, and the settlements the API reported round by round — and so are the
  statement's figures: its returned less staked, and its balance less (bought in + topped
  up − cashed out), the ledger's identity; at the end the same from
  ``andar-bahar history statement --csv``, a process of its own on the database;
- the bets the phones placed are the round's bets, before the kill and after it, and the
  settlement's: none lost, none doubled;
- after the kill every page (the dealer's, the phones', the display) is live again within
  2 s of the server answering again (and current: nothing changed while it was down), and
  shows the card the dealer deals at once within 2 s; after the silent cut the phone says
  "reconnecting…" within 15 s (the real heartbeat: 10 s), and shows the cards the dealer
  dealt meanwhile within 2 s of the line's return;
- a stranger with only the table's code (a browser of its own, no cookies) sees no player,
  balance or bet, takes no seat, deals nothing, and changes nothing of the table.
"""

from __future__ import annotations

import csv
import io
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Browser, Page, ViewportSize, expect
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from browser_support import PHONE, TV, People, admit, create_table, dealer_token, join, launch
from link_support import Link
from night_support import Club, Phone, felt_of, pick, press, signed, wait_current, wait_live

expect.set_options(timeout=15_000)

DEALER: ViewportSize = {"width": 1280, "height": 680}
"""A 1280×800 laptop less the browser's bars."""
PLAYERS = {"Asha": ("en", "1,000"), "Olga": ("ru", "500"), "Nino": ("ka", "500")}
"""Each player's language, and the starting chips as the dealer types them (en: 1,000)."""
LOCALES = {"en": "en-US", "ru": "ru-RU", "ka": "ka-GE"}
CUT = "Nino"
"""The player whose phone reaches the club through the relay."""
CURRENT_WITHIN = 2.0
"""Seconds after the network's (or the server's) return by which every page is current."""
NOTICED_WITHIN = 15.0
"""Seconds after a silent cut by which the page says "reconnecting…"."""
SPOTS = ("andar", "bahar", "cards:1-5", "cards:6-10", "cards:11-15", "cards:16-25")
CHIPS = (1, 5, 10, 25)
KINDS = ("server", "tapped", "server", "typed")
"""The rounds' decks in turn: the server's, a real deck tapped, the server's, typed."""
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


@dataclass
class Plan:
    """What happens in a night of *rounds* rounds (a round number for each event)."""

    rounds: int
    kill: int
    """The round from which the server is killed mid-round (the next, if the server's deck
    matched at its first card)."""
    cut: int | None
    """The real-deck round in which Nino's line goes silent (None: no cut)."""
    timers: frozenset[int]
    cashier: dict[int, list[tuple[str, str, str]]]
    """After round n: (top-up or cash-out, player, amount as typed — or "all but 20")."""
    refusal: int
    """The round in which Nino, left with 20 chips, taps a 25 chip."""
    stranger: int
    """The round in which someone with only the table's code tries the table."""


def plan_of(rounds: int) -> Plan:
    """Events spread over the night (in a short night several fall in one round)."""
    at = lambda share: max(1, round(rounds * share))  # noqa: E731
    cashier: dict[int, list[tuple[str, str, str]]] = {}
    for share, later, move in (
        (0.15, 0, ("top-up", "Olga", "1,000")),
        (0.3, 0, ("cash-out", "Asha", "250")),
        (0.3, 0, ("cash-out", "Nino", "all but 20")),
        (0.3, 1, ("top-up", "Nino", "1,000")),
        (0.9, 0, ("cash-out", "Olga", "1,000")),
    ):
        cashier.setdefault(at(share) + later, []).append(move)
    return Plan(
        rounds=rounds,
        kill=at(0.5),
        cut=None if rounds < 12 else at(0.75) - at(0.75) % 4 + 1,  # a tapped real deck
        timers=frozenset({at(0.1), at(0.6)}),
        cashier=cashier,
        refusal=at(0.3) + 1,
        stranger=at(0.2),
    )


# -- the night's people ------------------------------------------------------------------------


class Night:
    """The club, the dealer, the three phones and the room's display."""

    def __init__(self, browser: Browser, folder: Path) -> None:
        self.club = Club(f"sqlite:///{folder / 'club.sqlite3'}", folder)
        self.link = Link(self.club.server.port)
        self.people = People(browser)
        self.dealer = self.people.page(DEALER)
        self.code = create_table(self.dealer, self.club, name="Friday night")
        self.club.code, self.club.token = self.code, dealer_token(self.dealer, self.code)
        seats = {name: admit(self.dealer, name, chips) for name, (_, chips) in PLAYERS.items()}
        self.phones: dict[str, Phone] = {}
        for name, (lang, chips) in PLAYERS.items():
            site = self.link if name == CUT else self.club
            page = self.people.page(PHONE, locale=LOCALES[lang])
            join(page, site, self.code, seats[name], name)
            bought = Decimal(chips.replace(",", ""))
            self.phones[name] = Phone(name, lang, page, site, bought)
        self.room = self.people.page(TV)
        self.room.goto(f"{self.club.url}/display/{self.code}")
        self.pages = {"dealer": self.dealer, **{n: p.page for n, p in self.phones.items()},
                      "room": self.room}  # fmt: skip
        self.timings: dict[str, float] = {}
        """What the night measured (seconds), printed at its end."""

    def close(self) -> list[str]:
        """Close everything; what went wrong in the pages (a socket that could not connect
        while the server was down or the line cut is not wrong)."""
        self.people.close()
        self.link.close()
        self.club.stop()
        return [p for p in self.people.problems if "WebSocket connection to" not in p]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launch() as chromium:
        yield chromium


@pytest.fixture
def night(browser: Browser, tmp_path: Path) -> Iterator[Night]:
    table = Night(browser, tmp_path)
    problems: list[str] = []
    try:
        yield table
    finally:
        problems = table.close()
        for what, seconds in table.timings.items():
            print(f"{what}: {seconds:.2f} s")
    assert problems == []


# -- a round ------------------------------------------------------------------------------------


def real_deck(rng: random.Random, before_match: int) -> list[str]:
    """A real deck's round: the centre card, *before_match* cards of other ranks, one of its
    rank (the round ends there)."""
    deck = [rank + suit for rank in RANKS for suit in "♠♥♦♣"]
    rng.shuffle(deck)
    centre, rest = deck[0], deck[1:]
    others = [card for card in rest if card[:-1] != centre[:-1]]
    match = next(card for card in rest if card[:-1] == centre[:-1])
    return [centre, *others[:before_match], match]


def open_round(night: Night, number: int, kind: str, timer: bool) -> None:
    dealer = night.dealer
    if kind != "server":
        dealer.check("input[name=physical]")
    dealer.locator("h1").click()  # the focus off the box: the space bar is the button's
    assert press(dealer, " " if number % 2 else None) == "open"
    expect(dealer.locator(".felt-head")).to_have_attribute("data-round", str(number))
    if timer:
        dealer.click('[data-action="timer"][data-seconds="60"]')
        expect(dealer.locator(".countdown")).to_be_visible()
        for page in night.pages.values():
            expect(page.locator(".countdown")).to_be_visible()


def place_bets(night: Night, rng: random.Random, refusal: bool) -> None:
    """Each phone taps a chip and a spot, once or twice (what its chips allow)."""
    for phone in night.phones.values():
        phone.bets = {}
        expect(phone.page.locator('[data-bet="andar"]')).to_be_enabled()
        if refusal and phone.name == CUT:
            assert phone.available < 25
            phone.refused(25, "cards:6-10")
        for _ in range(rng.choice((1, 2))):
            chips = [c for c in CHIPS if c <= phone.available]
            if chips:
                phone.tap(rng.choice(chips), rng.choice(SPOTS))
    placed = {
        (p.name, spot, stake) for p in night.phones.values() for spot, stake in p.bets.items()
    }
    bets = night.club.table()["round"]["bets"]
    assert {(b["player"], b["bet"], Decimal(b["stake"])) for b in bets} == placed


def deal(night: Night, kind: str, cards: list[str], *, stop_after: int | None = None) -> None:
    """Turn the centre card, close the bets, deal (from *cards* for a real deck) — up to
    *stop_after* dealt cards if given, else to the end of the round."""
    dealer, typed = night.dealer, kind == "typed"
    while True:
        step = dealer.locator("[data-next-step]").get_attribute("data-step")
        dealt = dealer.locator("[data-row] [data-card]").count()
        if step == "settle" or (stop_after is not None and dealt >= stop_after):
            return
        if step in ("centre", "deal") and kind != "server":
            turned = dealt + (step == "deal")
            pick(dealer, cards[turned], typed)
            press(dealer, ("Enter", " ")[turned % 2] if typed else (None, "Enter")[turned % 2])
        else:
            press(dealer, (None, " ")[dealt % 2])


def settle(night: Night, number: int) -> None:
    """Settle the round; add each bet's return less its stake to the player's account."""
    assert press(night.dealer) == "settle"
    played = night.club.table()["round"]
    assert played["number"] == number and played["status"] == "settled"
    placed = {(p.name, s, k) for p in night.phones.values() for s, k in p.bets.items()}
    assert {(b["player"], b["bet"], Decimal(b["stake"])) for b in played["settlement"]} == placed
    for settled in played["settlement"]:
        phone = night.phones[settled["player"]]
        phone.result += Decimal(settled["returned"]) - Decimal(settled["stake"])
    for phone in night.phones.values():
        if phone.bets:  # the round's result beside the felt, over nothing
            expect(phone.page.locator("[data-banner]")).to_have_attribute(
                "data-banner", str(number)
            )
            phone.no_message_covers()
        phone.bets = {}


def check_the_night(night: Night) -> None:
    """Every page's felt; each phone's chips and night total, its night page, and the
    statement, against the test's own account of the player."""
    sheet = night.club.statement()
    felt = {**night.club.felt(), "version": 0}  # (a page that no change concerned: not sent)
    for page in night.pages.values():  # every page shows the round's cards as they are
        wait_current(page, felt)
    for phone in night.phones.values():
        expect(phone.page.locator("#balance")).to_have_text(phone.amount(phone.balance))
        total = signed(phone.result, phone.lang)
        if phone.result or phone.page.locator(".mine-table").count():
            expect(phone.page.locator("[data-night]")).to_have_text(total)
        assert phone.night_page(night.code) == total, phone.name
        line = sheet[phone.name]
        assert line["returned"] - line["staked"] == phone.result, phone.name
        ledger = line["bought_in"] + line["topped_up"] - line["cashed_out"] - line["balance"]
        assert ledger == -phone.result, phone.name
        assert (line["bought_in"], line["topped_up"], line["cashed_out"], line["balance"]) == (
            phone.bought_in, phone.topped_up, phone.cashed_out, phone.balance,
        )  # fmt: skip


def cashier(night: Night, action: str, name: str, typed: str) -> None:
    """The dealer's cashier: a top-up or a cash-out, the amount typed as people write it."""
    phone = night.phones[name]
    if typed == "all but 20":
        typed = f"{phone.balance - 20:,}"
    amount = Decimal(typed.replace(",", ""))
    dealer = night.dealer
    dealer.select_option("#cash-name", name)
    dealer.fill("#cash-amount", typed)
    dealer.fill("#cash input[name=reason]", f"{action} at the bar")
    with dealer.expect_navigation():
        dealer.click("#top-up" if action == "top-up" else "#cash-out")
    if action == "top-up":
        phone.topped_up += amount
    else:
        phone.cashed_out += amount
    expect(phone.page.locator("#balance")).to_have_text(phone.amount(phone.balance))


# -- a server killed, a line cut ------------------------------------------------------------------


def kill_mid_round(night: Night, kind: str, cards: list[str]) -> None:
    """SIGKILL to the server with bets placed and a card dealt: every page says it is
    reconnecting. Started again on the same database and port, the round is as it was;
    every page is live again within 2 s of the server's return (current: nothing changed
    meanwhile), and the card the dealer deals at once is on every page within 2 s of the
    dealer's press."""
    before = night.club.table()
    assert before["round"]["dealt"] and before["round"]["bets"]
    night.club.kill()
    for page in night.pages.values():
        expect(page.locator("#live-status")).to_be_visible()
    back = night.club.start_again()
    assert night.club.table() == before  # the same bets, cards, balances and version
    within(night, "live again after the restart", back, wait_live)
    step = time.perf_counter()
    deal(night, kind, cards, stop_after=2)  # the next card, at once
    want = night.club.felt()
    within(night, "showing the card dealt after the restart", step,
           lambda page: wait_current(page, want))  # fmt: skip


def within(night: Night, what: str, since: float, wait: Callable[[Page], object]) -> None:
    """Every page *what* within 2 s of *since* (``perf_counter``): *wait* for each."""
    for who, page in night.pages.items():
        wait(page)
        night.timings[f"{who}'s page {what}"] = time.perf_counter() - since
    for who in night.pages:
        late = night.timings[f"{who}'s page {what}"]
        assert late <= CURRENT_WITHIN, f"{who}'s page {what} {late:.2f} s later"


def cut_mid_round(night: Night, kind: str, cards: list[str]) -> None:
    """Nino's line black-holed after the first card: the phone says "reconnecting…" within
    15 s while the dealer deals on; back, it shows the dealer's cards within 2 s."""
    phone = night.phones[CUT].page
    night.link.black_hole()
    cut = time.perf_counter()
    deal(night, kind, cards, stop_after=4)  # the dealer deals on
    phone.wait_for_function(
        "() => !document.getElementById('live-status').hidden",
        timeout=(NOTICED_WITHIN + 1) * 1000, polling=20,
    )  # fmt: skip
    noticed = night.timings["'reconnecting…' after the cut"] = time.perf_counter() - cut
    assert noticed <= NOTICED_WITHIN, f"'reconnecting…' {noticed:.1f} s after the cut"
    deal(night, kind, cards, stop_after=5)  # and on, while the phone is reconnecting
    shown = felt_of(phone)
    want = night.club.felt()
    assert (shown["andar"], shown["bahar"]) != (want["andar"], want["bahar"])  # it missed some
    night.link.restore()
    back = time.perf_counter()
    wait_current(phone, want, timeout=10)
    late = night.timings["current after the line's return"] = time.perf_counter() - back
    assert late <= CURRENT_WITHIN, f"current {late:.1f} s after the line's return"
    expect(phone.locator("#live-status")).to_be_hidden()


# -- a stranger with the table's code -----------------------------------------------------------


def a_stranger_tries(night: Night) -> None:
    """A second browser with only the table's code (no cookies), while bets are on the
    table: it sees no player, balance or bet, takes no seat, and does nothing a dealer or a
    player does (each refused with a sentence); the table is as it was."""
    before = night.club.table()
    stranger = night.people.page(PHONE)
    url, code, names = night.club.url, night.code, list(night.phones)
    stranger.goto(f"{url}/play/{code}")  # no seat: the form to join, the code filled in
    expect(stranger.locator("input[name=code]")).to_have_value(code)
    stranger.fill("input[name=seat]", "ABC-DEF")  # a guess
    stranger.click("button[type=submit]")
    expect(stranger.locator("[role=alert]")).to_contain_text("is not right for table")
    stranger.goto(f"{url}/display/{code}")  # the room's screen: the cards, no one's money
    wait_current(stranger, night.club.felt())
    expect(stranger.locator(".spot-stake, #balance, table.bets, table.players")).to_have_count(0)
    stranger.goto(f"{url}/dealer/{code}")  # the dealer's PIN first: a guess is refused
    stranger.fill("input[name=pin]", "000000")
    stranger.click("button[type=submit]")
    expect(stranger.locator("[role=alert]")).to_contain_text("The PIN is not right")
    token = stranger.locator("input[name=csrf_token]").first.get_attribute("value") or ""
    tries = {
        f"/dealer/{code}/round/close": {}, f"/dealer/{code}/players": {"name": "Mallory"},
        f"/dealer/{code}/cash": {"name": names[0], "amount": "100", "action": "cash-out"},
        f"/dealer/{code}/seats/reissue": {"name": names[0]},
        f"/play/{code}/bet": {"bet": "andar", "stake": "5", "key": "stranger-1"},
        f"/play/{code}/clear": {"key": "stranger-2"},
    }  # fmt: skip
    for path, form in tries.items():
        answer = stranger.request.post(
            f"{url}{path}", form={**form, "csrf_token": token},
            headers={"Origin": url, "X-CSRF-Token": token}, max_redirects=0,
        )  # fmt: skip
        assert answer.status == 403, (path, answer.status)
    for path in ("/dealer/{}/statement", "/dealer/{}/audit", "/play/{}/night"):
        assert stranger.request.get(url + path.format(code)).status == 403, path
    seen = stranger.request.get(f"{url}/api/tables/{code}").json()
    assert seen["players"] == [] and seen["round"]["bets"] == []
    for path in ("/", "/play/{}", "/display/{}", "/dealer/{}/login", "/api/tables/{}"):
        text = stranger.request.get(url + path.format(code)).text()
        assert not [name for name in names if name in text], path
    assert night.club.table() == before  # nothing changed, not even the table's version


# -- the night -------------------------------------------------------------------------------------


def play_round(night: Night, plan: Plan, number: int, rng: random.Random) -> None:
    """One round: open, bets, the centre card, bets closed, the deal, the settlement — and
    the cut or the kill, when it is their round."""
    kind = KINDS[number % len(KINDS)]
    cut = number == plan.cut
    kill = number >= plan.kill and night.club.starts == 1 and not cut
    before_match = 12 if cut else rng.randint(2 if kill else 0, 6)
    cards = real_deck(rng, before_match) if kind != "server" else []
    open_round(night, number, kind, number in plan.timers)
    place_bets(night, rng, refusal=number == plan.refusal)
    if number == plan.stranger:
        a_stranger_tries(night)
    if cut or kill:
        deal(night, kind, cards, stop_after=1)
    if cut:
        cut_mid_round(night, kind, cards)
    elif kill and night.dealer.locator("[data-next-step]").get_attribute("data-step") == "deal":
        kill_mid_round(night, kind, cards)  # (the server's deck matched at once: next round)
    deal(night, kind, cards)
    settle(night, number)


def play_the_night(night: Night, plan: Plan, seed: int) -> None:
    rng = random.Random(seed)
    for number in range(1, plan.rounds + 1):
        play_round(night, plan, number, rng)
        check_the_night(night)
        for action, name, typed in plan.cashier.get(number, []):
            cashier(night, action, name, typed)
        if plan.cashier.get(number):
            check_the_night(night)
    assert night.club.starts == 2, "the server was never killed mid-round"
    # The statement again, from the database alone: `andar-bahar history statement --csv`.
    command = [sys.executable, "-m", "andar_bahar", "history", "statement", night.code,
               "--db", night.club.database, "--csv"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    totals = list(csv.reader(io.StringIO(done.stdout.split("\n\n", 1)[1])))
    assert totals[0] == ["player", "bought in", "topped up", "cashed out", "staked",
                         "returned", "balance"]  # fmt: skip
    for name, bought, topped, cashed, staked, returned, balance in totals[1:]:
        phone = night.phones[name]
        assert Decimal(returned) - Decimal(staked) == phone.result
        assert (Decimal(bought), Decimal(topped), Decimal(cashed), Decimal(balance)) == (
            phone.bought_in, phone.topped_up, phone.cashed_out, phone.balance,
        )  # fmt: skip


@pytest.mark.slow
def test_a_whole_night_of_60_rounds(night: Night) -> None:
    play_the_night(night, plan_of(60), seed=29)


def test_a_short_night(night: Night) -> None:
    """Every kind of round and step, the cashier, a refusal, the stranger and the kill, in
    four rounds (the cut at the real heartbeat is the long night's: the everyday one at a
    1 s beat is test_web_browser_live_link's)."""
    play_the_night(night, plan_of(4), seed=4)
