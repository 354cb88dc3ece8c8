"""`guandan play` and `guandan watch`: answers, refusals, declarations, resume, the screen."""

from __future__ import annotations

import json
import re
import sys

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.engine.cards import parse_cards
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, Deal, DealSetup
from guandan_cli.engine.observation import observe
from guandan_cli.interactive.answers import ACTION, REFUSED, WHICH, read_answer

runner = CliRunner()


def one_line_error(result) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("guandan: error: "), result.output
    return lines[0]


# ------------------------------------------------------------------ answers (no state changes)


def test_answers_refused_with_the_rule_and_nothing_changes():
    hands = [parse_cards(h) for h in ("S7 D7 C7 H2 H2 S3 S4 S5 S6 D9", "S8 S8", "S9", "ST")]
    deal = Deal(DealSetup(hands=hands, first_leader=0))
    before = deal.snapshot()
    obs = observe(deal, 0)
    cases = {
        "ZZ": "bad card token 'ZZ'",
        "SA": "you do not hold SA",
        "S3 S7": "is not a combination (§4)",
        "p": "leader cannot pass (§7)",
        "99": "no number 99 in the menu",
        "": "empty answer",
    }
    for text, rule in cases.items():
        ans = read_answer(text, obs)
        assert ans.kind == REFUSED and rule in ans.message, (text, ans.message)
    assert deal.snapshot() == before
    # following a pair of 8s: a pair of 7s does not beat it; pass is allowed
    follow = Deal(DealSetup(hands=[hands[1], hands[0], hands[2], hands[3]], first_leader=0))
    follow.apply(Combo.from_text("pair:8 S8 S8"))
    state = follow.snapshot()
    ans = read_answer("S7 D7", observe(follow, 1))
    assert ans.kind == REFUSED and "does not beat the top play pair 8 (§5" in ans.message
    assert read_answer("p", observe(follow, 1)).action == PASS
    ans = read_answer("H2 S7 D7 C7", observe(follow, 1))
    assert ans.kind == ACTION and ans.action.type == "bomb"  # the only reading that beats a pair
    assert follow.snapshot() == state


def test_ambiguous_card_sets_ask_which_declaration():
    hands = [parse_cards(h) for h in ("S7 D7 C7 H2 H2 S3 S4 S5 S6 D9", "S8", "S9", "ST")]
    obs = observe(Deal(DealSetup(hands=hands, first_leader=0)), 0)
    ans = read_answer("S7 D7 C7 H2 H2", obs)
    assert ans.kind == WHICH and [c.type for c in ans.choices] == ["full_house", "bomb"]
    ans = read_answer("S3 S4 S5 S6 S7", obs)
    assert ans.kind == WHICH and {c.type for c in ans.choices} == {"straight", "straight_flush"}
    assert read_answer("S3 S4 S5 S6 D9", obs).kind == REFUSED


# ------------------------------------------------------------------ play through plain stdin


def _script(pairs: range) -> str:
    """Always the first menu play, else pass: a dull but legal person."""
    return "".join("1\np\n" for _ in pairs)


PLAY_ARGS = [
    "play",
    "--seed",
    "5",
    "--seat",
    "0",
    "--max-deals",
    "2",
    "--delay",
    "0",
    "--plain",
    "--no-deal-review",
]


def test_play_from_stdin_interrupt_resume_gives_the_same_log(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    res = runner.invoke(app, [*PLAY_ARGS, "--out", str(whole)], input=_script(range(300)))
    assert res.exit_code == 0, res.output
    assert "allowed tribute:" in res.output and "seat 0 pays" in res.output  # the person paid tribute
    assert "return:  seat" in res.output
    assert "x no number 1 in the menu" in res.output or "x you lead" in res.output  # refusals, asked again
    manifest = json.loads((whole / "manifest.json").read_text())
    assert manifest["config"]["strategies"] == ["human", "heuristic", "heuristic", "heuristic"]
    assert manifest["state"] == "complete"
    ver = runner.invoke(app, ["verify", str(whole)])
    assert ver.exit_code == 0 and ": ok" in ver.stdout
    deal0 = json.loads((whole / "deals-00000.jsonl").read_text().splitlines()[0])
    assert deal0["strategies"][0] == "human"

    # the input ends in deal 1's tribute question: answers kept, the game continues there
    # (10 pairs of answers: the menu is in the hand's order since issue 30, a forced pass asks nothing)
    res = runner.invoke(app, [*PLAY_ARGS, "--out", str(cut)], input=_script(range(10)))
    assert res.exit_code == 130 and "--resume --out" in res.output
    saved = (cut / "human.jsonl").read_text().splitlines()
    assert json.loads((cut / "manifest.json").read_text())["state"] == "interrupted"
    assert {json.loads(x)["deal"] for x in saved} == {0}
    again = one_line_error(runner.invoke(app, [*PLAY_ARGS, "--out", str(cut)], input=""))
    assert "unfinished game; add --resume" in again
    res = runner.invoke(
        app, ["play", "--resume", "--out", str(cut), "--delay", "0"], input=_script(range(10, 300))
    )
    assert res.exit_code == 0, res.output
    assert f"{len(saved)} saved answers replayed" in res.output
    assert (cut / "human.jsonl").read_text().splitlines()[: len(saved)] == saved
    assert (cut / "deals-00000.jsonl").read_bytes() == (whole / "deals-00000.jsonl").read_bytes()
    assert (cut / "matches-00000.jsonl").read_bytes() == (whole / "matches-00000.jsonl").read_bytes()
    assert "is finished" in one_line_error(runner.invoke(app, ["play", "--resume", "--out", str(cut)]))


def test_play_bad_input_is_one_line(tmp_path):
    out = str(tmp_path / "g")
    assert "unknown strategy 'nobot'" in one_line_error(
        runner.invoke(app, ["play", "-s", "nobot", "--out", out])
    )
    assert "--seat must be 0, 1, 2 or 3" in one_line_error(
        runner.invoke(app, ["play", "--seat", "4", "--out", out])
    )
    assert "nothing to resume" in one_line_error(runner.invoke(app, ["play", "--resume", "--out", out]))
    assert "--resume needs --out" in one_line_error(runner.invoke(app, ["play", "--resume"]))
    assert "ruleset" in one_line_error(runner.invoke(app, ["play", "--ruleset", "nope", "--out", out]))


@pytest.mark.parametrize("delay", ["inf", "-inf", "nan", "1e300", "3601", "-1"])
def test_a_delay_that_is_no_finite_pause_is_refused_up_front(tmp_path, delay):
    """``time.sleep`` cannot wait that long (an OverflowError traceback in watch; in play, a
    failure blamed on the human strategy), nor a negative or undefined time: one line naming
    --delay and the rule, exit 2, nothing written. (watch with --step, and play only with a
    delay it cannot sleep: if the check were missing they would stop at once, not sleep.)"""
    out = tmp_path / "g"
    runs = [["watch", "--seed", "1", "--max-deals", "1", "--plain", "--step", f"--delay={delay}"]]
    if delay != "3601":
        runs.append(
            ["play", "--seed", "1", "--max-deals", "1", "--plain", f"--delay={delay}", "--out", str(out)]
        )
    for argv in runs:
        line = one_line_error(runner.invoke(app, argv, input="q\n"))
        assert line.startswith(
            "guandan: error: --delay must be a finite number of seconds from 0 to 3600, got "
        )
    assert not out.exists()
    res = runner.invoke(
        app, ["watch", "--seed", "1", "--max-deals", "1", "--plain", "--delay=3600", "--step"], input="q\n"
    )
    assert res.exit_code == 0 and "(quit)" in res.output, res.output  # the longest pause is accepted


def test_simulate_with_a_human_seat_and_no_person_fails_in_one_line(tmp_path):
    """Refused as bad input before any work (exit 2), in simulate and compare alike."""
    for argv in (
        ["simulate", "-n", "1", "-s", "human", "--workers", "1", "--out", str(tmp_path / "r")],
        ["compare", "human", "greedy", "-n", "1", "--out", str(tmp_path / "c")],
    ):
        res = runner.invoke(app, argv)
        assert res.exit_code == 2 and "guandan play" in res.stderr and len(res.stderr.splitlines()) == 1
        assert not (tmp_path / "r").exists() and not (tmp_path / "c").exists()


# ------------------------------------------------------------------ play in a pseudo-terminal


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_in_a_pty_refusals_declaration_ctrl_c_and_resume(tmp_path):
    pexpect = pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal (dev extra)")
    from play_driver import END, PROMPTS, RETURN, TRIBUTE, WHICH, answer_with_hint, spawn

    game = tmp_path / "g"
    child = spawn(["--seed", "2", "--seat", "0", "--max-deals", "2", "--out", str(game)], tmp_path)
    first = child.expect(PROMPTS)
    assert first in (0, 1)
    hands_shown = child.before.count("your hand (")
    child.sendline("ZZ")
    child.expect(r"x bad card token 'ZZ'[^\r\n]*")
    child.expect(PROMPTS[first])  # the same question again
    child.sendline("S3 S3 S3 S3 S3 S3")
    child.expect(r"x [^\r\n]*a third S3: two decks hold at most 2 copies of a card")
    child.expect(PROMPTS[first])
    assert child.before.count("your hand (") == 0 and hands_shown == 1  # no state change, no new table
    kinds = []
    for _ in range(8):
        i = child.expect(PROMPTS) if kinds else first
        kinds.append(i)
        if i == WHICH:
            child.sendline("2")
            continue
        answer_with_hint(child)
    child.expect(PROMPTS[:5])
    child.sendintr()  # Ctrl-C at a question
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "every answer is saved" in child.before
    saved = (game / "human.jsonl").read_text().splitlines()
    assert len(saved) >= 8

    child = spawn(["--resume", "--out", str(game)], tmp_path)
    # the line may wrap between words (a long temporary path, under pytest-xdist)
    child.expect(rf"resuming\s+{re.escape(str(game))}:\s+{len(saved)}\s+saved\s+answers\s+to\s+replay")
    while True:
        i = child.expect(PROMPTS)
        kinds.append(i)
        if i == END:
            break
        if i == WHICH:
            child.sendline("2")
            continue
        answer_with_hint(child)
    ending = " ".join(child.before.split())  # lines wrapped between words
    child.close()
    assert child.exitstatus == 0, child.before
    assert f"guandan review {game} --deal N --seat 0 (your decisions valued)" in ending, ending
    assert RETURN in kinds and WHICH in kinds  # the person returned a card and picked a declaration
    assert TRIBUTE not in kinds or RETURN in kinds
    assert (game / "human.jsonl").read_text().splitlines()[: len(saved)] == saved
    ver = runner.invoke(app, ["verify", str(game)])
    assert ver.exit_code == 0 and ": ok" in ver.stdout
    assert END in kinds


# ------------------------------------------------------------------ watch


def test_watch_step_shows_trick_declarations_and_levels(tmp_path):
    res = runner.invoke(
        app, ["watch", "--seed", "3", "-s", "heuristic,greedy", "--step"], input="\n" * 30 + "q\n"
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert "playing level 2 (first deal) · team 0 (seats 0,2): 2 · team 1 (seats 1,3): 2" in out
    assert "trick 1" in out and "seat 3 greedy" in out
    assert "  seat 3  plate 2   S2 H2 D2 SA HA CA  (21 left)" in out  # a play with its declaration
    assert "seat 0 (21): D3 D4 D5" in out and "(quit)" in out
    assert out.count("trick 1") >= 5  # one screen per Enter


def test_watch_a_logged_match_and_the_deal_end(tmp_path):
    run = tmp_path / "r"
    sim = runner.invoke(
        app,
        [
            "simulate",
            "-n",
            "2",
            "--seed",
            "1",
            "-s",
            "greedy",
            "--max-deals",
            "2",
            "--workers",
            "1",
            "-q",
            "--out",
            str(run),
        ],
    )
    assert sim.exit_code == 0, sim.output
    res = runner.invoke(app, ["watch", str(run), "--match", "1", "--delay", "0", "--open"])
    assert res.exit_code == 0, res.output
    assert "match 1 (seed" in res.output and "deal 1 over" in res.output
    assert "goes up" in res.output and "levels after: team 0" in res.output
    assert "tribute: " in res.output and "seat 3 (" in res.output  # --open: every hand shown
    assert "the match ends here: capped by max_deals" in res.output
    assert "--match 5 is not in" in one_line_error(runner.invoke(app, ["watch", str(run), "--match", "5"]))
    assert "no run directory" in one_line_error(runner.invoke(app, ["watch", str(tmp_path / "none")]))
    assert "unknown strategy 'nobot'" in one_line_error(runner.invoke(app, ["watch", "-s", "nobot"]))
    assert "--seat must be" in one_line_error(runner.invoke(app, ["watch", "--seat", "7"]))


def test_table_in_colour_through_a_recording_console():
    from rich.console import Console

    from guandan_cli.view.table import Style, TableScene, play_text, render_table

    hands = [parse_cards(h) for h in ("S7 D7 C7 H2 H2 S3", "S8 S8 H9", "S9", "ST")]
    deal = Deal(DealSetup(hands=hands, first_leader=1))
    deal.apply(Combo.from_text("pair:8 S8 S8"))
    text = render_table(
        TableScene(
            title="t",
            level=0,
            levels=(0, 0),
            level_team=None,
            names=["a", "b", "c", "d"],
            counts=deal.card_counts(),
            finished=deal.finished,
            events=deal.events,
            to_move=deal.to_move,
            tribute_kind=deal.tribute_kind,
            hands={0: deal.hands[0]},
            you=True,
        ),
        Style(),
    )
    console = Console(record=True, width=100, force_terminal=True)
    console.print(text)
    screen = console.export_text()
    assert "♠8 ♠8" in screen and "your hand (6): ♠3 ♠7 ♣7 ♦7 ♥2 ♥2" in screen
    assert (
        play_text(Combo.from_text("straight:7 H2 S3 S4 D5 S7"), 0, Style.plain())
        == "straight 7   H2=6 S3 S4 D5 S7"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_watch_in_a_pty_shows_suits_in_colour_and_q_quits(tmp_path):
    pexpect = pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal (dev extra)")
    argv = [
        "-c",
        "from guandan_cli.cli.app import main; main()",
        "watch",
        "--seed",
        "3",
        "-s",
        "heuristic,greedy",
    ]
    child = pexpect.spawn(
        sys.executable,
        [*argv, "--step"],
        encoding="utf-8",
        codec_errors="replace",
        timeout=30,
        dimensions=(40, 120),
    )
    child.expect("seat 3 leads")
    screen = child.before
    assert "\x1b[" in screen and "♠" in screen  # colour and suit symbols on a terminal
    assert "playing level 2 (first deal)" in screen
    child.send("\n")  # Enter: the next action
    child.expect("seat 3 plays plate 2")
    child.send("\n")
    child.expect("seat 0 plays")
    assert "trick 1" in child.before
    child.send("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "(quit)" in child.before


def test_wild_marks_name_a_card_that_makes_the_same_declaration():
    """Oracle: put a natural card of the named rank (and suit) in each wild's place; the
    cards then read as the same type and key without any wild."""
    import random

    from guandan_cli.engine import all_plays, deal_hands
    from guandan_cli.engine.cards import RANK_INDEX, SUITS
    from guandan_cli.engine.combos import readings
    from guandan_cli.view.table import wild_meanings

    rng = random.Random(15)
    checked = 0
    for _ in range(30):
        level = rng.randrange(13)
        wild = level * 4 + 1
        hand = [f for f in deal_hands(rng)[0] if f != wild][:14] + [wild, wild]
        for combo in all_plays(sorted(hand), level):
            meanings = wild_meanings(combo, level)
            if not meanings:
                continue
            assert len(meanings) == combo.cards.count(wild), combo
            faces = [f for f in combo.cards if f != wild]
            for m in meanings:
                suit = SUITS.index(m[0]) if len(m) == 2 and m[0] in SUITS and m != "SB" else 0
                rank = RANK_INDEX[m[-1] if len(m) == 2 and m != "SB" else m]
                faces.append(rank * 4 + suit)
            if wild in faces:
                continue  # a wild standing for itself (the ♥ level card)
            got = {(c.type, c.rank) for c in readings(faces, level)}
            assert (combo.type, combo.rank) in got, (combo.text(), meanings)
            checked += 1
    assert checked > 200


def test_every_legal_action_passes_the_saved_answer_check():
    """The resume check of a saved answer accepts every action bots take (wilds, declarations
    read two ways, passes, tribute and return) and refuses a pass on a lead."""
    from guandan_cli.strategies import make_players

    from guandan_cli.engine.match import Match
    from guandan_cli.engine.rules import get_ruleset
    from guandan_cli.interactive.seat import saved_answer_problem

    checked = 0
    for seed in range(6):
        match = Match(seed, get_ruleset("cgr2022", max_deals=3))
        players = make_players(["heuristic", "random", "greedy", "random"], seed)
        while not match.over:
            deal = Deal(match.next_setup())
            while deal.phase != "over":
                obs = observe(deal, deal.to_move)
                p = players[deal.to_move]
                pick = {"play": p.choose_play, "tribute": p.choose_tribute, "return": p.choose_return}
                action = pick[deal.phase](obs)
                assert saved_answer_problem(action, obs) is None, (action, obs.hand)
                if deal.phase == "play" and obs.top is None:
                    assert "cannot pass" in saved_answer_problem(PASS, obs)
                deal.apply(action)
                checked += 1
            match.record(deal.result)
    assert checked > 1000


def test_resume_with_an_edited_answer_file_is_one_line_naming_the_line(tmp_path):
    """A saved answer that is not legal where it is replayed, or for another deal, is bad input
    (exit 2) naming human.jsonl and its line, not a failing 'human' strategy with a hint of
    simulate's --on-error."""
    game = tmp_path / "g"
    res = runner.invoke(app, [*PLAY_ARGS, "--out", str(game)], input=_script(range(10)))
    assert res.exit_code == 130, res.output
    journal = game / "human.jsonl"
    saved = journal.read_text().splitlines()
    first = json.loads(saved[0])
    assert first["phase"] == "play"
    # two small jokers declared as a pair of threes: never legal (not held, or not that pair)
    journal.write_text("\n".join([json.dumps({**first, "answer": "pair:3 SB SB"}), *saved[1:]]) + "\n")
    res = runner.invoke(app, ["play", "--resume", "--out", str(game), "--delay", "0"], input="q\n")
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1, res.output
    line = res.stderr.strip()
    assert line.startswith(
        f"guandan: error: {journal}:1: saved answer 'pair:3 SB SB' is not legal in deal 0: "
    )
    assert "--on-error" not in line and "strategy 'human'" not in line
    journal.write_text("\n".join([json.dumps({**first, "deal": 3}), *saved[1:]]) + "\n")
    res = runner.invoke(app, ["play", "--resume", "--out", str(game)], input="q\n")
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1, res.output
    assert res.stderr.startswith(f"guandan: error: {journal}:1: saved answer 1 is for deal 3 (play)")


def test_resume_refused_for_changed_code_names_no_option_play_lacks(tmp_path):
    """A game whose bots' code changed cannot be resumed; the refusal once said 'use --force',
    an option of simulate that play does not have."""
    game = tmp_path / "g"
    res = runner.invoke(app, [*PLAY_ARGS, "--out", str(game)], input=_script(range(3)))
    assert res.exit_code == 130, res.output
    manifest = json.loads((game / "manifest.json").read_text())
    manifest["fingerprints"]["heuristic"]["hash"] = "0" * 16
    (game / "manifest.json").write_text(json.dumps(manifest))
    res = runner.invoke(app, ["play", "--resume", "--out", str(game)], input="q\n")
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1, res.output
    assert res.stderr.startswith("guandan: error: strategy 'heuristic' changed since")
    assert "another --out" in res.stderr and "--force" not in res.stderr


def test_watch_every_deal_of_setups_runs(tmp_path):
    """Deals played from setups (experiment arms, compare --duplicate deal) stand alone: watch
    rebuilds each from its source, as verify and replay do. Before, every such match failed
    with "cannot pay or return" (the tribute situation was taken from a previous deal)."""
    import re

    from guandan_cli.comparison import compare
    from guandan_cli.experiments import run_experiment
    from guandan_cli.logs.reader import iter_records

    run_experiment("tribute", 6, strategies="greedy", out=tmp_path / "e", workers=1)
    source = compare(
        "greedy", "random", matches=4, duplicate="deal", setups="random", out=tmp_path / "c", workers=1
    )
    dealt = compare(
        "greedy",
        "random",
        matches=4,
        duplicate="deal",
        setups=source.runs[0].path,
        out=tmp_path / "d",
        workers=1,
    )
    runs = [
        tmp_path / "e" / "with-tribute",
        tmp_path / "e" / "without-tribute",
        *source.runs[0:1],
        *dealt.runs,
    ]
    for run in runs:
        run = getattr(run, "path", run)
        records = [rec for f in sorted(run.glob("deals-*.jsonl")) for _n, rec in iter_records(f)]
        assert records
        for rec in records:
            res = runner.invoke(
                app, ["watch", str(run), "--match", str(rec["match"]), "--delay", "0", "--plain"]
            )
            assert res.exit_code == 0, (run, rec["match"], res.output[-300:])
            # the levels the watched deal ends with are the logged ones (ten shown as 10, logged as T)
            levels = re.findall(r"levels after: team 0 (\S+), team 1 (\S+)", res.output)
            logged = tuple("10" if x == "T" else x for x in rec["levels_after"])
            assert levels[-1] == logged, (run, rec["match"], levels, rec["levels_after"])


def test_replay_defaults_to_the_first_deal_a_match_logged(tmp_path):
    """A run of deals taken from another run keeps their deal numbers: replay -m M shows
    match M's deal without -d, and a wrong -d names the deal it does hold."""
    from guandan_cli.comparison import compare
    from guandan_cli.logs.reader import iter_records

    source = compare("greedy", "random", matches=6, out=tmp_path / "s", workers=1, max_deals=3)
    dealt = compare(
        "greedy",
        "random",
        matches=6,
        duplicate="deal",
        setups=source.runs[0].path,
        out=tmp_path / "d",
        workers=1,
    )
    run = dealt.runs[0].path
    records = {rec["match"]: rec for f in sorted(run.glob("deals-*.jsonl")) for _n, rec in iter_records(f)}
    late = next(m for m, rec in records.items() if rec["deal"] > 0)  # a setup that was a later deal
    res = runner.invoke(app, ["replay", str(run), "-m", str(late)])
    assert res.exit_code == 0, res.output
    assert f"match {late} " in res.output and f"deal {records[late]['deal']} (seed" in res.output
    res = runner.invoke(app, ["replay", str(run), "-m", str(late), "-d", "0"])
    assert res.exit_code == 2
    assert f"match {late} has no deal 0 (its deal is {records[late]['deal']})" in res.stderr


def test_replay_and_watch_refuse_a_folder_of_several_runs(tmp_path):
    for name, seed in (("a", 1), ("b", 2)):
        res = runner.invoke(
            app,
            [
                "simulate",
                "-n",
                "1",
                "--seed",
                str(seed),
                "-s",
                "random",
                "--max-deals",
                "1",
                "-w",
                "1",
                "-q",
                "-o",
                str(tmp_path / "two" / name),
            ],
        )
        assert res.exit_code == 0, res.output
    for args in (
        ["replay", str(tmp_path / "two")],
        ["watch", str(tmp_path / "two"), "--delay", "0", "--plain"],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert res.stderr == f"guandan: error: {tmp_path / 'two'} holds 2 runs (a, b): name one of them\n"
    assert runner.invoke(app, ["replay", str(tmp_path / "two" / "b")]).exit_code == 0


def test_resume_refuses_options_that_differ_from_the_saved_game(tmp_path):
    """``play --resume`` continued the saved game whatever --seed or --seat said; an option given
    with another value than the game's is refused, naming the option, the saved value and the
    given one; the same values are accepted."""
    game = tmp_path / "g"
    res = runner.invoke(app, [*PLAY_ARGS, "--out", str(game)], input=_script(range(3)))
    assert res.exit_code == 130, res.output
    saved = {p.name: p.read_bytes() for p in game.iterdir()}
    resume = ["play", "--resume", "--out", str(game), "--delay", "0", "--plain"]
    cases = {
        ("--seed", "8"): "with --seed 5 (given 8); resume without it,",
        ("--seat", "2"): "with --seat 0 (given 2); resume without it,",
        ("-s", "greedy"): "with --strategies heuristic (given greedy); resume without it,",
        ("--max-deals", "3"): "with --max-deals 2 (given 3); resume without it,",
        ("--a-fail-limit", "3"): "without --a-fail-limit (given 3); resume without it,",
        ("--seat", "1", "--seed", "5", "--ruleset", "jiangsu2017"): (
            "with --seat 0 (given 1), with --ruleset cgr2022 (given jiangsu2017); resume without those options,"
        ),
    }
    for options, why in cases.items():
        line = one_line_error(runner.invoke(app, [*resume, *options], input="q\n"))
        assert (
            line
            == f"guandan: error: the game in {game} was saved {why} or choose another --out for a new game"
        )
    assert {p.name: p.read_bytes() for p in game.iterdir()} == saved
    same = [
        "--seed",
        "5",
        "--seat",
        "0",
        "-s",
        "heuristic,heuristic",
        "--max-deals",
        "2",
        "--ruleset",
        "cgr2022",
    ]
    res = runner.invoke(app, [*resume, *same], input="q\n")  # q: saved, an ordinary stop (exit 0)
    assert res.exit_code == 0 and "saved: every answer is kept" in res.stdout, res.output


def test_watch_refuses_live_options_with_a_run(tmp_path):
    run = tmp_path / "r"
    res = runner.invoke(
        app, ["simulate", "-n", "1", "-s", "random", "--max-deals", "1", "-w", "1", "-q", "-o", str(run)]
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["watch", str(run), "-s", "greedy", "--max-deals", "2"])
    assert res.exit_code == 2
    assert res.stderr == (
        f"guandan: error: --strategies, --max-deals are for a match played now; watching {run} replays "
        "its log as it was played\n"
    )
    # the defaults typed out are options given too: refused the same way
    assert runner.invoke(app, ["watch", str(run), "--seed", "0"]).exit_code == 2
    assert runner.invoke(app, ["watch", str(run), "--delay", "0", "--plain"]).exit_code == 0


def test_resume_shows_the_trick_in_progress_not_the_previous_tricks_end(tmp_path):
    """QA: after a resume, ``→ seat 0 takes the trick`` (the end of a trick never shown) came
    first; now the trick so far follows the resume line, as it was before the interruption."""
    game = tmp_path / "g"
    args = ["play", "--seed", "5", "--delay", "0", "--plain", "--out", str(game)]
    res = runner.invoke(app, args, input="1\n1\n1\n1\nq\n")  # the 4th answer leads trick 2
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["play", "--resume", "--out", str(game), "--delay", "0"], input="p\nq\n")
    after = res.output.split("saved answers replayed)", 1)[1].splitlines()
    assert after[1:4] == ["", "trick 2", "  seat 0  single 4   C4  (20 left)"], after[:6]
    assert not any("takes the trick" in line for line in after[:4])


@pytest.mark.parametrize("bad", [5, None, ["0", "pass"]])
def test_replay_names_an_action_that_is_no_string_in_an_edited_log(tmp_path, bad):
    """An action edited into a number, null or a list is one error line naming it (it was an
    AttributeError traceback: 'int' object has no attribute 'partition')."""
    from guandan_cli import simulate

    simulate(1, seed=3, strategies="greedy", workers=1, out=tmp_path / "r", progress=False, max_deals=1)
    part = next((tmp_path / "r").glob("deals-*.jsonl"))
    rec = json.loads(part.read_text().splitlines()[0])
    rec["actions"][2] = bad
    part.write_text(json.dumps(rec, separators=(",", ":")) + "\n")
    res = runner.invoke(app, ["replay", str(tmp_path / "r")])  # the manifest says it was edited
    assert res.exit_code == 2 and "deals-00000.jsonl: changed since it was written" in res.stderr
    (tmp_path / "r" / "manifest.json").unlink()  # the part alone: replayed, the action named
    res = runner.invoke(app, ["replay", str(tmp_path / "r")])
    assert res.exit_code == 1, res.output
    assert f"cannot replay this deal: action 2 {bad!r}: expected a string 'SEAT pass'" in res.stderr
    assert "Traceback" not in res.output


@pytest.mark.parametrize(
    "strategies, seed",
    [
        (["heuristic", "greedy", "heuristic", "greedy"], 1),
        (["search:worlds=2+candidates=2+first=2+batch=1", "heuristic", "greedy", "heuristic"], 2),
    ],
)
def test_watch_plays_lazily_and_shows_the_screens_of_the_whole_deals(strategies, seed):
    """`watch` played now asks one bot at a time (live_frames): the screens it waits on are those
    of the same match played whole first (frames of live_deals), and a search is shown thinking
    before each of its decisions, on a screen that does not wait."""
    from guandan_cli.interactive.watch import frames, live_deals, live_frames
    from guandan_cli.view.table import Style

    style = Style.plain()
    whole = [
        t
        for d in live_deals(seed, strategies, "cgr2022", 2)
        for t in frames(d, style, seat=1, open_hands=True)
    ]
    lazy = list(live_frames(seed, strategies, "cgr2022", 2, style, seat=1, open_hands=True))
    assert [f.text for f in lazy if f.wait] == whole
    thinking = [f.text for f in lazy if not f.wait]
    if strategies[0].startswith("search"):
        assert thinking and all("seat 0 (search:" in t and "is thinking…" in t for t in thinking)
    else:
        assert not thinking
