"""The table's limits: how often one may guess, how large things may be, and the refusals.

**Guessing** (a dealer's PIN, a seat code, a learner code) is counted per table and per
client address in the ``attempts`` table, so that every server process sharing the database
counts the same: the first :attr:`Limits.free` failures in the window are free, each further
one must wait twice as long after the last (1 s, 2 s, 4 s …), and after
:attr:`Limits.failures` failures the table (or the address) is locked until the oldest of
them leaves the window — even the right PIN gets 429 with ``Retry-After`` meanwhile. An
attempt is recorded as *pending* before the PIN is hashed and counts as a failure until it
is known, so requests sent in parallel cannot get past the limit. Creating tables (and
learners) is limited per address too. An IPv6 address counts by its /64 network
(:func:`client_key`).

**A device the dealer signed in on before** (it shows a signed proof: a cookie, or the
API's ``device``) is counted on its own, neither per table nor per address: a stranger's
wrong PINs, however many and however often, never lock the dealer out of a device they
have used at the table.

**Sizes**: names, reasons and PINs have lengths said in the error; every amount that
reaches the ledger (a buy-in, a top-up, a cash-out, the most a bet can return) is at most
:data:`MAX_CHIPS`, so that it fits the ledger's whole millionths.

>>> limits = Limits()
>>> limits.wait_after(3), limits.wait_after(4), limits.wait_after(9)
(0, 1, 32)
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache

from sqlalchemy import delete, or_, select, text
from sqlalchemy.orm import Session

from andar_bahar.engine.errors import AccessError, ActionError, BetError, ParameterError
from andar_bahar.engine.money import Amount, format_amount
from andar_bahar.engine.paytables import Odds, Paytable
from andar_bahar.engine.rules import Row
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import AttemptRow

__all__ = [
    "MAX_CHIPS",
    "MAX_NAME",
    "MAX_PIN",
    "MAX_REASON",
    "MAX_TABLE_NAME",
    "MIN_PIN",
    "Limits",
    "RequestConflict",
    "TooManyAttempts",
    "busy",
    "check_bet_return",
    "check_chips",
    "check_text",
    "client_key",
    "finish_attempt",
    "reserve_attempt",
]

MAX_CHIPS = Decimal(10) ** 12
"""The largest amount of one ledger posting, in chips (a buy-in, a top-up, a cash-out, the
most one bet can return): 10¹² chips are 10¹⁸ millionths, within the ledger's BIGINT."""
MIN_PIN = 6
MAX_PIN = 128
MAX_NAME = 40
MAX_TABLE_NAME = 60
MAX_REASON = 200


class TooManyAttempts(AccessError):
    """Too many attempts: HTTP 429 with ``Retry-After`` (whole seconds)."""

    http_status = 429

    def __init__(self, message: Message, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class RequestConflict(ActionError):
    """The same idempotency key with a different request: HTTP 409."""

    http_status = 409


@dataclass(frozen=True, slots=True)
class Limits:
    """How much guessing and how many new tables are allowed (``create_app(limits=…)``)."""

    failures: int = 10
    """Failed attempts (per table and per address) in the window before the lock."""
    free: int = 3
    """Failures before each further attempt must wait (1 s, then twice as long each time)."""
    window: timedelta = timedelta(minutes=15)
    tables_per_hour: int = 20
    """New tables per client address in an hour."""
    learners_per_hour: int = 30
    """New learners per client address in an hour (a class may enrol on the club's Wi-Fi)."""

    def wait_after(self, failed: int) -> int:
        """Seconds to wait after the last of *failed* failures before trying again."""
        return 0 if failed < self.free + 1 else 2 ** (failed - self.free - 1)


def _refusal(kind: str, seconds: int) -> TooManyAttempts:
    messages = {
        "login": N_("Too many wrong PINs: try again in {seconds} s."),
        "join": N_("Too many wrong seat codes: try again in {seconds} s."),
        "create": N_("Too many new tables from this address: try again in {seconds} s."),
        "learner": N_("Too many wrong learner codes: try again in {seconds} s."),
        "enrol": N_("Too many new learners from this address: try again in {seconds} s."),
    }
    return TooManyAttempts(Message(messages[kind], seconds=seconds), seconds)


def busy(seconds: int) -> TooManyAttempts:
    """The refusal of work the server is already doing for someone else (429, *seconds*)."""
    message = N_("The server is working out the odds of another table: try again in {seconds} s.")
    return TooManyAttempts(Message(message, seconds=seconds), seconds)


def client_key(client: str) -> str:
    """What guessing is counted by for the client at address *client*.

    An IPv6 address counts by its /64 network (one phone or home holds all of it: counting
    each address alone would let it guess without end); an IPv4 address, or an IPv6 one
    that carries an IPv4 address, counts as that IPv4 address.

    >>> client_key("2001:db8::1"), client_key("::ffff:192.0.2.7"), client_key("unknown")
    ('2001:db8::/64', '192.0.2.7', 'unknown')
    """
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def reserve_attempt(
    session: Session,
    kind: str,
    table_id: int | None,
    client: str,
    now: datetime,
    limits: Limits,
    device: str = "",
) -> int:
    """Record a pending attempt (its id), or refuse with 429 when it must wait or is locked.

    Call it in the transaction that locked the table's row, before the slow check.
    *device*: the id of a device the dealer signed in on at this table before (its
    attempts are counted on their own).
    """
    if client == "local":  # a call from no network (tests, the command line): not limited
        return 0
    client = f"device:{device}"[:64] if device and kind == "login" else client_key(client)
    if session.get_bind().dialect.name == "postgresql":  # one address at a time, any table
        session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:c))"), {"c": client})
    session.execute(delete(AttemptRow).where(AttemptRow.created_at < now - 4 * limits.window))
    if kind in ("create", "enrol"):
        since = now - timedelta(hours=1)
        made = session.scalars(
            select(AttemptRow.created_at)
            .where(AttemptRow.kind == kind, AttemptRow.client == client)
            .where(AttemptRow.created_at >= since)
            .order_by(AttemptRow.created_at)
        ).all()
        most = limits.tables_per_hour if kind == "create" else limits.learners_per_hour
        if len(made) >= most:
            raise _refusal(kind, _seconds(made[0] + timedelta(hours=1) - now))
    else:
        since = now - limits.window
        scopes = [AttemptRow.client == client]
        if table_id is not None and kind == "login" and not device:  # seat codes: per address
            scopes.append(AttemptRow.table_id == table_id)  # only: one guesser locks no table out
        for scope in scopes:
            failed = session.scalars(
                select(AttemptRow.created_at)
                .where(AttemptRow.kind == kind, scope, AttemptRow.created_at >= since)
                .where(or_(AttemptRow.outcome == "failed", AttemptRow.outcome == "pending"))
                .order_by(AttemptRow.created_at)
            ).all()
            if len(failed) >= limits.failures:
                raise _refusal(kind, _seconds(failed[0] + limits.window - now))
            wait = limits.wait_after(len(failed)) if kind == "login" else 0
            if wait and failed[-1] + timedelta(seconds=wait) > now:
                raise _refusal(kind, _seconds(failed[-1] + timedelta(seconds=wait) - now))
    attempt = AttemptRow(
        kind=kind,
        table_id=table_id,
        client=client,
        outcome="ok" if kind in ("create", "enrol") else "pending",
        created_at=now,
    )
    session.add(attempt)
    session.flush()
    return attempt.id


def finish_attempt(session: Session, attempt_id: int, ok: bool) -> None:
    """Record whether the attempt succeeded (0: an attempt that was not counted)."""
    attempt = session.get(AttemptRow, attempt_id) if attempt_id else None
    if attempt is not None:
        attempt.outcome = "ok" if ok else "failed"


def _seconds(delta: timedelta) -> int:
    return max(1, int(-(-delta.total_seconds() // 1)))


def check_text(value: str, what: str, limit: int, *, required: bool = True) -> str:
    """*value* stripped, or one sentence saying it is missing, too long or holds a control
    character (a tab, a line break, a NUL — which PostgreSQL's text cannot even store).

    >>> check_text("  Asha ", "name", 40)
    'Asha'
    >>> check_text("As\\tha", "name", 40)
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ParameterError: A name cannot hold a control character (a tab, a line break …): type it on one line, without them.
    """
    stripped = value.strip()
    labels = {
        "name": (
            N_("A player needs a name."),
            N_("A name has at most {n} characters."),
            N_("A name cannot hold a control character (a tab, a line break …): type it on one"
               " line, without them."),
        ),
        "table": (
            N_("A table needs a name."),
            N_("A table's name has at most {n} characters."),
            N_("A table's name cannot hold a control character (a tab, a line break …): type"
               " it on one line, without them."),
        ),
        "reason": (
            N_("Give a reason."),
            N_("A reason has at most {n} characters."),
            N_("A reason cannot hold a control character (a tab, a line break …): type it on"
               " one line, without them."),
        ),
    }  # fmt: skip
    missing, too_long, control = labels[what]
    if required and not stripped:
        raise ParameterError(Message(missing))
    if len(stripped) > limit:
        raise ParameterError(Message(too_long, n=limit))
    if any(unicodedata.category(ch) == "Cc" for ch in stripped):
        raise ParameterError(Message(control))
    return stripped


def check_chips(amount: Decimal, chip: Decimal) -> Decimal:
    """A buy-in, top-up or cash-out: above zero, whole chips of the table, at most MAX_CHIPS."""
    if amount <= 0:
        raise BetError(
            Message(N_("The amount {amount} must be greater than zero."), amount=Amount(amount))
        )
    if amount % chip != 0:
        raise BetError(
            Message(
                N_("The amount {amount} is not a whole number of chips of {chip} at this table."),
                amount=Amount(amount),
                chip=Amount(chip),
            )
        )
    if amount > MAX_CHIPS:
        raise BetError(
            Message(
                N_("The amount {amount} is more than the table can hold: at most {limit}."),
                amount=Amount(amount),
                limit=format_amount(MAX_CHIPS),
            )
        )
    return amount


@lru_cache(maxsize=1024)
def _bet_odds(paytable: Paytable, bet_text: str) -> tuple[Odds, ...]:
    """Every odds *bet_text* may pay at *paytable*, each once (worked out once per bet)."""
    from andar_bahar.engine.bets import Bet

    bet = Bet.parse(bet_text)
    return tuple(
        dict.fromkeys(
            paytable.odds_for(bet, first_row=row, cards_dealt=count)
            for row in Row
            for count in (None, *range(1, 50))  # pays may depend on the count of cards dealt
        )
    )


def check_bet_return(paytable: Paytable, bet_text: str, stake: Decimal) -> None:
    """Refuse a bet whose greatest possible return is more than :data:`MAX_CHIPS`."""
    most = max(stake + paytable.win(stake, odds) for odds in _bet_odds(paytable, bet_text))
    if most > MAX_CHIPS:
        raise BetError(
            Message(
                N_(
                    "A stake of {stake} could return {most}, more than the table can pay on"
                    " one bet (at most {limit}): stake less."
                ),
                stake=Amount(stake),
                most=Amount(most),
                limit=format_amount(MAX_CHIPS),
            )
        )
