"""The live route of the club's table pages: ``/ws/{code}?page=KIND&v=N&lang=LL``.

Its identity comes from the page's own cookies (the dealer's, a player's seat, or none: a
public viewer, :func:`~andar_bahar.web.pages.shared.viewer_of`); what it is sent, from the
hub (:mod:`~andar_bahar.web.live.hub`) and the renderer of the table's blocks.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from andar_bahar.club.health import DatabaseUnavailable
from andar_bahar.engine.errors import AndarBaharError
from andar_bahar.web.live.protocol import Viewer
from andar_bahar.web.live.sockets import add_live_route
from andar_bahar.web.pages.shared import Club, viewer_of

__all__ = ["register"]


def register(app: FastAPI, club: Club) -> None:
    """Add ``/ws/{code}?page=KIND&v=N&lang=LL``: the table's pages, live.

    A table that does not exist or is closed, or a page the cookies may not follow (the
    dealer's page without the dealer's cookie), is refused.
    """

    async def identify(websocket: WebSocket, code: str) -> Viewer | None:
        page = websocket.query_params.get("page", "player")
        try:
            if await run_in_threadpool(club.service.is_closed, code):  # it exists, open
                return None
            return await run_in_threadpool(viewer_of, club, websocket, code, page)
        except DatabaseUnavailable:  # not a refusal: the socket is told to come back later
            raise
        except AndarBaharError:
            return None

    add_live_route(app, club.site.hub, identify)
