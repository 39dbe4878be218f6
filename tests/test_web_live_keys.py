"""The keys of the live blocks (web/live/keys.py): equal keys draw equal HTML.

The renderer keeps each live block with its key and draws it again only when the key
changes; a key that leaves out something its block shows would leave a page stale. So
these tests play whole rounds — bets from several players, a bet timer, a real deck's
round called off, a lesson with markers and tokens — take the table at every version,
and check, for every block of every page kind, every viewer and two languages, that
any two versions with equal keys draw the same HTML (the one random part, the bet
form's fresh key, set aside). They also check that the keys do their job: a bet leaves
the felt's key alone, a dealt card the dealer's list of bets.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

import pytest

from andar_bahar.club.events import TableEvent
from andar_bahar.club.service import TableService
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage
from andar_bahar.web.http.templating import drawn, make_environment
from andar_bahar.web.live.blocks import LIVE_PAGES, Snapshot
from andar_bahar.web.live.keys import alike_group, key_of
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.renderer import TableRenderer
from andar_bahar.web.pages.drawing import ROAD_LENGTH

PIN = "246813"
FRESH_KEY = re.compile(r'name="key" value="[0-9a-f]+"')


def played_betting_table(service: TableService) -> tuple[str, list[Snapshot], dict[str, int]]:
    """A betting table's every version through three rounds (a timer, a voided real deck)."""
    table = service.create_table(
        name="Keys", kind="betting", pin=PIN,
        procedure=find_procedure("classic"), paytable=find_paytable("wizard"),
    )  # fmt: skip
    code, dealer = table.code, table.dealer_token
    tokens = {n: service.join(code, service.admit_player(code, dealer, n, "500")) for n in "AB"}
    snapshots: list[Snapshot] = []

    def take() -> None:
        snapshots.append(Snapshot(service.table_snapshot(code, ROAD_LENGTH)))

    take()
    for number in range(3):
        service.open_round(code, dealer, physical=number == 2)
        take()
        if number == 1:
            service.set_timer(code, dealer, 30)
            take()
        for key, (name, spot, stake) in enumerate(
            [
                ("A", "andar", "10"),
                ("B", "bahar", "5"),
                ("A", "andar", "5"),
                ("B", "cards:1-5", "1"),
            ]
        ):
            service.place_bet(code, tokens[name], spot, stake, key=f"{number}-{key}")
            take()
        if number == 2:  # a real deck: the centre card typed, then called off
            service.turn_centre(code, dealer, "7♣")
            take()
            service.void(code, dealer, "misdeal")
            take()
        else:
            while service.deal(code, dealer).status == "open":
                take()
            take()
        service.settle(code, dealer)
        take()
    ids = {p.name: p.id for p in players_of(service, code)}
    return code, snapshots, ids


def played_lesson(service: TableService) -> tuple[str, list[Snapshot], dict[str, int]]:
    """A lesson's every version: markers, tokens, standings at the end."""
    table = service.create_table(
        name="Lesson", kind="teaching", pin=PIN, rounds=2,
        procedure=find_procedure("home"), paytable=find_paytable("trainer-default"),
    )  # fmt: skip
    code, dealer = table.code, table.dealer_token
    tokens = {n: service.join(code, service.admit_player(code, dealer, n, "0")) for n in "AB"}
    snapshots = [Snapshot(service.table_snapshot(code, ROAD_LENGTH))]
    while not service.state(code).finished:
        steps = [
            lambda: service.open_round(code, dealer),
            lambda: service.turn_centre(code, dealer),
            lambda: service.place_marker(code, tokens["A"], "andar"),
            lambda: service.place_marker(code, tokens["B"], "bahar"),
        ]
        for step in steps:
            step()
            snapshots.append(Snapshot(service.table_snapshot(code, ROAD_LENGTH)))
        while service.deal(code, dealer).status == "open":
            snapshots.append(Snapshot(service.table_snapshot(code, ROAD_LENGTH)))
        service.settle(code, dealer)
        snapshots.append(Snapshot(service.table_snapshot(code, ROAD_LENGTH)))
    return code, snapshots, {p.name: p.id for p in players_of(service, code)}


def players_of(service: TableService, code: str):  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from andar_bahar.storage.models import ClubTableRow, TablePlayerRow

    with service.store.transactions.read() as session:
        return session.execute(
            select(TablePlayerRow.id, TablePlayerRow.name)
            .join(ClubTableRow, ClubTableRow.id == TablePlayerRow.table_id)
            .where(ClubTableRow.code == code)
        ).all()


def viewers(ids: dict[str, int], lang: str) -> list[Viewer]:
    found = [Viewer("dealer", "dealer", lang), Viewer("display", "public", lang)]
    found.append(Viewer("player", "public", lang))
    found += [Viewer("player", "player", lang, pid, name) for name, pid in ids.items()]
    return found


def check_keys(snapshots: list[Snapshot], ids: dict[str, int]) -> int:
    """Every block, for every viewer of a page kind, role and language (the renderer keeps
    blocks for all of them alike, and some for several page kinds: live.keys.alike_group):
    equal keys, equal HTML. The number of blocks compared."""
    renderer = TableRenderer(TableService(Storage.open("sqlite://")), make_environment())
    compared = 0
    drawn: dict[tuple[tuple[str, ...], str], list[tuple[object, set[str]]]] = defaultdict(list)
    for lang in ("en", "ru"):
        for viewer in viewers(ids, lang):
            page = LIVE_PAGES[viewer.page]
            names = page.private if viewer.player else page.shared
            for snapshot in snapshots:
                seen = snapshot.seen_by(viewer)
                mine = snapshot.table.player_rounds(viewer.player) if viewer.player else []
                html = renderer.blocks(snapshot, viewer, names)
                if snapshot is snapshots[-1]:  # a block drawn alone sees all it needs
                    alone = {n: renderer.blocks(snapshot, viewer, (n,))[n] for n in names}
                    assert {n: FRESH_KEY.sub("", t) for n, t in alone.items()} == {
                        n: FRESH_KEY.sub("", html[n]) for n in names
                    }
                for name in names:
                    key = key_of(viewer.page, name, seen, snapshot.recent, mine, viewer.player)
                    text = FRESH_KEY.sub('name="key" value=""', html[name])
                    kept = drawn[(alike_group(viewer.group, name), name)]
                    same = next((texts for k, texts in kept if k == key), None)
                    if same is None:  # keys are compared, not hashed (they hold dicts)
                        kept.append((key, {text}))
                    else:
                        same.add(text)
                    compared += 1
    stale = {k: [t for _, t in kept if len(t) > 1] for k, kept in drawn.items()}
    assert not any(stale.values()), stale
    return compared


def test_equal_keys_draw_equal_blocks_at_a_betting_table() -> None:
    service = TableService(Storage.open("sqlite://"), rng=random.Random(7))
    _, snapshots, ids = played_betting_table(service)
    assert len(snapshots) > 30
    assert check_keys(snapshots, ids) > 1000


def test_equal_keys_draw_equal_blocks_in_a_lesson() -> None:
    service = TableService(Storage.open("sqlite://"), rng=random.Random(8))
    _, snapshots, ids = played_lesson(service)
    assert check_keys(snapshots, ids) > 300


def own_blocks_changed_unannounced(
    snapshots: list[Snapshot], ids: dict[str, int], events: list[TableEvent]
) -> list[tuple[int, str, str]]:
    """Each change whose event says a player's own blocks did not change (``players`` a set
    without them) while one of them draws other HTML: (version, player, block). The live
    room draws a phone's own blocks only for the players its event names."""
    renderer = TableRenderer(TableService(Storage.open("sqlite://")), make_environment())
    names = LIVE_PAGES["player"].private
    at = {s.state.version: s for s in snapshots}
    wrong = []
    for made in events:
        before, after = at.get(made.version - 1), at.get(made.version)
        if before is None or after is None or made.players is None:
            continue
        for name, pid in ids.items():
            viewer = Viewer("player", "player", "en", pid, name)
            pages = [renderer.blocks(s, viewer, names) for s in (before, after)]
            for block in names:
                then, now = (FRESH_KEY.sub("", html[block]) for html in pages)
                if then != now and pid not in made.players:
                    wrong.append((made.version, name, block))
    return wrong


def test_every_change_names_the_players_whose_own_blocks_it_changed() -> None:
    # A dealt card names nobody (the first too: the bets closing shows on the felt, which
    # the spots follow), a bet its bettor; had a step left out a player whose spots, seat
    # or banner it changed, that phone would show them stale until its next full message.
    for play in (played_betting_table, played_lesson):
        service = TableService(Storage.open("sqlite://"), rng=random.Random(12))
        events: list[TableEvent] = []
        service.on_change(events.append)
        _, snapshots, ids = play(service)
        assert own_blocks_changed_unannounced(snapshots, ids, events) == []
        quiet = [e for e in events if e.kind == "deal" and e.players == frozenset()]
        assert len(quiet) > 5  # the deals, the first of each round included, named nobody


def asha_at_a_table(seed: int) -> tuple[TableService, str, str, str]:
    """A betting table (wizard's paytable) with Asha seated: the service, the table's code,
    the dealer's token and Asha's."""
    service = TableService(Storage.open("sqlite://"), rng=random.Random(seed))
    table = service.create_table(
        name="Keys", kind="betting", pin=PIN,
        procedure=find_procedure("classic"), paytable=find_paytable("wizard"),
    )  # fmt: skip
    code, dealer = table.code, table.dealer_token
    return (
        service,
        code,
        dealer,
        service.join(code, service.admit_player(code, dealer, "Asha", "500")),
    )


def test_a_bet_draws_only_the_bettors_blocks_and_the_dealers_list() -> None:
    service, code, dealer, asha = asha_at_a_table(9)
    service.join(code, service.admit_player(code, dealer, "Bela", "500"))
    service.open_round(code, dealer)
    before = Snapshot(service.table_snapshot(code, ROAD_LENGTH))
    service.place_bet(code, asha, "andar", "10", key="k")
    after = Snapshot(service.table_snapshot(code, ROAD_LENGTH))
    ids = {p.name: p.id for p in players_of(service, code)}
    phones = [v for v in viewers(ids, "en") if v.player]
    # As the round opens, every phone's spots are the same: drawn once for all of them.
    spots = [
        key_of("player", "bets", before.seen_by(v), before.recent, [], v.player) for v in phones
    ]
    assert spots[0] == spots[1]
    changed = set()
    for viewer in viewers(ids, "en"):
        page = LIVE_PAGES[viewer.page]
        for name in page.private if viewer.player else page.shared:
            keys = [
                key_of(viewer.page, name, s.seen_by(viewer), s.recent,
                       s.table.player_rounds(viewer.player) if viewer.player else [],
                       viewer.player)
                for s in (before, after)
            ]  # fmt: skip
            if keys[0] != keys[1]:
                changed.add((viewer.page, viewer.player, name))
    assert changed == {
        ("dealer", None, "bets"),
        ("player", "Asha", "me"),
        ("player", "Asha", "bets"),
    }


def test_a_bet_draws_the_bettors_row_of_the_dealers_list_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service, code, dealer, asha = asha_at_a_table(13)
    bela = service.join(code, service.admit_player(code, dealer, "Bela", "500"))
    service.open_round(code, dealer)
    service.place_bet(code, asha, "andar", "10", key="a1")
    service.place_bet(code, bela, "bahar", "5", key="b1")
    renderer = TableRenderer(service, make_environment())
    viewer = Viewer("dealer", "dealer", "ru")
    renderer.blocks(renderer.read(code), viewer, ("bets",))
    rows, made = drawn("dealer-bets", "ru"), []
    put = rows.put
    monkeypatch.setattr(rows, "put", lambda key, html: made.append(key) or put(key, html))
    service.place_bet(code, asha, "cards:1-5", "17", key="a2")  # a row no other test draws
    html = renderer.blocks(renderer.read(code), viewer, ("bets",))["bets"]
    assert len(made) == 1 and "Asha" in made[0]  # Asha's new row drawn, Bela's kept
    assert "Bela" in html and ">27</td>" in html  # both rows, Asha's total with the new bet


def asha_bets(seed: int, *, to_the_end: bool) -> tuple[TableService, str]:
    """A betting table where Asha bets 10 on Andar and the dealer deals one card (or to the
    end, and settles): the service and the table's code."""
    service, code, dealer, asha = asha_at_a_table(seed)
    service.open_round(code, dealer)
    service.place_bet(code, asha, "andar", "10", key="k")
    while service.deal(code, dealer).status == "open" and to_the_end:
        pass
    if to_the_end:
        service.settle(code, dealer)
    return service, code


def test_a_dealt_card_draws_the_felt_once_for_the_phones_and_the_dealer() -> None:
    service, code = asha_bets(10, to_the_end=False)
    renderer = TableRenderer(service, make_environment())
    drawn: list[tuple[str, ...]] = []
    blocks = renderer.blocks
    renderer.blocks = lambda s, v, names, **kw: drawn.append(names) or blocks(s, v, names, **kw)  # type: ignore[method-assign]
    snapshot = renderer.read(code)
    for group in (
        ("dealer", "dealer", "en"),
        ("player", "public", "en"),
        ("player", "player", "en"),
    ):
        renderer.shared(snapshot, group)
    # The dealer's felt (it sees the bets, and what they paid) is the phones' felt: one draw.
    assert sum(names.count("table") for names in drawn) == 1
    dealer_felt = renderer.shared(snapshot, ("dealer", "dealer", "en")).blocks["table"]
    assert renderer.shared(snapshot, ("player", "public", "en")).blocks["table"] is dealer_felt
    assert 'data-card="' in dealer_felt


def test_a_settled_rounds_row_is_drawn_once_per_language() -> None:
    from andar_bahar.web.http.templating import drawn

    service, code = asha_bets(11, to_the_end=True)
    renderer = TableRenderer(service, make_environment())
    snapshot = renderer.read(code)
    (played,) = snapshot.table.player_rounds("Asha")
    pid = next(p.id for p in players_of(service, code))
    mine = {
        lang: renderer.blocks(snapshot, Viewer("player", "player", lang, pid, "Asha"), ("mine",))
        for lang in ("en", "ru")
    }
    kept = {lang: drawn("mine-rows", lang).get(played) for lang in ("en", "ru")}
    # The row as drawn is kept, per language (Андар in Russian), and it is the block's.
    assert kept["en"] is not None and kept["ru"] is not None
    assert "Andar 10" in kept["en"] and "Андар 10" in kept["ru"]
    assert all(kept[lang] in mine[lang]["mine"] for lang in kept)


def test_blocks_drawn_alike_across_pages_have_one_text() -> None:
    """A block kept once for several page kinds (live.keys.ALIKE_ACROSS: the felt, for the
    phones and the dealer) must be the same template text on each: dealer-only content
    added to one copy would otherwise reach the phones (found by review)."""
    from pathlib import Path

    from andar_bahar.web.live.keys import ALIKE_ACROSS

    folder = Path(__file__).parents[1] / "src" / "andar_bahar" / "web" / "templates"
    texts: dict[str, set[str]] = defaultdict(set)
    for (page, block), common in ALIKE_ACROSS.items():
        source = (folder / f"{page}.html").read_text(encoding="utf-8")
        found = re.search(r"\{% block " + block + r" %\}(.*?)\{% endblock %\}", source, re.S)
        assert found is not None, f"{page}.html has no block {block}"
        texts[common].add(" ".join(found.group(1).split()))
    assert texts and all(len(text) == 1 for text in texts.values()), texts
