"""The history, off the screen's thread: one worker thread does every database call in order.

Opening the database (SQLAlchemy, the migrations) takes a moment; a screen never waits
for it. A call is queued with :meth:`Records.submit` and its result comes back as an
:class:`asyncio.Future`; the calls run one after another, so a game is started before
its rounds are stored.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from andar_bahar.storage import Storage

__all__ = ["GameRecord", "Records"]

T = TypeVar("T")


class Records:
    """The history database at *url* (or a store already open), used from one thread."""

    def __init__(self, url: str | None, store: Storage | None = None) -> None:
        self.url = url
        self._store = store
        self._owned = store is None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="history")
        self._lock = threading.Lock()
        self._closed = False

    def _open(self) -> Storage:
        with self._lock:
            if self._store is None:
                from andar_bahar.storage import Storage

                self._store = Storage.open(self.url)
            return self._store

    def submit(self, work: Callable[[Storage], T]) -> asyncio.Future[T]:
        """Run ``work(store)`` on the history's thread; await the returned future."""
        if self._closed:
            loop_future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            loop_future.cancel()
            return loop_future
        return asyncio.wrap_future(self._pool.submit(lambda: work(self._open())))

    def warm_up(self) -> None:
        """Open the database in the background, so that the first game does not wait."""
        if not self._closed:
            self._pool.submit(self._quietly_open)

    def _quietly_open(self) -> None:
        try:
            self._open()
        except Exception:
            return

    async def idle(self) -> None:
        """Wait until every queued call has run (for tests and for quitting)."""
        if not self._closed:
            await asyncio.wrap_future(self._pool.submit(lambda: None))

    def close(self) -> None:
        """Finish the queued calls and close the database."""
        if self._closed:
            return
        self._closed = True
        self._pool.shutdown(wait=True)
        if self._store is not None and self._owned:
            self._store.close()


class GameRecord:
    """A game's row in the history, known on the history's thread once it is stored.

    Calls queued after :meth:`Records.submit` of the start see :attr:`id` set, because
    the calls run in order; a game whose start could not be stored has ``None``.
    """

    def __init__(self) -> None:
        self.id: int | None = None
        self.finished = False
