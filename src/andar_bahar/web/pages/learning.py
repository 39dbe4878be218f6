"""The learner of a browser: a learner code in a cookie, and the exercises' signed tickets.

A learner's device keeps the learner code, signed, in the ``learner`` cookie (HttpOnly,
SameSite=Lax: a link from a chat shows the learner's own page); only the code's hash is in
the database. A page carries its exercise's :class:`~andar_bahar.club.learners.Ticket`
signed, so the learner cannot change it. Enrolling, coming back and the tickets themselves
are the club's :class:`~andar_bahar.club.learners.Learners`.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.responses import Response

from andar_bahar.club.learners import Learners, Ticket
from andar_bahar.storage.learner_codes import code_key, code_text
from andar_bahar.storage.learners import Learner
from andar_bahar.web.http.security import Signer, set_cookie

__all__ = ["LEARNER_COOKIE", "Learning"]

LEARNER_COOKIE = "learner"
LEARNER_SECONDS = 365 * 24 * 3600
"""How long a device keeps its learner's code."""


class Learning:
    """The trainer's learners (:attr:`service`) as a browser sees them: its learner, and
    its exercises' tickets signed."""

    def __init__(self, service: Learners, signer: Signer) -> None:
        self.service = service
        self.book = service.book
        self._signer = signer

    def of(self, conn: HTTPConnection) -> tuple[Learner, str] | None:
        """This device's learner and code (``None``: none, or a code no longer anyone's)."""
        signed = conn.cookies.get(LEARNER_COOKIE, "")
        key = self._signer.unsign(signed) if signed else None
        found = self.book.learner(key) if key else None
        return (found, code_text(key)) if found is not None and key else None

    def remember(self, conn: HTTPConnection, response: Response, code: str) -> None:
        """This device is the learner's of *code* from now."""
        key = code_key(code)
        assert key is not None
        value = self._signer.sign(key)
        set_cookie(response, conn, LEARNER_COOKIE, value, max_age=LEARNER_SECONDS, samesite="lax")

    def signed(self, ticket: Ticket) -> str:
        return self._signer.sign(ticket.text())

    def read(self, signed: str, learner: Learner, kind: str) -> Ticket:
        """The ticket a page sent back, if it is this learner's, of *kind*, under the
        learner's rules now (else one sentence: a new exercise is shown)."""
        text = self._signer.unsign(signed)
        return self.service.check(Ticket.read(text) if text else None, learner, kind)
