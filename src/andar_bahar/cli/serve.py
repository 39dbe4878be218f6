"""``andar-bahar serve``: the club table in the browser (the dealer's laptop serves it)."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Annotated

import typer

from andar_bahar.cli.common import LangOption, app, guarded, require_extra, translator_for
from andar_bahar.cli.play import database_url
from andar_bahar.i18n.messages import N_, Message

__all__ = ["address_line", "serve"]

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


@app.command()
@guarded
def serve(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="The address to listen on: 127.0.0.1 for this computer only, 0.0.0.0 for the club's network.",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="The port.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="The tables' database: a file (SQLite) or a URL (postgresql+psycopg://…); default: the history's file in your data folder.",
        ),
    ] = None,
    proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--proxy",
            help="Behind a reverse proxy: its address (or network); the limits on guessing and on new tables then count the client's address from X-Forwarded-For, believed only from the proxy.",
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    """The club table in the browser: the dealer on this computer, the players on their phones."""
    require_extra("web")
    import uvicorn

    from andar_bahar.storage import default_database_url
    from andar_bahar.web.app import create_app
    from andar_bahar.web.limits import trusted_proxies
    from andar_bahar.web.security import load_or_create_secret, new_secret

    url = database_url(db) or default_database_url()
    proxies = trusted_proxies(proxy or ())
    try:
        secret = load_or_create_secret(_secret_path())
    except OSError:  # a read-only folder: tokens then last until the server stops
        secret = new_secret()
    application = create_app(database_url=url, secret=secret)
    typer.echo(address_line(host, port).localized(translator_for(lang)))
    uvicorn.run(
        application, host=host, port=port, log_level="warning", ws="auto",
        proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None,
    )  # fmt: skip
