"""The learners of the club's trainer, without HTTP: becoming one, coming back with a
learner code under the seat codes' limits, and the tickets that carry an exercise between
showing and checking.

Coming back with a code is an attempt counted like a seat code
(:func:`~andar_bahar.club.limits.reserve_attempt`, kind ``learner``: per client address,
locked after too many wrong ones); becoming a learner is counted per address and hour like
creating a table (kind ``enrol``).

An exercise is not kept on the server while the learner thinks: the page carries a
:class:`Ticket` (signed by the web: :mod:`andar_bahar.web.pages.learning`) — the kind, the
seed it was drawn from, the fingerprint of the rules, the server's time it was shown — and
the answer brings it back. The exercise is drawn again from the seed and checked; the time
is the server's, from showing to checking; the answers are stored under the ticket's seed,
so a ticket answered twice counts once.

>>> ticket = Ticket("layout", 12, "abcdef012345", 1_700_000_000_000, 7)
>>> Ticket.read(ticket.text()) == ticket, Ticket.read("garbage")
(True, None)
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal

from andar_bahar.club.limits import Limits, finish_attempt, reserve_attempt
from andar_bahar.engine.errors import AccessError, ParameterError
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage import Storage, utc_now
from andar_bahar.storage.learner_codes import code_key, code_text
from andar_bahar.storage.learners import Learner, LearnerBook

__all__ = ["STALE", "Learners", "Ticket"]

STALE = Message(
    N_(
        "This exercise was shown before the rules changed, or to another learner: here is a new one."
    )
)


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a page carries of the exercise it shows (signed: the learner cannot change it)."""

    kind: str
    seed: int
    rules: str
    """The fingerprint of the learner's rules when it was shown."""
    issued: int
    """The server's time it was shown, in milliseconds since 1970 (UTC)."""
    learner: int
    level: int = 0
    """The dealer school's level (0: not the school)."""
    state: str = ""
    """A real deck's deal so far (:meth:`~andar_bahar.games.drills.real_deck.RealDeal.dumps`)."""

    def text(self) -> str:
        data = json.dumps(asdict(self), separators=(",", ":"), ensure_ascii=False)
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    @classmethod
    def read(cls, text: str) -> Ticket | None:
        try:
            data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            return cls(**data)
        except (ValueError, TypeError):
            return None

    @property
    def drill(self) -> str:
        """What the answers are stored under: the kind and the seed (once per ticket)."""
        return f"{self.kind}-{self.seed:x}"

    def seconds(self, now: datetime) -> Decimal:
        """The seconds from showing to *now*, to the millisecond (never below zero)."""
        elapsed = _millis(now) - self.issued
        return Decimal(max(0, elapsed)).scaleb(-3)


def _millis(moment: datetime) -> int:
    return int(moment.astimezone(UTC).timestamp() * 1000)


class Learners:
    """The learners of the site: enrolling, coming back, their exercises' tickets."""

    def __init__(
        self,
        storage: Storage,
        limits: Callable[[], Limits],
        *,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        self.book = LearnerBook(storage, now=now)
        self._limits = limits
        self._now = now

    def enrol(self, name: str, client: str) -> tuple[Learner, str]:
        """A new learner called *name*: the learner and their code (counted per address)."""
        with self.book.transaction() as session:
            reserve_attempt(session, "enrol", None, client, self._now(), self._limits())
            return self.book.enrol(session, name)

    def come_back(self, typed: str, client: str) -> tuple[Learner, str]:
        """The learner whose code is *typed* (a wrong one counted, as a seat code is)."""
        with self.book.transaction() as session:
            attempt = reserve_attempt(session, "learner", None, client, self._now(), self._limits())
            found = self.book.find(session, typed)
            finish_attempt(session, attempt, found is not None)
        key = code_key(typed)
        if found is None or key is None:  # after the commit: the failure is counted
            raise AccessError(
                Message(
                    N_(
                        "The learner code '{code}' is not right: check it (six letters and"
                        " digits, such as ABC-DEF)."
                    ),
                    code=typed[:20].strip() or "—",
                )
            )
        return found, code_text(key)

    def ticket(self, kind: str, learner: Learner, *, level: int = 0, state: str = "") -> Ticket:
        """A new exercise of *kind* for *learner*, shown now."""
        seed = secrets.randbits(63)
        return Ticket(kind, seed, learner.rules_key, _millis(self._now()), learner.id, level, state)

    def restarted(self, ticket: Ticket, state: str) -> Ticket:
        """The same exercise, a step further (*state*), timed from now."""
        return Ticket(
            ticket.kind, ticket.seed, ticket.rules, _millis(self._now()), ticket.learner,
            ticket.level, state,
        )  # fmt: skip

    @staticmethod
    def check(ticket: Ticket | None, learner: Learner, kind: str) -> Ticket:
        """*ticket*, if it is *learner*'s, of *kind*, under the learner's rules now (else
        one sentence: a new exercise is shown)."""
        if (
            ticket is None
            or ticket.learner != learner.id
            or ticket.kind != kind
            or ticket.rules != learner.rules_key
        ):
            raise ParameterError(STALE)
        return ticket

    def now(self) -> datetime:
        return self._now()
