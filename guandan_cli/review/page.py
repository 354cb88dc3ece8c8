"""The replay page: one self-contained HTML file that replays logged deals at a card table.

Four seats around a table with their hands drawn as cards (suits in colour, the wild card
marked), the current trick in the middle, a timeline of the deal's plays, step forward and back
with the buttons or the arrow keys (Home and End jump), open hands or one seat's view. With a
review (``guandan review --html``) each reviewed decision shows its alternatives with their
values and the timeline marks the mistakes; ``guandan replay --html`` and ``guandan watch
--html`` write the same page without values.

Everything is inline (style, script and the deal data as JSON): the file opens offline.

>>> import random
>>> from guandan_cli.engine import deal_hands
>>> from guandan_cli.engine.deal import DealSetup
>>> from guandan_cli.review.walk import LoggedDeal
>>> logged = LoggedDeal.played(DealSetup(hands=deal_hands(random.Random(1)), level=0, first_leader=0), ["greedy"] * 4)
>>> page = render_page([deal_data(logged)], title="a deal")
>>> page.startswith("<!DOCTYPE html>") and 'id="trick"' in page and "http" not in page.split("</style>")[1]
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence

from guandan_cli.engine.cards import FACE_NAMES, FACE_SYMBOLS
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PLAY, Deal
from guandan_cli.engine.match import level_token
from guandan_cli.view.names import strategy_names
from guandan_cli.view.table import sort_by_power, wild_meanings

from .core import DecisionReview
from .walk import LoggedDeal, table_states

PLACE_NAMES = ("1st", "2nd", "3rd", "4th")
#: a joker as a play's key, as the terminal and the reasons name it (the page's 中文: 小王 / 大王)
JOKER_KEYS = {"SB": "small joker", "HR": "big joker"}


def card_name(face: int) -> str:
    """``♥A``, or ``小王 small joker`` / ``大王 big joker`` (as the terminal and the web table name them)."""
    return {52: "小王 small joker", 53: "大王 big joker"}.get(face) or FACE_SYMBOLS[face]


def combo_label(combo: object, level: int) -> str:
    """``pair 7``, ``straight 9 (♥2 = K)``, or ``pass``: the declaration without the cards.

    >>> combo_label(Combo.from_text("straight:7 S3 H2 D5 C6 S7"), 0)
    'straight 7 (♥2 = 4)'
    """
    if not isinstance(combo, Combo) or combo[0] == "pass":
        return "pass"
    key = JOKER_KEYS.get(combo.key) or ("10" if combo.key == "T" else combo.key)
    text = f"{combo.type.replace('_', ' ')} {key}"
    means = wild_meanings(combo, level)
    if means:
        wild = FACE_SYMBOLS[level * 4 + 1]
        text += " (" + ", ".join(f"{wild} = {m.replace('T', '10')}" for m in means) + ")"
    return text


def _action(action: object, level: int) -> dict:
    """A play as the page draws it: its label, cards, and its type and key (the page's 中文 names them)."""
    if not isinstance(action, Combo) or action[0] == "pass":
        return {"label": "pass", "cards": [], "type": "pass", "key": ""}
    key = "10" if action.key == "T" else action.key
    return {"label": combo_label(action, level), "cards": list(action[2]), "type": action.type, "key": key}


def _tribute_lines(logged: LoggedDeal) -> list[str]:
    """Tribute and return as the page says them (no CJK: the page may lack the fonts)."""
    deal = Deal(logged.setup)
    for _seat, action in logged.actions:
        if deal.phase == PLAY:
            break
        deal.apply(action)
    kind = deal.tribute_kind
    if kind == "none":
        first = "first deal of the match" if logged.setup.previous is None else "switched off"
        return [f"no tribute ({first}); seat {deal.to_move} leads"]
    if kind == "resisted":
        return [f"tribute resisted (both big jokers with the payers); seat {deal.to_move} leads"]
    lines = [
        f"tribute ({kind}): "
        + "; ".join(f"seat {p} pays {card_name(c)} to seat {r}" for p, r, c in deal.tributes)
    ]
    lines.append(
        "return: " + "; ".join(f"seat {g} returns {card_name(c)} to seat {r}" for g, r, c in deal.returns)
    )
    lines.append(f"seat {deal.to_move} leads")
    return lines


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 4)


def _plays_text(plays) -> str:
    from .reasons import move_name

    return ", ".join(f"seat {seat} {move_name(a)}" for seat, a in plays) or "the deal ends"


def _review_data(r: DecisionReview, level: int) -> dict:
    return {
        "seat": r.seat,
        "context": r.context,
        "played": _action(r.played, level),
        "playedValue": _finite(r.played_value),
        "best": _action(r.best, level),
        "bestValue": _finite(r.best_value),
        "loss": _finite(r.loss),
        "lossLow": _finite(r.loss_low),
        "lossHigh": _finite(r.loss_high),
        "mistake": r.mistake,
        "label": str(r.label),
        "worlds": r.worlds,
        "lossWorlds": r.loss_worlds,
        "exact": r.exact,
        "reason": r.reason,
        "then": [_plays_text(r.then_played), _plays_text(r.then_best)]
        if r.then_played or r.then_best
        else None,
        "alternatives": [
            {
                **_action(a.action, level),
                "mean": _finite(a.mean),
                "low": _finite(a.low),
                "high": _finite(a.high),
                "n": a.n,
                "firstOut": round(a.first_out, 4) if a.outcomes else None,
                "doubleFor": round(a.double_for, 4) if a.outcomes else None,
                "doubleAgainst": round(a.double_against, 4) if a.outcomes else None,
                "gain": _finite(a.loss),
                "gainLow": _finite(a.loss_low),
                "gainHigh": _finite(a.loss_high),
                "exact": a.exact,
                "reason": a.reason,
                "played": a.action == r.played,
                "best": a.action == r.best,
            }
            for a in r.alternatives
        ],
    }


def deal_data(
    logged: LoggedDeal,
    reviews: Iterable[DecisionReview] = (),
    evaluator: str = "",
    threshold: float | None = None,
) -> dict:
    """What the page shows of one deal: the table before the first play and after each one."""
    reviews = list(reviews)
    level = logged.setup.level
    readable = strategy_names(logged.names)
    steps = []
    for state in table_states(logged):
        trick = [
            {
                "seat": ev.seat,
                "kind": ev.kind,
                **_action(ev.combo if ev.kind == PLAY else None, level),
            }
            for ev in state.trick
        ]
        last = state.trick[-1] if state.trick else None
        if last is None:
            note = f"seat {state.to_move} leads"
        elif last.kind == PLAY:
            note = f"seat {last.seat} plays {combo_label(last.combo, level)}"
        else:
            note = f"seat {last.seat} passes"
        over = last is not None and state.to_move >= 0 and state.top_owner < 0
        if over:
            note += f"; the trick is over, seat {state.to_move} leads"
        steps.append(
            {
                "index": state.index,
                "hands": [sort_by_power(h, level) for h in state.hands],
                "trick": trick,
                "trickNumber": state.trick_number,
                "toMove": state.to_move,
                "finished": list(state.finished),
                "note": note,
                "trickOver": over,
            }
        )
    setup = logged.setup
    return {
        "label": f"match {logged.match} · deal {logged.deal}",
        "where": logged.where,
        "header": (
            f"match {logged.match} (seed {logged.match_seed}) · deal {logged.deal} · ruleset {setup.rules.name} · "
            f"level {level_token(level)} · team 0 at {level_token(setup.levels[0])}, team 1 at {level_token(setup.levels[1])}"
        ),
        "level": level,
        "levelToken": level_token(level),
        "wild": level * 4 + 1,
        "names": [readable[n] for n in logged.names],
        "strategies": list(logged.names),
        "tribute": _tribute_lines(logged),
        "end": [
            line.replace("上游 ", "")
            .replace("二游 ", "")
            .replace("三游 ", "")
            .replace("下游 ", "")
            .replace("  (double-down: 双下)", " (double-down)")
            for line in logged.end
        ],
        "steps": steps,
        "reviews": {str(r.index): _review_data(r, level) for r in reviews},
        "summary": _summary_data(reviews, logged),
        "focus": min((r.seat for r in reviews), default=None),
        "evaluator": evaluator,
        "threshold": threshold,
    }


def _summary_data(reviews: list[DecisionReview], logged: LoggedDeal) -> list[dict]:
    """Each reviewed seat's summary line and evaluation graph (``review.summary``)."""
    from .summary import summaries, summary_text

    readable = strategy_names(logged.names)
    names = [readable[n] for n in logged.names]
    return [
        {
            "seat": s.seat,
            "text": summary_text(s, names, f"deal {logged.deal}"),
            "graph": [[i, round(v, 4)] for i, v in s.graph],
        }
        for s in summaries(reviews)
    ]


def render_page(deals: Sequence[dict], title: str) -> str:
    """The page for ``deals`` (from :func:`deal_data`), the first shown first."""
    from guandan_cli import __version__

    data = json.dumps(
        {"title": title, "faces": list(FACE_NAMES), "places": list(PLACE_NAMES), "deals": list(deals)},
        ensure_ascii=False,
        separators=(",", ":"),
    ).replace("</", "<\\/")
    return (
        TEMPLATE.replace("{{title}}", _escape(title))
        .replace("{{version}}", _escape(__version__))
        .replace("{{data}}", data)
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="guandan {{version}}">
<title>{{title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Noto Sans", sans-serif; margin: 1em auto;
       max-width: 78em; padding: 0 1em; color: #222; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0.2em 0; }
.muted { color: #666; font-size: 0.88em; }
#controls { display: flex; gap: 0.5em; align-items: center; flex-wrap: wrap; margin: 0.6em 0; }
#controls button { font-size: 1em; padding: 0.25em 0.8em; }
#table { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr) minmax(0, 1fr); grid-template-rows: auto auto auto;
         gap: 0.6em; background: #1f6b3a; border-radius: 1em; padding: 1em; color: #fff; }
.seat { background: rgba(0,0,0,0.18); border-radius: 0.6em; padding: 0.5em 0.7em; min-height: 5.2em; }
.seat.to-move { box-shadow: 0 0 0 3px #ffd54a; }
.seat.out { opacity: 0.75; }
.seat h2 { font-size: 0.95em; margin: 0 0 0.35em 0; font-weight: 600; overflow-wrap: anywhere; }
#seat-top { grid-column: 1 / 4; grid-row: 1; justify-self: center; }
#seat-left { grid-column: 1; grid-row: 2; }
#seat-right { grid-column: 3; grid-row: 2; }
#seat-bottom { grid-column: 1 / 4; grid-row: 3; justify-self: center; }
#middle { grid-column: 2; grid-row: 2; background: rgba(255,255,255,0.08); border-radius: 0.8em;
          padding: 0.6em; min-height: 9em; }
#middle h2 { font-size: 0.95em; margin: 0 0 0.4em 0; }
#trick .play { display: flex; align-items: center; gap: 0.6em; margin: 0.25em 0; }
#trick .who { width: 4.2em; font-size: 0.85em; }
#trick .pass { color: #d6e8dc; font-style: italic; font-size: 0.9em; }
#trick .top .who { font-weight: 700; color: #ffd54a; }
.label { font-size: 0.85em; color: #e8f3ec; white-space: nowrap; }
.hand { display: flex; flex-wrap: wrap; padding-left: 0.2em; }
.cards { display: inline-flex; flex-wrap: wrap; row-gap: 0.25em; padding-left: 0.6em; }
.card { position: relative; display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
        width: 1.9em; height: 2.7em; margin-left: -0.55em; border: 1px solid #8a8a8a; border-radius: 0.22em;
        background: #fff; color: #111; font-weight: 700; line-height: 1; box-shadow: 1px 1px 2px rgba(0,0,0,0.35);
        font-size: 15px; }
.card .r { font-size: 0.95em; }
.card .s { font-size: 1.05em; }
.card.red { color: #c8102e; }
.card.joker { width: 2.7em; }
.card.joker .r { font-size: 0.62em; white-space: nowrap; }
.card.level { background: #eef4ff; }
.card.wild { background: #fff1a8; border: 2px solid #e0a800; }
.card.wild::after { content: "\2605"; position: absolute; top: -0.15em; right: 0.05em; font-size: 0.62em; color: #b07800; }
.card.back { background: repeating-linear-gradient(45deg, #2a5ca8, #2a5ca8 4px, #4474c4 4px, #4474c4 8px); border-color: #1b3f7a; }
.small .card { font-size: 12px; }
#note { margin: 0.5em 0; font-weight: 600; }
#timeline { display: flex; flex-wrap: wrap; gap: 2px; margin: 0.6em 0; }
#timeline .tick { width: 1.15em; height: 1.6em; border: 0; border-radius: 2px; padding: 0; cursor: pointer;
                  font-size: 0.7em; color: #fff; position: relative; }
#timeline .tick.s0 { background: #4a7bd0; } #timeline .tick.s1 { background: #c9823a; }
#timeline .tick.s2 { background: #2f5fb0; } #timeline .tick.s3 { background: #a4622a; }
#timeline .tick.pass { opacity: 0.45; }
#timeline .tick.reviewed::after { content: "\2022"; position: absolute; left: 0; right: 0; bottom: -0.1em; color: #fff; }
#timeline .tick.mistake { background: #d11f2f; opacity: 1; }
#timeline .tick.mistake::after { content: "!"; font-weight: 700; }
#timeline .tick.unclear { background: #8a8a8a; opacity: 1; }
#timeline .tick.unclear::after { content: "?"; font-weight: 700; }
#timeline .tick.current { outline: 2px solid #111; outline-offset: 1px; }
#review { background: #fff; border: 1px solid #ddd; border-radius: 0.6em; padding: 0.6em 0.9em; margin-top: 0.6em; }
#review table { border-collapse: collapse; margin-top: 0.4em; }
#review th, #review td { padding: 0.2em 0.7em; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
#review td.num { text-align: right; font-variant-numeric: tabular-nums; }
#review tr.played td { background: #eef4ff; }
#review tr.best td:first-child { font-weight: 700; }
#review .mistake { color: #d11f2f; font-weight: 700; }
#review .unclear { color: #666; font-weight: 700; }
#review td.why { white-space: normal; font-size: 0.85em; color: #444; min-width: 14em; }
#review p.reason { font-style: italic; }
#review .small .card { color: #111; }
#review .small .card.red { color: #c8102e; }
.legend { font-size: 0.82em; color: #555; }
#summary p { margin: 0.2em 0; font-size: 0.9em; overflow-wrap: anywhere; }
.graph { display: flex; align-items: flex-end; gap: 1px; height: 3em; margin: 0.2em 0 0.6em 0; max-width: 100%; overflow-x: auto; }
.graph button { width: 0.7em; min-width: 0.5em; padding: 0; border: 0; background: #4a7bd0; cursor: pointer; }
.graph button.neg { background: #c9823a; }
.card.chosen { box-shadow: 0 0 0 3px #3d8bfd; transform: translateY(-0.35em); z-index: 1; }
#review th { white-space: normal; vertical-align: bottom; font-size: 0.9em; }
#review .ci { display: block; font-size: 0.82em; color: #666; }
#review .scroll { max-width: 100%; overflow-x: auto; }
#review .tag { font-size: 0.8em; padding: 0 0.3em; border-radius: 0.2em; background: #eef4ff; }
#review .tag.best { background: #e3f5e6; }
#decision { font-weight: 600; }
#lang { font-size: 0.9em; }
@media (max-width: 640px) {
  body { padding: 0 0.4em; margin: 0.4em auto; }
  #table { grid-template-columns: repeat(3, minmax(0, 1fr)); padding: 0.5em; gap: 0.4em; }
  h1 { font-size: 1.05em; }
  #header, #tribute { font-size: 0.76em; margin: 0.15em 0; }
  #summary p { font-size: 0.8em; }
  .graph { height: 2em; margin-bottom: 0.3em; }
  #controls { margin: 0.3em 0; gap: 0.3em; }
  #controls button { padding: 0.15em 0.5em; }
  #middle { grid-column: 1 / 4; grid-row: 1; min-height: 4em; padding: 0.4em; }
  #middle .card { font-size: 12px; }
  #seat-bottom { grid-column: 1 / 4; grid-row: 2; justify-self: stretch; }
  #seat-left { grid-column: 1; grid-row: 3; } #seat-top { grid-column: 2; grid-row: 3; justify-self: stretch; }
  #seat-right { grid-column: 3; grid-row: 3; }
  .seat { min-height: 0; padding: 0.3em 0.4em; }
  .seat:not(#seat-bottom) .card { font-size: 9px; }
  .seat:not(#seat-bottom) h2 { font-size: 0.78em; }
  #review table, #review tbody, #review tr, #review td { display: block; }
  #review tr.head { display: none; }
  #review tr { border-bottom: 1px solid #ddd; padding: 0.3em 0; }
  #review td, #review td.num { border: 0; white-space: normal; padding: 0.05em 0; text-align: left; }
  #review td[data-h]:not(:empty)::before { content: attr(data-h) ": "; color: #666; font-weight: 400; }
  #review .ci { display: inline; margin-left: 0.4em; }
  #review td.why { min-width: 0; }
}
</style>
</head>
<body>
<header>
<h1 id="title">{{title}}</h1>
<p class="muted" id="header"></p>
<p class="muted" id="tribute"></p>
</header>
<section id="summary"></section>
<div id="controls">
<label id="deal-choice"><span data-l="deal">deal</span> <select id="deal"></select></label>
<button id="first" data-l="first" title="first (Home)">&#x00AB; first</button>
<button id="prev" data-l="back" title="back (left arrow)">&#x25C0; back</button>
<button id="next" data-l="forward" title="forward (right arrow)">forward &#x25B6;</button>
<button id="last" data-l="last" title="last (End)">last &#x00BB;</button>
<span id="position" class="muted"></span>
<label><span data-l="view">view</span> <select id="view">
<option value="open" data-l="open">open hands</option>
<option value="0" data-l="view0">seat 0's view</option><option value="1" data-l="view1">seat 1's view</option>
<option value="2" data-l="view2">seat 2's view</option><option value="3" data-l="view3">seat 3's view</option>
</select></label>
<button id="lang" type="button" title="&#x4E2D;&#x6587; / English">&#x4E2D;&#x6587;</button>
</div>
<div id="table">
<section class="seat" id="seat-top"></section>
<section class="seat" id="seat-left"></section>
<section id="middle"><h2 id="trick-title"></h2><div id="trick"></div></section>
<section class="seat" id="seat-right"></section>
<section class="seat" id="seat-bottom"></section>
</div>
<p id="note"></p>
<section id="review"></section>
<div id="timeline" aria-label="timeline of the deal's plays"></div>
<p class="legend" id="legend"></p>
<p class="muted" id="end"></p>
<script type="application/json" id="deal-data">{{data}}</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("deal-data").textContent);
const RANKS = ["2","3","4","5","6","7","8","9","10","J","Q","K","A"];
const SUITS = ["\u2660","\u2665","\u2663","\u2666"];
const SUIT_NAMES = ["spades","hearts","clubs","diamonds"];
// the page's own words in both languages; the sentences the log gives (tribute, reasons,
// summaries, the deal's end) stay in English
const LABELS = {
  en: {deal: "deal", first: "\u00ab first", back: "\u25c0 back", forward: "forward \u25b6", last: "last \u00bb", view: "view",
       open: "open hands", view0: "seat 0's view", view1: "seat 1's view", view2: "seat 2's view", view3: "seat 3's view",
       seat: "seat", team: "team", card: "card", cards: "cards", out: "out", pass: "pass", passes: "passes", plays: "plays",
       leads: "leads", trick: "trick", beforeFirst: "before the first trick", step: "step", of: "of", play: "play",
       trickOver: "the trick is over", dealOver: "deal over", toMove: "to move", lead: "lead", on: "on",
       partner: "partner", opponent: "opponent", played: "played", best: "best", loss: "loss", over: "over", worlds: "worlds",
       mistake: "MISTAKE", unclear: "unclear", why: "Why", alternative: "move", cardsCol: "cards", value: "value (95%)",
       gain: "gain over the play made (95%)", worldsCol: "worlds", outFirst: "out first",
       doubles: "double-down for / against", does: "what it does", mark: "",
       next: "next", notReviewed: "not reviewed: no choice, or another seat", noValues: "No review values on this page (guandan review --html adds them).",
       start: "Each reviewed decision shows here at the position before it: the hand as it was, the play made marked, and every alternative with its value.",
       then: "Then, in one world", afterPlayed: "after the play made", afterBest: "after the best",
       exact: "exact (two seats left, each knowing the other's hand: the race solved)",
       valuesFrom: "from seat {s}'s view only. A mistake: the loss's 95% interval lies at or above {t} levels (a close call gets more worlds first); unclear: it still holds {t} at the most worlds. Gain: the alternative's value minus the play made's, on the same worlds.",
       values: "Values", legendReview: "Timeline: one mark per play or pass (blue team 0, brown team 1, faded: pass); \u2022 a reviewed decision; red ! a mistake; grey ? unclear. A click goes to the position before that play. Keys: \u2190 \u2192 step, Home / End.",
       legendPlain: "Timeline: one mark per play or pass (blue team 0, brown team 1, faded: pass). A click goes to the position before that play. Keys: \u2190 \u2192 step, Home / End.",
       graphLabel: "expected levels before each decision (click: go there)", levels: "levels",
       places: ["1st", "2nd", "3rd", "4th"], lang: "\u4e2d\u6587",
       types: {single: "single", pair: "pair", triple: "triple", full_house: "full house", straight: "straight", tube: "tube",
               plate: "plate", bomb: "bomb", straight_flush: "straight flush", joker_bomb: "joker bomb", pass: "pass"}},
  zh: {deal: "\u5c40", first: "\u00ab \u5f00\u5934", back: "\u25c0 \u540e\u9000", forward: "\u524d\u8fdb \u25b6", last: "\u7ed3\u5c3e \u00bb", view: "\u89c6\u89d2",
       open: "\u660e\u724c", view0: "0 \u53f7\u5ea7\u89c6\u89d2", view1: "1 \u53f7\u5ea7\u89c6\u89d2", view2: "2 \u53f7\u5ea7\u89c6\u89d2", view3: "3 \u53f7\u5ea7\u89c6\u89d2",
       seat: "\u5ea7", team: "\u961f", card: "\u5f20", cards: "\u5f20", out: "\u51fa\u5b8c", pass: "\u4e0d\u8981", passes: "\u4e0d\u8981", plays: "\u51fa",
       leads: "\u5148\u51fa", trick: "\u7b2c\u51e0\u8f6e", beforeFirst: "\u7b2c\u4e00\u8f6e\u4e4b\u524d", step: "\u6b65", of: "/", play: "\u624b",
       trickOver: "\u672c\u8f6e\u7ed3\u675f", dealOver: "\u672c\u5c40\u7ed3\u675f", toMove: "\u884c\u52a8", lead: "\u9996\u51fa", on: "\u538b",
       partner: "\u961f\u53cb", opponent: "\u5bf9\u624b", played: "\u5b9e\u9645\u51fa\u724c", best: "\u6700\u4f73", loss: "\u635f\u5931", over: "\u5171", worlds: "\u4e2a\u4e16\u754c",
       mistake: "\u5931\u8bef", unclear: "\u4e0d\u786e\u5b9a", why: "\u539f\u56e0", alternative: "\u51fa\u6cd5", cardsCol: "\u724c", value: "\u4ef7\u503c (95%)",
       gain: "\u76f8\u5bf9\u5b9e\u9645\u51fa\u724c\u7684\u6536\u76ca (95%)", worldsCol: "\u4e16\u754c\u6570", outFirst: "\u5148\u51fa\u5b8c",
       doubles: "\u53cc\u4e0b \u6211\u65b9 / \u5bf9\u65b9", does: "\u5bf9\u624b\u724c\u7684\u5f71\u54cd", mark: "",
       next: "\u4e0b\u4e00\u624b", notReviewed: "\u672a\u590d\u76d8\uff1a\u522b\u65e0\u9009\u62e9\uff0c\u6216\u662f\u522b\u7684\u5ea7\u4f4d", noValues: "\u672c\u9875\u6ca1\u6709\u590d\u76d8\u6570\u503c\uff08guandan review --html \u4f1a\u52a0\u4e0a\uff09\u3002",
       start: "\u6bcf\u4e2a\u590d\u76d8\u7684\u51b3\u7b56\u90fd\u5728\u51b3\u7b56\u524d\u7684\u5c40\u9762\u663e\u793a\uff1a\u5f53\u65f6\u7684\u624b\u724c\u3001\u6807\u51fa\u7684\u5b9e\u9645\u51fa\u724c\uff0c\u548c\u6bcf\u79cd\u51fa\u6cd5\u7684\u4ef7\u503c\u3002",
       then: "\u4e4b\u540e\uff08\u67d0\u4e00\u4e2a\u4e16\u754c\uff09", afterPlayed: "\u5b9e\u9645\u51fa\u724c\u4e4b\u540e", afterBest: "\u6700\u4f73\u51fa\u6cd5\u4e4b\u540e",
       exact: "\u7cbe\u786e\uff08\u53ea\u5269\u4e24\u5ea7\uff0c\u4e92\u77e5\u624b\u724c\uff1a\u5df2\u6c42\u89e3\uff09",
       valuesFrom: "\u53ea\u7528 {s} \u53f7\u5ea7\u770b\u5f97\u5230\u7684\u4fe1\u606f\u3002\u5931\u8bef\uff1a\u635f\u5931\u7684 95% \u533a\u95f4\u4e0d\u4f4e\u4e8e {t} \u7ea7\uff08\u63a5\u8fd1\u7684\u5148\u591a\u62bd\u4e16\u754c\uff09\uff1b\u4e0d\u786e\u5b9a\uff1a\u6700\u591a\u4e16\u754c\u65f6\u533a\u95f4\u4ecd\u542b {t}\u3002\u6536\u76ca\uff1a\u540c\u4e00\u6279\u4e16\u754c\u4e0a\u8be5\u51fa\u6cd5\u7684\u4ef7\u503c\u51cf\u5b9e\u9645\u51fa\u724c\u7684\u4ef7\u503c\u3002",
       values: "\u6570\u503c", legendReview: "\u65f6\u95f4\u7ebf\uff1a\u6bcf\u624b\u4e00\u683c\uff08\u84dd 0 \u961f\uff0c\u68d5 1 \u961f\uff0c\u6de1\uff1a\u4e0d\u8981\uff09\uff1b\u2022 \u5df2\u590d\u76d8\uff1b\u7ea2 ! \u5931\u8bef\uff1b\u7070 ? \u4e0d\u786e\u5b9a\u3002\u70b9\u51fb\u5230\u8be5\u624b\u4e4b\u524d\u7684\u5c40\u9762\u3002\u6309\u952e\uff1a\u2190 \u2192\u3001Home / End\u3002",
       legendPlain: "\u65f6\u95f4\u7ebf\uff1a\u6bcf\u624b\u4e00\u683c\uff08\u84dd 0 \u961f\uff0c\u68d5 1 \u961f\uff0c\u6de1\uff1a\u4e0d\u8981\uff09\u3002\u70b9\u51fb\u5230\u8be5\u624b\u4e4b\u524d\u7684\u5c40\u9762\u3002\u6309\u952e\uff1a\u2190 \u2192\u3001Home / End\u3002",
       graphLabel: "\u6bcf\u4e2a\u51b3\u7b56\u524d\u7684\u9884\u671f\u5347\u7ea7\uff08\u70b9\u51fb\u8df3\u8f6c\uff09", levels: "\u7ea7",
       places: ["\u4e0a\u6e38", "\u4e8c\u6e38", "\u4e09\u6e38", "\u4e0b\u6e38"], lang: "English",
       types: {single: "\u5355\u5f20", pair: "\u5bf9\u5b50", triple: "\u4e09\u540c\u5f20", full_house: "\u4e09\u5e26\u4e8c", straight: "\u987a\u5b50", tube: "\u4e09\u8fde\u5bf9",
               plate: "\u94a2\u677f", bomb: "\u70b8\u5f39", straight_flush: "\u540c\u82b1\u987a", joker_bomb: "\u56db\u738b\u70b8", pass: "\u4e0d\u8981"}},
};
let lang = new URLSearchParams(location.search).get("lang") === "zh" ? "zh" : "en";
const T = (key) => LABELS[lang][key] ?? LABELS.en[key] ?? key;
let dealNo = 0, step = 0, view = "open";

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function cardEl(face, deal) {
  const c = el("span", "card");
  c.dataset.face = DATA.faces[face];
  if (face >= 52) {
    c.classList.add("joker");
    if (face === 53) c.classList.add("red");
    c.append(el("span", "r", face === 53 ? "\u5927\u738b" : "\u5c0f\u738b"), el("span", "s", "\u2605"));
    c.title = face === 53 ? "\u5927\u738b big joker" : "\u5c0f\u738b small joker";
    return c;
  }
  const r = face >> 2, s = face & 3;
  if (s === 1 || s === 3) c.classList.add("red");
  if (r === deal.level) c.classList.add("level");
  if (face === deal.wild) { c.classList.add("wild"); c.title = "wild card (the heart level card)"; }
  else c.title = RANKS[r] + " of " + SUIT_NAMES[s];
  c.append(el("span", "r", RANKS[r]), el("span", "s", SUITS[s]));
  return c;
}
function cardsEl(faces, deal, cls, marked) {
  const box = el("span", cls || "cards");
  const left = new Map();
  for (const f of marked || []) left.set(f, (left.get(f) || 0) + 1);
  for (const f of faces) {
    const c = cardEl(f, deal);
    if (left.get(f)) { c.classList.add("chosen"); left.set(f, left.get(f) - 1); }
    box.append(c);
  }
  return box;
}
function backsEl(n) {
  const box = el("span", "cards");
  for (let i = 0; i < n; i++) box.append(el("span", "card back"));
  return box;
}
function fmt(x) { return x === null || x === undefined ? "n/a" : (x >= 0 ? "+" : "") + x.toFixed(2); }
function pct(x) { return x === null || x === undefined ? "" : Math.round(100 * x) + "%"; }
function interval(lo, hi) { return lo === null || lo === undefined ? "" : "[" + fmt(lo) + ", " + fmt(hi) + "]"; }
// a play's name in the page's language: "pair 7 (♥2 = 4)" in English (from the log's side), "对子 7" in 中文
function playName(a) {
  if (lang === "en" || !a.type) return a.label;
  const wild = a.label.indexOf(" (");
  const key = {SB: "\u5c0f\u738b", HR: "\u5927\u738b"}[a.key] || a.key;
  return (T("types")[a.type] || a.type) + (key ? " " + key : "") + (wild >= 0 ? a.label.slice(wild) : "");
}
function seatName(s) { return lang === "en" ? "seat " + s : s + " \u53f7\u5ea7"; }
// the decision taken at step k: the next action, and its review if there is one
function decisionAt(deal, k) {
  const next = deal.steps[k + 1];
  if (!next) return {next: null, review: null};
  return {next: next, review: deal.reviews[String(next.index)] || null};
}
function lastOf(st) { return st.trick[st.trick.length - 1]; }

function renderSeat(box, seat, deal, st, marked) {
  box.replaceChildren();
  box.dataset.seat = seat;
  box.classList.toggle("to-move", st.toMove === seat);
  const place = st.finished.indexOf(seat);
  box.classList.toggle("out", place >= 0);
  const hand = st.hands[seat];  // sorted by power at the deal's level
  let head = seatName(seat) + " \u00b7 " + deal.names[seat] + " \u00b7 " + T("team") + " " + (seat & 1) + " \u00b7 " + hand.length + " " + (hand.length === 1 ? T("card") : T("cards"));
  if (place >= 0) head += " \u00b7 " + T("out") + " " + T("places")[place];
  if (st.toMove === seat) head = "\u25b6 " + head;
  const title = el("h2", "", head);
  title.title = deal.strategies[seat];
  box.append(title);
  const shown = view === "open" || Number(view) === seat;
  const h = el("div", "hand");
  h.dataset.shown = shown ? "yes" : "no";
  h.append(shown ? cardsEl(hand, deal, "cards", marked) : backsEl(hand.length));
  box.append(h);
}

function renderTrick(deal, st) {
  const box = document.getElementById("trick");
  box.replaceChildren();
  document.getElementById("trick-title").textContent = st.trickNumber
    ? (lang === "en" ? "trick " + st.trickNumber : "\u7b2c " + st.trickNumber + " \u8f6e") : T("beforeFirst");
  let top = -1;
  st.trick.forEach((p, i) => { if (p.kind === "play") top = i; });
  st.trick.forEach((p, i) => {
    const row = el("div", "play" + (i === top ? " top" : ""));
    row.dataset.seat = p.seat;
    row.dataset.kind = p.kind;
    row.dataset.cards = p.cards.map(f => DATA.faces[f]).join(" ");
    row.append(el("span", "who", seatName(p.seat)));
    if (p.kind === "play") row.append(cardsEl(p.cards, deal), el("span", "label", playName(p)));
    else row.append(el("span", "pass", T("pass")));
    box.append(row);
  });
}

function noteText(deal, st) {
  const last = lastOf(st);
  let note;
  if (!last) note = seatName(st.toMove) + " " + T("leads");
  else if (last.kind === "play") note = seatName(last.seat) + " " + T("plays") + " " + playName(last);
  else note = seatName(last.seat) + " " + T("passes");
  if (st.trickOver) note += "; " + T("trickOver") + ", " + seatName(st.toMove) + " " + T("leads");
  if (step === deal.steps.length - 1 && deal.end.length) note += " \u00b7 " + T("dealOver");
  return note;
}

function contextText(r) {
  if (lang === "en") return r.context;
  return r.context.replace(/^lead/, T("lead")).replace(/^on seat (\d)'s /, (m, s) => T("on") + " " + s + " \u53f7\u5ea7\u7684 ")
    .replace("(partner)", "(" + T("partner") + ")").replace("(opponent)", "(" + T("opponent") + ")").replace(/(\d+) cards?$/, "$1 \u5f20");
}

function cell(tag, cls, text, head) {
  const c = el(tag, cls, text);
  if (head) c.dataset.h = head;
  return c;
}

function renderReview(deal) {
  const box = document.getElementById("review");
  box.replaceChildren();
  const reviewed = Object.keys(deal.reviews).length > 0;
  const {next, review: r} = decisionAt(deal, step);
  if (!r) {
    if (!next) { box.append(el("p", "", deal.end.join(" \u00b7 "))); return; }
    const act = lastOf(next);
    const what = act.kind === "play" ? T("plays") + " " + playName(act) : T("passes");
    box.append(el("p", "", T("next") + ": " + seatName(act.seat) + " " + what +
      (reviewed ? " (" + T("notReviewed") + ")" : "")));
    if (step === 0) box.append(el("p", "legend", reviewed ? T("start") : T("noValues")));
    return;
  }
  const trickNo = next.trickNumber;
  const h = el("p");
  h.id = "decision";
  h.dataset.index = next.index;
  h.dataset.seat = r.seat;
  h.append((lang === "en" ? "trick " + trickNo + ", play " + next.index + ": " : "\u7b2c " + trickNo + " \u8f6e\uff0c\u7b2c " + next.index + " \u624b\uff1a") +
    seatName(r.seat) + " " + T("toMove") + " (" + contextText(r) + ") \u00b7 " + T("played") + " " + playName(r.played) + " " + fmt(r.playedValue) +
    " \u00b7 " + T("best") + " " + playName(r.best) + " " + fmt(r.bestValue) + " \u00b7 " + T("loss") + " " + fmt(r.loss) +
    (r.lossLow === null || r.exact || r.loss === 0 ? "" : " " + interval(r.lossLow, r.lossHigh) +
      (r.lossWorlds > r.worlds ? " " + T("over") + " " + r.lossWorlds + " " + T("worlds") : "")) + " ");
  if (r.mistake) h.append(el("span", "mistake", T("mistake")));
  if (r.label === "unclear") h.append(el("span", "unclear", T("unclear")));
  box.append(h);
  if (r.reason && !r.alternatives.some(a => a.played && a.best)) box.append(el("p", "reason", T("why") + ": " + r.reason));
  const t = el("table");
  const head = el("tr", "head");
  const cols = ["alternative", "cardsCol", "value", "gain", "worldsCol", "outFirst", "doubles", "does", "mark"];
  for (const c of cols) head.append(el("th", "", T(c)));
  t.append(head);
  for (const a of r.alternatives) {
    const tr = el("tr", (a.played ? "played " : "") + (a.best ? "best" : ""));
    tr.dataset.cards = a.cards.map(f => DATA.faces[f]).join(" ");
    tr.append(cell("td", "", playName(a)));
    const cards = cell("td", "small", undefined, T("cardsCol"));
    cards.append(cardsEl(a.cards, deal));
    const value = cell("td", "num", fmt(a.mean), T("value"));
    if (!a.exact) value.append(el("span", "ci", interval(a.low, a.high)));
    const gain = cell("td", "num gain", a.played ? "" : fmt(a.gain), T("gain"));
    if (!a.played && !a.exact) gain.append(el("span", "ci", interval(a.gainLow, a.gainHigh)));
    const mark = el("td");
    if (a.played) mark.append(el("span", "tag", T("played")));
    if (a.best) mark.append(" ", el("span", "tag best", T("best")));
    tr.append(cards,
      value,
      gain,
      cell("td", "num", String(a.n), T("worldsCol")),
      cell("td", "num", pct(a.firstOut), T("outFirst")),
      cell("td", "num", a.doubleFor === null ? "" : pct(a.doubleFor) + " / " + pct(a.doubleAgainst), T("doubles")),
      cell("td", "why", a.reason, T("does")),
      mark);
    t.append(tr);
  }
  const wrap = el("div", "scroll");
  wrap.append(t);
  box.append(wrap);
  if (r.then) box.append(el("p", "legend", T("then") + ": " + T("afterPlayed") + " " + r.then[0] + "; " + T("afterBest") + " " + r.then[1] + "."));
  const how = r.exact ? T("exact") : deal.evaluator + ", " + r.worlds + " " + T("worlds");
  box.append(el("p", "legend", T("values") + ": " + how + ", " +
    T("valuesFrom").replace("{s}", r.seat).replaceAll("{t}", deal.threshold)));
}

function renderTimeline(deal) {
  const box = document.getElementById("timeline");
  const key = dealNo + ":" + lang;
  if (box.dataset.deal !== key) {
    box.replaceChildren();
    box.dataset.deal = key;
    deal.steps.forEach((st, k) => {
      if (k === 0) return;
      const last = lastOf(st);
      const b = el("button", "tick s" + last.seat + (last.kind === "pass" ? " pass" : ""));
      b.dataset.step = k;
      b.dataset.index = st.index;
      const r = deal.reviews[String(st.index)];
      if (r) b.classList.add(r.mistake ? "mistake" : r.label === "unclear" ? "unclear" : "reviewed");
      b.title = T("play") + " " + st.index + ": " + seatName(last.seat) + " " + (last.kind === "play" ? playName(last) : T("pass")) +
        (r ? " \u00b7 " + T("loss") + " " + fmt(r.loss) + (r.label !== "ok" ? " (" + T(r.label) + ")" : "") : "");
      b.addEventListener("click", () => go(k - 1));
      box.append(b);
    });
  }
  // the current mark: the play about to be made at this step
  for (const b of box.children) b.classList.toggle("current", Number(b.dataset.step) === step + 1);
  document.getElementById("legend").textContent = Object.keys(deal.reviews).length ? T("legendReview") : T("legendPlain");
}

function renderSummary(deal) {
  const box = document.getElementById("summary");
  const key = dealNo + ":" + lang;
  if (box.dataset.deal === key) return;
  box.dataset.deal = key;
  box.replaceChildren();
  for (const s of deal.summary || []) {
    box.append(el("p", "", s.text));
    const graph = el("div", "graph");
    graph.setAttribute("aria-label", seatName(s.seat) + ": " + T("graphLabel"));
    for (const [index, value] of s.graph) {
      const b = el("button", value < 0 ? "neg" : "");
      b.style.height = (8 + 92 * (Math.min(3, Math.max(-3, value)) + 3) / 6) + "%";
      b.title = T("play") + " " + index + ": " + fmt(value) + " " + T("levels");
      b.dataset.index = index;
      b.addEventListener("click", () => { const k = deal.steps.findIndex(t => t.index === index); if (k > 0) go(k - 1); });
      graph.append(b);
    }
    box.append(graph);
  }
}

function render() {
  const deal = DATA.deals[dealNo];
  renderSummary(deal);
  const st = deal.steps[step];
  const {review: r} = decisionAt(deal, step);
  document.getElementById("header").textContent = deal.header + (deal.where ? " \u00b7 " + deal.where : "");
  document.getElementById("tribute").textContent = deal.tribute.join(" \u00b7 ");
  document.getElementById("position").textContent = T("step") + " " + step + " " + T("of") + " " + (deal.steps.length - 1);
  // at the bottom: the seat whose view is shown, else the reviewed seat
  const bottom = view !== "open" ? Number(view) : deal.focus ?? 0;
  const places = {bottom: bottom, right: (bottom + 1) % 4, top: (bottom + 2) % 4, left: (bottom + 3) % 4};
  for (const [where, seat] of Object.entries(places))
    renderSeat(document.getElementById("seat-" + where), seat, deal, st, r && r.seat === seat ? r.played.cards : null);
  renderTrick(deal, st);
  document.getElementById("note").textContent = noteText(deal, st);
  document.getElementById("end").textContent = step === deal.steps.length - 1 ? deal.end.join(" \u00b7 ") : "";
  renderTimeline(deal);
  renderReview(deal);
  document.body.dataset.step = step;
}
function go(k) {
  const n = DATA.deals[dealNo].steps.length - 1;
  step = Math.max(0, Math.min(n, k));
  render();
}
function setLanguage(to) {
  lang = to;
  document.documentElement.lang = lang === "en" ? "en" : "zh";
  document.getElementById("lang").textContent = T("lang");
  for (const e of document.querySelectorAll("[data-l]")) e.textContent = T(e.dataset.l);
  render();
}
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("prev").addEventListener("click", () => go(step - 1));
document.getElementById("next").addEventListener("click", () => go(step + 1));
document.getElementById("last").addEventListener("click", () => go(1e9));
document.getElementById("lang").addEventListener("click", () => setLanguage(lang === "en" ? "zh" : "en"));
document.getElementById("view").addEventListener("change", e => { view = e.target.value; render(); });
const dealSelect = document.getElementById("deal");
DATA.deals.forEach((d, i) => { const o = el("option", "", d.label); o.value = i; dealSelect.append(o); });
if (DATA.deals.length < 2) document.getElementById("deal-choice").style.display = "none";
dealSelect.addEventListener("change", e => { dealNo = Number(e.target.value); step = 0; render(); });
document.addEventListener("keydown", e => {
  if (e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
  else if (e.key === "Home") { go(0); e.preventDefault(); }
  else if (e.key === "End") { go(1e9); e.preventDefault(); }
  // shown inside the web table (a frame over it): Esc asks the table to close the review
  else if (e.key === "Escape" && window.parent !== window) window.parent.postMessage("guandan-close-review", location.origin);
});
setLanguage(lang);
</script>
</body>
</html>
"""


__all__ = ["TEMPLATE", "combo_label", "deal_data", "render_page"]
