"""Fast dealing of real shuffled decks, for the simulator.

Each round shuffles the deck with a lazy Fisher–Yates (each card drawn uniformly
from those left, which is exactly a shuffled deck dealt from the top) and deals
until the first match. Random integers in a range are drawn by Lemire's method
with rejection, so there is no modulo bias. A round is encoded as
``code = first_row * 100 + winner * 50 + cards_dealt`` with rows 0 (Andar) and
1 (Bahar), and tallied into 200 counts (and, for session studies, written out).

**One kernel, one loop.** :func:`_deal_rounds` draws its own random words
(PCG64, the generator inlined), deals and tallies in one pass: no buffer of
random words, no array of codes unless asked. numba compiles it (``cache=True``:
numba's on-disk cache, beside this file or, where the package cannot be written
to, in the user's cache folder; ``NUMBA_CACHE_DIR`` chooses another). Loading
numba and the cached kernel costs about half a second once per process, so a
small run (under :data:`INTERPRETED_ROUNDS`, in a process that has not loaded
the kernel yet) runs the same function in plain Python — the same results bit
for bit, without that start-up. Where numba is not installed, a vectorised numpy
dealer (its own stream) is used; :data:`KERNEL` names the one in use.

**The stream.** A block's generator is numpy's ``PCG64`` with its state as
numpy seeds it; its 64-bit outputs are read as 32-bit words, low half first (as
numpy's ``Generator.integers(0, 2**32, dtype=np.uint32)`` reads them). The words
are taken in batches, as the first simulator buffered them: a batch serves at
most ``min(65,536, rounds left)`` rounds and holds 16 words per round plus 512;
no round starts within 256 words of a batch's end, and the unread words of a
batch are skipped (PCG64 jumps over them). A seed therefore gives the same
results as it always has.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import threading
import types
from collections.abc import Callable, MutableSequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["INTERPRETED_ROUNDS", "KERNEL", "START_CODES", "deal"]

START_CODES = {"andar": 0, "centre-colour": 1, "first-card-colour": 2}
CODES = 200
"""Outcome codes run from 0 to 199."""
INTERPRETED_ROUNDS = 20_000
"""Runs below this many rounds, in a process without the compiled kernel, run in plain
Python (about 15 µs a round): loading numba and the kernel takes about as long."""

_CHUNK = 1 << 16
_DRAWS_PER_ROUND = 16  # a batch's words per round (the mean use is 14: centre + 13 cards)
_BATCH_PAD = 512
_BATCH_MARGIN = 256
_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
"""PCG64's 128-bit LCG multiplier (numpy's ``PCG_DEFAULT_MULTIPLIER_128``)."""


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
"""The range reduction of the kernel (compiled with it)."""


# -- PCG64 in plain Python ------------------------------------------------------------


def _words(sh: int, sl: int, ih: int, il: int) -> tuple[int, int, int, int]:
    """One PCG64 step from the state ``(sh, sl)`` with increment ``(ih, il)`` (64-bit
    halves): the new state and the output's two 32-bit words, low first.

    >>> g = np.random.PCG64(7)
    >>> s, inc = g.state["state"]["state"], g.state["state"]["inc"]
    >>> *_, low, high = _words(s >> 64, s & _M64, inc >> 64, inc & _M64)
    >>> (high << 32) | low == int(g.random_raw())
    True
    """
    s = ((((sh << 64) | sl) * _PCG_MULTIPLIER) + ((ih << 64) | il)) & _M128
    x = ((s >> 64) ^ s) & _M64
    turn = s >> 122
    out = ((x >> turn) | (x << (64 - turn))) & _M64
    return s >> 64, s & _M64, out & _M32, out >> 32


def _advance(sh: int, sl: int, ih: int, il: int, steps: int) -> tuple[int, int]:
    """The state *steps* PCG64 steps on, in log₂(steps) multiplications (Brown's jump).

    >>> g = np.random.PCG64(7)
    >>> s, inc = g.state["state"]["state"], g.state["state"]["inc"]
    >>> sh, sl = _advance(s >> 64, s & _M64, inc >> 64, inc & _M64, 1000)
    >>> (sh << 64) | sl == g.advance(1000).state["state"]["state"]
    True
    """
    multiplier, increment = _PCG_MULTIPLIER, (ih << 64) | il
    total_mult, total_add = 1, 0
    while steps > 0:
        if steps & 1:
            total_mult = (total_mult * multiplier) & _M128
            total_add = (total_add * multiplier + increment) & _M128
        increment = ((multiplier + 1) * increment) & _M128
        multiplier = (multiplier * multiplier) & _M128
        steps >>= 1
    s = (total_mult * ((sh << 64) | sl) + total_add) & _M128
    return s >> 64, s & _M64


# -- the kernel ----------------------------------------------------------------------


def _uniform(
    n: int, sh: int, sl: int, ih: int, il: int, pos: int, high: int
) -> tuple[int, int, int, int, int]:
    """A uniform integer in ``[0, n)`` from the stream, and the stream's new place:
    ``(value, sh, sl, pos, high)`` — *pos* counts the words read, and *high* is the
    last output's high word, the next word to read when *pos* is odd."""
    while True:
        if pos & 1 == 0:
            sh, sl, word, high = _words(sh, sl, ih, il)
        else:
            word = high
        pos += 1
        drawn = lemire(word, n, 32)
        if drawn >= 0:
            return drawn, sh, sl, pos, high


def _deal_rounds(
    state: MutableSequence[Any],
    rounds: int,
    chosen_rank: bool,
    start: int,
    deck: MutableSequence[Any],
    counts: MutableSequence[Any],
    codes: MutableSequence[Any],
) -> None:
    """Deal *rounds* rounds from the generator *state* ``[sh, sl, ih, il]``, shuffling
    *deck* (52 cards, ``rank * 4 + suit``) in place round after round; add each round to
    ``counts[code]`` and, when *codes* is not empty, write it to ``codes[round]``.

    The same code runs compiled by numba and in plain Python (with the generator's
    helpers of each): see the module's docstring for the stream it reads.
    """
    sh, sl, ih, il = state[0], state[1], state[2], state[3]
    keep = len(codes) > 0
    r = 0
    while r < rounds:
        todo = min(_CHUNK, rounds - r)
        batch = todo * _DRAWS_PER_ROUND + _BATCH_PAD
        pos = 0
        high = 0
        end = r + todo
        while r < end and pos + _BATCH_MARGIN < batch:
            first_row = 0
            j = 0
            if chosen_rank:
                target, sh, sl, pos, high = _uniform(13, sh, sl, ih, il, pos, high)
            else:  # the centre card
                i, sh, sl, pos, high = _uniform(52, sh, sl, ih, il, pos, high)
                card = deck[i]
                deck[i] = deck[0]
                deck[0] = card
                target = card >> 2
                if start == 1:
                    first_row = 1 if card & 3 == 1 or card & 3 == 2 else 0
                j = 1
            first_dealt = j
            k = 0
            while j < 52:
                drawn, sh, sl, pos, high = _uniform(52 - j, sh, sl, ih, il, pos, high)
                i = j + drawn
                card = deck[i]
                deck[i] = deck[j]
                deck[j] = card
                if card >> 2 == target:
                    k = j - first_dealt + 1
                    break
                j += 1
            if start == 2:  # the first dealt card's colour: it lies where it was dealt
                card = deck[first_dealt]
                first_row = 1 if card & 3 == 1 or card & 3 == 2 else 0
            winner = first_row if k % 2 == 1 else 1 - first_row
            code = first_row * 100 + winner * 50 + k
            counts[code] += 1
            if keep:
                codes[r] = code
            r += 1
        sh, sl = _advance(sh, sl, ih, il, batch // 2 - (pos + 1) // 2)
    state[0], state[1] = sh, sl


def _interpreted(
    generator: np.random.PCG64, rounds: int, chosen_rank: bool, start: int, keep: bool
) -> tuple[NDArray[np.int64], NDArray[np.int16] | None]:
    """:func:`_deal_rounds` in plain Python: lists and Python integers."""
    inner = generator.state["state"]
    state = [inner["state"] >> 64, inner["state"] & _M64, inner["inc"] >> 64, inner["inc"] & _M64]
    counts = [0] * CODES
    codes = [0] * rounds if keep else []
    _deal_rounds(state, rounds, chosen_rank, start, list(range(52)), counts, codes)
    return (
        np.array(counts, dtype=np.int64),
        np.array(codes, dtype=np.int16) if keep else None,
    )


# -- the compiled kernel -------------------------------------------------------------------


def umulh_typer(typingctx: Any, a: Any, b: Any) -> Any:
    """numba's typing and LLVM code of ``umulh(a, b)``: the high 64 bits of the 128-bit
    product of two ``uint64`` (one instruction on x86-64); ``numba.extending.intrinsic``
    makes it callable in compiled code."""
    from llvmlite import ir
    from numba.core import types as nb

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return nb.uint64(nb.uint64, nb.uint64), codegen


def _compile() -> tuple[Callable[..., None] | None, str]:
    """numba's :func:`_deal_rounds`, its generator on ``uint64`` halves; ``None`` without numba.

    The helpers are closures compiled into the kernel; only the kernel is cached (in
    numba's cache, keyed by this file, so that any change here compiles it afresh).
    """
    try:
        import numba
        from numba.extending import intrinsic
    except ImportError:
        return None, "numpy"

    umulh: Any = intrinsic(umulh_typer)  # the high word of a 64 × 64-bit product
    jit = numba.njit(nogil=True, inline="always")
    zero, one, low = np.uint64(0), np.uint64(1), np.uint64(_M32)
    mult_hi, mult_lo = np.uint64(_PCG_MULTIPLIER >> 64), np.uint64(_PCG_MULTIPLIER & _M64)

    @jit
    def mul(ah: Any, al: Any, bh: Any, bl: Any) -> tuple[Any, Any]:  # mod 2**128
        return umulh(al, bl) + ah * bl + al * bh, al * bl

    @jit
    def add(ah: Any, al: Any, bh: Any, bl: Any) -> tuple[Any, Any]:  # mod 2**128
        lo = al + bl
        return ah + bh + (one if lo < al else zero), lo

    @jit
    def words(sh: Any, sl: Any, ih: Any, il: Any) -> tuple[Any, Any, Any, Any]:
        hi, lo = mul(sh, sl, mult_hi, mult_lo)
        sh, sl = add(hi, lo, ih, il)
        x = sh ^ sl
        turn = sh >> np.uint64(58)
        out = (x >> turn) | (x << ((np.uint64(64) - turn) & np.uint64(63)))
        return sh, sl, np.int64(out & low), np.int64(out >> np.uint64(32))

    @jit
    def advance(sh: Any, sl: Any, ih: Any, il: Any, steps: int) -> tuple[Any, Any]:
        mh, ml, ah, al = mult_hi, mult_lo, ih, il
        th, tl, ph, pl = zero, one, zero, zero
        while steps > 0:
            if steps & 1:
                th, tl = mul(th, tl, mh, ml)
                ph, pl = mul(ph, pl, mh, ml)
                ph, pl = add(ph, pl, ah, al)
            nh, nl = add(mh, ml, zero, one)
            ah, al = mul(nh, nl, ah, al)
            mh, ml = mul(mh, ml, mh, ml)
            steps >>= 1
        hi, lo = mul(th, tl, sh, sl)
        return add(hi, lo, ph, pl)

    kernel_globals = {
        **_deal_rounds.__globals__,
        "_words": words,
        "_advance": advance,
        "lemire": jit(_lemire),
    }
    kernel_globals["_uniform"] = jit(
        types.FunctionType(_uniform.__code__, kernel_globals, "_uniform")
    )
    kernel = types.FunctionType(_deal_rounds.__code__, kernel_globals, "_deal_rounds")
    return numba.njit(cache=True, nogil=True)(kernel), f"numba {numba.__version__}"


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


def _numpy_block(
    generator: np.random.PCG64, rounds: int, chosen_rank: bool, start: int, keep: bool
) -> tuple[NDArray[np.int64], NDArray[np.int16] | None]:
    rng = np.random.Generator(generator)
    parts = [
        _deal_numpy(rng, min(_CHUNK, rounds - done), chosen_rank, start)
        for done in range(0, rounds, _CHUNK)
    ]
    codes = np.concatenate(parts)
    counts = np.bincount(codes, minlength=CODES).astype(np.int64)
    return counts, codes if keep else None


KERNEL = (
    f"numba {importlib.metadata.version('numba')}"
    if importlib.util.find_spec("numba") is not None
    else "numpy"
)
"""The kernel in use: ``numba …`` when numba is installed, else ``numpy``."""
_compiled: Callable[..., None] | None = None
_loaded = False
_loading = threading.Lock()


def load() -> bool:
    """Compile the kernel, or load it from numba's cache, once per process (whichever
    thread asks first); ``False`` when numba is not installed (the numpy dealer is used)."""
    global _compiled, _loaded, KERNEL
    with _loading:
        if not _loaded:
            _compiled, KERNEL = _compile()
            _loaded = True
    return _compiled is not None


def deal(
    seed: np.random.SeedSequence,
    rounds: int,
    *,
    chosen_rank: bool,
    start: str,
    keep_codes: bool = False,
) -> tuple[NDArray[np.int64], NDArray[np.int16] | None]:
    """Deal *rounds* rounds from ``PCG64(seed)``: the 200 outcome counts, and each round's
    code in order when *keep_codes*.

    The compiled kernel deals when numba is loaded or the run is large; a small run in a
    process without it deals in plain Python — the same rounds.
    """
    generator = np.random.PCG64(seed)
    start_code = START_CODES[start]
    if not _loaded and rounds < INTERPRETED_ROUNDS and KERNEL != "numpy":
        return _interpreted(generator, rounds, chosen_rank, start_code, keep_codes)
    if not load():
        return _numpy_block(generator, rounds, chosen_rank, start_code, keep_codes)
    inner = generator.state["state"]
    state = np.array(
        [inner["state"] >> 64, inner["state"] & _M64, inner["inc"] >> 64, inner["inc"] & _M64],
        dtype=np.uint64,
    )
    counts = np.zeros(CODES, dtype=np.int64)
    codes = np.empty(rounds if keep_codes else 0, dtype=np.int16)
    assert _compiled is not None
    _compiled(state, rounds, chosen_rank, start_code, np.arange(52, dtype=np.int8), counts, codes)
    return counts, codes if keep_codes else None
