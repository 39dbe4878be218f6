"""The pages' templates: one Jinja environment, the translations chosen per render.

The environment has ``jinja2.ext.i18n`` with *new-style* gettext, but never
installs a language into itself (``install_gettext_translations`` changes the
shared environment, so two requests in two languages would race). Instead every
render passes ``gettext``, ``ngettext``, ``pgettext``, ``npgettext`` and ``_`` of
the request's language in the template context: Jinja looks a name up in the
render context before the environment's globals, and both ``{{ _("…") }}`` and
``{% trans %}…{% endtrans %}`` compile to such look-ups. The callables are made
once per language and never change, so any thread may use them.

New-style means a template writes ``{{ _("Hello %(name)s", name=player) }}``
(``%%`` for a percent sign): the translation is looked up first, then filled
in, and the filled-in values are HTML-escaped.

Compiling a template costs far more than drawing it (all of them: some 20 times what
loading them compiled costs, ``benchmarks/bench_templates.py``), so the compiled code is
kept on disk (:func:`compiled_cache`, in the user's cache folder) and a server loads every
template and catalogue before it answers (:func:`warm_up`): the first page after a
restart is drawn as quickly as any other.

>>> env = make_environment()
>>> template = env.from_string('{{ _("Andar") }} {% trans n=3 %}{{ n }} card{% pluralize %}{{ n }} cards{% endtrans %}')
>>> template.render(gettext_callables("ka")), template.render()
('ანდარი 3 cards', 'Andar 3 cards')
"""

from __future__ import annotations

import contextlib
import gettext
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import cache
from hashlib import sha256
from importlib import resources
from types import MappingProxyType
from typing import Any, cast

import jinja2
from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    PackageLoader,
    StrictUndefined,
    pass_context,
    pass_eval_context,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.nodes import EvalContext
from jinja2.runtime import Context
from markupsafe import Markup

from andar_bahar import __version__
from andar_bahar.i18n import LANGUAGES, cache_folder, format_number, translations
from andar_bahar.i18n.messages import render

__all__ = [
    "Drawn",
    "compiled_cache",
    "drawn",
    "forget_drawn",
    "gettext_callables",
    "make_environment",
    "static_version",
    "warm_up",
]


def make_environment(*, auto_reload: bool = False) -> Environment:
    """The environment for the package's ``templates/`` (autoescaped, i18n, strict), its
    compiled templates kept on disk (:func:`compiled_cache`)."""
    env = Environment(
        loader=PackageLoader("andar_bahar.web", "templates"),
        autoescape=select_autoescape(("html", "xml"), default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=auto_reload,
    )
    env.policies["ext.i18n.trimmed"] = True  # babel.cfg extracts with trimmed = true too
    # English when a template is rendered outside a request; sets newstyle_gettext.
    cast(Any, env).install_null_translations(newstyle=True)
    env.filters["localized"] = localized
    env.filters["number"] = number
    env.bytecode_cache = compiled_cache(env)
    return env


def compiled_cache(env: Environment) -> FileSystemBytecodeCache | None:
    """Where *env*'s compiled templates are kept: a folder of the cache folder
    (:func:`~andar_bahar.i18n.cache_folder`) named by what the compiled code depends on
    besides a template's source (the package's and Jinja's versions, the syntax, the
    extensions, the escaping, how each filter and test is called); Jinja itself checks
    each template's source. ``None`` when the folder cannot be made: each process compiles.

    >>> import os, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     before, os.environ["XDG_CACHE_HOME"] = os.environ.get("XDG_CACHE_HOME"), folder
    ...     try:
    ...         template = make_environment().get_template("_suits.html")
    ...         kept = sorted(Path(folder).rglob("*.cache"))
    ...     finally:
    ...         del os.environ["XDG_CACHE_HOME"]
    ...         if before is not None:
    ...             os.environ["XDG_CACHE_HOME"] = before
    >>> [path.relative_to(folder).parts[:2][0] for path in kept], kept[0].parent.name[:10]
    (['andar-bahar'], 'templates-')
    """
    depends = repr(
        (
            __version__,
            jinja2.__version__,
            sorted(env.extensions),
            env.policies.get("ext.i18n.trimmed"),
            getattr(env, "newstyle_gettext", None),
            [
                env.autoescape(name) if callable(env.autoescape) else env.autoescape
                for name in ("page.html", "page.txt", None)
            ],
            env.finalize is None,
            sorted((name, getattr(f, "jinja_pass_arg", None)) for name, f in env.filters.items()),
            sorted((name, getattr(f, "jinja_pass_arg", None)) for name, f in env.tests.items()),
            env.trim_blocks,
            env.lstrip_blocks,
            env.keep_trailing_newline,
            env.newline_sequence,
            env.optimized,
            (env.block_start_string, env.block_end_string),
            (env.variable_start_string, env.variable_end_string),
            (env.comment_start_string, env.comment_end_string),
            (env.line_statement_prefix, env.line_comment_prefix),
        )
    )
    folder = cache_folder() / f"templates-{sha256(depends.encode()).hexdigest()[:16]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _KeptTemplates(str(folder), "%s.cache")


class _KeptTemplates(FileSystemBytecodeCache):
    """Jinja's cache of compiled templates in a folder, except that a template it cannot
    write (a full disk, a folder of another user's) is left uncached, not a failed page."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def warm_up(env: Environment) -> None:
    """Load every template of *env* (compiled, or from its cache) and every language's
    catalogue, so that no page pays for them later."""
    for name in env.list_templates(filter_func=lambda name: name.endswith(".html")):
        env.get_template(name)
    for lang in LANGUAGES:
        gettext_callables(lang)


def _newstyle(value: str, autoescape: bool, variables: Mapping[str, object]) -> str:
    # The catalogues are ours (trusted); the values filled in are escaped by Markup's %.
    text = Markup(value) if autoescape else value  # noqa: S704
    return text % variables  # always formatted, as Jinja's own new-style gettext


@cache
def gettext_callables(lang: str) -> Mapping[str, Callable[..., str]]:
    """``gettext``, ``ngettext``, ``pgettext``, ``npgettext`` and ``_`` of *lang*, for a context."""
    catalogue: gettext.GNUTranslations = translations(lang)

    @pass_eval_context
    def gettext_(eval_ctx: EvalContext, message: str, /, **variables: object) -> str:
        return _newstyle(catalogue.gettext(message), eval_ctx.autoescape, variables)

    @pass_eval_context
    def ngettext(
        eval_ctx: EvalContext, singular: str, plural: str, num: int, /, **variables: object
    ) -> str:
        variables.setdefault("num", num)
        return _newstyle(catalogue.ngettext(singular, plural, num), eval_ctx.autoescape, variables)

    @pass_eval_context
    def pgettext(eval_ctx: EvalContext, context: str, message: str, /, **variables: object) -> str:
        return _newstyle(catalogue.pgettext(context, message), eval_ctx.autoescape, variables)

    @pass_eval_context
    def npgettext(
        eval_ctx: EvalContext,
        context: str,
        singular: str,
        plural: str,
        num: int,
        /,
        **variables: object,
    ) -> str:
        variables.setdefault("num", num)
        text = catalogue.npgettext(context, singular, plural, num)
        return _newstyle(text, eval_ctx.autoescape, variables)

    return MappingProxyType(
        {
            "gettext": gettext_,
            "ngettext": ngettext,
            "pgettext": pgettext,
            "npgettext": npgettext,
            "_": gettext_,
        }
    )


_LOCALIZED: dict[tuple[type, object, int], str] = {}
"""What :func:`localized` wrote, by the value (a bet, odds, a row: frozen, hashable) and the
catalogue: the pages write the same names and odds over and over."""
_LOCALIZED_MOST = 20_000


@pass_context
def localized(context: Context, value: object) -> str:
    """Filter: a Message, an error or any Localizable in the page's language."""
    catalogue = context.get("translations")
    if isinstance(value, BaseException):  # an error: once, and not kept
        return render(value, catalogue)
    try:
        key = (type(value), value, id(catalogue))
        known = _LOCALIZED.get(key)
    except TypeError:  # not hashable (a Message with parameters, say): written each time
        return render(value, catalogue)
    if known is None:
        known = render(value, catalogue)
        if len(_LOCALIZED) >= _LOCALIZED_MOST:
            _LOCALIZED.clear()
        _LOCALIZED[key] = known
    return known


@pass_context
def number(context: Context, value: Decimal | int) -> str:
    """Filter: a number as the page's language writes it (``13,5`` in Russian)."""
    return format_number(value, str(context.get("lang", "en")))


class Drawn:
    """Pieces of HTML that never change once drawn (a card's face, a settled round's row),
    kept by what they show, in one language: a template asks :meth:`draw` for the piece,
    which calls the macro only when the piece is not kept::

        {{ drawn_cards.draw(key, card, d.card, d.matched) }}

    *key* must hold everything the piece shows (a frozen record): equal keys, equal HTML. A
    key that cannot be hashed (a record holding a dict) is never kept: drawn each time.

    >>> pieces = Drawn()
    >>> pieces.get(("A♠", False)) is None, pieces.put(("A♠", False), "<b>A</b>")
    (True, '<b>A</b>')
    >>> pieces.get(("A♠", False))
    '<b>A</b>'
    >>> pieces.put(({"a": 1},), "<i>x</i>"), pieces.get(({"a": 1},))
    ('<i>x</i>', None)
    >>> pieces.draw(("K♥", True), lambda rank: f"<b>{rank}</b>", "K")
    '<b>K</b>'
    """

    def __init__(self, most: int = 4096) -> None:
        self._pieces: dict[object, str] = {}
        self._most = most

    def draw(self, key: object, draw: Callable[..., str], /, *args: Any, **kwargs: Any) -> str:
        """The piece kept for *key*, else ``draw(*args, **kwargs)``, kept for *key*."""
        kept = self.get(key)
        return kept if kept is not None else self.put(key, draw(*args, **kwargs))

    def get(self, key: object) -> str | None:
        try:
            return self._pieces.get(key)
        except TypeError:  # not hashable: not kept
            return None

    def put(self, key: object, html: str) -> str:
        if len(self._pieces) >= self._most:
            self._pieces.clear()
        with contextlib.suppress(TypeError):  # not hashable: not kept
            self._pieces[key] = html
        return html

    def clear(self) -> None:
        """Let go of every piece (drawn again when asked for)."""
        self._pieces.clear()


@cache
def drawn(kind: str, lang: str) -> Drawn:
    """The :class:`Drawn` pieces of *kind* in *lang* (one for every page and thread)."""
    return Drawn()


def forget_drawn() -> None:
    """Let go of every piece :func:`drawn` keeps, in every language (a table no longer
    followed: its rounds' rows and its players' bets are among them)."""
    drawn.cache_clear()


@cache
def static_version(path: str) -> str:
    """A short hash of a static file's content, so that browsers reload it when it changes."""
    try:
        data = (resources.files("andar_bahar.web") / "static" / path).read_bytes()
    except OSError:
        return "0"
    return sha256(data).hexdigest()[:10]
