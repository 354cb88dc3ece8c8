// guandan table: draws the seat's view the server sends and sends back the person's answers.
// No framework, no build step, nothing from the internet.
"use strict";

const LABELS = {
  en: { title: "guandan table", play: "Play (Enter)", pass: "Pass (P)", hint: "Hint (H)", clear: "Clear",
        sort: "Sort by suit", sortPower: "Sort by power", you: "you", cards: "cards", out: "out", level: "level",
        team: "team", levels: "levels", lead: "leads", thinking: "is thinking…", yourTurn: "your turn",
        review: "review of deal", over: "deal over", matchOver: "the match is over", legal: "legal plays",
        which: "these cards can be declared as:", back: "back", passes: "passes", tribute: "tribute", ret: "return",
        connecting: "connecting…", closed: "the server is gone: every answer is saved (guandan table --resume)",
        reviewing: "reviewing the deal… (seconds: every decision is valued)", newTab: "new tab", close: "close (Esc)" },
  zh: { title: "掼蛋 牌桌", play: "出牌 (Enter)", pass: "不要 (P)", hint: "提示 (H)", clear: "清除",
        sort: "按花色排", sortPower: "按大小排", you: "你", cards: "张", out: "出完", level: "级牌",
        team: "队", levels: "级", lead: "先出", thinking: "思考中…", yourTurn: "轮到你",
        review: "复盘 第", over: "本局结束", matchOver: "比赛结束", legal: "可出的牌",
        which: "这些牌可以作为：", back: "返回", passes: "不要", tribute: "进贡", ret: "还贡",
        connecting: "连接中…", closed: "服务器已停止：答案都已保存（guandan table --resume）",
        reviewing: "正在复盘本局…（需几秒：每个决策都要估值）", newTab: "新标签页", close: "关闭 (Esc)" },
};
let lang = "en";
const T = (key) => LABELS[lang][key] || LABELS.en[key] || key;

let ws = null;
let seat = 0;
let names = ["", "", "", ""];
let state = null;
let asking = null;
let selected = new Set();
let bySuit = false;
let messages = [];  // every message received (for tests and debugging)
window.guandanMessages = messages;
window.guandanAsking = () => (asking ? asking.n : null);  // the open question's number (tests)

const $ = (id) => document.getElementById(id);

function connect() {
  $("note").textContent = T("connecting");
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onmessage = (e) => handle(JSON.parse(e.data));
  ws.onclose = () => { $("note").textContent = T("closed"); asking = null; render(); };
}

function send(message) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function handle(m) {
  messages.push(m);
  switch (m.type) {
    case "hello": seat = m.seat; names = m.names; break;
    case "state":
      state = m.view;
      if (m.note) { $("note").textContent = m.note; log(m.note); }
      if (state.to_move !== seat) { asking = null; clearQuestion(); }
      break;
    case "ask": asking = m; selected.clear(); $("hint").textContent = ""; $("which").textContent = "";
      $("over").textContent = ""; break;
    case "which": showWhich(m.choices); break;
    case "refused": $("check").textContent = m.message; $("check").className = "bad"; log(m.message, "refused"); break;
    case "hint": $("hint").textContent = m.lines.join("\n"); break;
    case "thinking": $("note").innerHTML = ""; $("note").append(span(`seat ${m.seat} (${m.name}) ${T("thinking")}`, "thinking")); break;
    case "check": $("check").textContent = m.message; $("check").className = m.ok ? "ok" : "bad"; break;
    case "deal_over": showOver(m); break;
    case "match_over": $("over").append(span(T("matchOver"))); break;
  }
  if (["hello", "state", "ask", "deal_over"].includes(m.type)) render();  // the rest change no drawing
}

function span(text, cls) { const s = document.createElement("span"); s.textContent = text; if (cls) s.className = cls; return s; }

function log(text, cls) {
  const line = document.createElement("div");
  line.textContent = text;
  if (cls) line.className = cls;
  $("log").prepend(line);
}

function cardEl(card, small) {
  const el = document.createElement(small ? "span" : "button");
  el.className = `card ${card.suit}` + (card.wild ? " wild" : "") + (card.level ? " level" : "") + (small ? " small" : "");
  if (card.suit === "J") {
    el.textContent = card.name;
  } else {
    el.append(span(card.name.slice(1)), span(card.name[0]));
  }
  el.title = card.name + (card.wild ? " (wild)" : "");
  el.dataset.token = card.token;
  return el;
}

function seatBox(s, where) {
  const box = $(`seat-${where}`);
  box.innerHTML = "";
  if (!state) return;
  const who = s === seat ? T("you") : `${names[s]}`;
  const place = state.finished.indexOf(s);
  box.append(span(`seat ${s} · ${who} · ${T("team")} ${s & 1} `));
  const count = place >= 0 ? `${T("out")} ${place + 1}` : `${state.counts[s]} ${T("cards")}`;
  box.append(span(count, "count"));
  box.classList.toggle("to-move", state.to_move === s && state.phase !== "over");
  box.dataset.count = state.counts[s];
}

function render() {
  if (!state) return;
  const lt = state.level_team === null ? "" : ` (${T("team")} ${state.level_team})`;
  $("levels").textContent = `${T("level")} ${state.level}${lt} · ${T("team")} 0: ${state.levels[0]} · ${T("team")} 1: ${state.levels[1]}`;
  seatBox(seat, "bottom"); seatBox((seat + 1) % 4, "right"); seatBox((seat + 2) % 4, "top"); seatBox((seat + 3) % 4, "left");
  renderTrick();
  renderHand();
  renderQuestion();
}

function renderTrick() {
  const box = $("trick");
  box.innerHTML = "";
  const rows = state.trick.length ? state.trick : state.transfers;
  for (const ev of rows) {
    const row = document.createElement("div");
    row.className = "trick-row";
    row.append(span(`seat ${ev.seat}`, "who"));
    if (ev.kind === "pass") row.append(span(T("passes")));
    else {
      if (ev.kind !== "play") row.append(span(`${ev.kind === "tribute" ? T("tribute") : T("ret")} → seat ${ev.to}`));
      else row.append(span(ev.label));
      for (const c of ev.cards) row.append(cardEl(c, true));
    }
    box.append(row);
  }
}

function handCards() {
  const cards = state.hand.map((c, i) => ({ ...c, i }));
  if (bySuit) cards.sort((a, b) => (a.suit < b.suit ? -1 : a.suit > b.suit ? 1 : a.i - b.i));
  return cards;
}

function renderHand() {
  const box = $("hand");
  box.innerHTML = "";
  for (const c of handCards()) {
    const el = cardEl(c, false);
    el.dataset.i = c.i;
    el.classList.toggle("selected", selected.has(c.i));
    el.onclick = () => { toggle(c.i); };
    box.append(el);
  }
  $("sort").textContent = bySuit ? T("sortPower") : T("sort");
}

function toggle(i) {
  if (selected.has(i)) selected.delete(i); else {
    if (asking && asking.phase !== "play") selected.clear();
    selected.add(i);
  }
  renderHand();
  send({ type: "check", text: selection() });
}

function selection() {
  return [...selected].sort((a, b) => a - b).map((i) => state.hand[i].token).join(" ");
}

function selectTokens(tokens) {
  selected.clear();
  const left = [...tokens];
  state.hand.forEach((c, i) => {
    const k = left.indexOf(c.token);
    if (k >= 0) { selected.add(i); left.splice(k, 1); }
  });
  renderHand();
  send({ type: "check", text: selection() });
}

function clearQuestion() { $("question").textContent = ""; $("which").textContent = ""; shownAsk = -1; }

let shownAsk = -1;  // the question on screen (rebuilt only when a new one comes)

function renderQuestion() {
  const mine = asking !== null;
  $("play").disabled = !mine;
  $("pass").disabled = !(mine && asking.can_pass);
  $("hintbtn").disabled = !mine;
  if (!mine) { shownAsk = -1; return; }
  if (asking.n === shownAsk) return;
  shownAsk = asking.n;
  const q = $("question");
  q.innerHTML = "";
  q.append(span(`${T("yourTurn")}: ${asking.question} `));
  const list = document.createElement("details");
  list.id = "legal";
  const summary = document.createElement("summary");
  summary.textContent = `${T("legal")} (${asking.options.length})`;
  list.append(summary);
  for (const o of asking.options) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "option";
    b.textContent = `${o.n}) ${o.label}`;
    b.dataset.tokens = o.cards.map((c) => c.token).join(" ");
    b.onclick = () => selectTokens(o.cards.map((c) => c.token));
    list.append(b);
  }
  q.append(list);
}

function showWhich(choices) {
  const box = $("which");
  box.innerHTML = "";
  box.append(span(T("which")));
  choices.forEach((c, k) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `${k + 1}) ${c.label}`;
    b.onclick = () => { send({ type: "which", index: k + 1 }); box.innerHTML = ""; };
    box.append(b);
  });
  const back = document.createElement("button");
  back.type = "button";
  back.textContent = T("back");
  back.onclick = () => { send({ type: "which", index: 0 }); box.innerHTML = ""; };
  box.append(back);
}

function showOver(m) {
  const box = $("over");
  box.innerHTML = "";
  box.append(span(`${T("over")} ${m.deal}: ${m.finish.join(", ")} `));
  const b = document.createElement("button");
  b.type = "button";
  b.id = `review-${m.deal}`;
  b.textContent = `${T("review")} ${m.deal}`;
  b.onclick = () => openReview(m.deal, m.review);
  box.append(b);
  log(`${T("over")} ${m.deal}: ${m.finish.join(", ")}`);
}

// the deal's review (the `review --html` page the server makes) over the table, in this page
function openReview(deal, href) {
  const url = `${href}${href.includes("?") ? "&" : "?"}lang=${lang}`;
  $("review-title").textContent = `${T("review")} ${deal}`;
  $("review-tab").href = url;
  $("review-status").textContent = T("reviewing");
  const frame = $("review-frame");
  frame.onload = () => {  // about:blank loads too (a pane opened before): wait for the review's own page
    if (frame.contentWindow.location.pathname.startsWith("/review/")) $("review-status").textContent = "";
  };
  frame.src = url;
  $("reviewpane").hidden = false;
  frame.focus();
}
function closeReview() {
  $("reviewpane").hidden = true;
  $("review-frame").src = "about:blank";
}

function playSelection() {
  if (!asking) return;
  const text = selection();
  if (!text) { $("check").textContent = "select cards first"; $("check").className = "bad"; return; }
  send({ type: "answer", text });
}

$("play").onclick = playSelection;
$("pass").onclick = () => send({ type: "answer", text: "p" });
$("hintbtn").onclick = () => send({ type: "hint" });
$("clear").onclick = () => { selected.clear(); renderHand(); $("check").textContent = ""; };
$("sort").onclick = () => { bySuit = !bySuit; renderHand(); };
$("lang").onclick = () => {
  lang = lang === "en" ? "zh" : "en";
  $("lang").textContent = lang === "en" ? "中文" : "English";
  document.documentElement.lang = lang === "en" ? "en" : "zh";
  for (const el of document.querySelectorAll("[data-l]")) el.textContent = T(el.dataset.l);
  render();
};
$("review-close").onclick = closeReview;
// Esc pressed inside the review (its own page, in the frame) closes it too
window.addEventListener("message", (e) => {
  if (e.origin === location.origin && e.data === "guandan-close-review") closeReview();
});
document.addEventListener("keydown", (e) => {
  if (!$("reviewpane").hidden) { if (e.key === "Escape") closeReview(); return; }
  if (e.target.tagName === "INPUT") return;
  if (e.key === "Enter") { e.preventDefault(); playSelection(); }
  else if (e.key === "p" || e.key === "P") { if (asking && asking.can_pass) send({ type: "answer", text: "p" }); }
  else if (e.key === "h" || e.key === "H") { if (asking) send({ type: "hint" }); }
  else if (e.key === "Escape") { selected.clear(); if (state) renderHand(); }
});
connect();
