"""The mutation run of the money code: how many wrong versions of it the tests catch.

    python scripts/mutation.py           # a fresh run: prints each file's kill rate
    python scripts/mutation.py --keep    # reuse mutants/ from the last run (only what changed)

mutmut (``[tool.mutmut]`` in pyproject.toml: ``only_mutate`` lists the files, the test
selection their tests) makes small wrong versions of each function — ``max`` for ``min``,
``>=`` for ``>``, a dropped argument, a changed word — and runs the tests that reach the
function against each; a mutant the tests pass *survived*. mutmut does not mutate
properties (decorated functions), so ``scripts/mutation.toml`` adds wrong versions of
those by hand, each run against the tests it names. It also lists the *equivalent*
mutants — those that change no behaviour — each with the reason, left out of the rate.

For each file the script prints the mutants, killed, survived (listed with their change),
equivalent (with reasons) and the kill rate = killed / (mutants − equivalent); it exits 1
when a file is under :data:`FLOOR`, or when the list of equivalents has gone stale.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTS = Path(__file__).with_name("mutation.toml")
FLOOR = 90.0
"""The least kill rate, in per cent, of every file."""
KILLED = {"killed", "timeout"}
"""mutmut's verdicts that count as caught (a mutant that loops for ever is caught too)."""
ENVIRONMENT = {"ANDAR_BAHAR_MUTATION": "1"}
"""tests/conftest.py: Hypothesis derandomised (the same examples for every mutant), and each
mutant's tests run quickest first."""


@dataclass(frozen=True, slots=True)
class Mutant:
    """One wrong version: where, what changed, and the verdict."""

    name: str
    function: str
    before: str
    after: str
    status: str

    def change(self) -> str:
        return f"{self.function}: {self.before or '∅'}  →  {self.after or '∅'}"


@dataclass(slots=True)
class FileResult:
    path: str
    killed: list[Mutant] = field(default_factory=list)
    survived: list[Mutant] = field(default_factory=list)
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.killed) + len(self.survived) + len(self.equivalent)

    @property
    def rate(self) -> float:
        counted = len(self.killed) + len(self.survived)
        return 100.0 * len(self.killed) / counted if counted else 100.0


def mutated_files() -> list[str]:
    """The files of ``[tool.mutmut] only_mutate`` in pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["mutmut"]["only_mutate"])


def run_mutmut(keep: bool) -> None:
    """``mutmut run`` in the project's root, its progress kept in mutants/run.log."""
    if not keep:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    (ROOT / "mutants").mkdir(exist_ok=True)
    log = ROOT / "mutants" / "run.log"
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            [sys.executable, "-m", "mutmut", "run"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **ENVIRONMENT},
            check=False,
        )
    if done.returncode != 0:
        print(log.read_text(encoding="utf-8", errors="replace")[-3000:])
        sys.exit(f"mutmut run failed ({done.returncode}): see {log}")


def mutmut_results() -> dict[str, list[Mutant]]:
    """Every mutant of every file, with mutmut's verdict and the lines it changed."""
    os.chdir(ROOT)  # mutmut reads its configuration and results relative to the root
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    found: dict[str, list[Mutant]] = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        mutants = []
        for name, code in sorted(data.exit_code_by_key.items()):
            diff = get_diff_for_mutant(name, path=path).splitlines()[2:]
            before = "\n".join(line[1:].strip() for line in diff if line.startswith("-"))
            after = "\n".join(line[1:].strip() for line in diff if line.startswith("+"))
            function = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
            function = function.removeprefix("x_").replace("xǁ", "").replace("ǁ", ".")
            mutants.append(Mutant(name, function, before, after, status_by_exit_code[code]))
        found[str(path)] = mutants
    return found


def hand_results(files: list[str], hand: list[dict[str, object]]) -> dict[str, list[Mutant]]:
    """The hand-made mutants of mutation.toml, each applied to its own copy of the sources
    and run against its tests (pytest stops at the first failure: that failure kills it),
    as many at once as mutmut runs."""
    found: dict[str, list[Mutant]] = {path: [] for path in files}
    with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
        jobs = [(number, entry, Path(folder) / str(number)) for number, entry in enumerate(hand, 1)]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for path, mutant in pool.map(lambda job: _run_hand(files, *job), jobs):
                found[path].append(mutant)
    return found


def _run_hand(
    files: list[str], number: int, entry: dict[str, object], copy: Path
) -> tuple[str, Mutant]:
    path = _path_of(str(entry["file"]), files)
    original = (ROOT / path).read_text(encoding="utf-8")
    before, after = str(entry["before"]), str(entry["after"])
    if original.count(before) != 1:
        sys.exit(f"mutation.toml: {before!r} is not in {path} exactly once")
    shutil.copytree(ROOT / "src", copy / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / path).write_text(original.replace(before, after), encoding="utf-8")
    tests = [str(t) for t in entry["tests"]]  # type: ignore[attr-defined]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-k", "not postgresql", *tests],
        cwd=ROOT,
        env={**os.environ, **ENVIRONMENT, "PYTHONPATH": str(copy / "src")},
        capture_output=True,
        check=False,
    )  # fmt: skip
    status = {0: "survived", 1: "killed"}.get(done.returncode, f"error {done.returncode}")
    if status.startswith("error"):
        print(done.stdout.decode(errors="replace")[-2000:])
        sys.exit(f"mutation.toml: the tests of hand-made mutant {number} could not run")
    function = str(entry.get("function", "(by hand)"))
    return path, Mutant(f"hand {number}", function, before, after, status)


def _path_of(name: str, files: list[str]) -> str:
    """The mutated file whose name is *name* (``cashier.py``): the lists name files by their
    name alone, so that a module moved to another package keeps its entries."""
    matches = [path for path in files if Path(path).name == name]
    if len(matches) != 1:
        sys.exit(f"mutation.toml: {name} is not one of the mutated files {files}")
    return matches[0]


def judge(
    files: list[str], found: dict[str, list[Mutant]], equivalent: list[dict[str, str]]
) -> tuple[list[FileResult], list[str]]:
    """Sort each file's mutants into killed, survived and equivalent; also the stale entries
    of the equivalents' list (one that matched no mutant, or a mutant the tests killed)."""
    reasons = {
        (_path_of(e["file"], files), e["function"], e["before"].strip(), e["after"].strip()): e[
            "why"
        ]
        for e in equivalent
    }
    used: Counter[tuple[str, str, str, str]] = Counter()
    stale: list[str] = []
    results = []
    for path in files:
        result = FileResult(path)
        for mutant in found.get(path, []):
            key = (path, mutant.function, mutant.before, mutant.after)
            if key in reasons:
                used[key] += 1
                if mutant.status in KILLED:
                    stale.append(f"{path}: killed, so not equivalent: {mutant.change()}")
                    result.killed.append(mutant)
                else:
                    result.equivalent.append((mutant, reasons[key]))
            elif mutant.status in KILLED:
                result.killed.append(mutant)
            else:
                result.survived.append(mutant)
        results.append(result)
    stale += [f"{key[0]}: no such mutant: {key[1]}: {key[2]} → {key[3]}"
              for key in reasons if not used[key]]  # fmt: skip
    return results, stale


def report(results: list[FileResult], stale: list[str]) -> bool:
    """Print each file's figures; whether every file reaches the floor and nothing is stale."""
    good = not stale
    for r in results:
        print(f"\n{r.path}: {r.total} mutants, {len(r.killed)} killed, {len(r.survived)}"
              f" survived, {len(r.equivalent)} equivalent: kill rate {r.rate:.1f} %")  # fmt: skip
        for mutant in r.survived:
            print(f"  survived ({mutant.status}) {mutant.name}: {mutant.change()}")
        for mutant, why in r.equivalent:
            print(f"  equivalent {mutant.function}: {mutant.after or '∅'} ({why})")
        good = good and r.rate >= FLOOR
    for line in stale:
        print(f"stale in scripts/mutation.toml: {line}")
    print()
    for r in results:
        print(f"kill rate {r.rate:5.1f} %  {r.path}")
    return good


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="reuse mutants/ from the last run")
    options = parser.parse_args()
    lists = tomllib.loads(LISTS.read_text(encoding="utf-8"))
    files = mutated_files()
    started = time.monotonic()
    run_mutmut(options.keep)
    found = mutmut_results()
    for path, mutants in hand_results(files, lists.get("hand", [])).items():
        found.setdefault(path, []).extend(mutants)
    results, stale = judge(files, found, lists.get("equivalent", []))
    good = report(results, stale)
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(u.ru_utime + u.ru_stime for u in used)
    print(f"(the mutation run took {time.monotonic() - started:.0f} s, {cpu:.0f} s of CPU time,"
          f" on {os.cpu_count()} cores; floor {FLOOR:.0f} %)")  # fmt: skip
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
