"""A person's typed answer to a question of the game, read against the legal actions.

``menu(obs)`` numbers the legal plays (grouped by type, each type in the hand's order: by
power, so the level card and the wild come after the A) or the allowed tribute/return
cards (by power too); ``read_answer(text, obs)`` turns one typed line into an :class:`Answer`: an
action (any declaration the rules accept, as ``Deal.verify`` would, not only the one
card choice per declaration the menu lists), a question of which declaration is meant, a command (``?``, ``h``, ``t``, ``q``)
or a one-line refusal naming the rule (card positions count from 1, ten is ``10``). Nothing here changes any state.

>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> from guandan_cli.engine.cards import parse_cards
>>> hands = [parse_cards(h) for h in ("S7 D7 C7 H2 H2 S3", "S5", "S6", "S8")]
>>> obs = observe(Deal(DealSetup(hands=hands, first_leader=0)), 0)
>>> a = read_answer("S7 D7 C7 H2 H2", obs)
>>> a.kind, [c.type for c in a.choices]
('which', ['full_house', 'bomb'])
>>> read_answer("S3 S7", obs).message
'S3 S7 is not a combination (§4)'
>>> [c.text() for c in menu(obs)][:4]  # by power at level 2: the 2s after the 7s
['single:3 S3', 'single:7 S7', 'single:2 H2', 'pair:3 H2 S3']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from guandan_cli.engine.cards import RANK_OF, CardParseError, parse_cards
from guandan_cli.engine.combos import (
    BOMB,
    COMBO_TYPES,
    POWER,
    POWER_TYPES,
    Combo,
    beats,
    bomb_value,
    readings,
)
from guandan_cli.engine.deal import PASS, PLAY, TRIBUTE
from guandan_cli.engine.observation import Observation
from guandan_cli.view.table import PLAIN_FACES, rank_text, sort_by_power

ACTION = "action"
WHICH = "which"
REFUSED = "refused"
HINT = "hint"
MENU = "menu"
TABLE = "table"
QUIT = "quit"
HELP_LINE = (
    "answer with cards (S3 H4 D4; suits S H C D, 10 or T, SB HR) or a menu number,\n"
    "  p to pass, ? for a suggestion, h for the menu, t for the whole table, q to save and quit"
)


def format_cards(cards) -> str:
    """Cards as a refusal names them: letters, ten as ``10`` (``S10 H4``)."""
    return " ".join(PLAIN_FACES[f] for f in cards)


def _named(c: Combo) -> str:
    return f"{c.type.replace('_', ' ')} {rank_text(c.rank)}"


@dataclass
class Answer:
    """What a typed line means: ``kind`` is action, which, refused, hint, menu or quit."""

    kind: str
    action: object = None
    choices: list[Combo] = field(default_factory=list)
    message: str = ""


def menu(obs: Observation) -> list[object]:
    """The numbered options (item ``i`` is number ``i + 1``): plays grouped by type, or cards.

    Within a type the plays come in the hand's order: singles, pairs, triples, full houses
    and bombs by the power of their key at the deal's level (2 … A, the level rank, the
    jokers; bombs by size first, as they beat each other), sequences by their top card;
    tribute and return cards by power. Passing is ``p``, never a number.
    """
    legal = [a for a in obs.legal_actions if not (isinstance(a, Combo) and a[0] == "pass")]
    if obs.phase != PLAY:
        return sort_by_power(set(legal), obs.level)  # type: ignore[arg-type]
    order = {t: i for i, t in enumerate(COMBO_TYPES)}
    power = POWER[obs.level]

    def place(c: Combo) -> tuple:
        if c.type == BOMB:
            strength = bomb_value(c, obs.level)
        elif c.type in POWER_TYPES:
            strength = power[c.rank]
        else:
            strength = c.rank
        cards = tuple(power[RANK_OF[f]] for f in sort_by_power(c.cards, obs.level))
        return (order[c.type], strength, cards, legal.index(c))

    return sorted(legal, key=place)


def read_answer(text: str, obs: Observation) -> Answer:
    """Read one typed line (see the module docstring)."""
    text = text.strip()
    low = text.lower()
    if low in ("?", "hint"):
        return Answer(HINT)
    if low in ("h", "help", "menu"):
        return Answer(MENU)
    if low in ("t", "table"):
        return Answer(TABLE)
    if low in ("q", "quit", "exit"):
        return Answer(QUIT)
    if not text:
        return Answer(REFUSED, message=f"empty answer: {HELP_LINE}")
    options = menu(obs)
    if low.isdigit():
        n = int(low)
        if not options:
            return Answer(REFUSED, message="you have no play that beats the top play: p passes")
        if not 1 <= n <= len(options):
            return Answer(
                REFUSED, message=f"no number {n} in the menu: choose 1..{len(options)} (h shows it)"
            )
        return Answer(ACTION, action=options[n - 1])
    if obs.phase == PLAY and low in ("p", "pass"):
        if obs.top is None:
            return Answer(REFUSED, message="you lead this trick and must play: the leader cannot pass (§7)")
        return Answer(ACTION, action=PASS)
    try:
        cards = parse_cards(text)
    except CardParseError as exc:
        return Answer(REFUSED, message=str(exc))
    missing = Counter(cards) - Counter(obs.hand)
    if missing:
        lacking = format_cards(sorted(missing.elements()))
        shown = format_cards(cards)
        return Answer(
            REFUSED,
            message=f"you do not hold {shown}" + (f" (missing {lacking})" if lacking != shown else ""),
        )
    if obs.phase != PLAY:
        return _read_card(cards, obs, options)
    found = readings(cards, obs.level)
    if not found:
        return Answer(REFUSED, message=f"{format_cards(cards)} is not a combination (§4)")
    top = obs.top
    legal = [c for c in found if top is None or beats(c, top, obs.level)]
    if not legal:
        shown = " or ".join(_named(c) for c in found)
        return Answer(
            REFUSED,
            message=f"{shown} does not beat the top play {_named(top)} "
            "(§5: the same type and size and higher, or a bigger bomb)",
        )
    if len(legal) > 1:
        return Answer(WHICH, choices=legal)
    return Answer(ACTION, action=legal[0])


def _read_card(cards: tuple[int, ...], obs: Observation, options: list) -> Answer:
    what = "tribute" if obs.phase == TRIBUTE else "return"
    if len(cards) != 1:
        return Answer(REFUSED, message=f"the {what} is one card, not {len(cards)}")
    card = cards[0]
    if card not in options:
        allowed = format_cards(options)
        if obs.phase == TRIBUTE:
            rule = "the tribute is your highest card by power, ♥ level cards excluded (§10)"
        else:
            rule = (
                f"a return to seat {obs.return_to} must have natural rank 2..10, or be your lowest "
                "card by power when you hold none (§10, §12)"
            )
        return Answer(REFUSED, message=f"{format_cards(cards)} cannot be given: {rule}; allowed: {allowed}")
    return Answer(ACTION, action=card)


__all__ = [
    "ACTION",
    "HELP_LINE",
    "HINT",
    "MENU",
    "QUIT",
    "REFUSED",
    "TABLE",
    "WHICH",
    "Answer",
    "format_cards",
    "menu",
    "read_answer",
]
