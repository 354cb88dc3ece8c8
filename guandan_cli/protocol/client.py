"""``guandan connect``: one of our strategies plays a seat on a server speaking the platform protocol.

``SeatState`` rebuilds the seat's ``Observation`` from the message stream (its hand from
``handCards``, the public events from the ``notify`` messages, the trick's top from the
``act`` message) and maps the strategy's choice to an ``actIndex``: the listed entry equal
to it, else a listed entry with the same cards or the same type and rank (one warning
line), so only listed actions are ever chosen. ``run_client`` is the network loop.

Differences from a local seat: ``start_deal`` is called at the seat's first decision of a
deal (with the dealt hand and ``to_move`` -1); the strategy's ``rng`` comes from
``--seed`` and the match number, as the client does not know the server's seed.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable

from guandan_cli.engine.deal import PASS, PLAY, RETURN, TRIBUTE, Event
from guandan_cli.engine.legal import legal_plays
from guandan_cli.engine.observation import Observation
from guandan_cli.engine.seeding import derive_seed

from .translate import MoveError, card_face, from_move, level_of_token, to_move

STAGE_PHASE = {"play": PLAY, "tribute": TRIBUTE, "back": RETURN}


class ClientError(RuntimeError):
    """The server sent something this client cannot follow, or the strategy failed."""


class SeatState:
    """One seat's view of a series, rebuilt from the platform's messages."""

    def __init__(self, strategy_cls: type, seed: int = 0, say: Callable[[str], None] = print) -> None:
        self.strategy_cls = strategy_cls
        self.seed = seed
        self.say = say
        self.player = None
        self.new_match = True
        self.match_no = 0
        self.deal_index = -1
        self.seat = -1
        self.dealt: tuple[int, ...] = ()
        self.raw: list[tuple] = []
        self._combos: dict = {}  # parsed plays of this deal, by (type, rank, cards, level)
        self.resisted = False
        self.previous_order: list[int] | None = None
        self.level_team: int | None = None
        self.started = False
        self.result: dict | None = None
        self.games = 0
        self.warnings = 0

    def reconnected(self) -> None:
        """A new connection: the server starts the next match with ``beginning``."""
        self.new_match = True

    # ------------------------------------------------------------------ messages
    def handle(self, msg: dict) -> dict | None:
        """Take one server message; the reply to send (``{"actIndex": k}``) or ``None``."""
        if not isinstance(msg, dict):
            raise ClientError(f"server sent {msg!r}, not a JSON object")
        kind, stage = msg.get("type"), msg.get("stage")
        if kind == "act":
            return {"actIndex": self._act(msg)}
        if kind != "notify":
            raise ClientError(f"server sent a message of type {kind!r} (expected notify or act)")
        if stage == "beginning":
            self._beginning(msg)
        elif stage == "play":
            move = msg["curAction"]
            if move and move[0] == "PASS":
                self.raw.append(("pass", int(msg["curPos"])))
            else:
                self.raw.append(("play", int(msg["curPos"]), move))
        elif stage in ("tribute", "back"):
            kind_ = TRIBUTE if stage == "tribute" else RETURN
            for giver, to, card in msg["result"]:
                self.raw.append((kind_, int(giver), int(to), card_face(card)))
        elif stage == "anti-tribute":
            self.resisted = True
        elif stage == "episodeOver":
            self.previous_order = [int(s) for s in msg["order"]]
            self.level_team = self.previous_order[0] & 1
        elif stage == "gameOver":
            self.games += 1
            self.new_match = True
        elif stage == "gameResult":
            self.result = msg
        return None

    def _beginning(self, msg: dict) -> None:
        self.seat = int(msg["myPos"])
        if self.new_match:
            self.new_match = False
            self.match_no += 1
            rng = random.Random(derive_seed(self.seed, "connect", self.match_no))
            self.player = self.strategy_cls(self.seat, rng)
            self.deal_index = -1
            self.previous_order = None
            self.level_team = None
        self.deal_index += 1
        self.dealt = tuple(sorted(card_face(c) for c in msg["handCards"]))
        self.raw = []
        self._combos = {}
        self.resisted = False
        self.started = False

    # ------------------------------------------------------------------ rebuilding
    def _tribute_kind(self) -> str:
        order = self.previous_order
        if order is None:
            return "none"
        if self.resisted:
            return "resisted"
        return "double" if order[1] == order[0] ^ 2 else "single"

    def _public(self, level: int):
        """Events, card counts and finished seats from the notifications so far."""
        counts = [27, 27, 27, 27]
        events: list[Event] = []
        finished: list[int] = []
        top, owner, passes = None, -1, 0
        for entry in self.raw:
            if entry[0] in (TRIBUTE, RETURN):
                kind, giver, to, face = entry
                counts[giver] -= 1
                counts[to] += 1
                events.append(Event(kind, giver, card=face, to=to))
            elif entry[0] == "play":
                seat, move = entry[1], entry[2]
                key = (move[0], move[1], tuple(move[2]), level)
                combo = self._combos.get(key)
                if combo is None:
                    combo = self._combos[key] = from_move(move, level)
                events.append(Event(PLAY, seat, combo, lead=top is None))
                counts[seat] -= len(combo.cards)
                top, owner, passes = combo, seat, 0
                if counts[seat] == 0:
                    finished.append(seat)
            else:
                events.append(Event("pass", entry[1]))
                passes += 1
                needed = 4 - len(finished) - (0 if owner in finished else 1)
                if passes >= needed:
                    top, owner, passes = None, -1, 0
        return tuple(events), tuple(counts), tuple(finished)

    def _act(self, msg: dict) -> int:
        if self.player is None:
            raise ClientError("server asked for an action before any 'beginning' message")
        stage = msg.get("stage")
        phase = STAGE_PHASE.get(stage)
        if phase is None:
            raise ClientError(f"server asked to act in stage {stage!r} (expected play, tribute or back)")
        listed = msg["actionList"]
        level = level_of_token(msg["curRank"])
        team = self.seat & 1
        mine, theirs = level_of_token(msg["selfRank"]), level_of_token(msg["oppoRank"])
        levels = (mine, theirs) if team == 0 else (theirs, mine)
        hand = tuple(sorted(card_face(c) for c in msg["handCards"]))
        events, counts, finished = self._public(level)
        kind = self._tribute_kind()
        if not self.started:
            self.started = True
            start = Observation(
                self.seat, TRIBUTE if kind in ("single", "double") else PLAY, -1, self.dealt, level, levels,
                self.level_team, (), (27, 27, 27, 27), (), None, -1, (), kind,
            )  # fmt: skip
            self._call("start_deal", self.deal_index, start)
        top, top_owner, return_to = None, -1, -1
        if phase == PLAY:
            following = bool(listed) and listed[0][0] == "PASS"
            if following:
                top, top_owner = from_move(msg["greaterAction"], level), int(msg["greaterPos"])
            legal = tuple(self._listed_only(legal_plays(hand, level, top), listed, level))
            legal += (PASS,) if following else ()
        else:
            legal = tuple(sorted({card_face(m[2][0]) for m in listed}))
            if phase == RETURN:
                return_to = next((e.seat for e in events if e.kind == TRIBUTE and e.to == self.seat), -1)
        obs = Observation(
            self.seat, phase, self.seat, hand, level, levels, self.level_team, events, counts, finished,
            top, top_owner, legal, kind, return_to,
        )  # fmt: skip
        if phase == PLAY:
            choice = self._call("choose_play", obs)
            return self._index_of_play(choice, listed, level)
        choice = self._call("choose_tribute" if phase == TRIBUTE else "choose_return", obs)
        for i, move in enumerate(listed):
            if card_face(move[2][0]) == choice:
                return i
        self._warn(f"strategy chose card {choice!r}, which the server does not list; playing entry 0")
        return 0

    def _call(self, method: str, *args):
        try:
            return getattr(self.player, method)(*args)
        except Exception as exc:  # noqa: BLE001 - named in one line
            raise ClientError(
                f"strategy {self.strategy_cls.__name__} failed in {method}: {type(exc).__name__}: {exc}"
            ) from exc

    def _listed_only(self, plays: list, listed: list, level: int) -> list:
        """The engine's plays that the server lists; an unlisted one is replaced by a listed play
        of the same type, rank and size, or dropped (e.g. a wild straight flush under the
        platform's listing), so the strategy chooses among what the server accepts."""
        keys = {(m[0], m[1], tuple(sorted(m[2]))) for m in listed if m[0] != "PASS"}
        out = []
        for c in plays:
            m = to_move(c)
            if (m[0], m[1], tuple(sorted(m[2]))) in keys:
                out.append(c)
                continue
            for move in listed:
                if move[0] == m[0] and move[1] == m[1] and len(move[2]) == len(m[2]):
                    alt = from_move(move, level)
                    if alt not in out:
                        out.append(alt)
                    break
        return out

    def _index_of_play(self, choice, listed: list, level: int) -> int:
        wanted = to_move(choice)
        wanted[2] = sorted(wanted[2])
        for i, move in enumerate(listed):  # the cheap exact match first: same tokens, same cards
            if move[0] == wanted[0] and move[1] == wanted[1] and sorted(move[2]) == wanted[2]:
                return i
        parsed = []
        for i, move in enumerate(listed):
            try:
                parsed.append((i, from_move(move, level)))
            except MoveError:
                continue
        for i, combo in parsed:
            if combo == choice:
                return i
        for test in (
            lambda c: c[2] == choice[2],
            lambda c: (c[0], c[1], len(c[2])) == (choice[0], choice[1], len(choice[2])),
        ):
            for i, combo in parsed:
                if test(combo):
                    self._warn(f"the server does not list {choice}; playing the listed {combo} instead")
                    return i
        self._warn(f"the server does not list {choice} nor an equivalent; playing entry 0")
        return 0

    def _warn(self, text: str) -> None:
        self.warnings += 1
        self.say(f"warning: {text}")


async def run_client(
    url: str,
    strategy_cls: type,
    seed: int = 0,
    retry_for: float = 10.0,
    say: Callable[[str], None] = print,
) -> dict:
    """Play on the server at ``url`` until its ``gameResult``; that message.

    When the connection drops before the series ends it reconnects, for up to ``retry_for``
    seconds, then raises ``ClientError`` naming the server. A connection the server closes
    before sending anything (no free seat, a bad path) does not restart that clock.
    """
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

    state = SeatState(strategy_cls, seed, say)
    loop = asyncio.get_running_loop()
    deadline = None
    last_error = "no connection"
    while True:
        try:
            async with connect(url, ping_interval=None, max_size=2**22, open_timeout=5) as ws:
                state.reconnected()
                async for frame in ws:
                    deadline = None  # seated: a later drop gets the full retry_for again
                    try:
                        msg = json.loads(frame)
                    except ValueError:
                        raise ClientError(f"server sent a non-JSON frame {frame[:60]!r}") from None
                    try:
                        reply = state.handle(msg)
                    except (KeyError, TypeError, ValueError, IndexError) as exc:
                        if isinstance(exc, ClientError):
                            raise
                        raise ClientError(
                            f"cannot follow the server's {msg.get('type')}/{msg.get('stage')} message: {type(exc).__name__}: {exc}"
                        ) from None
                    if reply is not None:
                        await ws.send(json.dumps(reply))
                    if state.result is not None:
                        return state.result
                last_error = _closed(ws.close_code, ws.close_reason)
        except InvalidURI:
            raise ClientError(f"bad server address {url!r}: expected ws://HOST:PORT/game/NAME") from None
        except InvalidHandshake as exc:
            last_error = f"refused the connection ({exc})"
        except ConnectionClosed as exc:  # the server's close frame says why (a fault's words)
            last_error = _closed(exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else "closed the connection"
        except (TimeoutError, OSError) as exc:
            last_error = f"is unreachable ({getattr(exc, 'strerror', None) or exc or type(exc).__name__})"
        now = loop.time()
        if deadline is None:
            deadline = now + retry_for
            if retry_for > 0:
                say(f"server {last_error}; reconnecting for up to {retry_for:g} s")
        if now >= deadline:
            if state.player is not None:
                raise ClientError(
                    f"server at {url} went away before the series ended and did not come back "
                    f"within {retry_for:g} s (last try: the server {last_error})"
                )
            raise ClientError(f"server at {url} {last_error}")
        await asyncio.sleep(min(0.2, max(0.0, deadline - now)))


def _closed(code: int | None, reason: str | None) -> str:
    """How the server ended a connection, from its close frame.

    >>> _closed(1008, "sent actIndex 41, outside 0..40")
    'closed the connection (1008: sent actIndex 41, outside 0..40)'
    """
    return f"closed the connection ({code or 'no code'}{': ' + reason if reason else ''})"


__all__ = ["ClientError", "SeatState", "run_client"]
