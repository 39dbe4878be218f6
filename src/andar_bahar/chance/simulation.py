"""Monte Carlo simulation: very many rounds, fast, reproducible from a seed.

Two engines:

- ``cards`` deals real shuffled decks (see :mod:`andar_bahar.chance.dealing_kernels`)
  and settles every bet — an independent check of the exact odds;
- ``outcomes`` samples each round's outcome from the exact distribution of
  :mod:`andar_bahar.chance.odds` with exact integer weights — much faster, for long
  session studies.

Work is cut into fixed blocks of rounds; block *i* draws from the child
``SeedSequence(seed, spawn_key=(i,))`` (PCG64), so a seed gives the same result
bit for bit whatever the number of worker processes. Every round is reduced to
its outcome ``(first_row, winner, cards_dealt)``; the counts of outcomes are
integers, and every figure derived from them (means, variances) is an exact
:class:`~fractions.Fraction` until it is shown.

>>> from andar_bahar.engine.rules import find_procedure
>>> from andar_bahar.engine.paytables import find_paytable
>>> result = simulate(find_procedure("classic"), find_paytable("wizard"), rounds=20_000, seed=1)
>>> result.rounds, result.engine.startswith(("cards", "outcomes"))
(20000, True)
>>> andar = result.bets[0]
>>> str(andar.bet), abs(andar.z_score) < 4
('andar', True)
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import reduce

import numpy as np
from numpy.typing import NDArray

from andar_bahar.chance import dealing_kernels
from andar_bahar.chance.odds import OutcomeDistribution, bet_odds, outcome_distribution
from andar_bahar.chance.simulation_options import Engine, System
from andar_bahar.engine.bets import Bet, CentreBet
from andar_bahar.engine.errors import ParameterError
from andar_bahar.engine.paytables import Paytable, Rounding
from andar_bahar.engine.rules import Procedure, Row, TargetMode
from andar_bahar.i18n.messages import N_, Message

__all__ = [
    "BLOCK",
    "BetStatistics",
    "Engine",
    "SessionStudy",
    "SimulationResult",
    "System",
    "decode",
    "engine_name",
    "outcome_codes",
    "session_study",
    "simulate",
]

BLOCK = 1 << 18
"""Rounds per block: the unit of work, and of seeding, of every simulation."""
_CODES = 200
_ROWS = (Row.ANDAR, Row.BAHAR)


def engine_name(engine: Engine) -> str:
    """The engine as reported: ``cards (numba 0.60)``, ``cards (numpy)`` or ``outcomes``."""
    if engine is Engine.CARDS:
        return f"cards ({dealing_kernels.KERNEL})"
    return "outcomes"


def decode(code: int) -> tuple[Row, Row, int]:
    """``(first_row, winner, cards_dealt)`` of an outcome code.

    >>> decode(157)
    (<Row.BAHAR: 'bahar'>, <Row.BAHAR: 'bahar'>, 7)
    """
    return _ROWS[code // 100], _ROWS[(code // 50) % 2], code % 50


def _encode(first: Row, winner: Row, k: int) -> int:
    return _ROWS.index(first) * 100 + _ROWS.index(winner) * 50 + k


def _check_positive(value: int, option: str) -> None:
    if value < 1:
        raise ParameterError(
            Message(N_("{option} must be at least 1, not {value}."), option=option, value=value)
        )


# -- drawing outcomes ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sampler:
    """Exact sampling: integer weights over outcome codes with a common denominator.

    A uniform integer below the denominator (numpy's unbiased bounded draw) is
    looked up in a table that holds each outcome code as many times as its
    weight, so every outcome is drawn with exactly its probability.
    """

    table: NDArray[np.int16]

    @classmethod
    def of(cls, distribution: OutcomeDistribution) -> _Sampler:
        items = list(distribution)
        denominator = reduce(math.lcm, (p.denominator for _, p in items), 1)
        weights = [p.numerator * (denominator // p.denominator) for _, p in items]
        if sum(weights) != denominator or denominator > _MAX_TABLE:
            raise ValueError(f"cannot sample a distribution with denominator {denominator}")
        codes = np.array([_encode(*outcome) for outcome, _ in items], dtype=np.int16)
        return cls(np.repeat(codes, weights))

    def draw(self, rng: np.random.Generator, rounds: int) -> NDArray[np.int16]:
        u = rng.integers(0, self.table.shape[0], size=rounds, dtype=np.uint32)
        return self.table[u]


_MAX_TABLE = 1 << 26


def _block_codes(
    seed: int, index: int, rounds: int, procedure: Procedure, engine: Engine
) -> NDArray[np.int16]:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,))))
    if engine is Engine.OUTCOMES:
        return _Sampler.of(outcome_distribution(procedure)).draw(rng, rounds)
    return dealing_kernels.deal_block(
        rng,
        rounds,
        chosen_rank=procedure.target is TargetMode.CHOSEN_RANK,
        start=procedure.start.value,
    )


def _block_counts(args: tuple[int, int, int, Procedure, Engine]) -> NDArray[np.int64]:
    return np.bincount(_block_codes(*args), minlength=_CODES).astype(np.int64)


def _blocks(rounds: int) -> Iterator[tuple[int, int]]:
    for index, start in enumerate(range(0, rounds, BLOCK)):
        yield index, min(BLOCK, rounds - start)


def outcome_codes(
    procedure: Procedure, rounds: int, *, seed: int, engine: Engine = Engine.CARDS
) -> NDArray[np.int16]:
    """The outcome code of each of *rounds* rounds, in order (for session studies)."""
    _check_positive(rounds, "--rounds")
    parts = [_block_codes(seed, i, n, procedure, engine) for i, n in _blocks(rounds)]
    return np.concatenate(parts)


# -- statistics --------------------------------------------------------------------


def _sqrt(value: Fraction) -> Decimal:
    with localcontext() as context:
        context.prec = 30
        return (Decimal(value.numerator) / Decimal(value.denominator)).sqrt()


@dataclass(frozen=True, slots=True)
class BetStatistics:
    """One bet over the simulated rounds, beside its exact value.

    The z-score measures the simulated mean against the exact distribution: its
    standard error is the exact standard deviation / √rounds, never the sample's
    own spread — so a bet that never wins in a long run (whose sample spread is
    zero) shows a large |z| instead of agreeing.
    """

    bet: Bet
    rounds: int
    wins: int
    total_return: Fraction
    sum_of_squares: Fraction
    exact_return: Fraction
    exact_variance: Fraction

    @property
    def frequency(self) -> Fraction:
        return Fraction(self.wins, self.rounds)

    @property
    def mean_return(self) -> Fraction:
        """The mean return per unit staked over the simulated rounds (exact)."""
        return self.total_return / self.rounds

    @property
    def standard_error(self) -> Decimal:
        """The exact standard error of :attr:`mean_return`: √(exact variance / rounds)."""
        return _sqrt(self.exact_variance / self.rounds)

    @property
    def sample_standard_error(self) -> Decimal:
        """The standard error the sample itself suggests (sample variance / rounds)."""
        if self.rounds < 2:
            return Decimal(0)
        mean = self.mean_return
        variance = (self.sum_of_squares - self.rounds * mean * mean) / (self.rounds - 1)
        return _sqrt(variance / self.rounds)

    @property
    def z_score(self) -> Decimal:
        """(simulated − exact) / exact standard error: within ±4 in all but 1 run in 15,000."""
        error = self.standard_error
        difference = self.mean_return - self.exact_return
        if error == 0:  # a bet whose return cannot vary: any difference is infinitely unlikely
            return (
                Decimal(0)
                if difference == 0
                else Decimal("Infinity").copy_sign(Decimal(difference.numerator))
            )
        with localcontext() as context:
            context.prec = 30
            return (Decimal(difference.numerator) / Decimal(difference.denominator)) / error

    def to_dict(self) -> dict[str, object]:
        return {
            "bet": str(self.bet),
            "rounds": self.rounds,
            "wins": self.wins,
            "frequency": str(self.frequency),
            "mean_return": str(self.mean_return),
            "mean_return_decimal": _decimal_text(self.mean_return),
            "standard_error": f"{self.standard_error:.8f}",
            "sample_standard_error": f"{self.sample_standard_error:.8f}",
            "exact_return": str(self.exact_return),
            "exact_return_decimal": _decimal_text(self.exact_return),
            "z_score": f"{self.z_score:.3f}",
        }


def _decimal_text(value: Fraction, places: int = 8) -> str:
    """A fraction rounded half-even to *places* decimals, for display."""
    scaled = round(value * 10**places)
    return str(Decimal(scaled).scaleb(-places))


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What a simulation found: the outcome counts and every bet's statistics."""

    procedure: Procedure
    paytable: Paytable
    rounds: int
    seed: int
    engine: str
    counts: tuple[int, ...]
    bets: tuple[BetStatistics, ...]

    @property
    def cards_dealt(self) -> dict[int, int]:
        """How many rounds dealt each number of cards."""
        totals: dict[int, int] = {}
        for code, count in enumerate(self.counts):
            if count:
                k = code % 50
                totals[k] = totals.get(k, 0) + count
        return dict(sorted(totals.items()))

    def to_dict(self) -> dict[str, object]:
        return {
            "procedure": self.procedure.to_dict(),
            "paytable": self.paytable.name,
            "rounds": self.rounds,
            "seed": self.seed,
            "engine": self.engine,
            "bets": [b.to_dict() for b in self.bets],
            "cards_dealt": {str(k): n for k, n in self.cards_dealt.items()},
        }


def statistics(
    counts: Sequence[int], procedure: Procedure, paytable: Paytable
) -> tuple[BetStatistics, ...]:
    """Settle every bet of *paytable* from outcome *counts*, exactly, per unit staked (the
    bets on the deal: one on the centre card is decided by it alone, not by the outcome)."""
    rounds = sum(counts)
    exact = outcome_distribution(procedure)
    result = []
    for bet in paytable.bets:
        if isinstance(bet, CentreBet):
            continue
        wins = 0
        total = Fraction(0)
        squares = Fraction(0)
        for code, count in enumerate(counts):
            if not count:
                continue
            first, winner, k = decode(code)
            if bet.wins(winner=winner, cards_dealt=k):
                odds = paytable.odds_for(bet, first_row=first, cards_dealt=k).to_one
                wins += count
                total += count * odds
                squares += count * odds * odds
            else:
                total -= count
                squares += count
        exact_odds = bet_odds(bet, paytable, exact)
        result.append(
            BetStatistics(
                bet,
                rounds,
                wins,
                total,
                squares,
                exact_odds.expected_return,
                exact_odds.variance,
            )
        )
    return tuple(result)


def simulate(
    procedure: Procedure,
    paytable: Paytable,
    *,
    rounds: int,
    seed: int | None = None,
    jobs: int = 1,
    engine: Engine = Engine.CARDS,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Simulate *rounds* rounds and settle every bet of *paytable* in each.

    Without a *seed* a fresh one is drawn from the operating system; the result
    records it, so any run can be repeated.
    """
    _check_positive(rounds, "--rounds")
    _check_positive(jobs, "--jobs")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    tasks = [(seed, index, n, procedure, engine) for index, n in _blocks(rounds)]
    counts = np.zeros(_CODES, dtype=np.int64)
    if jobs == 1 or len(tasks) == 1:
        for task in tasks:
            counts += _block_counts(task)
            if progress is not None:
                progress(task[2])
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            for task, part in zip(tasks, pool.map(_block_counts, tasks), strict=True):
                counts += part
                if progress is not None:
                    progress(task[2])
    as_ints = tuple(int(c) for c in counts)
    return SimulationResult(
        procedure,
        paytable,
        rounds,
        seed,
        engine_name(engine),
        as_ints,
        statistics(as_ints, procedure, paytable),
    )


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# -- session studies -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionStudy:
    """The final bankrolls of many sessions played with one betting system."""

    procedure: Procedure
    paytable: Paytable
    bet: Bet
    system: System
    bankroll: int
    stake: int
    rounds: int
    sessions: int
    seed: int
    engine: str
    finals: tuple[int, ...]
    ruined: int
    staked: int

    @property
    def ruin_probability(self) -> Fraction:
        """The share of sessions that could no longer cover the base stake."""
        return Fraction(self.ruined, self.sessions)

    @property
    def mean_final(self) -> Fraction:
        return Fraction(sum(self.finals), self.sessions)

    @property
    def mean_result(self) -> Fraction:
        return self.mean_final - self.bankroll

    @property
    def loss_per_unit_staked(self) -> Fraction:
        """The players' total loss over their total stakes: close to the house edge."""
        if self.staked == 0:
            return Fraction(0)
        return Fraction(self.sessions * self.bankroll - sum(self.finals), self.staked)

    def quantile(self, q: Fraction) -> int:
        ordered = sorted(self.finals)
        index = min(len(ordered) - 1, int(q * len(ordered)))
        return ordered[index]

    def to_dict(self) -> dict[str, object]:
        return {
            "procedure": self.procedure.name,
            "paytable": self.paytable.name,
            "bet": str(self.bet),
            "system": self.system.value,
            "bankroll": self.bankroll,
            "stake": self.stake,
            "rounds": self.rounds,
            "sessions": self.sessions,
            "seed": self.seed,
            "engine": self.engine,
            "ruin_probability": str(self.ruin_probability),
            "mean_final": str(self.mean_final),
            "loss_per_unit_staked": str(self.loss_per_unit_staked),
            "quantiles": {
                name: self.quantile(Fraction(q))
                for name, q in (
                    ("p05", "0.05"),
                    ("p25", "0.25"),
                    ("p50", "0.5"),
                    ("p75", "0.75"),
                    ("p95", "0.95"),
                )
            },
        }


def _pay_table(
    bet: Bet, paytable: Paytable
) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64]]:
    """Per outcome code: does *bet* win, and its odds as numerator/denominator."""
    wins = np.zeros(_CODES, dtype=bool)
    numerators = np.zeros(_CODES, dtype=np.int64)
    denominators = np.ones(_CODES, dtype=np.int64)
    for code in range(_CODES):
        first, winner, k = code // 100, (code // 50) % 2, code % 50
        if k == 0:
            continue
        if bet.wins(winner=_ROWS[winner], cards_dealt=k):
            odds = paytable.odds_for(bet, first_row=_ROWS[first], cards_dealt=k).to_one
            wins[code] = True
            numerators[code] = odds.numerator
            denominators[code] = odds.denominator
    return wins, numerators, denominators


_STAKE_CEILING = 1 << 52


def session_study(
    procedure: Procedure,
    paytable: Paytable,
    *,
    bet: Bet,
    system: System,
    bankroll: int,
    stake: int,
    rounds: int,
    sessions: int,
    seed: int | None = None,
    engine: Engine = Engine.OUTCOMES,
) -> SessionStudy:
    """Play *sessions* sessions of up to *rounds* rounds each, betting *bet* by *system*.

    Amounts are whole chips of the paytable's chip unit; wins are rounded by the
    paytable's rule in integer arithmetic. A session is ruined when it can no
    longer cover the base *stake*; a stake the bankroll cannot cover is cut to
    the bankroll, and to the table maximum if there is one.

    >>> from andar_bahar.engine.rules import find_procedure
    >>> from andar_bahar.engine.paytables import find_paytable
    >>> study = session_study(find_procedure("classic"), find_paytable("wizard"),
    ...     bet=Bet.parse("bahar"), system=System.MARTINGALE, bankroll=100, stake=1,
    ...     rounds=200, sessions=1000, seed=5)
    >>> 0 < study.ruin_probability < 1, study.mean_result < 0
    (True, True)
    """
    for value, option in (
        (bankroll, "--bankroll"),
        (stake, "--stake"),
        (rounds, "--rounds"),
        (sessions, "--sessions"),
    ):
        _check_positive(value, option)
    paytable.check_offers(bet)
    if isinstance(bet, CentreBet):
        raise ParameterError(
            Message(
                N_(
                    "Sessions play a bet on the deal (andar, bahar or cards:…), not {bet}: a bet"
                    " on the centre card is decided by the centre card alone."
                ),
                bet=str(bet),
            )
        )
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    codes = outcome_codes(procedure, rounds * sessions, seed=seed, engine=engine).reshape(
        sessions, rounds
    )
    money, staked = _play_sessions(codes, bet, paytable, system, bankroll=bankroll, stake=stake)
    ruined = int((money < stake).sum())
    return SessionStudy(
        procedure,
        paytable,
        bet,
        system,
        bankroll,
        stake,
        rounds,
        sessions,
        seed,
        engine_name(engine),
        tuple(int(m) for m in money),
        ruined,
        staked,
    )


def _play_sessions(
    codes: NDArray[np.int16],
    bet: Bet,
    paytable: Paytable,
    system: System,
    *,
    bankroll: int,
    stake: int,
) -> tuple[NDArray[np.int64], int]:
    """Every session (a row of *codes*) played round by round: the final bankrolls, in
    chips, and the total staked. Wins are rounded by the table's rule in integers."""
    sessions, rounds = codes.shape
    wins, numerators, denominators = _pay_table(bet, paytable)
    chip = paytable.chip
    cap = int(paytable.max_stake // chip) if paytable.max_stake is not None else None
    money = np.full(sessions, bankroll, dtype=np.int64)
    current = np.full(sessions, stake, dtype=np.int64)
    alive = np.ones(sessions, dtype=bool)
    staked = 0
    for r in range(rounds):
        alive &= money >= stake
        if not alive.any():
            break
        wager = np.minimum(current, money)
        if cap is not None:
            wager = np.minimum(wager, cap)
        wager = np.where(alive, wager, 0)
        staked += int(wager.sum())
        code = codes[:, r]
        won = wins[code] & alive
        product = wager * numerators[code]
        denominator = denominators[code]
        if paytable.rounding is Rounding.DOWN:
            win = product // denominator
        elif paytable.rounding is Rounding.UP:
            win = -((-product) // denominator)
        else:
            win = (2 * product + denominator) // (2 * denominator)
        money = money + np.where(won, win, -wager)
        if system is System.MARTINGALE:
            # capped far above any bankroll, so that doubling never overflows int64
            current = np.where(won, stake, np.minimum(current * 2, _STAKE_CEILING))
        elif system is System.DALEMBERT:
            current = np.where(won, np.maximum(stake, current - stake), current + stake)
    return money, staked
