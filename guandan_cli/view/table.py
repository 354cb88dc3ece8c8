"""Cards, plays, tricks and the table as text a person reads (rich markup when in colour).

``Style`` says whether suits are symbols (♠♥♣♦) and whether colour markup is added.
With ``Style.plain()`` the text is pure ASCII-friendly letters and holds no markup.
Ten is spelt ``10`` in every view (``S10``, ``♠10``, ``straight 10``, ``level 10``,
``H2=10``); ``T`` is the notation's (logs, ``type:key cards``), and input takes either.

>>> from guandan_cli.engine.combos import Combo
>>> c = Combo.from_text("straight:7 S3 H2 D5 C6 S7")
>>> play_text(c, level=0, style=Style.plain())
'straight 7   H2=4 S3 D5 C6 S7'
>>> wild_meanings(Combo.from_text("full_house:9 S9 H9 H2 SK DK"), 0)
['9']
>>> play_text(Combo.from_text("straight:A ST SJ SQ SK H2"), level=0, style=Style.plain())
'straight A   H2=A S10 SJ SQ SK'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from guandan_cli.engine.cards import (
    FACE_NAMES,
    FACE_SYMBOLS,
    RANK_OF,
    RANK_TOKENS,
    SUIT_OF,
    SUIT_SYMBOLS,
    SUITS,
)
from guandan_cli.engine.combos import (
    FULL_HOUSE,
    PLATE,
    POWER,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TUBE,
    Combo,
)
from guandan_cli.engine.deal import PLAY, RETURN, TRIBUTE, Event
from guandan_cli.engine.match import level_token
from guandan_cli.view.text import columns

PLACES = ("上游 1st", "二游 2nd", "三游 3rd", "下游 4th")
_WINDOW = {STRAIGHT: (5, 1), STRAIGHT_FLUSH: (5, 1), TUBE: (3, 2), PLATE: (2, 3)}


@dataclass(frozen=True)
class Style:
    """How cards look: suit ``symbols`` (else letters) and ``colour`` markup (red ♥♦, wilds)."""

    symbols: bool = True
    colour: bool = True

    @classmethod
    def plain(cls) -> Style:
        return cls(symbols=False, colour=False)


#: the cards as a person reads them in letters: the notation's names with ten as ``10`` (``S10``)
PLAIN_FACES: tuple[str, ...] = tuple(n[0] + "10" if n[1:] == "T" else n for n in FACE_NAMES)


def ten(token: str) -> str:
    """A rank or level token as a view shows it: ``10`` for ``T``, others as they are.

    >>> ten("T"), ten("ST"), ten("A+"), ten("SB")
    ('10', 'S10', 'A+', 'SB')
    """
    if token == "T":
        return "10"
    return token[0] + "10" if len(token) == 2 and token[1] == "T" and token[0] in SUITS else token


def rank_text(rank: int) -> str:
    """A rank index as a view shows it (``10``, ``J``, ``SB``)."""
    return ten(RANK_TOKENS[rank])


def level_text(level: int) -> str:
    """A level index as a view shows it (``2`` … ``10`` … ``A``, ``A+``)."""
    return ten(level_token(level))


def card_text(face: int, style: Style, level: int | None = None, mark_wild: bool = False) -> str:
    """One card; with ``level`` given the wild (♥ level card) is highlighted (``*`` when plain)."""
    text = (FACE_SYMBOLS if style.symbols else PLAIN_FACES)[face]
    wild = level is not None and face == level * 4 + 1
    if not style.colour:
        return text + "*" if wild and mark_wild else text
    if wild:
        return f"[bold black on yellow]{text}[/]"
    if level is not None and RANK_OF[face] == level:
        return f"[bold {'red' if SUIT_OF[face] in (1, 3) else 'cyan'}]{text}[/]"
    if SUIT_OF[face] in (1, 3) or face == 53:
        return f"[red]{text}[/]"
    return text


def cards_text(cards: Iterable[int], style: Style, level: int | None = None, mark_wild: bool = False) -> str:
    return " ".join(card_text(f, style, level, mark_wild) for f in cards)


def sort_by_power(cards: Iterable[int], level: int) -> list[int]:
    """Cards from the lowest to the highest at ``level`` (the level rank above A, then the jokers).

    >>> from guandan_cli.engine.cards import format_cards, parse_cards
    >>> format_cards(sort_by_power(parse_cards("SA H5 S5 HR S3"), 3))
    'S3 SA S5 H5 HR'
    """
    pw = POWER[level]
    return sorted(cards, key=lambda f: (pw[RANK_OF[f]], SUIT_OF[f], f))


def wild_meanings(combo: Combo, level: int) -> list[str]:
    """What each wild card of ``combo`` stands for (rank tokens, with the suit in a straight flush).

    Empty when the play holds no wild or only wilds standing for themselves.
    """
    wild = level * 4 + 1
    w = combo.cards.count(wild)
    if w == 0 or combo.type == "single":
        return []
    natural = [f for f in combo.cards if f != wild]
    counts: dict[int, int] = {}
    for f in natural:
        counts[RANK_OF[f]] = counts.get(RANK_OF[f], 0) + 1
    ranks: list[int] = []
    if combo.type in _WINDOW:
        length, each = _WINDOW[combo.type]
        start = combo.rank - length + 1
        for i in range(length):
            r = (start + i) % 13
            ranks += [r] * max(0, each - counts.get(r, 0))
    elif combo.type == FULL_HOUSE:
        ranks = [combo.rank] * (3 - counts.get(combo.rank, 0))
        rest = [r for r in counts if r != combo.rank]
        pair = rest[0] if rest else level
        ranks += [pair] * (w - len(ranks))
    else:  # pair, triple, bomb: every wild is the key rank
        ranks = [combo.rank] * w
    ranks = ranks[:w]
    if combo.type != STRAIGHT_FLUSH and all(r == level for r in ranks):
        return []
    if combo.type == STRAIGHT_FLUSH and natural:
        suit = SUIT_OF[natural[0]]
        return [SUITS[suit] + RANK_TOKENS[r] for r in ranks]
    return [RANK_TOKENS[r] for r in ranks]


#: a joker as a play's key (``single big joker  大王``), never its card token
JOKER_KEY_NAMES = {13: "small joker", 14: "big joker"}


def play_text(combo: Combo, level: int, style: Style, marks: bool = True) -> str:
    """``type key  cards``; with ``marks`` each wild shows what it stands for (``H2=K``). A
    joker key is named (``pair big joker  HR HR``); the joker bomb has no key.

    >>> play_text(Combo.from_text("pair:HR HR HR"), 0, Style.plain())
    'pair big joker  HR HR'
    """
    cards = play_cards_text(combo, level, style, marks)
    if combo.type == "joker_bomb":
        return f"joker bomb  {cards}"
    key = JOKER_KEY_NAMES.get(combo.rank) or rank_text(combo.rank)
    return f"{combo.type.replace('_', ' ')} {key:<2}  {cards}"


def play_cards_text(combo: Combo, level: int, style: Style, marks: bool = True) -> str:
    """The cards of a play; with ``marks`` each wild shows what it stands for (``H2=K``)."""
    meanings = wild_meanings(combo, level) if marks else []
    wild = level * 4 + 1
    parts = []
    for f in combo.cards:
        text = card_text(f, style, level if marks else None)
        if f == wild and meanings:
            means = ten(meanings.pop(0))
            if style.symbols and len(means) > 1 and means[0] in SUITS and combo.type == STRAIGHT_FLUSH:
                means = SUIT_SYMBOLS[SUITS.index(means[0])] + means[1:]
            text += f"={means}"
        parts.append(text)
    return " ".join(parts)


class TrickLog:
    """The play phase as lines, fed one public event at a time (``replay``'s layout).

    ``lines`` holds everything so far; ``current`` the lines of the trick in progress;
    ``counts`` the cards left per seat; ``out`` the seats out, in order.
    """

    def __init__(
        self, level: int, style: Style, counts: Sequence[int] = (27, 27, 27, 27), marks: bool = True
    ) -> None:
        self.level = level
        self.style = style
        self.marks = marks
        self.counts = list(counts)
        self.out: list[int] = []
        self.trick = 0
        self.owner = -1
        self.lines: list[str] = []
        self.current: list[str] = []
        self._taken = False  # the trick's end is told (``trick_over``)

    def trick_over(self) -> list[str]:
        """The line ending the trick in progress (``→ seat 2 takes the trick``), told once:
        for a reader who knows it is over (every other seat passed) before the next lead."""
        if not self.trick or self._taken:
            return []
        self._taken = True
        line = f"  → seat {self.owner} takes the trick"
        self.lines.append(line)
        return [line]

    def feed(self, ev: Event) -> list[str]:
        """Add one event; returns the lines it produced (none for tribute and return)."""
        if ev.kind not in (PLAY, "pass"):
            return []
        new: list[str] = []
        if ev.kind == PLAY and ev.lead:
            if self.trick and not self._taken:
                new.append(f"  → seat {self.owner} takes the trick")
            self._taken = False
            self.trick += 1
            note = ""
            if self.trick > 1 and self.owner in self.out and ev.seat != self.owner:
                note = f"  (接风: seat {ev.seat} leads for its partner)"
            new += ["", f"trick {self.trick}{note}"]
            self.current = []
        if ev.kind == "pass":
            line = f"  seat {ev.seat}  pass"
        else:
            self.counts[ev.seat] -= ev.combo.size
            self.owner = ev.seat
            tail = ""
            if self.counts[ev.seat] == 0:
                self.out.append(ev.seat)
                tail = f"   ← out, {PLACES[len(self.out) - 1]}"
            shown = play_text(ev.combo, self.level, self.style, self.marks)
            line = f"  seat {ev.seat}  {shown}  ({self.counts[ev.seat]} left){tail}"
        new.append(line)
        self.current += [x for x in new if x and not x.startswith("  → ")]
        self.lines += new
        return new


def tribute_lines(
    kind: str,
    resisted_by: Sequence[int],
    tributes: Sequence[tuple[int, int, int]],
    returns: Sequence[tuple[int, int, int]],
    style: Style,
) -> list[str]:
    """Tribute (进贡) and return (还贡) of a deal, as ``replay`` prints them."""
    if kind == "none":
        return ["tribute: none (first deal of the match)"]
    if kind == "resisted" and not resisted_by:
        return ["tribute: resisted (抗贡): the paying side holds both big jokers"]
    if kind == "resisted":
        seats = " and ".join(f"seat {s}" for s in resisted_by)
        return [f"tribute: resisted (抗贡) by {seats}, holding both big jokers"]
    out = []
    if tributes:
        pays = "; ".join(f"seat {p} pays {card_text(c, style)} to seat {r}" for p, r, c in tributes)
        out.append(f"tribute: {kind} — {pays}")
    else:
        out.append(f"tribute: {kind} — being chosen")
    if returns:
        rets = "; ".join(f"seat {g} returns {card_text(c, style)} to seat {r}" for g, r, c in returns)
        out.append(f"return:  {rets}")
    return out


def transfers_of(events: Iterable[Event]) -> tuple[list, list]:
    """``(tributes, returns)`` as (giver, receiver, card) from a deal's public events."""
    tributes = [(e.seat, e.to, e.card) for e in events if e.kind == TRIBUTE]
    returns = [(e.seat, e.to, e.card) for e in events if e.kind == RETURN]
    return tributes, returns


def level_line(level: int, levels: Sequence[int], level_team: int | None) -> str:
    """``playing level 5 (team 0's) · team 0 (seats 0,2): 5 · team 1 (seats 1,3): 3``."""
    who = "first deal" if level_team is None else f"team {level_team}'s"
    return (
        f"playing level {level_text(level)} ({who}) · team 0 (seats 0,2): {level_text(levels[0])}"
        f" · team 1 (seats 1,3): {level_text(levels[1])}"
    )


def deal_end_lines(
    finish_order: Sequence[int],
    double_down: bool,
    winner_team: int,
    upgrade: int,
    levels_after: Sequence[str],
    match_over: bool,
    capped: bool,
    match_winner: int | None,
) -> list[str]:
    """Finish order, the upgrade, the levels after and the match's end (level tokens as text)."""
    out = ["finish: " + ", ".join(f"{PLACES[i]} seat {s}" for i, s in enumerate(finish_order))]
    dd = "  (double-down: 双下)" if double_down else ""
    out.append(f"team {winner_team} goes up {upgrade}{dd}")
    out.append(f"levels after: team 0 {ten(levels_after[0])}, team 1 {ten(levels_after[1])}")
    if match_over:
        if capped:
            out.append("the match ends here: capped by max_deals (no winner)")
        else:
            out.append(f"the match ends here: team {match_winner} wins")
    return out


def played_end_lines(result, update) -> list[str]:
    """``deal_end_lines`` of a deal played now: its ``DealResult`` and the match's ``MatchUpdate``."""
    return deal_end_lines(
        result.finish_order,
        result.double_down,
        result.winner_team,
        result.upgrade,
        [level_token(x) for x in update.levels_after],
        update.match_over,
        update.capped,
        update.winner,
    )


def hand_lines(
    head: str, cards: Sequence[int], style: Style, level: int | None = None, width: int = 80
) -> list[str]:
    """``head`` and the cards (in the order given), on one line when it fits in ``width``
    columns, else under ``head``, wrapped between cards (a joker's name takes 4 columns).

    >>> hand_lines("  seat 0:", [4, 9], Style.plain())
    ['  seat 0:  S3 H4']
    >>> hand_lines("  seat 0:", [32] * 27, Style())[1][:12]
    '    ♠10 ♠10 '
    """
    plain = Style(symbols=style.symbols, colour=False)
    tokens = [(columns(card_text(f, plain)), card_text(f, style, level, mark_wild=True)) for f in cards]
    if columns(head) + 2 + sum(n + 1 for n, _ in tokens) - 1 <= width:
        return [f"{head}  {' '.join(t for _, t in tokens)}"]
    lines, line, used = [head], "   ", 3
    for n, token in tokens:
        if used + 1 + n > width:
            lines.append(line)
            line, used = "   ", 3
        line, used = f"{line} {token}", used + 1 + n
    return lines + [line]


@dataclass(frozen=True)
class ReplayedDeal:
    """One logged deal, as :func:`replay_lines` lays it out."""

    header: str
    level: int
    level_team: int | None
    levels_before: Sequence[str]
    hands: Sequence[Sequence[int]]
    strategies: Sequence[str]
    tribute: Sequence[str]
    leader: int
    events: Sequence[Event]
    end: Sequence[str]


def replay_lines(deal: ReplayedDeal, style: Style = Style(colour=False), width: int = 80) -> list[str]:
    """One logged deal as ``guandan replay`` prints it: the header, the four hands by power
    (wild marked), tribute and return (``tribute``, from :func:`tribute_lines`), who
    leads, every trick with each play's declaration and wild marks (``H2=6``, as ``watch``
    shows them), who went out, and the deal's ``end`` (:func:`deal_end_lines`)."""
    who = "first deal of the match" if deal.level_team is None else f"team {deal.level_team}'s level"
    out = [
        deal.header,
        f"level {level_text(deal.level)} ({who});  levels before: team 0 {ten(deal.levels_before[0])}, "
        f"team 1 {ten(deal.levels_before[1])}",
        "",
        "hands",
    ]
    for seat in range(4):
        head = f"  seat {seat} (team {seat & 1}, {deal.strategies[seat]}):"
        out += hand_lines(head, sort_by_power(deal.hands[seat], deal.level), style, deal.level, width)
    out += ["", *deal.tribute, f"seat {deal.leader} leads"]
    log = TrickLog(deal.level, style)
    for ev in deal.events:
        log.feed(ev)
    return out + log.lines + ["", *deal.end]


@dataclass(frozen=True)
class TableScene:
    """The table at one moment, as :func:`render_table` draws it (``bottom``: the seat nearest
    the reader; ``hands``: the hands shown)."""

    title: str
    level: int
    levels: Sequence[int]
    level_team: int | None
    names: Sequence[str]
    counts: Sequence[int]
    finished: Sequence[int]
    events: Sequence[Event]
    to_move: int
    tribute_kind: str
    resisted_by: Sequence[int] = ()
    hands: dict[int, Sequence[int]] | None = None
    bottom: int = 0
    footer: Sequence[str] = ()
    you: bool = False


def render_table(scene: TableScene, style: Style = Style()) -> str:
    """The table at one moment: header and level line, the four seats around the table with
    card counts (``bottom`` nearest the reader, play going round to the right), tribute and
    return, the current trick with declarations and wild marks, and the hands shown."""
    hands = scene.hands or {}
    log = TrickLog(scene.level, style, counts=(27, 27, 27, 27))
    for ev in scene.events:
        log.feed(ev)
    tributes, returns = transfers_of(scene.events)

    def seat_label(s: int) -> str:
        mark = ">" if s == scene.to_move else " "
        state = f"{scene.counts[s]:>2} card{'' if scene.counts[s] == 1 else 's'}"
        if s in scene.finished:
            state = f"out {PLACES[scene.finished.index(s)].split()[0]}"
        return f"{mark} seat {s} {scene.names[s]} · {state}"

    width = 72
    top, left, right = (scene.bottom + 2) % 4, (scene.bottom + 3) % 4, (scene.bottom + 1) % 4
    lines = [scene.title, level_line(scene.level, scene.levels, scene.level_team), ""]
    lines.append(seat_label(top).center(width).rstrip())
    lft, rgt = seat_label(left), seat_label(right)
    lines.append(lft + " " * max(2, width - len(lft) - len(rgt)) + rgt)
    lines.append(seat_label(scene.bottom).center(width).rstrip())
    lines.append("")
    lines += tribute_lines(scene.tribute_kind, scene.resisted_by, tributes, returns, style)
    if log.current:
        head, *plays = log.current
        lines.append(head)
        lines += plays[-8:] if len(plays) <= 8 else ["  …"] + plays[-7:]
    for s in sorted(hands, key=lambda s: (s != scene.bottom, s)):
        cards = sort_by_power(hands[s], scene.level)
        who = "your hand" if scene.you and s == scene.bottom else f"seat {s}"
        lines.append(f"{who} ({len(cards)}): {cards_text(cards, style, scene.level, mark_wild=True)}")
    lines += list(scene.footer)
    return "\n".join(lines)


__all__ = [
    "PLACES",
    "ReplayedDeal",
    "Style",
    "TableScene",
    "TrickLog",
    "card_text",
    "cards_text",
    "deal_end_lines",
    "hand_lines",
    "level_line",
    "level_text",
    "play_cards_text",
    "play_text",
    "rank_text",
    "render_table",
    "replay_lines",
    "sort_by_power",
    "ten",
    "transfers_of",
    "tribute_lines",
    "wild_meanings",
]
