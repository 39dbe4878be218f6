"""The trainer in a real browser: a learner takes every drill, a trainee pays a table
against the clock and deals a real deck, both come back on another browser with their code,
and the table's dealer sees them both.

Debian's Chromium through Playwright (tests/browser_support.py), at 390×844 (the phone)
and 1280×680 (the laptop), each the learner's device and the other the one they come back
on. Every drill is answered wrong, then right (by taps, by typing, by
the tray's chips, by the keyboard alone); the explanation on the page is the drill's own,
word for word in the page's language. The right answers come from the drill drawn again
from the page's ticket (its seed); the table's payouts from the engine's settlement of the
bets the page shows. Live checks: text contrast 4.5:1 (tests/contrast.js), tap targets of
44 px or more, the question and its answer controls in the first screen (phone and laptop).
English on the phone walks in the everyday run; the other five pairs of language and size
in the slow tier.
"""

# ruff: noqa: F811 - the fixtures club, browser and people come from browser_support
from __future__ import annotations

import html
import random
import re
from decimal import Decimal
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Page, ViewportSize, expect
except ImportError:  # pragma: no cover - playwright is a dev dependency
    pytest.skip("Playwright is not installed", allow_module_level=True)

from andar_bahar.club.learners import Ticket
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.rules import Row
from andar_bahar.engine.settlement import settle
from andar_bahar.games.drills import AnswerKind, Drill, DrillKind, make_drill, pick_rules
from andar_bahar.i18n import translations
from browser_support import (  # noqa: F401 - club, browser, people: the fixtures
    PHONE,
    ClubServer,
    People,
    browser,
    club,
    in_viewport,
    people,
    sign_in,
)

expect.set_options(timeout=10_000)

CONTRAST = Path(__file__).with_name("contrast.js").read_text(encoding="utf-8")
LAPTOP: ViewportSize = {"width": 1280, "height": 680}
SMALL_TARGETS = """(selector) => Array.from(document.querySelectorAll(selector)).filter((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && (r.width < 44 || r.height < 44);
}).map((el) => el.outerHTML.slice(0, 80))"""
"""In the page: the controls of a selector smaller than 44 × 44 px (hidden ones left out)."""
CONTROLS = (
    "#exercise button, #exercise a, #exercise input.answer, #exercise label.choice,"
    " #exercise label.pick, #exercise input[name=card], .site-header a"
)
FIRST_SCREEN = (
    "#exercise legend, #exercise .learn-number label, #exercise [data-answer],"
    " #exercise input.answer, #exercise [data-check], #exercise [data-chip]"
)
SIZES = {"phone": PHONE, "laptop": LAPTOP}
EVERY = [
    pytest.param(lang, size, marks=() if (lang, size) == ("en", "phone") else pytest.mark.slow)
    for lang in ("en", "ru", "ka")
    for size in SIZES
]
"""Each language on each size (the learner's device; they come back on the other one): the
phone in English every day, the rest in the slow tier."""


def _checks(page: Page, what: str) -> None:
    assert page.evaluate(SMALL_TARGETS, CONTROLS) == [], what
    assert page.evaluate(CONTRAST) == [], what
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), what


def _start(page: Page, club: ClubServer, name: str, lang: str, school: str) -> str:
    page.goto(f"{club.url}/learn?lang={lang}&school={school}")
    page.fill("#learn-start input[name=name]", name)
    page.click("#learn-start button[type=submit]")
    code = page.locator("[data-learner-code]")
    expect(code).to_have_text(re.compile(r"^[A-Z0-9]{3}-[A-Z0-9]{3}$"))
    expect(page.locator(f'[data-school-code="{school}"]')).to_be_visible()
    return code.inner_text()


def _ticket(page: Page) -> Ticket:
    signed = page.locator("#exercise input[name=ticket]").first.get_attribute("value") or ""
    ticket = Ticket.read(html.unescape(signed).rpartition(".")[0])
    assert ticket is not None
    return ticket


def _drill(page: Page, kind: DrillKind) -> Drill:
    return make_drill(kind, random.Random(_ticket(page).seed))  # the learner's rules: varied


def _wrong(drill: Drill) -> dict[str, str]:
    """Right answers but the first, which is wrong (and within its bounds)."""
    answers = {q.key: q.expected for q in drill.questions}
    first = drill.questions[0]
    if first.answer is AnswerKind.ROW:
        answers[first.key] = Row(first.expected).other.value
    elif first.answer is AnswerKind.CHOICE:
        answers[first.key] = "2" if first.expected == "1" else "1"
    else:
        value = Decimal(first.expected)
        bigger = first.most is None or value + 1 <= first.most
        answers[first.key] = str(value + 1 if bigger else value - 1)
    return answers


def _tray_taps(chips: list[Decimal], amount: Decimal) -> list[Decimal] | None:
    """The chips that make *amount*, the biggest first (``None``: more than ten taps)."""
    taps: list[Decimal] = []
    for chip in sorted(chips, reverse=True):
        while amount >= chip and len(taps) <= 10:
            taps.append(chip)
            amount -= chip
    return taps if amount == 0 and 0 < len(taps) <= 10 else None


def _answer(page: Page, drill: Drill, answers: dict[str, str]) -> None:
    """Tap the rows and choices, type the counts, build an amount from the tray if it can."""
    single = len(drill.questions) == 1 and drill.questions[0].answer is not AnswerKind.NUMBER
    tray = [Decimal(c) for c in page.locator("[data-chip]").evaluate_all(
        "(chips) => chips.map((c) => c.dataset.chip)")]  # fmt: skip
    used_tray = False
    for question in drill.questions:
        value = answers[question.key]
        if question.answer is not AnswerKind.NUMBER:
            where = f'#exercise [data-question="{question.key}"] [data-answer="{value}"]'
            page.locator(where).click()
            continue
        field = page.locator(f"#answer-{question.key}")
        taps = _tray_taps(tray, Decimal(value)) if tray and not used_tray else None
        if taps is not None and not question.whole:
            field.focus()
            page.click("[data-clear]")
            for chip in taps:
                page.click(f'[data-chip="{chip}"]')
            expect(field).not_to_have_value("")
            used_tray = True
        else:
            field.fill(value)
    if not single:
        page.click("[data-check]")


def _explained(page: Page, drill: Drill, lang: str, verdict: str) -> None:
    """The verdict, the answers marked, the drill's own explanation word for word."""
    expect(page.locator(f'[data-result="{verdict}"]')).to_be_visible()
    lines = page.locator("[data-result] .explanation li").all_inner_texts()
    t = translations(lang)
    assert lines == [line.localized(t) for line in drill.explanation]
    expect(page.locator("[data-next]")).to_be_focused()


def _drills(page: Page, lang: str) -> None:
    for kind in DrillKind:
        page.locator(f'[data-drill="{kind.value}"]').click()
        expect(page.locator("#exercise")).to_have_attribute("data-kind", kind.value)
        page.wait_for_load_state()  # its style sheets too: the first screen as drawn
        assert in_viewport(page, FIRST_SCREEN) == [], kind
        _checks(page, kind.value)
        drill = _drill(page, kind)
        _answer(page, drill, _wrong(drill))
        _explained(page, drill, lang, "wrong")
        expect(page.locator('[data-correct="no"]').first).to_be_visible()
        _checks(page, f"{kind.value} explained")
        page.keyboard.press("Enter")  # the next drill, from the keyboard
        expect(page.locator("[data-result]")).to_have_count(0)
        page.wait_for_load_state()  # its script listens for keys once loaded
        drill = _drill(page, kind)
        if kind is DrillKind.LAYOUT:  # the keyboard alone: a key for the row, then the count
            winner, cards = drill.questions
            page.keyboard.press(winner.expected[0])
            page.keyboard.press("Tab")
            page.keyboard.type(cards.expected)
            page.keyboard.press("Enter")
        elif kind in (DrillKind.FIRST_ROW, DrillKind.ODDS):
            key = drill.questions[0].expected
            page.keyboard.press(key[0] if kind is DrillKind.FIRST_ROW else key)
        else:
            _answer(page, drill, {q.key: q.expected for q in drill.questions})
        _explained(page, drill, lang, "right")
        page.goto(page.url.split("/learn/")[0] + "/learn")


def _pay_the_table(page: Page, lang: str) -> tuple[int, int]:
    """Pay a table with one payout wrong: the accuracy shown is the settlement's."""
    page.locator("[data-school]").click()
    expect(page.locator("#exercise")).to_have_attribute("data-kind", "school")
    page.wait_for_load_state()
    assert in_viewport(page, '#exercise [name="answer-bet1"]') == []
    expect(page.locator("[data-clock]")).to_be_visible()
    _checks(page, "school")
    _, paytable = pick_rules(random.Random(_ticket(page).seed), None, None, staked=True)
    verdict = page.locator("[data-winner]")
    first_row = verdict.get_attribute("data-first-row")
    spots = page.locator("[data-spot]").evaluate_all(
        "(spots) => spots.map((s) => [s.dataset.spot, s.dataset.player, s.dataset.bet, s.dataset.stake])"
    )
    settled = settle(
        winner=Row(verdict.get_attribute("data-winner") or ""),
        cards_dealt=int(verdict.get_attribute("data-cards-dealt") or 0),
        first_row=Row(first_row) if first_row else None,
        paytable=paytable,
        wagers=[Wager(player, Bet.parse(bet), Decimal(stake)) for _, player, bet, stake in spots],
    )
    for (key, *_), bet in zip(spots, settled.bets, strict=True):
        wrong = "0" if bet.win else "1"  # within the bet's bounds, and not its win
        page.fill(f"#answer-{key}", wrong if key == "bet1" else str(bet.win))
    page.click("[data-check]")
    score = page.locator("[data-score]")
    expect(score).to_have_attribute("data-payouts", str(len(spots)))
    expect(score).to_have_attribute("data-right", str(len(spots) - 1))
    expect(page.locator("#exercise [data-correct=no]")).to_have_count(1)
    expect(page.locator("[data-passed]")).to_have_count(0)
    assert [int(n) for n in re.findall(r"\d+", score.locator("strong").inner_text())] == [
        len(spots) - 1, len(spots)]  # fmt: skip
    _checks(page, "school paid")
    return len(spots) - 1, len(spots)


def _deal_a_real_deck(page: Page, club: ClubServer) -> None:
    """On the classic rules (chosen on the learner's page): 7♣, then 2♦ to Andar, K♠ picked
    by rank and suit and said wrong, 7♦ matched, Andar called."""
    page.goto(f"{club.url}/learn")
    page.locator("#learn-rules").locator("xpath=..").locator("summary").click()
    page.select_option("#learn-rules select[name=procedure]", "classic")
    page.click("#learn-rules button[type=submit]")
    page.locator("[data-deal]").click()
    page.fill("input[name=card]", "7c")
    page.click("[data-begin]")
    expect(page.locator('[data-card="7♣"]')).to_be_visible()
    page.fill("input[name=card]", "2d")
    page.click('[data-deal-row="andar"]')
    expect(page.locator('[data-call="right"]')).to_be_visible()
    _checks(page, "deal")
    page.locator('label.pick:has(input[value="K"])').click()
    page.locator('label.pick:has(input[value="♠"])').click()
    page.click('[data-deal-row="andar"]')
    expect(page.locator('[data-call="wrong"]')).to_be_visible()
    expect(page.locator('[data-card="K♠"]')).to_be_visible()
    page.fill("input[name=card]", "7d")
    page.click('[data-deal-row="andar"]')
    expect(page.locator('[data-card="7♦"]')).to_be_visible()  # this call's answer is in
    page.click('[data-deal-winner="andar"]')
    score = page.locator("[data-score]")
    expect(score).to_have_attribute("data-right", "3")
    expect(score).to_have_attribute("data-calls", "4")


def _progress(page: Page, club: ClubServer) -> list[str]:
    page.goto(f"{club.url}/learn/progress")
    expect(page.locator('[data-chart="accuracy"] svg .point').first).to_be_visible()
    _checks(page, "progress")
    return page.locator("#progress tbody tr").all_inner_texts()


def _back_on(
    people: People, club: ClubServer, code: str, lang: str, size: ViewportSize
) -> list[str]:
    """Another browser (of *size*) comes back with the learner code: its progress."""
    other = people.page(size)
    other.goto(f"{club.url}/learn?lang={lang}")
    other.fill("#learn-resume input[name=code]", code.lower())
    other.click("#learn-resume button[type=submit]")
    expect(other.locator("[data-learner-code]")).to_have_text(code)
    _checks(other, "back with the code")
    return _progress(other, club)


@pytest.mark.parametrize(("lang", "size"), EVERY)
def test_learners_take_every_drill_pay_a_table_deal_and_the_dealer_sees_them(
    club: ClubServer, people: People, lang: str, size: str
) -> None:
    code, _ = club.table(f"School {lang}")
    device, other = SIZES[size], SIZES["laptop" if size == "phone" else "phone"]
    learner = people.page(device)
    tamar = _start(learner, club, "Tamar", lang, code)
    _drills(learner, lang)
    on_the_device = _progress(learner, club)
    assert len(on_the_device) == len(DrillKind)  # one session, each kind answered twice
    assert _back_on(people, club, tamar, lang, other) == on_the_device

    trainee = people.page(device)
    dato = _start(trainee, club, "Dato", lang, code)
    right, total = _pay_the_table(trainee, lang)
    _deal_a_real_deck(trainee, club)
    rows = _back_on(people, club, dato, lang, other)
    assert len(rows) == 2  # the school and the real deck
    assert f"{total}\t{right}" in rows[0] or f"{total} {right}" in rows[0].replace("\t", " ")

    dealer = people.page(LAPTOP)
    sign_in(dealer, club, code)
    dealer.goto(f"{club.url}/dealer/{code}/learners?lang={lang}")
    expect(dealer.locator('[data-learner="Tamar"]')).to_have_attribute("data-level", "1")
    expect(dealer.locator('[data-learner="Dato"]')).to_have_attribute("data-level", "1")
    expect(dealer.locator('[data-learner="Dato"] [data-kind="school"]')).to_be_visible()
    _checks(dealer, "dealer's learners")


def test_a_drill_reads_in_dark_mode_and_a_slip_stays_beside_the_answers(
    club: ClubServer, people: People
) -> None:
    code, _ = club.table("Dark")
    page = people.page(PHONE, color_scheme="dark")
    _start(page, club, "Nino", "en", code)
    page.locator('[data-drill="pay"]').click()
    page.fill("#answer-bet1", "lots")
    page.click("[data-check]")
    alert = page.locator("[data-refused]")
    expect(alert).to_have_text(
        "Answer 1: 'lots' is not a number: write it with digits, such as 13 or 13.5."
    )
    expect(page.locator("#answer-bet1")).to_have_value("lots")
    assert in_viewport(page, "[data-refused]") == []
    _checks(page, "dark")
