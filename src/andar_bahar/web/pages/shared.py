"""What the routes of the club's pages share: the :class:`Club` (the table service, the
cookies' signers, the renderer of the live blocks), who a page's viewer is
(:func:`viewer_of`), and the answer to an action on a live page (:func:`answer`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import Request
from starlette.requests import HTTPConnection
from starlette.responses import Response

from andar_bahar.club.reads import Onlooker, visible_to
from andar_bahar.club.service import TableService
from andar_bahar.club.store import token_hash
from andar_bahar.club.transactions import COMMITTED
from andar_bahar.web.http.clients import UNKNOWN
from andar_bahar.web.http.context import is_htmx, request_info
from andar_bahar.web.http.responses import redirect, render
from andar_bahar.web.http.security import Signer, set_cookie
from andar_bahar.web.http.site import Site
from andar_bahar.web.live.blocks import LIVE_PAGES, page_extras
from andar_bahar.web.live.hub import COMPLETE_ANSWERS
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.renderer import TableRenderer
from andar_bahar.web.live.text import message_text
from andar_bahar.web.pages.drawing import ROAD_LENGTH

__all__ = ["Club", "answer", "viewer_of"]

DEVICE_SECONDS = 365 * 24 * 3600
"""How long a browser is remembered as a device the dealer signed in on (see limits)."""
LIVE_HEADER = "X-Live"
"""Marks an answer whose JSON body is a live message for ``live.js`` to apply."""


@dataclass(frozen=True, slots=True)
class Club:
    """What the routes of the club's pages share: the service, the signers, live updates."""

    site: Site
    service: TableService
    seats: Signer
    """Signs a player's seat token in the ``seat_CODE`` cookie."""
    dealers: Signer
    """Signs the dealer's token in the ``dealer_CODE`` cookie."""
    renderer: TableRenderer
    """Renders the live blocks of the table pages."""

    def dealer_token(self, conn: HTTPConnection, code: str) -> str:
        """The dealer's token from this browser's cookie ("" when there is none)."""
        return self.dealers.unsign(conn.cookies.get(f"dealer_{code.upper()}", "")) or ""

    def seat_token(self, conn: HTTPConnection, code: str) -> str:
        """The player's token from this browser's cookie ("" when there is none)."""
        return self.seats.unsign(conn.cookies.get(f"seat_{code.upper()}", "")) or ""

    def device_of(self, code: str, proof: str) -> str:
        """The id of the dealer's device that *proof* shows signed in at table *code* before
        (the ``device_CODE`` cookie, or the API's ``device``); "" when it shows nothing."""
        value = self.site.signer("dealer-device").unsign(proof) if proof else None
        table, _, device = (value or "").partition(":")
        return device if device and table == code.strip().upper() else ""

    def device_proof(self, code: str, device: str = "") -> str:
        """What proves that the device *device* (a new one when "") signed in at *code*."""
        made = device or secrets.token_urlsafe(12)
        return self.site.signer("dealer-device").sign(f"{code.strip().upper()}:{made}")

    def remember_device(self, request: Request, response: Response, code: str) -> None:
        """After a sign-in at *code*: this browser is a device the dealer has used there."""
        name = f"device_{code.strip().upper()}"
        device = self.device_of(code, request.cookies.get(name, ""))
        proof = self.device_proof(code, device)
        set_cookie(response, request, name, proof, max_age=DEVICE_SECONDS)

    @staticmethod
    def client(request: Request) -> str:
        """The IP address a request came from (what guessing is counted by), as
        :class:`~andar_bahar.web.http.clients.ClientAddresses` worked it out."""
        return request.client.host if request.client else UNKNOWN

    def page(self, request: Request, page: str, code: str, **extra: object) -> Response:
        """The live table page *page* (``player``, ``dealer``, ``display``) of *code*, now.

        The table as the viewer may see it (:func:`~andar_bahar.club.reads.visible_to`):
        ``extra`` names the ``player`` (or ``dealer=True``; neither: anyone's view).
        """
        table = self.service.table_snapshot(code, ROAD_LENGTH)
        whole, recent = table.state, table.recent
        player = extra.get("player")
        dealer = extra.get("dealer") is True
        sight = Onlooker(dealer=dealer, player=str(player) if player else None)
        state = visible_to(whole, sight)
        role = "dealer" if dealer else ("player" if player else "public")
        viewer = Viewer(page, role, request_info(request).lang, player=sight.player)
        context: dict[str, Any] = {
            **page_extras(viewer, state, table, datetime.now(UTC)),
            "recent": recent,
            "live_table": state.code,
            "live_page": page,
            "live_version": state.version,
            **extra,
        }
        return render(request, LIVE_PAGES[page].template, **context)

    def done(
        self,
        request: Request,
        code: str,
        page: str,
        note: str = "",
        viewer: Viewer | None = None,
        *,
        dealt: bool = False,
    ) -> Response:
        """After an action on a live page: its new blocks for the page's script (and a
        *note* to show by what was tapped), else the page again. *viewer*: who acted, if
        the action has just checked it (else the request's cookies say); *dealt*: the
        action dealt a card (:func:`answer`)."""
        if is_htmx(request):
            return answer(self, request, code, page, note, viewer, dealt=dealt)
        return redirect(request, f"/{'dealer' if page == 'dealer' else 'play'}/{code.upper()}")


def viewer_of(club: Club, conn: HTTPConnection, code: str, page: str) -> Viewer | None:
    """Who the page or socket is, from its cookies (``None``: it may not follow *page*)."""
    kind = LIVE_PAGES.get(page)
    if kind is None:
        return None
    lang = request_info(conn).lang
    dealer = club.dealer_token(conn, code)
    if dealer and club.service.is_dealer(code, dealer) and "dealer" in kind.roles:
        return Viewer(page, "dealer", lang, credential=token_hash(dealer))
    token = club.seat_token(conn, code)
    seat = club.service.player_seat(code, token)
    if seat is not None and "player" in kind.roles:
        return Viewer(page, "player", lang, seat[0], seat[1], credential=token_hash(token))
    return Viewer(page, "public", lang) if "public" in kind.roles else None


def answer(
    club: Club,
    request: Request,
    code: str,
    page: str,
    note: str = "",
    viewer: Viewer | None = None,
    *,
    dealt: bool = False,
) -> Response:
    """The answer to an htmx action on a live page: the blocks it changed for this viewer.

    The dealer's page gets all its blocks (``complete``: the page is then at ``v``);
    a player's page its own blocks — the live message that follows brings the rest.
    *note* (``data.note``) is a short sentence the page shows by what was tapped.
    *viewer*: who acted, when the action itself has just checked it (else from the
    request's cookies). *dealt*: the action dealt a card: a complete answer brings that
    card alone where it is all the felt gained (``piles``: :mod:`~andar_bahar.web.live.piles`).
    """
    if viewer is None:
        viewer = viewer_of(club, request, code, page)
    # At least the version this request's own change committed (if it made one).
    snapshot = club.renderer.read(code, COMMITTED.get().get(code.strip().upper()))
    if viewer is None:
        viewer = Viewer(page, "public", request_info(request).lang)
    complete = viewer.role in COMPLETE_ANSWERS
    rendered = club.renderer.answer(snapshot, viewer, complete=complete, dealt=dealt)
    head: dict[str, object] = {"v": snapshot.state.version, "kind": "answer", "complete": complete}
    if rendered.piles:
        head["piles"] = rendered.piles
    data = {**rendered.data, "note": note} if note else rendered.data
    return Response(
        message_text(head, rendered.blocks, data, datetime.now(UTC)),
        media_type="application/json",
        headers={LIVE_HEADER: "1"},
    )
