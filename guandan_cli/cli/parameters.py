"""Commands from plain functions: each parameter an ``Annotated`` :class:`Option` or :class:`Argument`.

A ``cmd_*`` module defines its command as a function whose parameters say their type, their
default and their option names (``Annotated[int, Option("--matches", "-n", help=…)] = 100``);
:func:`command` turns it into a :class:`click.Command`. Only Click's public API is used, so
any Click release in the range of ``pyproject.toml`` builds the same commands.

The rules, the same for every command:

- an option's names are the ones given, else ``--name`` from the parameter's name
  (``max_deals``: ``--max-deals``); a ``bool`` is a flag (``--name/--no-name`` when no name
  is given); ``X | None`` defaults to ``None``; ``list[X]`` is a repeated option, or an
  argument taking one or more words; a parameter without a default is required;
- ``int`` and ``float`` refuse a word with an underscore (``-n 1_0``: Python would read 10);
  a ``Path`` refuses an empty word (``Path("")`` is the current folder); an ``Enum`` is a
  choice among its values;
- a parameter annotated ``click.Context`` receives the command's context;
- a parameter annotated with a dataclass is a group of options: its fields, each as above,
  stand in its place, and the function receives the dataclass built from them (a command's
  options handed on as one value).

>>> from typing import Annotated
>>> def greet(name: Annotated[str, Argument(help="Who.", metavar="NAME")], times: Annotated[int, Option("-n")] = 1) -> None:
...     '''Say hello.'''
...     print(" ".join(["hello " + name] * times))
>>> cmd = command(greet)
>>> cmd.main(["Ann", "-n", "2"], standalone_mode=False)
hello Ann hello Ann
>>> [p.name for p in cmd.params], cmd.name
(['name', 'times'], 'greet')
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any

import click


@dataclass(frozen=True, init=False)
class Option:
    """An option's names (``"--matches", "-n"``; none: ``--`` and the parameter's name) and help."""

    names: tuple[str, ...]
    help: str | None = None
    show_default: bool = True
    metavar: str | None = None
    callback: Callable[..., Any] | None = None
    is_eager: bool = False

    def __init__(
        self,
        *names: str,
        help: str | None = None,
        show_default: bool = True,
        metavar: str | None = None,
        callback: Callable[..., Any] | None = None,
        is_eager: bool = False,
    ) -> None:
        for field, value in zip(
            ("names", "help", "show_default", "metavar", "callback", "is_eager"),
            (names, help, show_default, metavar, callback, is_eager),
            strict=True,
        ):
            object.__setattr__(self, field, value)


@dataclass(frozen=True)
class Argument:
    """A positional argument's help and the name that usage shows for it."""

    help: str | None = None
    metavar: str | None = None
    show_default: bool = True


class Integer(click.ParamType):
    """An integer as Python writes one, without ``_`` separators."""

    name = "integer"
    convert_word = int

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return self.convert_word(value)
        try:
            number = self.convert_word(value)
        except ValueError:
            self.fail(f"{value!r} is not a valid {self.name}", param, ctx)
        if "_" in value:  # a typo far more often than a digit separator
            self.fail(
                f"{value!r} is not a valid {self.name}: no underscores (Python would read it as {number})",
                param,
                ctx,
            )
        return number


class Number(Integer):
    """A float as Python writes one, without ``_`` separators."""

    name = "number"
    convert_word = float


class NonEmptyPath(click.ParamType):
    """A :class:`~pathlib.Path` from a word that is not empty."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        if isinstance(value, Path):
            return value
        if value == "":
            self.fail("an empty path (give a file or folder name)", param, ctx)
        return Path(value)


class EnumChoice(click.Choice):
    """One of an ``Enum``'s values, given as the value's text; the member is passed on."""

    def __init__(self, enum: type[Enum]) -> None:
        super().__init__([str(member.value) for member in enum])
        self.enum = enum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Enum:
        if isinstance(value, self.enum):
            return value
        return self.enum(super().convert(value, param, ctx))


class HelpedArgument(click.Argument):
    """A positional argument with a help text, which :class:`Command` lists under "Arguments"
    (kept apart from Click's own argument help, which only recent releases have)."""

    def __init__(self, decls: list[str], argument_help: str | None = None, **attrs: Any) -> None:
        super().__init__(decls, **attrs)
        self.argument_help = argument_help


class Command(click.Command):
    """A command whose ``--help`` lists its arguments, with their help, before its options."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (param.make_metavar(ctx), param.argument_help or "")
            for param in self.get_params(ctx)
            if isinstance(param, HelpedArgument)
        ]
        if rows:
            with formatter.section("Arguments"):
                formatter.write_dl(rows)
        super().format_options(ctx, formatter)


def _base_type(annotation: Any) -> tuple[Any, bool]:
    """``(type, many)`` of ``X``, ``X | None``, ``list[X]`` (``None`` is a default, not a type)."""
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [a for a in typing.get_args(annotation) if a is not NoneType]
        if len(members) != 1:
            raise TypeError(f"unsupported parameter type {annotation!r}")
        annotation = members[0]
    many = typing.get_origin(annotation) is list
    if many:
        (annotation,) = typing.get_args(annotation)
    return annotation, many


def _click_type(kind: Any) -> click.ParamType | None:
    if kind is bool:
        return None
    if kind is int:
        return Integer()
    if kind is float:
        return Number()
    if kind is Path:
        return NonEmptyPath()
    if isinstance(kind, type) and issubclass(kind, Enum):
        return EnumChoice(kind)
    if kind is str:
        return click.STRING
    raise TypeError(f"unsupported parameter type {kind!r}")


def _parameter(name: str, annotation: Any, spec: Option | Argument, default: Any) -> click.Parameter:
    kind, many = _base_type(annotation)
    attrs: dict[str, Any] = {"type": _click_type(kind), "required": default is inspect.Parameter.empty}
    if not attrs["required"] and not (many and default is None):
        attrs["default"] = default.value if isinstance(default, Enum) else default
    if isinstance(spec, Argument):
        metavar = (spec.metavar or name.upper()) + ("..." if many else "")
        metavar = metavar if attrs["required"] else f"[{metavar}]"
        return HelpedArgument(
            [name], argument_help=spec.help, metavar=metavar, nargs=-1 if many else 1, **attrs
        )
    dashed = name.replace("_", "-")
    names = list(spec.names) or [f"--{dashed}/--no-{dashed}" if kind is bool else f"--{dashed}"]
    return click.Option(
        [*names, name],
        help=spec.help,
        is_flag=True if kind is bool else None,
        multiple=many,
        show_default=spec.show_default and attrs.get("default") not in (None, False),
        metavar=spec.metavar,
        callback=spec.callback,
        is_eager=spec.is_eager,
        **attrs,
    )


def _annotated(owner: str, name: str, hint: Any, default: Any) -> click.Parameter:
    """The Click parameter of ``name: Annotated[type, Option(…) | Argument(…)] = default``."""
    if typing.get_origin(hint) is not Annotated:
        raise TypeError(f"{owner}({name}): annotate it with Annotated[type, Option(…)]")
    annotation, *extras = typing.get_args(hint)
    spec = next(e for e in extras if isinstance(e, (Option, Argument)))
    return _parameter(name, annotation, spec, default)


def _group(cls: type) -> list[click.Parameter]:
    """The Click parameters of an option group: the dataclass ``cls``'s fields, in order."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return [
        _annotated(
            cls.__name__,
            f.name,
            hints[f.name],
            inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default,
        )
        for f in dataclasses.fields(cls)
    ]


def _read(function: Callable[..., Any]) -> tuple[list[click.Parameter], str | None, dict[str, type]]:
    """``(Click parameters, the click.Context parameter's name or None, option groups by name)``."""
    hints = typing.get_type_hints(function, include_extras=True)
    params: list[click.Parameter] = []
    context_name = None
    groups: dict[str, type] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        hint = hints[name]
        if hint is click.Context:
            context_name = name
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            groups[name] = hint
            params += _group(hint)
        else:
            params.append(_annotated(function.__name__, name, hint, parameter.default))
    return params, context_name, groups


def parameters(function: Callable[..., Any]) -> tuple[list[click.Parameter], str | None]:
    """The Click parameters of ``function``, and the name of its ``click.Context`` parameter if any."""
    params, context_name, _groups = _read(function)
    return params, context_name


def command(function: Callable[..., Any], name: str | None = None) -> click.Command:
    """The :class:`click.Command` that parses a command line into ``function``'s parameters and calls it."""
    params, context_name, groups = _read(function)

    many = {p.name for p in params if p.multiple or p.nargs == -1}

    def callback(**values: Any) -> Any:
        for key in many:  # Click gives a tuple, the annotation says list
            values[key] = list(values[key] or ())
        for key, cls in groups.items():  # an option group: its fields' values as one value
            values[key] = cls(**{f.name: values.pop(f.name) for f in dataclasses.fields(cls)})
        if context_name is not None:
            values[context_name] = click.get_current_context()
        return function(**values)

    return Command(
        name or function.__name__.replace("_", "-"),
        callback=callback,
        params=params,
        help=inspect.getdoc(function),
    )
