"""A round at a club table: open it, take bets and markers, deal, settle; the bet timer.

:class:`Rounds` is a part of :class:`~andar_bahar.club.service.TableService`; each
method is one short transaction (see :mod:`andar_bahar.club.store`). The shuffled deck is stored
when the round opens, with a random salt; only its SHA-256 commitment is shown
until the round is settled.

The hot path does not replay the round: the round of each table is kept in
memory with the table's version (:meth:`~andar_bahar.club.kept.Kept.round_of`),
and used only while the version in the database is the same — so a change made by
another process, or a transaction that failed half-way, is never missed.

The bet timer: the dealer may give the bets a deadline (when opening the round,
or while bets are open). From the deadline on a bet is refused, and the bets
close — by the live machinery's task at the deadline, or, whichever comes first,
by the next action at the table.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import cast

from sqlalchemy import Select, Table, bindparam, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from andar_bahar.club.cashier import check_balanced, post_all
from andar_bahar.club.limits import MAX_REASON, RequestConflict, check_bet_return, check_text
from andar_bahar.club.store import PLAYERS_IN_ORDER, Store
from andar_bahar.club.values import (
    PlacedBet,
    PublicRound,
    commitment_of,
    placed_from_json,
    public_round,
    stored_paytable,
    stored_procedure,
)
from andar_bahar.engine.cards import Card, Rank, shuffled
from andar_bahar.engine.errors import ActionError, BetError, ParameterError
from andar_bahar.engine.money import format_amount
from andar_bahar.engine.round import Round
from andar_bahar.i18n.messages import N_, Message
from andar_bahar.storage.models import (
    ClubTableRow,
    IdempotencyRow,
    TableRoundRow,
)

__all__ = ["MAX_TIMER", "Rounds"]

MAX_TIMER = 3600
"""The longest bet timer, in seconds."""
TIMER_OVER = Message(N_("Bets are closed: the bet timer has run out."))
_ANSWERS = cast(Table, IdempotencyRow.__table__)
FIRST_ANSWER: Select[str | None, str] = select(_ANSWERS.c.request, _ANSWERS.c.response).where(
    _ANSWERS.c.player_id == bindparam("player_id"), _ANSWERS.c.key == bindparam("key")
)
KEEP_ANSWER = insert(_ANSWERS)
"""The first answer to a player's request key: read, and kept (plain statements, built once)."""


class Rounds:
    """Open a round, take the players' bets and markers, deal it, and settle it in the ledger."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def open_round(
        self, code: str, dealer_token: str, *, physical: bool = False, seconds: int | None = None
    ) -> PublicRound:
        """Shuffle (unless a real deck is typed in), store the deck, show its commitment.

        *seconds*: a bet timer (see :meth:`set_timer`).
        """
        deadline = self._deadline(seconds) if seconds else None
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            self.store.still_open(table)
            current = self.store.settled_last(
                session, table, N_("Round {n} is still in play: settle it first.")
            )
            lesson = table.kind == "teaching"
            if lesson and self.store.rounds_played(session, table) >= table.rounds_planned:
                raise ActionError(
                    Message(
                        N_("The lesson is over: {n} rounds have been played."),
                        n=table.rounds_planned,
                    )
                )
            procedure = stored_procedure(table.procedure_json)
            paytable = stored_paytable(table.paytable_toml)
            balances = self.store.balances(session, table) if table.kind == "betting" else None
            deck = None if physical else shuffled(self.store.rng)
            rnd = Round(procedure, paytable, deck=deck, balances=balances)
            if not procedure.has_centre and not physical:
                rnd.choose_target(self.store.rng.choice(list(Rank)))
            salt = commitment = None
            if deck is not None:
                salt = secrets.token_hex(16)
                commitment = commitment_of(" ".join(str(c) for c in deck), salt)
            row = TableRoundRow(
                table_id=table.id,
                number=(current.number + 1) if current else 1,
                status="open",
                record=rnd.dumps(),
                salt=salt,
                commitment=commitment,
                winner=None,
                cards_dealt=None,
                opened_at=self.store.now(),
                settled_at=None,
                bets_deadline=deadline,
            )
            session.add(row)
            session.flush()
            self.store.transactions.changed(session, table, "open")
            if deadline is not None:
                self._audit_timer(session, table, seconds)
            self.store.kept.keep_round(session, table, row, rnd)
            return public_round(row, rnd)

    def set_timer(self, code: str, dealer_token: str, seconds: int) -> PublicRound:
        """Close the bets *seconds* from now (0: no timer); only while bets are open."""
        deadline = self._deadline(seconds) if seconds else None
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            row, rnd = self.store.round_in_play(session, table)
            self._expire(session, table, row, rnd)
            if row.status != "open" or not rnd.bets_open:
                raise ActionError(Message(N_("Bets are closed: there is nothing to time.")))
            row.bets_deadline = deadline
            self._audit_timer(session, table, seconds)
            self.store.transactions.changed(session, table, "timer", set())
            return public_round(row, rnd)

    def close_expired(self, code: str) -> bool:
        """Close the bets of *code* if their timer has run out; whether it did (idempotent)."""
        with self.store.transactions.write() as session:
            table = self.store.table(session, code)
            row = self.store.current(session, table)
            if row is None or row.status != "open" or row.bets_deadline is None:
                return False
            if self.store.now() < row.bets_deadline:
                return False
            return self._expire(session, table, row, self.store.kept.round_of(session, table, row))

    def _deadline(self, seconds: int) -> datetime:
        if not 0 <= seconds <= MAX_TIMER:
            raise ParameterError(
                Message(
                    N_("A bet timer runs 1 to {most} seconds (0: none), not {seconds}."),
                    most=MAX_TIMER,
                    seconds=seconds,
                )
            )
        return self.store.now() + timedelta(seconds=seconds)

    def _audit_timer(self, session: Session, table: ClubTableRow, seconds: int | None) -> None:
        self.store.audit(session, table, "dealer", "timer", None, str(seconds or 0), "bet timer")

    def _expire(
        self, session: Session, table: ClubTableRow, row: TableRoundRow, rnd: Round
    ) -> bool:
        """Close the bets now if their deadline has passed (in this transaction)."""
        deadline = row.bets_deadline
        if deadline is None or self.store.now() < deadline or not rnd.bets_open:
            return False
        rnd.close_bets()
        self.store.kept.save(session, row, rnd)
        self.store.transactions.changed(session, table, "close")
        return True

    def place_bet(
        self, code: str, player_token: str, bet: str, stake: str | Decimal, *, key: str
    ) -> PlacedBet:
        """Place (or change) one's own bet; a request repeated with the same key counts once.

        The same key with a different bet or stake is refused (409), never answered as
        the first request was.
        """

        def place(rnd: Round, name: str) -> object:
            placed = rnd.place_bet(name, bet, stake)
            check_bet_return(rnd.paytable, str(placed.bet), placed.total)
            return placed

        return self._idempotent(code, player_token, key, place, ("bet", bet, str(stake)))

    def withdraw_bet(self, code: str, player_token: str, bet: str, *, key: str) -> PlacedBet:
        return self._idempotent(
            code, player_token, key, lambda rnd, name: rnd.withdraw_bet(name, bet),
            ("withdraw", bet, ""),
        )  # fmt: skip

    def take_back_bet(self, code: str, player_token: str, *, key: str) -> PlacedBet:
        """Take the player's last placement off its spot while bets are open (the engine's
        :meth:`~andar_bahar.engine.round.Round.take_back`). Nothing is in the ledger
        until the settlement, so nothing is posted; the audit log keeps it. The answer
        names the spot and the stake taken back (``total``: what is left on the spot)."""

        def take(rnd: Round, name: str) -> object:
            last = rnd.last_placement(name)
            rnd.take_back(name)  # refused once bets are closed, or with nothing to take
            return last

        return self._idempotent(
            code, player_token, key, take, ("take back", "", ""), audit="take back"
        )

    def double_bets(self, code: str, player_token: str, *, key: str) -> PlacedBet:
        """The same stake again on each of the player's spots: all of them or none."""

        def double(rnd: Round, name: str) -> object:
            placed = rnd.double_bets(name)
            for one in placed:
                check_bet_return(rnd.paytable, str(one.bet), one.total)
            return placed[-1]

        return self._idempotent(code, player_token, key, double, ("double", "", ""))

    def place_bets(
        self, code: str, player_token: str, bets: tuple[tuple[str, Decimal], ...], *, key: str
    ) -> PlacedBet:
        """Several bets at once (a repeat of the last round's): all of them or none."""

        def place(rnd: Round, name: str) -> object:
            placed = None
            for bet, stake in bets:
                placed = rnd.place_bet(name, bet, stake)
                check_bet_return(rnd.paytable, str(placed.bet), placed.total)
            return placed

        asked = " ".join(f"{bet}={stake}" for bet, stake in bets)
        return self._idempotent(code, player_token, key, place, ("bets", asked, ""))

    def place_marker(self, code: str, player_token: str, row: str) -> None:
        late = False
        with self.store.transactions.write() as session:
            table = self.store.table(session, code)
            player = self.store.player(session, table, player_token)
            round_row, rnd = self.store.round_in_play(session, table)
            late = self._expire(session, table, round_row, rnd)
            if not late:
                rnd.place_marker(player.name, row)
                self.store.kept.save(session, round_row, rnd)
                self.store.transactions.changed(session, table, "marker", {player.id})
        if late:
            raise BetError(TIMER_OVER)

    def _idempotent(
        self,
        code: str,
        token: str,
        key: str,
        action: Callable[[Round, str], object],
        request: tuple[str, str, str],
        *,
        audit: str = "",
    ) -> PlacedBet:
        key = key.strip()
        asked = hashlib.sha256("\0".join(part.strip() for part in request).encode()).hexdigest()
        if not key or len(key) > 80 or not key.isprintable():
            raise ParameterError(
                Message(N_("Every bet request needs its own key (1 to 80 printable characters)."))
            )
        try:
            with self.store.transactions.write() as session:
                placed = self._apply_bet(session, code, token, key, asked, action, audit)
        except IntegrityError:  # the same key raced in from a second request: answer as it did
            with self.store.transactions.read() as session:
                table = self.store.table(session, code, lock=False)
                player = self.store.player(session, table, token)
                done = session.execute(_first_answer(player.id, key)).one()
                return replace(_answered(done[0], done[1], asked), player_id=player.id)
        if placed is None:
            raise BetError(TIMER_OVER)
        return placed

    def _apply_bet(
        self,
        session: Session,
        code: str,
        token: str,
        key: str,
        asked: str,
        action: Callable[[Round, str], object],
        audit: str = "",
    ) -> PlacedBet | None:
        """The bet in this transaction: its answer (``None``: refused, the timer ran out).
        *audit*: the action's name in the audit log (a bet itself is kept in its round)."""
        table = self.store.table(session, code)
        player_id, player = self.store.seat(session, table, token)
        # The statements of the bet itself go straight to the connection (no ORM on the way).
        connection = session.connection()
        done = connection.execute(FIRST_ANSWER, {"player_id": player_id, "key": key}).first()
        if done is not None:
            return replace(_answered(done[0], done[1], asked), player_id=player_id)
        round_row, rnd = self.store.round_in_play(session, table)
        if self._expire(session, table, round_row, rnd):
            return None
        record = action(rnd, player)
        self.store.kept.save(session, round_row, rnd)
        self.store.transactions.changed(session, table, "bet", {player_id})
        stake = getattr(record, "stake", Decimal(0))
        name = str(getattr(record, "bet", ""))
        total = sum((w.stake for w in rnd.wagers if w.player == player and str(w.bet) == name),
                    Decimal(0))  # fmt: skip
        placed = PlacedBet(player, name, stake, round_row.number, player_id, total)
        if audit:
            held = f"{name} {format_amount(total + stake)}"
            self.store.audit(
                session, table, player, audit, held, f"{name} {format_amount(total)}", ""
            )
        response = {
            "player": placed.player,
            "bet": placed.bet,
            "stake": format_amount(placed.stake),
            "round": placed.round,
            "total": format_amount(total),
        }
        connection.execute(
            KEEP_ANSWER,
            {
                "player_id": player_id,
                "key": key,
                "request": asked,
                "response": json.dumps(response),
                "created_at": self.store.now(),
            },
        )
        return placed

    def close_bets(self, code: str, dealer_token: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.close_bets(), "close")

    def turn_centre(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        return self._dealer_step(
            code, dealer_token, lambda rnd: rnd.turn_centre(_card(card)), "centre"
        )

    def choose_target(self, code: str, dealer_token: str, rank: str) -> PublicRound:
        return self._dealer_step(code, dealer_token, lambda rnd: rnd.choose_target(rank), "target")

    def deal(self, code: str, dealer_token: str, card: str | None = None) -> PublicRound:
        """Deal the next card: from the stored deck, or the card the dealer typed."""

        def step(rnd: Round) -> object:
            if rnd.procedure.has_centre and rnd.centre is None:
                return rnd.turn_centre(_card(card))
            return rnd.deal(_card(card))

        return self._dealer_step(code, dealer_token, step, "deal")

    def void(self, code: str, dealer_token: str, reason: str = "") -> PublicRound:
        """Call off a round dealt from a real deck (exhausted, a misdeal …), with a reason.

        Every stake is returned at settlement; the reason is kept in the round's record and
        the audit log. A round dealt from the committed, shuffled deck cannot be void.
        """

        def step(rnd: Round) -> object:
            if not rnd.can_void():
                return rnd.void()  # refused, with the engine's sentence
            return rnd.void(check_text(reason, "reason", MAX_REASON))

        return self._dealer_step(code, dealer_token, step, "void", audit=reason.strip())

    def _dealer_step(
        self,
        code: str,
        token: str,
        step: Callable[[Round], object],
        kind: str,
        audit: str | None = None,
    ) -> PublicRound:
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, token)
            row, rnd = self.store.round_in_play(session, table)
            if row.status != "open":
                raise ActionError(Message(N_("The round is over: settle it.")))
            self._expire(session, table, row, rnd)
            before = rnd.centre
            step(rnd)
            self.store.kept.save(session, row, rnd)
            if audit is not None:
                self.store.audit(session, table, "dealer", "void", str(row.number), None, audit)
            # The players' own blocks change only when the round ends: the bets closing
            # changes the felt alone (live.keys.my_bets: the spots do not show it) — and
            # when the centre card is turned at a table with bets on it: the spots lose them,
            # the bettors see what they won.
            turned = before is None and rnd.centre is not None and bool(rnd.paytable.centre)
            everyone = row.status != "open" or turned
            self.store.transactions.changed(session, table, kind, None if everyone else set())
            return public_round(row, rnd)

    def settle(self, code: str, dealer_token: str) -> PublicRound:
        """Settle the finished round: ledger entries for every stake and every return."""
        with self.store.transactions.write() as session:
            table = self.store.dealer(session, code, dealer_token)
            row, rnd = self.store.round_in_play(session, table)
            settlement = rnd.settle().settlement
            assert settlement is not None
            found = session.execute(PLAYERS_IN_ORDER, {"table": table.id})
            players = {name: player_id for player_id, name in found}
            now = self.store.now()
            post_all(session, table, (
                (players[player], player, amount, "stake" if amount < 0 else "return", reason)
                for player, amount, reason in settlement.postings()
            ), now, row.id)  # fmt: skip
            check_balanced(session, table, row.id)  # in this transaction: else nothing is kept
            row.status = "settled"
            row.settled_at = now
            self.store.kept.save(session, row, rnd)
            self.store.transactions.changed(session, table, "settle")
            return public_round(row, rnd)


def _first_answer(player_id: int, key: str) -> Select[str | None, str]:
    """The request and answer kept for *player_id*'s request *key* (plain SQL: no ORM)."""
    return FIRST_ANSWER.params(player_id=player_id, key=key)


def _answered(request: str | None, response: str, asked: str) -> PlacedBet:
    """The first answer to a key, if this is the same request (older keys kept none)."""
    if request is not None and request != asked:
        raise RequestConflict(
            Message(
                N_(
                    "This request key was already used for a different bet: send a new key"
                    " with a new request."
                )
            )
        )
    return placed_from_json(json.loads(response))


def _card(text: str | None) -> Card | None:
    return Card.parse(text) if text is not None and text.strip() else None
