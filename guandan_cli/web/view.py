"""What the web table sends a browser: one seat's view as JSON, built from its ``Observation`` only.

Nothing here reads a ``Deal``: a seat's observation holds its own hand and the public record,
so a message built from it cannot carry another seat's hidden card (tests/test_web_table.py
checks every message of whole games against the deal).

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import Deal, DealSetup
>>> from guandan_cli.engine.observation import observe
>>> obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0)), 0)
>>> v = seat_view(obs, ["you", "heuristic", "heuristic", "heuristic"])
>>> len(v["hand"]), v["counts"], v["to_move"], v["trick"]
(27, [27, 27, 27, 27], 0, [])
>>> card_json(52, 0)["name"], card_json(1, 0)["wild"]
('小王 small joker', True)
"""

from __future__ import annotations

from collections.abc import Sequence

from guandan_cli.engine.cards import FACE_NAMES, FACE_SYMBOLS, RANK_OF
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, Event
from guandan_cli.engine.match import level_token
from guandan_cli.engine.observation import Observation
from guandan_cli.review.page import combo_label
from guandan_cli.view.table import PLAIN_FACES, sort_by_power

#: the jokers' names, as the terminal gives them (小王 / 大王) with the English beside
JOKER_NAMES = {52: "小王 small joker", 53: "大王 big joker"}


def card_json(face: int, level: int) -> dict:
    """One card: ``face`` (its number), ``token`` (what a person types: ``S10``, ``SB``), ``name``
    (``♠10``, ``小王 small joker``), ``suit`` (``S``/``H``/``C``/``D``, ``J`` for a joker), ``rank``,
    whether it is the ``wild`` (the ♥ level card) or of the ``level`` rank."""
    joker = face >= 52
    return {
        "face": face,
        "token": PLAIN_FACES[face],
        "name": JOKER_NAMES.get(face) or FACE_SYMBOLS[face],
        "suit": "J" if joker else FACE_NAMES[face][0],
        "rank": "小王" if face == 52 else "大王" if face == 53 else PLAIN_FACES[face][1:],
        "wild": face == level * 4 + 1,
        "level": not joker and RANK_OF[face] == level,
    }


def action_json(action: object, level: int) -> dict:
    """A play (``label`` as the review page names it, its cards), a pass, or a single card."""
    if isinstance(action, Combo) and action is not PASS and action[0] != "pass":
        return {
            "kind": "play",
            "label": combo_label(action, level),
            "cards": [card_json(f, level) for f in action.cards],
        }
    if isinstance(action, int):
        return {
            "kind": "card",
            "label": JOKER_NAMES.get(action) or FACE_SYMBOLS[action],
            "cards": [card_json(action, level)],
        }
    return {"kind": "pass", "label": "pass", "cards": []}


def event_json(ev: Event, level: int) -> dict:
    """A public event: a play (with its declaration), a pass, a revealed tribute or return card."""
    if ev.kind in ("tribute", "return"):
        return {"kind": ev.kind, "seat": ev.seat, "to": ev.to, "cards": [card_json(ev.card, level)]}
    if ev.kind == "play" and ev.combo is not None:
        return {"kind": "play", "seat": ev.seat, "lead": ev.lead, **_play(ev.combo, level)}
    return {"kind": "pass", "seat": ev.seat}


def _play(combo: Combo, level: int) -> dict:
    return {"label": combo_label(combo, level), "cards": [card_json(f, level) for f in combo.cards]}


def current_trick(events: Sequence[Event]) -> list[Event]:
    """The play-phase events from the current trick's lead on (tribute and return left out)."""
    start = None
    for i in range(len(events) - 1, -1, -1):
        ev = events[i]
        if ev.kind == "play" and ev.lead:
            start = i
            break
        if ev.kind in ("tribute", "return"):
            break
    return [] if start is None else list(events[start:])


def seat_view(obs: Observation, names: Sequence[str]) -> dict:
    """The whole table as ``obs.seat`` may see it (the page draws it from this alone)."""
    level = obs.level
    trick = current_trick(obs.events)
    transfers = [e for e in obs.events if e.kind in ("tribute", "return")]
    return {
        "seat": obs.seat,
        "names": list(names),
        "phase": obs.phase,
        "to_move": obs.to_move,
        "level": level_token(level),
        "levels": [level_token(x) for x in obs.levels],
        "level_team": obs.level_team,
        "hand": [card_json(f, level) for f in sort_by_power(obs.hand, level)],
        "counts": list(obs.card_counts),
        "finished": list(obs.finished),
        "trick": [event_json(e, level) for e in trick],
        "top": None if obs.top is None else {"seat": obs.top_owner, **_play(obs.top, level)},
        "tribute_kind": obs.tribute_kind,
        "transfers": [event_json(e, level) for e in transfers],
        "return_to": obs.return_to,
        "events": len(obs.events),
    }


__all__ = ["JOKER_NAMES", "action_json", "card_json", "current_trick", "event_json", "seat_view"]
