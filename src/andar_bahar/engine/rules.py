"""Procedures: the named rules a round is played by.

A procedure is data: a frozen, self-checking :class:`Procedure` with one enum
per choice. Presets are looked up by name; a club writes its own in TOML.

>>> classic = find_procedure("classic")
>>> classic.start, classic.target, classic.window
(<StartRule.ANDAR: 'andar'>, <TargetMode.CENTRE_CARD: 'centre-card'>, <BetWindow.AFTER_CENTRE: 'after-centre'>)
>>> classic.replace(start=StartRule.CENTRE_COLOUR).name
'classic'
>>> Procedure("mine", start=StartRule.CENTRE_COLOUR, target=TargetMode.CHOSEN_RANK)
Traceback (most recent call last):
...
andar_bahar.engine.errors.ProcedureError: Procedure 'mine': the start rule 'centre-colour' needs a centre card, but the target mode 'chosen-rank' turns none; choose the start rule 'andar' or 'first-card-colour'.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from andar_bahar.engine.cards import Card, Colour
from andar_bahar.engine.errors import ProcedureError, RulesError
from andar_bahar.i18n.messages import N_, Message, Translator, translate

__all__ = [
    "DESCRIPTION",
    "PROCEDURES",
    "START_NAMES",
    "TARGET_NAMES",
    "WINDOW_NAMES",
    "BetWindow",
    "Procedure",
    "Row",
    "StartRule",
    "TargetMode",
    "find_procedure",
    "load_procedure",
]


class Row(StrEnum):
    """The two rows: Andar ("inside") and Bahar ("outside")."""

    ANDAR = "andar"
    BAHAR = "bahar"

    @property
    def other(self) -> Row:
        return Row.BAHAR if self is Row.ANDAR else Row.ANDAR

    @classmethod
    def of_colour(cls, colour: Colour) -> Row:
        """Black → Andar, red → Bahar (the colour start rules)."""
        return cls.ANDAR if colour is Colour.BLACK else cls.BAHAR

    def localized(self, translator: Translator | None) -> str:
        return translate(_ROW_NAMES[self], translator)


_ROW_NAMES = {Row.ANDAR: N_("Andar"), Row.BAHAR: N_("Bahar")}


class StartRule(StrEnum):
    """Which row gets the first dealt card."""

    ANDAR = "andar"
    """Always Andar (the casino version)."""
    CENTRE_COLOUR = "centre-colour"
    """Black centre card → Andar first, red → Bahar first (the lesson's rule)."""
    FIRST_CARD_COLOUR = "first-card-colour"
    """The first dealt card's own colour decides its row (the lesson's variant)."""

    def localized(self, translator: Translator | None) -> str:
        return translate(START_NAMES[self], translator)


START_NAMES = {
    StartRule.ANDAR: N_("always Andar first"),
    StartRule.CENTRE_COLOUR: N_("centre card's colour: black → Andar first, red → Bahar first"),
    StartRule.FIRST_CARD_COLOUR: N_("first card's colour: black → Andar, red → Bahar"),
}


class TargetMode(StrEnum):
    """What the dealt cards must match."""

    CENTRE_CARD = "centre-card"
    """The rank of a centre card turned before the deal: 51 cards remain, 3 match."""
    CHOSEN_RANK = "chosen-rank"
    """A rank chosen in advance, no centre card: 52 cards, 4 match (Ullae Veliyae)."""

    def localized(self, translator: Translator | None) -> str:
        return translate(TARGET_NAMES[self], translator)


TARGET_NAMES = {
    TargetMode.CENTRE_CARD: N_("the centre card's rank"),
    TargetMode.CHOSEN_RANK: N_("a rank chosen before the deal"),
}


class BetWindow(StrEnum):
    """When bets and markers close."""

    BEFORE_CENTRE = "before-centre"
    """Bets close before the centre card is turned."""
    AFTER_CENTRE = "after-centre"
    """Bets stay open after the centre card, until the first dealt card."""

    def localized(self, translator: Translator | None) -> str:
        return translate(WINDOW_NAMES[self], translator)


WINDOW_NAMES = {
    BetWindow.BEFORE_CENTRE: N_("bets close before the centre card"),
    BetWindow.AFTER_CENTRE: N_("bets close at the first dealt card"),
}
"""How people are told each choice (the games' own words build on these)."""

DESCRIPTION = N_("{name} — start: {start}; target: {target}; {window}")
"""A procedure in one line: its name and each choice."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Procedure:
    """The rules of a round. Every field but ``name`` is keyword-only.

    ``markers_only`` rounds take markers on a row and no stakes (the teaching
    game); ``rounds`` is the length of a game played by this procedure.
    """

    name: str
    start: StartRule = StartRule.ANDAR
    target: TargetMode = TargetMode.CENTRE_CARD
    window: BetWindow = BetWindow.AFTER_CENTRE
    paytable: str = "trainer-default"
    markers_only: bool = False
    rounds: int = 10

    def __init__(
        self,
        name: str,
        *,
        start: StartRule = StartRule.ANDAR,
        target: TargetMode = TargetMode.CENTRE_CARD,
        window: BetWindow = BetWindow.AFTER_CENTRE,
        paytable: str = "trainer-default",
        markers_only: bool = False,
        rounds: int = 10,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "start", StartRule(start))
        object.__setattr__(self, "target", TargetMode(target))
        object.__setattr__(self, "window", BetWindow(window))
        object.__setattr__(self, "paytable", paytable)
        object.__setattr__(self, "markers_only", markers_only)
        object.__setattr__(self, "rounds", rounds)
        self._check()

    def _check(self) -> None:
        if not self.name.strip():
            raise ProcedureError(Message(N_("A procedure needs a name.")))
        if self.start is StartRule.CENTRE_COLOUR and self.target is TargetMode.CHOSEN_RANK:
            raise ProcedureError(
                Message(
                    N_(
                        "Procedure '{name}': the start rule 'centre-colour' needs a centre card,"
                        " but the target mode 'chosen-rank' turns none; choose the start rule"
                        " 'andar' or 'first-card-colour'."
                    ),
                    name=self.name,
                )
            )
        if self.target is TargetMode.CHOSEN_RANK and self.window is BetWindow.BEFORE_CENTRE:
            # There is no centre card: "before the centre" and "after" both mean
            # "before the first dealt card". Normalise instead of refusing.
            object.__setattr__(self, "window", BetWindow.AFTER_CENTRE)
        if not 1 <= self.rounds <= 1000:
            raise ProcedureError(
                Message(
                    N_("Procedure '{name}': rounds must be between 1 and 1000, not {rounds}."),
                    name=self.name,
                    rounds=self.rounds,
                )
            )

    @property
    def has_centre(self) -> bool:
        """True when a centre card is turned (target mode ``centre-card``)."""
        return self.target is TargetMode.CENTRE_CARD

    def first_row(self, *, centre: Card | None, first_card: Card | None) -> Row | None:
        """The row of the first dealt card, or ``None`` until it can be known.

        >>> home = find_procedure("home")
        >>> home.first_row(centre=Card.parse("Q♥"), first_card=None)
        <Row.BAHAR: 'bahar'>
        """
        if self.start is StartRule.ANDAR:
            return Row.ANDAR
        if self.start is StartRule.CENTRE_COLOUR:
            return Row.of_colour(centre.colour) if centre is not None else None
        return Row.of_colour(first_card.colour) if first_card is not None else None

    def replace(self, **changes: object) -> Procedure:
        """A copy with some fields changed (and checked again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def overridden(
        self,
        *,
        start: StartRule | None = None,
        target: TargetMode | None = None,
        window: BetWindow | None = None,
    ) -> Procedure:
        """This procedure with some choices changed, under a name that says so.

        A changed procedure is a different game (the lesson says so), so it is never shown
        under the preset's bare name.

        >>> find_procedure("classic").overridden(start=StartRule.FIRST_CARD_COLOUR).name
        'classic --start first-card-colour'
        >>> find_procedure("classic").overridden(start=StartRule.ANDAR).name   # no change
        'classic'
        """
        changes: dict[str, object] = {}
        suffix = []
        for field, option, value in (
            ("start", "--start", start),
            ("target", "--target-mode", target),
            ("window", "--window", window),
        ):
            if value is not None and value != getattr(self, field):
                changes[field] = value
                suffix.append(f"{option} {value.value}")
        if not changes:
            return self
        changed = self.replace(**changes)
        if changed.to_dict() == self.to_dict():  # normalised back (chosen-rank windows)
            return self
        return changed.replace(name=" ".join([self.name, *suffix]))

    def describe(self, translator: Translator | None = None) -> str:
        """One line for people: the name and each choice, in the user's language."""
        return Message(
            DESCRIPTION,
            name=self.name,
            start=self.start,
            target=self.target,
            window=self.window,
        ).localized(translator)

    def localized(self, translator: Translator | None) -> str:
        """The procedure for people (see :meth:`describe`)."""
        return self.describe(translator)

    def to_dict(self) -> dict[str, object]:
        """The procedure as plain data (the TOML fields).

        >>> find_procedure("home").to_dict()["start"]
        'centre-colour'
        """
        return {
            "name": self.name,
            "start": self.start.value,
            "target": self.target.value,
            "window": self.window.value,
            "paytable": self.paytable,
            "markers_only": self.markers_only,
            "rounds": self.rounds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object], *, source: str = "") -> Procedure:
        """Build a procedure from plain data, naming *source* and the field in any error."""
        where = source or Message(N_("procedure"))
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ProcedureError(
                Message(
                    N_("{where}: unknown field '{field}'; the fields are {fields}."),
                    where=where,
                    field=unknown[0],
                    fields=", ".join(_FIELDS),
                )
            )
        values: dict[str, object] = {}
        for field_name, kind in _FIELDS.items():
            if field_name not in data:
                continue
            value = data[field_name]
            if isinstance(kind, type) and issubclass(kind, StrEnum):
                choices = [member.value for member in kind]
                if value not in choices:
                    raise ProcedureError(
                        Message(
                            N_("{where}: field '{field}' is '{value}'; choose one of {choices}."),
                            where=where,
                            field=field_name,
                            value=value,
                            choices=", ".join(choices),
                        )
                    )
                values[field_name] = kind(value)
            elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise ProcedureError(
                    Message(
                        N_("{where}: field '{field}' must be {kind}, not '{value}'."),
                        where=where,
                        field=field_name,
                        kind=_KIND_NAMES[kind],
                        value=value,
                    )
                )
            else:
                values[field_name] = value
        if "name" not in values:
            raise ProcedureError(Message(N_("{where}: the field 'name' is missing."), where=where))
        name = values.pop("name")
        assert isinstance(name, str)
        try:
            return cls(name, **values)  # type: ignore[arg-type]
        except ProcedureError as error:
            if not source:
                raise
            raise ProcedureError(
                Message(N_("{where}: {problem}"), where=where, problem=error.message)
            ) from None


_FIELDS: dict[str, type] = {
    "name": str,
    "start": StartRule,
    "target": TargetMode,
    "window": BetWindow,
    "paytable": str,
    "markers_only": bool,
    "rounds": int,
}
_KIND_NAMES: dict[type, Message] = {
    str: Message(N_("text")),
    bool: Message(N_("true or false")),
    int: Message(N_("a whole number")),
}

PROCEDURES: dict[str, Procedure] = {
    "classic": Procedure(
        "classic",
        start=StartRule.ANDAR,
        target=TargetMode.CENTRE_CARD,
        window=BetWindow.AFTER_CENTRE,
        paytable="trainer-default",
    ),
    "home": Procedure(
        "home",
        start=StartRule.CENTRE_COLOUR,
        target=TargetMode.CENTRE_CARD,
        window=BetWindow.AFTER_CENTRE,
        paytable="trainer-default",
        markers_only=True,
        rounds=10,
    ),
    "first-card": Procedure(
        "first-card",
        start=StartRule.FIRST_CARD_COLOUR,
        target=TargetMode.CENTRE_CARD,
        window=BetWindow.AFTER_CENTRE,
        paytable="trainer-default",
    ),
    "mangatha": Procedure(
        "mangatha",
        start=StartRule.ANDAR,
        target=TargetMode.CHOSEN_RANK,
        window=BetWindow.AFTER_CENTRE,
        paytable="trainer-default",
    ),
}
"""Named presets. ``classic`` and ``home`` are the rules' own; ``first-card`` plays
the first-card-colour rule and ``mangatha`` the chosen-rank Tamil version."""


def find_procedure(name: str) -> Procedure:
    """The preset called *name*; the error lists the valid names.

    >>> find_procedure("casino")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ProcedureError: Unknown procedure 'casino': choose one of classic, home, first-card, mangatha, or give a .toml file.
    """
    procedure = PROCEDURES.get(name.strip().lower())
    if procedure is None:
        raise ProcedureError(
            Message(
                N_("Unknown procedure '{name}': choose one of {names}, or give a .toml file."),
                name=name,
                names=", ".join(PROCEDURES),
            )
        )
    return procedure


def load_procedure(text: str, *, source: str = "procedure.toml") -> Procedure:
    r"""Read a club's procedure from TOML *text*; errors name *source* (the file).

    >>> load_procedure('name = "club"\nstart = "first-card-colour"').start
    <StartRule.FIRST_CARD_COLOUR: 'first-card-colour'>
    >>> load_procedure('name = "club"\nstart = "left"', source="club.toml")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ProcedureError: club.toml: field 'start' is 'left'; choose one of andar, centre-colour, first-card-colour.
    """
    data = read_toml(text, source, ProcedureError)
    return Procedure.from_dict(data, source=source)


MAX_TOML_DEPTH = 8
"""How deeply a club's TOML file may nest arrays and tables (a real one needs 3)."""

MAX_FILE_BYTES = 64 * 1024
"""The largest club file read (a real one is under 2 KiB): larger ones are refused unread."""


def too_large(source: str) -> Message:
    """The sentence for a club's file over :data:`MAX_FILE_BYTES`."""
    return Message(
        N_("{file} is too large for a club's file: at most {kib} KiB."),
        file=source,
        kib=MAX_FILE_BYTES // 1024,
    )


def read_toml(text: str, source: str, error: type[RulesError], **options: Any) -> dict[str, Any]:
    """A club's TOML document, or *error* with one sentence naming *source* (a text over
    :data:`MAX_FILE_BYTES` is refused before it is parsed).

    >>> read_toml("a = " + "[" * 9 + "]" * 9, "club.toml", ProcedureError)
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ProcedureError: club.toml is nested too deeply: at most 8 levels of arrays and tables.
    """
    too_deep = Message(
        N_("{file} is nested too deeply: at most {n} levels of arrays and tables."),
        file=source,
        n=MAX_TOML_DEPTH,
    )
    if len(text) > MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise error(too_large(source))
    try:
        data: dict[str, Any] = tomllib.loads(text, **options)
    except (tomllib.TOMLDecodeError, ValueError) as reason:  # ValueError: an integer too long
        raise error(
            Message(N_("{file} is not valid TOML: {reason}."), file=source, reason=reason)
        ) from None
    except RecursionError:  # thousands of nested brackets
        raise error(too_deep) from None
    if _depth(data) > MAX_TOML_DEPTH:
        raise error(too_deep)
    return data


def _depth(value: object, level: int = 0) -> int:
    """How deeply *value* nests (stops counting past the limit)."""
    if level > MAX_TOML_DEPTH or not isinstance(value, (Mapping, list)):
        return level
    items = value.values() if isinstance(value, Mapping) else value
    return max((_depth(v, level + 1) for v in items), default=level + 1)
