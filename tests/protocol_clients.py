"""Reference competition clients written from the protocol description alone (docs/protocol.md):
raw JSON over a WebSocket, no guandan imports. ``random_client`` answers every ``act`` with a
random listed index; ``misbehave`` makes it break the protocol once, in one of the ways a
server must survive (or ``"silent"``: stop answering, connection open, until the server
closes it), then (if ``come_back``) reconnect and play properly."""

from __future__ import annotations

import asyncio
import json
import random

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

MISBEHAVIOURS = ("bad_index", "non_json", "unasked", "timeout", "disconnect")
#: malformed answers (issue 26): JSON nested past Python's recursion limit (60 kB, under the
#: server's 64 KiB frame limit), a binary frame, a frame over the limit, a JSON list
MALFORMED = ("deep", "binary", "oversize", "wrong_shape")
DEEP_ANSWER = '{"actIndex": ' + "[" * 30000 + "]" * 30000 + "}"


async def random_client(
    url: str,
    seed: int = 0,
    misbehave: str | None = None,
    come_back: bool = True,
    log: list | None = None,
    retry_for: float = 20.0,
) -> dict | None:
    """Play until ``gameResult`` (returned); ``log`` gets (type, stage, message) of every
    message, and ``("closed", code, {"reason": ...})`` when a connection ends before it."""
    rng = random.Random(seed)
    log = log if log is not None else []
    pending = misbehave
    deadline = asyncio.get_running_loop().time() + retry_for
    while asyncio.get_running_loop().time() < deadline:
        try:
            async with connect(url, ping_interval=None, max_size=2**22) as ws:
                async for frame in ws:
                    msg = json.loads(frame)
                    log.append((msg["type"], msg["stage"], msg))
                    if msg["type"] == "notify" and msg["stage"] == "gameResult":
                        return msg
                    if msg["type"] != "act":
                        continue
                    assert msg["indexRange"] == len(msg["actionList"]) - 1
                    if pending == "bad_index":
                        pending = None
                        await ws.send(json.dumps({"actIndex": msg["indexRange"] + 1}))
                    elif pending == "unasked":
                        # a valid answer, then at once a second one: the seat cannot be asked
                        # again before three other seats have acted, so this one answers nothing
                        pending = None
                        await ws.send(json.dumps({"actIndex": 0}))
                        await ws.send(json.dumps({"actIndex": 0}))
                    elif pending == "non_json":
                        pending = None
                        await ws.send("this is not JSON")
                    elif pending in MALFORMED:
                        bad = {
                            "deep": DEEP_ANSWER,
                            "binary": json.dumps({"actIndex": 0}).encode(),
                            "oversize": json.dumps({"actIndex": 0, "pad": "x" * 70000}),
                            "wrong_shape": json.dumps([{"actIndex": 0}]),
                        }[pending]
                        pending = None
                        await ws.send(bad)
                    elif pending == "timeout":
                        pending = None
                        await asyncio.sleep(1.5)  # the tests give the server a 1 s timeout
                        await ws.send(json.dumps({"actIndex": 0}))  # too late
                    elif pending == "silent":
                        # hung: never answers, never closes its end; only the server can end this
                        pending = None
                        await ws.wait_closed()
                        log.append(("closed", "by the server", {}))
                        break
                    elif pending == "disconnect":
                        pending = None
                        await ws.close()
                        break
                    else:
                        await ws.send(json.dumps({"actIndex": rng.randint(0, msg["indexRange"])}))
            log.append(("closed", ws.close_code, {"reason": ws.close_reason}))
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
            log.append(("closed", code, {"reason": exc.rcvd.reason if exc.rcvd else ""}))
        except OSError:
            pass
        if not come_back and misbehave is not None and pending is None:
            return None
        await asyncio.sleep(0.1)
    return None


class _Recording:
    """Mixin: record every decision's observation per seat (class-level, in this process)."""

    seen: dict = {}

    def choose_play(self, obs):
        self.seen.setdefault(type(self).__name__, []).append(obs)
        return super().choose_play(obs)

    def choose_tribute(self, obs):
        self.seen.setdefault(type(self).__name__, []).append(obs)
        return super().choose_tribute(obs)

    def choose_return(self, obs):
        self.seen.setdefault(type(self).__name__, []).append(obs)
        return super().choose_return(obs)


def _recording(name: str):
    from guandan_cli.strategies.heuristic import HeuristicStrategy

    return type(name, (_Recording, HeuristicStrategy), {})


#: the same bot under two names, so each seat's record is its own
RecordingHeuristicA = _recording("RecordingHeuristicA")
RecordingHeuristicB = _recording("RecordingHeuristicB")
RecordingHeuristicC = _recording("RecordingHeuristicC")
RecordingHeuristicD = _recording("RecordingHeuristicD")
