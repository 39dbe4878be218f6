"""The screen for the room: ``/display/{code}``, the table on a TV or a projector.

Anyone with the table's code may open it (it is what everyone at the club sees): the
rows and the centre card, the cards dealt so far, the bet timer's countdown, the
last rounds and the deck's commitment — never a balance, a bet or an undealt card,
whoever's browser shows it. It follows the table live (``LIVE_PAGES["display"]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from starlette.responses import Response

if TYPE_CHECKING:
    from andar_bahar.web.pages.shared import Club

__all__ = ["register"]


def register(app: FastAPI, club: Club) -> None:
    """Add the room's screen to *app*."""

    @app.get("/display/{code}")
    def display_page(request: Request, code: str) -> Response:
        return club.page(request, "display", code)
