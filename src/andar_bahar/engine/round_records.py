"""A round as text that replays it exactly: ``Round.dumps()`` / ``Round.loads()``.

The record holds the procedure, the whole paytable, the balances, the virtual deck
and every operation; loading replays each operation through the state machine, so
a record the engine would not have produced is refused.

The import runs one way: :mod:`andar_bahar.engine.round` writes and reads its records
through this module, which knows of a round only what :class:`Replayable` names.

Records written before repeated bets added up (no ``total`` in a ``bet`` step)
still load: there a repeated bet replaced the stake, and it is replayed as a
:class:`~andar_bahar.engine.operations.BetChanged` — the same round, paid the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from andar_bahar._version import __version__
from andar_bahar.engine.bets import Bet, Wager
from andar_bahar.engine.cards import Card, Rank
from andar_bahar.engine.errors import ActionError, DeckError
from andar_bahar.engine.money import Amount, check_amount, format_amount
from andar_bahar.engine.operations import (
    BetChanged,
    BetPlaced,
    BetsClosed,
    BetWithdrawn,
    CardDealt,
    CentreTurned,
    MarkerPlaced,
    Operation,
    RoundSettled,
    RoundVoided,
    TargetChosen,
    operation_to_dict,
)
from andar_bahar.engine.paytables import Paytable, load_paytable
from andar_bahar.engine.rules import Procedure, Row
from andar_bahar.i18n.messages import N_, Message

__all__ = ["FORMAT", "Record", "Replayable", "read_record", "replay", "round_to_dict"]

FORMAT = "andar-bahar-round/1"

Stake = Decimal | int | str


class Replayable(Protocol):
    """What writing and replaying a record needs of a round (the state machine's steps)."""

    procedure: Procedure
    paytable: Paytable
    balances: dict[str, Decimal] | None

    @property
    def deck(self) -> tuple[Card, ...] | None: ...

    @property
    def operations(self) -> tuple[Operation, ...]: ...

    @property
    def wagers(self) -> tuple[Wager, ...]: ...

    def place_bet(self, player: str, bet: Bet | str, stake: Stake) -> BetPlaced: ...

    def change_bet(self, player: str, bet: Bet | str, stake: Stake) -> BetChanged: ...

    def withdraw_bet(self, player: str, bet: Bet | str) -> BetWithdrawn: ...

    def place_marker(self, player: str, row: Row | str) -> MarkerPlaced: ...

    def close_bets(self) -> BetsClosed: ...

    def choose_target(self, rank: Rank | str) -> TargetChosen: ...

    def turn_centre(self, card: Card | None = None) -> CentreTurned: ...

    def deal(self, card: Card | None = None) -> CardDealt: ...

    def void(self, reason: str = "") -> RoundVoided: ...

    def settle(self) -> RoundSettled: ...


@dataclass(frozen=True, slots=True)
class Record:
    """A round record read back: what to build the round from, and its steps to replay."""

    procedure: Procedure
    paytable: Paytable
    balances: dict[str, Decimal] | None
    deck: tuple[Card, ...] | None
    steps: Sequence[Mapping[str, Any]]


def round_to_dict(rnd: Replayable) -> dict[str, Any]:
    """The round as plain data: rules, paytable, deck and every operation."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "engine": __version__,
        "procedure": rnd.procedure.to_dict(),
        "paytable": rnd.paytable.to_toml(),
    }
    if rnd.balances is not None:
        data["balances"] = {p: format_amount(b) for p, b in rnd.balances.items()}
    if rnd.deck is not None:
        data["deck"] = " ".join(str(c) for c in rnd.deck)
    data["operations"] = [operation_to_dict(op) for op in rnd.operations]
    return data


def read_record(text: str) -> Record:
    """A round record's rules, balances, deck and steps (:func:`replay` plays the steps)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ActionError(
            Message(N_("The round record is not valid JSON: {reason}."), reason=error)
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ActionError(Message(N_("The text is not a round record ({format})."), format=FORMAT))
    procedure = Procedure.from_dict(data["procedure"], source="round")
    paytable = load_paytable(data["paytable"], source="round")
    balances = {p: Decimal(b) for p, b in data["balances"].items()} if "balances" in data else None
    deck = Card.parse_many(data["deck"]) if "deck" in data else None
    return Record(procedure, paytable, balances, deck, data.get("operations", []))


def replay(rnd: Replayable, steps: Sequence[Mapping[str, Any]]) -> None:
    """Replay a record's *steps* through *rnd*'s state machine (each one checked again)."""
    for op in steps:
        _replay(rnd, op)


def _replay(rnd: Replayable, op: Mapping[str, Any]) -> None:
    kind = op.get("op")
    virtual = rnd.deck is not None
    if kind == "bet":
        _replay_bet(rnd, op)
    elif kind == "change":
        rnd.change_bet(op["player"], op["bet"], _recorded(op["stake"]))
    elif kind == "withdraw":
        rnd.withdraw_bet(op["player"], op["bet"])
    elif kind == "marker":
        rnd.place_marker(op["player"], op["row"])
    elif kind == "close":
        rnd.close_bets()
    elif kind == "target":
        rnd.choose_target(op["rank"])
    elif kind == "centre":
        card = Card.parse(op["card"])
        _check_replayed(rnd.turn_centre(None if virtual else card).card, card)
    elif kind == "deal":
        card = Card.parse(op["card"])
        _check_replayed(rnd.deal(None if virtual else card).card, card)
    elif kind == "void":
        rnd.void(str(op.get("reason", "")))
    elif kind == "settle":
        rnd.settle()
    else:
        raise ActionError(Message(N_("Unknown step '{op}' in the round record."), op=kind))


def _recorded(value: object) -> Decimal:
    """An amount as a record writes it (``format_amount``: ``2.125`` is two and a bit, never
    read as a person's ``2,125``), checked as every amount is."""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        amount = Decimal("NaN")
    return check_amount(amount, value)


def _replay_bet(rnd: Replayable, op: Mapping[str, Any]) -> None:
    player, bet = str(op["player"]), Bet.parse(op["bet"])
    if "total" not in op:
        # Recorded before repeated bets added up, when a repeated bet replaced the
        # stake: replay it as today's explicit step for that, a change.
        held = any(w.player == player.strip() and w.bet == bet for w in rnd.wagers)
        if held:
            rnd.change_bet(player, bet, _recorded(op["stake"]))
        else:
            rnd.place_bet(player, bet, _recorded(op["stake"]))
        return
    placed = rnd.place_bet(player, bet, _recorded(op["stake"]))
    recorded = _recorded(op["total"])
    if placed.total != recorded:
        raise ActionError(
            Message(
                N_(
                    "The round record says {player} has {recorded} on {bet}, but its bets"
                    " add up to {total}."
                ),
                player=placed.player,
                recorded=Amount(recorded),
                bet=bet,
                total=Amount(placed.total),
            )
        )


def _check_replayed(dealt: Card, recorded: Card) -> None:
    if dealt != recorded:
        raise DeckError(
            Message(
                N_("The round record says {recorded} but its deck gives {dealt}."),
                recorded=recorded,
                dealt=dealt,
            )
        )
