"""Shared helpers: golden files live in tests/data/ (UPDATE_GOLDEN=1 rewrites them), the
slow tier's switch, the everyday run's parallel workers (pytest-xdist) and Hypothesis's
settings."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

DATA = Path(__file__).parent / "data"

# No test fails for taking long: Hypothesis's 200 ms deadline per example measures the
# machine's load as much as the code (a busy 2-core host has missed it), and a test that
# must stay fast says so with its own bound. The mutation run (scripts/mutation.py) also
# derandomises, so that every mutant meets the same examples.
MUTATION = os.environ.get("ANDAR_BAHAR_MUTATION") == "1"
"""Set by scripts/mutation.py for the tests it runs against each mutant."""
settings.register_profile("andar-bahar", deadline=None)
settings.register_profile("mutation", deadline=None, derandomize=True, database=None)
settings.load_profile("mutation" if MUTATION else "andar-bahar")


@pytest.fixture
def golden():
    """Compare text with a golden file in tests/data/."""

    def check(name: str, text: str) -> None:
        path = DATA / name
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"golden file {path} is missing: run with UPDATE_GOLDEN=1 once"
        assert text == path.read_text(encoding="utf-8")

    return check


QUICK_PINS = (2**4, 1, 1)
"""scrypt's n, r and p for the PINs of the tables the tests create: 14 µs a hash against
production's 41 ms, and the everyday run makes some 380 (15 s of CPU at production's)."""


@pytest.fixture(scope="session", autouse=True)
def quick_pins() -> Iterator[None]:
    """The tables the tests create (a module's fixtures' too) hash their PIN at
    :data:`QUICK_PINS`: scrypt still, so a wrong PIN is refused and counted towards the
    lockout as in production. Servers the tests start as processes keep the production
    cost, and so does a test marked ``production_pins`` (:func:`production_pins`)."""
    from andar_bahar.club import store

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "PIN_COST", store.PinCost(*QUICK_PINS))
        yield


@pytest.fixture(scope="session", autouse=True)
def memory_databases_from_the_template() -> Iterator[None]:
    """A database in memory (``Storage.open("sqlite://")``) starts as a copy of one migrated
    once per process, not migrated from nothing: some 150 tests and apps open one, at 60–90
    ms of CPU each (:func:`sqlite_template.upgrade_from_template`). Files, PostgreSQL and
    the migration tests themselves go through Alembic as before."""
    import andar_bahar.storage as storage
    from sqlite_template import upgrade_from_template

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(storage, "upgrade", upgrade_from_template(storage.upgrade))
        yield


@pytest.fixture(autouse=True)
def production_pins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked ``production_pins`` hashes its tables' PINs at the production cost."""
    if request.node.get_closest_marker("production_pins") is not None:
        from andar_bahar.club import store

        monkeypatch.setattr(store, "PIN_COST", store.PinCost())


POSTGRES = os.environ.get("ANDAR_BAHAR_TEST_POSTGRES_URL")
"""A PostgreSQL server to run the storage tests on too (.ci/run starts a throw-away one)."""


@pytest.fixture
def postgres_url():  # type: ignore[no-untyped-def]
    """A fresh schema of the PostgreSQL server, dropped afterwards (skipped without one,
    except in CI: ANDAR_BAHAR_REQUIRE_POSTGRES=1 fails instead, never skips quietly)."""
    if not POSTGRES:
        if os.environ.get("ANDAR_BAHAR_REQUIRE_POSTGRES") == "1":  # .ci/run
            pytest.fail("ANDAR_BAHAR_REQUIRE_POSTGRES=1 but ANDAR_BAHAR_TEST_POSTGRES_URL is unset")
        pytest.skip("set ANDAR_BAHAR_TEST_POSTGRES_URL=postgresql+psycopg://… to run")
    import uuid

    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    schema = f"test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    url = make_url(POSTGRES).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def database_url(request, tmp_path):  # type: ignore[no-untyped-def]
    """A fresh database: an SQLite file (migrated: a copy of one migrated once), and a fresh,
    empty PostgreSQL schema when one is set.

    The PostgreSQL run repeats the SQLite one on the other database: the slow tier (a sixth
    of the everyday run's CPU, beside the database server's own). Tests about PostgreSQL
    itself (a stopped server, several workers) ask for postgres_url and stay everyday."""
    if request.param == "sqlite":
        from sqlite_template import migrated_sqlite

        return migrated_sqlite(tmp_path / "club.sqlite3")
    return request.getfixturevalue("postgres_url")


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The slow tier is opt-in: plain `pytest` skips tests marked slow (and says so with -ra);
    `pytest -m slow` or ANDAR_BAHAR_SLOW_TESTS=1 runs them."""
    if item.get_closest_marker("slow") is None:
        return
    markexpr = str(item.config.getoption("markexpr", default="") or "")
    if os.environ.get("ANDAR_BAHAR_SLOW_TESTS") == "1" or "slow" in markexpr.replace(
        "not slow", ""
    ):
        return
    pytest.skip("slow tier, opt-in: run `pytest -m slow` or set ANDAR_BAHAR_SLOW_TESTS=1")


def _workers() -> int | str:
    """One worker per core the run may use, and two more: the terminal trainer's tests
    (Textual's pilot waits for the app to be idle after every key), the browser tests (for
    Chromium) and the killed-server tests (for their servers) spend more than half their
    time waiting, which the extra workers fill (on 2 cores, 4 workers: 161 s against 3
    workers' 170 s, one run after the other). PYTEST_XDIST_AUTO_NUM_WORKERS (pytest-xdist's
    own setting for `-n auto`) decides instead when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return "auto"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 2


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The whole suite (plain `pytest`, which collects the configured testpaths) runs on
    pytest-xdist's workers (:func:`_workers`); `pytest tests/test_x.py` stays in one process.
    An explicit `-n N` (`-n 0`: none) or `-p no:xdist` decides instead, and so do --pdb and
    --collect-only."""
    if (
        not config.pluginmanager.hasplugin("xdist")
        or hasattr(config, "workerinput")  # an xdist worker itself
        or config.args_source is not pytest.Config.ArgsSource.TESTPATHS
        or config.option.numprocesses is not None
        or config.option.usepdb
        or config.option.collectonly
    ):
        return
    config.option.numprocesses = _workers()
    if config.option.dist == "no":
        config.option.dist = "worksteal"  # tests of very unequal length: idle workers steal


LONG_FIRST = (
    "test_tui_",
    "test_web_browser_",
    "test_fuzz",
    "test_bench_",
    "test_web_recovery",
    "test_web_workers",
    "test_web_bounds",
    "test_web_outage",
)
"""Modules whose tests take seconds each (terminal walks, Chromium, fuzzers, killed servers,
slow clients, a stopped database)."""

WHOLE = "test_web_browser_"
"""Modules kept on one worker: each worker that runs one starts its own Chromium and server."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deal the long tests out evenly, each worker starting with its share of them.

    pytest-xdist's worksteal gives each of the N workers one contiguous Nth of this list and
    lets idle workers steal the second half of the longest queue. So the list is made of N
    equal slices, each beginning with an even share of the long tests (the browser modules
    whole, one to a slice) and ending with short ones: no worker is left with a
    twenty-second walk at the end while the others wait (longest first is the classic fix).
    One process (no xdist): the long tests first, the rest in their own order; in the
    mutation run, the quickest first (:func:`_quickest_first`)."""
    if MUTATION:
        _quickest_first(items)
        return
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    long = [item for item in items if item.path.name.startswith(LONG_FIRST)]
    short = [item for item in items if not item.path.name.startswith(LONG_FIRST)]
    if workers <= 1 or len(items) < workers:
        items[:] = long + short
        return
    slices: list[list[pytest.Item]] = [[] for _ in range(workers)]
    whole: dict[str, list[pytest.Item]] = {}
    for item in long:
        if item.path.name.startswith(WHOLE):
            whole.setdefault(item.path.name, []).append(item)
    for number, module in enumerate(sorted(whole.values(), key=len, reverse=True)):
        slices[number % workers].extend(module)
    for item in long:
        if not item.path.name.startswith(WHOLE):
            min(slices, key=len).append(item)
    sizes, left = [], len(items)
    for number in range(workers):  # as worksteal cuts them: pending // workers still to serve
        sizes.append(left // (workers - number))
        left -= sizes[-1]
    rest = iter(short)
    for chunk, size in zip(slices, sizes, strict=True):
        chunk.extend(itertools.islice(rest, max(0, size - len(chunk))))  # fewer: as many as left
    dealt = [item for chunk in slices for item in chunk] + list(rest)
    assert len(dealt) == len(items)
    items[:] = dealt


def _quickest_first(items: list[pytest.Item]) -> None:
    """A mutant's tests in the order of their time in the mutation run's clean run (mutmut's
    own record, in the process it forks each mutant's run from): the first failure stops
    them, so a mutant any quick test catches costs that test alone."""
    from mutmut.state import state

    took = state().duration_by_test
    items.sort(key=lambda item: took.get(item.nodeid, float("inf")))
