"""Build :mod:`guandan_cli.cli.fast_path_spec` from the Typer app: ``python -m guandan_cli.cli.fast_path_build``.

The spec holds what the fast start-up path (:mod:`guandan_cli.cli.fast_path`) must know of
the Typer app: the exact ``--help`` output of ``guandan`` and of ``guandan plays`` (each
rendered by a real ``guandan`` process at Click's default width), the options of
``plays`` and their defaults, and the Typer version that rendered the texts. Building it
also checks that ``plays`` still only has the kinds of parameters the fast path parses
(one plain string argument, plain string options, on/off flags); if not, it fails and
says so. ``tests/test_fast_path.py`` builds it afresh and compares it with the stored one,
so a new command or option cannot leave the fast path's help stale.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: where the spec lives
SPEC_PATH = Path(__file__).with_name("fast_path_spec.py")

#: run the Typer app itself (not the fast path) in a child process
_TYPER_APP = "import sys; sys.argv[0] = 'guandan'; from guandan_cli.cli.typer_app import app; app()"


class SpecError(Exception):
    """The Typer app has something the fast path does not handle."""


def rendered_help(argv: list[str], columns: int = 80) -> str:
    """The stdout of the Typer app for ``guandan ARGV`` (a help request) in a terminal of ``columns``."""
    env = dict(os.environ, COLUMNS=str(columns), PYTHONIOENCODING="utf-8")
    env.pop("_GUANDAN_COMPLETE", None)
    proc = subprocess.run(
        [sys.executable, "-c", _TYPER_APP, *argv], capture_output=True, env=env, check=False
    )
    if proc.returncode != 0 or proc.stderr:
        raise SpecError(f"guandan {' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8")


def build_spec() -> dict[str, Any]:
    """The spec's values, from the current Typer app and the installed Typer."""
    import typer
    from typer.main import get_command

    from guandan_cli.cli.plays_listing import plays_lines
    from guandan_cli.cli.typer_app import app

    group = get_command(app)
    plays = group.commands.get("plays")
    if plays is None:
        raise SpecError("the Typer app has no 'plays' command")
    for command in (group, plays):
        if command.context_settings or getattr(command, "deprecated", False):
            raise SpecError(f"{command.name}: context settings or deprecation the fast path does not know")
    if plays.allow_extra_args or plays.ignore_unknown_options or not plays.allow_interspersed_args:
        raise SpecError("plays: parsing settings the fast path does not know")
    ctx = group.make_context("guandan", ["plays", "--help"], resilient_parsing=True)
    sub = plays.make_context("plays", [], parent=ctx, resilient_parsing=True)

    help_options: list[str] = []
    value_options: dict[str, str] = {}
    flags: dict[str, tuple[str, bool]] = {}
    defaults: dict[str, Any] = {}
    arguments: list[str] = []
    for param in plays.get_params(sub):
        where = f"plays parameter {param.name!r}"
        if param.nargs != 1 or param.multiple or param.envvar or getattr(param, "prompt", None):
            raise SpecError(f"{where}: several values, an environment variable or a prompt")
        if getattr(param, "count", False) or getattr(param, "hidden", False):
            raise SpecError(f"{where}: a counter or hidden option")
        if param.param_type_name == "argument":
            if not param.required or param.type_descriptor.annotation is not str or param.callback:
                raise SpecError(f"{where}: not a plain required string")
            arguments.append(param.name)
        elif param.is_eager:
            if param.name != "help" or param.secondary_opts:
                raise SpecError(f"{where}: an eager option other than --help")
            help_options.extend(param.opts)
        elif param.callback is not None:
            raise SpecError(f"{where}: a callback")
        elif getattr(param, "is_flag", False):
            if not getattr(param, "is_bool_flag", False) or param.default is not False:
                raise SpecError(f"{where}: a flag that is not off by default")
            flags.update({opt: (param.name, True) for opt in param.opts})
            flags.update({opt: (param.name, False) for opt in param.secondary_opts})
            defaults[param.name] = False
        else:
            annotation = param.type_descriptor.annotation
            if annotation is not str or param.required or param.secondary_opts:
                raise SpecError(f"{where}: not an optional plain string")
            if not (param.default is None or isinstance(param.default, str)):
                raise SpecError(f"{where}: a default that is not a string")
            value_options.update({opt: param.name for opt in param.opts})
            defaults[param.name] = param.default
    root_help = group.get_help_option(ctx)
    if root_help is None or list(root_help.opts) != help_options or root_help.secondary_opts:
        raise SpecError("guandan and guandan plays have different help options")
    if len(arguments) != 1:
        raise SpecError(f"plays takes {len(arguments)} arguments; the fast path knows one")
    accepted = set(inspect.signature(plays_lines).parameters)
    if set(defaults) | set(arguments) != accepted:
        raise SpecError(
            f"plays parameters {sorted(set(defaults) | set(arguments))} != plays_lines' {sorted(accepted)}"
        )
    return {
        "TYPER_VERSION": typer.__version__,
        "HELP_WIDTH": 78,
        "ROOT_HELP": rendered_help(["--help"]),
        "PLAYS_HELP": rendered_help(["plays", "--help"]),
        "HELP_OPTIONS": tuple(help_options),
        "PLAYS_ARGUMENT": arguments[0],
        "PLAYS_VALUE_OPTIONS": value_options,
        "PLAYS_FLAGS": flags,
        "PLAYS_DEFAULTS": defaults,
    }


_COMMENTS = {
    "TYPER_VERSION": "the Typer that rendered the help texts (help is served only with this one installed)",
    "HELP_WIDTH": "the text width of the help texts: Click's default (terminal of 80 columns or more, or none)",
    "ROOT_HELP": "the exact stdout of ``guandan --help``",
    "PLAYS_HELP": "the exact stdout of ``guandan plays --help``",
    "HELP_OPTIONS": "the help option of ``guandan`` and of ``guandan plays``",
    "PLAYS_ARGUMENT": "the parameter that takes HAND",
    "PLAYS_VALUE_OPTIONS": "option -> parameter, for the options that take a value",
    "PLAYS_FLAGS": "flag -> (parameter, value it sets)",
    "PLAYS_DEFAULTS": "the value of each option not given",
}


def _literal(value: Any) -> str:
    if isinstance(value, str) and "\n" in value:
        lines = value.splitlines(keepends=True)
        return "(\n" + "".join(f"    {line!r}\n" for line in lines) + ")"
    return repr(value)


def spec_source(spec: dict[str, Any]) -> str:
    """The text of ``fast_path_spec.py`` holding ``spec``."""
    parts = [
        '"""What the fast start-up path knows of the Typer app. GENERATED: do not edit.\n\n'
        "Rebuild with ``python -m guandan_cli.cli.fast_path_build`` after changing a command's\n"
        "name or help, the root options, or the parameters of ``plays`` (tests/test_fast_path.py\n"
        'fails until then).\n"""\n'
    ]
    for name, value in spec.items():
        parts.append(f"\n#: {_COMMENTS[name]}\n{name} = {_literal(value)}\n")
    return "".join(parts)


def main() -> None:
    """Write the spec built from the current app, then format it as the project does."""
    SPEC_PATH.write_text(spec_source(build_spec()), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(SPEC_PATH)], check=False)
    print(f"wrote {SPEC_PATH}")


if __name__ == "__main__":
    main()
