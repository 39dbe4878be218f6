"""A phone's network line, as the tests that cut it have it: a TCP relay that can fail.

:class:`Link` listens on a free loopback port and relays every connection to the server's
port. It can **black-hole** the line — hold every byte both ways and close nothing, as a
Wi-Fi that froze or a route that lost its packets — or **drop** it: close every connection
and refuse new ones, as a phone that left the network. Either way the browser fires no
``online`` event when it is back. A server that is not listening (killed, restarting) is
a refused connection here too: the relay closes the browser's side at once.
"""

from __future__ import annotations

import contextlib
import socket
import threading

__all__ = ["Link"]


class Link:
    """A TCP relay from a free loopback port to *target*, that can black-hole or drop."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.flowing = threading.Event()
        self.flowing.set()
        self.refusing = False
        self.refused = 0
        """Connections refused since the last :meth:`drop` (the page's attempts)."""
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        self.flowing.wait()  # black-holed: the connection is held, nothing goes through
        if self.refusing:
            self.refused += 1
            client.close()
            return
        try:
            upstream = socket.create_connection(("127.0.0.1", self.target))
        except OSError:  # the server is not listening (killed): refused, as it would be
            client.close()
            return
        with self.lock:
            self.open += [client, upstream]
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            self.flowing.wait()
            try:
                sink.sendall(data)
            except OSError:
                break
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def black_hole(self) -> None:
        """Hold every byte, both ways; close nothing."""
        self.flowing.clear()

    def drop(self) -> None:
        """Close every connection, and refuse new ones."""
        self.refusing, self.refused = True, 0
        with self.lock:
            gone, self.open = self.open, []
        for connection in gone:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def restore(self) -> None:
        self.refusing = False
        self.flowing.set()

    def close(self) -> None:
        self.restore()
        self.listener.close()
        self.drop()
