"""``search:OPTION=VALUE+OPTION=VALUE``: the search strategy with another budget, by name.

The options are ``SearchStrategy``'s (``worlds``, ``candidates``, ``first``, ``batch``,
``drop``, ``gate``, ``duel``, ``sure``, ``caps``, ``explain``, ``tries``, ``objective``, ``rules``,
``endgame_nodes``), joined by ``+`` (a comma
separates the seats of ``--strategies``). The class made is a subclass with those class
attributes, named by the spec, so every worker process builds the same one from the name.

>>> cls = search_strategy_class("search:worlds=16+caps=false")
>>> cls.name, cls.worlds, cls.caps, cls.candidates
('search:worlds=16+caps=false', 16, False, 8)
>>> search_strategy_class("search:world=16")
Traceback (most recent call last):
...
guandan_cli.strategies.search.spec.SearchSpecError: strategy 'search:world=16': no option 'world' (options: worlds, candidates, first, batch, drop, gate, duel, sure, caps, explain, tries, objective, rules, endgame_nodes)
"""

from __future__ import annotations

import math

from guandan_cli.engine.rules import RULESETS

from .bot import SearchStrategy

PREFIX = "search:"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class SearchSpecError(ValueError):
    """A ``search:`` spec with an unknown option or a bad value (the message names both)."""


def _value(spec: str, key: str, text: str) -> object:
    kind = SearchStrategy.OPTIONS[key]
    if kind is bool:
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
        raise SearchSpecError(f"strategy {spec!r}: {key}={text!r} is not true or false")
    if kind is int:
        least = 0 if key in ("explain", "duel", "endgame_nodes") else 1
        if not text.isdigit() or int(text) < least:
            raise SearchSpecError(
                f"strategy {spec!r}: {key}={text!r} is not a whole number of {least} or more"
            )
        return int(text)
    if kind is float:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or number < 0 or "_" in text:
            raise SearchSpecError(f"strategy {spec!r}: {key}={text!r} is not a number of 0 or more")
        return number
    choices = {"objective": ("levels", "wins"), "rules": tuple(sorted(RULESETS))}[key]
    if text not in choices:
        raise SearchSpecError(f"strategy {spec!r}: {key}={text!r} is not one of {', '.join(choices)}")
    return text


def parse_options(spec: str) -> dict[str, object]:
    """The options of a ``search:`` spec (``SearchSpecError`` naming a bad one).

    >>> parse_options("search:worlds=32+gate=1.5")
    {'worlds': 32, 'gate': 1.5}
    """
    body = spec[len(PREFIX) :] if spec.startswith(PREFIX) else spec
    options: dict[str, object] = {}
    for item in body.split("+"):
        key, sep, text = item.strip().partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise SearchSpecError(
                f"strategy {spec!r}: {item!r} is not OPTION=VALUE (e.g. 'search:worlds=16')"
            )
        if key not in SearchStrategy.OPTIONS:
            raise SearchSpecError(
                f"strategy {spec!r}: no option {key!r} (options: {', '.join(SearchStrategy.OPTIONS)})"
            )
        if key in options:
            raise SearchSpecError(f"strategy {spec!r}: option {key!r} is given twice")
        options[key] = _value(spec, key, text)
    return options


def search_strategy_class(spec: str) -> type[SearchStrategy]:
    """The ``SearchStrategy`` subclass a ``search:`` spec names (module docstring)."""
    options = parse_options(spec)
    attrs = {"name": spec, "__doc__": f"SearchStrategy with {spec[len(PREFIX) :]}.", **options}
    return type("SearchStrategy", (SearchStrategy,), attrs)
