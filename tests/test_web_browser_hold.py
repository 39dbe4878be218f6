"""The hold report and the shuffle check in a real browser, in every language, laptop and phone.

Debian's Chromium through Playwright (tests/browser_support.py). The table's history is
played straight into the server's database (tests/hold_support.py); the dealer signs in
with the PIN like anyone. Each page must render whole — the sentence, the chart, the table —
in English, Russian and Georgian at 1280×680 and 390×844, with nothing wider than the
screen, no error in the console, and text that meets the contrast the other pages meet.
"""

# ruff: noqa: F811 - the fixtures club, browser and people come from browser_support
from __future__ import annotations

from pathlib import Path

import pytest

try:
    from playwright.sync_api import ViewportSize, expect
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from andar_bahar.storage import Storage
from browser_support import (  # noqa: F401 - club, browser, people: the fixtures
    PHONE,
    ClubServer,
    People,
    browser,
    club,
    people,
)
from hold_support import PIN, open_table, play, sign_in_again

expect.set_options(timeout=10_000)

CONTRAST = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
SHORT: ViewportSize = {"width": 1280, "height": 680}
SUMMARY = {"en": "The house kept", "ru": "Заведение оставило себе", "ka": "დაწესებულებამ დაიტოვა"}


EVERY_DAY = {("en", "1280x680"), ("ka", "390x844")}


@pytest.fixture(scope="module")
def code(club: ClubServer) -> str:
    with Storage.open(club.database) as storage:
        table = open_table(storage, seed=34)
        play(table, 40, early=0.3)
        sign_in_again(table)
        play(table, 40, seed=35)
        return table.code


EVERY = [
    pytest.param(
        lang,
        viewport,
        id=f"{lang}-{name}",
        marks=() if (lang, name) in EVERY_DAY else pytest.mark.slow,
    )
    for lang in ("en", "ru", "ka")
    for name, viewport in (("1280x680", SHORT), ("390x844", PHONE))
]
"""Each language on each size: English on the laptop and Georgian (the longest words) on
the phone every day, the rest in the slow tier."""


@pytest.mark.parametrize(("lang", "viewport"), EVERY)
def test_the_pages_render_in_every_language_on_a_laptop_and_a_phone(
    club: ClubServer, people: People, code: str, lang: str, viewport: ViewportSize
) -> None:
    page = people.page(viewport)
    page.goto(f"{club.url}/dealer/{code}/login?lang={lang}")
    page.locator("input[name=pin]").fill(PIN)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/dealer/{code}")
    page.locator(f"a[href='/dealer/{code}/hold']").first.click()
    expect(page.locator("#hold-summary")).to_contain_text(SUMMARY[lang])
    expect(page.locator("#hold-chart svg circle.kept").first).to_be_visible()
    expect(page.locator("#hold tfoot th")).to_be_visible()
    width = viewport["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("#hold-chart svg").bounding_box()
    assert box is not None and box["width"] <= width and box["height"] > 100
    assert page.evaluate(CONTRAST) == [], "hold"
    page.locator("#hold-filter select[name=by]").select_option("bet")
    page.locator("#hold-filter button").click()
    expect(page.locator("#hold tbody tr")).to_have_count(10)  # two rows, eight bands
    page.locator("#shuffle-link").click()
    expect(page.locator("#shuffle-real h2")).to_be_visible()
    expect(page.locator("#shuffle-server .hold-power")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(CONTRAST) == [], "shuffle"
    assert people.problems == []
