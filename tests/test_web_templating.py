"""The pages' templates: compiled once and kept on disk, all loaded before a server's first
answer (src/andar_bahar/web/http/templating.py: compiled_cache, warm_up)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from jinja2 import Environment, FileSystemBytecodeCache

from andar_bahar.web.app import create_app
from andar_bahar.web.http.templating import compiled_cache, make_environment


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own (``$XDG_CACHE_HOME``, as i18n.cache_folder reads it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "andar-bahar"


def never_compiles(env: Environment) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"compiled {args[1] if len(args) > 1 else args}")

    env.compile = refuse  # type: ignore[method-assign]


def test_a_second_process_loads_the_compiled_templates_instead_of_compiling_them(
    cache_home: Path,
) -> None:
    first = make_environment()
    page = first.get_template("player.html")
    kept = sorted(cache_home.glob("templates-*/*.cache"))
    assert kept  # player.html and what it includes, compiled once
    second = make_environment()  # as a new process would: same settings, empty memory
    never_compiles(second)
    assert second.get_template("player.html").name == page.name


def test_a_changed_template_is_compiled_again(cache_home: Path) -> None:
    """Jinja checks each template's source against what was compiled from it."""
    make_environment().get_template("_suits.html")
    second = make_environment()
    never_compiles(second)
    source = second.loader.get_source(second, "_suits.html")  # type: ignore[union-attr]
    second.loader.get_source = lambda env, name: (source[0] + " ", *source[1:])  # type: ignore[union-attr,method-assign]
    with pytest.raises(AssertionError, match="compiled"):
        second.get_template("_suits.html")


def test_what_the_compiled_code_depends_on_names_its_folder(cache_home: Path) -> None:
    """Settings baked into the compiled code (the syntax, how a filter is called) choose
    another folder: a server of another version never loads code compiled for this one."""
    base = compiled_cache(make_environment())
    trimmed = make_environment()
    trimmed.trim_blocks = False
    filters = make_environment()
    filters.filters["number"] = lambda value: str(value)  # no longer given the context
    folders = {
        cache.directory for cache in (base, compiled_cache(trimmed), compiled_cache(filters))
        if cache is not None
    }  # fmt: skip
    assert len(folders) == 3


def test_without_a_cache_folder_each_process_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    env = make_environment()
    assert env.bytecode_cache is None
    assert env.get_template("_suits.html").name == "_suits.html"  # compiled, as before


def test_a_cache_that_cannot_be_written_leaves_the_page_uncached_not_failed(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: FileSystemBytecodeCache, bucket: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(FileSystemBytecodeCache, "dump_bytecode", full)
    env = make_environment()
    assert env.bytecode_cache is not None
    assert env.get_template("_suits.html").name == "_suits.html"
    assert not list(cache_home.glob("templates-*/*.cache"))


def test_a_serving_app_has_every_template_loaded_before_its_first_answer(
    cache_home: Path,
) -> None:
    """serve's app loads them all at start (a restarted server draws the first card as
    quickly as any); an app made for a test loads them as its pages ask."""
    served = create_app(secret=b"k" * 32, serving=True)
    env = served.state.site.env
    names = env.list_templates(filter_func=lambda name: name.endswith(".html"))
    assert len(names) > 30
    before = gc.get_threshold()
    try:
        with TestClient(served):
            assert {key[1] for key in env.cache} == set(names)  # type: ignore[union-attr]
    finally:  # (serving also tunes the garbage collector: put back for the other tests)
        gc.set_threshold(*before)
        gc.unfreeze()
    plain = create_app(secret=b"k" * 32)
    with TestClient(plain):
        assert not plain.state.site.env.cache
