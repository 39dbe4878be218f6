"""The simulator's dealing kernel: one stream for a seed, compiled or interpreted.

The kernel draws its own PCG64 words, deals and tallies in one loop; these tests hold
that a seed deals exactly what the simulator dealt before the kernel was fused (the
figures below were computed with the simulator as it stood then, which filled a numpy
buffer of random words per batch and counted the codes with ``bincount``), that the
kernel interpreted by Python (small runs) deals exactly what the compiled one deals,
and that numba's on-disk cache spares a second process the compilation.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from andar_bahar.chance import dealing_kernels
from andar_bahar.chance.simulation import BLOCK, Engine, outcome_codes, simulate
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import Procedure, StartRule, TargetMode

WIZARD = find_paytable("wizard")
RULE_PAIRS = [
    Procedure("any", start=start, target=target)
    for start in StartRule
    for target in TargetMode
    if not (start is StartRule.CENTRE_COLOUR and target is TargetMode.CHOSEN_RANK)
]
PAIR_IDS = [f"{p.start.value}/{p.target.value}" for p in RULE_PAIRS]

# sha256 (first 16 hex digits) of the 200 counts, written "c0,c1,…", of
# simulate(rules, rounds=BLOCK + 70_001, seed=2024) — two blocks, the first of four
# batches — and of the codes (little-endian int16) of outcome_codes(rules, 3000, seed=9).
BEFORE = {
    "andar/centre-card": ("fa7c1db25df81c3f", "972f7df90debfaa0"),
    "andar/chosen-rank": ("4599c5dc7f822f36", "60a7979e99292c8f"),
    "centre-colour/centre-card": ("b71d7605277dfdf2", "61dab23df1a233f6"),
    "first-card-colour/centre-card": ("c9a68e16f18114b9", "b6804bfc46936ee5"),
    "first-card-colour/chosen-rank": ("89f98a825db98887", "ba6e4f9a9ec67d83"),
}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="the stream of the numba kernel")
@pytest.mark.parametrize("rules", RULE_PAIRS, ids=PAIR_IDS)
def test_a_seed_deals_what_it_always_dealt(rules: Procedure) -> None:
    counts_digest, codes_digest = BEFORE[f"{rules.start.value}/{rules.target.value}"]
    result = simulate(rules, WIZARD, rounds=BLOCK + 70_001, seed=2024)
    assert _digest(",".join(map(str, result.counts)).encode()) == counts_digest
    codes = outcome_codes(rules, 3000, seed=9, engine=Engine.CARDS)
    assert _digest(codes.astype("<i2").tobytes()) == codes_digest


@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="the stream of the numba kernel")
def test_the_classic_figures_of_a_seed() -> None:
    # The same run as above for the classic procedure, in figures a reader can check
    # against an old result: Andar's wins, and the rounds of 1 and of 49 cards.
    result = simulate(
        Procedure("classic", start=StartRule.ANDAR), WIZARD, rounds=BLOCK + 70_001, seed=2024
    )
    assert result.bets[0].wins == 171_034
    assert (result.cards_dealt[1], result.cards_dealt[49]) == (19_667, 15)


@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="needs the compiled kernel")
@pytest.mark.parametrize("rules", RULE_PAIRS, ids=PAIR_IDS)
def test_the_interpreted_kernel_deals_the_compiled_rounds(rules: Procedure) -> None:
    # The same function, run by Python (a small run's start-up) and compiled by numba:
    # the same counts, codes and generator state afterwards (2,000 rounds, ~28,000 words).
    generator = np.random.PCG64(np.random.SeedSequence(77))
    inner = generator.state["state"]
    halves = [inner["state"] >> 64, inner["state"] & (2**64 - 1)]
    halves += [inner["inc"] >> 64, inner["inc"] & (2**64 - 1)]
    chosen, start = (
        rules.target is TargetMode.CHOSEN_RANK,
        dealing_kernels.START_CODES[rules.start.value],
    )
    by_python = list(halves)
    python_counts, python_codes = [0] * 200, [0] * 2000
    dealing_kernels._deal_rounds(
        by_python, 2000, chosen, start, list(range(52)), python_counts, python_codes
    )
    assert dealing_kernels.load()
    compiled = np.array(halves, dtype=np.uint64)
    counts, codes = np.zeros(200, dtype=np.int64), np.zeros(2000, dtype=np.int16)
    assert dealing_kernels._compiled is not None
    dealing_kernels._compiled(
        compiled, 2000, chosen, start, np.arange(52, dtype=np.int8), counts, codes
    )
    assert counts.tolist() == python_counts and codes.tolist() == python_codes
    assert [int(h) for h in compiled] == by_python


SMALL_RUN = """
import json, sys
from andar_bahar.chance.simulation import simulate
from andar_bahar.engine.paytables import find_paytable
from andar_bahar.engine.rules import find_procedure
result = simulate(find_procedure("classic"), find_paytable("wizard"), rounds=int(sys.argv[1]),
                  seed=5)
print(json.dumps({"numba": "numba" in sys.modules, "counts": result.counts}))
"""


@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="needs numba")
def test_a_small_run_does_not_load_numba() -> None:
    # Loading numba and the cached kernel costs ~0.5 s of start-up: a run of fewer than
    # INTERPRETED_ROUNDS rounds deals in Python instead, the same rounds as compiled.
    rounds = dealing_kernels.INTERPRETED_ROUNDS - 1
    done = subprocess.run(
        [sys.executable, "-c", SMALL_RUN, str(rounds)], capture_output=True, text=True, check=True
    )
    report = json.loads(done.stdout)
    assert report["numba"] is False
    compiled = simulate(Procedure("classic"), WIZARD, rounds=rounds, seed=5)
    assert dealing_kernels._loaded  # this process has the kernel loaded: it ran compiled
    assert tuple(report["counts"]) == compiled.counts


@pytest.mark.slow
@pytest.mark.skipif(dealing_kernels.KERNEL == "numpy", reason="needs numba")
def test_the_second_process_loads_the_kernel_from_numbas_cache(tmp_path: Path) -> None:
    # NUMBA_CACHE_DIR chooses where numba keeps compiled code (by default beside the
    # module, or the user's cache folder when the package cannot be written to): the
    # first process compiles the kernel into it, the second only loads it.
    script = (
        "import numpy as np\n"
        "from andar_bahar.chance import dealing_kernels as k\n"
        "k.load()\n"
        "k.deal(np.random.SeedSequence(1), 10, chosen_rank=False, start='andar')\n"
        "stats = k._compiled.stats\n"
        "print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
        ).stdout.split()
        for _ in range(2)
    ]
    assert any(tmp_path.rglob("*.nbi")), "the kernel was not cached in NUMBA_CACHE_DIR"
    assert runs == [["0", "1"], ["1", "0"]]  # (hits, misses): compiled once, then loaded
