"""`guandan serve` / `guandan connect` end to end on 127.0.0.1 and ephemeral ports."""

from __future__ import annotations

import asyncio
import glob
import json
import threading
from pathlib import Path

import pytest

pytest.importorskip(
    "websockets", reason="the protocol extra is not installed: pip install 'guandan[protocol]'"
)

from click.testing import CliRunner  # noqa: E402
from guandan_cli.strategies.registry import load_strategy  # noqa: E402

from guandan_cli.cli.app import app  # noqa: E402
from guandan_cli.protocol.client import run_client  # noqa: E402
from guandan_cli.protocol.server import SEATS_FILE, parse_seats, serve  # noqa: E402
from guandan_cli.runner.simulation import simulate  # noqa: E402
from tests.protocol_clients import MALFORMED, MISBEHAVIOURS, random_client  # noqa: E402

#: fields that name the seats' connections (and the run id derived from them)
CONNECTION_FIELDS = ("run_id", "strategies")


class Server:
    """``serve`` in a thread; ``url(name)`` once it listens."""

    def __init__(self, **kwargs) -> None:
        self.lines: list[str] = []
        self.port: int | None = None
        self.listening = threading.Event()
        self.result = None
        self.error: BaseException | None = None
        kwargs.setdefault("timeout", 10)
        kwargs.setdefault("reconnect_wait", 10)
        kwargs.setdefault("connect_wait", 20)
        self.kwargs = kwargs
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.listening.wait(10)

    def _run(self) -> None:
        try:
            self.result = serve(
                host="127.0.0.1", port=0, say=self.lines.append, on_listening=self._bound, **self.kwargs
            )
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc
            self.listening.set()

    def _bound(self, port: int) -> None:
        self.port = port
        self.listening.set()

    def url(self, name: str) -> str:
        return f"ws://127.0.0.1:{self.port}/game/{name}"

    def join(self):
        self.thread.join(60)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error
        return self.result


def _in_thread(coro_fn, *args, **kwargs) -> tuple[threading.Thread, dict]:
    box: dict = {}

    def run():
        try:
            box["result"] = asyncio.run(coro_fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, box


def _connect(server: Server, name: str, strategy: str = "heuristic"):
    # one at a time, so seats go in the order the test names them
    seated = len([line for line in server.lines if "connected" in line])
    t, box = _in_thread(
        run_client, server.url(name), load_strategy(strategy), retry_for=5, say=lambda s: None
    )
    for _ in range(200):
        if len([line for line in server.lines if "connected" in line]) > seated:
            break
        threading.Event().wait(0.02)
    return t, box


def _deals(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for p in sorted(glob.glob(str(run_dir / "deals-*.jsonl"))) for line in open(p)]
    return [{k: v for k, v in r.items() if k not in CONNECTION_FIELDS} for r in rows]


def _round_trip(
    tmp_path: Path, seats: str, local_equivalent: str, seed: int, ruleset: str = "cgr2022"
) -> None:
    server = Server(
        strategies=seats, matches=2, seed=seed, max_deals=3, out=tmp_path / "served", ruleset=ruleset
    )
    clients = [_connect(server, f"bot{i}") for i in range(parse_seats(seats).count("remote"))]
    result = server.join()
    for t, box in clients:
        t.join(20)
        assert "error" not in box, box
        assert box["result"]["stage"] == "gameResult"
    assert result.stopped is None and result.run.state == "complete"
    simulate(
        2,
        seed=seed,
        strategies=local_equivalent,
        ruleset=ruleset,
        max_deals=3,
        out=tmp_path / "sim",
        workers=1,
    )
    served, simulated = _deals(tmp_path / "served"), _deals(tmp_path / "sim")
    assert len(served) >= 2 and served == simulated
    # the run directory is an ordinary one
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "served")])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "served" / "manifest.json").read_text())
    names = [manifest["strategies"][str(s)] for s in range(4)]
    assert [n.rsplit(":", 1)[-1] for n in names if "remote" in n] == [f"bot{i}" for i in range(len(clients))]
    times = [json.loads(line) for line in open(tmp_path / "served" / SEATS_FILE)]
    assert [t["match_index"] for t in times] == [0, 1]
    assert all(t["timeout"] == 10 and t["error"] is None for t in times)
    assert all(s["decisions"] > 0 and s["seconds"] >= 0 for t in times for s in t["seats"])


def test_four_remote_heuristic_clients_give_the_deals_of_simulate(tmp_path):
    _round_trip(tmp_path, "remote", "heuristic", seed=1)  # seed 1: deal 2 has its tribute resisted


def test_mixed_local_and_remote_seats_give_the_deals_of_simulate(tmp_path):
    _round_trip(tmp_path, "greedy,remote,greedy,remote", "greedy,heuristic", seed=8, ruleset="jiangsu2017")


def test_reference_client_plays_full_matches(tmp_path):
    server = Server(strategies="heuristic,remote", matches=2, seed=3, max_deals=4, out=tmp_path / "run")
    logs: list[list] = [[], []]
    threads = []
    for i in range(2):
        seated = len(server.lines)
        threads.append(_in_thread(random_client, server.url(f"ref{i}"), seed=i, log=logs[i]))
        while len(server.lines) == seated:
            threading.Event().wait(0.02)
    result = server.join()
    for t, box in threads:
        t.join(20)
        assert box.get("result", {}).get("stage") == "gameResult", box
    assert result.run.state == "complete" and result.run.counts["errors"] == 0
    for log in logs:
        stages = [(kind, stage) for kind, stage, _m in log]
        assert stages[0] == ("notify", "beginning")
        assert stages[-2:] == [("notify", "gameOver"), ("notify", "gameResult")]
        assert stages.count(("notify", "gameOver")) == 2
        assert ("notify", "episodeOver") in stages and ("act", "play") in stages
        fields = {
            ("notify", "beginning"): {"handCards", "myPos"},
            ("notify", "episodeOver"): {"order", "curRank", "restCards"},
            ("notify", "gameOver"): {"curTimes", "settingTimes"},
            ("notify", "gameResult"): {"victoryNum", "draws"},
            ("notify", "tribute"): {"result"},
            ("notify", "back"): {"result"},
        }
        act_fields = {"handCards", "publicInfo", "selfRank", "oppoRank", "curRank", "curPos", "curAction"}
        act_fields |= {"greaterPos", "greaterAction", "actionList", "indexRange"}
        for kind, stage, msg in log:
            expected = act_fields if kind == "act" else fields.get((kind, stage))
            if expected is not None:
                assert set(msg) == expected | {"type", "stage"}, msg
            if kind == "act":
                assert [set(p) for p in msg["publicInfo"]] == [{"rest", "playArea"}] * 4
        for _k, stage, msg in log:
            if stage == "play" and msg["type"] == "notify":
                assert set(msg) == {"type", "stage", "curPos", "curAction", "greaterPos", "greaterAction"}
            if msg["type"] == "act" and msg["curPos"] == -1 and msg["stage"] == "play":
                assert ["PASS", "PASS", "PASS"] not in msg["actionList"]
            elif msg["type"] == "act" and msg["stage"] == "play":
                assert msg["actionList"][0] == ["PASS", "PASS", "PASS"]


#: what the fault line says, and the close code the server ends the connection with
FAULTS = {
    "bad_index": ("sent actIndex", 1008),
    "non_json": ("sent a non-JSON frame 'this is not JSON'", 1008),
    "unasked": ("when no action was asked", 1008),
    "timeout": ("gave no answer within 1 s", 1008),
    "disconnect": ("disconnected while asked to act", None),  # the client closed it
    # issue 26: a RecursionError, a binary frame and an over-size frame were not faults
    "deep": ("sent JSON nested too deeply to read (60014 characters", 1008),
    "binary": ("sent a binary frame (15 bytes): the protocol's frames are JSON text", 1003),
    "oversize": ("over the 65536-byte limit", 1009),
    "wrong_shape": ("without an integer actIndex", 1008),
}


@pytest.mark.parametrize("misbehaviour", MISBEHAVIOURS + MALFORMED)
def test_a_misbehaving_client_errors_one_match_and_the_run_goes_on(tmp_path, misbehaviour):
    server = Server(
        strategies="heuristic,remote", matches=2, seed=4, max_deals=2, out=tmp_path / "run", timeout=1
    )
    seated = len(server.lines)
    log: list = []
    bad = _in_thread(random_client, server.url("bad"), misbehave=misbehaviour, log=log)
    while len(server.lines) == seated:
        threading.Event().wait(0.02)
    good = _in_thread(random_client, server.url("good"), seed=1)
    result = server.join()
    for t, _box in (bad, good):
        t.join(20)
    assert result.run.state == "complete"
    errors = [line for line in server.lines if "recorded as errored" in line]
    assert len(errors) == 1 and errors[0].startswith("match 0: seat 1 (bad) "), server.lines
    expected, code = FAULTS[misbehaviour]
    assert expected in errors[0]
    # one numbering (0-based, as replay and the logs count) in every line
    done = [line for line in server.lines if " done (" in line]
    assert done == [
        line for line in done if line.startswith(("match 0 done (1 of 2", "match 1 done (2 of 2"))
    ]
    assert len(done) == 2 and "errored" in done[0] and "errored" not in done[1]
    closes = [entry for entry in log if entry[0] == "closed"]
    if code is not None:  # the server ended the connection, with a code that says why
        assert closes and closes[0][1] == code, log[-3:]
        reason = closes[0][2]["reason"]
        # the fault's words (websockets' own for 1009: it closes before the server reads)
        assert reason and (reason[:20] in errors[0] or code == 1009 and "65536" in reason), closes[0]
    assert log[-1][1] == "gameResult"  # it came back and played match 1
    matches = [
        json.loads(line)
        for p in sorted(glob.glob(str(tmp_path / "run" / "matches-*.jsonl")))
        for line in open(p)
    ]
    assert [m["error"] is not None for m in matches] == [True, False]
    assert "seat 1 (bad)" in matches[0]["error"]
    seats = [json.loads(line) for line in (tmp_path / "run" / SEATS_FILE).read_text().splitlines()]
    assert [s["match_index"] for s in seats] == [0, 1]
    assert seats[0]["error"] == errors[0].removeprefix("match 0: ").split("; the match")[0]
    assert seats[1]["error"] is None
    res = CliRunner().invoke(app, ["verify", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output


def test_nobody_reconnects_the_run_stops_resumable_and_resumes(tmp_path):
    out = tmp_path / "run"
    server = Server(
        strategies="heuristic,remote", matches=3, seed=6, max_deals=2, out=out, reconnect_wait=0.5
    )
    seated = len(server.lines)
    bad = _in_thread(random_client, server.url("bad"), misbehave="bad_index", come_back=False)
    while len(server.lines) == seated:
        threading.Event().wait(0.02)
    good = _in_thread(random_client, server.url("good"), seed=1, retry_for=1)
    result = server.join()
    bad[0].join(20)
    assert result.stopped is not None and "seat 1 (bad) did not reconnect" in result.stopped
    assert result.run.state == "interrupted" and result.run.counts["matches"] == 1
    assert result.run.counts["errors"] == 1
    good[0].join(20)
    # the same clients, in the same order, resume the run
    server = Server(strategies="heuristic,remote", matches=3, seed=6, max_deals=2, out=out)
    seated = len(server.lines)
    again = [_in_thread(random_client, server.url("bad"), seed=2)]
    while len(server.lines) == seated:
        threading.Event().wait(0.02)
    again.append(_in_thread(random_client, server.url("good"), seed=3))
    result = server.join()
    for t, box in again:
        t.join(20)
        assert box.get("result", {}).get("stage") == "gameResult", box
    assert result.stopped is None and result.run.state == "complete"
    assert result.run.counts["matches"] == 3 and result.run.counts["errors"] == 1


def test_a_client_that_stops_answering_is_dropped_after_the_timeout(tmp_path):
    """A hung client (connected, silent, never closing its end) must not hang serve: after
    --timeout the match is errored and the server closes the connection, which is what lets
    the client come back for the next match. A tiny timeout keeps it fast."""
    out = tmp_path / "run"
    server = Server(strategies="heuristic,remote", matches=2, seed=4, max_deals=2, out=out, timeout=0.3)
    seated = len(server.lines)
    log: list = []
    hung = _in_thread(random_client, server.url("hung"), misbehave="silent", log=log)
    while len(server.lines) == seated:
        threading.Event().wait(0.02)
    good = _in_thread(random_client, server.url("good"), seed=1)
    result = server.join()
    for t, _box in (hung, good):
        t.join(20)
        assert not t.is_alive()
    errors = [line for line in server.lines if "recorded as errored" in line]
    assert errors == ["match 0: seat 1 (hung) gave no answer within 0.3 s; the match is recorded as errored"]
    closed = [m[0] for m in log].index("closed")  # the server ended the connection, not the client
    assert log[closed - 1][0] == "act"  # it was asked, and said nothing
    assert log[-1][1] == "gameResult"  # back, it played match 1 to the end
    assert result.stopped is None and result.run.state == "complete"
    assert result.run.counts["matches"] == 2 and result.run.counts["errors"] == 1
    seats = [json.loads(line) for line in (out / SEATS_FILE).read_text().splitlines()]
    assert seats[0]["timeout"] == 0.3 and "gave no answer" in seats[0]["error"] and seats[1]["error"] is None


def test_connect_stops_with_one_line_when_the_server_goes_away(tmp_path):
    from websockets.asyncio.server import serve as ws_serve

    from guandan_cli.protocol.client import ClientError

    async def scenario():
        async def handler(ws):
            await ws.send(
                json.dumps({"type": "notify", "stage": "beginning", "handCards": ["S3"], "myPos": 0})
            )
            await ws.close()

        server = await ws_serve(handler, "127.0.0.1", 0)
        port = next(iter(server.sockets)).getsockname()[1]
        task = asyncio.ensure_future(
            run_client(
                f"ws://127.0.0.1:{port}/game/me", load_strategy("random"), retry_for=0.5, say=said.append
            )
        )
        await asyncio.sleep(0.2)
        server.close()
        await server.wait_closed()
        with pytest.raises(ClientError, match=f"server at ws://127.0.0.1:{port}/game/me"):
            await task

    said: list[str] = []
    asyncio.run(scenario())
    assert any("reconnecting" in line for line in said)


def test_connect_says_in_one_line_why_the_server_closed_it():
    """The fault's words come in the server's close frame: connect shows code and reason once
    (it showed websockets' "received 1008 (policy violation) ...; then sent 1008 ..." twice)."""
    from websockets.asyncio.server import serve as ws_serve

    from guandan_cli.protocol.client import ClientError

    async def scenario():
        async def handler(ws):
            await ws.close(1008, "gave no answer within 1 s")

        async with ws_serve(handler, "127.0.0.1", 0) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            url = f"ws://127.0.0.1:{port}/game/me"
            with pytest.raises(ClientError) as caught:
                await run_client(url, load_strategy("random"), retry_for=0.3, say=said.append)
        return url, str(caught.value)

    said: list[str] = []
    url, error = asyncio.run(scenario())
    assert said == [
        "server closed the connection (1008: gave no answer within 1 s); reconnecting for up to 0.3 s"
    ]
    assert error == f"server at {url} closed the connection (1008: gave no answer within 1 s)"


def test_a_play_the_server_does_not_list_maps_to_the_same_cards():
    from guandan_cli.engine.cards import parse_cards
    from guandan_cli.engine.combos import Combo
    from guandan_cli.protocol.client import SeatState
    from guandan_cli.protocol.translate import action_list, to_move

    said: list[str] = []
    state = SeatState(load_strategy("random"), say=said.append)
    hand = parse_cards("S3 S4 S5 S6 H2")
    listed = [to_move(c) for c in action_list(hand, 0, None, wild_straight_flush=False)]
    wild_sf = Combo.from_text("straight_flush:7 S3 S4 S5 S6 H2")
    i = state._index_of_play(wild_sf, listed, 0)
    assert listed[i][0] == "Straight" and sorted(listed[i][2]) == sorted(to_move(wild_sf)[2])
    assert len(said) == 1 and "does not list" in said[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["serve", "-s", "heuristic,bogus"], "unknown strategy 'bogus'"),
        (["serve", "-s", "heuristic"], "no seat is 'remote'"),
        (["serve", "--ruleset", "nope"], "unknown ruleset 'nope'"),
        (["serve", "--matches", "0"], "--matches must be positive"),
        (["serve", "--listing", "x"], "unknown --listing"),
        (["connect", "http://example"], "bad server address"),
        # refused up front (it was taken, then reported as an unreachable server)
        (["connect", "ws://127.0.0.1:1/notgame"], "bad server address 'ws://127.0.0.1:1/notgame': the path"),
        (["connect", "ws://127.0.0.1:1/game/"], "the path must be /game/NAME (not '/game/')"),
        (["connect", "ws://127.0.0.1:1/game/a/b"], "the path must be /game/NAME (not '/game/a/b')"),
        (["connect", "ws://127.0.0.1:1"], "the path must be /game/NAME (none given)"),
        (["connect", "ws://127.0.0.1:1/game/x", "-s", "nope"], "unknown strategy 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("guandan: error: ") and message in lines[0]


def test_the_connect_command_round_trip(tmp_path):
    import subprocess
    import sys

    server = Server(strategies="heuristic,remote", matches=1, seed=12, max_deals=2, out=tmp_path / "served")
    procs = []
    for name in ("alice", "bob"):
        seated = len(server.lines)
        cmd = [
            sys.executable,
            "-c",
            "from guandan_cli.cli.app import main; main()",
            "connect",
            server.url(name),
        ]
        procs.append(subprocess.Popen([*cmd, "--strategy", "heuristic"], stdout=subprocess.PIPE, text=True))
        for _ in range(500):
            if len(server.lines) > seated:
                break
            threading.Event().wait(0.02)
    result = server.join()
    outputs = [p.communicate(timeout=30)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert all("series over" in out for out in outputs)
    assert result.run.state == "complete"
    simulate(1, seed=12, strategies="heuristic", max_deals=2, out=tmp_path / "sim", workers=1)
    assert _deals(tmp_path / "served") == _deals(tmp_path / "sim")
    manifest = json.loads((tmp_path / "served" / "manifest.json").read_text())
    assert manifest["strategies"]["1"].endswith(":alice") and manifest["strategies"]["3"].endswith(":bob")


def test_serve_refuses_a_complete_run_before_listening(tmp_path):
    simulate(1, seed=1, strategies="random", max_deals=1, out=tmp_path / "done", workers=1)
    res = CliRunner().invoke(
        app, ["serve", "-s", "heuristic,remote", "-o", str(tmp_path / "done"), "--port", "0"]
    )
    assert res.exit_code == 2 and "holds a complete run" in res.output
    assert "listening" not in res.output


def test_the_strategy_is_offered_only_what_the_server_lists():
    from guandan_cli.engine.cards import parse_cards
    from guandan_cli.engine.legal import legal_plays
    from guandan_cli.protocol.client import SeatState
    from guandan_cli.protocol.translate import action_list, completed_by_wild, to_move

    state = SeatState(load_strategy("random"))
    hand = parse_cards("S3 S4 S5 S6 H2 D9 D9")
    ours = legal_plays(hand, 0)
    assert any(completed_by_wild(c, 0) for c in ours)
    listed = [to_move(c) for c in action_list(hand, 0, None, wild_straight_flush=False)]
    offered = state._listed_only(ours, listed, 0)
    assert not any(completed_by_wild(c, 0) for c in offered)
    assert all(to_move(c) in listed for c in offered)
    full = [to_move(c) for c in action_list(hand, 0, None)]
    assert state._listed_only(ours, full, 0) == list(ours)


def test_connect_rebuilds_exactly_the_observation_a_local_seat_gets(tmp_path):
    from tests import protocol_clients as pc

    names = [f"RecordingHeuristic{x}" for x in "ABCD"]
    pc._Recording.seen = {}
    simulate(
        1, seed=1, strategies=[getattr(pc, n) for n in names], max_deals=3, out=tmp_path / "sim", workers=1
    )
    local = pc._Recording.seen
    pc._Recording.seen = {}
    server = Server(strategies="remote", matches=1, seed=1, max_deals=3, out=tmp_path / "served")
    clients = []
    for n in names:
        seated = len(server.lines)
        clients.append(_in_thread(run_client, server.url(n), getattr(pc, n), retry_for=5, say=lambda s: None))
        while len(server.lines) == seated:
            threading.Event().wait(0.02)
    server.join()
    for t, _box in clients:
        t.join(20)
    remote = pc._Recording.seen
    for n in names:
        assert len(local[n]) > 20
        assert (
            remote[n] == local[n]
        )  # every decision: hand, events, counts, top, legal actions, tribute kind…
    assert {o.phase for n in names for o in local[n]} == {"play", "tribute", "return"}
    # seed 1: deal 1 has a tribute, deal 2 a resisted one (the anti-tribute message)
    assert {o.tribute_kind for n in names for o in local[n]} >= {"none", "resisted"}


def test_a_remote_seat_has_one_name_in_the_summary_the_tables_and_the_page(tmp_path):
    """Issue 30: a remote seat was ``guandan_cli.protocol.remote:alice`` in analyze's tables
    (pushing columns into "hidden") but ``remote:alice`` in serve's summary."""
    out = tmp_path / "served"
    server = Server(strategies="heuristic,remote", matches=1, seed=3, max_deals=2, out=out)
    clients = [_connect(server, "alice"), _connect(server, "bob")]
    result = server.join()
    for t, _box in clients:
        t.join(20)
    stored = json.loads((out / "manifest.json").read_text())["config"]["strategies"]
    assert stored[1] == "guandan_cli.protocol.remote:alice"  # the run keeps the spec itself
    summary = result.run.summary()
    assert "(seats 1,3: remote:alice,remote:bob)" in summary
    res = CliRunner().invoke(app, ["analyze", str(out), "-r", "strategy-deals,double-down"])
    assert res.exit_code == 0, res.output
    assert "guandan_cli.protocol" not in res.stdout and "hidden:" not in res.stdout
    assert "remote:alice" in res.stdout and "remote:alice+remote:bob" in res.stdout
    page = tmp_path / "r.html"
    res = CliRunner().invoke(
        app, ["analyze", str(out), "-r", "strategy-deals", "--html", str(page), "-f", "csv"]
    )
    assert res.exit_code == 0, res.output
    text = page.read_text(encoding="utf-8").replace("<wbr>", "")
    assert "guandan_cli.protocol" not in text and "heuristic, remote:alice, heuristic, remote:bob" in text
    csv = CliRunner().invoke(app, ["analyze", str(out), "-r", "strategy-deals", "-f", "csv"])
    assert "guandan_cli.protocol.remote:alice" in csv.stdout  # machine formats keep the specs


def _wait_for(server: Server, text: str, seconds: float = 10) -> str:
    """The first line of ``server`` containing ``text``, waiting up to ``seconds``."""
    for _ in range(int(seconds / 0.02)):
        found = [line for line in server.lines if text in line]
        if found:
            return found[0]
        threading.Event().wait(0.02)
    raise AssertionError(f"no line with {text!r} in {seconds:g} s: {server.lines}")


async def _early_client(url: str, what: str) -> tuple:
    """Connect, then before the series starts: leave, or send a frame; how the connection ended."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    frames = {"text": '{"actIndex": 0}', "binary": b"hello", "oversize": "x" * 70000}
    async with connect(url, ping_interval=None, compression=None) as ws:
        if what == "leave":
            return ("left",)
        await ws.send(frames[what])
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except ConnectionClosed as exc:
            return ("closed", exc.rcvd.code if exc.rcvd else None)
    return ("open",)


@pytest.mark.parametrize(
    "what, line, code",
    [
        ("leave", "seat 1: early left before the series started; the seat is free again", None),
        ("text", "seat 1: early sent '{\"actIndex\": 0}' before the series started: disconnected", 1008),
        ("binary", "seat 1: early sent a binary frame (5 bytes)", 1003),
        ("oversize", "seat 1: early sent a frame of 70000 bytes, over the 65536-byte limit before", 1009),
    ],
)
def test_a_client_gone_before_the_series_starts_frees_its_seat(tmp_path, what, line, code):
    """Issue 26: a client that left before the series started kept its seat forever (later
    clients got 1013 "no free seat" and the server waited for ever); a frame sent before
    anything was asked is refused at once (one line, a close code) and frees the seat too."""
    out = tmp_path / "run"
    server = Server(strategies="heuristic,remote", matches=1, seed=5, max_deals=1, out=out)
    t, box = _in_thread(_early_client, server.url("early"), what)
    t.join(10)
    assert box.get("result") == (("left",) if code is None else ("closed", code)), box
    said = _wait_for(server, "the seat is free again")
    assert said.startswith(line) and said.endswith("the seat is free again"), said
    clients = [_connect(server, "alice"), _connect(server, "bob")]
    result = server.join()
    for t, box in clients:
        t.join(20)
        assert box.get("result", {}).get("stage") == "gameResult", box
    assert result.run.state == "complete" and result.names == {1: "alice", 3: "bob"}
    assert [x for x in server.lines if "connected" in x and "early" not in x] == [
        "seat 1: alice connected",
        "seat 3: bob connected",
    ]


def test_frames_nobody_reads_wait_in_the_transport_not_in_memory(tmp_path):
    """Issue 26: frames a client sent while nothing read them piled up in the server (100 x
    4 MB: 42 -> 451 MB). Seat 3 floods while the server waits on seat 1, which never answers:
    at most one frame waits in the seat's inbox, the transport stops taking more (its
    sends block), and the flood is the fault reported when the seat is next sent to."""
    from websockets.asyncio.client import connect

    from guandan_cli.protocol import remote

    server = Server(strategies="heuristic,remote", matches=1, seed=0, out=tmp_path / "run", timeout=3)
    state: dict = {}

    async def silent():
        async with connect(server.url("silent"), ping_interval=None) as ws:
            async for _frame in ws:
                pass

    async def flood():
        async with connect(server.url("flood"), ping_interval=None, compression=None) as ws:
            while True:  # play until seat 0 has played: the server then waits on seat 1
                msg = json.loads(await ws.recv())
                if msg["type"] == "act":
                    await ws.send(json.dumps({"actIndex": 0}))
                elif msg["stage"] == "play" and msg["curPos"] == 0:
                    break
            frame, sent = "x" * 60000, 0
            try:
                for _ in range(2000):  # 120 MB if nothing held it back
                    await asyncio.wait_for(ws.send(frame), 1.0)
                    sent += 1
            except TimeoutError:
                state["blocked"] = True
            state["sent"] = sent
            state["unread"] = remote.HUB.conns[3].inbox.qsize()
            await asyncio.sleep(3)  # the timeout on seat 1 ends the match

    async def scenario():
        quiet = asyncio.ensure_future(silent())
        await asyncio.sleep(0.3)
        await flood()
        quiet.cancel()

    asyncio.run(scenario())
    result = server.join()
    assert state["blocked"] and state["unread"] == 1, state
    # what got out is what the kernel's socket buffers hold (tcp_rmem + tcp_wmem, at most
    # 36 MiB here), not the 2000 frames an unbounded server takes in
    assert state["sent"] < 700, state
    assert result.run.counts["errors"] == 1
    assert [x for x in server.lines if "errored" in x][0].startswith(
        "match 0: seat 1 (silent) gave no answer"
    )
