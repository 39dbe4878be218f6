"""Dealt cards appended to the piles in a real browser (web/live/piles.py, static/live.js).

A phone at 390×844, the room's screen in Russian and the dealer's screen follow a round
that the dealer deals from the screen's own button: the phone and the room's screen get
most cards alone down their sockets, the dealer's screen in the answers to its deals,
and ``live.js`` appends them. Every page shows every card in its row, and its felt is,
element for element, the felt of the same page loaded afresh.
"""

# ruff: noqa: F811 - the fixtures club, browser and people come from browser_support
from __future__ import annotations

import random

import pytest

try:
    from playwright.sync_api import Page, expect
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from browser_support import (  # noqa: F401 - club, browser, people: the fixtures
    LAPTOP,
    PHONE,
    TV,
    ClubServer,
    People,
    browser,
    club,
    join,
    next_step,
    people,
    row_cards,
    sign_in,
)

SEED = 7
"""A seed example whose first round is dealt past its fourth card (the test says so)."""
FELT = '[data-live-block="table"]'

expect.set_options(timeout=10_000)


def felt(page: Page) -> str:
    """The inside of *page*'s felt, less the white space around it (a page drawn whole has
    the template's line break before the block, a block swapped in has not)."""
    return page.locator(FELT).first.inner_html().strip()


def felt_afresh(page: Page) -> str:
    """The felt of *page*'s address loaded again in the same browser (its cookies)."""
    fresh = page.context.new_page()
    fresh.goto(page.url)
    html = felt(fresh)
    fresh.close()
    return html


def test_every_page_shows_every_card_and_the_felt_a_fresh_page_draws(
    club: ClubServer, people: People
) -> None:
    club.app.state.service.store.rng = random.Random(SEED)
    code, token = club.table("Piles")
    alone: list[str] = []  # the socket messages that bring cards alone
    phone, room = people.page(PHONE), people.page(TV, locale="ru-RU")
    for page in (phone, room):
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: alone.append(str(f))))
    join(phone, club, code, club.admit(code, token, "Asha"), "Asha")
    room.goto(f"{club.url}/display/{code}")
    dealer = people.page(LAPTOP)
    sign_in(dealer, club, code)
    club.wait_followers(code, 3)
    pages = (phone, room, dealer)
    for page in pages:
        page.evaluate("() => { window.sameDocument = true; }")
    club.post(f"/api/tables/{code}/rounds", {}, token)
    club.post(f"/api/tables/{code}/actions/centre", {}, token)
    expect(dealer.locator("[data-next-step]")).to_have_attribute("data-step", "close")
    next_step(dealer)  # the bets closed: the next steps deal
    cards = 0
    while club.api(code, token)["round"]["status"] == "open":
        assert next_step(dealer) == "deal"  # the dealer's own button: its answer brings the card
        dealt = club.api(code, token)["round"]["dealt"]
        cards = len(dealt)
        for page in pages:  # every card, in the row the engine dealt it to
            expect(page.locator("[data-row] [data-card]")).to_have_count(cards)
            for row in ("andar", "bahar"):
                assert row_cards(page, row) == [d["card"] for d in dealt if d["row"] == row]
            if cards == 4:  # the third and fourth came alone: as a page drawn anew
                assert felt(page) == felt_afresh(page), page.url
    assert cards >= 4, "the seed's round runs past the cards that redraw the felt"
    assert sum('"piles"' in text for text in alone) >= 2 * (cards - 3)  # the phone's, the room's
    for page in pages:
        assert page.evaluate("() => window.sameDocument === true"), "a page was reloaded"
        assert page.evaluate("() => document.body.getAttribute('data-live-version')") != "-1"
