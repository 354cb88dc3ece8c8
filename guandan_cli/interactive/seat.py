"""A person at the terminal as the input source of a ``human`` seat (``guandan play``).

``TerminalSeat`` shows the table (its own hand sorted by power, wilds highlighted, the
levels, the current trick), prints every action as it happens and asks for each
decision until the answer is legal (a refusal is one line naming the rule; nothing is
applied before a legal answer). Accepted answers are appended to a :class:`Journal`
(``human.jsonl`` in the run directory, flushed and synced one by one): ``--resume``
replays them, so the match, which the seeded bots play identically, continues at the
very question where it stopped, mid-deal included.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from guandan_cli.engine.cards import format_cards, parse_card
from guandan_cli.engine.combos import COMBO_TYPES, Combo
from guandan_cli.engine.deal import OVER, PASS, PLAY, RETURN, TRIBUTE, action_text
from guandan_cli.engine.observation import Observation
from guandan_cli.interactive.answers import (
    ACTION,
    HELP_LINE,
    HINT,
    MENU,
    QUIT,
    REFUSED,
    TABLE,
    WHICH,
    menu,
    read_answer,
)
from guandan_cli.interactive.hint_source import HEURISTIC_HINT, HintSource
from guandan_cli.interactive.terminal import Screen
from guandan_cli.view.table import (
    PLACES,
    Style,
    TableScene,
    TrickLog,
    card_text,
    cards_text,
    level_text,
    play_cards_text,
    play_text,
    rank_text,
    render_table,
    sort_by_power,
    transfers_of,
    tribute_lines,
)
from guandan_cli.view.text import columns, plural

JOURNAL = "human.jsonl"
PASS_EVENT = "pass"
MENU_SHOWN_UP_TO = 30


#: the widest menu line (a terminal of 80 to 100 columns)
MENU_WIDTH = 88


def menu_lines(
    head: str,
    items: list[str],
    sep: str = "   ",
    width: int = MENU_WIDTH,
    measure: Callable[[str], int] = columns,
) -> list[str]:
    """``head`` and the menu items, wrapped at ``width`` columns under the first item
    (``measure`` gives the columns an item takes: without its colour markup).

    >>> menu_lines("pair: ", ["1) S3 S3", "2) H4 H4"])
    ['pair: 1) S3 S3   2) H4 H4']
    >>> menu_lines("pair: ", ["1) S3 S3", "2) H4 H4"], width=16)
    ['pair: 1) S3 S3', '      2) H4 H4']
    """
    lines, line, used, empty = [], head, columns(head), True
    for item in items:
        size = measure(item)
        if empty:
            line, used, empty = line + item, used + size, False
        elif used + len(sep) + size > width:
            lines.append(line)
            line, used = " " * len(head) + item, len(head) + size
        else:
            line, used = line + sep + item, used + len(sep) + size
    return lines + [line]


class InputEnded(KeyboardInterrupt):
    """Stdin ended (or the person typed q): the match stops as on Ctrl-C, answers kept."""


class JournalMismatch(RuntimeError):
    """A saved answer that does not fit the question asked on resume."""


def _entry_problem(entry: object) -> str | None:
    """What is wrong with one saved answer line, or ``None``.

    >>> _entry_problem({"deal": 0, "phase": "play", "answer": "pair:3 S3 H3"}) is None
    True
    >>> _entry_problem({"deal": 0, "phase": "play", "action": "S3"})
    'expected {"deal": int, "phase": "play"|"tribute"|"return", "answer": str}'
    >>> _entry_problem({"deal": 0, "phase": "tribute", "answer": "X9"})[:24]
    "answer 'X9': bad card to"
    """
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("deal"), int)
        or entry.get("phase") not in (PLAY, TRIBUTE, RETURN)
        or not isinstance(entry.get("answer"), str)
    ):
        return 'expected {"deal": int, "phase": "play"|"tribute"|"return", "answer": str}'
    text = entry["answer"]
    try:
        if entry["phase"] != PLAY:
            parse_card(text)
        elif text != "pass":
            Combo.from_text(text)
    except ValueError as exc:
        return f"answer {text!r}: {exc}"
    return None


def read_answers(path: Path) -> list[dict]:
    """The saved answers of ``path`` (a game's ``human.jsonl``), each checked (``JournalMismatch``
    names the line that is not an answer); a last line cut by a crash is left out: that answer
    was never applied."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    answers = []
    for n, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines) and not text.endswith("\n"):
                break
            raise JournalMismatch(f"{path}:{n}: not a JSON line") from None
        problem = _entry_problem(entry)
        if problem:
            raise JournalMismatch(f"{path}:{n}: {problem}")
        answers.append(entry)
    return answers


def saved_action(entry: dict) -> object:
    """A saved answer (checked by ``read_answers``) as the action it was: a play, a pass or a card."""
    text = entry["answer"]
    if entry["phase"] == PLAY:
        return PASS if text == "pass" else Combo.from_text(text)
    return parse_card(text)


class Journal:
    """The human seat's accepted answers, one JSON line each: ``{"deal", "phase", "answer"}``."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        self.pending: list[dict] = []
        if resume and path.exists():
            self.pending = read_answers(path)
            # rewritten whole, so a cut last line is dropped before new answers follow
            path.write_text("".join(json.dumps(e) + "\n" for e in self.pending), encoding="utf-8")
        self.resume = resume
        self.kept = len(self.pending)
        self.replayed = 0
        #: why a saved answer could not be replayed (the game stops on it: bad input, not a bot's failure)
        self.problem: JournalMismatch | None = None
        self._fh = None  # opened at the first new answer (the runner creates the directory)
        #: called once the file is opened (the run's folder exists then)
        self.on_open: Callable[[], None] | None = None

    def next_saved(self, deal: int, phase: str) -> object | None:
        """The next saved answer as an action (``None`` when none is left)."""
        if not self.pending:
            return None
        entry = self.pending.pop(0)
        self.replayed += 1
        if entry.get("deal") != deal or entry.get("phase") != phase:
            raise self.mismatch(
                f"saved answer {self.replayed} is for deal {entry.get('deal')} "
                f"({entry.get('phase')}), but deal {deal} asks for a {phase}"
            )
        return saved_action(entry)

    def mismatch(self, why: str) -> JournalMismatch:
        """The error for the answer just replayed (line ``replayed`` of the file), kept in ``problem``."""
        self.problem = JournalMismatch(f"{self.path}:{self.replayed}: {why}")
        return self.problem

    def record(self, deal: int, phase: str, action: object) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a" if self.resume else "w", encoding="utf-8")
            if self.on_open is not None:
                self.on_open()
        self._fh.write(json.dumps({"deal": deal, "phase": phase, "answer": action_text(action)}) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def saved_answer_problem(action: object, obs: Observation) -> str | None:
    """Why a replayed answer is not legal for ``obs`` (the rule a typed answer would be refused
    by), or ``None``: the same checks as ``read_answer``, and the declaration must be a reading."""
    if action is PASS or action == PASS:
        return "the leader cannot pass (§7)" if obs.top is None else None
    cards = action[2] if isinstance(action, Combo) else (action,)
    ans = read_answer(format_cards(cards), obs)
    if ans.kind == REFUSED:
        return ans.message
    if ans.kind == WHICH:
        return None if action in ans.choices else f"{action_text(action)} is not a declaration of these cards"
    if ans.action != action:
        return f"{action_text(action)} is not a declaration of these cards (§4)"
    return None


class TerminalSeat:
    """The input source of the human seat: see the module docstring.

    What it prints, in order: at each deal's start the table (the seats around it with
    their names, the level, who leads); then every play and pass as it happens, and the end
    of each trick; at each question only what the person needs to answer: the card counts
    that changed since the last question, the hand (by power), what to beat, the menu and
    the question. ``t`` prints the whole table again. A tribute or return with a single
    allowed card is given at once, with one line saying so.
    """

    def __init__(
        self,
        seat: int,
        names: Sequence[str],
        screen: Screen,
        style: Style,
        journal: Journal,
        ask: Callable[[str], str] | None = None,
        delay: float = 0.5,
        hint: HintSource = HEURISTIC_HINT,
    ) -> None:
        self.seat = seat
        self.names = list(names)
        self.screen = screen
        self.style = style
        self.journal = journal
        self.ask = ask or input
        self.delay = delay
        self.deal_index = -1
        #: reviews each ended deal (``interactive.deal_review.DealReviewer``), or ``None``
        self.reviewer = None
        self.seen = 0
        self.log = TrickLog(0, style)
        self.levels: tuple[int, int] | None = None
        #: the card counts the person last saw (the deal's start, then each question)
        self.counts_shown: list[int] = [27, 27, 27, 27]
        #: the strategy whose answer ``?`` suggests (a spec), and the player made from it on first use
        #: (a search values its candidates, in the game's ruleset ``rules``)
        self.hint = hint
        self._hint = None
        #: the last saved answer was just replayed: its own event is not shown as news (the
        #: trick so far is shown instead, with the previous trick's end out of sight)
        self._replay_ending = False

    @property
    def replaying(self) -> bool:
        return bool(self.journal.pending)

    def _say(self, text: str, hang: int | None = None) -> None:
        if not self.replaying:
            self.screen.print(text, hang)

    # ------------------------------------------------------------ following the table

    def start_deal(self, deal_index: int, obs: Observation) -> None:
        self.deal_index = deal_index
        self.seen = 0
        self.log = TrickLog(obs.level, self.style)
        self.counts_shown = list(obs.card_counts)
        if self.levels is not None:
            moves = " · ".join(
                f"team {t} {level_text(self.levels[t])} → {level_text(obs.levels[t])}" for t in (0, 1)
            )
            self._say(f"levels after deal {deal_index - 1}: {moves}")
        self.levels = tuple(obs.levels)
        self._say("")
        self._say(f"══ deal {deal_index} ══")
        partner, team = obs.partner, obs.team
        lead = [f"seat {obs.to_move} leads"] if obs.tribute_kind in ("none", "resisted") else []
        self._say(
            self._table(
                obs,
                title=f"you are seat {self.seat} (team {team}); partner seat {partner} "
                f"({self.names[partner]}); opponents seats {(self.seat + 1) % 4} and {(self.seat + 3) % 4}",
                hand=False,
                footer=lead,
            )
        )

    def observe_action(self, obs: Observation) -> None:
        new = obs.events[self.seen :]
        self.seen = len(obs.events)
        quiet = self._replay_ending
        self._replay_ending = False
        for ev in new:
            if ev.kind in (TRIBUTE, RETURN):
                continue
            for line in self.log.feed(ev):
                if not quiet:
                    self._say(line)
        if quiet and obs.phase == PLAY and self.log.current:
            self._say("")
            for line in self.log.current:
                self._say(line)
        if new and new[-1].kind == PASS_EVENT and obs.phase == PLAY and obs.top is None:
            for line in self.log.trick_over():  # every other seat passed: said now, not at the next lead
                self._say(line)
        if any(e.kind == TRIBUTE for e in new) or any(e.kind == RETURN for e in new):
            tributes, returns = transfers_of(obs.events)
            lines = tribute_lines(obs.tribute_kind, (), tributes, returns, self.style)
            self._say(lines[-1] if any(e.kind == RETURN for e in new) else lines[0])
            if any(e.kind == RETURN for e in new):
                self._say(f"seat {obs.to_move} leads")
        if obs.phase == OVER:
            out = ", ".join(f"{PLACES[i]} seat {s}" for i, s in enumerate(obs.finished))
            self._say(f"deal {self.deal_index} over: {out}")
            if self.reviewer is not None and not self.replaying:
                self._offer_review()
        elif new and new[-1].seat != self.seat and self.delay > 0 and not self.replaying:
            time.sleep(self.delay)

    def _offer_review(self) -> None:
        """At a deal's end: its review starts in the background; ``r`` shows it, Enter goes on."""
        deal = self.deal_index
        self.reviewer.start(deal)
        while True:
            text = self._read(f"deal {deal} over: r reviews your decisions, Enter goes on > ").strip().lower()
            if text in ("q", "quit", "exit"):
                raise InputEnded("q")
            if text != "r":
                return
            self.screen.print(f"reviewing your decisions of deal {deal}…")
            for line in self.reviewer.verdict(deal).lines or (self.reviewer.verdict(deal).line,):
                self.screen.print(line)

    # ------------------------------------------------------------ questions

    def choose(self, obs: Observation) -> object:
        saved = self.journal.next_saved(self.deal_index, obs.phase)
        if saved is not None:
            problem = saved_answer_problem(saved, obs)
            if problem is not None:
                raise self.journal.mismatch(
                    f"saved answer {action_text(saved)!r} is not legal in deal {self.deal_index}: {problem}"
                )
            if not self.replaying:
                self.screen.print(
                    f"(resumed: {plural(self.journal.replayed, 'saved answer')} replayed) "
                    f"deal {self.deal_index}, level {level_text(obs.level)}; t shows the whole table"
                )
                self._replay_ending = True
            return saved
        if self.reviewer is not None:
            for line in self.reviewer.ready_lines():  # a deal's verdict, once its review is done
                self.screen.print(line)
        options = menu(obs)
        if obs.phase != PLAY and len(options) == 1:
            self.screen.print(self._forced_line(obs, options[0]))
            return self._accept(obs, options[0])
        if obs.phase == PLAY and not options:  # following, and nothing in the hand beats the top
            self.screen.print(f"you pass: nothing in your hand beats {self._top_text(obs)}")
            return self._accept(obs, PASS)
        self._ask_screen(obs, options)
        question = self._question(obs)
        while True:
            text = self._read(question)
            ans = read_answer(text, obs)
            if ans.kind == ACTION:
                return self._accept(obs, ans.action)
            if ans.kind == WHICH:
                picked = self._which(obs, ans.choices)
                if picked is not None:
                    return self._accept(obs, picked)
                continue
            if ans.kind == REFUSED:
                self.screen.print(f"✗ {ans.message}" if self.style.symbols else f"x {ans.message}", hang=2)
            elif ans.kind == HINT and obs.phase == PLAY and hasattr(self._hint_player(), "evaluate"):
                from guandan_cli.review.hint import valued_hint

                self.screen.print("\n".join(valued_hint(obs, self.style, evaluator=self._hint_player())))
            elif ans.kind == HINT:
                self.screen.print(f"suggestion: {self._action_text(obs, self._suggest(obs))}")
            elif ans.kind == MENU:
                self._show_menu(obs, options)
                self.screen.print(HELP_LINE)
            elif ans.kind == TABLE:
                self.screen.print(self._table(obs))
            elif ans.kind == QUIT:
                raise InputEnded("q")

    def _ask_screen(self, obs: Observation, options: list) -> None:
        """What changed since the last question, the hand, what to beat, the menu."""
        changed = self._count_changes(obs)
        if changed:
            self.screen.print("cards: " + " · ".join(changed), hang=7)
        self.counts_shown = list(obs.card_counts)
        self.screen.print(self._hand_line(obs))
        if obs.phase == PLAY:
            self.screen.print(self._lead_line(obs))
        if obs.phase != PLAY or len(options) <= MENU_SHOWN_UP_TO:
            self._show_menu(obs, options)
        else:
            self.screen.print(f"{len(options)} plays: h lists them by number")

    def _count_changes(self, obs: Observation) -> list[str]:
        """``seat 1 27→22``, ``seat 3 out (上游 1st)``: the other seats whose count changed."""
        out = []
        for s in range(4):
            was, now = self.counts_shown[s], obs.card_counts[s]
            if s == self.seat or was == now:
                continue
            if s in obs.finished:
                out.append(f"seat {s} out ({PLACES[obs.finished.index(s)]})")
            else:
                out.append(f"seat {s} {was}→{now}")
        return out

    def _hand_line(self, obs: Observation) -> str:
        cards = sort_by_power(obs.hand, obs.level)
        return f"your hand ({len(cards)}): {cards_text(cards, self.style, obs.level, mark_wild=True)}"

    def _lead_line(self, obs: Observation) -> str:
        if obs.top is None:
            return "you lead a new trick"
        return f"top play: {self._top_text(obs)}"

    def _top_text(self, obs: Observation) -> str:
        """``seat 1 pair 5♠ 5♥``: the play to beat and whose it is."""
        return f"seat {obs.top_owner} {play_text(obs.top, obs.level, self.style)}"

    def _forced_line(self, obs: Observation, card: int) -> str:
        """One line for a tribute or return that had one allowed card: given, and why."""
        shown = card_text(card, self.style, obs.level)
        if obs.phase == TRIBUTE:
            return (
                f"your tribute is {shown}: the only card allowed "
                "(your highest by power, ♥ level cards excluded; §10)"
            )
        return (
            f"you return {shown} to seat {obs.return_to}: the only card allowed "
            "(natural rank 2..10, else your lowest; §10, §12)"
        )

    def _read(self, question: str) -> str:
        try:
            return self.ask(question)
        except EOFError:
            self.screen.print("")  # the question's line ends before the stop is reported
            raise InputEnded("end of input") from None
        except KeyboardInterrupt:
            self.screen.print("")
            raise

    def _accept(self, obs: Observation, action: object) -> object:
        self.journal.record(self.deal_index, obs.phase, action)
        return action

    def _which(self, obs: Observation, choices: list[Combo]) -> Combo | None:
        self.screen.print("these cards can be declared as:")
        for i, c in enumerate(choices, 1):
            self.screen.print(f"  {i}) {play_text(c, obs.level, self.style)}")
        while True:
            text = self._read(f"which declaration? 1..{len(choices)} (empty: back) > ").strip()
            if not text:
                return None
            if text.isdigit() and 1 <= int(text) <= len(choices):
                return choices[int(text) - 1]
            mark = "✗" if self.style.symbols else "x"
            self.screen.print(f"{mark} choose a number 1..{len(choices)}, or nothing to go back")

    def _hint_player(self):
        """The player ``?`` asks, made on first use (a search in the game's ruleset)."""
        if self._hint is None:
            self._hint = self.hint.player(self.seat)
        return self._hint

    def _suggest(self, obs: Observation) -> object:
        self._hint_player()
        if obs.phase == TRIBUTE:
            return self._hint.choose_tribute(obs)
        if obs.phase == RETURN:
            return self._hint.choose_return(obs)
        return self._hint.choose_play(obs)

    # ------------------------------------------------------------ text

    def _action_text(self, obs: Observation, action: object) -> str:
        if isinstance(action, Combo):
            return "pass" if action[0] == "pass" else play_text(action, obs.level, self.style)
        return card_text(action, self.style)  # type: ignore[arg-type]

    def _question(self, obs: Observation) -> str:
        if obs.phase == TRIBUTE:
            return "your tribute card (a card or a number) > "
        if obs.phase == RETURN:
            return f"your return card to seat {obs.return_to} (a card or a number) > "
        return (
            "your play (cards, number, p, ?, h, t) > "
            if obs.top is not None
            else "you lead (cards, number, ?, h, t) > "
        )

    def _show_menu(self, obs: Observation, options: list) -> None:
        width = min(MENU_WIDTH, self.screen.width)
        measure = self.screen.columns
        if obs.phase != PLAY:
            what = "tribute" if obs.phase == TRIBUTE else f"return to seat {obs.return_to}"
            items = [f"{i}) {card_text(c, self.style, obs.level)}" for i, c in enumerate(options, 1)]
            lines = menu_lines(f"allowed {what}: ", items, sep="  ", width=width, measure=measure)
            self.screen.print("\n".join(lines))
            return
        groups: dict[str, list[str]] = {}
        for i, c in enumerate(options, 1):
            label = play_cards_text(c, obs.level, self.style)
            if c.type not in ("single", "pair", "triple", "bomb", "joker_bomb"):
                label = f"{rank_text(c.rank)}: {label}"
            groups.setdefault(c.type, []).append(f"{i}) {label}")
        for t in COMBO_TYPES:
            if t in groups:
                lines = menu_lines(f"{t.replace('_', ' ')}: ", groups[t], width=width, measure=measure)
                self.screen.print("\n".join(lines))
        if obs.top is not None:
            self.screen.print("p) pass")

    def _table(self, obs: Observation, title: str = "", hand: bool = True, footer: Sequence[str] = ()) -> str:
        """The whole table (``t``; without the hand and with a ``title`` at a deal's start)."""
        if not footer and obs.phase == PLAY:
            footer = [self._lead_line(obs)]
        return render_table(
            TableScene(
                title=title or f"deal {self.deal_index} · your turn (seat {self.seat})",
                level=obs.level,
                levels=obs.levels,
                level_team=obs.level_team,
                names=self.names,
                counts=obs.card_counts,
                finished=obs.finished,
                events=obs.events,
                to_move=obs.to_move,
                tribute_kind=obs.tribute_kind,
                hands={self.seat: obs.hand} if hand else {},
                bottom=self.seat,
                footer=footer,
                you=True,
            ),
            self.style,
        )


__all__ = ["JOURNAL", "InputEnded", "Journal", "JournalMismatch", "TerminalSeat"]
