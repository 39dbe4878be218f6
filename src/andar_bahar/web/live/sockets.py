"""The WebSocket route of the live pages: one socket per page, the hub's messages sent down it.

:func:`add_live_route` adds ``/ws/{code}?v=N&s=ID`` (the version the page has, the id its
own actions name the socket by); who the socket is comes from the app's *identify* (the
page's cookies). Each socket is a
:class:`~andar_bahar.web.live.hub.Follower` of its table's room; :func:`serve_follower` sends
its messages in order (and the hub's heartbeats) and answers the browser's ``ping`` with
``pong``.

A page sends little: ``ping`` when it comes back from sleep. So a message over
:data:`MESSAGE_MOST` bytes closes its socket (1009), and so does a socket sending more
than :data:`MESSAGES_PER_SECOND` a second (after a burst of :data:`MESSAGE_BURST`: 1008),
before either costs the server anything (``serve`` enforces both in uvicorn's protocol
too, ping frames included: :mod:`~andar_bahar.web.http.connections`).

>>> clock = iter([0.0] * 12 + [0.2]).__next__  # the bucket's start, 11 events, then 0.2 s
>>> rate = Rate(5, 10, clock)
>>> [rate.allow() for _ in range(11)]  # a burst of 10, then nothing until time passes
[True, True, True, True, True, True, True, True, True, True, False]
>>> rate.allow()  # 0.2 s later: one more (5 a second)
True
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.websockets import WebSocket, WebSocketDisconnect

from andar_bahar.club.events import SOCKET_ID
from andar_bahar.club.health import DatabaseUnavailable
from andar_bahar.web.live.hub import (
    POLICY_VIOLATION,
    SERVICE_RESTART,
    TRY_AGAIN_LATER,
    Follower,
    Hub,
)
from andar_bahar.web.live.protocol import Viewer

__all__ = [
    "MESSAGES_PER_SECOND",
    "MESSAGE_BURST",
    "MESSAGE_MOST",
    "MESSAGE_TOO_BIG",
    "POLICY_VIOLATION",
    "SERVICE_RESTART",
    "TABLE_CODE",
    "Identify",
    "Rate",
    "add_live_route",
    "serve_follower",
]

log = logging.getLogger(__name__)

TABLE_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The table codes the live route accepts."""
Identify = Callable[[WebSocket, str], Awaitable[Viewer | None]]
"""Who the socket following table *code* is (``None``: it may not; closed with 1008)."""
MESSAGE_MOST = 4096
"""The longest message a page may send (bytes): a longer one closes the socket."""
MESSAGE_TOO_BIG = 1009
"""The close code of a socket that sent a longer message (the WebSocket standard's)."""
MESSAGES_PER_SECOND, MESSAGE_BURST = 5, 10
"""How many messages a socket may send: 5 a second on average, 10 at once (a page sends
one ``ping`` when it wakes up); more closes the socket with 1008."""


class Rate:
    """At most *per_second* events a second on average and *burst* at once (a token bucket)."""

    def __init__(
        self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def allow(self) -> bool:
        """Whether one more event is allowed now (it then counts)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def serve_follower(websocket: WebSocket, follower: Follower) -> None:
    """Send *follower*'s messages until the browser leaves; answer its ``ping`` with ``pong``.

    Two tasks: one sends the queued messages in order, one reads what the browser sends
    (``ping``, or that it left); when either ends, so does the other. A message too long
    or too many close the socket.
    """
    lock = asyncio.Lock()
    rate = Rate(MESSAGES_PER_SECOND, MESSAGE_BURST)

    async def send(text: str) -> None:
        async with lock:
            await websocket.send_text(text)
            follower.sent = time.monotonic()

    async def listen() -> None:  # returns when the browser leaves, or is sent away
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text, data = message.get("text"), message.get("bytes")
            size = len(text.encode()) if text is not None else len(data or b"")
            if size > MESSAGE_MOST or not rate.allow():
                async with lock:
                    await websocket.close(
                        code=MESSAGE_TOO_BIG if size > MESSAGE_MOST else POLICY_VIOLATION
                    )
                return
            if text == "ping":
                await send("pong")

    async def speak() -> None:  # returns when the server ends the socket
        queue = follower.queue
        while True:
            text = await queue.get()
            if text is None:
                await websocket.close(code=follower.ending)
                return
            await send(text)

    tasks = {asyncio.ensure_future(listen()), asyncio.ensure_future(speak())}
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            error = task.exception()
            if error is not None and not isinstance(
                error, WebSocketDisconnect | OSError | RuntimeError
            ):
                raise error
            if error is not None:  # the browser went away
                log.debug("live connection ended: %r", error)
    finally:
        for task in tasks:  # the other one ends at its next step (nothing to wait for)
            task.cancel()


def add_live_route(app: FastAPI, hub: Hub, identify: Identify, *, path: str = "/ws/{code}") -> None:
    """Add the WebSocket route *path* (named ``live``): ``?v=N`` is the version the page has,
    ``?s=ID`` the id its own actions name it by (:data:`~andar_bahar.club.events.SOCKET_HEADER`).

    A code that is not a table code, or a socket *identify* refuses, is closed with
    1008 (the browser then stops retrying); one that cannot be served while the database
    is not answering, with 1013 (it tries again later). Text ``ping`` is answered ``pong``.
    """

    async def live(websocket: WebSocket, code: str) -> None:
        try:
            version = int(websocket.query_params.get("v", "-1"))
        except ValueError:
            version = -1
        try:
            viewer = await identify(websocket, code) if TABLE_CODE.fullmatch(code) else None
        except DatabaseUnavailable:  # accepted, to say why: the page tries again later
            await websocket.accept()
            await websocket.close(code=TRY_AGAIN_LATER)
            return
        await websocket.accept()
        if viewer is None:
            await websocket.close(code=POLICY_VIOLATION)
            return
        socket = websocket.query_params.get("s", "")
        named = socket if SOCKET_ID.fullmatch(socket) else None
        async with hub.follow(code, viewer, version, named) as follower:
            await serve_follower(websocket, follower)

    app.add_api_websocket_route(path, live, name="live")
