"""The dealer's screen and the room's display in a real browser (issues 5 and 11).

Debian's Chromium through Playwright; one server and one browser for the module. The dealer
works at 1280×800 with the keyboard (the space bar is the next-step button), players on
phones (390×844), the room's display at 1920×1080. Pages that follow the table are never
reloaded while the cards are dealt: what they show comes over the live connection.
"""

# ruff: noqa: F811 - the fixtures club, browser and people come from browser_support
from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import select, update

try:
    from playwright.sync_api import Page, ViewportSize, expect
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from andar_bahar.club.values import commitment_of
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Row
from andar_bahar.engine.settlement import Outcome, settle
from andar_bahar.i18n import format_number
from andar_bahar.storage import Storage
from andar_bahar.storage.models import ClubTableRow, TableRoundRow
from andar_bahar.web.pages.drawing import signed_amount
from browser_support import (  # noqa: F401 - club, browser, people: the fixtures
    LAPTOP,
    PHONE,
    TV,
    ClubServer,
    People,
    admit,
    browser,
    club,
    create_table,
    dealer_token,
    in_first_screen,
    join,
    people,
    row_cards,
)

expect.set_options(timeout=10_000)

CONTRAST = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
MATCHES = "the deck matches the commitment"


def space(dealer: Page) -> str:
    """Press the space bar on the dealer's screen; wait for the step after it."""
    button = dealer.locator("[data-next-step]")
    step = button.get_attribute("data-step") or ""
    cards = dealer.locator("[data-row] [data-card]").count()
    dealer.keyboard.press(" ")
    if step == "deal":
        expect(dealer.locator("[data-row] [data-card]")).to_have_count(cards + 1)
    else:
        expect(button).not_to_have_attribute("data-step", step)
    return step


def mark(*pages: Page) -> None:
    for page in pages:
        page.evaluate("() => { window.sameDocument = true; }")


def same_document(page: Page) -> bool:
    return bool(page.evaluate("() => window.sameDocument === true"))


# -- a betting round from the dealer's keyboard, the phones and the room's display ---------------


@pytest.mark.slow  # 12 s of CPU: a whole round and the room display; .ci/run's slow tier
def test_the_space_bar_plays_a_round_and_the_room_display_follows(
    club: ClubServer, people: People
) -> None:
    dealer = people.page(LAPTOP)
    code = create_table(dealer, club, name="Friday club")
    seats = {"Asha": admit(dealer, "Asha", "500"), "Ravi": admit(dealer, "Ravi", "300")}
    dealer.fill("#admit input[name=name]", "Asha")  # a refusal shows next to the form
    dealer.click("#admit button")
    expect(dealer.locator("#admit-alert")).to_have_text("Asha is already at the table.")
    # A seat code is read aloud: grouped (ABC-DEF), monospaced, 24 px or more.
    assert re.fullmatch(r"[A-Z0-9]{3}-[A-Z0-9]{3}", seats["Asha"])
    size, face = dealer.locator('[data-seat-for="Asha"]').evaluate(
        "(el) => [parseFloat(getComputedStyle(el).fontSize), getComputedStyle(el).fontFamily]"
    )
    assert size >= 24 and "Mono" in face, (size, face)
    asha, ravi = people.page(PHONE), people.page(PHONE)
    join(asha, club, code, seats["Asha"], "Asha")
    join(ravi, club, code, seats["Ravi"], "Ravi")
    room = people.page(TV)
    room.goto(f"{club.url}/display/{code}")
    expect(room.locator("[data-next-step], [data-bet], form")).to_have_count(0)  # no controls
    club.wait_followers(code, 4)
    mark(dealer, asha, ravi, room)
    dealer.locator("h1").click()  # the page has the focus, no button

    assert space(dealer) == "open"
    commitment = dealer.locator(".commitment code").inner_text()
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    expect(room.locator(".commitment code")).to_have_text(commitment)
    for phone in (asha, ravi):
        expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    asha.click('[data-chip="100"]')
    asha.click('[data-bet="andar"]')
    ravi.click('[data-chip="25"]')
    ravi.click('[data-bet="bahar"]')
    ravi.click('[data-chip="10"]')
    ravi.click('[data-bet="cards:6-10"]')
    bets = dealer.locator("table.bets tbody tr")  # the dealer's list of bets per player, live
    expect(bets).to_have_count(2)
    expect(bets.nth(0)).to_contain_text("Andar 100")
    expect(bets.nth(1)).to_contain_text("Bahar 25")
    expect(bets.nth(1)).to_contain_text("6–10 cards dealt 10")

    assert space(dealer) == "centre"
    centre = dealer.locator("[data-centre]").get_attribute("data-card")
    expect(room.locator("[data-centre]")).to_have_attribute("data-card", str(centre))
    assert space(dealer) == "close"
    for phone in (asha, ravi):
        expect(phone.locator('[data-bet="andar"]')).to_be_disabled()
    while dealer.locator("[data-next-step]").get_attribute("data-step") == "deal":
        space(dealer)
        for row in ("andar", "bahar"):  # the room's screen shows every card as it is dealt
            cards = row_cards(dealer, row)
            expect(room.locator(f'[data-row="{row}"] [data-card]')).to_have_count(len(cards))
            assert row_cards(room, row) == cards
        count = len(row_cards(dealer, "andar") + row_cards(dealer, "bahar"))
        said = ".felt-status" if dealer.locator("[data-winner]").count() else ".dealt-count"
        expect(room.locator(said)).to_contain_text(f"{count} card")  # the verdict says it
    andar, bahar = row_cards(dealer, "andar"), row_cards(dealer, "bahar")
    assert space(dealer) == "settle"
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "open")

    # The expected balances: the engine's settle() on the outcome the API reports.
    played = club.api(code, dealer_token(dealer, code))["round"]
    assert played["status"] == "settled"
    assert [d["card"] for d in played["dealt"] if d["row"] == "andar"] == andar
    assert [d["card"] for d in played["dealt"] if d["row"] == "bahar"] == bahar
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
    for phone, name in ((asha, "Asha"), (ravi, "Ravi")):
        expect(phone.locator("#balance")).to_have_text(format_number(balances[name], "en"))
        # the result: the round's net for the player, with its parts (won …, lost …)
        net = balances[name] - {"Asha": 500, "Ravi": 300}[name]
        parts = [
            f"won {b.win} on {b.bet.localized(None)}"
            if b.outcome is Outcome.WIN
            else f"lost {b.stake} on {b.bet.localized(None)}"
            for b in sorted(expected.bets, key=lambda b: b.outcome is not Outcome.WIN)
            if b.player == name
        ]
        expect(phone.locator("[data-banner]")).to_have_text(
            f"{signed_amount(net, 'en')}: {', '.join(parts)}"
        )
        assert same_document(phone), "a player's page was reloaded"
    expect(dealer.locator("table.players td.balance")).to_have_text(
        [format_number(balances["Asha"], "en"), format_number(balances["Ravi"], "en")]
    )
    expect(room.locator(".road-strip .bead")).to_have_count(1)
    assert same_document(room) and same_document(dealer), "a screen was reloaded"

    # The fairness link: the revealed deck is the one dealt, and the browser checks it.
    with asha.expect_navigation():
        asha.locator(".road-table a").first.click()
    assert asha.url == f"{club.url}/verify/{code}/1"
    expect(asha.locator("#browser-check")).to_have_text(MATCHES)
    deck = (asha.locator("#verify").get_attribute("data-deck") or "").split()
    assert len(deck) == 52 and deck[: 1 + len(andar + bahar)][0] == centre


# -- the bet timer: a countdown on every screen, bets closed at the deadline -------------------------


def test_the_bet_timer_counts_down_everywhere_and_closes_the_bets(
    club: ClubServer, people: People
) -> None:
    dealer = people.page(LAPTOP)
    code = create_table(dealer, club, name="Timer")
    seat = admit(dealer, "Asha", "100")
    phone, room = people.page(PHONE), people.page(TV)
    join(phone, club, code, seat, "Asha")
    room.goto(f"{club.url}/display/{code}")
    club.wait_followers(code, 3)
    dealer.fill("input[name=seconds]", "3")  # open the round with a timer of 3 s
    dealer.click("[data-next-step]")
    for page in (dealer, phone, room):  # every screen counts down, in m:ss
        expect(page.locator(".countdown .countdown-time")).to_have_text(re.compile(r"^0:0[0-3]$"))
    expect(phone.locator('[data-bet="andar"]')).to_be_enabled()
    phone.click('[data-bet="andar"]')  # in time
    expect(phone.locator('[data-bet="andar"] .spot-stake')).to_be_visible()
    # At the deadline the server closes the bets by itself: the spots close, the clock goes.
    expect(phone.locator('[data-bet="andar"]')).to_be_disabled()
    for page in (dealer, phone, room):
        expect(page.locator(".countdown")).to_have_count(0)
        expect(page.locator(".felt-status")).to_contain_text("bets are closed")
    assert dealer.locator('[data-action="timer"]').count() == 0  # nothing to time now
    # The dealer may also start (and stop) a timer while bets are open.
    while dealer.locator("[data-next-step]").get_attribute("data-step") != "open":
        space(dealer)
    dealer.click("[data-next-step]")  # no timer this time
    expect(phone.locator('[data-bet="bahar"]')).to_be_enabled()
    expect(phone.locator(".countdown")).to_have_count(0)
    dealer.click('[data-action="timer"][data-seconds="15"]')
    expect(phone.locator(".countdown .countdown-time")).to_have_text(re.compile(r"^0:1[0-5]$"))
    dealer.click('[data-action="timer"]')  # stop the timer
    expect(phone.locator(".countdown")).to_have_count(0)
    expect(phone.locator('[data-bet="bahar"]')).to_be_enabled()


# -- a real deck: the cards tapped by rank and suit ---------------------------------------------


def test_a_real_deck_by_tapping_rank_and_suit(club: ClubServer, people: People) -> None:
    dealer = people.page(LAPTOP)
    create_table(dealer, club, name="Real deck")
    dealer.check("input[name=physical]")
    dealer.click("[data-next-step]")
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "centre")
    dealer.click('[data-pick-rank="Q"]')
    dealer.click('[data-pick-suit="♥"]')
    expect(dealer.locator("[data-picked]")).to_have_value("Q♥")
    dealer.click("[data-next-step]")
    expect(dealer.locator("[data-centre]")).to_have_attribute("data-card", "Q♥")
    dealer.click("[data-next-step]")  # close bets
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "deal")
    # Typed on a laptop: "4" then "c" picks 4♣, the space bar deals it.
    dealer.locator("h1").click()
    dealer.keyboard.press("4")
    dealer.keyboard.press("c")
    expect(dealer.locator("[data-picked]")).to_have_value("4♣")
    dealer.keyboard.press(" ")
    expect(dealer.locator('[data-row="andar"] [data-card]')).to_have_count(1)
    assert row_cards(dealer, "andar") == ["4♣"]
    # The same card twice is refused, next to the button, in one sentence.
    dealer.click('[data-pick-rank="4"]')
    dealer.click('[data-pick-suit="♣"]')
    dealer.click("[data-next-step]")
    expect(dealer.locator("#step-alert")).to_contain_text("has already been turned")
    assert row_cards(dealer, "bahar") == []
    dealer.click('[data-pick-rank="Q"]')
    dealer.click('[data-pick-suit="♠"]')
    dealer.click("[data-next-step]")
    expect(dealer.locator('[data-row="bahar"] [data-card]')).to_have_attribute("data-card", "Q♠")
    expect(dealer.locator(".felt-status")).to_have_text("Bahar wins with 2 cards dealt.")
    expect(dealer.locator("#step-alert")).to_have_text("")
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "settle")
    # "1 card dealt", singular (it said "1 cards").
    dealer.click("[data-next-step]")
    dealer.check("input[name=physical]")
    dealer.click("[data-next-step]")
    for rank, suit in (("K", "♦"), ("K", "♣")):
        dealer.click(f'[data-pick-rank="{rank}"]')
        dealer.click(f'[data-pick-suit="{suit}"]')
        step = dealer.locator("[data-next-step]").get_attribute("data-step")
        dealer.click("[data-next-step]")
        expect(dealer.locator("[data-next-step]")).not_to_have_attribute("data-step", str(step))
        if step == "centre":
            dealer.click("[data-next-step]")  # close bets
            expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "deal")
    expect(dealer.locator(".felt-status")).to_have_text("Andar wins with 1 card dealt.")


def test_the_new_table_form_shows_the_fields_of_the_game_chosen(
    club: ClubServer, people: People
) -> None:
    for scripts in (True, False):  # app.css does it: the same without a script
        page = people.page(LAPTOP, java_script_enabled=scripts)
        page.goto(f"{club.url}/tables/new")
        lesson = page.locator("input[name=rounds], input[name=scoring]")
        for kind, shown in (("betting", False), ("teaching", True), ("betting", False)):
            page.select_option("select[name=kind]", kind)
            for field in lesson.all():
                if shown:
                    expect(field).to_be_visible()
                else:
                    expect(field).to_be_hidden()


# -- the dealer never scrolls: the current step's controls in the first screen -------------------


@pytest.mark.parametrize(
    "size",
    [
        {"width": 1280, "height": 680},  # a 1280×800 laptop less the browser's bars
        {"width": 768, "height": 1024},  # a tablet upright: one column
        # the same two columns as at 1280×680, on other screens: the slow tier
        pytest.param({"width": 1366, "height": 768}, marks=pytest.mark.slow),
        pytest.param({"width": 1024, "height": 768}, marks=pytest.mark.slow),
    ],
    ids=lambda size: f"{size['width']}x{size['height']}",
)
def test_the_dealer_never_scrolls_to_the_next_step(
    club: ClubServer, people: People, size: ViewportSize
) -> None:
    """A round from the server's deck and one from a real deck, every kind of step with its
    controls in the first screen (the space bar and the picks never scroll); a card picked
    with the mouse is dealt with Space or Enter."""
    dealer = people.page(size)
    code = create_table(dealer, club, name="No scrolling")
    admit(dealer, "Asha", "100")
    dealer.goto(f"{club.url}/dealer/{code}")
    step = dealer.locator("[data-next-step]")
    for _ in range(6):  # the server's deck: open, centre, close and (up to) three cards
        in_first_screen(dealer)
        if space(dealer) == "deal" and step.get_attribute("data-step") == "settle":
            break
    token = dealer_token(dealer, code)
    status = club.api(code, token)["round"]["status"]
    while status == "open":  # the rest of the cards, shown live
        status = club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"]
    expect(step).to_have_attribute("data-step", "settle")
    in_first_screen(dealer)
    space(dealer)
    in_first_screen(dealer)
    dealer.check("input[name=physical]")
    dealer.locator("h1").click()  # the space bar would tick the box off again
    space(dealer)
    expect(dealer.locator(".timer-row")).to_be_visible()  # bets open: the timer too
    turned = dealer.locator("[data-centre], [data-row] [data-card]")
    for card, key in (("Q♥", " "), (None, " "), ("2♣", "Enter"), ("Q♠", " ")):
        in_first_screen(dealer)
        before, count = step.get_attribute("data-step"), turned.count()
        if card is None:
            dealer.keyboard.press(key)
            expect(step).not_to_have_attribute("data-step", str(before))
            continue
        dealer.click(f'[data-pick-rank="{card[0]}"]')  # with the mouse, then a key
        dealer.click(f'[data-pick-suit="{card[1]}"]')
        expect(step).to_be_focused()
        dealer.keyboard.press(key)
        expect(turned).to_have_count(count + 1)
    assert row_cards(dealer, "bahar") == ["Q♠"]
    in_first_screen(dealer)
    assert space(dealer) == "settle"


# -- a teaching round: markers and tokens ---------------------------------------------------------


def test_a_teaching_round_with_markers_and_tokens(club: ClubServer, people: People) -> None:
    dealer = people.page(LAPTOP)
    code = create_table(dealer, club, name="Lesson", kind="teaching", procedure="home", rounds="1")
    expect(dealer.locator("#admit input[name=balance]")).to_have_count(0)  # no chips
    seats = {"Asha": admit(dealer, "Asha"), "Ravi": admit(dealer, "Ravi")}
    asha, ravi = people.page(PHONE), people.page(PHONE)
    join(asha, club, code, seats["Asha"], "Asha")
    join(ravi, club, code, seats["Ravi"], "Ravi")
    expect(asha.locator("#tokens")).to_have_text("0")
    club.wait_followers(code, 3)
    dealer.click("[data-next-step]")
    for phone in (asha, ravi):
        expect(phone.locator('[data-marker="andar"]')).to_be_enabled()
        expect(phone.locator("[data-bet]")).to_have_count(0)  # markers, not stakes
    asha.click('[data-marker="bahar"]')
    expect(asha.locator("#my-marker")).to_have_text("Bahar")
    asha.click('[data-marker="andar"]')  # a marker moves while the window is open
    expect(asha.locator("#my-marker")).to_have_text("Andar")
    ravi.click('[data-marker="bahar"]')
    expect(ravi.locator("#my-marker")).to_have_text("Bahar")
    expect(dealer.locator(".tag")).to_have_text(["Asha: Andar", "Ravi: Bahar"])  # live
    for scheme in ("light", "dark"):  # the marker buttons are readable (they were 1.01:1)
        asha.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        assert asha.evaluate(CONTRAST) == [], scheme
    while dealer.locator("[data-next-step]").get_attribute("data-step") != "settle":
        space(dealer)
    dealer.click("[data-next-step]")
    played = club.api(code)["round"]
    tokens = {name: int(row == played["winner"]) for name, row in played["markers"].items()}
    expect(asha.locator("#tokens")).to_have_text(str(tokens["Asha"]))
    expect(ravi.locator("#tokens")).to_have_text(str(tokens["Ravi"]))
    winner, loser = sorted(tokens, key=lambda name: -tokens[name])
    for phone in (asha, ravi):
        expect(phone.locator(".standings li")).to_have_text(
            [f"{winner} — 1 token", f"{loser} — 0 tokens"]
        )
    expect(dealer.locator("[data-next-step]")).to_have_count(0)  # the lesson is over


# -- contrast on the dealer's screen and the room's display ------------------------------------------


@pytest.mark.parametrize(
    "scheme",
    ["light", pytest.param("dark", marks=pytest.mark.slow)],  # dark: the slow tier
)
def test_the_dealer_and_the_room_screens_have_contrast(
    club: ClubServer, people: People, scheme: str
) -> None:
    dealer = people.page(LAPTOP, color_scheme=scheme)
    code = create_table(dealer, club, name=f"Contrast {scheme}")
    admit(dealer, "Asha", "100")
    dealer.check("input[name=physical]")
    dealer.click("[data-next-step]")
    expect(dealer.locator("[data-pick-suit]")).to_have_count(4)
    dealer.click('[data-pick-rank="J"]')
    dealer.click('[data-pick-suit="♦"]')
    assert dealer.evaluate(CONTRAST) == [], "dealer, picker"
    dealer.click("[data-next-step]")  # the centre card
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "close")
    dealer.click("[data-next-step]")
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "deal")
    for card in ("2♠", "3♣", "4♥", "5♦"):
        dealer.click(f'[data-pick-rank="{card[0]}"]')
        dealer.click(f'[data-pick-suit="{card[1]}"]')
        dealer.click("[data-next-step]")
        expect(dealer.locator("[data-picked]")).to_have_value("")
    expect(dealer.locator("[data-row] [data-card]")).to_have_count(4)
    assert dealer.evaluate(CONTRAST) == [], "dealer, dealing"
    room = people.page(TV, color_scheme=scheme)
    room.goto(f"{club.url}/display/{code}")
    expect(room.locator("[data-row] [data-card]")).to_have_count(4)
    assert room.evaluate(CONTRAST) == [], "display"
    home = people.page(PHONE, color_scheme=scheme)
    for path in ("/", "/tables/new"):
        home.goto(f"{club.url}{path}")
        assert home.evaluate(CONTRAST) == [], path


# -- the room's display: fills its screen, legible from across the room --------------------------

LEGIBLE = """(selector) => Array.from(document.querySelectorAll(selector)).flatMap((el) => {
    // Texts drawn smaller than 28 px (not those only screen readers hear).
    const box = el.getBoundingClientRect();
    const texts = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim());
    const size = parseFloat(getComputedStyle(el).fontSize);
    return texts && box.width > 1 && size < 28 ? [`${el.textContent.trim()}: ${size}px`] : [];
})"""
CORNERS = """() => Array.from(document.querySelectorAll('[data-row] .slot')).flatMap((slot) => {
    // Cards whose corner (the rank) the next card covers, or that lie outside the screen.
    const rank = slot.querySelector('.rank').getBoundingClientRect();
    const next = slot.nextElementSibling;
    const card = slot.firstElementChild.getBoundingClientRect();
    const outside = card.bottom > innerHeight || card.right > innerWidth;
    const over = next && next.getBoundingClientRect().top < rank.bottom
        && next.getBoundingClientRect().left < rank.right;
    return outside || over ? [slot.firstElementChild.dataset.card] : [];
})"""


def test_the_room_display_fills_its_screen_at_any_round_length(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Long round")
    rooms = [people.page(TV), people.page({"width": 1280, "height": 720})]
    for room in rooms:
        room.goto(f"{club.url}/display/{code}")
    club.post(f"/api/tables/{code}/rounds", {"physical": True, "seconds": 600}, token)
    tv = rooms[0]  # 1080p: 28 px or more, read at 3 m (720p: the same picture, smaller)
    expect(tv.locator(".countdown")).to_be_visible()
    assert tv.evaluate(LEGIBLE, ".display-side *, .countdown *, .display-head *") == []
    # 46 cards (a real deck: the centre K♥, 45 cards of no king, then K♠): 23 in each row
    club.post(f"/api/tables/{code}/actions/centre", {"card": "KH"}, token)
    no_king = [rank + suit for rank in "23456789TJQA" for suit in "SHDC"][:45]
    for card in [*no_king, "KS"]:
        club.post(f"/api/tables/{code}/actions/deal", {"card": card}, token)
    for room in rooms:
        expect(room.locator("[data-row] [data-card]")).to_have_count(46)
        expect(room.locator(".felt-status")).to_have_text("Bahar wins with 46 cards dealt.")
        assert room.evaluate(CORNERS) == [], room.viewport_size  # "10" shows whole
        size = room.evaluate("() => [document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")  # fmt: skip
        assert size == [room.viewport_size["width"], room.viewport_size["height"]]  # type: ignore[index]
    assert tv.evaluate(LEGIBLE, ".display-side *") == []


# -- fairness ------------------------------------------------------------------------------------


def test_the_browser_checks_the_deck_without_crypto_subtle(
    club: ClubServer, people: People
) -> None:
    """A phone on the club's Wi-Fi (plain http, no secure context) has no crypto.subtle."""
    code, token = club.table("Quick")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass  # the first "deal" turns the centre card
    club.post(f"/api/tables/{code}/actions/settle", {}, token)
    phone = people.page(PHONE)
    phone.add_init_script("delete Crypto.prototype.subtle;")
    phone.goto(f"{club.url}/verify/{code}/1")
    assert phone.evaluate("() => window.crypto.subtle === undefined")
    expect(phone.locator("#browser-check")).to_have_text(MATCHES)
    # Written for a player: what was checked in words, the by-hand steps folded away (no
    # path in the project's files, no command to copy), a way back to the table.
    expect(phone.locator(".checks li")).to_have_count(3)
    expect(phone.locator(".checks li").first).to_contain_text("The cards dealt are the deck's")
    expect(phone.locator("#hashed-text")).to_be_hidden()  # in the closed <details>
    page = phone.locator("main").inner_text() + phone.locator("details").inner_text()
    assert "docs/" not in page and "sha256sum" not in page and "printf" not in page
    expect(phone.locator("a.back-link")).to_have_attribute("href", f"/play/{code}")
    back = phone.locator("a.back-link").bounding_box()
    assert back is not None and back["height"] >= 44
    # The deck in the felt's own card names: a queen is Д in Russian, each card whole.
    deck = (phone.locator("#verify").get_attribute("data-deck") or "").split()
    phone.goto(f"{club.url}/verify/{code}/1?lang=ru")
    shown = phone.locator("#deck-cards .mini-card")
    expect(shown).to_have_count(52)
    queen = deck.index("Q♠")
    expect(shown.nth(queen)).to_have_text("Д")
    expect(shown.nth(queen)).to_have_attribute("aria-label", "дама пик")
    heights = {round(box["height"]) for box in (c.bounding_box() for c in shown.all()) if box}
    assert len(heights) == 1  # no card broken across two lines
    expect(phone.locator("#browser-check")).to_have_text("колода соответствует хешу")


# -- issue 10: the verify page compares with what the player saw while betting ---------------------

SAME = "the same: the deck was fixed before you bet"
DIFFERENT = "DIFFERENT: the deck revealed is not the one committed to while you were betting"
NOT_SEEN = (
    "this browser did not see this round while its bets were open"
    " (it keeps what it saw, on this device only)"
)


def kept_commitment(page: Page, code: str, number: int) -> str:
    """The commitment this browser kept for round *number* (verify.js, in localStorage)."""
    key = f"andar-bahar:commitment:{code}:{number}"
    page.wait_for_function(f"() => localStorage.getItem({key!r}) !== null", timeout=10_000)
    return str(page.evaluate(f"() => localStorage.getItem({key!r})"))


def swap_the_deck(database: str, code: str, number: int) -> str:
    """What a cheating server would do once bets are open: put another deck in, commit anew.

    The round's stored deck is reversed (no card has been turned yet) and a new salt and
    commitment are stored with it, so that everything the server shows later agrees with
    itself — only the commitment the player's browser saw while betting differs. (The table's
    version moves on too, or the server would deal on from the round it keeps in memory.)
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
        # a new version of the table, as every change has: the server reads the round again
        connection.execute(
            update(ClubTableRow)
            .where(ClubTableRow.id == table_id)
            .values(version=ClubTableRow.version + 1)
        )
    return commitment


def play_out(club: ClubServer, code: str, token: str) -> None:
    """Turn the centre card, deal to the match and settle, over the API."""
    while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
        pass  # the first "deal" turns the centre card
    club.post(f"/api/tables/{code}/actions/settle", {}, token)


def test_the_verify_page_flags_a_deck_other_than_the_one_seen_while_betting(
    club: ClubServer, people: People
) -> None:
    code, token = club.table("Watch")
    seat = club.admit(code, token, "Asha", "100")
    phone = people.page(PHONE)
    join(phone, club, code, seat, "Asha")
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

    # The next round's deck is swapped after the phone saw its commitment (the page is
    # loaded while bets are open, this time): the server's own checks still agree with
    # themselves and the cards turned are the new deck's, but the phone says DIFFERENT.
    phone.goto(f"{club.url}/play/{code}")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    seen = kept_commitment(phone, code, 2)
    club.post(f"/api/tables/{code}/actions/close", {}, token)  # bets closed, then the swap
    expect(phone.locator(".commitment[data-bets-open]")).to_have_count(0)
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
