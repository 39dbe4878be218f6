"""Who a client is: every request's address, worked out once before any route.

Every limit counts a request by an IP address, parsed and checked
once, before any route (:class:`ClientAddresses`); a request whose address is none is
counted with every other such one (:data:`UNKNOWN`), never left uncounted. **Behind a
reverse proxy** every request comes from the proxy's address: ``andar-bahar serve --proxy
ADDRESS`` (addresses or networks, :func:`trusted_proxies`) takes the rightmost address of
``X-Forwarded-For`` that is not a trusted proxy — only on requests that come from one, so
that no one else can claim another address by sending the header — and an entry that is no
address (``local``, ``unknown``, anything made up) counts as the proxy's own address
(:func:`client_address`). A proxy is one machine: trusting a whole network (the club's
Wi-Fi) lets every device on it say whom it is counted as.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message

__all__ = ["UNKNOWN", "ClientAddresses", "client_address", "ip_of", "trusted_proxies"]


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def trusted_proxies(addresses: Iterable[str]) -> tuple[Network, ...]:
    """The reverse proxies whose ``X-Forwarded-For`` is believed (``serve --proxy``).

    Each is an IP address or a network; several may be given, or separated by commas.

    >>> [str(n) for n in trusted_proxies(["127.0.0.1", "192.168.1.7/24, ::1"])]
    ['127.0.0.1/32', '192.168.1.0/24', '::1/128']
    >>> trusted_proxies([])
    ()
    >>> trusted_proxies(["*"])
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ParameterError: The proxy '*' is not an IP address or network: name the address the reverse proxy connects from, such as 127.0.0.1 or 10.0.0.0/8.
    """
    trusted: list[Network] = []
    for given in addresses:
        for part in given.split(","):
            address = part.strip()
            try:
                trusted.append(ipaddress.ip_network(address, strict=False))
            except ValueError:
                raise ParameterError(
                    Message(
                        N_(
                            "The proxy '{address}' is not an IP address or network: name the"
                            " address the reverse proxy connects from, such as 127.0.0.1 or"
                            " 10.0.0.0/8."
                        ),
                        address=address,
                    )
                ) from None
    return tuple(trusted)


UNKNOWN = "unknown"
"""The client of a request whose address is no IP address (a test's client, a socket file):
all of them are counted together, never apart and never not at all."""


def ip_of(text: str | None) -> Address | None:
    """The IP address written in *text* (an ``X-Forwarded-For`` entry, a peer): bare, with
    a port (``192.0.2.7:443``, ``[2001:db8::1]:443``); ``None`` for anything else.

    >>> ip_of("[2001:db8::1]:443"), ip_of(" 192.0.2.7:80 "), ip_of("local"), ip_of("::1")
    (IPv6Address('2001:db8::1'), IPv4Address('192.0.2.7'), None, IPv6Address('::1'))
    """
    host = (text or "").strip()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:  # IPv4 and a port (an IPv6 address has several colons)
        host = host.partition(":")[0]
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def client_address(peer: str | None, forwarded: str, proxies: Sequence[Network]) -> str:
    """The address the limits count a request by: its peer's, or — from a trusted proxy
    (*proxies*) — the rightmost address of *forwarded* (``X-Forwarded-For``) that is not
    a trusted proxy. An entry that is no IP address (``local``, ``unknown``, anything a
    client made up) counts as the address of the proxy that passed it on: what a client
    writes into the header can change whom it is counted as, never that it is counted.

    >>> proxies = trusted_proxies(["127.0.0.1"])
    >>> client_address("127.0.0.1", "203.0.113.7", proxies)
    '203.0.113.7'
    >>> client_address("127.0.0.1", "198.51.100.1, 203.0.113.7", proxies)  # left: the client's
    '203.0.113.7'
    >>> client_address("127.0.0.1", "local", proxies), client_address("127.0.0.1", "", proxies)
    ('127.0.0.1', '127.0.0.1')
    >>> client_address("192.0.2.9", "203.0.113.7", proxies)  # no proxy: its header is a lie
    '192.0.2.9'
    >>> client_address("testclient", "203.0.113.7", proxies)
    'unknown'
    """
    address = ip_of(peer)
    if address is None:
        return UNKNOWN
    for entry in reversed(forwarded.split(",") if forwarded.strip() else ()):
        if not _trusted(address, proxies):
            break
        forwarder = ip_of(entry)
        if forwarder is None:  # made up: it stays the proxy's own address
            break
        address = forwarder
    return str(address)


def _trusted(address: Address, proxies: Sequence[Network]) -> bool:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return any((mapped or address) in network for network in proxies)


class ClientAddresses:
    """ASGI middleware: every request's ``client`` is an IP address (:func:`client_address`),
    or :data:`UNKNOWN`; from a trusted proxy, its ``X-Forwarded-Proto`` gives the scheme too.

    What every limit counts by, checked once, before any route: the project reads
    ``X-Forwarded-For`` itself rather than through uvicorn's ``proxy_headers``, which takes
    an entry that is no address (``local``) as the client's as it is.
    """

    def __init__(self, app: ASGIApp, proxies: Sequence[Network] = ()) -> None:
        self.app = app
        self.proxies = tuple(proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            peer = scope.get("client")
            host, port = (peer[0], peer[1]) if peer else (None, 0)
            forwarded = b",".join(v for k, v in scope["headers"] if k == b"x-forwarded-for")
            address = client_address(host, forwarded.decode("latin-1"), self.proxies)
            scope = {**scope, "client": (address, port)}
            peer_ip = ip_of(host)
            if peer_ip is not None and self.proxies and _trusted(peer_ip, self.proxies):
                scope["scheme"] = _scheme(scope)
        await self.app(scope, receive, send)


def _scheme(scope: Scope) -> str:
    """The scheme a trusted proxy says the browser used (``X-Forwarded-Proto``)."""
    said = next((v for k, v in scope["headers"] if k == b"x-forwarded-proto"), b"")
    proto = said.decode("latin-1").strip().lower()
    if proto not in ("http", "https"):
        return str(scope.get("scheme", "http"))
    return proto.replace("http", "ws") if scope["type"] == "websocket" else proto
