"""Extract the messages and update the ru/ka/en catalogues (run after changing any text).

    python scripts/catalogues.py          # extract to the .pot, merge into every .po
    python scripts/catalogues.py --check  # exit 1 if the .pot is out of date

Uses Babel's own extractor with the project's markers ``N_`` and ``NP_`` in Python, and
Jinja2's extractor (``babel.cfg``) for the web templates: ``_()``, ``gettext()``,
``ngettext()`` and ``{% trans %}`` blocks.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "src" / "andar_bahar" / "locale"
POT = LOCALE / "andar_bahar.pot"
LANGUAGES = ("en", "ru", "ka")
EXTRACT = [
    sys.executable,
    "-m",
    "babel.messages.frontend",
    "extract",
    "--no-default-keywords",
    "-k",
    "N_",
    "-k",
    "NP_:1,2",
    # The web templates (jinja2.ext.i18n); no Python module calls these with a literal.
    "-k",
    "_",
    "-k",
    "gettext",
    "-k",
    "ngettext:1,2",
    "-k",
    "pgettext:1c,2",
    "-k",
    "npgettext:1c,2,3",
    "--no-location",
    "--sort-output",
    "--omit-header",
    "--project",
    "andar-bahar",
    "--copyright-holder",
    "andar-bahar",
    "-F",
    str(ROOT / "babel.cfg"),
]


def extract(output: Path) -> None:
    subprocess.run(
        [*EXTRACT, "-o", str(output), str(ROOT / "src" / "andar_bahar")],
        check=True,
        capture_output=True,
    )


def main() -> int:
    if "--check" in sys.argv:
        fresh = POT.with_suffix(".check.pot")
        extract(fresh)
        same = fresh.read_text(encoding="utf-8") == POT.read_text(encoding="utf-8")
        fresh.unlink()
        print("catalogue template is up to date" if same else "run: python scripts/catalogues.py")
        return 0 if same else 1
    extract(POT)
    for lang in LANGUAGES:
        po = LOCALE / lang / "LC_MESSAGES" / "andar_bahar.po"
        cmd = ["update", "--no-fuzzy-matching", "--ignore-obsolete"] if po.exists() else ["init"]
        subprocess.run(
            [
                sys.executable,
                "-m",
                "babel.messages.frontend",
                *cmd,
                "-i",
                str(POT),
                "-d",
                str(LOCALE),
                "-D",
                "andar_bahar",
                "-l",
                lang,
            ],
            check=True,
            capture_output=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
