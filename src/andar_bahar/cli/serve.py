"""``andar-bahar serve``: the club table in the browser (the dealer's laptop serves it).

One process by default, with the uvicorn protocols and settings of
:mod:`andar_bahar.web.http.connections` (slow and noisy clients are closed). ``--workers N``
(PostgreSQL only) runs N worker processes that share the port and every table: each one
LISTENs for the changes the others make (:mod:`andar_bahar.club.events`). Several
``serve`` commands on other ports or hosts against the same database behave the same,
given the same secret (``--secret-file``): see docs/deployment.md.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from andar_bahar.cli.common import LangOption, commands_app, guarded, require_extra, translator_for
from andar_bahar.cli.play import database_url
from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["address_line", "serve", "tell_workers", "worker_app"]

app = commands_app()

WORKER_DB = "ANDAR_BAHAR_SERVE_DB"
WORKER_KEY = "ANDAR_BAHAR_SERVE_KEY"
WORKER_CONNECTIONS = "ANDAR_BAHAR_SERVE_CONNECTIONS"
WORKER_PROXIES = "ANDAR_BAHAR_SERVE_PROXIES"
"""How the parent of ``--workers`` tells its workers the database, the secret, the
connections each may open and the trusted proxies."""
DB_CONNECTIONS = 40
"""``--db-connections``: a ``serve`` command opens at most this many connections to
PostgreSQL in all (one per thread that reads or writes at once), split among its
workers, plus one per worker that listens for the others' changes. PostgreSQL's
``max_connections`` (100 by default) must hold every ``serve`` command's share."""

APP_KEY_FILE = "web-secret"
"""Beside the history's database: the key of the CSRF tokens, kept across restarts."""

OPEN_HERE = N_(
    "Open {url} in a browser on this computer; to let the players' phones in, start with --host 0.0.0.0."
)
OPEN_EVERYWHERE = N_(
    "Open {url} in a browser; the players' phones on the same network open the same address."
)


def _lan_address() -> str | None:
    """This computer's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only picks the outgoing interface
            address = probe.getsockname()[0]
        except OSError:
            return None
    return str(address) if address and not address.startswith("0.") else None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def address_line(host: str, port: int) -> Message:
    """The one line that says which address to open.

    >>> print(address_line("127.0.0.1", 8000))
    Open http://127.0.0.1:8000/ in a browser on this computer; to let the players' phones in, start with --host 0.0.0.0.
    >>> print(address_line("192.168.1.20", 8080))
    Open http://192.168.1.20:8080/ in a browser; the players' phones on the same network open the same address.
    """
    shown = host
    if host in {"", "0.0.0.0", "::"}:  # noqa: S104 -- recognising it, not binding to it
        shown = _lan_address() or socket.gethostname()
    if ":" in shown:
        shown = f"[{shown}]"
    url = f"http://{shown}:{port}/"
    return Message(OPEN_HERE if _is_loopback(host) else OPEN_EVERYWHERE, url=url)


def _secret_path() -> Path:
    """Where the app secret is kept: the data folder, beside the history's database."""
    from andar_bahar.storage import default_database_url

    return Path(default_database_url().removeprefix("sqlite:///")).parent / APP_KEY_FILE


def tell_workers(
    url: str,
    secret: bytes,
    workers: int,
    connections: int = DB_CONNECTIONS,
    proxies: Sequence[str] = (),
) -> int:
    """Set what each worker process reads (:func:`worker_app`): the database, the secret,
    its share of *connections* and the trusted *proxies*; return that share.

    >>> tell_workers("postgresql+psycopg://club@db.example/club", b"k", workers=4, connections=40)
    10
    >>> os.environ[WORKER_CONNECTIONS]
    '10'
    >>> for name in (WORKER_DB, WORKER_KEY, WORKER_CONNECTIONS, WORKER_PROXIES):
    ...     del os.environ[name]
    """
    each = max(1, connections // workers)
    os.environ[WORKER_DB], os.environ[WORKER_KEY] = url, secret.hex()
    os.environ[WORKER_CONNECTIONS] = str(each)
    os.environ[WORKER_PROXIES] = ",".join(proxies)
    return each


def worker_app() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (uvicorn calls it)."""
    gc.disable()  # while the app is made: turned on once it has started (serving=True)
    from andar_bahar.web.app import create_app

    return create_app(
        database_url=os.environ[WORKER_DB],
        secret=bytes.fromhex(os.environ[WORKER_KEY]),
        serving=True,
        connections=int(os.environ[WORKER_CONNECTIONS]),
        proxies=[p for p in os.environ.get(WORKER_PROXIES, "").split(",") if p],
    )


HostOption = Annotated[
    str,
    typer.Option(
        "--host",
        help="The address to listen on: 127.0.0.1 for this computer only, 0.0.0.0 for the club's network.",
    ),
]

PortOption = Annotated[int, typer.Option("--port", min=1, max=65535, help="The port.")]

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="The tables' database: a file (SQLite) or a URL (postgresql+psycopg://…); default: the history's file in your data folder.",
    ),
]

WorkersOption = Annotated[
    int,
    typer.Option(
        "--workers",
        min=1,
        max=64,
        help="Worker processes sharing the port and every table (PostgreSQL only).",
    ),
]

DbConnectionsOption = Annotated[
    int,
    typer.Option(
        "--db-connections",
        min=1,
        max=10000,
        help="PostgreSQL: the most connections this command opens, shared by its workers (plus one each to hear the others' changes); keep every serve command's sum under the server's max_connections (100 by default).",
    ),
]

SecretFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        help="The key that signs the pages' cookies (made if missing); give every server of one club the same file. Default: web-secret in your data folder.",
    ),
]

ProxyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--proxy",
        help="Behind a reverse proxy: its address or network (several: comma-separated); the limits on guessing and on new tables then count the rightmost address of X-Forwarded-For that is no trusted proxy, believed only from a proxy (an entry that is no address counts as the proxy's own).",
    ),
]


@app.command()
@guarded
def serve(
    host: HostOption = "127.0.0.1",
    port: PortOption = 8000,
    db: DbOption = None,
    workers: WorkersOption = 1,
    db_connections: DbConnectionsOption = DB_CONNECTIONS,
    secret_file: SecretFileOption = None,
    proxy: ProxyOption = None,
    lang: LangOption = None,
) -> None:
    """The club table in the browser: the dealer on this computer, the players on their phones."""
    require_extra("web")
    # Starting makes some 200 000 objects and frees almost none: the garbage collector
    # is off until the app has started, then tuned (web.app.tune_garbage_collector).
    gc.disable()
    import uvicorn
    from sqlalchemy import make_url

    from andar_bahar.storage import Storage, default_database_url
    from andar_bahar.web.app import create_app
    from andar_bahar.web.http.clients import trusted_proxies
    from andar_bahar.web.http.connections import server_settings
    from andar_bahar.web.http.security import load_or_create_secret, new_secret

    url = database_url(db) or default_database_url()
    if workers > 1 and make_url(url).get_backend_name() == "sqlite":
        raise ParameterError(
            Message(
                N_(
                    "--workers {n} needs PostgreSQL (--db postgresql+psycopg://…): an SQLite"
                    " file is served by one process, so leave --workers out."
                ),
                n=workers,
            )
        )
    proxies = [str(network) for network in trusted_proxies(proxy or ())]  # refused here if bad
    settings = {**server_settings(), "proxy_headers": False}  # the app reads X-Forwarded-For
    try:
        secret = load_or_create_secret(secret_file or _secret_path())
    except OSError:  # a read-only folder: tokens then last until the server stops
        if secret_file is not None:
            raise
        secret = new_secret()
    line = address_line(host, port).localized(translator_for(lang))
    if workers == 1:
        application = create_app(
            database_url=url, secret=secret, serving=True, connections=db_connections,
            proxies=proxies,
        )  # fmt: skip
        typer.echo(line)
        uvicorn.run(application, host=host, port=port, **settings)
        return
    gc.enable()  # this process only watches its workers: no app of its own
    Storage.open(url).close()  # the schema brought up to date once, before the workers start
    tell_workers(url, secret, workers, db_connections, proxies)
    typer.echo(line)
    uvicorn.run(
        "andar_bahar.cli.serve:worker_app", factory=True, workers=workers, host=host,
        port=port, **settings,
    )  # fmt: skip
