"""Monte Carlo simulation and session studies (SPEC §9; issue 3's acceptance list).

The simulator is checked against the exact odds, never against its own output:
per bet by the z-score (simulated − exact)/SE, recomputed here from the outcome
counts; the distribution of cards dealt by a chi-square goodness-of-fit whose
critical value is computed here from the chi-square law's closed forms. Seeds are
fixed, so each statistical check is deterministic; its bound (4 standard errors,
or the 99.99th percentile) is what a correct simulator passes in all but about
1 run in 10,000 whatever the seed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from andar_bahar.chance import dealing_kernels, simulation
from andar_bahar.chance.odds import odds_report, outcome_distribution
from andar_bahar.chance.simulation import BLOCK, Engine, System, session_study, simulate, statistics
from andar_bahar.engine.bets import Bet, CardsBet, MainBet
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.paytables import (
    PAYTABLES,
    Band,
    CountPays,
    MainKey,
    Odds,
    Paytable,
    Rounding,
    find_paytable,
)
from andar_bahar.engine.rules import (
    PROCEDURES,
    Procedure,
    Row,
    StartRule,
    TargetMode,
    find_procedure,
)

A, B = Row.ANDAR, Row.BAHAR
CLASSIC = find_procedure("classic")
WIZARD = find_paytable("wizard")
MILLION = 1_000_000
Z_BOUND = 4  # |z| > 4 has probability 6.3e-5 for a normal variate
SEEDS = {
    "classic": 20_240_301,
    "home": 20_240_302,
    "first-card": 20_240_303,
    "mangatha": 20_240_304,
}


# -- independent references ----------------------------------------------------------


def decode(code: int) -> tuple[Row, Row, int]:
    """The outcome code of dealing_kernels' docstring: first_row·100 + winner·50 + k,
    rows 0 = Andar, 1 = Bahar."""
    rows = (A, B)
    return rows[code // 100], rows[(code // 50) % 2], code % 50


def exact_cards_dealt(procedure: Procedure) -> dict[int, Fraction]:
    """P(cards dealt = k): the first of m matches among n cards is at k with probability
    C(n − k, m − 1)/C(n, m); n, m = 51, 3 with a centre card and 52, 4 without (SPEC §5)."""
    n, m = (51, 3) if procedure.target is TargetMode.CENTRE_CARD else (52, 4)
    return {k: Fraction(comb(n - k, m - 1), comb(n, m)) for k in range(1, n - m + 2)}


def exact_andar(procedure: Procedure) -> Fraction:
    """P(Andar): with the andar start the odd positions (429/833 for the centre-card game);
    the colour rules are even by the black/red symmetry of the deck (test_odds.py)."""
    if procedure.start is not StartRule.ANDAR:
        return Fraction(1, 2)
    return sum((p for k, p in exact_cards_dealt(procedure).items() if k % 2), Fraction(0))


def exact_first_andar(procedure: Procedure) -> Fraction:
    """P(Andar gets the first card): 1 under the andar start; 1/2 under either colour rule
    (a centre card, or the first dealt card, is black with probability 26/52 resp. 1/2)."""
    return Fraction(1) if procedure.start is StartRule.ANDAR else Fraction(1, 2)


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df > x) from the closed forms of the chi-square law:
    even df = 2n: e^(−x/2) Σ_{i<n} (x/2)^i / i!;
    odd df = 2n + 1: erfc(√(x/2)) + e^(−x/2) Σ_{i<n} (x/2)^(i + ½) / Γ(i + 3/2)."""
    half = x / 2
    if df % 2 == 0:
        return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))
    tail = sum(half ** (i + 0.5) / math.gamma(i + 1.5) for i in range(df // 2))
    return math.erfc(math.sqrt(half)) + math.exp(-half) * tail


def chi2_quantile(level: float, df: int) -> float:
    """The x with P(χ²_df ≤ x) = level, by bisection on chi2_sf."""
    low, high = 0.0, 10.0 * df + 100.0
    for _ in range(200):
        middle = (low + high) / 2
        if chi2_sf(middle, df) > 1 - level:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def chi_square(observed: dict[object, int], expected: dict[object, Fraction]) -> tuple[float, int]:
    """Pearson's statistic and degrees of freedom, pooling neighbouring cells (in the order
    of *expected*) until each pooled cell expects at least 5 (the usual rule of thumb)."""
    rounds = sum(observed.values())
    assert set(observed) <= set(expected), "a simulated outcome that cannot happen"
    cells: list[tuple[float, int]] = []
    want, got = 0.0, 0
    for key, p in expected.items():
        want += float(p) * rounds
        got += observed.get(key, 0)
        if want >= 5:
            cells.append((want, got))
            want, got = 0.0, 0
    if want > 0:  # a thin tail joins the last full cell
        last_want, last_got = cells.pop()
        cells.append((last_want + want, last_got + got))
    statistic = sum((o - e) ** 2 / e for e, o in cells)
    return statistic, len(cells) - 1


def z_by_hand(
    counts: Sequence[int], bet: Bet, paytable: Paytable, exact: Fraction, procedure: Procedure
) -> float:
    """(mean − exact)/SE from the counts, settling each outcome per SPEC §7 (a win returns
    the odds "to 1", a loss costs the stake), with the exact standard error: the standard
    deviation of the exact distribution over √n (issue 13: never the sample's own)."""
    n = sum(counts)
    total = 0.0
    for code, count in enumerate(counts):
        if not count:
            continue
        first, winner, k = decode(code)
        if bet.wins(winner=winner, cards_dealt=k):
            x = float(paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one)
        else:
            x = -1.0
        total += count * x
    second = Fraction(0)
    for (first, winner, k), p in outcome_distribution(procedure).probabilities.items():
        won = bet.wins(winner=winner, cards_dealt=k)
        r = paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one if won else -1
        second += p * r * r
    variance = float(second - exact * exact)
    return (total / n - float(exact)) / math.sqrt(variance / n)


@pytest.fixture(scope="module")
def million_rounds() -> dict[str, simulation.SimulationResult]:
    """One 10^6-round run of the cards engine per preset procedure (counts do not depend
    on the paytable, so every paytable is settled from the same counts)."""
    return {
        name: simulate(procedure, WIZARD, rounds=MILLION, seed=SEEDS[name])
        for name, procedure in PROCEDURES.items()
    }


# -- 1. the cards engine agrees with the exact odds -------------------------------------------


@pytest.mark.parametrize("paytable", list(PAYTABLES))
@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_cards_engine_agrees_with_exact_odds(
    million_rounds: dict[str, simulation.SimulationResult], procedure: str, paytable: str
) -> None:
    result = million_rounds[procedure]
    rules, table = PROCEDURES[procedure], PAYTABLES[paytable]
    assert result.rounds == sum(result.counts) == MILLION
    assert result.engine == f"cards ({dealing_kernels.KERNEL})"
    stats = statistics(result.counts, rules, table)
    exact = {str(b.bet): b for b in odds_report(rules, table).bets if b.given is None}
    # every bet on the deal (those on the centre card are decided by it, not by the outcome)
    on_deal = [str(b) for b in table.bets if not str(b).startswith("centre:")]
    assert [str(s.bet) for s in stats] == on_deal
    for stat in stats:
        assert stat.exact_return == exact[str(stat.bet)].expected_return
        z = z_by_hand(result.counts, stat.bet, table, stat.exact_return, rules)
        assert float(stat.z_score) == pytest.approx(z, abs=1e-6)
        assert abs(z) < Z_BOUND, f"{procedure}/{paytable} {stat.bet}: z = {z:.2f}"


@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_cards_engine_frequencies(
    million_rounds: dict[str, simulation.SimulationResult], procedure: str
) -> None:
    rules = PROCEDURES[procedure]
    result = million_rounds[procedure]
    n = result.rounds
    andar = first_andar = 0
    for code, count in enumerate(result.counts):
        if not count:
            continue
        first, winner, k = decode(code)
        # every dealt round is a possible one: 1–49 cards, the parity rule of SPEC §4
        assert 1 <= k <= 49
        assert winner is (first if k % 2 else first.other)
        andar += count * (winner is A)
        first_andar += count * (first is A)
    for observed, p in ((andar, exact_andar(rules)), (first_andar, exact_first_andar(rules))):
        if p in (0, 1):
            assert observed == p * n
        else:  # binomial standard error
            assert abs(observed / n - float(p)) < Z_BOUND * math.sqrt(float(p * (1 - p)) / n)
    # mean cards dealt within 4 SE (exact variance from the distribution)
    dist = exact_cards_dealt(rules)
    mean = sum((k * p for k, p in dist.items()), Fraction(0))
    variance = sum((k * k * p for k, p in dist.items()), Fraction(0)) - mean * mean
    simulated = sum(k * c for k, c in result.cards_dealt.items()) / n
    assert abs(simulated - float(mean)) < Z_BOUND * math.sqrt(float(variance) / n)


def test_first_row_keyed_paytable_from_the_same_counts(
    million_rounds: dict[str, simulation.SimulationResult],
) -> None:
    # Under centre-colour the first-row-keyed odds depend on the first row of each round
    # (exact value −429/16660 derived in test_odds.py); the counts carry it.
    table = Paytable(
        name="by-first",
        main=(Odds.parse("0.9 to 1"), Odds.parse("1 to 1")),
        keyed_by=MainKey.FIRST_ROW,
    )
    result = million_rounds["home"]
    for stat in statistics(result.counts, PROCEDURES["home"], table):
        assert stat.exact_return == Fraction(-429, 16660)
        z = z_by_hand(result.counts, stat.bet, table, stat.exact_return, PROCEDURES["home"])
        assert abs(z) < Z_BOUND


# -- 2. chi-square goodness of fit -------------------------------------------------------------


def test_chi_square_helpers_agree_with_known_values() -> None:
    # df = 2: P(χ² > x) = e^(−x/2), so the 99.99th percentile is −2 ln 10⁻⁴ = 18.4207.
    assert chi2_quantile(0.9999, 2) == pytest.approx(-2 * math.log(1e-4), rel=1e-9)
    # df = 1: χ² = Z², so it is z_{0.99995}² = 3.890592² = 15.1367.
    assert chi2_quantile(0.9999, 1) == pytest.approx(3.890592**2, rel=1e-5)
    # Published upper critical values (NIST/SEMATECH e-Handbook, table 1.3.6.7.4, α = 0.001):
    # df 10 → 29.588, df 30 → 59.703, df 5 → 20.515.
    assert chi2_quantile(0.999, 10) == pytest.approx(29.588, abs=1e-3)
    assert chi2_quantile(0.999, 30) == pytest.approx(59.703, abs=1e-3)
    assert chi2_quantile(0.999, 5) == pytest.approx(20.515, abs=1e-3)


@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_cards_dealt_histogram_fits_the_exact_distribution(
    million_rounds: dict[str, simulation.SimulationResult], procedure: str
) -> None:
    result = million_rounds[procedure]
    expected = exact_cards_dealt(PROCEDURES[procedure])
    statistic, df = chi_square(dict(result.cards_dealt), dict(expected))  # type: ignore[arg-type]
    assert df >= 40  # 49 counts; only the thin chosen-rank tail is pooled
    assert statistic < chi2_quantile(0.9999, df), f"χ² = {statistic:.1f} on {df} df"


@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_joint_outcomes_fit_the_exact_distribution(
    million_rounds: dict[str, simulation.SimulationResult], procedure: str
) -> None:
    # (first_row, winner, cards_dealt) jointly: this also checks the first row of the
    # colour rules, against the exact distribution that test_odds.py checks.
    rules = PROCEDURES[procedure]
    exact = {
        simulation._encode(*outcome): p for outcome, p in odds_report(rules, WIZARD).distribution
    }
    observed = {code: c for code, c in enumerate(million_rounds[procedure].counts) if c}
    statistic, df = chi_square(observed, exact)  # type: ignore[arg-type]
    assert statistic < chi2_quantile(0.9999, df), f"χ² = {statistic:.1f} on {df} df"


def _all_rule_pairs() -> list[Procedure]:
    """Every start rule × target mode the rules accept, presets or not."""
    return [
        Procedure("any", start=start, target=target)
        for start in StartRule
        for target in TargetMode
        if not (start is StartRule.CENTRE_COLOUR and target is TargetMode.CHOSEN_RANK)
    ]


@pytest.mark.parametrize("procedure", _all_rule_pairs(), ids=lambda p: f"{p.start}-{p.target}")
def test_every_rule_pair_fits_the_exact_distribution(procedure: Procedure) -> None:
    # Includes first-card-colour with a chosen rank, which no preset plays.
    result = simulate(procedure, WIZARD, rounds=300_000, seed=31)
    exact = {
        simulation._encode(*outcome): p
        for outcome, p in odds_report(procedure, WIZARD).distribution
    }
    observed = {code: c for code, c in enumerate(result.counts) if c}
    statistic, df = chi_square(observed, exact)  # type: ignore[arg-type]
    assert statistic < chi2_quantile(0.9999, df), f"χ² = {statistic:.1f} on {df} df"
    for stat in result.bets[:2]:
        assert (
            abs(z_by_hand(result.counts, stat.bet, WIZARD, stat.exact_return, procedure)) < Z_BOUND
        )


# -- 3. reproducibility ----------------------------------------------------------------------


def test_one_seed_gives_one_result() -> None:
    first = simulate(CLASSIC, WIZARD, rounds=BLOCK + 5_000, seed=42)
    second = simulate(CLASSIC, WIZARD, rounds=BLOCK + 5_000, seed=42)
    assert first == second
    assert first.to_dict() == second.to_dict()
    assert first.seed == 42
    other = simulate(CLASSIC, WIZARD, rounds=BLOCK + 5_000, seed=43)
    assert other.counts != first.counts


@pytest.mark.parametrize("engine", list(Engine))
def test_result_does_not_depend_on_jobs(engine: Engine) -> None:
    rounds = 2 * BLOCK + 1_001  # three blocks, the last one short
    one = simulate(
        find_procedure("first-card"), WIZARD, rounds=rounds, seed=7, jobs=1, engine=engine
    )
    two = simulate(
        find_procedure("first-card"), WIZARD, rounds=rounds, seed=7, jobs=2, engine=engine
    )
    assert one.counts == two.counts
    assert one.bets == two.bets
    assert one == two


def test_progress_reports_every_block() -> None:
    seen: list[int] = []
    simulate(CLASSIC, WIZARD, rounds=2 * BLOCK + 10, seed=1, progress=seen.append)
    assert seen == [BLOCK, BLOCK, 10]


def test_runs_without_a_seed_differ_and_record_their_seed() -> None:
    first = simulate(CLASSIC, WIZARD, rounds=50_000)
    second = simulate(CLASSIC, WIZARD, rounds=50_000)
    assert first.seed != second.seed
    assert first.counts != second.counts
    assert simulate(CLASSIC, WIZARD, rounds=50_000, seed=first.seed) == first
    assert first.to_dict()["seed"] == first.seed


# -- 4. the outcomes engine ----------------------------------------------------------------


@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_outcomes_engine_agrees_with_exact_odds(procedure: str) -> None:
    rules = PROCEDURES[procedure]
    result = simulate(
        rules, WIZARD, rounds=MILLION, seed=SEEDS[procedure] + 100, engine=Engine.OUTCOMES
    )
    assert result.engine.startswith("outcomes")
    for stat in result.bets:
        z = z_by_hand(result.counts, stat.bet, WIZARD, stat.exact_return, rules)
        assert abs(z) < Z_BOUND, f"{procedure} {stat.bet}: z = {z:.2f}"
    statistic, df = chi_square(dict(result.cards_dealt), dict(exact_cards_dealt(rules)))  # type: ignore[arg-type]
    assert statistic < chi2_quantile(0.9999, df)


def test_engines_are_named() -> None:
    cards = simulate(CLASSIC, WIZARD, rounds=1_000, seed=3)
    outcomes = simulate(CLASSIC, WIZARD, rounds=1_000, seed=3, engine=Engine.OUTCOMES)
    assert cards.engine == f"cards ({dealing_kernels.KERNEL})"
    assert dealing_kernels.KERNEL == "numpy" or dealing_kernels.KERNEL.startswith("numba ")
    assert outcomes.engine.startswith("outcomes")
    assert cards.to_dict()["engine"] == cards.engine


# -- 5. the numpy fallback of dealing_kernels -----------------------------------------------------


@pytest.mark.parametrize("procedure", list(PROCEDURES))
def test_numpy_fallback_agrees_with_exact_odds(procedure: str) -> None:
    rules = PROCEDURES[procedure]
    n = 200_000
    rng = np.random.default_rng(SEEDS[procedure] + 200)
    codes = dealing_kernels._deal_numpy(
        rng,
        n,
        rules.target is TargetMode.CHOSEN_RANK,
        dealing_kernels.START_CODES[rules.start.value],
    )
    assert codes.shape == (n,)
    first, winner, k = codes // 100, (codes // 50) % 2, codes % 50
    assert k.min() >= 1 and k.max() <= 49
    assert np.all(winner == np.where(k % 2 == 1, first, 1 - first))  # SPEC §4 parity
    dist = exact_cards_dealt(rules)
    mean = sum((j * p for j, p in dist.items()), Fraction(0))
    variance = sum((j * j * p for j, p in dist.items()), Fraction(0)) - mean * mean
    assert abs(k.mean() - float(mean)) < Z_BOUND * math.sqrt(float(variance) / n)
    p_andar = exact_andar(rules)
    assert abs(np.mean(winner == 0) - float(p_andar)) < Z_BOUND * math.sqrt(
        float(p_andar * (1 - p_andar)) / n
    )
    p_first = exact_first_andar(rules)
    if p_first == 1:
        assert np.all(first == 0)
    else:
        assert abs(np.mean(first == 0) - float(p_first)) < Z_BOUND * math.sqrt(0.25 / n)
    observed = {int(j): int(c) for j, c in zip(*np.unique(k, return_counts=True), strict=True)}
    statistic, df = chi_square(observed, dict(dist))  # type: ignore[arg-type]
    assert statistic < chi2_quantile(0.9999, df)


def test_simulate_without_numba_uses_the_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # deal_block falls back to numpy, chunk by chunk, when no compiled kernel exists.
    monkeypatch.setattr(dealing_kernels, "_KERNEL", None)
    monkeypatch.setattr(dealing_kernels, "_compiled", True, raising=False)  # no lazy compile
    rounds = 2 * dealing_kernels._CHUNK + 100  # three chunks
    codes = dealing_kernels.deal_block(
        np.random.default_rng(9), rounds, chosen_rank=False, start="andar"
    )
    rng = np.random.default_rng(9)
    by_hand = [
        dealing_kernels._deal_numpy(rng, size, False, 0)
        for size in (dealing_kernels._CHUNK, dealing_kernels._CHUNK, 100)
    ]
    assert np.array_equal(codes, np.concatenate(by_hand))
    result = simulate(CLASSIC, WIZARD, rounds=rounds, seed=11)
    for stat in result.bets:
        assert abs(z_by_hand(result.counts, stat.bet, WIZARD, stat.exact_return, CLASSIC)) < Z_BOUND


# -- 6. bad input ----------------------------------------------------------------------------


def _one_sentence(text: str) -> bool:
    return re.fullmatch(r"[^.!?]+\.", text) is not None


@pytest.mark.parametrize(
    ("settings_", "option"),
    [
        ({"rounds": 0}, "--rounds"),
        ({"rounds": -5}, "--rounds"),
        ({"rounds": 10, "jobs": 0}, "--jobs"),
        ({"rounds": 10, "jobs": -1}, "--jobs"),
    ],
)
def test_bad_simulation_settings_are_refused(settings_: dict[str, int], option: str) -> None:
    with pytest.raises(ParameterError) as caught:
        simulate(CLASSIC, WIZARD, seed=1, **settings_)
    text = str(caught.value)
    assert option in text
    assert _one_sentence(text), text


def test_outcome_codes_refuses_no_rounds() -> None:
    with pytest.raises(ParameterError, match="--rounds"):
        simulation.outcome_codes(CLASSIC, 0, seed=1)


# -- 7. session studies ----------------------------------------------------------------------


def _rounding(value: Fraction, rule: Rounding) -> int:
    """SPEC §7: the win is rounded to the chip unit, down by default."""
    if rule is Rounding.DOWN:
        return math.floor(value)
    if rule is Rounding.UP:
        return math.ceil(value)
    return math.floor(value + Fraction(1, 2))


def replay(
    codes: Sequence[int], bet: Bet, table: Paytable, system: System, bankroll: int, stake: int
) -> tuple[int, int]:
    """One session, round by round in plain Python: (final bankroll, total staked).
    The session stops when the bankroll cannot cover the base stake; a stake is cut to
    the bankroll (and the table maximum); flat keeps the stake, Martingale doubles after a
    loss and returns to the base after a win, d'Alembert adds a base after a loss and
    takes one off after a win, never below the base."""
    money, current, staked = bankroll, stake, 0
    cap = int(table.max_stake // table.chip) if table.max_stake is not None else None
    for code in codes:
        if money < stake:
            break
        wager = min(current, money)
        if cap is not None:
            wager = min(wager, cap)
        staked += wager
        first, winner, k = decode(int(code))
        if bet.wins(winner=winner, cards_dealt=k):
            money += _rounding(wager * table.odds_for(bet, first_row=first).to_one, table.rounding)
            won = True
        else:
            money -= wager
            won = False
        if system is System.MARTINGALE:
            current = stake if won else 2 * current
        elif system is System.DALEMBERT:
            current = max(stake, current - stake) if won else current + stake
    return money, staked


def test_flat_bahar_loses_the_house_edge_per_unit_staked() -> None:
    # Bahar at 1 to 1 under classic: E = 404/833 × 2 − 1 = −25/833 (3.00 %, Wizard of Odds).
    edge = 1 - Fraction(404, 833) * 2
    assert edge == Fraction(25, 833)
    bankroll, rounds, sessions, seed = 1_000, 200, 5_000, 2024
    study = session_study(
        CLASSIC,
        WIZARD,
        bet=MainBet(B),
        system=System.FLAT,
        bankroll=bankroll,
        stake=1,
        rounds=rounds,
        sessions=sessions,
        seed=seed,
    )
    # 200 flat unit bets cannot lose 1,000: nobody is ruined and every round is staked.
    assert study.ruined == 0
    assert study.staked == rounds * sessions
    # The total result is exactly (Bahar wins − Andar wins) over the same outcomes.
    codes = simulation.outcome_codes(CLASSIC, rounds * sessions, seed=seed, engine=Engine.OUTCOMES)
    bahar_wins = sum(1 for code in codes.tolist() if decode(code)[1] is B)
    assert sum(study.finals) - sessions * bankroll == bahar_wins - (rounds * sessions - bahar_wins)
    # Each unit returns +1 with p = 404/833, −1 otherwise: variance 4p(1 − p).
    p = Fraction(404, 833)
    se = math.sqrt(float(4 * p * (1 - p)) / study.staked)
    assert abs(float(study.loss_per_unit_staked) - float(edge)) < Z_BOUND * se
    assert study.mean_result == -study.loss_per_unit_staked * rounds


def test_martingale_is_ruined_more_often_than_flat() -> None:
    common = {
        "bet": MainBet(B),
        "bankroll": 100,
        "stake": 1,
        "rounds": 200,
        "sessions": 2_000,
        "seed": 99,
    }
    flat = session_study(CLASSIC, WIZARD, system=System.FLAT, **common)  # type: ignore[arg-type]
    martingale = session_study(CLASSIC, WIZARD, system=System.MARTINGALE, **common)  # type: ignore[arg-type]
    # Flat: losing 100 units net in 200 even-money bets is a 7-SE event (≈ 0); Martingale
    # loses the whole bankroll after 7 losses in a row (1 + 2 + … + 64 = 127 > 100), which
    # 200 rounds make likely.
    assert martingale.ruin_probability > flat.ruin_probability
    assert martingale.ruin_probability > Fraction(1, 10)
    for study in (flat, martingale):
        assert study.ruined == sum(1 for final in study.finals if final < 1)


def test_session_study_is_reproducible_from_its_seed() -> None:
    kwargs = {
        "bet": Bet.parse("andar"),
        "system": System.DALEMBERT,
        "bankroll": 50,
        "stake": 2,
        "rounds": 100,
        "sessions": 300,
    }
    first = session_study(CLASSIC, find_paytable("trainer-default"), seed=5, **kwargs)  # type: ignore[arg-type]
    assert session_study(CLASSIC, find_paytable("trainer-default"), seed=5, **kwargs) == first  # type: ignore[arg-type]
    unseeded = session_study(CLASSIC, find_paytable("trainer-default"), **kwargs)  # type: ignore[arg-type]
    again = session_study(CLASSIC, find_paytable("trainer-default"), seed=unseeded.seed, **kwargs)  # type: ignore[arg-type]
    assert again == unseeded
    assert unseeded.to_dict()["seed"] == unseeded.seed


_tables = st.sampled_from(
    [
        PAYTABLES["wizard"],
        PAYTABLES["trainer-default"],
        Paytable(
            name="capped",
            main=(Odds.parse("0.95 to 1"), Odds.parse("1 to 1")),
            bands=(Band(CardsBet(1, 10), Odds.parse("2.5 to 1")),),
            rounding=Rounding.HALF_UP,
            max_stake=Decimal(6),
        ),
        Paytable(
            name="by-first",
            main=(Odds.parse("0.9 to 1"), Odds.parse("1 to 1")),
            keyed_by=MainKey.FIRST_ROW,
            rounding=Rounding.UP,
        ),
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    procedure=st.sampled_from(list(PROCEDURES.values())),
    table=_tables,
    bet_name=st.sampled_from(["andar", "bahar", "band"]),
    system=st.sampled_from(list(System)),
    bankroll=st.integers(1, 60),
    stake=st.integers(1, 7),
    rounds=st.integers(1, 40),
    sessions=st.integers(1, 30),
    seed=st.integers(0, 2**32),
)
def test_session_study_replays_round_by_round(
    procedure: Procedure,
    table: Paytable,
    bet_name: str,
    system: System,
    bankroll: int,
    stake: int,
    rounds: int,
    sessions: int,
    seed: int,
) -> None:
    if bet_name == "band":  # the first side bet (a table without side bets: Andar)
        bet = table.bands[0].bet if table.bands else MainBet(A)
    else:
        bet = Bet.parse(bet_name)
    study = session_study(
        procedure,
        table,
        bet=bet,
        system=system,
        bankroll=bankroll,
        stake=stake,
        rounds=rounds,
        sessions=sessions,
        seed=seed,
    )
    codes = simulation.outcome_codes(
        procedure, rounds * sessions, seed=seed, engine=Engine.OUTCOMES
    )
    played = [
        replay(codes[i * rounds : (i + 1) * rounds].tolist(), bet, table, system, bankroll, stake)
        for i in range(sessions)
    ]
    assert list(study.finals) == [final for final, _ in played]
    assert study.staked == sum(staked for _, staked in played)
    assert all(final >= 0 for final in study.finals)  # the bankroll never goes negative
    assert study.ruined == sum(1 for final in study.finals if final < stake)
    assert len(study.finals) == sessions


def test_martingale_with_a_table_maximum_on_a_long_shot() -> None:
    # Regression: the doubled stake once overflowed int64 after 63 losses in a row.
    # The 41+ band wins with probability C(11, 3)/C(51, 3) = 165/20825 ≈ 0.8 %, so 63
    # losses in a row are common (≈ 60 %). The table maximum of 100 caps every stake
    # (SPEC §6: stakes outside the table's limits are refused; session_study's docstring:
    # "a stake … is cut … to the table maximum"), so over 200 rounds a session can lose at
    # most 200 × 100 = 20,000 of its 1,000,000 and stake at most 20,000.
    capped = Paytable(name="capped", main=WIZARD.main, bands=WIZARD.bands, max_stake=Decimal(100))
    bet = Bet.parse("cards:41+")
    rounds, sessions, bankroll = 200, 20, 1_000_000
    study = session_study(
        CLASSIC,
        capped,
        bet=bet,
        system=System.MARTINGALE,
        bankroll=bankroll,
        stake=1,
        rounds=rounds,
        sessions=sessions,
        seed=1,
    )
    assert all(final >= bankroll - rounds * 100 for final in study.finals)
    assert 0 < study.staked <= sessions * rounds * 100
    assert study.ruined == 0
    codes = simulation.outcome_codes(CLASSIC, rounds * sessions, seed=1, engine=Engine.OUTCOMES)
    played = [
        replay(
            codes[i * rounds : (i + 1) * rounds].tolist(),
            bet,
            capped,
            System.MARTINGALE,
            bankroll,
            1,
        )
        for i in range(sessions)
    ]
    assert list(study.finals) == [final for final, _ in played]


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("bankroll", "--bankroll"),
        ("stake", "--stake"),
        ("sessions", "--sessions"),
        ("rounds", "--rounds"),
    ],
)
@pytest.mark.parametrize("value", [0, -3])
def test_bad_session_settings_are_refused(name: str, option: str, value: int) -> None:
    kwargs = {"bankroll": 100, "stake": 1, "rounds": 10, "sessions": 10, name: value}
    with pytest.raises(ParameterError) as caught:
        session_study(CLASSIC, WIZARD, bet=MainBet(A), system=System.FLAT, seed=1, **kwargs)
    text = str(caught.value)
    assert option in text
    assert _one_sentence(text), text


# -- statistics() from arbitrary counts ---------------------------------------------------------

_valid_codes = [f * 100 + w * 50 + k for f in (0, 1) for w in (0, 1) for k in range(1, 50)]


@settings(max_examples=40, deadline=None)
@given(
    table=st.sampled_from(list(PAYTABLES.values())),
    chosen=st.dictionaries(
        st.sampled_from(_valid_codes), st.integers(1, 10**6), min_size=1, max_size=30
    ),
)
def test_statistics_settle_counts_exactly(table: Paytable, chosen: dict[int, int]) -> None:
    counts = [chosen.get(code, 0) for code in range(200)]
    rounds = sum(counts)
    for stat in statistics(counts, CLASSIC, table):
        wins = 0
        total = squares = Fraction(0)
        for code, count in chosen.items():
            first, winner, k = decode(code)
            if stat.bet.wins(winner=winner, cards_dealt=k):
                odds = table.odds_for(stat.bet, first_row=first).to_one
                wins += count
                total += count * odds
                squares += count * odds * odds
            else:
                total -= count
                squares += count
        assert stat.rounds == rounds
        assert stat.wins == wins
        assert stat.frequency == Fraction(wins, rounds)
        assert stat.total_return == total
        assert stat.mean_return == total / rounds
        assert stat.sum_of_squares == squares
        if rounds >= 2:
            variance = (squares - rounds * (total / rounds) ** 2) / (rounds - 1)
            assert float(stat.sample_standard_error) == pytest.approx(
                math.sqrt(float(variance) / rounds), rel=1e-9, abs=1e-15
            )


def test_decode_follows_the_kernel_encoding() -> None:
    # dealing_kernels: code = first_row·100 + winner·50 + cards_dealt, Andar 0, Bahar 1.
    assert simulation.decode(157) == (B, B, 7)
    for code in _valid_codes:
        assert simulation.decode(code) == decode(code)
        assert simulation._encode(*decode(code)) == code


# -- issue 13: z against the exact distribution ------------------------------------------------


def test_a_bet_that_never_wins_in_the_run_shows_a_large_z() -> None:
    # A club's band on exactly 49 cards: P = 1/20825 (the 3 matching cards are the last
    # three of 51, one way in C(51, 3)). In 2,000 rounds it almost surely never wins; the
    # sample's spread is then 0, which made the old z 0 ("agrees"). Against the exact
    # standard error, √(p(1 − p)(1 + x)² / n), the miss shows.
    club = Paytable(
        name="long-shot",
        main=(Odds.parse("0.9 to 1"), Odds.parse(1)),
        bands=(Band(CardsBet(49, 49), Odds.parse("20000 to 1")),),
    )
    result = simulate(CLASSIC, club, rounds=2_000, seed=3)
    last = result.bets[-1]
    assert str(last.bet) == "cards:49" and last.wins == 0
    p, x, n = Fraction(1, comb(51, 3)), 20000, 2_000
    z = (-1 - (p * x - (1 - p))) / math.sqrt(float(p * (1 - p) * (1 + x) ** 2) / n)
    assert float(last.z_score) == pytest.approx(z, rel=1e-9)
    assert abs(last.z_score) > 0
    assert last.sample_standard_error == 0


def test_simulation_honours_pays_by_count() -> None:
    # Andar paid 0.25 to 1 when the first card matches: the exact return the simulation
    # compares with is 429/833 × 1.9 − 1 − 1/17 × (0.9 − 0.25) (P(1 card) = 3/51).
    club = Paytable(
        name="first-card-quarter",
        main=(Odds.parse("0.9 to 1"), Odds.parse(1)),
        main_by_count=(CountPays.parse("1", (Odds.parse("0.25 to 1"), None)),),
    )
    result = simulate(CLASSIC, club, rounds=50_000, seed=5)
    andar = result.bets[0]
    expected = Fraction(429, 833) * Fraction(19, 10) - 1 - Fraction(1, 17) * Fraction(13, 20)
    assert andar.exact_return == expected
    assert abs(andar.z_score) < Z_BOUND
