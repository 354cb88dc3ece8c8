"""The person's seat at the web table: the game's questions go out as messages, answers come back.

The game runs in the main thread (the runner's ``simulate``, exactly as ``guandan play`` runs
it); the seat's ``choose`` publishes the question and waits for the browser's answer on a
queue. Everything the browser is sent goes through :meth:`WebSeat.publish` and is built from
the seat's own ``Observation`` (:mod:`guandan_cli.web.view`). Answers are read exactly as the
terminal reads typed ones (``interactive.answers.read_answer``: the same refusals, naming the
rule) and kept in the game's journal, so ``--resume`` replays them.

Messages in (from the browser): ``{"type": "answer", "text": "S3 H3"}`` (cards, a menu number,
``p``), ``{"type": "which", "index": i}`` (a declaration, 0: back), ``{"type": "hint"}``,
``{"type": "check", "text": ...}`` (what the selected cards declare, answered at once).
Messages out: ``state``, ``ask``, ``which``, ``refused``, ``hint``, ``thinking``, ``deal_over``,
``check``; each has a ``type`` and a running number ``n``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence

from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import OVER, PASS, PLAY, RETURN, TRIBUTE
from guandan_cli.engine.match import level_token
from guandan_cli.engine.observation import Observation
from guandan_cli.interactive.answers import ACTION, HINT, REFUSED, WHICH, menu, read_answer
from guandan_cli.interactive.hint_source import HintSource
from guandan_cli.interactive.seat import Journal, saved_answer_problem
from guandan_cli.view.table import PLACES

from .view import action_json, seat_view

#: how long ``choose`` waits on the queue before looking again (a Ctrl-C is seen in between)
POLL_SECONDS = 0.2


class WebSeat:
    """The input source of the person's seat (see the module docstring)."""

    def __init__(
        self,
        seat: int,
        names: Sequence[str],
        journal: Journal,
        *,
        hint: str = "heuristic",
        rules=None,
        delay: float = 0.5,
    ) -> None:
        self.seat = seat
        self.names = list(names)
        self.journal = journal
        self.hint = hint
        self.rules = rules
        self.delay = delay
        self.inbox: queue.Queue[dict] = queue.Queue()
        self.history: list[dict] = []  # every message published, in order
        self.listeners: list[Callable[[dict], None]] = []
        self.lock = threading.Lock()
        self.deal_index = -1
        self.obs: Observation | None = None  # the seat's latest view
        self.asking: dict | None = None  # the question waiting for an answer
        self._hint_bot = None
        self._levels: tuple[str, str] | None = None  # the teams' levels at the last deal's start
        #: deals that ended (their review is at ``/review/N``)
        self.deals_over: list[int] = []

    # ------------------------------------------------------------ out

    def publish(self, message: dict) -> dict:
        """Number ``message``, keep it and hand it to every listener (the server's connections)."""
        with self.lock:
            message = {**message, "n": len(self.history)}
            self.history.append(message)
            listeners = list(self.listeners)
        for listen in listeners:
            listen(message)
        return message

    def snapshot(self) -> list[dict]:
        """What a browser that connects now needs: the latest state and the open question."""
        with self.lock:
            states = [m for m in self.history if m["type"] in ("state", "deal_over")]
            out = states[-1:] if states else []
            if self.asking is not None:
                out.append(self.asking)
            return out

    def _state(self, obs: Observation, note: str) -> None:
        self.obs = obs
        if not self.replaying:
            self.publish(
                {"type": "state", "deal": self.deal_index, "view": seat_view(obs, self.names), "note": note}
            )

    @property
    def replaying(self) -> bool:
        return bool(self.journal.pending)

    # ------------------------------------------------------------ following the table

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        self.deal_index = deal_index
        note = f"deal {deal_index}: seat {obs.to_move} to move"
        if self._levels is not None:  # the level change of the deal that ended
            moves = ", ".join(f"team {t} {self._levels[t]} → {obs.levels[t]}" for t in (0, 1))
            note = f"levels after deal {deal_index - 1}: {moves} · {note}"
        self._levels = tuple(level_token(x) for x in obs.levels)
        self._state(obs, note)

    def observe_action(self, obs: Observation) -> None:
        last = obs.events[-1] if obs.events else None
        note = ""
        if last is not None and last.kind == "play":
            note = f"seat {last.seat} plays {action_json(last.combo, obs.level)['label']}"
            if last.lead and self._jiefeng(obs):
                note += f" · 接风 (jiefeng): seat {last.seat} leads for its partner, who went out"
        elif last is not None and last.kind == "pass":
            note = f"seat {last.seat} passes"
        self._state(obs, note)
        if obs.phase == OVER:
            self._deal_over(obs)
        elif not self.replaying and obs.to_move != self.seat:
            self.publish({"type": "thinking", "seat": obs.to_move, "name": self.names[obs.to_move]})
            if self.delay > 0 and last is not None and last.seat != self.seat:
                time.sleep(self.delay)

    def _jiefeng(self, obs: Observation) -> bool:
        """Whether the lead that is ``obs``'s last event is 接风 (rules.md §7, §12)."""
        from guandan_cli.logs.schema import is_jiefeng

        plays = [e for e in obs.events if e.kind == "play"]
        if len(plays) < 2:
            return False
        any_finisher = self.rules is not None and getattr(self.rules, "jiefeng", "any") == "any"
        return is_jiefeng(plays[-1].seat, plays[-2].seat, list(obs.finished), any_finisher)

    def _deal_over(self, obs: Observation) -> None:
        if self.replaying:
            self.deals_over.append(self.deal_index)
            return
        finish = [f"{PLACES[i]} seat {s}" for i, s in enumerate(obs.finished)]
        self.deals_over.append(self.deal_index)
        self.publish(
            {
                "type": "deal_over",
                "deal": self.deal_index,
                "finish": finish,
                "review": f"/review/{self.deal_index}",
            }
        )

    # ------------------------------------------------------------ questions

    def choose(self, obs: Observation) -> object:
        self.obs = obs
        saved = self.journal.next_saved(self.deal_index, obs.phase)
        if saved is not None:
            problem = saved_answer_problem(saved, obs)
            if problem is not None:
                raise self.journal.mismatch(f"saved answer is not legal in deal {self.deal_index}: {problem}")
            return saved
        options = menu(obs)
        if obs.phase != PLAY and len(options) == 1:
            return self._accept(obs, options[0])
        if obs.phase == PLAY and not options:  # nothing beats the top play: a pass, said so
            self.publish({"type": "refused", "message": "you pass: nothing in your hand beats the top play"})
            return self._accept(obs, PASS)
        self._state(obs, "your turn")
        self.asking = self.publish(self._question(obs, options))
        try:
            return self._wait_for_answer(obs)
        finally:
            self.asking = None

    def _question(self, obs: Observation, options: list) -> dict:
        if obs.phase == TRIBUTE:
            question = "choose your tribute card"
        elif obs.phase == RETURN:
            question = f"choose the card you return to seat {obs.return_to}"
        else:
            question = "you lead" if obs.top is None else "beat the top play or pass"
        return {
            "type": "ask",
            "phase": obs.phase,
            "deal": self.deal_index,
            "question": question,
            "can_pass": obs.phase == PLAY and obs.top is not None,
            "options": [{"n": i, **action_json(a, obs.level)} for i, a in enumerate(options, 1)],
        }

    def _wait_for_answer(self, obs: Observation) -> object:
        choices: list[Combo] = []
        while True:
            try:
                msg = self.inbox.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            kind = msg.get("type")
            if kind == "which" and choices:
                index = msg.get("index")
                if isinstance(index, int) and 1 <= index <= len(choices):
                    return self._accept(obs, choices[index - 1])
                choices = []
                continue
            if kind == "hint":
                self.publish({"type": "hint", "lines": self.hint_lines(obs)})
                continue
            if kind != "answer" or not isinstance(msg.get("text"), str):
                self.publish({"type": "refused", "message": f"not an answer: {msg!r:.80}"})
                continue
            ans = read_answer(msg["text"], obs)
            if ans.kind == ACTION:
                return self._accept(obs, ans.action)
            if ans.kind == WHICH:
                choices = ans.choices
                self.publish({"type": "which", "choices": [action_json(c, obs.level) for c in choices]})
            elif ans.kind == HINT:
                self.publish({"type": "hint", "lines": self.hint_lines(obs)})
            elif ans.kind == REFUSED:
                self.publish({"type": "refused", "message": ans.message})
            else:
                self.publish({"type": "refused", "message": f"{msg['text']!r} is a terminal command"})

    def _accept(self, obs: Observation, action: object) -> object:
        self.journal.record(self.deal_index, obs.phase, action)
        return action

    # ------------------------------------------------------------ help

    def check(self, text: str) -> dict:
        """What the cards ``text`` would declare now, or why they cannot be played (the rule)."""
        obs = self.obs
        if obs is None or self.asking is None:
            return {"type": "check", "ok": False, "message": "it is not your turn"}
        if not text.strip():
            return {"type": "check", "ok": False, "message": ""}
        ans = read_answer(text, obs)
        if ans.kind == ACTION:
            return {"type": "check", "ok": True, "message": action_json(ans.action, obs.level)["label"]}
        if ans.kind == WHICH:
            labels = " or ".join(action_json(c, obs.level)["label"] for c in ans.choices)
            return {"type": "check", "ok": True, "message": f"{labels}: you choose when you play"}
        return {"type": "check", "ok": False, "message": ans.message}

    def hint_lines(self, obs: Observation) -> list[str]:
        """The hint bot's advice: a search values its best candidates (as ``review`` does)."""
        bot = self._hint_player()
        if obs.phase == PLAY and hasattr(bot, "evaluate"):
            return valued_lines(obs, bot)
        if obs.phase == TRIBUTE:
            action = bot.choose_tribute(obs)
        elif obs.phase == RETURN:
            action = bot.choose_return(obs)
        else:
            action = bot.choose_play(obs)
        return [f"suggestion: {action_json(action, obs.level)['label']} ({self.hint})"]

    def _hint_player(self):
        if self._hint_bot is None:
            self._hint_bot = HintSource(self.hint, self.rules).player(self.seat)
        return self._hint_bot


def valued_lines(obs: Observation, bot, shown: int = 3) -> list[str]:
    """A search's best ``shown`` plays for ``obs``: each one's value for the seat's team (levels,
    with its 95% interval, or exact), and what it does to the hand (``review.reasons``). The
    worlds come from the position and seed 0, as ``guandan review``'s do."""
    from guandan_cli.review.reasons import move_facts

    values = sorted(bot.evaluate(obs, seed=0), key=lambda v: -v.mean)[:shown]
    partner_top = obs.top is not None and obs.top_owner == obs.partner
    lines = []
    for rank, v in enumerate(values, 1):
        how = "exact" if getattr(v, "exact", False) else f"[{v.low:+.2f}, {v.high:+.2f}] over {v.n} worlds"
        label = action_json(v.action, obs.level)["label"]
        facts = move_facts(obs.hand, obs.level, v.action, partner_top).text
        lines.append(f"{rank}. {label}: {v.mean:+.2f} levels {how} · {facts}")
    return lines


__all__ = ["WebSeat", "valued_lines"]
