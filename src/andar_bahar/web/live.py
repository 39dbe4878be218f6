"""Live updates: when something happens at a table, every open page of it reloads its parts.

A route that changes a table publishes an event to the :class:`Hub`; the WebSocket
route ``/ws/{code}`` (:func:`add_live_routes`) sends it to every browser following
that table; ``static/live.js`` turns each message into the htmx event
``table-changed`` on ``<body>``, and every fragment declared with
``hx-trigger="table-changed from:body"`` fetches itself again.

Table codes are case-insensitive (``abc123`` is ``ABC123``), as the service has them.
The hub lives in one process (``andar-bahar serve`` runs one). :meth:`Hub.publish`
may be called from any thread — FastAPI runs ``def`` routes in a thread pool.

>>> import asyncio
>>> async def demo() -> list[dict[str, object]]:
...     hub = Hub()
...     async with hub.subscribe("T7") as events:
...         hub.publish("T7", {"kind": "card"})
...         hub.publish("T8", {"kind": "elsewhere"})
...         hub.close()
...         return [event async for event in events]
>>> asyncio.run(demo())
[{'kind': 'card'}]
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self

from fastapi import FastAPI
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket, WebSocketDisconnect

__all__ = ["TABLE_CODE", "Authorize", "Event", "Hub", "Subscription", "add_live_routes", "hub_of"]

log = logging.getLogger(__name__)

Event = dict[str, Any]
"""An event: a JSON object (Decimal and other values are sent as their text)."""
Authorize = Callable[[WebSocket, str], Awaitable[bool]]
"""May this WebSocket follow table *code*? (``False`` closes it with code 1008.)"""
TABLE_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The table codes the live route accepts."""

POLICY_VIOLATION = 1008
SERVICE_RESTART = 1012


def _key(table_code: str) -> str:
    return table_code.strip().upper()


class Subscription:
    """One follower of one table: an async iterator of events, ended by :meth:`close`."""

    def __init__(self, hub: Hub, table_code: str, maxsize: int) -> None:
        self.hub = hub
        self.table_code = table_code
        self.loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue(maxsize)
        self._closed = False

    def _deliver(self, event: Event | None) -> None:
        """Queue *event* (``None`` ends the stream); runs in the subscriber's loop."""
        if self._closed:
            return
        if event is None:
            self._closed = True
        while self._queue.full():  # a slow reader only needs to know *that* it changed
            self._queue.get_nowait()
        self._queue.put_nowait(event)

    async def get(self) -> Event | None:
        """The next event; ``None`` once the subscription or the hub is closed."""
        if self._closed and self._queue.empty():
            return None
        return await self._queue.get()

    def close(self) -> None:
        """Stop following the table (waiting readers get ``None``)."""
        self.hub._remove(self)
        self._deliver(None)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        event = await self.get()
        if event is None:
            raise StopAsyncIteration
        return event

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class Hub:
    """Publish an event to everyone following a table; in one process, thread-safe."""

    def __init__(self, *, queue_size: int = 64) -> None:
        self._queue_size = queue_size
        self._lock = threading.Lock()
        self._followers: dict[str, set[Subscription]] = {}

    def subscribe(self, table_code: str) -> Subscription:
        """Follow *table_code* (call it inside the event loop that will read the events)."""
        subscription = Subscription(self, _key(table_code), self._queue_size)
        with self._lock:
            self._followers.setdefault(subscription.table_code, set()).add(subscription)
        return subscription

    def publish(self, table_code: str, event: Mapping[str, Any]) -> int:
        """Send *event* to every follower of *table_code*; the number of followers."""
        payload = dict(event)
        with self._lock:
            followers = list(self._followers.get(_key(table_code), ()))
        for follower in followers:
            self._send(follower, payload)
        return len(followers)

    def followers(self, table_code: str) -> int:
        """How many are following *table_code* now."""
        with self._lock:
            return len(self._followers.get(_key(table_code), ()))

    def close(self) -> None:
        """End every current subscription (at shutdown: the browsers reconnect to the next server)."""
        with self._lock:
            followers = [s for group in self._followers.values() for s in group]
            self._followers.clear()
        for follower in followers:
            self._send(follower, None)

    def _send(self, follower: Subscription, event: Event | None) -> None:
        # Always through the follower's loop, from its thread too: events keep the order
        # in which they were published, whichever thread published them.
        try:
            follower.loop.call_soon_threadsafe(follower._deliver, event)
        except RuntimeError:  # its loop is closed: nobody is reading any more
            self._remove(follower)

    def _remove(self, follower: Subscription) -> None:
        with self._lock:
            group = self._followers.get(follower.table_code)
            if group is not None:
                group.discard(follower)
                if not group:
                    del self._followers[follower.table_code]


def hub_of(conn: HTTPConnection) -> Hub:
    """The app's hub, from a route's request: ``hub_of(request).publish(code, {...})``."""
    hub = conn.app.state.hub
    assert isinstance(hub, Hub)
    return hub


def _dumps(event: Event) -> str:
    return json.dumps(event, ensure_ascii=False, default=str)


async def _follow(websocket: WebSocket, subscription: Subscription) -> None:
    """Send the table's events until the browser leaves or the hub closes."""
    lock = asyncio.Lock()

    async def send(text: str) -> None:
        async with lock:
            await websocket.send_text(text)

    async def listen() -> None:  # returns when the browser leaves; answers its pings
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") == "ping":
                await send("pong")

    listener = asyncio.ensure_future(listen())
    try:
        while True:
            getter = asyncio.ensure_future(subscription.get())
            done, _ = await asyncio.wait({getter, listener}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                break
            event = getter.result()
            if event is None:
                await websocket.close(code=SERVICE_RESTART)
                break
            await send(_dumps(event))
    except (WebSocketDisconnect, OSError, RuntimeError) as error:  # the browser went away
        log.debug("live connection to %s ended: %r", subscription.table_code, error)
    finally:
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)


def add_live_routes(
    app: FastAPI, hub: Hub, *, path: str = "/ws/{code}", authorize: Authorize | None = None
) -> None:
    """Add the WebSocket route *path* (named ``live``) that streams *hub*'s events of a table.

    A code that is not a table code, or that *authorize* refuses, is closed with
    1008 (the browser then stops retrying). Text ``ping`` is answered ``pong``.
    """

    async def live(websocket: WebSocket, code: str) -> None:
        if not TABLE_CODE.fullmatch(code) or (
            authorize is not None and not await authorize(websocket, code)
        ):
            await websocket.accept()
            await websocket.close(code=POLICY_VIOLATION)
            return
        async with hub.subscribe(code) as subscription:
            await websocket.accept()  # subscribed first: no event is lost after the handshake
            await _follow(websocket, subscription)

    app.add_api_websocket_route(path, live, name="live")
