"""Drive `guandan play` in a pseudo-terminal (pexpect) like a person: read the question, answer.

The person follows the heuristic's suggestion (`?`), typed back as card tokens, so the
match goes on like a real one (tribute and return included).
"""

from __future__ import annotations

import re
import signal
import sys
from pathlib import Path

import pexpect

PROMPTS = [
    r"you lead \(cards, number, \?, h, t\) > ",
    r"your play \(cards, number, p, \?, h, t\) > ",
    r"your tribute card \(a card or a number\) > ",
    r"your return card to seat \d \(a card or a number\) > ",
    r"which declaration\? 1\.\.\d \(empty: back\) > ",
    pexpect.EOF,
]
LEAD, FOLLOW, TRIBUTE, RETURN, WHICH, END = range(6)
SUGGESTION = re.compile(r"suggestion: ([^\r\n]*)")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(
    args: list[str], cwd: Path, plain: bool = True, columns: int = 200, deal_review: bool = False
) -> pexpect.spawn:
    """``guandan play ARGS`` in a pseudo-terminal (without the review at each deal's end unless
    ``deal_review``: its question would come between the ones a test answers)."""
    argv = [
        sys.executable,
        "-c",
        "from guandan_cli.cli.app import main; main()",
        "play",
        *args,
        "--delay",
        "0",
    ]
    if not deal_review:
        argv.append("--no-deal-review")
    if plain:
        argv.append("--plain")
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        cwd=str(cwd),
        encoding="utf-8",
        codec_errors="replace",
        timeout=60,
        dimensions=(50, columns),
        # as from a terminal: a suite run in the background (nohup, `&`) hands down an ignored
        # SIGINT, and Python then installs no Ctrl-C handler: sendintr would go unheard
        preexec_fn=_default_sigint,
    )
    return child


#: a colour (SGR) escape sequence of the terminal
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def suggestion_tokens(text: str) -> str:
    """``pair 7   S7 H2=7`` -> ``S7 H2``; ``pass`` -> ``p``; a card stays a card (colour left out);
    a search's ``bomb 4 S4 S4 H4 D4  (+0.5 levels, …)`` -> ``S4 S4 H4 D4`` (its type words, then
    its key, then the cards)."""
    text = ANSI.sub("", text).strip().split("  (")[0]  # a search's values follow in brackets
    if text == "pass":
        return "p"
    if " " not in text:  # a card (tribute, return)
        return text.split("=")[0]
    if "  " in text:
        cards = text.split("  ")[-1].split()  # "type key  cards": the cards follow two spaces
    else:
        words = text.split()
        kind = next(i for i, word in enumerate(words) if not (word.isalpha() and word.islower()))
        cards = words[kind + 1 :]
    return " ".join(c.split("=")[0] for c in cards)


def answer_with_hint(child: pexpect.spawn) -> str:
    """Ask for the suggestion and type it back; returns what was typed."""
    child.sendline("?")
    child.expect(SUGGESTION)
    typed = suggestion_tokens(child.match.group(1))
    child.expect(PROMPTS[:5])
    child.sendline(typed)
    return typed


__all__ = [
    "ANSI",
    "END",
    "FOLLOW",
    "LEAD",
    "PROMPTS",
    "RETURN",
    "SUGGESTION",
    "TRIBUTE",
    "WHICH",
    "answer_with_hint",
    "spawn",
]
