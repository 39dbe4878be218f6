"""The translation layer: gettext catalogues for ``en``, ``ru`` and ``ka``.

Catalogues are the ``.po`` files under ``locale/``; they are compiled with Babel
when first used, and the compiled catalogue is kept in the user's cache folder under
the ``.po`` file's hash, so that the next process reads it without Babel (a command's
start-up) and a changed ``.po`` is never read stale.
Adapters (the command line, the terminal app, the web) choose the language;
the core only builds :class:`~andar_bahar.i18n.messages.Message` values.

>>> t = translations("ru")
>>> Message(N_("Andar")).localized(t), Message(N_("Bahar")).localized(translations("ka"))
('Андар', 'ბაჰარი')
>>> [Message(NP_("{n} card dealt", "{n} cards dealt"), n=n).localized(t) for n in (1, 3, 5, 21)]
['сдана 1 карта', 'сдано 3 карты', 'сдано 5 карт', 'сдана 21 карта']
>>> detect_language({"LANG": "ka_GE.UTF-8"}), detect_language({"LANG": "de_DE"})
('ka', 'en')
"""

from __future__ import annotations

import gettext
import hashlib
import io
import os
import struct
from collections.abc import Mapping
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path

from andar_bahar.i18n.messages import N_, NP_, Message, Translator

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "cache_folder",
    "detect_language",
    "format_number",
    "translations",
]

DOMAIN = "andar_bahar"
LANGUAGES: tuple[str, ...] = ("en", "ru", "ka")
"""The languages the trainer speaks, the default first."""

_ENV_KEYS = ("ANDAR_BAHAR_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

# Used by the doctest above; keep the markers imported for extraction tools.
_ = (N_, NP_, Message)


def detect_language(environ: Mapping[str, str] | None = None) -> str:
    """The first supported language named by the environment (``en`` otherwise)."""
    env = os.environ if environ is None else environ
    for key in _ENV_KEYS:
        value = env.get(key, "")
        for part in value.split(":"):
            code = part.strip().lower()[:2]
            if code in LANGUAGES:
                return code
    return LANGUAGES[0]


def check_language(lang: str) -> str:
    """Normalise a language code, or raise ``ValueError`` listing the choices."""
    code = lang.strip().lower()
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGUAGES)}")
    return code


_LOCALE = Path(__file__).resolve().parent.parent / "locale"


@cache
def translations(lang: str) -> gettext.GNUTranslations:
    """The catalogue of *lang* (``en``, ``ru`` or ``ka``), compiled from its ``.po`` file."""
    code = check_language(lang)
    source = (_LOCALE / code / "LC_MESSAGES" / f"{DOMAIN}.po").read_bytes()
    kept = cache_folder() / f"{DOMAIN}-{code}-{hashlib.sha256(source).hexdigest()[:24]}.mo"
    try:
        return gettext.GNUTranslations(io.BytesIO(kept.read_bytes()))
    except (OSError, ValueError, LookupError, struct.error):  # not kept yet, or unreadable
        pass
    compiled = _compile(source, code)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f"{kept.name}.{os.getpid()}")
        partial.write_bytes(compiled)
        partial.replace(kept)  # whole or not at all, whoever else writes it
    except OSError:  # a read-only home: compiled again next time
        pass
    return gettext.GNUTranslations(io.BytesIO(compiled))


def cache_folder() -> Path:
    """Where what is compiled once is kept (the catalogues, the web pages' templates):
    ``$XDG_CACHE_HOME/andar-bahar``, by default ``~/.cache/andar-bahar``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "andar-bahar"


def _compile(source: bytes, code: str) -> bytes:
    """The ``.mo`` of a ``.po`` file's bytes, by Babel (fuzzy entries left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    buffer = io.BytesIO()
    write_mo(buffer, read_po(io.BytesIO(source), locale=code, domain=DOMAIN), use_fuzzy=False)
    return buffer.getvalue()


def language_of(translator: Translator | None) -> str:
    """The language code of a catalogue made by :func:`translations` (``en`` if unknown)."""
    if isinstance(translator, gettext.GNUTranslations):
        code = translator.info().get("language", "en")
        return code[:2] if code[:2] in LANGUAGES else "en"
    return "en"


def format_number(value: Decimal | int, lang: str) -> str:
    """A number as people of *lang* write it: ``13.5`` in English, ``13,5`` in Russian.

    Every digit it has is written (no rounding), and no trailing zero of its fraction:
    what Babel's ``format_decimal(value, locale=lang, decimal_quantization=False)``
    writes, from the decimal mark and the thousands' separator of :data:`NUMBER_SYMBOLS`
    (a test holds the two to each other), without loading Babel's locale data (some
    20 ms of a command's start).

    >>> format_number(Decimal("13.5"), "ru"), format_number(Decimal("1250"), "en")
    ('13,5', '1,250')
    """
    return _format_number(str(value), isinstance(value, Decimal), check_language(lang))


NUMBER_SYMBOLS: dict[str, tuple[str, str]] = {
    "en": (".", ","),
    "ru": (",", "\xa0"),
    "ka": (",", "\xa0"),
}
"""Each language's decimal mark and thousands' separator (CLDR's, as Babel has them)."""


@lru_cache(maxsize=8192)
def _format_number(text: str, decimal: bool, lang: str) -> str:
    # By its text: Decimal("1.0") and Decimal("1") are equal keys, but are written apart.
    point, group = NUMBER_SYMBOLS[lang]
    plain = format(Decimal(text), "f") if decimal else text
    whole, _, fraction = plain.removeprefix("-").partition(".")
    fraction = fraction.rstrip("0")
    written = format(int(whole), ",").replace(",", group)
    sign = "-" if plain.startswith("-") else ""
    return f"{sign}{written}{point}{fraction}" if fraction else f"{sign}{written}"
