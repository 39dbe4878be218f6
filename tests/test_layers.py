"""The package's layers (issue 13, item 10): no module imports a higher layer.

i18n (the words) < engine (the pure game) < chance (odds, simulation) < games and reports
< the adapters (cli, tui, web, storage). Every ``import`` in every module is read from its
source (those inside functions and ``TYPE_CHECKING`` blocks too), so a lazy import that
runs upward is caught as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "andar_bahar"
LAYERS = {
    "_version": 0,
    "i18n": 0,
    "engine": 1,
    "chance": 2,
    "games": 3,
    "reports": 3,
    "cli": 4,
    "tui": 4,
    "web": 4,
    "storage": 4,
    "__init__": 1,  # the public imports: the engine's names
    "__main__": 4,
}
SIBLINGS_APART = {("games", "reports"), ("reports", "games")}
"""Games and reports share a layer but do not lean on each other."""


def layer_of(module: str) -> str:
    """``andar_bahar.engine.round`` → ``engine``; ``andar_bahar`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.split(".")[0] == "andar_bahar"]


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_layer() -> None:
    unknown = {layer_of(module_name(p)) for p in MODULES} - set(LAYERS)
    assert not unknown, f"modules outside the layers: {unknown}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    mine = layer_of(module_name(path))
    upward = [
        f"line {line}: {name}"
        for line, name in imports_of(path)
        if LAYERS[layer_of(name)] > LAYERS[mine] or (mine, layer_of(name)) in SIBLINGS_APART
    ]
    assert not upward, f"{module_name(path)} ({mine}) imports upward: {upward}"


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    # the test's own control: an engine module importing the command line is caught
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from andar_bahar.cli.common import app\n", encoding="utf-8")
    assert imports_of(bad) == [(2, "andar_bahar.cli.common")]
    assert LAYERS[layer_of("andar_bahar.cli.common")] > LAYERS["engine"]
