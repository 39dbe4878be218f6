"""What the table pages draw (issue 11): chips from a table's chip and limits, the spots, the
dealer's next step through a whole round, card faces in every language, the favicon."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from andar_bahar.club.service import TableService
from andar_bahar.engine.cards import FULL_DECK, Card
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import PROCEDURES
from andar_bahar.i18n import translations
from andar_bahar.storage import Storage
from andar_bahar.web.app import create_app
from andar_bahar.web.pages.drawing import card_face, chip_values, next_step, spots


@given(
    chip=st.sampled_from(["0.5", "1", "5", "25"]),
    low=st.integers(0, 40),
    span=st.integers(0, 400),
)
def test_every_chip_is_a_stake_the_table_takes(chip: str, low: int, span: int) -> None:
    """A property: the first tap with any chip offered is within the limits, in whole chips."""
    unit = Decimal(chip)
    table = replace(
        find_paytable("wizard"),
        chip=unit,
        min_stake=unit * low if low else None,
        max_stake=unit * (low + span) if low + span else None,
    )
    values = chip_values(table)
    assert 1 <= len(values) <= 5 and values == sorted(set(values))
    for value in values:
        table.check_stake(value)  # raises if the table would refuse it


def test_the_spots_are_the_paytable_s_bets_with_the_player_s_own_stakes() -> None:
    wizard = find_paytable("wizard")
    wagers = (("Asha", "andar", Decimal(5)), ("Ravi", "andar", Decimal(50)))
    shown = spots(wizard, wagers, "Asha")
    assert [s.bet for s in shown] == [str(b) for b in wizard.bets]
    assert {s.bet: s.stake for s in shown if s.stake} == {"andar": Decimal(5)}
    assert [s.label for s in shown if not s.main][-1] == "41+"


def test_the_spots_kept_per_paytable_carry_no_one_s_stake() -> None:
    """The bare spots are worked out once per paytable: a stake shown for one player is
    never shown again for another, nor for the same player in a round without bets."""
    wizard = find_paytable("wizard")
    staked = spots(
        wizard, (("Asha", "cards:1-5", Decimal(7)), ("Asha", "cards:1-5", Decimal(3))), "Asha"
    )
    assert {s.bet: s.stake for s in staked if s.stake} == {"cards:1-5": Decimal(10)}
    for wagers, player in [((), "Asha"), ((("Asha", "andar", Decimal(1)),), "Ravi")]:
        assert not any(s.stake for s in spots(wizard, wagers, player))
    other = replace(wizard, chip=Decimal("0.5"))  # another paytable object: its own spots
    assert [s.bet for s in spots(other, (), "Asha")] == [s.bet for s in staked]


@pytest.mark.parametrize("name", sorted(PROCEDURES))
@pytest.mark.parametrize("physical", [False, True])
def test_the_next_step_plays_a_whole_round(name: str, physical: bool) -> None:
    """Pressing only the big button (with a card when a real deck needs one) opens, turns the
    centre card or chooses the rank, closes the bets, deals to the match and settles."""
    service = TableService(Storage.open("sqlite://"), rng=random.Random(3))
    table = service.create_table(
        name="t", kind="betting", procedure=PROCEDURES[name], paytable=find_paytable("wizard"),
        pin="246810",
    )  # fmt: skip
    code, token = table.code, table.dealer_token
    deck = iter(FULL_DECK[::-1])  # a real deck in a known order: A♣ K♣ … (never repeated)
    seen: list[str] = []
    for _ in range(60):
        rnd = service.state(code).round
        step = next_step(rnd)
        assert step is not None
        seen.append(step.action)
        card = (
            ""
            if not step.card
            else (next(deck).rank.value if step.card == "rank" else str(next(deck)))
        )
        if step.action == "open":
            if len(seen) > 1:
                break
            service.open_round(code, token, physical=physical)
        elif step.action in ("centre", "deal"):
            getattr(service, "turn_centre" if step.action == "centre" else "deal")(
                code, token, card or None
            )
        elif step.action == "target":
            service.choose_target(code, token, card)
        elif step.action == "close":
            service.close_bets(code, token)
        else:
            service.settle(code, token)
    assert seen[0] == "open" and seen[-1] == "open" and seen[-2] == "settle"
    assert "close" in seen and "deal" in seen
    assert ("centre" in seen) == PROCEDURES[name].has_centre
    service.storage.close()


def test_card_faces_say_their_card_in_the_page_s_language() -> None:
    queen = Card.parse("Q♠")
    assert [card_face(queen, translations(lang)).name for lang in ("en", "ru", "ka")] == [
        "queen of spades", "дама пик", "ყვავის ქალი",
    ]  # fmt: skip
    assert card_face(queen, translations("ru")).rank == "Д" and card_face(queen, None).code == "Q♠"
    assert card_face(Card.parse("10♦"), None).red and not card_face(queen, None).red


def test_the_favicon_is_an_svg(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = create_app(database_url=f"sqlite:///{tmp_path / 'c.sqlite3'}", secret=b"f" * 32)
    with TestClient(app) as client:
        icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg") and b"</svg>" in icon.content
    app.state.service.storage.close()
