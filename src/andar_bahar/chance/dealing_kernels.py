"""Fast dealing of real shuffled decks, for the simulator.

Each round shuffles the deck with a lazy Fisher–Yates (each card drawn uniformly
from those left, which is exactly a shuffled deck dealt from the top) and deals
until the first match. Random integers in a range are drawn by Lemire's method
with rejection, so there is no modulo bias. Two implementations give the same
kind of result: a compiled one (numba, when installed) and a vectorised numpy
one; :data:`KERNEL` names the one in use.

A round is encoded as ``code = first_row * 100 + winner * 50 + cards_dealt``
with rows 0 (Andar) and 1 (Bahar).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ["KERNEL", "START_CODES", "deal_block"]

START_CODES = {"andar": 0, "centre-colour": 1, "first-card-colour": 2}
_CHUNK = 1 << 16
_DRAWS_PER_ROUND = 16  # mean use is 14 (centre + 13 cards); the buffer is refilled as needed


def _lemire(word: int, n: int, bits: int) -> int:
    """A uniform integer in ``[0, n)`` from a random *bits*-bit word, or ``-1`` to reject it.

    Lemire's multiply-and-shift: ``word × n`` spread over ``n`` buckets of
    ``2**bits`` words each; the low part rejects the ``2**bits mod n`` words that
    would make some buckets larger than others, so there is no modulo bias. The
    kernel calls it with 32-bit words; a test enumerates every 16-bit word.

    >>> [_lemire(w, 3, 2) for w in range(4)]  # 2**2 mod 3 = 1 word rejected
    [-1, 0, 1, 2]
    """
    m = int(word) * int(n)
    low = m & ((1 << bits) - 1)
    # the division runs only when rejection is possible at all (low < n): rarely
    if low < n and low < ((1 << bits) - n) % n:
        return -1
    return m >> bits


lemire = _lemire
"""The draw in use: compiled with numba once the kernel is (the same code)."""


def _kernel_py(
    buf: NDArray[np.uint32],
    deck: NDArray[np.int8],
    rounds: int,
    codes: NDArray[np.int16],
    chosen_rank: bool,
    start: int,
) -> int:  # pragma: no cover - compiled by numba; the numpy path is tested without it
    pos = 0
    nbuf = buf.shape[0]
    r = 0
    while r < rounds and pos + 256 < nbuf:
        target = np.int64(-1)
        first_dealt = 0
        j = 0
        if chosen_rank:
            while True:  # the target rank, uniform over 13
                drawn = lemire(buf[pos], 13, 32)
                pos += 1
                if drawn >= 0:
                    break
            target = np.int64(drawn)
        first_row = 0
        k = 0
        for j in range(52):
            n = 52 - j
            while True:
                drawn = lemire(buf[pos], n, 32)
                pos += 1
                if drawn >= 0:
                    break
            i = j + drawn
            card = deck[i]
            deck[i] = deck[j]
            deck[j] = card
            if target < 0:  # the centre card
                target = card >> 2
                suit = card & 3
                if start == 1:
                    first_row = 1 if (suit == 1 or suit == 2) else 0
                first_dealt = j + 1
                continue
            if j == first_dealt and start == 2:
                suit = card & 3
                first_row = 1 if (suit == 1 or suit == 2) else 0
            if card >> 2 == target:
                k = j - first_dealt + 1
                break
        winner = first_row if k % 2 == 1 else 1 - first_row
        codes[r] = first_row * 100 + winner * 50 + k
        r += 1
    return r


def _compile() -> tuple[Callable[..., int] | None, str]:
    try:
        import numba
    except ImportError:
        return None, "numpy"
    global lemire
    lemire = numba.njit(cache=True, nogil=True)(_lemire)  # the kernel calls it by this name
    compiled: Callable[..., int] = numba.njit(cache=True, nogil=True)(_kernel_py)
    return compiled, f"numba {numba.__version__}"


def _deal_numpy(
    rng: np.random.Generator, rounds: int, chosen_rank: bool, start: int
) -> NDArray[np.int16]:
    """The same rounds, vectorised with numpy (slower; used when numba is absent).

    Each round is a whole deck shuffled by numpy's own Fisher–Yates
    (:meth:`numpy.random.Generator.permuted`), dealt from the top.
    """
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.int8), (rounds, 1)), axis=1)
    ranks = decks >> 2
    red = ((decks & 3) == 1) | ((decks & 3) == 2)
    if chosen_rank:
        target = rng.integers(0, 13, size=rounds, dtype=np.int8)
        dealt, dealt_red, centre_red = ranks, red, np.zeros(rounds, dtype=bool)
    else:
        target, dealt, dealt_red, centre_red = ranks[:, 0], ranks[:, 1:], red[:, 1:], red[:, 0]
    k = np.argmax(dealt == target[:, None], axis=1) + 1
    if start == 0:
        first_row = np.zeros(rounds, dtype=np.int64)
    elif start == 1:
        first_row = centre_red.astype(np.int64)
    else:
        first_row = dealt_red[:, 0].astype(np.int64)
    winner = np.where(k % 2 == 1, first_row, 1 - first_row)
    codes: NDArray[np.int16] = (first_row * 100 + winner * 50 + k).astype(np.int16)
    return codes


_KERNEL: Callable[..., int] | None = None
KERNEL = (
    f"numba {importlib.metadata.version('numba')}"
    if importlib.util.find_spec("numba") is not None
    else "numpy"
)
"""The kernel in use: ``numba …`` when numba is installed, else ``numpy``."""
_compiled = False


def _ensure_kernel() -> None:
    """Compile (or load from numba's cache) the dealing kernel on first use."""
    global _KERNEL, KERNEL, _compiled
    if not _compiled:
        _KERNEL, KERNEL = _compile()
        _compiled = True


def deal_block(
    rng: np.random.Generator, rounds: int, *, chosen_rank: bool, start: str
) -> NDArray[np.int16]:
    """Deal *rounds* rounds with *rng*; return each round's outcome code."""
    start_code = START_CODES[start]
    _ensure_kernel()
    if _KERNEL is None:
        parts = [
            _deal_numpy(rng, min(_CHUNK, rounds - done), chosen_rank, start_code)
            for done in range(0, rounds, _CHUNK)
        ]
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.int16)
    codes = np.empty(rounds, dtype=np.int16)
    deck = np.arange(52, dtype=np.int8)
    done = 0
    while done < rounds:
        todo = min(_CHUNK, rounds - done)
        buf = rng.integers(0, 1 << 32, size=todo * _DRAWS_PER_ROUND + 512, dtype=np.uint32)
        done += _KERNEL(buf, deck, todo, codes[done:], chosen_rank, start_code)
    return codes
