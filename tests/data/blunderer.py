"""A test bot: the heuristic, except that it breaks up a bomb to beat its partner's single when
the partner is about to go out (two cards or fewer) — an obviously losing play for review to flag."""

from guandan_cli.strategies.heuristic import HeuristicStrategy

from guandan_cli.engine.cards import RANK_OF
from guandan_cli.engine.combos import Combo, beats


def bomb_breaking_single(obs):
    """A single from a natural bomb (four or more cards of a rank) that beats the partner's single
    on top while the partner holds at most two cards, or ``None``."""
    top = obs.top
    if (
        top is None
        or obs.top_owner != obs.partner
        or top.type != "single"
        or obs.card_counts[obs.partner] > 2
    ):
        return None
    wild = obs.level * 4 + 1
    by_rank: dict[int, list[int]] = {}
    for f in obs.hand:
        if f != wild and f < 52:
            by_rank.setdefault(RANK_OF[f], []).append(f)
    for rank, faces in sorted(by_rank.items()):
        if len(faces) >= 4:
            single = Combo.make("single", rank, (faces[0],))
            if beats(single, top, obs.level):
                return single
    return None


class Blunderer(HeuristicStrategy):
    name = "blunderer"

    def choose_play(self, obs):
        blunder = bomb_breaking_single(obs)
        return blunder if blunder is not None else super().choose_play(obs)
