"""``guandan play``: one match with a person at one seat, written as a normal run directory.

The runner's ``simulate`` plays the match (one match, one in-process worker); the seat
named ``human`` asks the person through a :class:`~guandan_cli.interactive.seat.TerminalSeat`.
So the log is written by the same code as every simulated run and ``verify``, ``replay``
and ``analyze`` read it.

Resuming (``resume=True``): the runner keeps finished matches (here: a finished game is
never replayed) and the unfinished match is played again from its seed; the person's
saved answers (``human.jsonl``) are replayed in order, so the bots, seeded as before,
make the same moves and the game continues at the first unanswered question — the same
deal and trick where it stopped. The options that are the person's, not the run's (the
``--hint`` bot), are kept in ``play.json`` beside them and taken back on resume unless given
again.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from guandan_cli.interactive.hint_source import HintSource
from guandan_cli.interactive.seat import JOURNAL, InputEnded, Journal, JournalMismatch, TerminalSeat
from guandan_cli.interactive.terminal import Screen
from guandan_cli.logs.manifest import RunFolder
from guandan_cli.view.table import Style
from guandan_cli.view.text import plural

HUMAN = "human"
#: the person's own options of a game (``--hint``), kept for ``--resume``
PLAY_OPTIONS = "play.json"
#: the bot whose answer ``?`` suggests when none is given
DEFAULT_HINT = "heuristic"


class PlayInputError(ValueError):
    """Bad input to ``play`` (one line)."""


@dataclass
class GameSpec:
    """The game to play or continue."""

    out: Path
    seat: int
    strategies: tuple[str, str, str, str]
    seed: int
    ruleset: str
    max_deals: int | None = None
    a_fail_limit: int | None = None
    hint: str = DEFAULT_HINT
    #: review each deal of the person's as it ends (``r`` shows it)
    deal_review: bool = True


def save_play_options(game: GameSpec) -> None:
    """Keep ``game``'s own options (``hint``) in ``PLAY_OPTIONS`` of its folder (replaced whole);
    the folder must exist (the runner makes it: a new game's folder holds nothing before)."""
    path = game.out / PLAY_OPTIONS
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps({"hint": game.hint, "deal_review": game.deal_review}) + "\n", encoding="utf-8")
    os.replace(part, path)


def stored_hint(out: Path) -> str:
    """The ``--hint`` kept for the game in ``out`` (``DEFAULT_HINT`` for a game saved without one).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> stored_hint(folder)
    'heuristic'
    >>> save_play_options(GameSpec(folder, 0, ("human", "a", "a", "a"), 7, "cgr2022", hint="search"))
    >>> stored_hint(folder)
    'search'
    """
    path = out / PLAY_OPTIONS
    try:
        options = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return DEFAULT_HINT
    except (OSError, ValueError) as exc:
        raise PlayInputError(f"{path}: not the game's saved options ({exc})") from None
    hint = options.get("hint") if isinstance(options, dict) else None
    if not isinstance(hint, str) or not hint.strip():
        raise PlayInputError(f"{path}: not the game's saved options (no hint)")
    return hint


def stored_deal_review(out: Path) -> bool:
    """Whether the game in ``out`` reviews each deal as it ends (``True`` for a game saved before
    the option existed; ``stored_hint`` has checked the file)."""
    try:
        options = json.loads((out / PLAY_OPTIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    return options.get("deal_review", True) is not False if isinstance(options, dict) else True


def seat_strategies(seat: int, bots: str) -> tuple[str, str, str, str]:
    """Four seat names: ``human`` at ``seat``; ``bots`` is one name (all three) or ``partner,opponents``.

    >>> seat_strategies(1, "heuristic,greedy")
    ('greedy', 'human', 'greedy', 'heuristic')
    """
    if not isinstance(seat, int) or not 0 <= seat <= 3:
        raise PlayInputError(f"--seat must be 0, 1, 2 or 3, got {seat!r}")
    names = [s.strip() for s in bots.split(",")]
    if any(not s for s in names) or len(names) not in (1, 2):
        raise PlayInputError(
            f"--strategies takes 1 name (all three bots) or 2 (partner,opponents), got {bots!r}"
        )
    if HUMAN in names:
        raise PlayInputError("--strategies names the bots; the person's seat is --seat")
    partner, opponent = names[0], names[-1]
    out = ["", "", "", ""]
    for s in range(4):
        out[s] = HUMAN if s == seat else partner if s == seat ^ 2 else opponent
    return (out[0], out[1], out[2], out[3])


def stored_game(out: Path) -> GameSpec:
    """The game stored in ``out`` (for ``--resume``)."""
    try:
        folder = RunFolder.read(out)
    except ValueError as exc:
        raise PlayInputError(str(exc)) from None
    manifest, config = folder.manifest, folder.options
    if manifest is None:
        raise PlayInputError(f"nothing to resume: no game in {out}")
    strategies = tuple(config.strategies or ())
    if strategies.count(HUMAN) != 1:
        raise PlayInputError(f"{out} holds a run of bots, not a game with one human seat")
    if manifest.complete:
        raise PlayInputError(f"the game in {out} is finished; replay it with: guandan replay {out}")
    return GameSpec(
        out=out,
        seat=strategies.index(HUMAN),
        strategies=strategies,  # type: ignore[arg-type]
        seed=config.seed,
        ruleset=config.ruleset,
        max_deals=config.max_deals,
        a_fail_limit=config.a_fail_limit,
        hint=stored_hint(out),
        deal_review=stored_deal_review(out),
    )


def _bots(strategies: Sequence[str], seat: int) -> str:
    """``--strategies`` for the bots around ``seat``: one name, or ``partner,opponents``."""
    partner, opponent = strategies[seat ^ 2], strategies[(seat + 1) % 4]
    return partner if partner == opponent else f"{partner},{opponent}"


def check_resume_options(game: GameSpec, given: dict[str, object]) -> None:
    """Refuse options given with ``--resume`` that differ from the stored ``game``.

    ``given`` maps the options given explicitly (``--seed``, ``--seat``, ``--strategies``,
    ``--ruleset``, ``--max-deals``, ``--a-fail-limit``) to their values. The stored game is
    what a resume continues; a value other than its own would be silently ignored.
    """
    saved: dict[str, object] = {
        "--seat": game.seat,
        "--seed": game.seed,
        "--strategies": _bots(game.strategies, game.seat),
        "--ruleset": game.ruleset,
        "--max-deals": game.max_deals,
        "--a-fail-limit": game.a_fail_limit,
    }
    differ = []
    for option, value in given.items():
        was = saved[option]
        if option == "--strategies" and isinstance(value, str):
            names = [s.strip() for s in value.split(",")]
            same = len(names) in (1, 2) and (names[0], names[-1]) == (
                game.strategies[game.seat ^ 2],
                game.strategies[(game.seat + 1) % 4],
            )
        else:
            same = value == was
        if not same:
            differ.append(f"without {option}" if was is None else f"with {option} {was}")
            differ[-1] += f" (given {value})"
    if differ:
        them = "those options" if len(differ) > 1 else "it"
        raise PlayInputError(
            f"the game in {game.out} was saved {', '.join(differ)}; "
            f"resume without {them}, or choose another --out for a new game"
        )


def check_new_game(out: Path) -> None:
    """A new game needs an empty or new ``out``."""
    try:
        manifest = RunFolder.read(out).manifest
    except ValueError as exc:
        raise PlayInputError(f"{exc}; choose another --out") from None
    if out.exists() and not out.is_dir():
        raise PlayInputError(f"output {out} exists and is not a directory")
    if manifest is not None:
        if manifest.complete:
            raise PlayInputError(f"{out} holds a finished game; choose another --out")
        raise PlayInputError(
            f"{out} holds an unfinished game; add --resume to continue it, or choose another --out"
        )
    if out.is_dir() and any(out.iterdir()):
        raise PlayInputError(
            f"output {out} exists, is not empty and is not a guandan run; choose another --out"
        )


def command_of(game: GameSpec) -> str:
    bots = game.strategies[game.seat ^ 2] + "," + game.strategies[(game.seat + 1) % 4]
    args = ["guandan", "play", "--seat", str(game.seat), "--strategies", bots, "--seed", str(game.seed)]
    args += ["--ruleset", game.ruleset, "--out", str(game.out)]
    if game.max_deals is not None:
        args += ["--max-deals", str(game.max_deals)]
    if game.a_fail_limit is not None:
        args += ["--a-fail-limit", str(game.a_fail_limit)]
    return shlex.join(args)


def saved_line(game: GameSpec) -> str:
    """What ``q`` prints: the game is saved, and how to continue it.

    >>> saved_line(GameSpec(Path("runs/g"), 0, ("human", "a", "a", "a"), 7, "cgr2022"))
    'saved: every answer is kept in runs/g; continue with: guandan play --resume --out runs/g'
    """
    out = shlex.quote(str(game.out))
    return f"saved: every answer is kept in {game.out}; continue with: guandan play --resume --out {out}"


def stop_reason(exc: KeyboardInterrupt) -> str:
    """Why a game stopped: ``q`` (the person's choice), ``input ended`` or ``stopped`` (Ctrl-C).

    The runner wraps the interrupt that stopped it (``SimulationInterrupted.reason``).
    """
    reason = getattr(exc, "reason", None) or exc
    if isinstance(reason, InputEnded) and str(reason) in ("q", "end of input"):
        return "q" if str(reason) == "q" else "input ended"
    return "stopped"


def play_game(
    game: GameSpec,
    *,
    resume: bool,
    screen: Screen,
    style: Style,
    delay: float = 0.5,
    ask: Callable[[str], str] | None = None,
    make_seat: Callable[[Journal], object] | None = None,
    reviewer=None,
):
    """Play (or continue) ``game``; returns the runner's ``Run``. Ctrl-C propagates, answers kept.

    ``game.hint``: the strategy whose answer ``?`` suggests (a search: its valued candidates),
    kept in the game's folder for a resume. ``make_seat``: the person's seat (an input source
    that records its answers in the journal it is given) other than the terminal's, such as
    the web table's. ``reviewer``: reviews each deal of the terminal's seat as it ends (an
    ``interactive.deal_review.DealReviewer``; ``r`` at the deal's end shows it)."""
    from guandan_cli.runner.identity import OLD_CODE_CHOICES
    from guandan_cli.runner.simulation import SimulationError, SimulationInputError, simulate
    from guandan_cli.strategies.human import use_input_source

    try:
        journal = Journal(game.out / JOURNAL, resume)
    except JournalMismatch as exc:
        raise PlayInputError(str(exc)) from None
    names: Sequence[str] = ["you" if s == game.seat else n for s, n in enumerate(game.strategies)]
    if resume:
        screen.print(f"resuming {game.out}: {plural(journal.kept, 'saved answer')} to replay")
    from guandan_cli.engine.rules import get_ruleset

    rules = get_ruleset(game.ruleset, a_fail_limit=game.a_fail_limit, max_deals=game.max_deals)
    if make_seat is not None:
        seat = make_seat(journal)
    else:
        hint = HintSource(game.hint, rules)
        seat = TerminalSeat(game.seat, names, screen, style, journal, ask=ask, delay=delay, hint=hint)
    if reviewer is not None and isinstance(seat, TerminalSeat):
        seat.reviewer = reviewer
    journal.on_open = lambda: save_play_options(game)
    use_input_source(lambda s: seat)
    try:
        run = simulate(
            matches=1,
            seed=game.seed,
            strategies=list(game.strategies),
            ruleset=game.ruleset,
            max_deals=game.max_deals,
            a_fail_limit=game.a_fail_limit,
            out=game.out,
            workers=1,
            resume=resume,
            progress=False,
            command=command_of(game),
        )
        if reviewer is not None:  # the last deals' verdicts, their reviews waited for
            if reviewer.running():
                screen.print("reviewing your decisions of the last deal…")
            for line in reviewer.remaining_lines():
                screen.print(line)
        return run
    except SimulationInputError as exc:
        # the runner's refusals name simulate's --force, which play does not have
        why = str(exc)
        for force in (
            OLD_CODE_CHOICES,
            "use --force to start over, or another --out",
            "use --force to start over or another --out",
        ):
            why = why.replace(force, "the game cannot be continued: start a new one with another --out")
        why = why.replace("play fewer matches, use --compression zstd or write", "make room or write")
        raise PlayInputError(why) from None
    except SimulationError:
        if journal.problem is not None:  # a saved answer that does not fit: the file, not a bot
            raise PlayInputError(str(journal.problem)) from None
        raise
    finally:
        use_input_source(None)
        journal.close()
        # the game's own folder (its journal, or the run the first question came from: a game
        # quit before its first answer): a resume takes its options back
        if (game.out / JOURNAL).is_file() or (game.out / "manifest.json").is_file():
            save_play_options(game)


__all__ = [
    "HUMAN",
    "PLAY_OPTIONS",
    "GameSpec",
    "PlayInputError",
    "check_new_game",
    "play_game",
    "saved_line",
    "seat_strategies",
    "stop_reason",
    "stored_game",
]
