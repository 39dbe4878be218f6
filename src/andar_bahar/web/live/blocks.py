"""The club table's live pages: which blocks each page has, who sees them, how they render.

:data:`LIVE_PAGES` is the registry (the protocol: :mod:`~andar_bahar.web.live`): per
page kind its template, its **shared** blocks (the same for every viewer of that kind,
role and language) and its **private** blocks (a player's own). The pages engineer edits
it when adding or renaming blocks. In a template, a live region is an element with
``data-live-block="NAME"`` whose *inside* is ``{% block NAME %}``; a block renders
from :func:`block_context` alone (the state, the round, the last rounds, the
viewer, the language) — never from the request, which a live render does not have.

The renderer of the club's tables is :class:`~andar_bahar.web.table_renderer.TableRenderer`;
:func:`add_table_socket` adds ``/ws/{code}?page=KIND&v=N&lang=LL``, whose
identity comes from the page's own cookies (the dealer's, a player's seat, or none:
a public viewer).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.i18n import translations
from andar_bahar.web.context import request_info
from andar_bahar.web.forms import paytable_rows
from andar_bahar.web.health import DatabaseUnavailable
from andar_bahar.web.live import COMPLETE_ANSWERS, SERVER_NOW, Viewer, message_text, with_now
from andar_bahar.web.live_socket import add_live_route
from andar_bahar.web.page_views import dealer_view, player_view
from andar_bahar.web.records import RoundSummary, TableSnapshot, TableState
from andar_bahar.web.store import token_hash
from andar_bahar.web.table_view import common_context
from andar_bahar.web.templating import gettext_callables
from andar_bahar.web.transactions import COMMITTED
from andar_bahar.web.views import Viewer as Sight
from andar_bahar.web.views import visible_to

if TYPE_CHECKING:
    from andar_bahar.web.pages import Club

__all__ = [
    "LIVE_PAGES",
    "SERVER_NOW",
    "LivePage",
    "Snapshot",
    "add_table_socket",
    "answer",
    "block_context",
    "page_extras",
    "with_now",
]

LIVE_HEADER = "X-Live"
"""Marks an answer whose JSON body is a live message for ``live.js`` to apply."""


@dataclass(frozen=True, slots=True)
class LivePage:
    """A table page that follows the table live."""

    kind: str
    template: str
    shared: tuple[str, ...]
    """Blocks the same for every viewer of the page kind, role and language."""
    private: tuple[str, ...]
    """A player's own blocks (rendered only for the player an event concerns)."""
    roles: frozenset[str]
    """Who may follow it: ``dealer``, ``player``, ``public``."""


LIVE_PAGES: Mapping[str, LivePage] = {
    # The phone: the felt and the road are everyone's; the seat's figures, the spots with
    # the player's stakes, the player's rounds and the result banner are the player's own.
    "player": LivePage(
        "player",
        "player.html",
        shared=("table", "strip", "road"),
        private=("me", "bets", "mine", "banner"),
        roles=frozenset({"player", "public"}),
    ),
    # The dealer's screen: one viewer role, so every block is shared by the dealer's devices.
    "dealer": LivePage(
        "dealer",
        "dealer.html",
        shared=("table", "strip", "road", "step", "void", "bets", "players"),
        private=(),
        roles=frozenset({"dealer"}),
    ),
    # The room's screen: what anyone at the club may see, whoever's browser shows it.
    "display": LivePage(
        "display",
        "display.html",
        shared=("table", "road"),
        private=(),
        roles=frozenset({"public"}),
    ),
}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table read once (:class:`~andar_bahar.web.records.TableSnapshot`: its whole state as
    its dealer sees it, its last rounds, its last settled rounds), and what each viewer sees."""

    table: TableSnapshot
    seen: dict[tuple[bool, str | None], TableState] = field(default_factory=dict)

    @property
    def state(self) -> TableState:
        return self.table.state

    @property
    def recent(self) -> list[RoundSummary]:
        return self.table.recent

    def seen_by(self, viewer: Viewer) -> TableState:
        """What *viewer* may see of the table (:func:`~andar_bahar.web.views.visible_to`):
        everything for the dealer, their own for a player, neither for anyone else."""
        sight = (viewer.role == "dealer", viewer.player if viewer.role == "player" else None)
        if sight not in self.seen:
            self.seen[sight] = visible_to(self.state, Sight(dealer=sight[0], player=sight[1]))
        return self.seen[sight]


def block_context(snapshot: Snapshot, viewer: Viewer, *, answering: bool = False) -> dict[str, Any]:
    """What a live block sees: the table as *viewer* may see it, the language (no request).

    *answering*: the blocks answer the viewer's own action (forms come fresh, not kept).
    """
    state = snapshot.seen_by(viewer)
    rnd = state.round
    return {
        "lang": viewer.lang,
        "translations": translations(viewer.lang),
        **gettext_callables(viewer.lang),
        # htmx sends the CSRF token from <body hx-headers>: a live block needs no field.
        "csrf_field": "",
        "csrf_token": "",
        "state": state,
        "round": rnd,
        "recent": snapshot.recent,
        "paytable_rows": paytable_rows(rnd.paytable if rnd else state.paytable),
        "live_table": state.code,
        "dealer": viewer.role == "dealer",
        "player": viewer.player,
        "answering": answering,
    }


def page_extras(
    viewer: Viewer,
    state: TableState,
    table: TableSnapshot,
    now: datetime | str,
    blocks: Collection[str] | None = None,
) -> dict[str, Any]:
    """What the table pages draw besides the state: card faces, the road, the countdown;
    the phone's spots, chips and the player's own rounds; the dealer's next step
    (:mod:`~andar_bahar.web.table_view`). From the table and the viewer alone; *now* is
    the server's time (or :data:`SERVER_NOW`, for a block kept and sent later).

    *blocks*: only what those live blocks draw (``None``: the whole page's).
    """
    extras = common_context(state, table.recent, viewer.lang, now, road=_draws(blocks, ROAD))
    if viewer.page == "player" and viewer.player is not None:
        mine = table.player_rounds(viewer.player)
        extras.update(player_view(state, viewer.player, viewer.lang, mine, blocks))
    elif viewer.page == "dealer":
        extras.update(dealer_view(state, viewer.lang, blocks))
    return extras


ROAD = frozenset({"strip", "road"})
"""The live blocks that draw the road (the strip under the felt, the table of rounds)."""


def _draws(blocks: Collection[str] | None, these: frozenset[str]) -> bool:
    return blocks is None or not these.isdisjoint(blocks)


def shared_data(state: TableState) -> dict[str, Any]:
    """Small values for page scripts: the round, its deadline, the last card, the result."""
    rnd = state.round
    if rnd is None:
        return {"table": state.code, "round": None}
    last = rnd.dealt[-1].card if rnd.dealt else rnd.centre
    return {
        "table": state.code,
        "round": rnd.number,
        "status": rnd.status,
        "bets_open": rnd.bets_open,
        "deadline": rnd.bets_deadline.isoformat() if rnd.bets_deadline else None,
        "dealt": len(rnd.dealt),
        "card": str(last) if last else None,
        "winner": (rnd.result.winner.value if rnd.result.winner else "void")
        if rnd.result
        else None,
    }


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
) -> Response:
    """The answer to an htmx action on a live page: the blocks it changed for this viewer.

    The dealer's page gets all its blocks (``complete``: the page is then at ``v``);
    a player's page its own blocks — the live message that follows brings the rest.
    *note* (``data.note``) is a short sentence the page shows by what was tapped.
    *viewer*: who acted, when the action itself has just checked it (else from the
    request's cookies).
    """
    if viewer is None:
        viewer = viewer_of(club, request, code, page)
    # At least the version this request's own change committed (if it made one).
    snapshot = club.renderer.read(code, COMMITTED.get().get(code.strip().upper()))
    if viewer is None:
        viewer = Viewer(page, "public", request_info(request).lang)
    complete = viewer.role in COMPLETE_ANSWERS
    rendered = club.renderer.answer(snapshot, viewer, complete=complete)
    head = {"v": snapshot.state.version, "kind": "answer", "complete": complete}
    data = {**rendered.data, "note": note} if note else rendered.data
    return Response(
        message_text(head, rendered.blocks, data, datetime.now(UTC)),
        media_type="application/json",
        headers={LIVE_HEADER: "1"},
    )


def add_table_socket(app: FastAPI, club: Club) -> None:
    """Add ``/ws/{code}?page=KIND&v=N&lang=LL``: the table's pages, live.

    A table that does not exist, or a page the cookies may not follow (the
    dealer's page without the dealer's cookie), is refused.
    """

    async def identify(websocket: WebSocket, code: str) -> Viewer | None:
        page = websocket.query_params.get("page", "player")
        try:
            await run_in_threadpool(club.service.table_version, code)  # it exists
            return await run_in_threadpool(viewer_of, club, websocket, code, page)
        except DatabaseUnavailable:  # not a refusal: the socket is told to come back later
            raise
        except AndarBaharError:
            return None

    add_live_route(app, club.site.hub, identify)
