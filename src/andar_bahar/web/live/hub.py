"""Live pages: the server pushes the new HTML of what changed; a page never asks for it.

The protocol of the live pages (versions, live regions, messages, catch-up) and its
mechanism, for any page that follows a table:

- Every committed change of a table has a version and a
  :class:`~andar_bahar.club.events.TableEvent`; the :class:`Hub` of each process gets
  them in the order of the versions (:meth:`Hub.deliver`; from another thread
  :meth:`Hub.deliver_threadsafe`).
- A socket that follows a table is a :class:`Follower` with a :class:`Viewer`
  (page kind, role, language; a player's id and name) and the version its page has.
  The followers of one table in this process share a :class:`Room`.
- A room renders in one task at a time: it reads the table once (the
  :class:`Renderer`'s ``read``), renders the **shared** blocks once per group
  (page kind, role, language) with followers, and the **private** blocks only of
  the players the events concern, then sends each follower one JSON message
  ``{"v", "kind", "blocks", "data"}`` with the blocks that differ from what it has.
  Events that arrive while a render is under way are merged into the next one: a
  message stands for every event up to its ``v`` (the HTML may be newer still;
  never older).
- A follower that opens with ``?v=N`` older than the table, or that fell behind
  (its queue overflowed, or this process's LISTEN connection was lost), gets one
  message with **every** block of its page at the version read.
- A message's HTML is at the version read, which may be newer than its ``v`` (events
  merged): it then says so (``"h"``). A page replaces a block only with HTML at least as
  new as the block's (``live.js``): the answer to its own action and the socket's
  messages may reach it in either order.
- A dealt card comes alone where it is all a page's felt lacks: a follower whose felt
  stands earlier in the same round gets the cards dealt since (``"piles"``) instead of
  the felt block, and ``live.js`` appends them (:mod:`~andar_bahar.web.live.cards`,
  :mod:`~andar_bahar.web.live.piles`); a page whose felt is not where they start asks for
  every block again.
- Public viewers get shared blocks only; a player only their own private blocks. A
  socket whose seat or dealer's sign-in has ended since it came (a new seat code, a
  released seat, a device signed out) is ended at the next render, with 1012: the
  browser reconnects as whoever it is now (a public viewer, or refused).

Fewer and smaller messages, on purpose: events are coalesced (one render for all the
events that arrived meanwhile), and a block is sent only when its HTML changed
for that follower, and a message that would bring a page no block and no data it has
not got (another phone's bet, to a phone) is not sent at all; all three only make
messages fewer and smaller. So the ``v`` a page receives may jump (17, then 20): that
is not a gap — the server keeps, for each socket, what it was sent, and a socket that
really fell behind gets the full set. Likewise, a change made by a page's own action
(its socket named in the event: :data:`~andar_bahar.club.events.ACTOR`) is not sent down
that page's socket when the render is at the change's own version: the answer to the
action, drawn from the same blocks, brings it (every block to a dealer's page, its own
ones to a phone; :data:`COMPLETE_ANSWERS`), and the socket gets only the rest. The
element rule:
``data-live-block="NAME"`` is on the element, the Jinja block ``NAME`` renders its
*inside*, and a message replaces the inside.

When the last socket of a table in this process closes, its room goes; a beat later, if
nobody follows the table here again (at once if it was closed for the night), the
renderer lets go of what it kept for the table (:meth:`Renderer.release`) and the
process gives its free memory back (:func:`~andar_bahar.web.live.memory.give_back`; collecting its
garbage first when no table is followed any more, and then stopping the idle worker
threads: :func:`~andar_bahar.web.live.memory.stop_idle_threads`). A table closed for the night
(:data:`~andar_bahar.club.events.TABLE_CLOSED`) ends its sockets once they have the
render that shows it closed, with :data:`POLICY_VIOLATION`: the pages stop following it
(a socket opened to it later is refused; one let in just before the close, whose room
came after its event, ends at its first render, which shows the table closed), and its
room goes.

Never silently stale: every socket hears from the server at least once a beat
(:data:`BEAT`, 10 s): a socket that was sent nothing for half a beat gets
:data:`HEARTBEAT`, a constant text the page recognises (:meth:`Hub.heartbeat`, one loop
for every socket of the process, no render). A page that hears nothing for 1.4 beats
takes its line for dead, says "reconnecting…" and connects again at once (``live.js``):
a connection that died without a word (a Wi-Fi that dropped, a black-holed route) is
noticed within 15 s of its last word, a busy phone's late timer included, and the
catch-up above brings the page up to date. A database that stops answering does not
end the sockets: their pages keep what they show, and get their full set when it is
back (:mod:`~andar_bahar.club.health`); a socket opened meanwhile is closed with
:data:`TRY_AGAIN_LATER`.

The bet timer: when a room's table has a deadline ahead, the room calls the
renderer's ``close_expired`` at that moment (every process with followers does;
the service makes it happen once).

A renderer may keep a block's HTML and send it again while what the block shows is the
same (the club's pages do: :mod:`~andar_bahar.web.live.keys`); a block that shows the
server's time (a countdown's ``data-now``) holds :data:`SERVER_NOW` in its place, and
every message is sent with the time it was made there (:func:`with_now`). The socket
route itself is :mod:`~andar_bahar.web.live.sockets`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from andar_bahar.club.events import ROUND_STEPS, TABLE_CLOSED, TableEvent
from andar_bahar.club.health import DatabaseUnavailable
from andar_bahar.web.live.followers import (
    COMPLETE_ANSWERS,
    QUEUE,
    SERVICE_RESTART,
    Follower,
    Messages,
    running_loop,
)
from andar_bahar.web.live.memory import give_back, stop_idle_threads
from andar_bahar.web.live.protocol import Renderer, Viewer
from andar_bahar.web.live.text import SERVER_NOW, message_text, with_now

__all__ = [
    "BEAT",
    "COMPLETE_ANSWERS",
    "HEARTBEAT",
    "POLICY_VIOLATION",
    "QUEUE",
    "SERVER_NOW",
    "SERVICE_RESTART",
    "TRY_AGAIN_LATER",
    "Follower",
    "Hub",
    "hub_of",
    "message_text",
    "with_now",
]

log = logging.getLogger(__name__)

POLICY_VIOLATION = 1008
"""A socket refused (who it is may not follow this page): the browser stops retrying."""
TRY_AGAIN_LATER = 1013
"""A socket the server cannot serve now (its database is not answering): the browser
tries again, less often than after a network failure."""
HEARTBEAT = "beat"
"""What a socket that has had nothing for half a beat is sent: the line is alive."""
BEAT = 10.0
"""Seconds: the longest a live socket goes without a message from the server (a page that
hears nothing for 1.4 beats reconnects; ``base.html`` tells it the beat)."""


class Room:
    """The followers of one table in this process, and their renders (one at a time)."""

    def __init__(self, hub: Hub, code: str) -> None:
        self.hub = hub
        self.code = code
        self.followers: set[Follower] = set()
        self.seen = 0
        """The newest version delivered (0: none yet)."""
        self.pending: TableEvent | None = None
        self.resync = False
        self.recheck = True
        """Whether who holds a seat or a sign-in may have changed since the last render (a
        change that is not a step of the round, events missed, a new room)."""
        self.task: asyncio.Task[None] | None = None
        self.timer: tuple[datetime, asyncio.TimerHandle] | None = None
        self.closed = False
        """Whether the table was closed for the night (its sockets are ending)."""

    def deliver(self, event: TableEvent) -> None:
        if event.version <= self.seen:
            return  # already covered
        if self.seen and event.version > self.seen + 1:  # some were missed: everyone's blocks
            event = TableEvent(event.code, event.version, event.kind, None)
            self.recheck = True
        if event.kind not in ROUND_STEPS:
            self.recheck = True
        self.seen = event.version
        self.pending = event if self.pending is None else self.pending.merge(event)
        self.wake()

    def wake(self) -> None:
        if self.task is None or self.task.done():
            # A context of its own: not the one of the request whose commit woke it (its
            # notify.ACTOR would name the bets' timer closing them as that page's action).
            loop = asyncio.get_running_loop()
            self.task = loop.create_task(self._run(), context=contextvars.Context())

    async def _run(self) -> None:
        # Follower state changes only here, between renders, and in _render (one at a time).
        while self.followers and (
            self.pending is not None or self.resync or any(f.full for f in self.followers)
        ):
            if self.resync:
                self.resync, self.recheck = False, True
                for follower in self.followers:
                    follower.behind()
            event, self.pending = self.pending, None
            recheck, self.recheck = self.recheck, False
            followers = list(self.followers)
            try:
                out, deadline, closed = await run_in_threadpool(
                    self._render, event, followers, recheck
                )
            except DatabaseUnavailable:  # said once by its Health; Hub.resync when it is back
                self.resync = True
                return
            except Exception:  # a broken page must not stop the table: the next event retries
                log.exception("live update of table %s failed", self.code)
                self.resync = True  # and then every socket gets its full set
                return
            for follower, text in out:
                if not follower.push(text):
                    self.wake()
            # The worker thread keeps its last job's arguments and result until its next
            # job: nothing of this render (its followers' blocks, its messages) stays there.
            out.clear()
            followers.clear()
            self._schedule(deadline)
            if closed:  # also before this room had the close's event (a page let in
                self.hub.end(self)  # just before the close): it ends all the same

    def _render(
        self, event: TableEvent | None, followers: list[Follower], recheck: bool = True
    ) -> tuple[list[tuple[Follower, str | None]], datetime | None, bool]:
        """In a worker thread: read the table once and make every follower's message; with
        when its bets close by the timer and whether it is closed for the night."""
        renderer = self.hub.renderer
        assert renderer is not None
        if recheck:
            renderer.forget(self.code)
        snapshot = renderer.read(self.code, event.version if event is not None else None)
        one = Messages(renderer, snapshot, event)
        out: list[tuple[Follower, str | None]] = []
        for follower in followers:
            if not renderer.allowed(snapshot, follower.viewer):  # signed out since it came:
                out.append((follower, None))  # ended; it reconnects as who it is now
            elif (text := one.message(follower)) is not None:
                out.append((follower, text))
        return out, renderer.deadline(snapshot), renderer.closed(snapshot)

    def _schedule(self, deadline: datetime | None) -> None:
        """Close the bets at *deadline* (once per deadline; cancelled when it changes)."""
        if self.timer is not None and self.timer[0] != deadline:
            self.timer[1].cancel()
            self.timer = None
        if deadline is None or self.timer is not None:
            return
        delay = max(0.0, (deadline - datetime.now(UTC)).total_seconds())
        loop = asyncio.get_running_loop()
        self.timer = (deadline, loop.call_later(delay, self._expire))

    def _expire(self) -> None:
        renderer = self.hub.renderer
        if renderer is not None:
            task = asyncio.ensure_future(run_in_threadpool(renderer.close_expired, self.code))
            self.hub.tasks.add(task)
            task.add_done_callback(self._expired)

    def _expired(self, task: asyncio.Future[None]) -> None:
        self.hub.tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is None:
            return
        self.timer = None  # the next render sets it again (at once: the deadline has passed)
        if not isinstance(error, DatabaseUnavailable):
            log.error("closing the bets of table %s failed", self.code, exc_info=error)

    def close(self, ending: int = SERVICE_RESTART) -> None:
        """End every socket with *ending* (the close code)."""
        if self.timer is not None:
            self.timer[1].cancel()
        for follower in list(self.followers):  # a socket may end (and leave) meanwhile
            follower.ending = ending
            follower.push(None)


class Hub:
    """This process's followers of every table, and the events that reach them."""

    def __init__(self, renderer: Renderer | None = None, *, beat: float = BEAT) -> None:
        self.renderer = renderer
        self.beat = beat
        """Seconds: the longest a socket goes without a message (:meth:`heartbeat`)."""
        self.rooms: dict[str, Room] = {}
        self.tasks: set[asyncio.Future[Any]] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver the events of other threads in *loop* (the app's, at startup)."""
        self.loop = loop

    def deliver(self, event: TableEvent) -> None:
        """A committed change (in the event loop; in version order for each table). A table
        closed: its sockets end after the render that shows it so (:meth:`end`)."""
        room = self.rooms.get(event.code.upper())
        if room is not None:
            room.deliver(event)
            if event.kind == TABLE_CLOSED:
                self.end(room)

    def end(self, room: Room) -> None:
        """*room*'s table is closed for the night (said by its event, or seen by its render;
        once): end its sockets once its renders are sent, with :data:`POLICY_VIOLATION`: the
        pages keep what they show (the table closed) and stop following; the room then goes."""
        if room.closed:
            return
        room.closed = True

        async def after_renders() -> None:
            while room.task is not None and not room.task.done():
                await asyncio.wait({room.task})
            room.close(POLICY_VIOLATION)

        task = asyncio.ensure_future(after_renders())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def deliver_threadsafe(self, event: TableEvent) -> None:
        """:meth:`deliver` from any thread (the order of the calls is kept)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(self.deliver, event)

    async def resync(self) -> None:
        """Events may have been missed: every follower gets its full set again."""
        for room in list(self.rooms.values()):
            room.resync = True
            room.wake()

    def resync_threadsafe(self) -> None:
        """:meth:`resync` from any thread (the database is back: renders that failed meanwhile)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing
                asyncio.run_coroutine_threadsafe(self.resync(), loop)

    async def heartbeat(self) -> None:
        """While the app runs: every half beat, each socket that was sent nothing for half
        a beat gets :data:`HEARTBEAT` — so none goes a whole beat without a word. One loop
        for every socket of the process; a socket with messages on their way gets none."""
        half = self.beat / 2
        while True:
            await asyncio.sleep(half)
            quiet = time.monotonic() - half
            for room in list(self.rooms.values()):
                for follower in list(room.followers):
                    if follower.sent <= quiet and follower.queue.empty():
                        follower.push(HEARTBEAT)

    @contextlib.asynccontextmanager
    async def follow(
        self, code: str, viewer: Viewer, version: int, socket: str | None = None
    ) -> AsyncIterator[Follower]:
        """Follow table *code* from *version* (what the page has): a first message brings it
        up to date if it is older. *socket*: the id the page names its own actions by."""
        key = code.upper()
        room = self.rooms.get(key)
        if room is None:
            room = self.rooms[key] = Room(self, key)
        follower = Follower(viewer, version, socket)
        room.followers.add(follower)
        room.wake()
        try:
            yield follower
        finally:
            room.followers.discard(follower)
            if not room.followers and self.rooms.get(key) is room:
                room.close()
                del self.rooms[key]
                self._release(key, closed=room.closed)

    def _release(self, code: str, *, closed: bool = False) -> None:
        """Let go of what is kept for table *code* (in a worker thread, after its last
        render), and give the free memory back (collecting the garbage first if no table
        is followed any more) — at once if it was *closed* for the night, else once it has
        gone a whole beat unfollowed (a phone that lost its line reconnects: its table is
        not drawn again from nothing). The night's end — the table closed and no table
        followed any more — also lets the renderer rest."""
        renderer = self.renderer
        last = not self.rooms

        def release() -> None:
            try:
                if renderer is not None:
                    renderer.release(code)
                    if last and closed:
                        renderer.rest()
            except DatabaseUnavailable:  # said by its Health; kept until the next time
                pass
            except Exception:
                log.exception("letting go of table %s failed", code)
            give_back(collect=last)

        async def later() -> None:
            if not closed:  # a page that lost its line is usually back within a beat
                await asyncio.sleep(self.beat)
            room = self.rooms.get(code)
            if room is None or not room.followers:  # not followed again meanwhile
                await run_in_threadpool(release)
                # The night's end: the threads it started go too, and their memory with
                # them — after the release's own give-back, not merged into it (stopping
                # them before the release left 1–7 MiB more, in three runs of 10 × 20 × 6).
                if not self.rooms:
                    ended = stop_idle_threads()
                    await run_in_threadpool(partial(give_back, collect=False, ended=ended))

        def start() -> None:
            task = asyncio.ensure_future(later())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        # In the hub's loop: a socket served in a loop of its own (a test's client) may end
        # with its loop, which would cancel the release on its way.
        loop = self.loop
        if loop is None or loop is running_loop():
            start()
        elif not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing
                loop.call_soon_threadsafe(start)

    def followers(self, code: str) -> int:
        """How many sockets follow *code* in this process now."""
        room = self.rooms.get(code.upper())
        return len(room.followers) if room is not None else 0

    def close(self) -> None:
        """End every socket (at shutdown: the browsers reconnect, with backoff, to the next
        server), and the hub's own tasks (a release waiting its beat …)."""
        for room in list(self.rooms.values()):
            room.close()
        self.rooms.clear()
        for task in list(self.tasks):
            task.cancel()


def hub_of(conn: HTTPConnection) -> Hub:
    """The app's hub, from a route's request or socket."""
    hub = conn.app.state.hub
    assert isinstance(hub, Hub)
    return hub
