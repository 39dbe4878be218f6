"""A dealt card's live message: the card alone, appended to the page's pile (web/live/piles.py).

While a round is dealt, a page whose felt stands earlier in the round is sent the cards it
lacks (``piles``) instead of the felt again; ``live.js`` appends them. These tests draw
every page's felt at every version of played rounds, apply the cards' messages one after
the other — and at once, as merged events bring them — as ``live.js`` does (the
benchmark's phone does the same to the HTML: ``web_load_people.append_cards``), and check
that the result is the felt drawn at the later version, byte for byte; then that the
sockets and the dealer's answer really carry the cards alone, and the whole felt when
the round ends.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from andar_bahar.club.service import TableService
from andar_bahar.storage import Storage
from andar_bahar.web.http.templating import make_environment
from andar_bahar.web.live.blocks import Snapshot
from andar_bahar.web.live.piles import PILES
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.renderer import TableRenderer
from test_web_live import Table, next_message
from test_web_live_keys import played_betting_table, played_lesson
from web_support import csrf, served

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SEED = 7
"""A seed example whose decks deal long rounds (the played tables' two dealt rounds run to
7 and 27 cards; the live table's first round past its fourth): every kind of message."""
GROUPS = [
    ("player", "player"),  # a phone (its felt is every phone's)
    ("player", "public"),
    ("dealer", "dealer"),
    ("display", "public"),  # the room's screen: its felt also counts the cards dealt
]


def append_cards() -> Callable[[str, dict[str, Any]], str | None]:
    """The benchmark phone's :func:`append_cards` (what live.js does, on the HTML)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    people = importlib.import_module("web_load_people")
    return people.append_cards  # type: ignore[no-any-return]


def played(kind: str) -> tuple[TableRenderer, list[Snapshot]]:
    service = TableService(Storage.open("sqlite://"))
    service.store.rng = random.Random(SEED)
    _, snapshots, _ = (played_betting_table if kind == "betting" else played_lesson)(service)
    return TableRenderer(service, make_environment()), snapshots


@pytest.mark.parametrize("kind", ["betting", "lesson"])
def test_cards_appended_as_live_js_does_give_the_felt_drawn_anew(kind: str) -> None:
    renderer, snapshots = played(kind)
    append = append_cards()
    appended = 0
    for lang in ("en", "ru", "ka"):
        for page, role in GROUPS:
            group = (page, role, lang)
            felts = [renderer.blocks(s, Viewer(*group), (PILES,))[PILES] for s in snapshots]
            piles = [renderer.pile(s, group)[1] for s in snapshots]
            for start, shown in enumerate(felts):
                for later in range(start + 1, len(snapshots)):
                    # the message from the version before (what each version's event sends) …
                    cards = renderer.cards_since(snapshots[later], group, piles[later - 1])
                    shown = felts[later] if cards is None else append(shown, cards)  # type: ignore[assignment]
                    assert shown == felts[later], (group, start, later)
                    # … and from the start at once (events merged into one render)
                    at_once = renderer.cards_since(snapshots[later], group, piles[start])
                    if at_once is not None:
                        assert append(felts[start], at_once) == felts[later], (group, start, later)
                        appended += 1
    assert appended > 0  # the seed's rounds are long enough for cards alone


def test_a_felt_not_where_the_cards_start_refuses_them_and_one_that_has_them_keeps_them() -> None:
    renderer, snapshots = played("betting")
    append, group = append_cards(), ("player", "player", "en")
    pairs = [
        (i, cards)
        for i in range(1, len(snapshots))
        if (cards := renderer.cards_since(snapshots[i], group, renderer.pile(snapshots[i - 1], group)[1]))
    ]  # fmt: skip
    later, cards = pairs[-1]
    felt = renderer.blocks(snapshots[later], Viewer(*group), (PILES,))[PILES]
    assert append(felt, cards) == felt  # it has the cards already (the answer came first)
    assert append(felt, {**cards, "round": cards["round"] + 1}) is None  # another round
    earlier = renderer.blocks(snapshots[later - 2], Viewer(*group), (PILES,))[PILES]
    assert append(earlier, cards) is None  # a card short of where they start


@pytest.fixture
def site(database_url: str) -> Iterator[TestClient]:
    with served(database_url) as client:
        yield client


def test_a_dealt_card_comes_alone_to_the_phones_and_in_the_dealers_answer(
    site: TestClient,
) -> None:
    site.app.state.service.store.rng = random.Random(SEED)  # type: ignore[attr-defined]
    table = Table(site)
    table.do("rounds")
    table.do("actions/deal")  # the centre card
    v = table.version()
    dealer = table.dealer
    headers = {"HX-Request": "true", "X-CSRF-Token": csrf(dealer)}
    with table.follow(table.phones["Asha"], "player", v) as phone:
        table.first_look_done()
        messages, answers, status = [], [], "open"
        while status == "open":
            answer = dealer.post(f"/dealer/{table.code}/round/deal", headers=headers).json()
            answers.append(answer)
            status = answer["data"]["status"]
            v += 1
            messages.append(next_message(phone, v))
    alone = [m for m in messages if "piles" in m]
    assert len(messages) >= 4 and alone, "the seed's round runs past its second card"
    for message in alone:  # the card alone: no felt, and the card's face in its row
        assert PILES not in message["blocks"]
        (cards,) = message["piles"].values()
        assert [c["html"] for c in cards["cards"]] and cards["round"] == message["data"]["round"]
        face = f'data-card="{message["data"]["card"]}"'
        assert face in cards["cards"][-1]["html"]
    # the first card after the page came (where its felt stands is not known yet), the first
    # two of the round and the one that ends it: the whole felt
    assert PILES in messages[0]["blocks"] and PILES in messages[-1]["blocks"]
    assert "piles" not in messages[-1]
    # the dealer's answer to a deal: the card alone too, from the number its felt shows
    piled = [a for a in answers if "piles" in a]
    assert piled and all(PILES not in a["blocks"] for a in piled)
    assert all(a["piles"][PILES]["from"] == a["data"]["dealt"] - 1 for a in piled)


def test_the_road_keeps_the_pieces_of_settled_rounds_only() -> None:
    """A round in play changes as it goes (its centre, its end, its settlement): its bead and
    row are drawn each time, never kept, so that a night's rounds leave behind no pieces
    but one per settled round (templates/_table.html; the pieces: web.http.templating)."""
    from andar_bahar.web.http.templating import drawn, forget_drawn
    from andar_bahar.web.live.blocks import LIVE_PAGES, ROAD

    renderer, snapshots = played("betting")
    forget_drawn()
    seen: set[str] = set()
    for lang in ("en", "ru", "ka"):
        for page, role in GROUPS:
            for snapshot in snapshots:
                names = tuple(ROAD.intersection(LIVE_PAGES[page].shared))
                seen.update(renderer.blocks(snapshot, Viewer(page, role, lang), names).values())
    kept = [key for lang in ("en", "ru", "ka") for key in drawn("road", lang)._pieces]
    entries = [key[1] if key[0] == "bead" else key[2] for key in kept]  # type: ignore[index]
    assert entries, "the played rounds are settled: their pieces are kept"
    assert {entry.status for entry in entries} == {"settled"}
    assert any("…" in html for html in seen)  # a round in play was drawn (and not kept)
    forget_drawn()
