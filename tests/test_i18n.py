"""The catalogues are complete in every language, with correct plurals (issue 2)."""

from __future__ import annotations

import html
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from andar_bahar.i18n import LANGUAGES, detect_language, translations
from andar_bahar.i18n.messages import NP_, Message

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "src" / "andar_bahar" / "locale"


def _catalog(lang: str):
    with (LOCALE / lang / "LC_MESSAGES" / "andar_bahar.po").open("rb") as handle:
        return read_po(handle, locale=lang)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_the_template_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "catalogues.py"), "--check"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("lang", ["ru", "ka"])
def test_every_message_is_translated(lang: str) -> None:
    template = {m.id for m in read_po((LOCALE / "andar_bahar.pot").open("rb")) if m.id}
    catalog = _catalog(lang)
    ids = {m.id for m in catalog if m.id}
    assert template <= ids, f"missing in {lang}: {sorted(map(str, template - ids))[:5]}"
    untranslated = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            untranslated.append(message.id)
            continue
        singular = message.id[0] if isinstance(message.id, tuple) else message.id
        allowed = _fields(singular) | {"n"}
        for text in strings:
            assert _fields(text) <= allowed, f"{lang}: unknown placeholder in {text!r}"
            assert (_fields(singular) - {"n"}) <= _fields(text), f"{lang}: lost one in {text!r}"
    assert not untranslated, f"untranslated in {lang}: {untranslated[:5]}"


def test_russian_has_three_plural_forms_and_georgian_two() -> None:
    assert _catalog("ru").num_plurals == 3
    assert _catalog("ka").num_plurals == 2
    russian = translations("ru")
    forms = [
        Message(NP_("{n} card dealt", "{n} cards dealt"), n=n).localized(russian)
        for n in (1, 2, 5, 11, 21, 22, 25)
    ]
    # 1 карта, 2 карты, 5 карт, 11 карт, 21 карта, 22 карты, 25 карт
    assert [f.split()[-1] for f in forms] == [
        "карта", "карты", "карт", "карт", "карта", "карты", "карт",
    ]  # fmt: skip
    georgian = translations("ka")
    # Georgian nouns stay singular after numbers: 5 კარტი
    assert "5 კარტი" in Message(NP_("{n} card dealt", "{n} cards dealt"), n=5).localized(georgian)


def test_the_language_comes_from_the_environment() -> None:
    assert detect_language({"ANDAR_BAHAR_LANG": "ru", "LANG": "ka_GE.UTF-8"}) == "ru"
    assert detect_language({"LANGUAGE": "fr:ka", "LANG": "en_US"}) == "ka"
    assert detect_language({}) == "en"
    for lang in LANGUAGES:
        assert translations(lang).gettext("rank:Q").startswith("rank:")


def test_russian_uses_the_decimal_comma() -> None:
    from andar_bahar.engine.paytables import Odds

    assert Odds.parse("0.9 to 1").localized(translations("ru")) == "0,9:1"
    assert Odds.parse("0.9 to 1").localized(translations("ka")) == "0,9:1"


def test_pages_speak_russian_and_georgian() -> None:
    """The home page in each language holds a sentence of that language's catalogue (not the
    language switcher's own label, which every page shows in every language)."""
    from fastapi.testclient import TestClient

    from andar_bahar.web.app import create_app

    english = "Your seat code (from the dealer)"
    app = create_app(database_url="sqlite://", secret=b"l" * 32)
    with TestClient(app) as client:
        english_page = html.unescape(client.get("/?lang=en").text)
        assert english in english_page  # the sentence is on the page …
        for lang in ("ru", "ka"):
            page = html.unescape(client.get(f"/?lang={lang}").text)
            sentence = translations(lang).gettext(english)
            assert sentence != english, lang
            assert sentence in page, lang
            assert english not in page, lang
            assert sentence not in english_page, lang  # … so an English page fails this test
    app.state.service.storage.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_kept_catalogue_is_the_compiled_one_and_a_broken_one_is_compiled_again(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # translations() keeps each compiled catalogue in the user's cache folder under its
    # .po's hash (a command's start-up then needs no Babel): what it reads back must be
    # what Babel compiles, and a damaged file must be compiled again, not trusted.
    from andar_bahar import i18n

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    translations.cache_clear()
    try:
        compiled = translations(lang)
        (kept,) = (tmp_path / "andar-bahar").glob(f"andar_bahar-{lang}-*.mo")
        translations.cache_clear()
        assert translations(lang)._catalog == compiled._catalog  # type: ignore[attr-defined]
        by_babel = i18n._compile(
            (LOCALE / lang / "LC_MESSAGES" / "andar_bahar.po").read_bytes(), lang
        )
        assert kept.read_bytes() == by_babel
        kept.write_bytes(b"\x00" * 40)
        translations.cache_clear()
        assert translations(lang)._catalog == compiled._catalog  # type: ignore[attr-defined]
        assert kept.read_bytes() == by_babel
    finally:
        translations.cache_clear()
