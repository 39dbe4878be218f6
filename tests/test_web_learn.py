"""The trainer's pages under a test client: starting and coming back with a code (guessed
codes limited like seat codes), answers checked and counted once, slips refused and not
counted, the dealer school timed and levelled, a real deck, the rules from a club's file,
the dealer's list of a school — and nothing of it touching a table's money.

The right answers come from the drill drawn again from the page's ticket (its seed), or for
the school from the engine's settlement of the bets the page shows (data-spot)."""

from __future__ import annotations

import base64
import html
import json
import random
import re
from collections.abc import Iterator
from decimal import Decimal

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from andar_bahar.club.learners import Ticket
from andar_bahar.club.limits import Limits
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Row
from andar_bahar.engine.settlement import settle
from andar_bahar.games.drills import DrillKind, make_drill
from andar_bahar.storage import Storage
from sqlite_template import migrated_sqlite
from web_support import csrf, served

PIN = "246813"
TICKET = re.compile(r'name="ticket" value="([^"]+)"')


@pytest.fixture
def site(tmp_path) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    url = migrated_sqlite(tmp_path / "club.sqlite3")
    with served(
        url, secret=b"l" * 32, limits=Limits(failures=3, free=3, learners_per_hour=4)
    ) as client:
        yield client


def _start(client: TestClient, name: str = "Tamar", **extra: str) -> str:
    """A new learner on *client*'s device: the code the page shows."""
    token = csrf(client, "/learn")
    page = client.post("/learn/start", data={"name": name, "csrf_token": token, **extra})
    assert page.status_code == 200, page.text
    found = re.search(r"data-learner-code>([A-Z0-9-]+)<", page.text)
    assert found is not None, page.text
    return found.group(1)


def _ticket(text: str) -> tuple[str, Ticket]:
    signed = TICKET.search(text)
    assert signed is not None
    value = html.unescape(signed.group(1)).rpartition(".")[0]
    ticket = Ticket.read(value)
    assert ticket is not None
    return html.unescape(signed.group(1)), ticket


def _right_answers(kind: str, ticket: Ticket) -> dict[str, str]:
    drill = make_drill(DrillKind(kind), random.Random(ticket.seed))
    return {f"answer-{q.key}": q.expected for q in drill.questions}


def _answer(client: TestClient, kind: str, answers: dict[str, str], signed: str) -> str:
    data = {"ticket": signed, "csrf_token": csrf(client, "/learn"), **answers}
    return client.post(f"/learn/drill/{kind}", data=data).text


def test_a_learner_starts_answers_and_comes_back_on_another_device(site: TestClient) -> None:
    code = _start(site)
    for kind in DrillKind:
        signed, ticket = _ticket(site.get(f"/learn/drill/{kind.value}").text)
        right = _right_answers(kind.value, ticket)
        page = _answer(site, kind.value, right, signed)
        assert 'data-result="right"' in page and 'class="explanation"' in page
        again = _answer(site, kind.value, right, signed)  # the same answer sent twice
        assert 'data-result="right"' in again and "only the first answers count" in again
    other = TestClient(site.app)
    assert "learn-start" in other.get("/learn").text
    back = other.post("/learn/resume", data={"code": code.lower().replace("-", " "),
                                            "csrf_token": csrf(other, "/learn")})  # fmt: skip
    assert back.status_code == 200 and code in back.text
    progress = other.get("/learn/progress").text
    assert progress.count('<tr data-line="') == len(DrillKind)  # one session, each kind once
    assert progress.count('<td class="amount">1</td><td class="amount">1</td>') == len(DrillKind)
    assert "<svg" in progress and 'class="point"' in progress


def test_wrong_codes_are_limited_like_seat_codes(site: TestClient) -> None:
    stranger = TestClient(site.app).get("/learn/drill/pay", follow_redirects=False)
    assert stranger.status_code == 303 and stranger.headers["location"] == "/learn"
    _start(site)
    guesser = TestClient(site.app)
    token = csrf(guesser, "/learn")
    answers = [guesser.post("/learn/resume", data={"code": c, "csrf_token": token})
               for c in ("ABC-DEF", "QQQ-QQQ", "x", "ABC-DEG")]  # fmt: skip
    assert [a.status_code for a in answers] == [403, 403, 403, 429]
    assert "The learner code 'ABC-DEF' is not right" in html.unescape(answers[0].text)
    assert "Too many wrong learner codes: try again in" in answers[3].text
    assert int(answers[3].headers["Retry-After"]) >= 1
    many = [site.post("/learn/start", data={"name": f"L{i}", "csrf_token": csrf(site, "/learn")})
            for i in range(4)]  # fmt: skip
    assert [m.status_code for m in many] == [200, 200, 200, 429]  # 4 an hour, one made above


def test_a_slip_is_refused_with_a_sentence_and_counts_nothing(site: TestClient) -> None:
    _start(site)
    signed, ticket = _ticket(site.get("/learn/drill/layout").text)
    right = _right_answers("layout", ticket)
    for slip, sentence in (
        ("many", "Answer 2: &#39;many&#39; is not a number"),
        ("99", "Answer 2: 99 is out of range: write a number from 1 to"),
        ("3.5", "Answer 2: 3.5 is not a whole number"),
        ("", "Answer 2: it is blank"),
    ):
        refused = site.post("/learn/drill/layout", data={
            **right, "answer-cards": slip, "ticket": signed, "csrf_token": csrf(site, "/learn")})  # fmt: skip
        assert refused.status_code == 400 and sentence in refused.text
        assert f'value="{html.escape(slip)}"' in refused.text  # what was typed is kept
        assert "data-result" not in refused.text
    fragment = site.post("/learn/drill/layout", headers={"HX-Request": "true"}, data={
        **right, "answer-cards": "many", "ticket": signed, "csrf_token": csrf(site, "/learn")})  # fmt: skip
    assert (
        fragment.status_code == 200
        and "<html" not in fragment.text
        and "data-refused" in fragment.text
    )
    assert "data-no-progress" in site.get("/learn/progress").text
    forged = signed[:-3] + ("AAA" if not signed.endswith("AAA") else "BBB")
    stale = _answer(site, "layout", right, forged)
    assert "here is a new one" in html.unescape(stale) and "data-result" not in stale


def test_the_school_times_each_payout_and_opens_the_next_level(site: TestClient) -> None:
    _start(site)
    page = site.get("/learn/school").text
    assert 'data-level="1"' in page
    signed, ticket = _ticket(page)
    answers, wins = _school_answers(page, ticket)
    token = csrf(site, "/learn")
    slipped = {**answers, "answer-bet1": "0" if wins[0] else "1"}  # one payout wrong
    failed = site.post("/learn/school", data={**slipped, "ticket": signed, "csrf_token": token})
    assert f'data-right="{len(wins) - 1}" data-payouts="{len(wins)}"' in failed.text
    # the same table again, the explanation seen: shown, not counted, no level opened
    again = site.post("/learn/school", data={**answers, "ticket": signed, "csrf_token": token})
    assert "only the first answers count" in again.text and "data-passed" not in again.text
    assert site.get("/learn/school?level=2").status_code == 400
    page = site.get("/learn/school").text
    signed, ticket = _ticket(page)
    answers, wins = _school_answers(page, ticket)
    paid = site.post("/learn/school", data={**answers, "ticket": signed, "csrf_token": token}).text
    assert f'data-right="{len(wins)}" data-payouts="{len(wins)}"' in paid
    assert "data-passed" in paid and "level 2 is open" in paid
    assert site.get("/learn/school?level=2").status_code == 200
    refused = site.get("/learn/school?level=4")
    assert refused.status_code == 400 and "Level 4 is not open to you yet" in refused.text


def _school_answers(page: str, ticket: Ticket) -> tuple[dict[str, str], list[Decimal]]:
    """Every spot's win, settled by the engine from what the page shows: the winner, the
    count, the row dealt first, each spot's bet and stake, the paytable of the ticket's seed."""
    from andar_bahar.games.drills import pick_rules

    _, paytable = pick_rules(random.Random(ticket.seed), None, None, staked=True)
    verdict = re.search(
        r'data-winner="(\w+)" data-cards-dealt="(\d+)" data-first-row="(\w*)"', page
    )
    assert verdict is not None
    spots = re.findall(
        r'data-spot="(bet\d+)" data-player="([^"]+)" data-bet="([^"]+)" data-stake="([^"]+)"', page
    )
    settled = settle(
        winner=Row(verdict.group(1)),
        cards_dealt=int(verdict.group(2)),
        first_row=Row(verdict.group(3)) if verdict.group(3) else None,
        paytable=paytable,
        wagers=[Wager(p, Bet.parse(b), Decimal(s)) for _, p, b, s in spots],
    )
    wins = [bet.win for bet in settled.bets]
    return {f"answer-{key}": str(win) for (key, *_), win in zip(spots, wins, strict=True)}, wins


def test_a_real_deck_is_checked_card_by_card(site: TestClient) -> None:
    _start(site)
    token = csrf(site, "/learn")
    rules = site.post("/learn/rules", data={"procedure": "classic", "paytable": "wizard",
                                            "csrf_token": token})  # fmt: skip
    assert "procedure classic" in rules.text
    page = site.get("/learn/deal").text

    def step(page: str, **fields: str) -> str:
        signed, _ = _ticket(page)
        return site.post("/learn/deal", data={"ticket": signed, "csrf_token": token, **fields}).text

    page = step(page, action="begin", card="7c")
    page = step(page, action="card", card="2d", row="andar")
    assert 'data-call="right"' in page
    refused = step(page, action="card", card="2♦", row="bahar")
    assert "already been turned" in refused and "data-call" not in refused
    page = step(page, action="card", rank="K", suit="♠", row="andar")  # picked, and wrong
    assert 'data-call="wrong"' in page and "after Andar comes Bahar" in page
    page = step(page, action="card", card="7d", row="andar")
    page = step(page, action="winner", row="andar")
    assert 'data-right="3" data-calls="4"' in page


def test_the_rules_come_from_a_club_file_checked_in_one_sentence(site: TestClient) -> None:
    _start(site)
    token = csrf(site, "/learn")
    toml = find_paytable("wizard").to_toml().replace('name = "wizard"', 'name = "Club Friday"')
    files = {"upload": ("friday.toml", toml.encode(), "text/plain")}
    chosen = site.post("/learn/rules", data={"procedure": "home", "csrf_token": token}, files=files)
    assert (
        chosen.status_code == 200 and "Club Friday" in chosen.text and "friday.toml" in chosen.text
    )
    bad = {"upload": ("bad.toml", b"[main]\nandar = 'lots'\n", "text/plain")}
    refused = site.post("/learn/rules", data={"csrf_token": token}, files=bad)
    assert refused.status_code == 400 and "bad.toml" in refused.text
    big = {"upload": ("big.toml", b"#" * (64 * 1024 + 1), "text/plain")}
    too_big = site.post("/learn/rules", data={"csrf_token": token}, files=big)
    assert too_big.status_code == 413 and "too large" in too_big.text  # the site's body limit
    assert "Club Friday" in site.get("/learn").text  # the refusals changed nothing


def test_a_tables_dealer_sees_its_school_and_no_learner_touches_its_money(
    database_url: str,
) -> None:
    with served(database_url, secret=b"m" * 32) as site:
        made = site.post("/api/tables", json={"name": "School", "pin": PIN}).json()
        code, dealer = made["code"], {"Authorization": f"Bearer {made['dealer_token']}"}
        site.post(f"/api/tables/{code}/players", json={"name": "Asha", "balance": "100"},
                  headers=dealer)  # fmt: skip
        storage: Storage = site.app.state.service.storage
        before = _money(storage)
        learner = TestClient(site.app)
        _start(learner, "Nino", school=code.lower())
        signed, ticket = _ticket(learner.get("/learn/drill/pay").text)
        _answer(learner, "pay", _right_answers("pay", ticket), signed)
        page = learner.get("/learn/school").text
        signed, ticket = _ticket(page)
        learner.post("/learn/school", data={**_school_answers(page, ticket)[0], "ticket": signed,
                                            "csrf_token": csrf(learner, "/learn")})  # fmt: skip
        assert _money(storage) == before  # no ledger row, no round, no audit, same version
        assert learner.get(f"/dealer/{code}/learners").status_code == 403
        desk = TestClient(site.app)
        desk.post(f"/dealer/{code}/login", data={"pin": PIN, "csrf_token": csrf(desk)})
        listed = desk.get(f"/dealer/{code}/learners").text
        assert 'data-learner="Nino" data-level="2"' in listed
        assert 'data-kind="pay"' in listed and 'data-kind="school"' in listed
        other = site.post("/api/tables", json={"name": "Other", "pin": PIN}).json()["code"]
        desk.post(f"/dealer/{other}/login", data={"pin": PIN, "csrf_token": csrf(desk)})
        assert "data-no-learners" in desk.get(f"/dealer/{other}/learners").text
        learner_id = re.search(r'name="learner" value="(\d+)"', listed)
        assert learner_id is not None
        desk.post(f"/dealer/{code}/learners/remove",
                  data={"learner": learner_id.group(1), "csrf_token": csrf(desk)})  # fmt: skip
        assert "data-no-learners" in desk.get(f"/dealer/{code}/learners").text


def _money(storage: Storage) -> tuple[object, ...]:
    with storage.engine.connect() as conn:
        return tuple(
            conn.execute(sa.text(query)).scalar_one()
            for query in (
                "SELECT count(*) FROM ledger",
                "SELECT count(*) FROM table_rounds",
                "SELECT count(*) FROM audit_log",
                "SELECT sum(version) FROM club_tables",
            )
        )


def test_the_tickets_are_signed_values_nobody_can_change() -> None:
    ticket = Ticket("pay", 5, "r", 1, 2)
    text = ticket.text()
    decoded = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    assert decoded["seed"] == 5 and Ticket.read(text) == ticket


@pytest.mark.parametrize("lang", ["ru", "ka"])
def test_the_trainers_pages_speak_russian_and_georgian(site: TestClient, lang: str) -> None:
    """No sentence of the English catalogue on a trainer's page, as the table pages
    (tests/test_web_languages.py): every page, a drill before and after its answers."""
    from test_web_languages import english_in, sentences, text_of

    shown = {"start": site.get(f"/learn?lang={lang}").text}
    _start(site)
    made = site.post("/api/tables", json={"name": "Tbilisi", "pin": PIN}).json()
    site.post("/learn/schools", data={"table": made["code"], "csrf_token": csrf(site, "/learn")})
    shown["home"] = site.get(f"/learn?lang={lang}").text
    for kind in DrillKind:
        page = site.get(f"/learn/drill/{kind.value}?lang={lang}").text
        signed, ticket = _ticket(page)
        shown[kind.value] = page
        answers = dict.fromkeys(_right_answers(kind.value, ticket), "0")
        shown[f"{kind.value}, refused"] = site.post(
            f"/learn/drill/{kind.value}?lang={lang}",
            data={**answers, "ticket": signed, "csrf_token": csrf(site, "/learn")},
        ).text
        shown[f"{kind.value}, checked"] = site.post(
            f"/learn/drill/{kind.value}?lang={lang}",
            data={**_right_answers(kind.value, ticket), "ticket": signed,
                  "csrf_token": csrf(site, "/learn")},
        ).text  # fmt: skip
    school = site.get(f"/learn/school?lang={lang}").text
    signed, ticket = _ticket(school)
    shown["school"] = school
    shown["school, paid"] = site.post(f"/learn/school?lang={lang}", data={
        **_school_answers(school, ticket)[0], "ticket": signed, "csrf_token": csrf(site, "/learn")},
    ).text  # fmt: skip
    deal = site.get(f"/learn/deal?lang={lang}").text
    shown["deal"] = deal
    shown["progress"] = site.get(f"/learn/progress?lang={lang}").text
    catalogue, pending = sentences(lang), sentences(lang, translated=False)
    names = [*pending, "Wizard of Odds"]  # the published table's own name, as its source writes it
    words = " | ".join(re.sub(r"https?://\S+", " ", text_of(page)) for page in shown.values())
    assert english_in(words, catalogue, names) == []  # every page at once: one search


def test_the_learners_menus_are_told_apart_by_their_headings(site: TestClient) -> None:
    """A screen reader lists a page's landmarks by name: each menu of the learner's page is
    named by its section's heading, and no two alike (axe-core's rule landmark-unique)."""
    _start(site)
    page = site.get("/learn").text
    menus = re.findall(r'<nav class="learn-menu"[^>]*>', page)
    named = [re.search(r'aria-labelledby="([^"]+)"', nav) for nav in menus]
    assert len(menus) == 2 and all(named), menus  # the drills, the dealer school
    ids = [found.group(1) for found in named if found is not None]
    assert len(set(ids)) == len(ids)
    for heading in ids:
        assert re.search(rf'<h2 id="{heading}">[^<]+</h2>', page), heading
