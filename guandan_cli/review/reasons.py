"""Plain reasons: what a move does to the hand, read from the heuristic's own plan of it.

The heuristic splits a hand into groups it means to play one turn each (``make_plan``:
singles, pairs, straights, bombs…). A move's facts compare the plan of the hand before the
move with the plan of the cards left: the bombs it plays, breaks or keeps, the control cards it
spends (jokers, the ♥ wild, level cards), how many groups (turns) are left to go out, whether it
beats the partner's play, whether it goes out. :func:`reason` contrasts the play made with the
best alternative in one line:

>>> from guandan_cli.engine.cards import parse_cards
>>> from guandan_cli.engine.combos import Combo
>>> hand = parse_cards("SA H2 D3 S4 H4 C4 D4 S5 S3 H3 SK HK")
>>> straight, pair = Combo.from_text("straight:5 SA H2 D3 C4 S5"), Combo.from_text("pair:3 S3 H3")
>>> reason(hand, 10, straight, pair)
'straight A–5 breaks your bomb of 4s; pair 3 keeps it, but leaves 4 more groups (6 against 2)'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from guandan_cli.engine.cards import RANK_OF, RANKS
from guandan_cli.engine.combos import Combo

#: the sequences' lengths below their top rank (a straight of 5, a tube of 3 pairs, a plate of 2 triples)
_SPAN = {"straight": 4, "straight_flush": 4, "tube": 2, "plate": 1}
_COUNT_WORDS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _rank(r: int) -> str:
    return {13: "small joker", 14: "big joker"}.get(r) or ("10" if RANKS[r] == "T" else RANKS[r])


def move_name(move: object) -> str:
    """``pass``, ``single K``, ``pair 3``, ``straight A–5``, ``full house 7s``, ``bomb of four 4s``.

    >>> move_name(Combo.from_text("tube:4 S2 H2 S3 H3 S4 D4")), move_name(Combo.from_text("bomb:9 S9 H9 C9 D9 D9"))
    ('tube 2–4', 'bomb of five 9s')
    """
    if not isinstance(move, Combo) or move.type == "pass":
        return "pass"
    kind, r = move.type, move.rank
    if kind in _SPAN:
        return f"{kind.replace('_', ' ')} {_rank((r - _SPAN[kind]) % 13)}–{_rank(r)}"
    if kind == "joker_bomb":
        return "the joker bomb"
    if kind == "bomb":
        return f"bomb of {_COUNT_WORDS[len(move.cards)]} {_rank(r)}s"
    if kind == "full_house":
        return f"full house {_rank(r)}s"
    return f"{kind} {_rank(r)}"


def _bombs(plan) -> Counter:
    """The plan's bombs as ``(type, rank)`` counts."""
    return Counter((g.type, g.rank) for g in plan.groups if g.is_bomb)


def _bomb_name(kind: str, rank: int) -> str:
    if kind == "joker_bomb":
        return "your joker bomb"
    if kind == "straight_flush":
        return f"your straight flush to {_rank(rank)}"
    return f"your bomb of {_rank(rank)}s"


@dataclass(frozen=True)
class MoveFacts:
    """What a move does to the hand (module docstring); ``groups`` left after it (0: out)."""

    move: str
    plays_bomb: bool
    broken: tuple[str, ...]
    kept: tuple[str, ...]
    spent: tuple[str, ...]
    groups: int
    beats_partner: bool
    out: bool

    def phrases(self) -> list[str]:
        """The facts worth saying, most telling first."""
        said = []
        if self.out:
            said.append("goes out")
        if self.broken:
            said.append("breaks " + " and ".join(self.broken))
        elif self.kept:
            said.append("keeps " + " and ".join(self.kept))
        if self.spent:
            said.append("spends " + ", ".join(self.spent))
        if self.beats_partner:
            said.append("beats your partner")
        return said

    @property
    def text(self) -> str:
        """``breaks your bomb of 4s, spends the wild; 6 groups left``."""
        said = self.phrases()
        left = "out" if self.out else f"{self.groups} group{'s' if self.groups != 1 else ''} left"
        return ", ".join(said) + ("; " if said else "") + left


def move_facts(hand: tuple[int, ...], level: int, move: object, partner_top: bool = False) -> MoveFacts:
    """The facts of ``move`` from ``hand`` at ``level`` (``partner_top``: the play to beat is the
    partner's)."""
    from guandan_cli.strategies.heuristic.plan import make_plan

    is_play = isinstance(move, Combo) and move.type != "pass"
    cards = list(move.cards) if is_play else []
    left = list(hand)
    for f in cards:
        left.remove(f)
    before = _bombs(make_plan(hand, level))
    after_plan = make_plan(left, level) if left else None
    after = _bombs(after_plan) if after_plan else Counter()
    plays_bomb = is_play and move.type in ("bomb", "straight_flush", "joker_bomb")
    gone = before - after
    if plays_bomb:
        gone -= Counter({(move.type, move.rank): 1})
    wild = level * 4 + 1
    spent = [("the big joker" if f == 53 else "the small joker") for f in cards if f >= 52]
    spent += ["the ♥ wild" for f in cards if f == wild]
    spent += [f"a level card ({_rank(level)})" for f in cards if f < 52 and f != wild and RANK_OF[f] == level]
    return MoveFacts(
        move=move_name(move),
        plays_bomb=plays_bomb,
        broken=tuple(_bomb_name(*b) for b in sorted(gone.elements())),
        kept=tuple(_bomb_name(*b) for b in sorted((after & before).elements())),
        spent=tuple(dict.fromkeys(spent)),
        groups=len(after_plan.groups) if after_plan else 0,
        beats_partner=is_play and partner_top,
        out=not left,
    )


def _groups(n: int) -> str:
    return f"{n} group{'s' if n != 1 else ''}"


def reason(hand: tuple[int, ...], level: int, played: object, best: object, partner_top: bool = False) -> str:
    """One line contrasting the play made with ``best`` (module docstring); the play made's facts
    alone when ``best`` is the play made. Bombs both keep are not repeated.

    >>> from guandan_cli.engine.cards import parse_cards
    >>> loose = parse_cards("S3 H6 C9 DJ SK")
    >>> reason(loose, 0, Combo.from_text("single:3 S3"), Combo.from_text("single:K SK"))
    'single 3 and single K both leave 4 groups'
    """
    mine = move_facts(hand, level, played, partner_top)
    if best == played:
        return f"{mine.move}: {mine.text}"
    theirs = move_facts(hand, level, best, partner_top)
    first, second = mine.phrases(), theirs.phrases()
    if mine.kept == theirs.kept and not mine.broken and not theirs.broken:
        first = [p for p in first if not p.startswith("keeps ")]
        second = [p for p in second if not p.startswith("keeps ")]
    elif mine.broken and theirs.kept and not theirs.broken and set(theirs.kept) >= set(mine.broken):
        second = ["keeps it" if len(mine.broken) == 1 else "keeps them"] + [
            p for p in second if not p.startswith("keeps ")
        ]
    if mine.out or theirs.out:
        groups = ""
    elif mine.groups == theirs.groups:
        if not first and not second:
            return f"{mine.move} and {theirs.move} both leave {_groups(mine.groups)}"
        groups = f"with the same number of groups left ({mine.groups})"
    else:
        diff = abs(mine.groups - theirs.groups)
        fewer = theirs.groups < mine.groups
        groups = f"{'and' if fewer else 'but'} leaves {diff} {'fewer' if fewer else 'more'} group{'s' if diff != 1 else ''}"
        groups += f" ({theirs.groups} against {mine.groups})"
    left = f"{mine.move} " + (", ".join(first) if first else f"leaves {_groups(mine.groups)}")
    right = theirs.move + (" " + ", ".join(second) if second else "")
    if groups:
        right += (", " if second else " ") + groups
    return f"{left}; {right}"


__all__ = ["MoveFacts", "move_facts", "move_name", "reason"]
