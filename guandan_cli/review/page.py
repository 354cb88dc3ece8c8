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
    key = "10" if combo.key == "T" else combo.key
    text = f"{combo.type.replace('_', ' ')} {key}"
    means = wild_meanings(combo, level)
    if means:
        wild = FACE_SYMBOLS[level * 4 + 1]
        text += " (" + ", ".join(f"{wild} = {m.replace('T', '10')}" for m in means) + ")"
    return text


def _action(action: object, level: int) -> dict:
    cards = list(action[2]) if isinstance(action, Combo) else []
    return {"label": combo_label(action, level), "cards": cards}


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
    level = logged.setup.level
    readable = strategy_names(logged.names)
    steps = []
    for state in table_states(logged):
        trick = [
            {
                "seat": ev.seat,
                "kind": ev.kind,
                **(_action(ev.combo, level) if ev.kind == PLAY else {"label": "pass", "cards": []}),
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
        if last is not None and state.to_move >= 0 and state.top_owner < 0:
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
        "summary": _summary_data(list(reviews), logged),
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
.seat h2 { font-size: 0.95em; margin: 0 0 0.35em 0; font-weight: 600; }
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
<label id="deal-choice">deal <select id="deal"></select></label>
<button id="first" title="first (Home)">&#x00AB; first</button>
<button id="prev" title="back (left arrow)">&#x25C0; back</button>
<button id="next" title="forward (right arrow)">forward &#x25B6;</button>
<button id="last" title="last (End)">last &#x00BB;</button>
<span id="position" class="muted"></span>
<label>view <select id="view">
<option value="open">open hands</option>
<option value="0">seat 0's view</option><option value="1">seat 1's view</option>
<option value="2">seat 2's view</option><option value="3">seat 3's view</option>
</select></label>
</div>
<div id="table">
<section class="seat" id="seat-top"></section>
<section class="seat" id="seat-left"></section>
<section id="middle"><h2 id="trick-title"></h2><div id="trick"></div></section>
<section class="seat" id="seat-right"></section>
<section class="seat" id="seat-bottom"></section>
</div>
<p id="note"></p>
<div id="timeline" aria-label="timeline of the deal's plays"></div>
<p class="legend">Timeline: one mark per play or pass (blue team 0, brown team 1, faded: pass); &#x2022; a reviewed decision; red ! a mistake; grey ? unclear. Keys: &#x2190; &#x2192; step, Home / End.</p>
<section id="review"></section>
<p class="muted" id="end"></p>
<script type="application/json" id="deal-data">{{data}}</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("deal-data").textContent);
const RANKS = ["2","3","4","5","6","7","8","9","10","J","Q","K","A"];
const SUITS = ["\u2660","\u2665","\u2663","\u2666"];
const SUIT_NAMES = ["spades","hearts","clubs","diamonds"];
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
function cardsEl(faces, deal, cls) {
  const box = el("span", cls || "cards");
  for (const f of faces) box.append(cardEl(f, deal));
  return box;
}
function backsEl(n) {
  const box = el("span", "cards");
  for (let i = 0; i < n; i++) box.append(el("span", "card back"));
  return box;
}
function fmt(x) { return x === null ? "n/a" : (x >= 0 ? "+" : "") + x.toFixed(2); }
function pct(x) { return x === null || x === undefined ? "" : Math.round(100 * x) + "%"; }

function renderSeat(box, seat, deal, st) {
  box.replaceChildren();
  box.dataset.seat = seat;
  box.classList.toggle("to-move", st.toMove === seat);
  const place = st.finished.indexOf(seat);
  box.classList.toggle("out", place >= 0);
  const hand = st.hands[seat];  // sorted by power at the deal's level
  let head = "seat " + seat + " \u00b7 " + deal.names[seat] + " \u00b7 team " + (seat & 1) + " \u00b7 " + hand.length + (hand.length === 1 ? " card" : " cards");
  if (place >= 0) head += " \u00b7 out " + DATA.places[place];
  if (st.toMove === seat) head = "\u25b6 " + head;
  const title = el("h2", "", head);
  title.title = deal.strategies[seat];
  box.append(title);
  const shown = view === "open" || Number(view) === seat;
  const h = el("div", "hand");
  h.dataset.shown = shown ? "yes" : "no";
  h.append(shown ? cardsEl(hand, deal) : backsEl(hand.length));
  box.append(h);
}

function renderTrick(deal, st) {
  const box = document.getElementById("trick");
  box.replaceChildren();
  document.getElementById("trick-title").textContent = st.trickNumber ? "trick " + st.trickNumber : "before the first trick";
  let top = -1;
  st.trick.forEach((p, i) => { if (p.kind === "play") top = i; });
  st.trick.forEach((p, i) => {
    const row = el("div", "play" + (i === top ? " top" : ""));
    row.dataset.seat = p.seat;
    row.dataset.kind = p.kind;
    row.dataset.cards = p.cards.map(f => DATA.faces[f]).join(" ");
    row.append(el("span", "who", "seat " + p.seat));
    if (p.kind === "play") row.append(cardsEl(p.cards, deal), el("span", "label", p.label));
    else row.append(el("span", "pass", "pass"));
    box.append(row);
  });
}

function renderReview(deal) {
  const box = document.getElementById("review");
  box.replaceChildren();
  const st = deal.steps[step];
  if (step === 0) {
    box.append(el("p", "", Object.keys(deal.reviews).length
      ? "Step forward to see each reviewed decision's alternatives and their values (levels for the deciding seat's team)."
      : "No review values on this page (guandan review --html adds them)."));
    return;
  }
  const r = deal.reviews[String(st.index)];
  const last = st.trick[st.trick.length - 1];
  if (!r) {
    box.append(el("p", "", "play " + st.index + ": " + (last ? "seat " + last.seat + " " + (last.kind === "play" ? "plays " + last.label : "passes") : "") +
      (Object.keys(deal.reviews).length ? " (not reviewed: no choice, or another seat)" : "")));
    return;
  }
  const h = el("p");
  h.append("play " + st.index + ": seat " + r.seat + " (" + r.context + ") played " + r.played.label + " " + fmt(r.playedValue) +
    "; best " + r.best.label + " " + fmt(r.bestValue) + "; loss " + fmt(r.loss) +
    (r.lossLow === null || r.exact || r.loss === 0 ? "" : " [" + fmt(r.lossLow) + ", " + fmt(r.lossHigh) + "]" +
      (r.lossWorlds > r.worlds ? " over " + r.lossWorlds + " worlds" : "")) + " ");
  if (r.mistake) h.append(el("span", "mistake", "MISTAKE"));
  if (r.label === "unclear") h.append(el("span", "unclear", "unclear"));
  box.append(h);
  const t = el("table");
  const head = el("tr");
  if (r.reason && !r.alternatives.some(a => a.played && a.best)) box.append(el("p", "reason", "Why: " + r.reason));
  if (r.then) box.append(el("p", "legend", "Then, in one world: after the play made " + r.then[0] + "; after the best " + r.then[1] + "."));
  for (const c of ["alternative", "cards", "value", "95% interval", "worlds", "out first", "double-down for / against", "what it does", ""])
    head.append(el("th", "", c));
  t.append(head);
  for (const a of r.alternatives) {
    const tr = el("tr", (a.played ? "played " : "") + (a.best ? "best" : ""));
    tr.append(el("td", "", a.label));
    const cards = el("td", "small");
    cards.append(cardsEl(a.cards, deal));
    tr.append(cards, el("td", "num", fmt(a.mean)),
      el("td", "num", a.low === null ? "" : "[" + fmt(a.low) + ", " + fmt(a.high) + "]"),
      el("td", "num", String(a.n)),
      el("td", "num", pct(a.firstOut)),
      el("td", "num", a.doubleFor === null ? "" : pct(a.doubleFor) + " / " + pct(a.doubleAgainst)),
      el("td", "why", a.reason),
      el("td", "", (a.played ? "played" : "") + (a.best ? (a.played ? ", best" : "best") : "")));
    t.append(tr);
  }
  box.append(t);
  const how = r.exact ? "exact (two seats left, each knowing the other's hand: the race solved)"
    : deal.evaluator + ", " + r.worlds + " worlds";
  box.append(el("p", "legend", "Values: " + how + ", from seat " + r.seat +
    "'s view only. A mistake: the loss's 95% interval lies at or above " + deal.threshold +
    " levels (a close call gets more worlds first); unclear: it still holds " + deal.threshold + " at the most worlds."));
}

function renderTimeline(deal) {
  const box = document.getElementById("timeline");
  if (box.dataset.deal !== String(dealNo)) {
    box.replaceChildren();
    box.dataset.deal = String(dealNo);
    deal.steps.forEach((st, k) => {
      if (k === 0) return;
      const last = st.trick[st.trick.length - 1];
      const b = el("button", "tick s" + last.seat + (last.kind === "pass" ? " pass" : ""));
      b.dataset.step = k;
      const r = deal.reviews[String(st.index)];
      if (r) b.classList.add(r.mistake ? "mistake" : r.label === "unclear" ? "unclear" : "reviewed");
      b.title = "play " + st.index + ": seat " + last.seat + " " + (last.kind === "play" ? last.label : "pass") +
        (r ? " \u00b7 loss " + fmt(r.loss) + (r.label !== "ok" ? " (" + r.label + ")" : "") : "");
      b.addEventListener("click", () => { step = k; render(); });
      box.append(b);
    });
  }
  for (const b of box.children) b.classList.toggle("current", Number(b.dataset.step) === step);
}

function renderSummary(deal) {
  const box = document.getElementById("summary");
  if (box.dataset.deal === String(dealNo)) return;
  box.dataset.deal = String(dealNo);
  box.replaceChildren();
  for (const s of deal.summary || []) {
    box.append(el("p", "", s.text));
    const graph = el("div", "graph");
    graph.setAttribute("aria-label", "seat " + s.seat + ": expected levels after each decision (click: go there)");
    for (const [index, value] of s.graph) {
      const b = el("button", value < 0 ? "neg" : "");
      b.style.height = (8 + 92 * (Math.min(3, Math.max(-3, value)) + 3) / 6) + "%";
      b.title = "play " + index + ": " + fmt(value) + " levels";
      b.dataset.index = index;
      b.addEventListener("click", () => { const k = deal.steps.findIndex(t => t.index === index); if (k >= 0) { step = k; render(); } });
      graph.append(b);
    }
    box.append(graph);
  }
}

function render() {
  const deal = DATA.deals[dealNo];
  renderSummary(deal);
  const st = deal.steps[step];
  document.getElementById("header").textContent = deal.header + (deal.where ? " \u00b7 " + deal.where : "");
  document.getElementById("tribute").textContent = deal.tribute.join(" \u00b7 ");
  document.getElementById("position").textContent = "step " + step + " of " + (deal.steps.length - 1);
  const bottom = view === "open" ? 0 : Number(view);
  const places = {bottom: bottom, right: (bottom + 1) % 4, top: (bottom + 2) % 4, left: (bottom + 3) % 4};
  for (const [where, seat] of Object.entries(places)) renderSeat(document.getElementById("seat-" + where), seat, deal, st);
  renderTrick(deal, st);
  document.getElementById("note").textContent = step === deal.steps.length - 1 && deal.end.length ? st.note + " \u00b7 deal over" : st.note;
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
document.getElementById("first").addEventListener("click", () => go(0));
document.getElementById("prev").addEventListener("click", () => go(step - 1));
document.getElementById("next").addEventListener("click", () => go(step + 1));
document.getElementById("last").addEventListener("click", () => go(1e9));
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
});
render();
</script>
</body>
</html>
"""


__all__ = ["TEMPLATE", "combo_label", "deal_data", "render_page"]
