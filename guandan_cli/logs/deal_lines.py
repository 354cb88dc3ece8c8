"""A deal record's JSON line built directly: the bytes of ``dumps_line(deal_record(...))``, faster.

``simulate`` writes one line per deal. Building the record dict (``deal_record``, with
``derive_stats``) and then ``json.dumps`` of it cost about a tenth of random self-play;
``DealLines`` writes the same bytes from string pieces. One ``DealLines`` serves one match:
the run id, match index, match seed and strategies are encoded once, with ``json.dumps``.

Why the bytes are the same:

- every string of the line goes through ``json``'s own escaping (``encode_basestring``,
  what ``json.dumps(..., ensure_ascii=False)`` uses), cached per distinct string (card
  names, level tokens, play texts, bomb classes, tribute kinds);
- the fields are written in ``deal_record``'s order with ``dumps_line``'s separators;
- a scalar of unknown type (``deal_index``, ``level_team``, the match's ``winner``…) is
  written by ``_scalar``: ``str`` of an exact ``int``, ``true``/``false``/``null``, else
  ``json.dumps`` itself;
- seats (actions, finish order, tribute, bombs) are exact ``int`` whenever the deal's setup
  gives its first leader and previous finish order as exact ``int`` (the engine derives
  every seat from those by arithmetic); a deal whose setup does not, or that holds a play
  that is not a plain ``Combo``, is written by the reference path
  ``dumps_line(deal_record(...))`` instead.

``deal_record`` stays the reference (and the dict ``verify`` and the setups API use);
tests compare both on thousands of deals of every built-in bot and ruleset option.

>>> from guandan_cli.engine.match import Match, deal_seed
>>> from guandan_cli.engine.play import iter_match
>>> from guandan_cli.logs.schema import MatchKey, deal_record
>>> from guandan_cli.logs.writer import dumps_line
>>> from guandan_cli.strategies import make_players
>>> m = Match(seed=3)
>>> lines = DealLines(run_id="r", match_index=0, match_seed=3, strategies=["random"] * 4)
>>> pd = next(iter_match(m, make_players(["random"] * 4, match_seed=3)))
>>> args = dict(deal_index=pd.index, deal_seed=deal_seed(3, pd.index), setup=pd.setup, deal=pd.deal, update=pd.update)
>>> lines.line(**args) == dumps_line(deal_record(MatchKey("r", 0, 3, ("random",) * 4), **args))
True
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring

from guandan_cli.engine.cards import FACE_NAMES, RANK_TOKENS
from guandan_cli.engine.combos import BOMB_CLASS, Combo
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup
from guandan_cli.engine.match import LEVEL_TOKENS, MatchUpdate

from .schema import (
    SCHEMA_VERSION,
    MatchKey,
    _action_line,
    bomb_class,
    deal_record,
    hand_counts_at_play,
    is_jiefeng,
)
from .writer import dumps_line

#: a face's name inside a JSON string (as ``format_cards`` joins them) / as a JSON string
_FACE_IN = tuple(encode_basestring(n)[1:-1] for n in FACE_NAMES)
_FACE_JSON = tuple(encode_basestring(n) for n in FACE_NAMES)
_LEVEL_JSON = tuple(encode_basestring(t) for t in LEVEL_TOKENS)
_RANK_JSON = tuple(encode_basestring(t) for t in RANK_TOKENS)
#: ``"SEAT pass"`` as JSON, by seat
_PASS_JSON = tuple(encode_basestring(f"{seat} pass") for seat in range(4))

#: ``"SEAT `` opening a play's JSON string, by seat
_SEAT_OPEN = tuple(f'"{seat} ' for seat in range(4))
#: per play type: ``type:key `` inside a JSON string, by rank index (``_action_line``'s prefix)
_PREFIX: dict[str, tuple[str, ...]] = {}
#: JSON of each short string seen (tribute kinds, combo types, bomb classes)
_STR_JSON: dict[str, str] = {}


def _dumps(value) -> str:
    """``value`` as ``dumps_line`` writes it inside a record."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _scalar(value) -> str:
    """An ``int``, ``bool`` or ``None`` exactly as ``json.dumps`` writes it (anything else through it)."""
    if type(value) is int:
        return str(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return _dumps(value)


def _string(text: str) -> str:
    """``text`` as a JSON string (cached: the strings given here are few)."""
    got = _STR_JSON.get(text)
    if got is None or type(text) is not str:
        got = encode_basestring(text)
        if type(text) is str and len(_STR_JSON) < 10_000:
            _STR_JSON[text] = got
    return got


class _Fallback(Exception):
    """The deal holds something the fast path does not write: use the reference path."""


def _plain_seats(setup: DealSetup) -> bool:
    """Whether every seat the deal derives from ``setup`` is an exact ``int``."""
    previous = setup.previous
    if previous is None:
        return type(setup.first_leader) is int
    for seat in previous[0]:
        if type(seat) is not int:
            return False
    return True


def _prefixes(type_: str) -> tuple[str, ...]:
    """``type:key `` of each rank index for plays of ``type_`` (a ``str``), escaped for a JSON string."""
    got = _PREFIX.get(type_)
    if got is None:
        got = tuple(encode_basestring(f"{type_}:{key} ")[1:-1] for key in RANK_TOKENS)
        if len(_PREFIX) < 1000:
            _PREFIX[type_] = got
    return got


def _actions_json(deal: Deal) -> str:
    """The ``actions`` list's items: ``deal_record``'s texts (passes and plays) as JSON strings.

    The tribute and return cards (``int`` actions, which the list leaves out) are the first
    ``len(tributes) + len(returns)`` actions; the rest are passes and plays, each a ``Combo``
    (``Deal.verify``). A plain one's text is ``_action_line``'s, written here piece by piece
    (each piece escaped as JSON escapes it, which is the escaping of the whole): a cache of
    the texts would be larger than the processor's caches, and slower in a run.
    """
    actions = deal.actions
    skip = len(deal.tributes) + len(deal.returns)
    out = []
    append = out.append
    names = _FACE_IN
    face = names.__getitem__
    opening = _SEAT_OPEN
    prefixes = _PREFIX
    passes = _PASS_JSON
    for seat, action in actions[skip:] if skip else actions:
        if action is PASS:
            append(passes[seat])
        elif type(action) is Combo and action[0] != "pass" and type(action[0]) is str:
            type_, rank, cards = action
            prefix = prefixes.get(type_) or _prefixes(type_)
            if len(cards) == 1:  # singles, the most frequent plays: no join
                append(f'{opening[seat]}{prefix[rank]}{names[cards[0]]}"')
            else:
                append(f'{opening[seat]}{prefix[rank]}{" ".join(map(face, cards))}"')
        elif isinstance(action, int):  # pragma: no cover - cards are paid before play
            raise _Fallback
        else:
            append(encode_basestring(_action_line(seat, action)))
    return ",".join(out)


#: ``bomb_class(type, size)`` as JSON, by (type, size)
_BOMB_CLASS_JSON: dict[tuple[str, int], str] = {}


def _bomb_json(seat: int, type_: str, rank: int, size: int, lead: bool, counts: list, finished: list) -> str:
    """One item of ``derived.bombs`` (the opponents' fewest cards among those still in play)."""
    cls = _BOMB_CLASS_JSON.get((type_, size))
    if cls is None or type(type_) is not str:
        cls = _string(bomb_class(type_, size))
        if type(type_) is str:
            _BOMB_CLASS_JSON[type_, size] = cls
    right, left = (seat + 1) % 4, (seat + 3) % 4
    if right in finished:
        fewest = None if left in finished else counts[left]
    elif left in finished:
        fewest = counts[right]
    else:  # min() of the two, as derive_stats takes it
        fewest = min(counts[right], counts[left])
    return (
        f'{{"seat":{seat},"class":{cls},"key":{_RANK_JSON[rank]},'
        f'"opp_min_cards":{_scalar(fewest)},"lead":{"true" if lead is True else _scalar(lead)}}}'
    )


def _derived_json(deal: Deal) -> str:
    """``derive_stats(deal)`` as ``dumps_line`` writes it (the same walk over the events)."""
    any_finisher = deal.rules.jiefeng == "any"
    wild = deal.level * 4 + 1
    counts = hand_counts_at_play(deal)
    tricks = plays = passes = jiefeng = 0
    bombs: list[str] = []
    wild_plays: list[str] = []
    finished: list[int] = []
    last_owner = -1
    for event in deal.events:
        combo = event[2]
        if combo is None:  # a pass, a tribute or a return card
            if event[0] == "pass":
                passes += 1
            continue
        if event[0] != PLAY or type(combo) is not Combo:
            raise _Fallback
        seat = event[1]
        lead = event[5]
        if lead:
            tricks += 1
            jiefeng += is_jiefeng(seat, last_owner, finished, any_finisher)
        plays += 1
        type_, rank, cards = combo
        size = len(cards)
        if type_ in BOMB_CLASS:
            bombs.append(_bomb_json(seat, type_, rank, size, lead, counts, finished))
        if wild in cards:
            wild_plays.append(f'{{"seat":{seat},"type":{_string(type_)},"wilds":{cards.count(wild)}}}')
        left = counts[seat] = counts[seat] - size
        if left == 0:
            finished.append(seat)
        last_owner = seat
    return (
        f'{{"tricks":{tricks},"plays":{plays},"passes":{passes},"jiefeng":{jiefeng},'
        f'"bombs":[{",".join(bombs)}],"wild_plays":[{",".join(wild_plays)}]}}'
    )


class DealLines:
    """The deal lines of one match: ``line(...)`` is ``dumps_line(deal_record(...))``, byte for byte."""

    def __init__(self, *, run_id: str, match_index: int, match_seed: int, strategies: list[str]) -> None:
        self._ids = (run_id, match_index, match_seed, list(strategies))
        self._head = (
            f'{{"v":{_dumps(SCHEMA_VERSION)},"run_id":{_dumps(run_id)},"match":{_dumps(match_index)},'
            f'"match_seed":{_dumps(match_seed)},"deal":'
        )
        self._strategies = _dumps(list(strategies))
        self._ruleset: object = None
        self._middle = ""

    def _reference(
        self, deal_index: int, deal_seed: int, setup: DealSetup, deal: Deal, update: MatchUpdate
    ) -> bytes:
        run_id, match_index, match_seed, strategies = self._ids
        record = deal_record(
            MatchKey(run_id, match_index, match_seed, tuple(strategies)),
            deal_index=deal_index,
            deal_seed=deal_seed,
            setup=setup,
            deal=deal,
            update=update,
        )
        return dumps_line(record)

    def line(
        self, deal_index: int, deal_seed: int, setup: DealSetup, deal: Deal, update: MatchUpdate
    ) -> bytes:
        """The JSON line (bytes, ending in a newline) of the finished ``deal``."""
        result = deal.result
        assert result is not None
        if not _plain_seats(deal.setup):
            return self._reference(deal_index, deal_seed, setup, deal, update)
        try:
            derived = _derived_json(deal)
            actions = _actions_json(deal)
        except _Fallback:
            return self._reference(deal_index, deal_seed, setup, deal, update)
        name = setup.rules.name
        if name is not self._ruleset:
            self._ruleset = name
            self._middle = f',"ruleset":{_dumps(name)},"strategies":{self._strategies},"level_team":'
        face = _FACE_IN.__getitem__
        hands = ",".join(['"' + " ".join(map(face, h)) + '"' for h in setup.hands])
        card = _FACE_JSON
        payments = ",".join([f'{{"from":{p},"to":{r},"card":{card[c]}}}' for p, r, c in deal.tributes])
        returns = ",".join([f'{{"from":{g},"to":{r},"card":{card[c]}}}' for g, r, c in deal.returns])
        level = _LEVEL_JSON
        return (
            f"{self._head}{_scalar(deal_index)},"
            f'"deal_seed":{_scalar(deal_seed)}{self._middle}{_scalar(setup.level_team)},'
            f'"level":{level[setup.level]},'
            f'"levels_before":[{",".join([level[x] for x in update.levels_before])}],'
            f'"levels_after":[{",".join([level[x] for x in update.levels_after])}],'
            f'"hands":[{hands}],'
            f'"tribute":{{"kind":{_string(deal.tribute_kind)},'
            f'"resisted_by":[{",".join(map(str, deal.resisted_by))}],'
            f'"payments":[{payments}],"returns":[{returns}]}},'
            f'"first_leader":{deal.leader},'
            f'"actions":[{actions}],'
            f'"finish_order":[{",".join(map(str, result.finish_order))}],'
            f'"double_down":{_scalar(result.double_down)},"upgrade":{_scalar(result.upgrade)},'
            f'"winner_team":{_scalar(result.winner_team)},"match_over":{_scalar(update.match_over)},'
            f'"match_winner":{_scalar(update.winner)},"capped":{_scalar(update.capped)},'
            f'"derived":{derived}}}\n'
        ).encode()


__all__ = ["DealLines"]
