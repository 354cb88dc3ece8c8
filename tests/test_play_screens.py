"""The screens of ``guandan play`` (issue 30), as a person at the table sees them.

Golden text of the first question, a later question, a forced tribute and ``q`` (rebuild
with ``GUANDAN_UPDATE_GOLDEN=1`` after a deliberate change, and read the diff), each also
checked against facts the golden text cannot vouch for: the counts a question reports are
the counts its play lines end with, the forced tribute is the highest card by power of the
logged hand, ``q`` leaves a game that resumes. Then the "which declaration?" question,
reached through the command, and a whole deal played in a pseudo-terminal of 100 columns.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from guandan_cli.cli.app import app
from guandan_cli.engine.cards import RANK_OF, parse_cards
from guandan_cli.engine.combos import POWER
from guandan_cli.engine.match import LEVEL_TOKENS

runner = CliRunner()
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("GUANDAN_UPDATE_GOLDEN") == "1"
#: every question ends so (the answer follows on a terminal)
PROMPT = re.compile(r"\) > ")
SEAT_PICTURE = re.compile(r"seat \d \S+ · +\d+ cards?$|out \S+$")


def transcript(tmp_path, monkeypatch, args: list[str], answers: list[str]):
    """``play`` with piped ``answers``: the screen as a terminal shows it (each answer after its
    question, where a terminal echoes it) and the result."""
    monkeypatch.chdir(tmp_path)
    argv = ["play", *args, "--delay", "0", "--plain", "--out", "g"]
    res = runner.invoke(app, argv, input="".join(f"{a}\n" for a in answers))
    screen = res.stdout
    for answer in answers:
        screen = PROMPT.sub(lambda m, a=answer: f") >\0{a}\n", screen, count=1)
    return screen.replace("\0", " "), res


def questions(screen: str) -> list[str]:
    """The screen cut after each question line: item ``i`` is what question ``i`` showed."""
    chunks, current = [], []
    for line in screen.splitlines():
        current.append(line)
        if ") > " in line or line.endswith(") >"):
            chunks.append("\n".join(current) + "\n")
            current = []
    return chunks + (["\n".join(current) + "\n"] if current else [])


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def check_counts(chunks: list[str]) -> int:
    """The ``cards:`` line of each question is what changed since the one before: each seat's
    ``a→b`` starts at the count last seen and ends at the last ``(b left)`` of its plays."""
    seen = {s: 27 for s in range(4)}
    checked = 0
    for chunk in chunks:
        last: dict[int, int] = {}
        for m in re.finditer(r"^  seat (\d)  .*\((\d+) left\)", chunk, re.M):
            last[int(m[1])] = int(m[2])
        said = {int(s): (int(a), int(b)) for s, a, b in re.findall(r"seat (\d) (\d+)→(\d+)", chunk)}
        you = 0
        for s, now in last.items():
            if s != you and now != seen[s]:
                assert said.get(s) == (seen[s], now), (s, said, last, chunk)
                checked += 1
        assert set(said) <= set(last), chunk
        seen.update(last)
    return checked


SEED7 = ["--seat", "0", "-s", "heuristic", "--seed", "7"]
SEED7_ANSWERS = ["S3 S3", "1", "H3", "q"]


def test_the_first_question(tmp_path, monkeypatch):
    """The deal opens with the table (the seats with their names, the level, who leads), then
    the plays so far, then the question: the counts that changed, the hand by power, the play
    to beat, the menu in the hand's order."""
    screen, res = transcript(tmp_path, monkeypatch, SEED7, SEED7_ANSWERS)
    first = questions(screen)[0]
    golden("play_first_question.txt", first)
    assert sum(bool(SEAT_PICTURE.search(line)) for line in first.splitlines()) == 3
    hand = re.search(r"your hand \(27\): (.*)", first)[1].split()
    power = [POWER[0][RANK_OF[parse_cards(card)[0]]] for card in hand]  # level 2: index 0
    assert len(hand) == 27 and power == sorted(power)
    assert hand.index("SA") < hand.index("S2") < hand.index("HR")  # the level card after the A
    assert check_counts([first]) == 3


def test_a_later_question_shows_only_what_changed(tmp_path, monkeypatch):
    """No table again: the plays since the last answer, the trick's end when it ends, the
    counts that changed, the hand, what to beat, the menu."""
    screen, res = transcript(tmp_path, monkeypatch, SEED7, SEED7_ANSWERS)
    chunks = questions(screen)
    later = chunks[2] + chunks[3]  # after the bomb (the trick is taken), after leading H3
    golden("play_later_questions.txt", later)
    assert not any(SEAT_PICTURE.search(line) for line in later.splitlines())
    assert "  → seat 0 takes the trick" in chunks[2] and "trick 2" in chunks[3]
    assert later.count("your hand (") == 2 and "playing level" not in later
    assert check_counts(chunks) >= 6
    assert all(len(line) <= 100 for line in chunks[3].splitlines()[:-1])


def test_q_saves_and_stops_with_exit_0_and_the_game_resumes(tmp_path, monkeypatch):
    screen, res = transcript(tmp_path, monkeypatch, SEED7, SEED7_ANSWERS)
    assert (res.exit_code, res.stderr) == (0, "")
    golden("play_quit.txt", questions(screen)[-2] + questions(screen)[-1])
    assert screen.endswith("saved: every answer is kept in g; continue with: guandan play --resume --out g\n")
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["state"] == "interrupted"  # resumable, not finished
    assert len((tmp_path / "g" / "human.jsonl").read_text().splitlines()) == 2  # the bomb and H3
    res = runner.invoke(app, ["play", "--resume", "--out", "g", "--delay", "0"], input="q\n")
    assert res.exit_code == 0 and "(resumed: 2 saved answers replayed) deal 0" in res.stdout
    # Ctrl-C stays an interruption (exit 130); the end of piped input says so
    res = runner.invoke(app, ["play", "--resume", "--out", "g", "--delay", "0"], input="")
    assert res.exit_code == 130 and "input ended; every answer is saved" in res.stderr


def test_a_tribute_with_one_allowed_card_is_paid_with_one_line(tmp_path, monkeypatch):
    """Seed 3: the person (seat 0) finishes last in deal 0 (its partner first) and pays deal 1's
    tribute to its partner (rules.md §10: the last pays the first); the only allowed card is
    its red joker. No question is asked."""
    args = ["--seed", "3", "--seat", "0", "--max-deals", "2"]
    screen, res = transcript(tmp_path, monkeypatch, args, ["1", "p"] * 300)
    assert res.exit_code == 0, res.output
    deal1 = screen[screen.index("══ deal 1 ══") :]
    opening = questions(deal1)[0]
    golden("play_forced_tribute.txt", opening)
    rec = [json.loads(line) for line in (tmp_path / "g" / "deals-00000.jsonl").read_text().splitlines()][1]
    paid = rec["tribute"]["payments"][0]
    assert paid["from"] == 0 and rec["tribute"]["kind"] == "single"
    # oracle: the highest card by power of the logged hand, the wild (♥ level card) left out
    level = LEVEL_TOKENS.index(rec["level"])
    hand = [f for f in parse_cards(rec["hands"][0]) if f != level * 4 + 1]
    best = max(POWER[level][RANK_OF[f]] for f in hand)
    allowed = sorted({f for f in hand if POWER[level][RANK_OF[f]] == best})
    assert allowed == list(parse_cards(paid["card"]))
    line = f"your tribute is {paid['card']}: the only card allowed (your highest by power, ♥ level cards excluded; §10)"
    assert (
        line in opening.splitlines()
        and "your tribute card" not in opening
        and "allowed tribute" not in opening
    )
    saved = [json.loads(x) for x in (tmp_path / "g" / "human.jsonl").read_text().splitlines()]
    assert {"deal": 1, "phase": "tribute", "answer": paid["card"]} in saved  # journaled like any answer


@pytest.mark.parametrize(
    ("seed", "cards", "first", "second", "logged"),
    [
        (
            18,
            "H2 H2 S10 H10 C10",
            "full house 10  H2 H2 S10 H10 C10",
            "bomb 10  H2=10 H2=10 S10 H10 C10",
            "bomb:T",
        ),
        (
            23,
            "C8 C9 C10 CJ CQ",
            "straight Q   C8 C9 C10 CJ CQ",
            "straight flush Q   C8 C9 C10 CJ CQ",
            "straight_flush:Q",
        ),
    ],
)
def test_cards_that_read_two_ways_ask_which_reading_through_the_command(
    tmp_path, monkeypatch, seed, cards, first, second, logged
):
    """Seeds 18 and 23: seat 0 leads the first trick holding cards that are a full house or a
    bomb (two wilds with three 10s), a straight or a straight flush (five clubs). The question
    comes up, an empty answer goes back to the play question, and the pick is what is logged."""
    answers = [cards, "", cards, "2", "q"]
    screen, res = transcript(tmp_path, monkeypatch, ["--seed", str(seed), "--seat", "0"], answers)
    assert res.exit_code == 0, res.output
    asked = screen.split("you lead (cards, number, ?, h, t) > " + cards + "\n")
    assert len(asked) == 3  # asked twice: the empty answer went back to the lead
    for part in asked[1:]:
        assert part.startswith(f"these cards can be declared as:\n  1) {first}\n  2) {second}\n")
    saved = json.loads((tmp_path / "g" / "human.jsonl").read_text().splitlines()[0])
    assert saved["answer"].startswith(logged + " ")  # the second reading, as picked
    assert f"  seat 0  {second}  (22 left)" in screen


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_whole_deal_in_a_terminal_of_100_columns(tmp_path):
    """In colour, with suit symbols, as a person plays: every line the program writes fits
    100 columns (wrapped between words and cards, never inside one)."""
    pexpect = pytest.importorskip("pexpect", reason="pexpect drives the pseudo-terminal (dev extra)")
    import io
    import unicodedata

    from play_driver import ANSI, END, PROMPTS, WHICH, answer_with_hint, spawn

    game = tmp_path / "g"
    child = spawn(["--seed", "4", "--max-deals", "1", "--out", str(game)], tmp_path, plain=False, columns=100)
    log = io.StringIO()
    child.logfile_read = log
    answered = 0
    while True:
        i = child.expect(PROMPTS)
        if i == END:
            break
        if i == WHICH:
            child.sendline("1")
            continue
        answer_with_hint(child)
        answered += 1
    child.close()
    assert child.exitstatus == 0, log.getvalue()[-2000:]
    text = ANSI.sub("", log.getvalue()).replace("\r\n", "\n")
    assert "\x1b" not in text.replace("\x1b[?25l", "").replace("\x1b[?25h", "")
    assert answered >= 5 and "deal 0 over" in text and "♠" in text

    def columns(line: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)

    # what the program wrote: the person's typed answers are echoed after the questions
    written = [line.split(") > ")[0] for line in text.splitlines()]
    assert max(columns(line) for line in written) <= 100, max(written, key=columns)
    res = runner.invoke(app, ["verify", str(game)])
    assert res.exit_code == 0 and ": ok" in res.stdout
    assert pexpect  # imported for the skip


def test_a_return_with_one_allowed_card_is_given_with_one_line(tmp_path):
    """Level 5, the receiver's only card of natural rank 2..10 is the wild ♥5 (rules.md §10):
    it is returned at once, one line says so, nothing is asked, the answer is journaled."""
    import io

    from test_deal_scripted import CGR, _receiver_without_low_cards

    from guandan_cli.engine.observation import observe
    from guandan_cli.interactive.seat import Journal, TerminalSeat
    from guandan_cli.interactive.terminal import Screen
    from guandan_cli.view.table import Style

    cards = "H5 SJ SJ HJ HJ CJ CJ DJ DJ SQ SQ HQ HQ CQ CQ DQ DQ SK SK HK HK CK CK DK DK SA SA"
    deal = _receiver_without_low_cards(CGR, 3, cards)
    obs = observe(deal, 1)
    out = io.StringIO()

    def ask(question: str) -> str:
        raise AssertionError(f"asked {question!r}")

    journal = Journal(tmp_path / "human.jsonl", resume=False)
    seat = TerminalSeat(1, ["a", "you", "c", "d"], Screen(False, file=out), Style.plain(), journal, ask=ask)
    seat.deal_index = 1
    assert seat.choose(obs) == parse_cards("H5")[0]
    journal.close()
    assert out.getvalue() == (
        f"you return H5 to seat {obs.return_to}: the only card allowed "
        "(natural rank 2..10, else your lowest; §10, §12)\n"
    )
    saved = json.loads((tmp_path / "human.jsonl").read_text())
    assert saved == {"deal": 1, "phase": "return", "answer": "H5"}
