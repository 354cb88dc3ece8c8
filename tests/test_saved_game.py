"""The finished deals of an unfinished `guandan play` game (interactive/saved_game.py), against
the log that the runner writes once the same game is played to its end."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from guandan_cli.interactive.play import GameSpec, PlayInputError, play_game, seat_strategies
from guandan_cli.interactive.saved_game import finished_deals
from guandan_cli.interactive.seat import InputEnded
from guandan_cli.interactive.terminal import Screen
from guandan_cli.review.walk import check_replays, load_deal
from guandan_cli.view.table import Style

SEED, SEAT = 11, 2


def _play(out: Path, stop_at_deal: int | None) -> None:
    """A game of two deals where the person always answers ``1`` (the menu's first play, or the
    first allowed card); with ``stop_at_deal``, they type q at that deal's first question."""
    game = GameSpec(
        out, SEAT, seat_strategies(SEAT, "heuristic,greedy"), SEED, "cgr2022", max_deals=2, deal_review=False
    )

    def ask(question: str) -> str:
        saved = out / "human.jsonl"
        if stop_at_deal is not None and saved.exists():
            deals = [json.loads(line)["deal"] for line in saved.read_text().splitlines()]
            if stop_at_deal in deals:
                raise InputEnded("q")
        return "1"

    screen = Screen(False, file=io.StringIO())
    try:
        play_game(game, resume=False, screen=screen, style=Style.plain(), delay=0, ask=ask)
    except KeyboardInterrupt:
        assert stop_at_deal is not None


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("games")
    _play(root / "whole", None)
    _play(root / "half", stop_at_deal=1)
    return root / "whole", root / "half"


def test_the_finished_deal_of_an_unfinished_game_is_the_deal_the_log_records(games):
    whole, half = games
    assert json.loads((whole / "manifest.json").read_text())["state"] == "complete"
    assert json.loads((half / "manifest.json").read_text())["state"] != "complete"
    deals = finished_deals(half)
    assert [d.deal for d in deals] == [0]  # deal 1 was stopped at its first question
    logged = load_deal(whole, 0, 0)  # the runner's record of the same deal, played to the end
    got = deals[0]
    assert got.setup == logged.setup
    assert got.actions == logged.actions
    assert got.names == logged.names and got.names[SEAT] == "human"
    assert (got.match_seed, got.deal_seed, got.end) == (logged.match_seed, logged.deal_seed, logged.end)
    check_replays(got)


def test_no_answer_left_means_no_finished_deal(games, tmp_path):
    _, half = games
    copy = tmp_path / "copy"
    shutil.copytree(half, copy)
    (copy / "human.jsonl").write_text("")
    assert finished_deals(copy) == []


def test_a_saved_answer_that_does_not_fit_names_its_line(games, tmp_path):
    _, half = games
    copy = tmp_path / "copy"
    shutil.copytree(half, copy)
    lines = (copy / "human.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    entry["deal"] = 5
    lines[0] = json.dumps(entry)
    (copy / "human.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(PlayInputError, match=r"human\.jsonl:1: saved answer for deal 5"):
        finished_deals(copy)
    (copy / "human.jsonl").write_text("garbage\n" + "\n".join(lines[1:]) + "\n")
    with pytest.raises(PlayInputError, match=r"human\.jsonl:1: not a JSON line"):
        finished_deals(copy)


def test_a_finished_game_or_a_run_of_bots_is_not_a_saved_game(games, tmp_path):
    whole, _ = games
    with pytest.raises(PlayInputError, match="is finished"):
        finished_deals(whole)
    with pytest.raises(PlayInputError, match="nothing to resume"):
        finished_deals(tmp_path)


def test_review_reads_a_game_whose_match_goes_on(games):
    """`guandan review` of a saved game before its match ends: the deals that ended, and one line
    naming the deal that has not."""
    from click.testing import CliRunner

    from guandan_cli.cli.app import app
    from guandan_cli.review.walk import decisions

    _, half = games
    runner = CliRunner()
    res = runner.invoke(app, ["review", str(half), "--seat", str(SEAT), "--worlds", "2", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = [row for row in map(json.loads, res.stdout.splitlines()) if "summary" not in row]
    (deal,) = finished_deals(half)
    assert [r["index"] for r in rows] == [d.index for d in decisions(deal, [SEAT])]
    assert {(r["match"], r["deal"], r["seat"], r["strategy"]) for r in rows} == {(0, 0, SEAT, "human")}
    res = runner.invoke(app, ["review", str(half), "--deal", "1"])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        f"guandan: error: deal 1 of the game in {half} has not ended yet (only deal 0 has); "
        f"play on with: guandan play --resume --out {half}"
    )


def test_r_at_a_deals_end_shows_its_review_and_the_summary_is_the_records(tmp_path):
    """`play` reviews deal 0 the moment it ends (the match goes on): `r` prints each decision and
    the deal's summary line, whose figures are those of the decision records of the same review
    (`guandan review` of the saved game, same budget)."""
    from guandan_cli.interactive.deal_review import DealReviewer, verdict_words
    from guandan_cli.review.core import review_deal
    from guandan_cli.review.evaluators import evaluator_maker
    from guandan_cli.review.summary import seat_summary, severity

    out, worlds = tmp_path / "g", 4
    game = GameSpec(out, SEAT, seat_strategies(SEAT, "heuristic,greedy"), SEED, "cgr2022", max_deals=2)
    questions: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        if question.startswith("deal 0 over: r reviews"):
            return "r" if questions.count(question) == 1 else ""
        if question.startswith("deal "):
            raise AssertionError(f"unexpected: {question}")
        if any(q.startswith("deal 0 over") for q in questions) and len(questions) > 3 + questions.index(
            next(q for q in questions if q.startswith("deal 0 over"))
        ):
            raise InputEnded("q")  # a few questions into deal 1: the match is not over
        return "1"

    screen_text = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        play_game(
            game,
            resume=False,
            screen=Screen(False, file=screen_text),
            style=Style.plain(),
            delay=0,
            ask=ask,
            reviewer=DealReviewer(out, SEAT, Style.plain(), worlds=worlds),
        )
    assert json.loads((out / "manifest.json").read_text())["state"] != "complete"
    shown = screen_text.getvalue().splitlines()
    (deal,) = finished_deals(out)
    maker, _ = evaluator_maker(deal.setup.rules)
    records = list(review_deal(deal, maker, [SEAT], worlds=worlds))
    summary = seat_summary(records)
    assert summary.decisions == len(records) > 5
    assert summary.total_loss == pytest.approx(sum(max(r.loss, 0) for r in records))
    assert summary.mistakes == sum(severity(r) == "mistake" for r in records)
    assert f"deal 0: {verdict_words(summary)}" in shown
    decision_lines = [line for line in shown if line.startswith("trick ") and f" · seat {SEAT} " in line]
    assert len(decision_lines) == len(records)
    assert questions.count("deal 0 over: r reviews your decisions, Enter goes on > ") == 2
