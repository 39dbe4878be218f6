"""The WebSocket route of the live pages: one socket per page, the hub's messages sent down it.

:func:`add_live_route` adds ``/ws/{code}?v=N&s=ID`` (the version the page has, the id its
own actions name the socket by); who the socket is comes from the app's *identify* (the
page's cookies). Each socket is a
:class:`~andar_bahar.web.live.Follower` of its table's room; :func:`serve_follower` sends
its messages in order and answers the browser's ``ping`` with ``pong``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable

from fastapi import FastAPI
from starlette.websockets import WebSocket, WebSocketDisconnect

from andar_bahar.web.live import POLICY_VIOLATION, SERVICE_RESTART, Follower, Hub, Viewer
from andar_bahar.web.notify import SOCKET_ID

__all__ = [
    "POLICY_VIOLATION",
    "SERVICE_RESTART",
    "TABLE_CODE",
    "Identify",
    "add_live_route",
    "serve_follower",
]

log = logging.getLogger(__name__)

TABLE_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The table codes the live route accepts."""
Identify = Callable[[WebSocket, str], Awaitable[Viewer | None]]
"""Who the socket following table *code* is (``None``: it may not; closed with 1008)."""


async def serve_follower(websocket: WebSocket, follower: Follower) -> None:
    """Send *follower*'s messages until the browser leaves; answer its ``ping`` with ``pong``.

    Two tasks: one sends the queued messages in order, one reads what the browser sends
    (``ping``, or that it left); when either ends, so does the other.
    """
    lock = asyncio.Lock()

    async def send(text: str) -> None:
        async with lock:
            await websocket.send_text(text)

    async def listen() -> None:  # returns when the browser leaves
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") == "ping":
                await send("pong")

    async def speak() -> None:  # returns when the server ends the socket
        queue = follower.queue
        while True:
            text = await queue.get()
            if text is None:
                await websocket.close(code=SERVICE_RESTART)
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
    ``?s=ID`` the id its own actions name it by (:data:`~andar_bahar.web.notify.SOCKET_HEADER`).

    A code that is not a table code, or a socket *identify* refuses, is closed with
    1008 (the browser then stops retrying). Text ``ping`` is answered ``pong``.
    """

    async def live(websocket: WebSocket, code: str) -> None:
        try:
            version = int(websocket.query_params.get("v", "-1"))
        except ValueError:
            version = -1
        viewer = await identify(websocket, code) if TABLE_CODE.fullmatch(code) else None
        await websocket.accept()
        if viewer is None:
            await websocket.close(code=POLICY_VIOLATION)
            return
        socket = websocket.query_params.get("s", "")
        named = socket if SOCKET_ID.fullmatch(socket) else None
        async with hub.follow(code, viewer, version, named) as follower:
            await serve_follower(websocket, follower)

    app.add_api_websocket_route(path, live, name="live")
