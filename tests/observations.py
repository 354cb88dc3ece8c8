"""Hand-built observations for decision tests of bots."""

from __future__ import annotations

from guandan_cli.engine import Combo, parse_cards
from guandan_cli.engine.deal import PASS
from guandan_cli.engine.legal import legal_plays
from guandan_cli.engine.observation import Observation


def obs_for(
    hand,
    top=None,
    owner=-1,
    *,
    seat=0,
    level=0,
    counts=None,
    phase="play",
    legal=None,
    finished=(),
    events=(),
    return_to=-1,
    tribute_kind="none",
):
    """An observation for seat ``seat`` holding ``hand`` (cards or text), facing ``top`` (combo or text)."""
    hand = tuple(sorted(parse_cards(hand) if isinstance(hand, str) else hand))
    if isinstance(top, str):
        top = Combo.from_text(top)
    if legal is None:
        legal = legal_plays(hand, level, top)
        if top is not None:
            legal.append(PASS)
    if counts is None:
        counts = tuple(len(hand) if s == seat else 20 for s in range(4))
    return Observation(
        seat=seat,
        phase=phase,
        to_move=seat,
        hand=hand,
        level=level,
        levels=(level, 0),
        level_team=0,
        events=tuple(events),
        card_counts=tuple(counts),
        finished=tuple(finished),
        top=top,
        top_owner=owner,
        legal_actions=tuple(legal),
        tribute_kind=tribute_kind,
        return_to=return_to,
    )
