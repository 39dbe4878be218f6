"""Helpers for the terminal trainer's tests: drive the app by keyboard, read the screen.

Every helper works through what a user has: keys, and what the terminal shows, with
Textual's public testing API only (``App.run_test``, ``Pilot``, ``App.post_message``,
``App.export_screenshot``).
"""

from __future__ import annotations

import html
import random
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po
from rich.cells import cell_len
from textual import events
from textual.keys import key_to_character
from textual.pilot import Pilot
from textual.widget import Widget

from andar_bahar.engine.cards import Card, shuffled
from andar_bahar.tui.app import TrainerApp
from andar_bahar.tui.common import Choice
from sqlite_template import migrated_sqlite

SEED = 7
SMALL = (80, 24)
LARGE = (120, 40)
POT = Path(__file__).resolve().parent.parent / "src" / "andar_bahar" / "locale" / "andar_bahar.pot"

Scenario = Callable[[TrainerApp, Pilot[None]], Awaitable[None]]


def seeded_deck(draw: int, seed: int = SEED) -> list[Card]:
    """The deck the app deals in its *draw*-th round: ``TrainerApp.rng()`` seeds "seed/draw"."""
    return shuffled(random.Random(f"{seed}/{draw}"))


async def run(
    app: TrainerApp, scenario: Scenario, size: tuple[int, int] = SMALL, *, notes: bool = False
) -> None:
    """Run *scenario* against *app* headless at *size*; wait for the history at the end.
    *notes*: show the app's notifications (Textual's tests leave them out by default)."""
    async with app.run_test(size=size, notifications=notes) as pilot:
        await pilot.pause()
        await scenario(app, pilot)
        await settle(app, pilot)


async def settle(app: TrainerApp, pilot: Pilot[None]) -> None:
    """Let the history's thread and the workers finish, and the screen catch up."""
    await app.history_idle()
    await pilot.pause()


_SVG_TEXT = re.compile(
    r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="[\d.]+"'
    r' clip-path="url\(#[^)]*-line-(\d+)\)">(.*?)</text>'
)
_CELL = 20 * 0.61
"""The width of a cell in Rich's SVG (its font size times its aspect ratio)."""


async def until(
    pilot: Pilot[None], holds: Callable[[], bool], what: str, seconds: float = 30
) -> None:
    """Let the app run until *holds* (a worker's answer has come, the odds are shown …);
    fail naming *what* if it does not within *seconds* (a deadline, not a measure)."""
    deadline = time.monotonic() + seconds
    while not holds():
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        await pilot.pause(0.02)
    await pilot.pause()


def screen_text(app: TrainerApp) -> str:
    """What the terminal shows now, as plain text (the footer included): read from the
    screenshot Textual exports, each piece of text put back at its cell."""
    width, height = app.size
    rows: list[list[tuple[int, str]]] = [[] for _ in range(height)]
    for x, line, text in _SVG_TEXT.findall(app.export_screenshot(simplify=True)):
        piece = html.unescape(text.replace("&#160;", " "))  # Rich writes a space as &#160;
        rows[int(line)].append((round(float(x) / _CELL), piece))
    lines = []
    for row in rows:
        text, at = "", 0
        for column, piece in sorted(row):
            text += " " * max(0, column - at) + piece
            at = max(at, column) + cell_len(piece)
        lines.append(text + " " * max(0, width - at))
    return "\n".join(lines)


async def footer_line(
    app: TrainerApp, pilot: Pilot[None], shows: Callable[[str], bool], seconds: float = 10
) -> str:
    """The screen's last line (the footer's keys) once *shows* holds of it, or as it is after
    *seconds*: Textual draws a new screen's footer, and a footer whose keys changed, a few
    frames later than the screen itself, later still on a busy machine."""
    deadline = time.monotonic() + seconds
    while True:
        line = screen_text(app).splitlines()[-1]
        if shows(line) or time.monotonic() > deadline:
            return line
        await pilot.pause(0.05)


async def whole_screen_text(app: TrainerApp, pilot: Pilot[None]) -> str:
    """Everything the screen's body holds, page by page, with the header and the footer."""
    pages = [screen_text(app)]
    bodies = app.screen.query("#body")
    if not bodies:
        return pages[0]
    body = bodies.first()
    body.scroll_home(animate=False, immediate=True)
    await pilot.pause()
    for _ in range(30):
        pages.append(screen_text(app))
        if body.scroll_y >= body.max_scroll_y:
            break
        body.scroll_page_down(animate=False)
        await pilot.pause()
    return "\n".join(pages)


def is_visible(app: TrainerApp, widget: Widget) -> bool:
    """Whether all of *widget* is on screen, inside its scrolling container's visible part."""
    try:
        geometry = app.screen.find_widget(widget)
    except Exception:
        return False
    region = geometry.region
    return (
        region.area > 0
        and geometry.clip.contains_region(region)
        and app.screen.region.contains_region(region)
    )


def key_event(key: str) -> events.Key:
    """The event a terminal sends for *key*: a key's name (``enter``, ``ctrl+l``), or a
    character typed."""
    if len(key) == 1 and not key.isalnum():
        name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        return events.Key(name, key)
    return events.Key(key, key_to_character(key))


async def type_keys(pilot: Pilot[None], *keys: str) -> None:
    """Send *keys* as a quick typist does, one after the other without waiting for the
    screen in between, then let the app catch up. ``Pilot.press`` waits for the process to
    be idle after every key (two 20 ms windows at least, a second or more per sentence).

    A burst keeps its order only when its keys take one path: printable characters go
    straight into the focused field, while keys bound to an action (End, Backspace, Tab,
    the arrows) bubble up to the app first, so a character sent after such a key can
    overtake it. Send bound keys and characters in separate bursts; a bound key may
    follow characters (Enter after a name)."""
    for key in keys:
        pilot.app.post_message(key_event(key))
    await pilot.pause()


async def reach(pilot: Pilot[None], selector: str, *, limit: int = 60) -> Widget:
    """Move the focus to *selector* with Tab (or Shift+Tab, the shorter way), and check it
    is visible there. The Tabs go in one burst when the focus chain says how many; one by
    one when it does not, or when the burst did not land there."""
    app = pilot.app
    target = app.screen.query_one(selector)
    chain = app.screen.focus_chain
    key = "tab"
    if app.focused in chain and target in chain:
        here, there = chain.index(app.focused), chain.index(target)  # type: ignore[arg-type]
        forward, backward = (there - here) % len(chain), (here - there) % len(chain)
        if backward < forward:
            key = "shift+tab"
        steps = min(forward, backward)
        if steps:  # already there: no burst, no wait
            await type_keys(pilot, *[key] * steps)
    for _ in range(limit):
        if app.focused is target:
            break
        await pilot.press(key)
    assert app.focused is target, f"Tab never reached {selector}"
    await pilot.pause()
    assert is_visible(app, target), f"{selector} is focused but not visible"  # type: ignore[arg-type]
    return target


async def press(pilot: Pilot[None], selector: str) -> None:
    """Reach a button by Tab and press it with Enter."""
    await reach(pilot, selector)
    await pilot.press("enter")
    await pilot.pause()


async def type_into(pilot: Pilot[None], selector: str, text: str, *, enter: bool = False) -> None:
    """Reach a field by Tab, clear it and type *text* (then Enter)."""
    field: Any = await reach(pilot, selector)
    await type_keys(pilot, "end", *["backspace"] * len(field.value))
    await type_keys(pilot, *text, *["enter"] * enter)


async def choose(pilot: Pilot[None], selector: str, value: str) -> None:
    """Reach a choice by Tab, open it with Enter and move to *value* with the arrows."""
    select = await reach(pilot, selector)
    assert isinstance(select, Choice), selector
    await pilot.press("enter")
    await until(pilot, lambda: select.expanded, f"{selector} opened")
    downs = select.values.index(value) + (1 if select.allow_blank else 0)
    await type_keys(pilot, "home", *["down"] * downs, "enter")
    await until(pilot, lambda: not select.expanded, f"{selector} closed")
    assert select.value == value, f"{selector}: {select.value!r} is not {value!r}"


def note(app: TrainerApp, selector: str) -> str:
    """The text of a message on the screen."""
    return str(app.screen.query_one(selector).render())


ALLOWED = ("Andar Bahar", "Wizard of Odds")
"""English texts that are right in every language: the game's name (the app's title in
the header) and the published table's name (a proper name, the title of a web site)."""


@cache
def english_strings() -> tuple[str, ...]:
    """The English catalogue's texts, cut at their placeholders, with a word in each
    (:data:`ALLOWED` left out)."""
    allowed = set(ALLOWED)
    with POT.open("rb") as handle:
        catalog = read_po(handle)
    pieces: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        for text in ids:
            if re.fullmatch(r"[a-z-]+:.*", text):  # keys such as "rank:Q", not shown as such
                continue
            for piece in re.split(r"\{[^}]*\}", text):
                piece = piece.strip(" .,:;!?—–-()'\"«»…→◀▶⏸◆✓✗·|")
                if re.search(r"[A-Za-z]{2,}", piece) and piece not in allowed:
                    pieces.add(piece)
    return tuple(sorted(pieces, key=len, reverse=True))


@cache
def _english_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each of :func:`english_strings` as a whole word or phrase, compiled once (there are
    more of them than ``re``'s own cache keeps: compiled on every screen, they cost seconds)."""
    return tuple(
        (piece, re.compile(rf"(?<![A-Za-z]){re.escape(piece)}(?![A-Za-z])"))
        for piece in english_strings()
    )


def english_on_screen(text: str) -> list[str]:
    """The English catalogue's texts found on the screen, each as a whole word or phrase."""
    for name in ALLOWED:
        text = text.replace(name, " ")
    return [
        piece
        for piece, pattern in _english_patterns()
        if piece in text and pattern.search(text)  # the plain `in` first: far quicker
    ]


def lines(text: str) -> Iterator[str]:
    return (line.rstrip() for line in text.splitlines())


def fresh_database(folder: Path) -> str:
    """An empty, migrated history database in *folder* (copied from one made once)."""
    return migrated_sqlite(folder / "history.sqlite3")


def make_app(folder: Path, lang: str = "en", seed: int | None = SEED) -> TrainerApp:
    """The trainer on a fresh history in *folder*, seeded for reproducible decks (its log
    of faults in *folder* too)."""
    app = TrainerApp(
        lang=lang, db_url=fresh_database(folder), seed=seed, log_path=folder / "errors.log"
    )
    app.animation_level = "none"  # no smooth scrolling to wait for after each key
    return app
