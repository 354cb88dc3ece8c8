"""`guandan table`: the game of `play` in a browser. Over its WebSocket (whole games, every
message checked against the deal for hidden cards), and in headless Chromium (skips with a
reason where Chromium or its driver is missing)."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("websockets", reason="the web table's server is websockets")

from table_driver import TableProcess, play_over_websocket  # noqa: E402

from guandan_cli.engine.deal import Deal  # noqa: E402
from guandan_cli.review.walk import load_deal  # noqa: E402

SEAT = 1


def _card_groups(value) -> list[Counter]:
    """Every group of cards (a list of JSON objects with a ``face``: a hand, a play, a menu
    option's cards) anywhere in a message, each as a multiset of faces."""
    groups: list[Counter] = []
    if isinstance(value, dict):
        for v in value.values():
            groups += _card_groups(v)
    elif isinstance(value, list):
        cards = [v for v in value if isinstance(v, dict) and "face" in v and "token" in v]
        if cards:
            groups.append(Counter(c["face"] for c in cards))
        for v in value:
            groups += _card_groups(v)
    return groups


def _seen_by_seat(run: Path, deal: int, seat: int) -> dict[int, tuple[Counter, Counter]]:
    """For each count of public events: the seat's hand then and every card made public so far
    (the deal replayed from the log the runner wrote); where hidden tribute steps share a count,
    the union."""
    logged = load_deal(run, 0, deal)
    d = Deal(logged.setup)
    out: dict[int, tuple[Counter, Counter]] = {}

    def note() -> None:
        hand = Counter(d.hands[seat])
        public: Counter = Counter()
        for ev in d.events:
            public += (
                Counter(ev.combo.cards)
                if ev.combo is not None
                else Counter([ev.card] if ev.card >= 0 else [])
            )
        k = len(d.events)
        was_hand, was_public = out.get(k, (Counter(), Counter()))
        out[k] = (hand | was_hand, public | was_public)

    note()
    for _seat, action in logged.actions:
        d.apply(action)
        note()
    return out


def check_no_hidden_card(messages: list[dict], run: Path, seat: int) -> int:
    """Every card in every message is the seat's own or public at that moment; returns the
    number of messages checked."""
    seen = {}
    events = 0
    deal = 0
    checked = 0
    for m in messages:
        if m["type"] == "state":
            deal, events = m["deal"], m["view"]["events"]
            hand = Counter(c["face"] for c in m["view"]["hand"])
            if deal not in seen:
                seen[deal] = _seen_by_seat(run, deal, seat)
            own, public = seen[deal][events]
            assert hand <= own, f"message {m['n']}: a hand that is not seat {seat}'s: {hand - own}"
        if deal not in seen:
            continue
        own, public = seen[deal][events]
        for group in _card_groups(m):
            extra = group - own - public
            assert not extra, f"message {m['n']} ({m['type']}) shows hidden cards {dict(extra)}"
        checked += 1
    return checked


def test_a_whole_match_over_the_websocket_is_logged_verified_reviewed_and_leaks_nothing(tmp_path):
    from click.testing import CliRunner

    from guandan_cli.cli.app import app

    out = tmp_path / "g"
    table = TableProcess(
        ["--seat", str(SEAT), "--seed", "4", "--max-deals", "2", "--out", str(out)], tmp_path
    )
    try:
        messages = play_over_websocket(table.ws_url, until="match_over")
        assert json.loads((out / "manifest.json").read_text())["state"] == "complete"
        over = [m for m in messages if m["type"] == "deal_over"]
        assert [m["deal"] for m in over] == [0, 1]
        asks = [m for m in messages if m["type"] == "ask"]
        assert len(asks) > 10 and all(m["options"] for m in asks)
        for deal in (0, 1):  # 接风 named at each lead the log counts as one (rules.md §7, §12)
            named = [
                m for m in messages if m["type"] == "state" and m["deal"] == deal and "接风" in m["note"]
            ]
            record = json.loads((out / "deals-00000.jsonl").read_text().splitlines()[deal])
            assert len(named) == record["derived"]["jiefeng"], (deal, [m["note"] for m in named])
        checked = check_no_hidden_card(messages, out, SEAT)
        assert checked >= len(messages) - 2, (checked, len(messages))  # all but what came before a state
        with urllib.request.urlopen(table.url + "review/0?worlds=2", timeout=120) as page:
            html = page.read().decode()
        assert html.startswith("<!DOCTYPE html>") and "guandan review" in html
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(table.url + "review/7", timeout=30)
    finally:
        code, _, err = table.stop()
    assert code == 0, err  # Ctrl-C after the match: an ordinary end
    res = CliRunner().invoke(app, ["verify", str(out)])
    assert res.exit_code == 0, res.output
    human = [json.loads(line) for line in (out / "human.jsonl").read_text().splitlines()]
    assert len(human) >= len(asks)


def test_a_game_stopped_mid_deal_resumes_where_it_stopped(tmp_path):
    out = tmp_path / "g"
    args = ["--seat", str(SEAT), "--seed", "6", "--max-deals", "1", "--out", str(out)]
    table = TableProcess(args, tmp_path)
    first = play_over_websocket(table.ws_url, answers=5)
    code, _, err = table.stop()
    assert code == 130, err
    assert "every answer is saved: guandan table --resume --out" in err
    saved = (out / "human.jsonl").read_text().splitlines()
    assert len(saved) >= 5
    question = [m for m in first if m["type"] == "ask"][-1]  # asked, not answered

    table = TableProcess(["--resume", "--out", str(out)], tmp_path)
    try:
        again = play_over_websocket(table.ws_url, until="match_over")
        opening = next(m for m in again if m["type"] == "ask")
        assert opening["options"] == question["options"] and opening["deal"] == question["deal"]
    finally:
        code, _, err = table.stop()
    assert code == 0, err
    assert json.loads((out / "manifest.json").read_text())["state"] == "complete"


def test_a_second_tab_gets_the_table_and_the_open_question_and_both_tabs_see_the_game(tmp_path):
    """A second browser tab (or a reload) is served the latest state and the question still open;
    an answer from either tab is taken once, both see what follows, and closing the first tab
    leaves the game to the second."""
    from websockets.sync.client import connect

    def answer(ws, message: dict) -> None:
        if message["type"] == "ask":
            text = " ".join(c["token"] for c in message["options"][0]["cards"])
            ws.send(json.dumps({"type": "answer", "text": text}))
        elif message["type"] == "which":
            ws.send(json.dumps({"type": "which", "index": 1}))

    out = tmp_path / "g"
    table = TableProcess(
        ["--seat", str(SEAT), "--seed", "6", "--max-deals", "1", "--out", str(out)], tmp_path
    )
    try:
        with connect(table.ws_url) as first:
            seen = []
            while sum(m["type"] == "ask" for m in seen) < 3:  # answer two questions, leave the third open
                seen.append(json.loads(first.recv(timeout=60)))
                if sum(m["type"] == "ask" for m in seen) < 3:
                    answer(first, seen[-1])
            open_question, latest_state = seen[-1], [m for m in seen if m["type"] == "state"][-1]
            with connect(table.ws_url) as second:
                opening = [json.loads(second.recv(timeout=60)) for _ in range(3)]
                assert [m["type"] for m in opening] == ["hello", "state", "ask"]
                assert opening[1] == latest_state and opening[2] == open_question
                answer(second, open_question)
                after_second = json.loads(second.recv(timeout=60))
                assert json.loads(first.recv(timeout=60)) == after_second  # both tabs see it
                assert after_second["type"] == "state"
                first.close()
                rest = [after_second]
                while rest[-1]["type"] != "match_over":  # the second tab plays the deal out alone
                    rest.append(json.loads(second.recv(timeout=60)))
                    answer(second, rest[-1])
    finally:
        code, _, err = table.stop()
    assert code == 0, err
    assert json.loads((out / "manifest.json").read_text())["state"] == "complete"
    logged = load_deal(out, 0, 0)
    answers = (out / "human.jsonl").read_text().splitlines()
    assert len(answers) == sum(seat == SEAT for seat, _ in logged.actions)  # each decision taken once


def test_bad_answers_are_refused_with_the_rule(tmp_path):
    from websockets.sync.client import connect

    out = tmp_path / "g"
    # seed 2: seat 3 leads the first trick of the match (Match(match_seed(2, 0)).next_setup())
    table = TableProcess(["--seat", "3", "--seed", "2", "--max-deals", "1", "--out", str(out)], tmp_path)
    try:
        with connect(table.ws_url) as ws:
            got = []

            def until(kind: str) -> dict:
                while True:
                    m = json.loads(ws.recv(timeout=60))
                    got.append(m)
                    if m["type"] == kind:
                        return m

            ask = until("ask")
            hand = next(m for m in reversed(got) if m["type"] == "state")["view"]["hand"]
            ws.send(json.dumps({"type": "answer", "text": "SB SB SB"}))
            assert "two decks hold at most 2 copies" in until("refused")["message"]
            low = hand[0]  # the lowest card, and one of another rank that is no wild card
            other = next(c for c in hand if c["rank"] != low["rank"] and not c["wild"])
            ws.send(json.dumps({"type": "check", "text": f"{low['token']} {other['token']}"}))
            check = until("check")
            assert check["ok"] is False and "§" in check["message"], check
            ws.send(json.dumps({"type": "answer", "text": "p"}))
            refused = until("refused")
            assert refused["message"] == "you lead this trick and must play: the leader cannot pass (§7)"
            ws.send("not json")
            assert until("refused")["message"] == "a message is one JSON object"
            assert ask["can_pass"] is False
    finally:
        table.stop()


#: what the page shows when a wait times out (the review pane's status and the frame's page)
_STATE = """const f = document.getElementById("review-frame");
return [document.getElementById("review-status")?.textContent, f?.src,
        f?.contentDocument?.body?.innerText?.slice(0, 300) ?? null];"""


def _wait(d, condition, seconds: float = 90.0, what: str = "the page"):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {d.execute_script(_STATE)!r}")


def _click(d, css: str, index: int = 0) -> None:
    """Click the ``index``-th element matching ``css``, found afresh if the page redrew it."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    for _ in range(20):
        try:
            d.find_elements(By.CSS_SELECTOR, css)[index].click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError(f"{css} kept being redrawn")


def test_a_deal_played_by_clicks_in_chromium_then_reviewed_and_read_at_420_px(tmp_path):
    """Headless Chromium: an illegal selection is refused with its rule, the whole deal is played
    by clicking the page's own legal list and the Play button, the review link appears, the run
    verifies; at 420 px nothing is cut sideways and the hand is on the first screen."""
    from browser import driver, screenshot_dir
    from click.testing import CliRunner
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from guandan_cli.cli.app import app

    out = tmp_path / "g"
    # seed 2: seat 3 leads the first trick (its first question is a lead)
    table = TableProcess(["--seat", "3", "--seed", "2", "--max-deals", "1", "--out", str(out)], tmp_path)
    try:
        with driver(tmp_path / "profile", size=(1280, 1000)) as d:
            d.get(table.url)
            asked = lambda: not d.find_element(By.ID, "play").get_attribute("disabled")  # noqa: E731
            _wait(d, asked, what="the first question")
            cards = d.execute_script(
                "return [...document.querySelectorAll('#hand .card')].map(c => [c.dataset.token, c.className])"
            )
            ranks = [token[1:] for token, _ in cards]
            other = next(i for i, (_, cls) in enumerate(cards) if ranks[i] != ranks[0] and "wild" not in cls)
            _click(d, "#hand .card", 0)
            _click(d, "#hand .card", other)
            # the line answers each click in turn: the last answer names the rule
            check = _wait(
                d, lambda: "§" in d.find_element(By.ID, "check").text, what="the rule on the check line"
            )
            check = d.find_element(By.ID, "check").text
            assert "§" in check and d.find_element(By.ID, "check").get_attribute("class") == "bad", check
            _click(d, "#clear")
            plays, answered = 0, None
            asking = lambda: d.execute_script("return window.guandanAsking()")  # noqa: E731
            while not d.find_elements(By.ID, "review-0"):
                n = asking()
                if n is not None and n != answered:
                    if not d.execute_script("return document.getElementById('legal').open"):
                        _click(d, "#legal summary")
                    _click(d, "#legal .option")
                    _click(d, "#play")
                    plays, answered = plays + 1, n
                if d.find_elements(By.CSS_SELECTOR, "#which button"):
                    _click(d, "#which button")
                _wait(
                    d,
                    lambda: (
                        asking() not in (None, answered)  # noqa: B023
                        or d.find_elements(By.ID, "review-0")
                        or d.find_elements(By.CSS_SELECTOR, "#which button")
                    ),
                    what="the next question",
                )
            assert plays >= 5
            shots = screenshot_dir(tmp_path)
            d.save_screenshot(str(shots / "web-table.png"))
            # the deal's review opens over the table, in the page: the review page of seat 3's decisions
            _click(d, "#review-0")
            assert d.find_element(By.ID, "reviewpane").is_displayed()
            _wait(d, lambda: d.find_element(By.ID, "review-status").text == "", 180, "the review in the page")
            d.switch_to.frame(d.find_element(By.ID, "review-frame"))
            summary = _wait(d, lambda: d.find_elements(By.ID, "summary"), 30, "the review page's summary")
            assert "accuracy" in summary[0].text
            body = d.find_element(By.TAG_NAME, "body")
            _wait(
                d,
                lambda: d.find_elements(By.ID, "decision") or body.send_keys(Keys.ARROW_RIGHT),
                30,
                "a decision",
            )
            decision = d.find_element(By.ID, "decision")
            assert decision.get_attribute("data-seat") == "3"
            hand = Counter(
                c.get_attribute("data-face") for c in d.find_elements(By.CSS_SELECTOR, "#seat-bottom .card")
            )
            for row in d.find_elements(
                By.CSS_SELECTOR, "#review tr[data-cards]"
            ):  # plays from the hand before
                assert not Counter(row.get_attribute("data-cards").split()) - hand
            d.switch_to.default_content()
            d.save_screenshot(str(shots / "web-table-review.png"))
            d.switch_to.frame(d.find_element(By.ID, "review-frame"))
            d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)  # Esc in the review itself
            d.switch_to.default_content()
            _wait(
                d,
                lambda: not d.find_element(By.ID, "reviewpane").is_displayed(),
                10,
                "Esc to close the review",
            )
            d.set_window_size(420, 900)
            width = d.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1], f"cut sideways at 420 px: {width}"
            top = d.execute_script("return document.getElementById('hand').getBoundingClientRect().top")
            assert top < 900, f"the hand starts at {top} px, below the first screen"
            d.save_screenshot(str(shots / "web-table-420.png"))
            _click(d, "#review-0")  # the review, at 420 px: made once, so at once; nothing cut either
            _wait(d, lambda: d.find_element(By.ID, "review-status").text == "", 60, "the review again")
            d.switch_to.frame(d.find_element(By.ID, "review-frame"))
            width = d.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert width[0] <= width[1] <= 420, f"the review is cut sideways at 420 px: {width}"
            d.switch_to.default_content()
    finally:
        code, _, err = table.stop()
    assert code == 0, err
    assert CliRunner().invoke(app, ["verify", str(out)]).exit_code == 0


def test_a_search_hint_gives_three_plays_with_values_intervals_and_reasons():
    """The table's hint with `--hint search`: the best three plays, best first, each with its
    value, interval and what it does to the hand; the values are evaluate's at seed 0 (review's)."""
    import random

    from guandan_cli.strategies.registry import load_strategy

    from guandan_cli.engine import deal_hands
    from guandan_cli.engine.deal import DealSetup
    from guandan_cli.engine.observation import observe
    from guandan_cli.web.seat import valued_lines

    obs = observe(Deal(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0)), 0)
    bot = load_strategy("search:worlds=4")(0, random.Random(5))
    lines = valued_lines(obs, bot)
    values = sorted(bot.evaluate(obs, seed=0), key=lambda v: -v.mean)[:3]
    assert len(lines) == 3
    for n, (line, v) in enumerate(zip(lines, values), 1):
        assert (
            line.startswith(f"{n}. ")
            and f": {v.mean:+.2f} levels [{v.low:+.2f}, {v.high:+.2f}] over {v.n} worlds · " in line
        )
        assert "groups left" in line or line.endswith("out")


def test_in_chromium_a_game_stopped_mid_deal_resumes_in_the_reloaded_page(tmp_path):
    """The server stopped (Ctrl-C) after a few plays made by clicks; `guandan table --resume` on a
    new port, the page opened again: the same hand and the same question, and play goes on."""
    from browser import driver
    from selenium.webdriver.common.by import By

    out = tmp_path / "g"
    table = TableProcess(["--seat", "3", "--seed", "2", "--max-deals", "1", "--out", str(out)], tmp_path)
    with driver(tmp_path / "profile", size=(1280, 1000)) as d:
        try:
            d.get(table.url)
            asking = lambda: d.execute_script("return window.guandanAsking()")  # noqa: E731
            answered = None
            for _ in range(3):  # three plays by clicks, from the page's own legal list
                n = _wait(d, lambda: asking() not in (None, answered) and asking(), what="a question")  # noqa: B023
                if not d.execute_script("return document.getElementById('legal').open"):
                    _click(d, "#legal summary")
                _click(d, "#legal .option")
                _click(d, "#play")
                _pick_a_declaration_if_asked(d)
                answered = n
            _wait(d, lambda: asking() not in (None, answered), what="the fourth question")
            hand = sorted(
                c.get_attribute("data-token") for c in d.find_elements(By.CSS_SELECTOR, "#hand .card")
            )
            question = d.find_element(By.ID, "question").text
        finally:
            code, _, err = table.stop()
        assert code == 130 and "guandan table --resume" in err, err
        again = TableProcess(["--resume", "--out", str(out)], tmp_path)
        try:
            d.get(again.url)
            resumed = _wait(d, lambda: d.execute_script("return window.guandanAsking()"), what="the question")
            shown = sorted(
                c.get_attribute("data-token") for c in d.find_elements(By.CSS_SELECTOR, "#hand .card")
            )
            assert shown == hand and d.find_element(By.ID, "question").text == question
            _click(d, "#legal summary")
            _click(d, "#legal .option")
            _click(d, "#play")
            _pick_a_declaration_if_asked(d)
            _wait(
                d,
                lambda: d.execute_script("return window.guandanAsking()") != resumed,
                what="the answer taken",
            )
        finally:
            again.stop()
    saved = (out / "human.jsonl").read_text().splitlines()
    assert len(saved) >= 4  # the three answers before the stop, and the one after the resume


def _pick_a_declaration_if_asked(d) -> None:
    """Cards a wild makes ambiguous: the page asks which declaration; take the first."""
    import time

    from selenium.webdriver.common.by import By

    time.sleep(0.2)
    if d.find_elements(By.CSS_SELECTOR, "#which button"):
        _click(d, "#which button")
