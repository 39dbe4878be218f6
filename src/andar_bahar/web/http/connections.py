"""What one connection may cost the server: the uvicorn protocols and settings ``serve`` runs.

uvicorn waits for a request as long as its client likes (its keep-alive timeout is for
the quiet between two requests, and every byte starts it over), answers every WebSocket
ping frame at once, and opens connections until the process runs out of files. A phone
on the club's Wi-Fi never needs any of that, and a client that abuses it slows everyone:

- :class:`BoundedHttp` — a request's headers and body must arrive within
  :data:`READ_TIMEOUT` (10 s) of its first byte (for a new connection, of the
  connection), or the connection is closed; the clock stops once the request is whole
  (a slow answer is the server's business, not the client's) and at a WebSocket upgrade;
- :class:`BoundedWebSocket` — every frame a client sends (messages, pings, pongs) counts
  against :data:`~andar_bahar.web.live.sockets.MESSAGES_PER_SECOND` (a burst of
  :data:`~andar_bahar.web.live.sockets.MESSAGE_BURST`): past it the socket is closed (1008)
  and nothing more it sent is read; what it sent is read a slice at a time, so a flood
  in one read is cut short too;
- :func:`server_settings` — those two, messages of at most 4 KiB, uvicorn's own ping of
  every socket (a socket that does not answer within :data:`PING_TIMEOUT` is freed),
  and :func:`open_files`: the process may open as many files as the system lets it, and
  uvicorn answers 503 before it runs out (``limit_concurrency``).
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame

from andar_bahar.web.live.hub import POLICY_VIOLATION
from andar_bahar.web.live.sockets import MESSAGE_BURST, MESSAGE_MOST, MESSAGES_PER_SECOND, Rate

__all__ = [
    "FILES_KEPT",
    "FILES_MOST",
    "PING_INTERVAL",
    "PING_TIMEOUT",
    "READ_SLICE",
    "READ_TIMEOUT",
    "BoundedHttp",
    "BoundedWebSocket",
    "open_files",
    "server_settings",
]

READ_TIMEOUT = 10.0
"""Seconds in which a request's headers and body must arrive."""
PING_INTERVAL, PING_TIMEOUT = 10.0, 10.0
"""uvicorn pings every socket this often and closes one that has not answered in time:
a phone that vanished (no close) is freed within 20 s."""
READ_SLICE = 4096
"""Bytes of a WebSocket's input handed to its parser at a time (:class:`BoundedWebSocket`)."""
FILES_MOST = 65536
"""The most open files ``serve`` asks for (the system's hard limit may be lower)."""
FILES_KEPT = 256
"""Open files kept for other things than connections (the database's, the log, the
static files being sent): uvicorn answers 503 to connections past the rest."""


class BoundedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools), where a request must arrive within :data:`READ_TIMEOUT`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(READ_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()  # the app, if it waits for the body, hears a disconnect


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets' sans-I/O), where a client's frames are rationed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rate = Rate(MESSAGES_PER_SECOND, MESSAGE_BURST)
        self.flooded = False

    def data_received(self, data: bytes) -> None:
        for start in range(0, len(data), READ_SLICE):
            if self.flooded:  # the rest of what it sent is not even parsed
                return
            super().data_received(data[start : start + READ_SLICE])

    def handle_text(self, event: Frame) -> None:
        if self._allowed():
            super().handle_text(event)

    def handle_bytes(self, event: Frame) -> None:
        if self._allowed():
            super().handle_bytes(event)

    def handle_cont(self, event: Frame) -> None:
        if self._allowed():
            super().handle_cont(event)

    def handle_ping(self) -> None:
        if self._allowed():
            super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if self._allowed():
            super().handle_pong(event)

    def _allowed(self) -> bool:
        """Whether one more frame of the client's is read; if not, the socket is closed."""
        if self.close_sent or self.transport.is_closing():
            return False
        if self.rate.allow():
            return True
        self.flooded = True
        self.conn.fail(POLICY_VIOLATION, "too many messages")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()
        return False


def open_files() -> int:
    """Let this process open as many files as the system allows (up to :data:`FILES_MOST`):
    every connection is one. The number it may open now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILES_MOST if hard == resource.RLIM_INFINITY else min(hard, FILES_MOST)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # not allowed here: keep what there is
            pass
    return FILES_MOST if soft == resource.RLIM_INFINITY else soft


def server_settings() -> dict[str, Any]:
    """uvicorn's settings for ``serve`` (raising this process's open files first, which its
    workers inherit).

    Live messages are small and many, so they are not compressed (compressing each one for
    each phone would cost more CPU than the Wi-Fi saves); a page only ever sends ``ping``
    over its socket, so a message over 4 KiB closes the socket (1009) instead of being read
    into memory (uvicorn's default allows 16 MiB).
    """
    return {
        "log_level": "warning",
        "http": BoundedHttp,
        "ws": BoundedWebSocket,
        "ws_per_message_deflate": False,
        "ws_max_size": MESSAGE_MOST,
        "ws_ping_interval": PING_INTERVAL,
        "ws_ping_timeout": PING_TIMEOUT,
        "limit_concurrency": max(64, open_files() - FILES_KEPT),
    }
