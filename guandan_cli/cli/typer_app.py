"""The `guandan` Typer app, built here from the commands of the ``cmd_*`` modules (plain functions).

The console script enters through :func:`guandan_cli.cli.app.main`, which answers
``guandan --help`` and ``guandan plays …`` without importing this module (see
:mod:`guandan_cli.cli.fast_path`) and runs this app for everything else.
This app's start-up is kept short too: command modules import their heavy libraries (polars, rich,
the runner) inside the command bodies, help is plain text (Typer's rich help would
import rich and markdown-it, over half the start-up of ``guandan --help``), and plain
``str``/``bool`` parameters skip the pydantic coercion that Typer ≥ 0.26 builds per parameter
(importing pydantic costs more than the rest of ``guandan plays``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from guandan_cli._version import __version__
from guandan_cli.cli import (
    cmd_analyze,
    cmd_bench,
    cmd_compare,
    cmd_experiment,
    cmd_play,
    cmd_plays,
    cmd_replay,
    cmd_review,
    cmd_rules,
    cmd_serve,
    cmd_simulate,
    cmd_verify,
    cmd_watch,
)
from guandan_cli.cli.errors import OneLineErrors

#: plain parameter annotations (given or not) and the type their values already have
_PLAIN_TYPES = {
    str: str,
    str | None: str,
    Optional[str]: str,  # noqa: UP045 - both spellings reach Typer
    bool: bool,
    bool | None: bool,
    Optional[bool]: bool,  # noqa: UP045
}


#: path annotations: an empty word given for one is refused (``Path("")`` would mean ".")
_PATH_TYPES = {Path, Path | None, Optional[Path], list[Path]}  # noqa: UP045

#: number annotations: a word with an underscore is refused (``int("1_0")`` is 10, and
#: ``float("1_0.5")`` 10.5); the value is what the refusal calls the word
_NUMBER_TYPES = {
    **dict.fromkeys((int, int | None, Optional[int], list[int]), "integer"),  # noqa: UP045
    **dict.fromkeys((float, float | None, Optional[float], list[float]), "number"),  # noqa: UP045
}


def _plain_parameters() -> None:
    """Let ``str`` and ``bool`` values pass through as given, without a pydantic adapter.

    Path parameters refuse an empty word (``--out ""``), which ``Path`` would read as ".".
    Number parameters refuse a word with an underscore (``-n 1_0``, ``--timeout 1_0.5``):
    Python's ``int``/``float`` syntax reads them as 10 and 10.5, which is a typo far more
    often than a digit separator.

    Typer coerces every parameter with a pydantic adapter, built on first use, whose only
    effect on a value that already is a ``str`` (``bool`` for a flag) is to return it.
    Other values, types and custom parsers still go through Typer's own coercion. Does
    nothing if Typer's internals differ from the ones this was written for (pyproject.toml
    pins the Typer range; tests/test_typer_internals.py fails when this did nothing).
    """
    try:
        from typer import core
        from typer._coercion import RuntimeParam
    except ImportError:  # pragma: no cover - another Typer layout
        return
    build = getattr(core, "build_runtime_param", None)
    if build is None or getattr(build, "_guandan_plain", False):  # pragma: no cover
        return

    @dataclass(frozen=True)
    class Plain(RuntimeParam):
        descriptor: Any = None
        plain: type = str

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if type(value) is self.plain:
                return value
            return build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    @dataclass(frozen=True)
    class NonEmptyPath(RuntimeParam):
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if value == "" or (isinstance(value, (list, tuple)) and "" in value):
                # Path("") is the current directory: never what an empty word meant
                raise typer.BadParameter("an empty path (give a file or folder name)", ctx, param)
            return build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    @dataclass(frozen=True)
    class Number(RuntimeParam):
        descriptor: Any = None
        kind: str = "integer"

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            words = value if isinstance(value, (list, tuple)) else [value]
            for word in words:
                if isinstance(word, str) and "_" in word:
                    raise typer.BadParameter(
                        f"Input should be a valid {self.kind}, without underscores, got {word!r}", ctx, param
                    )
            return build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

    def build_runtime_param(descriptor: Any) -> Any:
        info = descriptor.parameter_info
        try:
            plain = _PLAIN_TYPES.get(descriptor.annotation)
            path = descriptor.annotation in _PATH_TYPES
            number = _NUMBER_TYPES.get(descriptor.annotation)
        except TypeError:  # an unhashable annotation
            plain, path, number = None, False, None
        if plain is not None and descriptor.file_annotation is None and info.parser is None:
            return Plain(info, descriptor.annotation, descriptor, plain)
        if path and info.parser is None:
            return NonEmptyPath(info, descriptor.annotation, descriptor)
        if number is not None and info.parser is None:
            return Number(info, descriptor.annotation, descriptor, number)
        return build(descriptor)

    build_runtime_param._guandan_plain = True  # type: ignore[attr-defined]
    core.build_runtime_param = build_runtime_param


def plain_parameters_installed() -> bool:
    """Whether :func:`_plain_parameters` replaced Typer's ``build_runtime_param``."""
    from typer import core

    return getattr(getattr(core, "build_runtime_param", None), "_guandan_plain", False)


_plain_parameters()

app = typer.Typer(
    name="guandan",
    help="Simulate and analyse Guandan (掼蛋) deals played by bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=OneLineErrors,  # usage errors as one `guandan: error:` line, exit 2
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"guandan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Simulate and analyse Guandan (掼蛋) deals played by bots."""


#: every command, by the function that runs it (``guandan --help`` lists them in the order of
#: ``errors.COMMAND_ORDER``); each ``cmd_*`` module defines them as plain functions
COMMANDS = (
    cmd_simulate.simulate,
    cmd_analyze.analyze,
    cmd_verify.verify,
    cmd_compare.compare,
    cmd_compare.tournament,
    cmd_experiment.experiment,
    cmd_play.play,
    cmd_watch.watch,
    cmd_replay.replay,
    cmd_review.review,
    cmd_plays.plays,
    cmd_rules.rules,
    cmd_serve.serve,
    cmd_serve.connect,
    cmd_bench.bench,
)
for _command in COMMANDS:
    app.command()(_command)
