"""Players' names: one way to write each, nothing invisible in them, no two alike at a table.

A name is read by :func:`check_name`: Unicode NFKC (``Ａｓｈａ`` is ``Asha``, ``ﬁ`` is
``fi``), runs of spaces made one, none at the ends; an invisible *format* character
(Unicode category Cf: the bidirectional controls U+202A–U+202E, U+2066–U+2069,
U+200E/U+200F, U+061C, the zero-width space and joiners U+200B–U+200D, the word joiner
U+2060, the byte order mark U+FEFF …) or a line or paragraph separator (U+2028, U+2029)
is refused with a sentence naming it — such a
character makes two names that look the same different, or prints a name backwards.

Two names are **alike** (:func:`alike`) when they are equal once case-folded and
reduced to their skeletons (Unicode Technical Standard #39, §4): ``asha``, ``ASHA`` and
``аsha`` with a Cyrillic ``а`` are one name to the eye. :func:`check_new_name` refuses a
name alike to a seated player's, naming that player. The skeletons come from Unicode's
``confusables.txt`` (version 13.0), shipped with the package (``engine/unicode``, with its
licence) and read once, at the first use; the rules of a name are pure.

>>> normalised_name("  Ａｓｈａ   Rao ")
'Asha Rao'
>>> check_new_name("ASHA", ["Ravi", "asha"])
Traceback (most recent call last):
...
andar_bahar.engine.errors.ParameterError: The name 'ASHA' looks like asha's, who is already at the table: choose a name that tells them apart.
>>> check_new_name("ნინო", ["Нино", "Nino"])
'ნინო'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib import resources

from andar_bahar.engine.errors import ParameterError
from andar_bahar.i18n.messages import N_, Message

__all__ = ["alike", "check_name", "check_new_name", "normalised_name", "printable", "skeleton"]

_INVISIBLE = frozenset({"Cf", "Zl", "Zp"})
"""What a name may not hold (besides the controls, refused apart): format characters,
line and paragraph separators."""
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
"""What a statement never prints as it is: controls, format characters (invisible),
surrogates, private use, line and paragraph separators."""


def normalised_name(text: str) -> str:
    """*text* written as a name is kept: NFKC, runs of spaces one space, none at the ends."""
    return " ".join(part for part in unicodedata.normalize("NFKC", text).split(" ") if part)


def check_name(text: str) -> str:
    """*text* as a new name (:func:`normalised_name`); an invisible character refused.

    >>> check_name("as\\u200bha")
    Traceback (most recent call last):
    ...
    andar_bahar.engine.errors.ParameterError: The name 'as<U+200B>ha' holds the invisible character U+200B: type the name again without it.
    """
    name = normalised_name(text)
    for ch in name:
        if unicodedata.category(ch) in _INVISIBLE:
            raise ParameterError(
                Message(
                    N_(
                        "The name '{name}' holds the invisible character {code}: type the"
                        " name again without it."
                    ),
                    name=printable(name),
                    code=f"U+{ord(ch):04X}",
                )
            )
    return name


def alike(name: str, other: str) -> bool:
    """Whether two names look alike: equal skeletons once case-folded, before the skeleton
    (``ASHA`` and ``аsha``: the Cyrillic ``а``) or after it (``Ivan`` and ``lvan``: a
    capital I and a small L look the same).

    >>> alike("ASHA", "аsha"), alike("Ivan", "lvan"), alike("Нино", "ნინო"), alike("Asha", "Ravi")
    (True, True, False, False)
    """
    return any(a == b for a, b in zip(_keys(name), _keys(other), strict=True))


@lru_cache(maxsize=1024)
def _keys(name: str) -> tuple[str, str]:
    return (
        unicodedata.normalize("NFD", skeleton(name.casefold())),
        unicodedata.normalize("NFD", skeleton(name).casefold()),
    )


def check_new_name(name: str, seated: Iterable[str]) -> str:
    """*name* (:func:`check_name`) for a new seat, unless a player of *seated* has it or one
    alike (:func:`alike`): then one sentence naming that player."""
    wanted = check_name(name)
    for other in seated:
        if other == wanted:
            raise ParameterError(Message(N_("{player} is already at the table."), player=other))
        if alike(wanted, other):
            raise ParameterError(
                Message(
                    N_(
                        "The name '{name}' looks like {player}'s, who is already at the table:"
                        " choose a name that tells them apart."
                    ),
                    name=wanted,
                    player=printable(other),
                )
            )
    return wanted


def skeleton(text: str) -> str:
    """The skeleton of *text* (UTS #39, §4): NFD, each character replaced by its prototype
    in ``confusables.txt``, NFD again.

    >>> skeleton("раypal") == skeleton("paypal")  # a Cyrillic р and а
    True
    """
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(ch, ch) for ch in decomposed))


def printable(text: str) -> str:
    """*text* with every control, invisible or separator character shown as ``<U+XXXX>``:
    what a statement prints of a name or a reason (never a name printed backwards).

    >>> printable("Asha\\u202eahsA\\tx")
    'Asha<U+202E>ahsA<U+0009>x'
    """
    if text.isprintable():  # the usual case, at once (no Cc, Cf, Zl, Zp, Cs, Co …)
        return text
    return "".join(
        f"<U+{ord(ch):04X}>" if unicodedata.category(ch) in _HIDDEN else ch for ch in text
    )


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the package's ``confusables.txt``, read
    line by line: the whole file as text (700 kB, most of it comments in many scripts) and
    its lines would take 4 MiB more of a process's memory, which it keeps."""
    data = resources.files("andar_bahar.engine") / "unicode" / "confusables.txt"
    prototypes: dict[str, str] = {}
    with data.open(encoding="utf-8-sig") as lines:
        for line in lines:
            source, _, rest = line.partition(";")
            if not rest or line.startswith("#"):
                continue
            target = rest.partition(";")[0]
            prototypes[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return prototypes
