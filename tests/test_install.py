"""The engine as a library without the apps (issue 13, item 9).

``pip install andar-bahar`` brings the engine, the exact odds and the command line
(Babel, Typer, Rich); the simulator, the trainer and the web table are extras. The
fast tests run the package with every extra's modules made unimportable; the slow
one builds a fresh virtual environment with ``pip install .`` and checks what it holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRA_MODULES = [
    "numpy", "numba", "scipy", "matplotlib", "textual", "fastapi", "uvicorn", "starlette",
    "websockets", "jinja2", "python_multipart", "multipart", "sqlalchemy", "alembic",
    "platformdirs", "psycopg", "segno",
]  # fmt: skip

BLOCKER = textwrap.dedent(
    """
    import sys, runpy
    BLOCKED = set(sys.argv[1].split(","))

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Blocker())
    for name in list(sys.modules):
        if name.partition(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.argv = ["andar-bahar", *sys.argv[2:]]
    runpy.run_module("andar_bahar", run_name="__main__")
    """
)


def run_without_extras(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER, ",".join(EXTRA_MODULES), *args],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "LANG": "C", "LANGUAGE": "", "ANDAR_BAHAR_LANG": "en"},
    )  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ("odds", "--procedure", "home", "--stake", "5"),
        ("settle", "--paytable", "wizard", "--cards", "5♠ 2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥",
         "--bet", "andar=120", "--bet", "cards:6-10=100"),
        ("paytable", "design", "--procedure", "first-card", "--format", "toml"),
        ("paytable", "show", "wizard"),
        ("deal", "--seed", "7"),
        ("procedures",),
    ],
)  # fmt: skip
def test_the_base_commands_need_no_extra(args: tuple[str, ...]) -> None:
    result = run_without_extras(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("serve",), "web"),
        (("play",), "trainer"),
        (("simulate", "--rounds", "10"), "sim"),
        (("sessions",), "sim"),
        (("odds", "--plot", "x.png"), "sim"),
        (("fairness",), "sim"),
        (("history", "list"), "trainer"),
    ],
)
def test_a_command_whose_extra_is_missing_says_which_to_install(
    args: tuple[str, ...], extra: str
) -> None:
    result = run_without_extras(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"andar-bahar[{extra}]" in lines[0]


@pytest.mark.slow
def test_a_fresh_venv_with_pip_install_dot_has_only_the_engine(tmp_path: Path) -> None:
    # The acceptance test of item 9: `pip install .` in a fresh venv, then exact odds and
    # a settled round with none of the extras' packages installed.
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(ROOT)], check=True, timeout=900,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    installed = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert {"andar-bahar", "babel", "typer", "rich"} <= installed
    forbidden = {"numpy", "numba", "scipy", "matplotlib", "textual", "fastapi", "sqlalchemy",
                 "alembic", "uvicorn", "jinja2", "psycopg", "segno"}  # fmt: skip
    assert not installed & forbidden
    script = textwrap.dedent(
        """
        import andar_bahar
        from andar_bahar.chance.odds import odds_report
        rnd = andar_bahar.Round(andar_bahar.find_procedure("classic"),
                                andar_bahar.find_paytable("wizard"))
        rnd.place_bet("asha", "andar", 120)
        rnd.turn_centre(andar_bahar.Card.parse("5♠"))
        for text in "2♦ 3♣ 9♥ J♦ 6♣ 8♠ 5♥".split():
            rnd.deal(andar_bahar.Card.parse(text))
        print(rnd.settle().settlement.bets[0].win)
        print(odds_report(rnd.procedure, rnd.paytable).bets[0].house_edge)
        """
    )
    out = subprocess.run([python, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["108", "179/8330"]  # seed 001 example 3; 179/8330 exact
    serve = subprocess.run(
        [env_dir / "bin" / "andar-bahar", "serve"], capture_output=True, text=True,
        check=False, env={**os.environ, "LANG": "C"},
    )  # fmt: skip
    assert serve.returncode == 2 and 'pip install "andar-bahar[web]"' in serve.stderr


def test_the_missing_modules_are_counted_in_the_sentence() -> None:
    # Review of issue 13: "(numpy, scipy is not installed)" — and «не установлен» in Russian.
    from andar_bahar.cli.common import MissingExtra, require_extra
    from andar_bahar.i18n import translations

    with pytest.raises(MissingExtra) as one:
        require_extra("sim", "no_such_module_a")
    with pytest.raises(MissingExtra) as two:
        require_extra("sim", "no_such_module_a", "no_such_module_b")
    assert "(no_such_module_a is not installed)" in str(one.value)
    assert "(no_such_module_a, no_such_module_b are not installed)" in str(two.value)
    russian = two.value.message.localized(translations("ru"))
    assert "(no_such_module_a, no_such_module_b не установлены)" in russian
