"""Screenshots of the club table's pages, in every language, for docs/screenshots/web/.

    .venv/bin/python scripts/web_screenshots.py

Runs the app on a loopback port (a fresh SQLite file, seeded shuffles), plays a few rounds
over the JSON API so the road has a history, then opens the pages in Debian's Chromium
(``/usr/bin/chromium``): the player's phone (390×844) while bets are open and after the
result, the dealer's screen (1280×800) mid-deal, and the room's display (1920×1080).
The phone is also shot in dark mode.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    LAPTOP,
    PHONE,
    TV,
    ClubServer,
    People,
    dealer_token,
    join,
    running,
    sign_in,
)

OUT = ROOT / "docs" / "screenshots" / "web"
SEED = 11
PLAYERS = {"Asha": "500", "Ravi": "300", "Nino": "400"}
HISTORY = 7
"""Rounds played before the pictures, for the road."""


def play_history(club: ClubServer, code: str, token: str, seats: dict[str, str]) -> None:
    for number in range(HISTORY):
        club.post(f"/api/tables/{code}/rounds", {}, token)
        for index, (name, seat) in enumerate(seats.items()):
            bet = ("andar", "bahar", "cards:6-10")[(number + index) % 3]
            club.post(f"/api/tables/{code}/bets", {"bet": bet, "stake": "10",
                                                  "key": f"h{number}{name}"}, seat)  # fmt: skip
        while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
            pass
        club.post(f"/api/tables/{code}/actions/settle", {}, token)


def shoot(page: Page, name: str) -> None:
    page.wait_for_timeout(300)  # the countdown's first tick, fonts
    page.screenshot(path=OUT / name)
    print(OUT / name)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as folder,
        running(Path(folder) / "club.sqlite3", seed=SEED) as club,
        sync_playwright() as playwright,
    ):
        code, token = club.table("Friday club")
        asha_seat = club.admit(code, token, "Asha", PLAYERS["Asha"])
        seats = {n: club.seat(code, token, n, PLAYERS[n]) for n in ("Ravi", "Nino")}
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        people = People(browser)
        asha = people.page(PHONE)
        join(asha, club, code, asha_seat, "Asha")
        play_history(club, code, token, seats)
        dealer = people.page(LAPTOP)
        sign_in(dealer, club, code)
        token = dealer_token(dealer, code)
        room = people.page(TV)
        tablet = people.page({"width": 1024, "height": 768})
        tablet.context.add_cookies(dealer.context.cookies())
        room.goto(f"{club.url}/display/{code}")
        dark = people.page(PHONE, color_scheme="dark")
        dark.context.add_cookies(asha.context.cookies())

        # Bets are open after the centre card (classic): the phone with its stakes.
        club.post(f"/api/tables/{code}/rounds", {"seconds": 600}, token)  # a bet timer
        club.post(f"/api/tables/{code}/actions/centre", {}, token)
        asha.goto(f"{club.url}/play/{code}")
        asha.click('[data-chip="25"]')
        asha.click('[data-bet="andar"]')
        expect(asha.locator('[data-bet="andar"] .spot-stake')).to_be_visible()
        asha.click('[data-chip="10"]')
        asha.click('[data-bet="cards:6-10"]')
        expect(asha.locator('[data-bet="cards:6-10"] .spot-stake')).to_be_visible()
        for name, seat in seats.items():
            club.post(
                f"/api/tables/{code}/bets", {"bet": "bahar", "stake": "20", "key": name}, seat
            )
        for lang in ("en", "ru", "ka"):
            asha.goto(f"{club.url}/play/{code}?lang={lang}")
            shoot(asha, f"player.{lang}.png")
        dark.goto(f"{club.url}/play/{code}?lang=en")
        shoot(dark, "player-dark.en.png")

        # Mid-deal: the dealer's screen and the room's display (a tablet too).
        for _ in range(5):
            if club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] != "open":
                break
        for lang in ("en", "ru", "ka"):
            dealer.goto(f"{club.url}/dealer/{code}?lang={lang}")
            shoot(dealer, f"dealer.{lang}.png")
            room.goto(f"{club.url}/display/{code}?lang={lang}")
            shoot(room, f"display.{lang}.png")
        tablet.goto(f"{club.url}/dealer/{code}?lang=en")
        shoot(tablet, "dealer-tablet.en.png")

        # The result: the net of the round for the player, under the felt.
        while club.post(f"/api/tables/{code}/actions/deal", {}, token)["status"] == "open":
            pass
        club.post(f"/api/tables/{code}/actions/settle", {}, token)
        for lang in ("en", "ru", "ka"):
            asha.goto(f"{club.url}/play/{code}?lang={lang}")
            expect(asha.locator("[data-banner]")).to_be_visible()
            shoot(asha, f"player-result.{lang}.png")
        people.close()
        browser.close()
        if people.problems:
            raise SystemExit("\n".join(people.problems))


if __name__ == "__main__":
    main()
