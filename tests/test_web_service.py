"""The club table's service (issue 5): rounds, bets, ledger, access, fairness, recovery.

Every test runs on SQLite and, where ANDAR_BAHAR_TEST_POSTGRES_URL is set (as in
.ci/run), on PostgreSQL too.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from andar_bahar.club.limits import RequestConflict
from andar_bahar.club.service import CreatedTable, TableService, commitment_of
from andar_bahar.engine.cards import Card, shuffled
from andar_bahar.engine.errors import AccessError, ActionError, AndarBaharError, BetError, DeckError
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.round import Round
from andar_bahar.engine.rules import find_procedure
from andar_bahar.storage import Storage

SEED = 21


@pytest.fixture
def service(database_url):  # type: ignore[no-untyped-def]
    storage = Storage.open(database_url)
    yield TableService(storage, rng=random.Random(SEED))
    storage.close()


def betting_table(service: TableService) -> tuple[CreatedTable, str, str]:
    table = service.create_table(
        name="Friday", kind="betting", pin="246813",
        procedure=find_procedure("classic"), paytable=find_paytable("wizard"),
    )  # fmt: skip
    asha = service.admit_player(table.code, table.dealer_token, "Asha", "500")
    ravi = service.admit_player(table.code, table.dealer_token, "Ravi", "300")
    return table, service.join(table.code, asha), service.join(table.code, ravi)


def play_out(service: TableService, table: CreatedTable) -> None:
    while service.deal(table.code, table.dealer_token).status == "open":
        pass


def test_a_betting_round_settles_like_the_engine_and_the_ledger_sums_to_zero(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, ravi = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "andar", "120", key="a1")
    service.place_bet(table.code, asha, "cards:6-10", "100", key="a2")
    service.place_bet(table.code, ravi, "bahar", "50", key="r1")
    play_out(service, table)
    settled = service.settle(table.code, table.dealer_token)
    # The engine alone, on the same deck: the service's first shuffle with the seeded source.
    reference = Round(
        find_procedure("classic"), find_paytable("wizard"), deck=shuffled(random.Random(SEED)),
        balances={"Asha": Decimal(500), "Ravi": Decimal(300)},
    )  # fmt: skip
    for player, bet, stake in (
        ("Asha", "andar", "120"),
        ("Asha", "cards:6-10", "100"),
        ("Ravi", "bahar", "50"),
    ):
        reference.place_bet(player, bet, stake)
    reference.play()
    expected = {"Asha": Decimal(500), "Ravi": Decimal(300)}
    for bet in reference.settle().settlement.bets:  # type: ignore[union-attr]
        expected[bet.player] += bet.net
    state = service.state(table.code)
    assert {p.name: p.balance for p in state.players} == expected
    assert settled.result is not None and settled.result.dealt == reference.result.dealt
    assert service.round_ledger_sum(table.code, 1) == 0
    assert service.ledger_total(table.code) == 0


def test_a_repeated_bet_request_counts_once(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    first = service.place_bet(table.code, asha, "andar", "100", key="same")
    again = service.place_bet(table.code, asha, "andar", "100", key="same")
    assert first == again
    # The same key with another request is refused (409), never answered as the first was.
    with pytest.raises(RequestConflict, match="already used for a different bet"):
        service.place_bet(table.code, asha, "andar", "999", key="same")
    assert service.state(table.code).round.wagers == (("Asha", "andar", Decimal(100)),)  # type: ignore[union-attr]


def test_bets_close_at_the_first_card_and_nothing_changes(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "andar", "100", key="1")
    service.turn_centre(table.code, table.dealer_token)
    round_ = service.deal(table.code, table.dealer_token)
    if round_.status == "open":
        with pytest.raises(BetError, match="first card has been dealt"):
            service.place_bet(table.code, asha, "bahar", "100", key="2")
        with pytest.raises(BetError):
            service.withdraw_bet(table.code, asha, "andar", key="3")
    assert service.state(table.code).round.wagers == (("Asha", "andar", Decimal(100)),)  # type: ignore[union-attr]


def test_a_player_cannot_deal_settle_or_act_for_another(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, ravi = betting_table(service)
    for step in ("open_round", "turn_centre", "deal", "settle", "close_bets", "void"):
        with pytest.raises(AccessError, match="Only the dealer"):
            getattr(service, step)(table.code, asha)
    with pytest.raises(AccessError, match="Only the dealer"):
        service.admit_player(table.code, ravi, "Mallory", "1000000")
    with pytest.raises(AccessError, match="PIN is not right"):
        service.dealer_login(table.code, "000000")
    service.open_round(table.code, table.dealer_token)
    # A bet is always the token holder's own: Ravi's token bets for Ravi, never for Asha.
    placed = service.place_bet(table.code, ravi, "andar", "10", key="x")
    assert placed.player == "Ravi"
    with pytest.raises(AccessError, match="Join table"):
        service.place_bet(table.code, "forged-token", "andar", "10", key="y")
    with pytest.raises(AccessError, match="seat code 'Asha' is not right"):
        service.join(table.code, "Asha")  # a name alone never takes a seat


def test_no_undealt_card_is_visible_before_settlement(service) -> None:  # type: ignore[no-untyped-def]
    table, _, _ = betting_table(service)
    opened = service.open_round(table.code, table.dealer_token)
    assert opened.commitment is not None and len(opened.commitment) == 64
    public = service.state(table.code).round
    assert public is not None
    assert not hasattr(public, "deck")
    assert public.dealt == () and public.centre is None
    with pytest.raises(AccessError, match="once the round is settled"):
        service.reveal(table.code, 1)
    play_out(service, table)
    with pytest.raises(AccessError):
        service.reveal(table.code, 1)  # finished but not yet settled
    service.settle(table.code, table.dealer_token)
    reveal = service.reveal(table.code, 1)
    assert reveal.verified
    assert commitment_of(reveal.deck, reveal.salt) == opened.commitment
    cards = Card.parse_many(reveal.deck)
    assert len(cards) == 52
    dealt = [str(d.card) for d in service.state(table.code).round.dealt]  # type: ignore[union-attr]
    assert [str(c) for c in cards[1 : 1 + len(dealt)]] == dealt


def test_a_restarted_service_resumes_the_open_round(service, database_url) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "bahar", "40", key="b")
    service.turn_centre(table.code, table.dealer_token)
    before = service.state(table.code).round
    # A new service over the same database: what a restarted server is.
    storage = Storage.open(database_url)
    again = TableService(storage, rng=random.Random(999))
    after = again.state(table.code).round
    assert after == before
    play_out(again, table)
    again.settle(table.code, table.dealer_token)
    assert again.round_ledger_sum(table.code, 1) == 0
    storage.close()


def test_a_real_deck_round_refuses_repeats_and_voids(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)
    opened = service.open_round(table.code, table.dealer_token, physical=True)
    assert opened.physical and opened.commitment is None
    service.place_bet(table.code, asha, "andar", "100", key="1")
    service.turn_centre(table.code, table.dealer_token, "8D")
    service.deal(table.code, table.dealer_token, "2S")
    with pytest.raises(DeckError, match="already been turned"):
        service.deal(table.code, table.dealer_token, "2♠")
    service.void(table.code, table.dealer_token, "deck exhausted")
    service.settle(table.code, table.dealer_token)
    assert {p.name: p.balance for p in service.state(table.code).players}["Asha"] == 500
    assert service.round_ledger_sum(table.code, 1) == 0


def test_a_paytable_change_applies_from_the_next_round_and_is_audited(service) -> None:  # type: ignore[no-untyped-def]
    table, _, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    service.change_paytable(
        table.code, table.dealer_token, find_paytable("even-money"), "club night"
    )
    assert service.state(table.code).round.paytable.name == "wizard"  # type: ignore[union-attr]
    play_out(service, table)
    service.settle(table.code, table.dealer_token)
    assert service.open_round(table.code, table.dealer_token).paytable.name == "even-money"
    change = [
        row for row in service.audit_log(table.code, table.dealer_token) if row.action == "paytable"
    ]
    assert len(change) == 1
    assert 'name = "wizard"' in (change[0].old_value or "")
    assert 'name = "even-money"' in (change[0].new_value or "")
    assert change[0].reason == "club night" and change[0].actor == "dealer"
    with pytest.raises(AndarBaharError, match="reason"):
        service.change_paytable(table.code, table.dealer_token, find_paytable("wizard"), " ")


def test_a_teaching_table_scores_tokens_and_ends(service) -> None:  # type: ignore[no-untyped-def]
    table = service.create_table(
        name="Lesson", kind="teaching", pin="135791", rounds=2,
        procedure=find_procedure("home"), paytable=find_paytable("trainer-default"),
    )  # fmt: skip
    lali = service.join(
        table.code, service.admit_player(table.code, table.dealer_token, "Lali", "0")
    )
    giorgi = service.join(
        table.code, service.admit_player(table.code, table.dealer_token, "Giorgi", "0")
    )
    winners = []
    while not service.state(table.code).finished:
        service.open_round(table.code, table.dealer_token)
        service.turn_centre(table.code, table.dealer_token)
        service.place_marker(table.code, lali, "andar")
        service.place_marker(table.code, giorgi, "bahar")
        play_out(service, table)
        winners.append(service.settle(table.code, table.dealer_token).result.winner)  # type: ignore[union-attr]
    state = service.state(table.code)
    tokens = {p.name: p.tokens for p in state.players}
    assert tokens == {
        "Lali": sum(w is not None and w.value == "andar" for w in winners),
        "Giorgi": sum(w is not None and w.value == "bahar" for w in winners),
    }
    with pytest.raises(ActionError, match="lesson is over"):
        service.open_round(table.code, table.dealer_token)


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda s, t, a: s.place_bet(t.code, a, "andar", "abc", key="k"), "is not a number"),
        (lambda s, t, a: s.place_bet(t.code, a, "andar", "-5", key="k"), "greater than zero"),
        (lambda s, t, a: s.place_bet(t.code, a, "middle", "5", key="k"), "Unknown bet"),
        (lambda s, t, a: s.place_bet(t.code, a, "andar", "5000", key="k"), "too much"),
        (lambda s, t, a: s.place_bet(t.code, a, "andar", "5", key=""), "needs its own key"),
        (lambda s, t, a: s.deal(t.code, t.dealer_token, "Z♥"), "Unknown card"),
        (
            lambda s, t, a: s.admit_player(t.code, t.dealer_token, "Asha", "5"),
            "already at the table",
        ),
        (lambda s, t, a: s.admit_player(t.code, t.dealer_token, " ", "5"), "needs a name"),
        (lambda s, t, a: s.state("NOSUCH"), "no table with the code"),
    ],
)
def test_bad_input_is_one_sentence_and_changes_nothing(service, call, fragment) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    before = service.state(table.code)
    with pytest.raises(AndarBaharError) as caught:
        call(service, table, asha)
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)
    assert service.state(table.code) == before


def test_betting_a_spot_again_adds_to_its_stake_and_settles_as_one_bet(service) -> None:  # type: ignore[no-untyped-def]
    """Issue 13: 15 + 15 on Andar is one bet of 30 (wizard: 0.9 to 1, wins rounded down to 1).

    Expected values by hand: together 30 × 0.9 = 27; two bets of 15 would have paid
    13 + 13 = 26, so the test tells adding from two separate bets. A loss costs 30.
    """
    table, asha, _ = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    first = service.place_bet(table.code, asha, "andar", "15", key="a1")
    second = service.place_bet(table.code, asha, "ANDAR", "15", key="a2")
    assert (first.stake, second.stake) == (Decimal(15), Decimal(15))
    assert service.state(table.code).round.wagers == (("Asha", "andar", Decimal(30)),)  # type: ignore[union-attr]
    play_out(service, table)
    settled = service.settle(table.code, table.dealer_token)
    assert settled.result is not None and settled.settlement is not None
    (bet,) = settled.settlement.bets
    assert bet.stake == Decimal(30)
    andar_won = settled.result.winner is not None and settled.result.winner.value == "andar"
    expected = Decimal(500) + (Decimal(27) if andar_won else Decimal(-30))
    assert {p.name: p.balance for p in service.state(table.code).players}["Asha"] == expected
    assert service.round_ledger_sum(table.code, 1) == 0


def test_taking_back_the_last_chip_is_audited_and_posts_nothing(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, ravi = betting_table(service)
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "andar", "10", key="a1")
    service.place_bet(table.code, asha, "cards:1-5", "5", key="a2")
    service.place_bet(table.code, asha, "andar", "25", key="a3")
    service.place_bet(table.code, ravi, "bahar", "50", key="r1")  # another's last bet
    postings = len(service.statement_local(table.code).postings)
    taken = service.take_back_bet(table.code, asha, key="u1")
    assert (taken.bet, taken.stake, taken.total) == ("andar", Decimal(25), Decimal(10))
    assert service.take_back_bet(table.code, asha, key="u1") == taken  # the same key: once
    taken = service.take_back_bet(table.code, asha, key="u2")
    assert (taken.bet, taken.stake, taken.total) == ("cards:1-5", Decimal(5), Decimal(0))
    wagers = service.state(table.code).round.wagers  # type: ignore[union-attr]
    assert wagers == (("Asha", "andar", Decimal(10)), ("Ravi", "bahar", Decimal(50)))
    assert len(service.statement_local(table.code).postings) == postings  # no ledger entry
    audited = [
        (r.actor, r.old_value, r.new_value)
        for r in service.audit_local(table.code)
        if r.action == "take back"
    ]
    assert audited == [("Asha", "andar 35", "andar 10"), ("Asha", "cards:1-5 5", "cards:1-5 0")]
    service.close_bets(table.code, table.dealer_token)
    with pytest.raises(BetError, match="Bets are closed"):
        service.take_back_bet(table.code, asha, key="u3")
    assert service.state(table.code).round.wagers == wagers  # type: ignore[union-attr]


def test_double_and_repeat_place_every_bet_or_none(service) -> None:  # type: ignore[no-untyped-def]
    table, asha, _ = betting_table(service)  # Asha has 500
    service.open_round(table.code, table.dealer_token)
    service.place_bet(table.code, asha, "andar", "100", key="a1")
    service.place_bet(table.code, asha, "cards:6-10", "100", key="a2")
    doubled = service.double_bets(table.code, asha, key="d1")
    assert (doubled.bet, doubled.total) == ("cards:6-10", Decimal(200))
    before = service.state(table.code)
    # 400 at stake of 500: doubling again needs 400 more, only 100 are free
    with pytest.raises(BetError, match="Doubling needs 400 more chips and Asha has 100 available"):
        service.double_bets(table.code, asha, key="d2")
    # a repeat whose second bet passes the balance places neither
    with pytest.raises(BetError, match="too much"):
        service.place_bets(
            table.code, asha, (("bahar", Decimal(50)), ("cards:1-5", Decimal(60))), key="p1"
        )
    assert service.state(table.code) == before
