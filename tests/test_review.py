"""`guandan review`: decisions valued from the deciding seat's view, mistakes flagged, the replay page.

The values come from the search's ``evaluate`` (issue 27); the tests check what review does with them: which decisions, which seat's view, the paired loss,
the same output whatever --workers, an obvious blunder flagged, the page against the log.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from guandan_cli.strategies.search import ActionValue

import guandan_cli
from guandan_cli.cli.app import app
from guandan_cli.engine import deal_hands
from guandan_cli.engine.cards import FACE_NAMES, format_cards
from guandan_cli.engine.deal import PLAY, Deal, DealSetup
from guandan_cli.logs.records import parse_action
from guandan_cli.review import MISTAKE_THRESHOLD, review
from guandan_cli.review.core import review_decision
from guandan_cli.review.evaluators import evaluator_maker
from guandan_cli.review.walk import LoggedDeal, decisions, load_deal, table_states

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from blunderer import bomb_breaking_single  # noqa: E402

runner = CliRunner()
REQUIRED = {"match", "deal", "seat", "index", "played", "played_value", "best", "best_value"}
REQUIRED |= {"loss", "loss_low", "loss_high", "mistake"}
#: a run where seat 0 (the blunderer) beats its partner's single K with an ace from its bomb of
#: aces while the partner holds one card (found by scanning seeds; the test checks it happens)
BLUNDER = {"seed": 184, "match": 3, "deal": 2, "seat": 0, "index": 54}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "run"
    guandan_cli.simulate(
        2, seed=11, strategies="greedy,random", max_deals=2, workers=1, out=out, progress=False
    )
    return out


@pytest.fixture(scope="module")
def blunder_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("blunder") / "run"
    guandan_cli.simulate(
        4,
        seed=BLUNDER["seed"],
        strategies=f"{DATA / 'blunderer.py'}:Blunderer,heuristic",
        max_deals=3,
        workers=1,
        out=out,
        progress=False,
    )
    return out


def _json_rows(output: str) -> list[dict]:
    """The decision records of ``review -f json`` (the summary objects left out)."""
    rows = [json.loads(line) for line in output.splitlines() if line.strip()]
    return [row for row in rows if "summary" not in row]


def _json_summaries(output: str) -> list[dict]:
    rows = [json.loads(line) for line in output.splitlines() if line.strip()]
    return [row["summary"] for row in rows if "summary" in row]


def _record(run: Path, match: int, deal: int) -> dict:
    for f in sorted(run.glob("deals-*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec["match"] == match and rec["deal"] == deal:
                return rec
    raise AssertionError(f"no match {match} deal {deal} in {run}")


# ------------------------------------------------------------------ the decisions and their values


def test_json_rows_are_the_chosen_seats_decisions_with_a_choice(run_dir):
    res = runner.invoke(
        app,
        ["review", str(run_dir), "--deal", "1", "--seat", "1", "--seat", "2", "-f", "json", "--worlds", "3"],
    )
    assert res.exit_code == 0, res.output
    rows = _json_rows(res.stdout)
    rec = _record(run_dir, 0, 1)
    logged = load_deal(run_dir, 0, 1)
    expected = [(d.index, d.seat) for d in decisions(logged, [1, 2])]
    assert [(r["index"], r["seat"]) for r in rows] == expected and expected
    for r in rows:
        assert REQUIRED <= set(r)
        seat, action = parse_action(rec["actions"][r["index"]], r["index"])
        assert seat == r["seat"] and r["played"] == rec["actions"][r["index"]].split(" ", 1)[1]
        alts = {a["action"]: a for a in r["alternatives"]}
        assert r["played"] in alts and alts[r["played"]]["mean"] == r["played_value"]
        assert r["alternatives"][0]["action"] == r["best"]
        if alts[r["best"]]["n"] == alts[r["played"]]["n"]:  # (else the loss is over the best's worlds only)
            assert r["loss"] == pytest.approx(r["best_value"] - r["played_value"])
        # the labels: a mistake when an alternative's loss interval lies at or above the
        # threshold, unclear while one that looks better still holds it, else ok
        t = MISTAKE_THRESHOLD
        others = [x for x in r["alternatives"] if x["action"] != r["played"]]
        holds = [x for x in others if x["loss_low"] < t <= x["loss_high"]]
        if any(x["loss_low"] >= t for x in others):
            assert r["label"] == "mistake" and r["mistake"]
        else:  # unclear: one that looked better holds the threshold; ok: none that looks better does
            assert r["label"] in ("ok", "unclear") and not r["mistake"] and (r["label"] == "ok" or holds)
            assert r["label"] == "unclear" or not [x for x in holds if x["loss"] > 0]
        assert r["loss"] >= 0
        if r["best"] != r["played"]:
            assert r["loss"] == alts[r["best"]]["loss"] and r["loss_worlds"] == alts[r["best"]]["n"]
            # the next plays after each, in one world: up to six, the first another seat's
            for then in (r["then_played"], r["then_best"]):
                assert len(then) <= 6 and all(0 <= x["seat"] <= 3 for x in then)
                assert not then or then[0]["seat"] != r["seat"]
        else:
            assert r["then_played"] == r["then_best"] == []
        # two seats left: the race solved, exact values (one world); else 3 worlds, more (up to 16
        # times as many) for the play made and the alternatives of a close call
        most = alts[r["played"]]["n"]
        for x in r["alternatives"]:
            assert x["exact"] == r["exact"] and (x["n"] == 1 if r["exact"] else 3 <= x["n"] <= most <= 48)
            assert x["low"] <= x["mean"] <= x["high"] or r["exact"]
            assert (
                0 <= x["double_for"] <= x["first_out"] <= 1 and 0 <= x["double_against"] <= 1 - x["first_out"]
            )
    assert any(r["exact"] for r in rows) and not all(r["exact"] for r in rows)


def test_every_decision_of_a_seat_with_a_choice_and_no_other(run_dir):
    logged = load_deal(run_dir, 1, 0)
    deal = Deal(logged.setup)
    expected = []
    for i, (seat, action) in enumerate(logged.actions):
        if deal.phase == PLAY and seat == 3 and len(deal.legal_actions()) > 1:
            expected.append(i - logged.first_play)
        deal.apply(action)
    assert [d.index for d in decisions(logged, [3])] == expected and expected


def test_values_depend_on_the_seats_view_only():
    """Two deals in which seat 0 holds the same cards and the others' hands differ: the review
    of seat 0's first decision (a lead, nothing played yet) is the same."""
    hands = list(deal_hands(random.Random(5)))
    others = [f for s in (1, 2, 3) for f in hands[s]]
    random.Random(9).shuffle(others)
    shuffled = [
        hands[0],
        tuple(sorted(others[:27])),
        tuple(sorted(others[27:54])),
        tuple(sorted(others[54:])),
    ]
    maker, _ = evaluator_maker()
    reviews = []
    for hs in (hands, shuffled):
        logged = LoggedDeal.played(
            DealSetup(hands=tuple(hs), level=0, first_leader=0), ["heuristic"] * 4, seed=1
        )
        first = next(decisions(logged, [0]))
        assert first.index == 0
        reviews.append(review_decision(first, logged, maker, worlds=3))
    assert reviews[0] == reviews[1]


def test_the_same_output_whatever_the_workers(run_dir):
    args = [
        "review",
        str(run_dir),
        "--match",
        "1",
        "--seat",
        "0",
        "--seat",
        "3",
        "-f",
        "json",
        "--worlds",
        "2",
    ]
    one = runner.invoke(app, [*args, "--workers", "1"])
    two = runner.invoke(app, [*args, "--workers", "2"])
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert one.stdout == two.stdout and one.stdout
    alone = runner.invoke(
        app, ["review", str(run_dir), "--match", "1", "--seat", "3", "-f", "json", "--worlds", "2"]
    )
    assert [r for r in _json_rows(one.stdout) if r["seat"] == 3] == _json_rows(alone.stdout)
    other = runner.invoke(app, [*args, "--seed", "1"])
    assert other.stdout != one.stdout  # the seed draws the worlds


def test_the_played_action_is_asked_for_even_when_no_candidate():
    asked = []

    class Narrow:
        def __init__(self, seat, rng, worlds):
            pass

        def candidates(self, obs):
            return [a for a in obs.legal_actions if a[0] == "pass"][:1] or list(obs.legal_actions)[-1:]

        def evaluate(self, obs, actions=None):
            asked.append(list(actions))
            return [ActionValue(a, 0.0, 0.0, 0.0, 2, 0.0, 0.0, 0.0) for a in actions]

    logged = LoggedDeal.played(
        DealSetup(hands=deal_hands(random.Random(2)), level=0, first_leader=0), ["greedy"] * 4
    )
    d = next(x for x in decisions(logged, [1]) if x.played[0] != "pass")
    r = review_decision(d, logged, Narrow, worlds=2)
    # asked once, the played action first, the evaluator's candidate after it
    assert asked == [[d.played, *(a for a in Narrow(0, None, 0).candidates(d.obs) if a != d.played)]]
    assert r.loss == 0 and r.best == d.played and not r.mistake  # a tie keeps the played action


def _noisy_evaluator(gain_of, calls):
    """An evaluator of two actions (the play made and one other) whose per-world values are
    drawn from its rng: the play made 0, the other ``gain_of(rng)`` (so the true loss is known)."""
    from guandan_cli.strategies.search.bot import Z95, mean_se

    class Noisy:
        def __init__(self, seat, rng, worlds):
            self.rng, self.worlds = rng, worlds

        def candidates(self, obs):
            return [a for a in obs.legal_actions if a[0] != "pass"][:1] + [a for a in obs.legal_actions][-1:]

        def evaluate(self, obs, actions, worlds=None):
            n = worlds or self.worlds
            calls.append(n)
            cols = [[0] * n] + [[gain_of(self.rng) for _ in range(n)] for _ in actions[1:]]
            out = []
            for a, xs in zip(actions, cols):
                m, se = mean_se(xs)
                g, gse = mean_se([x - y for x, y in zip(xs, cols[0])])
                out.append(ActionValue(a, m, m - Z95 * se, m + Z95 * se, n, g, g - Z95 * gse, g + Z95 * gse))
            return out

    return Noisy


def test_close_calls_get_more_worlds_and_stay_unclear_when_they_cannot_be_told():
    """With a known true loss: a sure one is a mistake on 4 times the worlds, a loss at the threshold is played
    on to the cap (16 times the worlds) and called unclear, no loss at all ends ok."""
    logged = LoggedDeal.played(
        DealSetup(hands=deal_hands(random.Random(2)), level=0, first_leader=0), ["greedy"] * 4
    )
    d = next(x for x in decisions(logged, [1]) if x.played[0] != "pass" and len(x.obs.legal_actions) > 3)

    def run(gain_of, seed=0):
        calls = []
        r = review_decision(d, logged, _noisy_evaluator(gain_of, calls), worlds=32, seed=seed)
        return r, calls

    sure, calls = run(lambda rng: 1)  # clear at once, claimed on 4 times the worlds
    assert sure.label == "mistake" and sure.mistake and sum(calls) == sure.loss_worlds == 128
    t = MISTAKE_THRESHOLD
    capped = 0
    for seed in range(4):
        # a true loss of exactly the threshold, with much noise: played on while the interval
        # holds the threshold (unclear at the cap), else stopped as soon as it does not
        at, calls = run(lambda rng: 9 if rng.random() < (9 + t) / 18 else -9, seed)
        assert sum(calls) == at.loss_worlds <= 512
        assert at.mistake == (at.best != d.played and at.loss_low >= t)
        holds = at.loss_low < t <= at.loss_high
        assert (at.label == "unclear") == holds and (holds == (at.loss_worlds == 512) or at.best == d.played)
        capped += at.loss_worlds == 512
        none, calls = run(lambda rng: rng.choice((-1, 1)), seed)  # no loss, much noise
        assert none.label == "ok" and not none.mistake and none.loss_worlds <= 512
    assert capped >= 2
    worse, _ = run(lambda rng: -1)
    assert worse.label == "ok" and worse.best == d.played and worse.loss == 0


def test_moments_of_batches_give_the_interval_of_all_the_values():
    """The loss over several batches, each known by its mean and interval, is that of all the
    values at once (a brute-force mean and standard error)."""
    from guandan_cli.strategies.search.bot import Z95, mean_se

    from guandan_cli.review.core import Moments

    rng = random.Random(4)
    for _ in range(50):
        batches = [[rng.choice((-3, -2, -1, 1, 2, 3)) for _ in range(rng.randrange(2, 20))] for _ in range(3)]
        total = Moments(0, 0.0, 0.0)
        for xs in batches:
            m, se = mean_se(xs)
            total = total + Moments.of(len(xs), m, m - Z95 * se, m + Z95 * se)
        m, se = mean_se([x for xs in batches for x in xs])
        assert total.interval == pytest.approx((m, m - Z95 * se, m + Z95 * se))


def test_python_api_frame_matches_the_json(run_dir):
    df = review(run_dir, match=0, deal=1, seats=[0], worlds=2)
    res = runner.invoke(
        app, ["review", str(run_dir), "--deal", "1", "--seat", "0", "-f", "json", "--worlds", "2"]
    )
    rows = _json_rows(res.stdout)
    assert df.height == len(rows) and df["index"].to_list() == [r["index"] for r in rows]
    assert df["loss"].to_list() == [r["loss"] for r in rows] and df["mistake"].to_list() == [
        r["mistake"] for r in rows
    ]


def test_text_lines_and_the_summary_agree_with_the_json(run_dir):
    args = ["review", str(run_dir), "--deal", "1", "--worlds", "2", "--no-symbols"]
    text = runner.invoke(app, args)
    rows = _json_rows(runner.invoke(app, [*args, "-f", "json"]).stdout)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    decision_lines = [x for x in lines if x.startswith("trick ")]
    assert len(decision_lines) == len(rows)
    states = table_states(load_deal(run_dir, 0, 1))
    for line, r in zip(decision_lines, rows):
        assert line.startswith(f"trick {r['trick']:>2}, play {r['index']:>3} · seat {r['seat']} ")
        assert ("MISTAKE" in line) == r["mistake"]
        assert r["trick"] == states[r["index"] + 1].trick_number  # the trick the play went into
    assert max(len(x) for x in lines if not x.startswith("seat ")) <= 200, max(lines, key=len)
    for seat in range(4):
        mine = [r for r in rows if r["seat"] == seat]
        summary = next(x for x in lines if x.startswith(f"seat {seat} ("))
        assert f"{len(mine)} decision" in summary and f"{sum(r['mistake'] for r in mine)} mistake" in summary
        assert f"loss {sum(r['loss'] for r in mine):.2f} levels" in summary
    summaries = _json_summaries(runner.invoke(app, [*args, "-f", "json"]).stdout)
    assert [s["seat"] for s in summaries] == [0, 1, 2, 3] and {s["deal"] for s in summaries} == {1}
    for s in summaries:
        mine = [r for r in rows if r["seat"] == s["seat"]]
        assert s["decisions"] == len(mine) and s["graph"] == [
            [r["index"], round(r["played_value"], 4)] for r in mine
        ]
        assert s["total_loss"] == round(sum(max(r["loss"], 0) for r in mine), 4)
        line = next(x for x in lines if x.startswith(f"seat {s['seat']} (") and "accuracy" in x)
        assert f"accuracy {s['accuracy']:.0f}% over {len(mine)} decision" in line


def test_without_deal_every_deal_of_the_match_is_reviewed_and_summed_up(run_dir):
    """No --deal: each deal of the match in turn, a summary per deal and seat, then the match's,
    whose figures are the sums of the deals' decision records."""
    args = ["review", str(run_dir), "--seat", "0", "--worlds", "2", "-f", "json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    rows, summaries = _json_rows(res.stdout), _json_summaries(res.stdout)
    deals = sorted({r["deal"] for r in rows})
    assert deals == list(range(len(deals))) and len(deals) >= 2
    assert [s["deal"] for s in summaries] == [*deals, None]
    whole = summaries[-1]
    assert whole["decisions"] == len(rows) == sum(s["decisions"] for s in summaries[:-1])
    assert whole["mistakes"] + whole["blunders"] == sum(s["mistakes"] + s["blunders"] for s in summaries[:-1])
    assert whole["total_loss"] == round(sum(max(r["loss"], 0) for r in rows), 4)
    one = _json_rows(
        runner.invoke(
            app, ["review", str(run_dir), "--seat", "0", "--worlds", "2", "-f", "json", "--deal", "1"]
        ).stdout
    )
    assert one == [r for r in rows if r["deal"] == 1]  # the same values, reviewed alone


def test_an_obviously_losing_play_is_flagged(blunder_run):
    """The blunderer breaks up its bomb of aces to beat its partner's single K, the partner
    holding its last card: a mistake, and the best alternative is not a single ace."""
    b = BLUNDER
    logged = load_deal(blunder_run, b["match"], b["deal"])
    decision = next(d for d in decisions(logged, [b["seat"]]) if d.index == b["index"])
    assert bomb_breaking_single(decision.obs) == decision.played  # the blunder happened here
    assert decision.obs.card_counts[decision.obs.partner] == 1
    res = runner.invoke(
        app,
        ["review", str(blunder_run), *f"-m {b['match']} -d {b['deal']} --seat 0 -f json".split()],
    )
    assert res.exit_code == 0, res.output
    row = next(r for r in _json_rows(res.stdout) if r["index"] == b["index"])
    assert row["mistake"] and row["loss"] >= 1 and row["loss_low"] > 0, row
    assert row["played"] == "single:A SA" and not row["best"].startswith("single:A")
    # the reason says what the play did: it broke the bomb of aces to beat the partner
    assert (
        row["reason"].startswith("single A breaks your bomb of As") and "beats your partner" in row["reason"]
    )
    played = next(a for a in row["alternatives"] if a["action"] == row["played"])
    assert "breaks your bomb of As" in played["reason"]


# ------------------------------------------------------------------ bad input: one line each


def _one_line(res, code: int) -> str:
    err = res.stderr.strip()
    assert res.exit_code == code, res.output
    assert len(err.splitlines()) == 1 and err.startswith("guandan: error: "), err
    return err


def test_bad_input_is_one_line(run_dir, tmp_path):
    cases = [
        (["--match", "7"], 2, "no match 7"),
        (["--deal", "9"], 2, "match 0 has no deal 9 (its deals are 0..1)"),
        (["--seat", "4"], 2, "--seat must be 0, 1, 2 or 3, got 4"),
        (["--worlds", "1"], 2, "--worlds must be from 2"),
        (["--workers", "0"], 2, "--workers must be a positive whole number, got 0"),
        (["--workers", "5000"], 2, "--workers must be at most"),
        (["--format", "xml"], 2, "--format must be text or json, got 'xml'"),
        (["--html", str(tmp_path / "nowhere" / "p.html")], 2, "does not exist"),
        (["--match", "-1"], 2, "--match must be 0 or more"),
    ]
    for extra, code, message in cases:
        err = _one_line(runner.invoke(app, ["review", str(run_dir), *extra]), code)
        assert message in err, (extra, err)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no deals parts here" in _one_line(runner.invoke(app, ["review", str(empty)]), 2)
    assert "no such file or directory" in _one_line(runner.invoke(app, ["review", str(tmp_path / "gone")]), 2)


def _edited_copy(run_dir: Path, tmp_path: Path, edit) -> Path:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    part = copy / "deals-00000.jsonl"
    lines = part.read_text(encoding="utf-8").splitlines()
    lines[0] = edit(lines[0])
    part.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return copy


def test_a_corrupt_line_or_an_unknown_ruleset_is_one_line(run_dir, tmp_path):
    corrupt = _edited_copy(run_dir, tmp_path / "a", lambda line: line[:40])
    err = _one_line(runner.invoke(app, ["review", str(corrupt)]), 1)
    assert "deals-00000.jsonl:1:" in err
    unknown = _edited_copy(
        run_dir, tmp_path / "b", lambda line: line.replace('"ruleset":"cgr2022"', '"ruleset":"hubei1999"')
    )
    err = _one_line(runner.invoke(app, ["review", str(unknown)]), 2)  # a line that reads well:
    assert "deals-00000.jsonl: changed since it was written: it holds " in err  # (the manifest)
    (unknown / "manifest.json").unlink()  # parts alone: nothing to say what they held
    err = _one_line(runner.invoke(app, ["review", str(unknown)]), 1)
    assert "deals-00000.jsonl:1: cannot replay this deal: unknown ruleset 'hubei1999'" in err
    illegal = _edited_copy(
        run_dir, tmp_path / "c", lambda line: line.replace('"actions":["', '"actions":["1 pass","', 1)
    )
    (illegal / "manifest.json").unlink()
    err = _one_line(runner.invoke(app, ["review", str(illegal)]), 1)
    assert "deals-00000.jsonl:1:" in err and "action 0" in err


# ------------------------------------------------------------------ the page


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.tags: list[str] = []
        self.data: str | None = None
        self._in_data = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.refs += [a[k] for k in ("src", "href") if k in a]
        self._in_data = a.get("id") == "deal-data"

    def handle_data(self, data):
        if self._in_data:
            self.data = (self.data or "") + data

    def handle_endtag(self, tag):
        self._in_data = False


def _page_data(path: Path) -> dict:
    parsed = _Page()
    text = path.read_text(encoding="utf-8")
    parsed.feed(text)
    assert not parsed.refs and "link" not in parsed.tags and "iframe" not in parsed.tags
    assert "http://" not in text and "https://" not in text
    return json.loads(parsed.data)


def _trick_after(logged: LoggedDeal, steps: int) -> list[tuple[int, str, str]]:
    """The trick on the table after ``steps`` play-phase actions, from the engine: (seat, kind, cards)."""
    deal = Deal(logged.setup)
    for _seat, action in logged.actions[: logged.first_play + steps]:
        deal.apply(action)
    plays = [e for e in deal.events if e.kind in (PLAY, "pass")]
    leads = [i for i, e in enumerate(plays) if e.kind == PLAY and e.lead]
    trick = plays[leads[-1] :] if leads else []
    return [(e.seat, e.kind, format_cards(e.combo.cards) if e.kind == PLAY else "") for e in trick]


def test_review_replay_and_watch_pages_hold_every_step(run_dir, tmp_path):
    logged = load_deal(run_dir, 0, 1)
    plays = len(logged.actions) - logged.first_play
    page = tmp_path / "review.html"
    res = runner.invoke(
        app, ["review", str(run_dir), "--deal", "1", "--seat", "2", "--worlds", "2", "--html", str(page)]
    )
    assert res.exit_code == 0 and f"wrote {page}" in res.stderr, res.output
    data = _page_data(page)
    (deal,) = data["deals"]
    assert len(deal["steps"]) == plays + 1 and [s["index"] for s in deal["steps"]] == list(range(-1, plays))
    assert sorted(map(int, deal["reviews"])) == [d.index for d in decisions(logged, [2])]
    (summary,) = deal["summary"]  # the top of the page: seat 2's summary line and its graph
    assert summary["seat"] == 2 and summary["text"].startswith("seat 2 (") and "accuracy" in summary["text"]
    assert [i for i, _ in summary["graph"]] == sorted(map(int, deal["reviews"]))
    assert all(
        any(s["index"] == i for s in deal["steps"]) for i, _ in summary["graph"]
    )  # each bar has its step
    for k in (1, plays // 2, plays):
        trick = [
            (p["seat"], p["kind"], " ".join(FACE_NAMES[f] for f in p["cards"]))
            for p in deal["steps"][k]["trick"]
        ]
        assert trick == _trick_after(logged, k)
    replay_page = tmp_path / "replay.html"
    res = runner.invoke(app, ["replay", str(run_dir), "--deal", "1", "--html", str(replay_page)])
    assert res.exit_code == 0, res.output
    plain = _page_data(replay_page)["deals"][0]
    assert plain["steps"] == deal["steps"] and plain["reviews"] == {}
    watch_page = tmp_path / "watch.html"
    res = runner.invoke(app, ["watch", str(run_dir), "--match", "0", "--html", str(watch_page)])
    assert res.exit_code == 0, res.output
    watched = _page_data(watch_page)["deals"]
    assert [d["label"] for d in watched] == ["match 0 · deal 0", "match 0 · deal 1"] and watched[1][
        "steps"
    ] == deal["steps"]


def test_play_hint_search_says_the_values(tmp_path):
    args = ["play", "--seed", "5", "--seat", "0", "--max-deals", "1", "--delay", "0", "--plain"]
    res = runner.invoke(app, [*args, "--hint", "search", "--out", str(tmp_path / "g")], input="?\nq\n")
    suggestion = next(x for x in res.output.splitlines() if "suggestion: " in x)  # after the question
    assert " levels, [" in suggestion and " worlds; " in suggestion
    assert any(x.startswith("  others: ") for x in res.output.splitlines())
    small = runner.invoke(
        app, [*args, "--hint", "search:worlds=4", "--out", str(tmp_path / "s")], input="?\nq\n"
    )
    suggestion = next(x for x in small.output.splitlines() if "suggestion: " in x)
    assert " over 4 worlds; search:worlds=4)" in suggestion  # the spec's budget, named
    plain = runner.invoke(app, [*args, "--hint", "greedy", "--out", str(tmp_path / "p")], input="?\nq\n")
    suggestion = next(x for x in plain.output.splitlines() if "suggestion: " in x)
    assert " levels" not in suggestion  # a bot without evaluate: its play only
    bad = runner.invoke(app, [*args, "--hint", "oracle", "--out", str(tmp_path / "h")])
    assert "--hint: unknown strategy 'oracle'" in _one_line(bad, 2)


def test_a_hint_asked_twice_says_the_same(tmp_path):
    """``?`` twice at one decision, and again after a resume: the same values, word for word (the
    worlds come from the position, not from a generator the first answer moved on)."""
    args = ["play", "--seed", "5", "--seat", "0", "--max-deals", "1", "--delay", "0", "--plain"]
    res = runner.invoke(
        app, [*args, "--hint", "search:worlds=4", "--out", str(tmp_path / "g")], input="?\n?\nq\n"
    )
    answers = [part.split("your play")[0] for part in res.output.split("> suggestion: ")[1:]]
    assert len(answers) == 2 and "others: " in answers[0], res.output
    assert answers[0] == answers[1]
    # after q and a resume, a new hint player at the same decision says it again
    resume = ["play", "--resume", "--out", str(tmp_path / "g"), "--plain", "--hint", "search:worlds=4"]
    again = runner.invoke(app, resume, input="?\nq\n")
    resumed = [part.split("your play")[0] for part in again.output.split("> suggestion: ")[1:]]
    assert resumed == answers[:1], again.output


def test_the_hint_is_kept_on_resume_even_when_quit_before_the_first_answer(tmp_path):
    args = ["play", "--seed", "5", "--seat", "0", "--max-deals", "1", "--delay", "0", "--plain"]
    out = str(tmp_path / "g")
    first = runner.invoke(app, [*args, "--hint", "search:worlds=4", "--out", out], input="q\n")
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["play", "--resume", "--out", out, "--plain"], input="?\nq\n")
    suggestion = next(x for x in again.output.splitlines() if "suggestion: " in x)
    assert suggestion.endswith("search:worlds=4)"), suggestion  # no --hint given: the game's own


def test_review_and_hint_value_a_decision_on_the_same_worlds():
    """A review's values of a decision are those a hint at that position gives its candidates,
    with the same seed and budget, whoever asks and whatever it did before."""
    from guandan_cli.strategies.search import SearchStrategy

    from guandan_cli.engine.deal import replay
    from guandan_cli.engine.observation import observe

    setup = DealSetup(hands=deal_hands(random.Random(8)), level=3, first_leader=1)
    logged = LoggedDeal.played(setup, ["heuristic"] * 4, seed=2)
    maker, _ = evaluator_maker()
    for d in list(decisions(logged, [1]))[1:3]:
        r = review_decision(d, logged, maker, worlds=4, seed=7)
        obs = observe(replay(setup, logged.actions[: logged.first_play + d.index]), 1)
        bot = SearchStrategy(1, random.Random(d.index), worlds=4)
        hinted = {v.action: v.mean for v in bot.evaluate(obs, seed=7)}
        reviewed = {a.action: a.mean for a in r.alternatives if a.n == 4}
        common = set(hinted) & set(reviewed)
        assert len(common) >= 2 and all(hinted[a] == reviewed[a] for a in common)


# ------------------------------------------------------------------ in a real browser


def test_the_page_steps_in_chromium_and_shows_the_logged_trick(blunder_run, tmp_path):
    from browser import driver, non_blank, png_size, screenshot_dir

    b = BLUNDER
    page = tmp_path / "review.html"
    res = runner.invoke(
        app,
        [
            "review",
            str(blunder_run),
            *f"-m {b['match']} -d {b['deal']} --seat 0".split(),
            "--html",
            str(page),
        ],
    )
    assert res.exit_code == 0, res.output
    logged = load_deal(blunder_run, b["match"], b["deal"])
    with driver(tmp_path / "profile", size=(1280, 1200)) as d:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        d.get(page.as_uri())
        body = d.find_element(By.TAG_NAME, "body")

        def shown_trick():
            return [
                (
                    int(e.get_attribute("data-seat")),
                    e.get_attribute("data-kind"),
                    e.get_attribute("data-cards"),
                )
                for e in d.find_elements(By.CSS_SELECTOR, "#trick .play")
            ]

        for n in (7, 13):  # forward 7, then 6 more
            while int(body.get_attribute("data-step")) < n:
                body.send_keys(Keys.ARROW_RIGHT)
            assert shown_trick() == _trick_after(logged, n)
        body.send_keys(Keys.ARROW_LEFT)
        assert int(body.get_attribute("data-step")) == 12 and shown_trick() == _trick_after(logged, 12)
        # one seat's view: the other hands are card backs
        d.find_element(By.CSS_SELECTOR, "#view option[value='1']").click()
        shown = {
            e.get_attribute("data-seat"): e.find_element(By.CSS_SELECTOR, ".hand").get_attribute("data-shown")
            for e in d.find_elements(By.CSS_SELECTOR, ".seat")
        }
        assert shown == {"0": "no", "1": "yes", "2": "no", "3": "no"}
        assert len(d.find_elements(By.CSS_SELECTOR, "#seat-bottom .card.back")) == 0
        d.find_element(By.CSS_SELECTOR, "#view option[value='open']").click()
        # the blunder: marked on the timeline; a click goes to the position before it, where the
        # alternatives are shown with their values beside the hand they come from
        ticks = d.find_elements(By.CSS_SELECTOR, "#timeline .tick.mistake")
        steps = [int(t.get_attribute("data-step")) for t in ticks]
        assert b["index"] + 1 in steps
        d.find_element(By.CSS_SELECTOR, f"#timeline .tick[data-step='{b['index'] + 1}']").click()
        assert int(body.get_attribute("data-step")) == b["index"]
        assert shown_trick() == _trick_after(logged, b["index"])
        rows = d.find_elements(By.CSS_SELECTOR, "#review tr.played")
        assert len(rows) == 1 and "single A" in rows[0].text
        assert "MISTAKE" in d.find_element(By.ID, "review").text
        marked = d.find_elements(By.CSS_SELECTOR, "#seat-bottom .card.chosen")  # the play made, in the hand
        assert [c.get_attribute("data-face") for c in marked] == [rows[0].get_attribute("data-cards")]
        shot = screenshot_dir(tmp_path) / "review-page.png"
        d.save_screenshot(str(shot))
        # every reviewed decision: its alternatives are plays from the deciding seat's hand before it
        d.find_element(By.ID, "first").click()
        checked = 0
        for _ in range(len(logged.actions)):
            decision = d.find_elements(By.ID, "decision")
            if decision:
                seat = decision[0].get_attribute("data-seat")
                assert int(decision[0].get_attribute("data-index")) == int(body.get_attribute("data-step"))
                hand = Counter(
                    c.get_attribute("data-face")
                    for c in d.find_elements(By.CSS_SELECTOR, f".seat[data-seat='{seat}'] .hand .card")
                )
                for row in d.find_elements(By.CSS_SELECTOR, "#review tr[data-cards]"):
                    cards = Counter((row.get_attribute("data-cards") or "").split())
                    assert not cards - hand, (row.text, hand)
                checked += 1
            if int(body.get_attribute("data-step")) == len(logged.actions) - logged.first_play:
                break
            body.send_keys(Keys.ARROW_RIGHT)
        assert checked == len(list(decisions(logged, [0])))
        # at 420 px: nothing cut sideways, the reviewed seat's hand on the first screen
        d.find_element(By.CSS_SELECTOR, f"#timeline .tick[data-step='{b['index'] + 1}']").click()
        d.set_window_size(420, 800)
        width = d.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], f"cut sideways at 420 px: {width}"
        cut = d.execute_script(
            "return [...document.querySelectorAll('#review *, #summary *, #controls *, #table *')]"
            ".filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5).map(e => e.outerHTML.slice(0, 80))"
        )
        assert cut == [], cut
        spilled = d.execute_script(  # text wider than its own box (a long bot name in a narrow seat)
            "return [...document.querySelectorAll('#table h2, #review td, #review p, #summary p, #note')]"
            ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 60))"
        )
        assert spilled == [], spilled
        top = d.execute_script(
            "return document.querySelector('#seat-bottom .hand').getBoundingClientRect().top"
        )
        assert top < 800, f"the hand starts at {top} px, below the first screen"
        d.save_screenshot(str(screenshot_dir(tmp_path) / "review-page-420.png"))
        # 中文: the page's own words change, the values do not
        values = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#review td.num")]
        d.find_element(By.ID, "lang").click()
        assert d.find_element(By.ID, "lang").text == "English"
        assert d.find_element(By.ID, "next").text == "前进 ▶"
        assert "单张 A" in d.find_element(By.CSS_SELECTOR, "#review tr.played").text
        assert "失误" in d.find_element(By.ID, "decision").text
        assert [e.text for e in d.find_elements(By.CSS_SELECTOR, "#review td.num")] == values
        d.find_element(By.ID, "lang").click()
        assert d.find_element(By.ID, "next").text == "forward ▶"
        # the replay page of the same deal: no review, and a legend that does not mention one
        plain = tmp_path / "replay.html"
        args = ["replay", str(blunder_run), "-m", str(b["match"]), "-d", str(b["deal"]), "--html", str(plain)]
        assert runner.invoke(app, args).exit_code == 0
        d.get(plain.as_uri())
        legend = d.find_element(By.ID, "legend").text
        assert "Timeline" in legend and "mistake" not in legend and "reviewed" not in legend
        assert d.find_elements(By.ID, "decision") == []
    width, height = png_size(shot.read_bytes())
    drawn, colours = non_blank(shot.read_bytes())
    assert width == 1280 and height > 800 and drawn > 0.2 and colours > 200  # blank: a handful of colours


def test_summary_gathers_each_seats_mistakes_by_kind(blunder_run):
    """--summary: every decision the summaries count as an inaccuracy, a mistake or a blunder is
    in exactly one kind, with its loss; the blunderer's broken bomb of aces is among them."""
    b = BLUNDER
    args = ["review", str(blunder_run), "-m", str(b["match"]), "--seat", "0", "--worlds", "8", "--summary"]
    res = runner.invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    (leaks,) = [row["leaks"] for row in rows if "leaks" in row]
    whole = [row["summary"] for row in rows if "summary" in row and row["summary"]["deal"] is None]
    counted = whole[0] if whole else [row["summary"] for row in rows if "summary" in row][0]
    assert (
        sum(k["count"] for k in leaks["kinds"])
        == counted["inaccuracies"] + counted["mistakes"] + counted["blunders"]
    )
    assert any(k["kind"] == "broke a bomb" for k in leaks["kinds"]), leaks
    text = runner.invoke(app, args).stdout
    assert "mistakes by kind, costliest first" in text and "broke a bomb:" in text
