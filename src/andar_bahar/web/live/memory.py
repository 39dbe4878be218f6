"""A server process gives its memory back when its live tables close.

The C library's allocator (glibc's malloc on Linux) keeps memory that Python frees for
later, and by default keeps it in one pool per thread that ever allocated (up to eight
per core): a night of live renders in worker threads leaves tens of megabytes resident
that nothing uses. And it gives a block of 128 KiB or more (a drawn page, a message to
many phones) a mapping of its own, returned to the system when freed — until the first
such block is freed: from then on it raises that threshold (up to 32 MiB), so the
night's large blocks are cut from the pools among the small long-lived ones, and the
pools cannot shrink below the last of those. A server process therefore uses two pools
and keeps the threshold where it starts (:func:`limit_pools`, at start), and whenever
a table is no longer followed here (its last socket gone, or the table closed) it hands
the free pages back (:func:`give_back`: ``malloc_trim``), collecting its garbage first
when no table is followed any more. Then it also stops the thread pool's idle worker
threads (:func:`stop_idle_threads`), each holding the pages its stack touched and its
own cache of the allocator's blocks. Elsewhere (no glibc) both do only what Python can.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import importlib
import threading
from collections.abc import Iterable

__all__ = ["LARGE_BLOCK", "POOLS", "give_back", "limit_pools", "stop_idle_threads"]

POOLS = 2
"""The allocator's pools in a server process: Python runs one thread at a time, so more
pools only keep more free memory apart."""
LARGE_BLOCK = 128 * 1024
"""Bytes from which a block gets a mapping of its own: glibc's starting threshold, kept."""
THREAD_EXIT = 1.0
"""Seconds :func:`give_back` waits at most for each stopped thread to end (an idle one
ends at once)."""
_M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter: the most pools (arenas)."""
_M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter: the size from which a block is mapped on its own (set,
it no longer rises)."""


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library if it is glibc (it has ``malloc_trim``), else ``None``."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def limit_pools() -> None:
    """Use :data:`POOLS` pools of memory (before the worker threads start), and map every
    block of :data:`LARGE_BLOCK` bytes or more on its own, all night."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_ARENA_MAX, POOLS)
        libc.mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK)


def give_back(*, collect: bool = True, ended: Iterable[threading.Thread] = ()) -> None:
    """Hand the allocator's free pages back to the system, after collecting the garbage
    (*collect*: some milliseconds, when nothing is followed live) and once the threads
    *ended* (:func:`stop_idle_threads`) have ended. Blocking: call it in a worker thread,
    never under a lock."""
    for thread in ended:
        thread.join(THREAD_EXIT)
    if collect:
        gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def stop_idle_threads() -> list[threading.Thread]:
    """Stop the idle worker threads of the running event loop's thread pool (AnyIO's, where
    Starlette runs blocking work), and return them; call it in the event loop.

    AnyIO stops a thread that has been idle for 10 s only when it is next given work, so
    after a busy night some forty idle threads would stay. This reaches into AnyIO's
    private pool as its own pruning does; where that changes, nothing is stopped
    (``tests/test_web_memory.py`` says so).

    >>> stop_idle_threads()  # no event loop, no pool
    []
    """
    try:
        backend = importlib.import_module("anyio._backends._asyncio")
        idle = backend._threadpool_idle_workers.get()
    except (ImportError, AttributeError, LookupError, RuntimeError):
        return []
    stopped: list[threading.Thread] = []
    while idle:
        worker = idle.popleft()
        worker.root_task.remove_done_callback(worker.stop)
        worker.stop()
        stopped.append(worker)
    return stopped
