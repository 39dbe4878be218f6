"""The package's layers: no module imports a higher layer, and no import runs in a circle.

i18n (the words) < engine (the pure game) < chance (odds, simulation) < games and reports
< storage < the club's table service < the terminal trainer and the web table (apart) < the
command line. Every ``import`` in every module is read from its source (those inside
functions and ``TYPE_CHECKING`` blocks too, relative imports resolved, ``from package import
module`` read as the module, and ``importlib.import_module`` of a literal name), so a lazy
import that runs upward, or round a loop, is caught as well.
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
    "storage": 4,
    "club": 5,
    "tui": 6,
    "web": 6,
    "cli": 7,
    "__init__": 1,  # the public imports: the engine's names
    "__main__": 7,
}
SIBLINGS_APART = {("games", "reports"), ("reports", "games"), ("tui", "web"), ("web", "tui")}
"""Games and reports share a layer but do not lean on each other; nor do the two apps."""


def layer_of(module: str) -> str:
    """``andar_bahar.engine.round`` → ``engine``; ``andar_bahar`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path, package: str | None = None) -> list[tuple[int, str]]:
    """Every module of ``andar_bahar`` that *path* imports, with its line.

    *package* is the dotted package *path* lies in, to resolve relative imports
    (``from ..web import app`` in ``andar_bahar.engine``); by default it is read from
    *path*'s place in the source tree.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if package is None:
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                source = node.module
            else:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *filter(None, [node.module])])
            found.append((node.lineno, source))
            # ``from andar_bahar.web.pages import dealer`` imports the module dealer too
            found += [
                (node.lineno, f"{source}.{alias.name}")
                for alias in node.names
                if is_module(f"{source}.{alias.name}")
            ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return [(line, name) for line, name in found if name.split(".")[0] == "andar_bahar"]


def is_module(name: str) -> bool:
    """Whether *name* (``andar_bahar.web.pages.dealer``) is a module of the package."""
    parts = name.split(".")
    if parts[0] != "andar_bahar":
        return False
    where = PACKAGE.joinpath(*parts[1:])
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


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
    # the test's own control: an engine module importing an adapter is caught, however
    # it is written (absolute, lazy, relative, or by importlib with a literal name)
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import importlib\n"
        "def f():\n"
        "    from andar_bahar.cli.common import app\n"
        "    from ..web import app as web\n"
        "    from . import money\n"
        "    importlib.import_module('andar_bahar.tui.app')\n",
        encoding="utf-8",
    )
    found = imports_of(bad, package="andar_bahar.engine")
    assert found == [
        (3, "andar_bahar.cli.common"),
        (4, "andar_bahar.web"),
        (4, "andar_bahar.web.app"),  # a module of the package named in ``from … import``
        (5, "andar_bahar.engine"),
        (5, "andar_bahar.engine.money"),
        (6, "andar_bahar.tui.app"),
    ]
    upward = [name for _, name in found if LAYERS[layer_of(name)] > LAYERS["engine"]]
    assert upward == [
        "andar_bahar.cli.common",
        "andar_bahar.web",
        "andar_bahar.web.app",
        "andar_bahar.tui.app",
    ]


def test_the_adapters_are_layered_too() -> None:
    # storage serves both apps and the club's service; the club serves the web and the
    # command line; the apps do not lean on each other; the command line starts them all
    assert LAYERS["storage"] < LAYERS["club"] < LAYERS["tui"] == LAYERS["web"] < LAYERS["cli"]
    assert ("web", "tui") in SIBLINGS_APART and ("tui", "web") in SIBLINGS_APART


NO_HTTP = ("fastapi", "starlette", "jinja2", "markupsafe", "uvicorn", "websockets", "textual")
"""What the club's service never imports: it is no web page and no terminal screen."""
APPS = (["andar_bahar", "web"], ["andar_bahar", "tui"])


@pytest.mark.parametrize(
    "path", sorted((PACKAGE / "club").rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_the_club_imports_no_web(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    named = [
        (node.lineno, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ] + [
        (node.lineno, node.module)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
    ]
    web = [
        f"line {line}: {name}"
        for line, name in named
        if name.split(".")[0] in NO_HTTP or name.split(".")[:2] in APPS
    ]
    assert not web, f"{module_name(path)} imports the web or the terminal: {web}"


def import_circle(modules: dict[str, set[str]]) -> list[str] | None:
    """A loop of imports among *modules* (module → the modules it imports), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(modules.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(modules):
        if module not in state and (found := visit(module)) is not None:
            return found
    return None


def import_graph() -> dict[str, set[str]]:
    """The package's modules, each with the modules of the package it imports (itself not)."""
    graph = {module_name(p): {name for _, name in imports_of(p)} for p in MODULES}
    known = set(graph)
    return {m: {t for t in targets if t in known and t != m} for m, targets in graph.items()}


def test_no_import_circle_in_the_package() -> None:
    # each import runs one way: the pages import the Club they share, never the reverse;
    # the app imports the pages' registration; paytables read their files through
    # paytable_files, the round its records through round_records (TYPE_CHECKING and lazy
    # imports count too)
    circle = import_circle(import_graph())
    assert circle is None, "an import circle: " + " → ".join(circle or [])


def test_the_import_graph_sees_every_kind_of_import() -> None:
    # the graph the circle check reads: a plain import, a lazy one, a TYPE_CHECKING one, and
    # ``from package import module``
    graph = import_graph()
    assert "andar_bahar.web.pages.dealer" in graph["andar_bahar.web.pages.routes"]
    assert "andar_bahar.web.pages.shared" in graph["andar_bahar.web.pages.dealer"]  # TYPE_CHECKING
    assert "andar_bahar.club.service" in graph["andar_bahar.web.pages.routes"]
    assert "andar_bahar.club.history" in graph["andar_bahar.cli.history"]  # inside a function


def test_the_circle_check_finds_a_loop() -> None:
    loop = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_circle(loop) == ["a", "b", "c", "a"]
    assert import_circle({"a": {"b"}, "b": set()}) is None
