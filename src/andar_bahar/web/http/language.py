"""The language of a web request: ``?lang=``, else the cookie, else ``Accept-Language``.

>>> choose_language("ka", "ru", "en")
('ka', True)
>>> choose_language(None, "ru", "ka")
('ru', False)
>>> choose_language(None, None, "de-DE,ru;q=0.8,en;q=0.5")
('ru', False)
>>> choose_language("xx", "yy", None)
('en', False)
"""

from __future__ import annotations

from andar_bahar.i18n import LANGUAGES

__all__ = [
    "LANGUAGE_NAMES",
    "LANG_COOKIE",
    "LANG_PARAMETER",
    "choose_language",
    "parse_accept_language",
]

LANG_PARAMETER = "lang"
"""The query parameter that switches the language: ``?lang=ru``."""
LANG_COOKIE = "ab_lang"
"""The cookie that remembers the switch."""
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "ru": "Русский", "ka": "ქართული"}
"""Each language in its own words, for the switcher (never translated)."""


def _known(code: str | None) -> str | None:
    if code is None:
        return None
    value = code.strip().lower()
    return value if value in LANGUAGES else None


def parse_accept_language(header: str | None) -> str | None:
    """The supported language an ``Accept-Language`` header prefers most, if any.

    >>> parse_accept_language("ka-GE,ka;q=0.9,en-US;q=0.8")
    'ka'
    >>> parse_accept_language("en;q=0.1, ru")
    'ru'
    >>> parse_accept_language("fr, de;q=0.5, ru;q=0") is None
    True
    """
    if not header:
        return None
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        code = _known(tag.split("-")[0])
        if code is None:
            continue
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            choices.append((-quality, index, code))
    return min(choices)[2] if choices else None


def choose_language(
    query: str | None, cookie: str | None, accept_language: str | None
) -> tuple[str, bool]:
    """The request's language, and whether the query chose it (then the cookie is set)."""
    chosen = _known(query)
    if chosen is not None:
        return chosen, True
    return _known(cookie) or parse_accept_language(accept_language) or LANGUAGES[0], False
