"""Paytables (SPEC §7)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from andar_bahar.engine.bets import Bet, CardsBet
from andar_bahar.engine.errors import BetError, PaytableError
from andar_bahar.engine.paytables import (
    PAYTABLES,
    Band,
    CountPays,
    MainKey,
    Odds,
    Paytable,
    Rounding,
    check_bands,
    check_count_pays,
    check_paytable,
    find_paytable,
    load_paytable,
)
from andar_bahar.engine.rules import Row
from andar_bahar.i18n import translations


@pytest.mark.parametrize(
    ("text", "to_one"),
    [
        ("0.9 to 1", Fraction(9, 10)),
        ("0,9:1", Fraction(9, 10)),
        ("3.5 for 1", Fraction(5, 2)),  # SPEC §7: "3.5 for 1" = "2.5 to 1"
        ("120 for 1", Fraction(119)),
        ("19/20 to 1", Fraction(19, 20)),
        ("2,5 к 1", Fraction(5, 2)),
        ("4", Fraction(4)),
        ("3,5 за 1", Fraction(5, 2)),
        ("2,5-ზე 1", Fraction(5, 2)),
        ("1/3 to 1", Fraction(1, 3)),  # a fraction: its denominator is at most 1,000,000
        ("1/1000000 to 1", Fraction(1, 1000000)),
        ("0.000001 to 1", Fraction(1, 1000000)),  # six decimal places, the most
        ("0.50000000 to 1", Fraction(1, 2)),  # places by value: 0.5
        ("1000000 to 1", Fraction(1000000)),  # the longest pay
    ],
)
def test_odds_are_read_either_way_and_kept_exact(text: str, to_one: Fraction) -> None:
    assert Odds.parse(text).to_one == to_one


@pytest.mark.parametrize(
    ("value", "to_one"),
    [
        (3, Fraction(3)),
        (Decimal("0.95"), Fraction(19, 20)),
        (Decimal("0.000001"), Fraction(1, 10**6)),
    ],
)
def test_odds_from_toml_numbers_follow_the_same_rule(
    value: int | Decimal, to_one: Fraction
) -> None:
    assert Odds.parse(value).to_one == to_one


@pytest.mark.parametrize("text", ["", "abc", "0 to 1", "-1 to 1", "1 for 1", "0.5 for 1", "1/0"])
def test_bad_odds_are_refused(text: str) -> None:
    with pytest.raises(PaytableError):
        Odds.parse(text)


@pytest.mark.parametrize(
    "text",
    ["0.0078125 to 1", "1/1000001 to 1", "0.5/999999 to 1", "1000000.5 to 1", Decimal("0.0000005")],
)
def test_odds_beyond_the_rule_are_refused_by_the_rule_they_break(text: str | Decimal) -> None:
    # 0.0078125 = 1/128 has 7 decimal places; 0.5/999999 = 1/1999998 in lowest terms
    with pytest.raises(PaytableError) as refused:
        Odds.parse(text)
    assert str(refused.value) == (
        f"The odds '{text}' are out of range: at most 1000000 to 1, with at most 6 decimal"
        " places (a fraction: a denominator of at most 1000000 in lowest terms)."
    )


@pytest.mark.parametrize("text", ["٠.٩ to 1", "０.９ to 1", "3.५ for 1"])
def test_odds_in_other_digits_are_refused(text: str) -> None:
    with pytest.raises(PaytableError) as refused:
        Odds.parse(text)
    assert str(refused.value) == (
        f"The odds '{text}' must be written with the digits 0 to 9, such as 0.9 to 1 or 3.5 for 1."
    )


def test_presets_follow_the_spec() -> None:
    trainer = find_paytable("trainer-default")
    # SPEC §7: trainer-default 1–5: 3, 6–10: 4, 11–15: 5, 16–25: 4, 26–30: 15, 31–35: 25,
    # 36–40: 50, 41+: 120, all to 1; Andar 0.9 to 1, Bahar 1 to 1.
    assert [(b.bet.low, b.bet.high, b.odds.to_one) for b in trainer.bands] == [
        (1, 5, 3), (6, 10, 4), (11, 15, 5), (16, 25, 4),
        (26, 30, 15), (31, 35, 25), (36, 40, 50), (41, 49, 120),
    ]  # fmt: skip
    assert trainer.main == (Odds.parse("0.9 to 1"), Odds.parse("1 to 1"))
    wizard = find_paytable("wizard")
    # SPEC §7: wizard's bands are "for 1": 3.5, 4.5, 5.5, 4.5, 15, 25, 50, 120
    assert [b.odds.for_one for b in wizard.bands] == [
        Fraction(7, 2), Fraction(9, 2), Fraction(11, 2), Fraction(9, 2), 15, 25, 50, 120,
    ]  # fmt: skip
    assert find_paytable("even-money").main == (Odds.parse(1), Odds.parse(1))
    assert find_paytable("andar-0.95").main[0].to_one == Fraction(19, 20)


@pytest.mark.parametrize("name", list(PAYTABLES))
def test_every_preset_round_trips_through_toml(name: str) -> None:
    table = find_paytable(name)
    again = load_paytable(table.to_toml(), source=f"{name}.toml")
    assert again == table
    assert again.bands == table.bands


def test_first_row_keyed_paytable() -> None:
    # SPEC §7: "the row dealt first pays 0.9 to 1, the other 1 to 1"
    table = load_paytable(
        'name = "colour"\nkeyed_by = "first-row"\n[main]\nfirst = "1.9 for 1"\nsecond = "2 for 1"\n'
    )
    assert table.keyed_by is MainKey.FIRST_ROW
    assert table.main_odds(Row.BAHAR, first_row=Row.BAHAR).to_one == Fraction(9, 10)
    assert table.main_odds(Row.ANDAR, first_row=Row.BAHAR).to_one == 1


BAD_FILES = [
    # (what a new user might write, the sentence fragment that must name the entry)
    (
        '[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        "club.toml, name: the paytable needs a name",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n'
        '[[cards]]\nrange = "1-5"\npays = 3\n[[cards]]\nrange = "5-10"\npays = 4\n',
        "club.toml, cards[2]: the band 5–10 overlaps the band 1–5.",
    ),
    (
        'name = "x"\nmax_bet = 10\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        "club.toml, max_bet: unknown field 'max_bet'",
    ),
    (
        'name = "x"\n[main]\nandar = "0 to 1"\nbahar = "1 to 1"\n',
        "club.toml, main.andar: The odds '0 to 1' must be greater than zero.",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\n',
        "club.toml, main.bahar: the odds are missing.",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n'
        '[[cards]]\nrange = "45-60"\npays = 3\n',
        "club.toml, cards[1]: the range '45-60' is not a count of cards dealt between 1 and 49",
    ),
    (
        'name = "x"\nchip = "-1"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        "club.toml, chip: '-1' is not an amount greater than zero.",
    ),
    (
        'name = "x"\nrounding = "bankers"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        "club.toml, rounding: 'bankers' is not one of down, half-up, up.",
    ),
    ('name = "x\n', "club.toml is not valid TOML"),
    (
        'name = "x"\nchip = "٥"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n',
        "club.toml, chip: The amount '٥' must be written with the digits 0 to 9",
    ),
    (
        'name = "x"\n[main]\nandar = "٠.٩ to 1"\nbahar = "1 to 1"\n',
        "club.toml, main.andar: The odds '٠.٩ to 1' must be written with the digits 0 to 9",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n[limits]\nmin = "１０"\n',
        "club.toml, limits.min: The amount '１０' must be written with the digits 0 to 9",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n'
        '[[cards]]\nrange = "١-٥"\npays = 3\n',
        "club.toml, cards[1]: the range '١-٥' is not a count of cards dealt",
    ),
    (
        'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n# ' + "x" * 70_000 + "\n",
        "club.toml is too large for a club's file: at most 64 KiB.",
    ),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_FILES)
def test_bad_paytable_files_name_the_file_entry_and_problem(text: str, fragment: str) -> None:
    with pytest.raises(PaytableError) as caught:
        load_paytable(text, source="club.toml")
    assert fragment in str(caught.value)
    assert any(fragment in str(p) for p in check_paytable(text, source="club.toml"))


def test_check_lists_every_problem_at_once() -> None:
    text = 'name = "x"\ncolour = 1\n[main]\nandar = "abc"\nbahar = "1 to 1"\n'
    problems = [str(p) for p in check_paytable(text, source="club.toml")]
    assert len(problems) == 2
    assert "colour" in problems[0] and "main.andar" in problems[1]


def test_side_bets_must_be_on_the_table() -> None:
    with pytest.raises(BetError, match="has no bet cards:3-7"):
        find_paytable("wizard").check_offers(Bet.parse("cards:3-7"))
    assert find_paytable("wizard").offers(CardsBet(41, 49))


@given(
    stake=st.integers(1, 10**9),
    odds=st.sampled_from(["0.9 to 1", "0.95 to 1", "1 to 1", "3.5 for 1", "120 to 1"]),
)
def test_wins_are_exact_decimals_never_floats(stake: int, odds: str) -> None:
    table = Paytable(name="t", main=(Odds.parse(odds), Odds.parse(1)), chip=Decimal("0.01"))
    win = table.win(Decimal(stake), table.main[0])
    assert isinstance(win, Decimal)
    # with a chip of 0.01 every stake in whole units is paid exactly
    assert Fraction(win) == stake * Odds.parse(odds).to_one


@pytest.mark.parametrize(
    ("rounding", "expected"),
    [(Rounding.DOWN, "13"), (Rounding.HALF_UP, "14"), (Rounding.UP, "14")],
)
def test_rounding_to_the_chip_is_the_tables_rule(rounding: Rounding, expected: str) -> None:
    # 15 on Andar at 0.9 to 1 = 13.5 exactly; a chip of 1 cannot pay the half.
    table = Paytable(name="t", main=(Odds.parse("0.9 to 1"), Odds.parse(1)), rounding=rounding)
    assert table.win(Decimal(15), table.main[0]) == Decimal(expected)


@pytest.mark.parametrize(
    ("stake", "fragment"),
    [
        (Decimal(0), "must be greater than zero"),
        (Decimal(-5), "must be greater than zero"),
        (Decimal("2.5"), "not a whole number of chips of 1"),
        (Decimal(1), "below the table minimum of 5"),
        (Decimal(600), "above the table maximum of 500"),
    ],
)
def test_stakes_outside_the_rules_are_refused(stake: Decimal, fragment: str) -> None:
    table = Paytable(
        name="t", main=(Odds.parse(1), Odds.parse(1)), min_stake=Decimal(5), max_stake=Decimal(500)
    )
    with pytest.raises(BetError, match=fragment):
        table.check_stake(stake)


# -- issue 13: main pays that depend on the count of cards dealt --------------------------------

CLUB_WITH_COUNTS = """
name = "quarter-on-one"
[main]
andar = "0.9 to 1"
bahar = "1 to 1"

[[main.counts]]
cards = "1"
andar = "0.25 to 1"

[[main.counts]]
cards = "2-3"
bahar = "0.5 to 1"
andar = "1.5 for 1"
"""


def test_a_club_file_sets_main_pays_for_particular_counts() -> None:
    table = load_paytable(CLUB_WITH_COUNTS)
    andar = lambda k: table.main_odds(Row.ANDAR, first_row=Row.ANDAR, cards_dealt=k).to_one  # noqa: E731
    bahar = lambda k: table.main_odds(Row.BAHAR, first_row=Row.ANDAR, cards_dealt=k).to_one  # noqa: E731
    assert [andar(k) for k in (1, 2, 3, 4)] == [
        Fraction(1, 4),
        Fraction(1, 2),
        Fraction(1, 2),
        Fraction(9, 10),
    ]
    assert [bahar(k) for k in (1, 2, 3, 4)] == [1, Fraction(1, 2), Fraction(1, 2), 1]
    assert table.main_odds(Row.ANDAR, first_row=Row.ANDAR).to_one == Fraction(9, 10)
    assert load_paytable(table.to_toml()) == table  # written back as [[main.counts]]
    assert "[[main.counts]]" in table.to_toml()
    assert str(table.pays_text(Bet.parse("andar"))) == (
        "0.9 to 1; 0.25 to 1 if 1 card is dealt; 0.5 to 1 if 2–3 cards are dealt"
    )


def test_the_paytable_as_shown_lists_its_pays_by_count() -> None:
    # Review of issue 13: `paytable show` listed only the usual main pays, so a club could
    # not see from it that Andar pays 0.25 to 1 on one card.
    from andar_bahar.i18n import translations
    from andar_bahar.reports.report import render_paytable

    table = load_paytable(CLUB_WITH_COUNTS)
    shown = render_paytable(table).splitlines()
    assert any(line.startswith("Andar if 1 card is dealt      0.25 to 1") for line in shown)
    assert any(line.startswith("Bahar if 2–3 cards are dealt  0.5 to 1 ") for line in shown)
    russian = render_paytable(table, translations("ru"))
    assert "Андар, если сдана 1 карта" in russian and "Бахар, если сдано 2–3 карты" in russian


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ('[[main.counts]]\ncards = "1"\n', "give the pays of andar, bahar (one or both)"),
        ('[[main.counts]]\nandar = "1 to 1"\n', "main.counts[1]: the field 'cards' is missing"),
        ('[[main.counts]]\ncards = "60"\nandar = "1"\n', "is not a count of cards dealt"),
        ('[[main.counts]]\ncards = "1"\nfirst = "1"\n', "unknown field 'first'"),
        (
            '[[main.counts]]\ncards = "1-3"\nandar = "1"\n[[main.counts]]\ncards = "3"\nandar = "2"\n',
            "main.counts[2]: the band 3 overlaps the band 1–3",
        ),
        ('[main.counts]\ncards = "1"\n', "write each count's pays as a [[main.counts]] table"),
    ],
)
def test_bad_pays_by_count_name_the_entry(extra: str, fragment: str) -> None:
    text = 'name = "x"\n[main]\nandar = "0.9 to 1"\nbahar = "1 to 1"\n' + extra
    problems = [str(p) for p in check_paytable(text, source="club.toml")]
    assert any(fragment in p for p in problems), problems


@given(
    st.fractions(min_value=Fraction(1, 10**6), max_value=10**6, max_denominator=10**6).filter(
        lambda x: x > 0
    )
)
def test_odds_are_written_as_they_read_back(value: Fraction) -> None:
    # a property: every accepted pay is written so that reading it gives the same pay
    # (1/128 to 1 was written 0.0078125 to 1, which the 6-places rule refuses)
    odds = Odds.parse(f"{value.numerator}/{value.denominator} to 1")
    assert Odds.parse(str(odds)) == odds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("abc", "The odds 'abc' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."),
        (Decimal("NaN"), "The odds 'NaN' cannot be read: write them as '0.9 to 1' or '3.5 for 1'."),
        ("1/0 to 1", "The odds '1/0 to 1' divide by zero."),
        ("1 for 1", "The odds '1 for 1' pay nothing: \"X for 1\" must have X greater than 1."),
        ("0 to 1", "The odds '0 to 1' must be greater than zero."),
    ],
)
def test_refused_odds_say_why_in_one_sentence(text: str | Decimal, message: str) -> None:
    with pytest.raises(PaytableError) as refused:
        Odds.parse(text)
    assert str(refused.value) == message


def test_odds_are_read_up_to_40_characters() -> None:
    # Odds.parse reads at most 40 characters: the spaces around the odds count too.
    assert Odds.parse(" " * 32 + "0.9 to 1").to_one == Fraction(9, 10)
    with pytest.raises(PaytableError, match=r"^The odds ' {33}0\.9 to 1' cannot be read"):
        Odds.parse(" " * 33 + "0.9 to 1")


def test_a_toml_decimal_keeps_its_places_rule() -> None:
    # 0.0000001 has 7 decimal places, one more than the 6 allowed (a number read from TOML
    # follows the rule of one written in words); so has 0.0078125, although it is 1/128 in
    # lowest terms, within the fractions' denominator of 10⁶: the places refuse it.
    for number in ("0.0000001", "0.0078125"):
        with pytest.raises(PaytableError, match="out of range"):
            Odds.parse(Decimal(number))
    assert Odds.parse(Decimal("0.000001")).to_one == Fraction(1, 10**6)


def test_odds_keep_the_clubs_wording_and_print_exactly() -> None:
    assert Odds.parse("  3.5 for 1 ").written == "3.5 for 1"
    # Exact computation: 1/64 = 0.015625 (6 places, the most a pay may be written with:
    # printed as a decimal); 1/128 = 0.0078125 needs 7 and 1/3 has none: printed as fractions.
    assert [str(Odds.parse(f"1/{d} to 1")) for d in (64, 128, 3)] == [
        "0.015625 to 1",
        "1/128 to 1",
        "1/3 to 1",
    ]


def test_odds_and_rounding_rules_are_said_in_the_players_language() -> None:
    # The ru and ka catalogues write "X to 1" as "X:1", with a decimal comma.
    odds = Odds.parse("3.5 for 1")
    assert [odds.localized(translations(lang)) for lang in ("en", "ru", "ka")] == [
        "2.5 to 1",
        "2,5:1",
        "2,5:1",
    ]
    assert odds.localized(None) == "2.5 to 1"
    assert [rule.localized(translations("ru")) for rule in Rounding] == [
        "с округлением вниз до фишки",
        "с округлением до ближайшей фишки",
        "с округлением вверх до фишки",
    ]


def test_overlapping_bands_are_found_in_any_order_and_named_by_their_entry() -> None:
    bands = [Band(_cards(low, high), Odds.parse(2)) for low, high in ((41, 49), (1, 5), (3, 8))]
    assert [(entry, str(problem)) for entry, problem in check_bands(bands)] == [
        ("cards[3]", "the band 3–8 overlaps the band 1–5")
    ]


def test_pays_by_count_must_pay_something() -> None:
    pays = [CountPays.parse("1", (None, None)), CountPays.parse("2", (None, Odds.parse(1))),
            CountPays.parse("3", (None, None))]  # fmt: skip
    assert [(entry, str(problem)) for entry, problem in check_count_pays(pays)] == [
        ("main.counts[1]", "give the pays of at least one main bet"),
        ("main.counts[3]", "give the pays of at least one main bet"),
    ]


def _cards(low: int, high: int) -> CardsBet:
    bet = Bet.parse(f"cards:{low}-{high}")
    assert isinstance(bet, CardsBet)
    return bet
