"""`andar-bahar paytable design`: pays on the club's step that keep every bet's house edge in
a range at every stake the table allows (each whole number of chips from its minimum to its
maximum, wins rounded by its rule), or the smallest minimum for which that holds; a refusal
(exit 3) when Andar or Bahar cannot be served.

The expected figures are worked out independently of the designer: at exact pays by the
closed form edge = 1 − p(1 + pay), p from the exact distribution (checked against
enumeration in tests/test_rounding.py); at a stake of n chips as P(lose) − Σ P × win / stake
with each win paid by ``Paytable.win``, stake by stake (tests/stake_support.py).
"""

from __future__ import annotations

import itertools
import json
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from andar_bahar.chance.design import (
    DEFAULT_BANDS,
    EdgeRange,
    OddsStyle,
    design_paytable,
    parse_bands,
)
from andar_bahar.chance.odds import outcome_distribution
from andar_bahar.cli import app
from andar_bahar.engine.bets import MainBet
from andar_bahar.engine.cards import Colour
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.paytables import (
    CountPays,
    MainKey,
    Odds,
    Paytable,
    Rounding,
    check_paytable,
    load_paytable,
)
from andar_bahar.engine.rules import PROCEDURES, BetWindow, Procedure, Row, find_procedure
from andar_bahar.reports.design_tables import design_toml, render_design
from stake_support import check_design, edges_by_stake

runner = CliRunner()
ONE_TO_FIVE = EdgeRange(Fraction(1, 100), Fraction(5, 100))
PRESETS = [
    pytest.param(p.overridden(window=w), id=f"{name}-{w.value}")
    for name, p in PROCEDURES.items()
    for w in BetWindow
]
P_ANDAR = Fraction(429, 833)
"""Classic: Andar wins 429/833 (tests/test_rounding.py enumerates it)."""


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"LANG": "C", "LANGUAGE": ""})
    return result.exit_code, result.stdout, result.stderr


def table(chip: int, rule: Rounding, low: int | None, high: int | None) -> Paytable:
    return Paytable(
        name="club", main=(Odds.parse(1), Odds.parse(1)), chip=Decimal(chip), rounding=rule,
        min_stake=None if low is None else Decimal(low),
        max_stake=None if high is None else Decimal(high),
    )  # fmt: skip


# -- the acceptance: every preset, both windows, chips, roundings and limits ---------------

GRID = [
    pytest.param(
        name, window, chip, rule, limits, id=f"{name}-{window.value}-{chip}-{rule}-{limits[1]}"
    )
    for name, window, chip, rule, limits in itertools.product(
        PROCEDURES, BetWindow, (1, 5, 25), Rounding, ((1, 500), (5, 1000), (25, 5000))
    )
]
EVERYDAY = [
    ("classic", BetWindow.AFTER_CENTRE, 1, Rounding.DOWN, (1, 500)),
    ("home", BetWindow.AFTER_CENTRE, 5, Rounding.UP, (5, 1000)),
    ("first-card", BetWindow.AFTER_CENTRE, 25, Rounding.HALF_UP, (25, 5000)),
    ("mangatha", BetWindow.BEFORE_CENTRE, 5, Rounding.HALF_UP, (1, 500)),
]


def _acceptance(
    name: str, window: BetWindow, chip: int, rule: Rounding, limits: tuple[int, int]
) -> None:
    procedure = find_procedure(name).overridden(window=window)
    design = design_paytable(procedure, edge=ONE_TO_FIVE, base=table(chip, rule, *limits))
    assert check_design(design) > 0  # each printed edge against the long way, every stake
    assert json.loads(json.dumps(design.to_dict()))["bets"] == [r.to_dict() for r in design.rows]


@pytest.mark.parametrize(("name", "window", "chip", "rule", "limits"), EVERYDAY)
def test_designed_edges_at_every_stake_equal_the_long_way(
    name: str, window: BetWindow, chip: int, rule: Rounding, limits: tuple[int, int]
) -> None:
    _acceptance(name, window, chip, rule, limits)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "window", "chip", "rule", "limits"), GRID)
def test_every_design_of_the_grid_at_every_stake(
    name: str, window: BetWindow, chip: int, rule: Rounding, limits: tuple[int, int]
) -> None:
    # 216 designs, about 2.1 million (bet, situation, stake) edges worked out the long way
    _acceptance(name, window, chip, rule, limits)


# -- what the issue found ------------------------------------------------------------------


def test_the_home_design_holds_at_its_minimum_and_not_below() -> None:
    # The old design said "minimum 2 so that rounding harms no stake", yet at a stake of 2
    # Andar with a black centre card (the row dealt first, 0.9 to 1, wins 429/833) is paid
    # 1 chip: edge 1 − 429/833 × (1 + 1/2) = 379/1666 = 22.75 %; at 5, 4 chips: 7.30 %.
    design = design_paytable(find_procedure("home"), edge=ONE_TO_FIVE)
    assert design.paytable.keyed_by is MainKey.FIRST_ROW
    assert [str(o) for o in design.paytable.main] == ["0.9 to 1", "1 to 1"]
    andar = MainBet(Row.ANDAR)
    edges = edges_by_stake(
        design.report.procedure, design.paytable, andar, Colour.BLACK, range(1, 14)
    )
    assert edges[2] == Fraction(379, 1666) and edges[5] == Fraction(304, 4165)
    # 12 chips: 10 paid, 1 − 429/833 × 22/12 = 5.58 %; 13 chips: 11 paid, 533/10829 = 4.92 %
    assert edges[12] == 1 - P_ANDAR * Fraction(22, 12) > ONE_TO_FIVE.high
    assert edges[13] == Fraction(533, 10829) in ONE_TO_FIVE
    assert design.paytable.min_stake == 13 and design.raised_min
    row = next(r for r in design.rows if r.bet == andar and r.given is Colour.BLACK)
    assert (row.highest, row.highest_at) == (Fraction(533, 10829), 13)
    check_design(design, top=400)
    text = render_design(design)
    assert text.splitlines()[0] == (
        "Designed by andar-bahar for the procedure home: every bet's house edge between"
        " 1.00 % and 5.00 % at every stake of 13 or more."
    )
    assert "The table minimum is 13: at smaller stakes rounding to the chip takes Andar" in text


@pytest.mark.parametrize("procedure", PRESETS)
def test_every_preset_and_window_gets_a_table_its_odds_confirm(procedure: Procedure) -> None:
    args = ["paytable", "design", "--procedure", procedure.name.split()[0], "--edge", "1%-5%"]
    args += ["--window", procedure.window.value, "--min", "5", "--max", "300"]
    code, toml, err = cli(*args, "--format", "toml")
    assert code == 0, err
    assert check_paytable(toml) == []
    code, out, err = cli(*args, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["refused"] is False and data["unreachable"] == []
    design = design_paytable(procedure, edge=ONE_TO_FIVE, base=table(1, Rounding.DOWN, 5, 300))
    assert load_paytable(toml) == design.paytable
    assert data["bets"] == [row.to_dict() for row in design.rows]
    assert data["stakes"]["min"] == str(design.paytable.min_stake)
    check_design(design)


# -- refusals ----------------------------------------------------------------------------


def test_a_coarse_step_is_refused_naming_each_main_bet() -> None:
    # First-card: Andar wins 1/2, 25/51 with a black centre, 26/51 with a red one. On the
    # 0.5 "for 1" step the pays next to the range are 1.5 for 1 (shown as 0.5 to 1:
    # 1 − ½ × 1.5 = 25 %, 1 − 25/51 × 1.5 = 26.47 %, 23.53 %) and 2 for 1 (1 to 1: 0 %,
    # 1.96 %, −1.96 %).
    args = ["paytable", "design", "--procedure", "first-card", "--step", "0.5"]
    args += ["--odds-style", "for"]
    code, out, _ = cli(*args)
    assert code == 3
    lines = out.splitlines()
    assert lines[0] == (
        "No table designed for the procedure first-card: no pay on the step keeps Andar and"
        " Bahar between 1.00 % and 5.00 % at every stake the table allows."
    )
    assert (
        "No pay on the step keeps Andar in the range; the closest: 0.5 to 1 (house edge"
        " 25.00 % any centre, 26.47 % centre black, 23.53 % centre red) or 1 to 1 (house"
        " edge 0.00 % any centre, 1.96 % centre black, -1.96 % centre red)."
    ) in lines
    assert sum(line.startswith("No pay on the step keeps Bahar") for line in lines) == 1
    code, toml, err = cli(*args, "--format", "toml")
    assert (code, toml) == (3, "") and err.startswith("No table designed")
    code, out, _ = cli(*args, "--format", "json")
    data = json.loads(out)
    assert code == 3 and data["refused"] is True
    assert [u["bet"] for u in data["unreachable"]][:2] == ["andar", "bahar"]
    assert [n["pays"] for n in data["unreachable"][0]["nearest"]][::3] == ["0.5 to 1", "1 to 1"]


def test_a_table_too_small_for_any_pay_is_refused_with_the_stakes_it_misses() -> None:
    # Stakes 1–3, rounded down: every pay under 1 to 1 pays 0, 1 or 2 chips, every pay of
    # 1 to 1 or more hands the player the edge (1 − 429/833 × 2 < 0). The nearest, 0.9 to 1:
    # 404/833 = 48.50 % at 1 chip, 1 − 429/833 × 5/3 = 354/2499 = 14.17 % at 3.
    code, out, _ = cli("paytable", "design", "--max", "3", "--bands", "41+")
    assert code == 3
    assert (
        "No pay on the step keeps Andar in the range at every stake the table allows; the"
        " nearest, 0.9 to 1, gives 14.17 % to 48.50 % and is out of the range at stakes of 1–3."
    ) in out.splitlines()
    assert 1 - P_ANDAR * Fraction(5, 3) == Fraction(354, 2499)
    design = design_paytable(
        find_procedure("classic"), edge=ONE_TO_FIVE, bands=parse_bands("41+"),
        base=table(1, Rounding.DOWN, None, 3),
    )  # fmt: skip
    assert design.refused and [str(u.bet) for u in design.unreachable] == ["andar"]
    check_design(design)  # the stakes it names are exactly those out of range


def test_a_band_no_pay_reaches_is_left_out_with_the_closest_pays() -> None:
    # Classic, 2 %–4 % on the 0.1 step: 16–25 cards wins 908/4165; 3.4 to 1 gives
    # 1 − 908/4165 × 4.4 = 4.08 %, 3.5 to 1 gives 1.90 %: no pay between on the step.
    p = outcome_distribution(find_procedure("classic")).probability_of_band(16, 25)
    assert p == Fraction(908, 4165)
    design = design_paytable(
        find_procedure("classic"), edge=EdgeRange.parse("2%-4%"), step=Fraction(1, 10)
    )
    assert not design.refused and [str(u.bet) for u in design.unreachable] == ["cards:16-25"]
    gap = design.unreachable[0]
    assert gap.below is not None and gap.above is not None
    assert gap.below.edges == ((None, 1 - p * Fraction(44, 10)),)
    assert gap.above.edges == ((None, 1 - p * Fraction(45, 10)),)
    text = render_design(design)
    assert (
        "No pay on the step keeps 16–25 cards dealt in the range; the closest: 3.4 to 1 (house"
        " edge 4.08 %) or 3.5 to 1 (house edge 1.90 %)."
    ) in text
    assert "The table leaves out 16–25 cards dealt." in text
    assert not design.paytable.offers(parse_bands("16-25")[0])
    check_design(design, top=200)


def test_a_base_keyed_by_the_first_row_is_refused_when_no_pair_fits() -> None:
    # With a base whose pays by count are keyed by the row dealt first (0.25 to 1 to the
    # first row on one card) and no pair on the 0.5 step in range, the table stays keyed so
    # (its own pays shown) and is refused.
    base = Paytable(
        name="club",
        main=(Odds.parse("0.9 to 1"), Odds.parse(1)),
        keyed_by=MainKey.FIRST_ROW,
        main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
    )
    narrow = EdgeRange(Fraction(2, 100), Fraction(22, 1000))
    design = design_paytable(
        find_procedure("home"), edge=narrow, base=base, step=Fraction(1, 2), bands=()
    )
    assert design.refused and design.paytable.keyed_by is MainKey.FIRST_ROW
    assert (design.paytable.main, design.paytable.main_by_count) == (base.main, base.main_by_count)
    assert [str(u.bet) for u in design.unreachable] == ["andar", "bahar"]
    text = render_design(design)
    assert "keyed by the row dealt first as the base table's pays by count are" in text
    assert "No single pay per row" not in text  # keyed so by the base, not for the colour
    # the edge shown is the table's: under the colour start the first row wins 429/833
    # (1/17 of rounds on the first card, paid 0.25), the other row 404/833
    first = Fraction(1, 17) * Fraction(5, 4) + (P_ANDAR - Fraction(1, 17)) * Fraction(19, 10)
    assert design.rows[0].house_edge == 1 - (first + Fraction(404, 833) * 2) / 2


# -- the minimum ---------------------------------------------------------------------------


def test_the_minimum_is_raised_only_as_far_as_needed_and_said_so() -> None:
    # Classic, chip 1, rounded down, 0.9 to 1 for Andar: 12 chips are paid 10 (5.58 %),
    # 13 chips 11 (4.92 %); the table's asked minimum of 5 is raised to 13, and said so.
    code, out, _ = cli("paytable", "design", "--min", "5", "--max", "500", "--bands", "41+")
    assert code == 0
    assert (
        "The table minimum is 13, not 5: at smaller stakes rounding to the chip takes Andar"
        " out of the range."
    ) in out.splitlines()
    assert 1 - P_ANDAR * Fraction(22, 12) > ONE_TO_FIVE.high >= 1 - P_ANDAR * Fraction(24, 13)
    # a club minimum that already serves every bet is kept, and nothing is claimed
    kept = design_paytable(
        find_procedure("classic"), edge=ONE_TO_FIVE, base=table(1, Rounding.DOWN, 20, None)
    )
    assert not kept.raised_min and kept.paytable.min_stake == 20
    assert "The table minimum is" not in render_design(kept)


def test_the_stakes_options_and_a_base_file(tmp_path: object) -> None:
    # --chip/--rounding/--min/--max take the place of the base's own, here wizard's
    code, out, _ = cli(
        "paytable", "design", "--base", "wizard", "--chip", "5", "--rounding", "up",
        "--min", "5", "--max", "1000", "--format", "json",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["stakes"]["chip"] == "5" and data["stakes"]["rounding"] == "up"
    assert data["stakes"]["max"] == "1000" and data["stakes"]["min_asked"] == "5"
    design = design_paytable(
        find_procedure("classic"), edge=ONE_TO_FIVE, base=table(5, Rounding.UP, 5, 1000)
    )
    assert data["paytable"]["main"] == design.paytable.to_dict(as_written=True)["main"]


# -- the old contracts, kept -----------------------------------------------------------------


def test_the_json_contract() -> None:
    code, out, _ = cli("paytable", "design", "--max", "500", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["procedure"]["name"] == "classic" and data["refused"] is False
    assert set(data["stakes"]) == {"chip", "rounding", "min", "max", "min_asked"}
    bahar = data["bets"][1]
    assert bahar == {
        "bet": "bahar", "pays": "1 to 1", "house_edge": "25/833", "given": None,
        "at_stakes": {"lowest": "25/833", "lowest_stake": "13", "highest": "25/833",
                      "highest_stake": "13"},
    }  # fmt: skip  # 1 to 1 pays whole chips: the exact edge at every stake
    andar = data["bets"][0]["at_stakes"]
    # Andar 0.9 to 1 from 13 chips: exact at multiples of 10 (2.15 %), at 13 chips 11 paid:
    # 1 − 429/833 × 24/13 = 533/10829 = 41/833 = 4.92 %
    assert andar == {
        "lowest": "179/8330", "lowest_stake": "20", "highest": "41/833", "highest_stake": "13"
    }  # fmt: skip


def test_odds_written_for_one() -> None:
    code, toml, _ = cli("paytable", "design", "--odds-style", "for", "--format", "toml")
    # 1–5 wins p = 1129/4165; edge 1 − p·f for a pay of f for 1: 1 %–5 % allows
    # f in [0.95/p, 0.99/p] = [3.505, 3.652], on the 0.05 step 3.55, 3.6, 3.65 with edges
    # 3.77 %, 2.42 %, 1.06 %: 3.6 is nearest the middle (3 %)
    assert code == 0
    assert 'range = "1-5"\npays = "3.6 for 1"' in toml
    table_ = load_paytable(toml)
    assert all(band.odds.written.endswith("for 1") for band in table_.bands)


def test_pays_by_count_in_the_base_table_are_kept_and_counted() -> None:
    # Andar paid 0.25 to 1 when the first card matches (1 card dealt): P = 3/51 = 1/17.
    base = Paytable(
        name="club",
        main=(Odds.parse(1), Odds.parse(1)),
        main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
        max_stake=Decimal(400),
    )
    design = design_paytable(find_procedure("classic"), edge=ONE_TO_FIVE, base=base)
    assert design.paytable.main_by_count == base.main_by_count
    x = design.paytable.main[0].to_one
    # closed form: Andar wins 429/833; 1/17 of rounds it is paid 0.25, otherwise x
    edge = 1 - (Fraction(1, 17) * Fraction(5, 4) + (P_ANDAR - Fraction(1, 17)) * (1 + x))
    assert edge in ONE_TO_FIVE and design.rows[0].house_edge == edge
    check_design(design)  # the 0.25 to 1 wins rounded too, at every stake


# -- bad input: one sentence --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("5%-1%", "lower edge first"),
        ("abc", "is not a range"),
        ("1%-150%", "under 100"),
        ("١%-٥%", "must be written with the digits 0 to 9"),
    ],
)
def test_bad_edge_ranges_are_one_sentence(text: str, fragment: str) -> None:
    with pytest.raises(ParameterError, match=fragment):
        EdgeRange.parse(text)
    code, _, err = cli("paytable", "design", "--edge", text)
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--bands", "1-5,4-9"), "overlap"),
        (("--bands", "1-5,x"), "The band 'x'"),
        (("--bands", "١-٥"), "The band '١-٥'"),
        (("--step", "0"), "--step must be"),
        (("--step", "٠.٥"), "--step must be"),
        (("--odds-style", "from"), "--odds-style cannot be 'from'"),
        (("--chip", "0"), "--chip must be an amount greater than zero"),
        (("--chip", "٥"), "must be written with the digits 0 to 9"),
        (("--min", "abc"), "is not a number"),
        (("--rounding", "sideways"), "--rounding cannot be 'sideways'"),
        (("--min", "50", "--max", "10"), "the minimum stake is above the maximum stake"),
        (("--chip", "5", "--min", "6", "--max", "9"), "The table allows no stake"),
    ],
)
def test_bad_design_options_are_one_sentence(args: tuple[str, ...], fragment: str) -> None:
    code, _, err = cli("paytable", "design", *args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


# -- a property: in range at every stake, or nothing on the step reaches -------------------


def _edges(procedure: Procedure, low: int, high: int, pay: Fraction) -> list[Fraction]:
    situations = [None]
    if procedure.has_centre and procedure.window is BetWindow.AFTER_CENTRE:
        situations += list(Colour)
    edges = []
    for colour in situations:
        p = outcome_distribution(procedure, centre=colour).probability_of_band(low, high)
        edges.append(1 - p * (1 + pay))
    return edges


@given(
    procedure=st.sampled_from(PRESETS).map(lambda p: p.values[0]),
    low=st.integers(0, 8),
    width=st.integers(0, 6),
    step=st.sampled_from(
        [Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(1)]
    ),
    style=st.sampled_from(list(OddsStyle)),
    rule=st.sampled_from(list(Rounding)),
    top=st.integers(3, 60),
)
@settings(max_examples=30, deadline=None)
def test_designed_edges_lie_in_range_at_every_stake_or_no_pay_on_the_step_fits(
    procedure: Procedure, low: int, width: int, step: Fraction, style: OddsStyle,
    rule: Rounding, top: int,
) -> None:  # fmt: skip
    edge = EdgeRange(Fraction(low, 100), Fraction(low + width, 100))
    base = table(1, rule, None, top)
    design = design_paytable(procedure, edge=edge, step=step, style=style, base=base)
    check_design(design)
    offset = 1 if style is OddsStyle.FOR else 0
    for gap in design.unreachable:
        if not str(gap.bet).startswith("cards:") or gap.missed is not None:
            continue
        bet = parse_bands(str(gap.bet).removeprefix("cards:"))[0]
        top_pay = gap.above.odds.to_one if gap.above else Fraction(10**6)
        bottom = gap.below.odds.to_one if gap.below else Fraction(0)
        # every pay on the step between the two nearest misses: none fits at exact pays
        k = math.floor((bottom + offset) / step) + 1
        while k * step - offset < top_pay:
            pay = k * step - offset
            assert not all(e in edge for e in _edges(procedure, bet.low, bet.high, pay))
            k += 1


def test_the_toml_file_says_what_the_headline_says() -> None:
    design = design_paytable(find_procedure("classic"), edge=ONE_TO_FIVE)
    toml = design_toml(design)
    assert toml.startswith("# Designed by andar-bahar for the procedure classic")
    assert "# The table minimum is 13:" in toml and load_paytable(toml) == design.paytable
    assert set(DEFAULT_BANDS.split(",")) == {
        b.label.replace("–", "-") for b in design.paytable.bands
    }
