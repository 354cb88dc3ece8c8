"""A hand two decks cannot deal is refused by ``legal_plays`` with ``InvalidHandError``
naming the card, never misread (before, four S2 were read as a hand holding H2)."""

from __future__ import annotations

import random
import signal

import pytest

from guandan_cli.engine import InvalidHandError, hand_problem, legal_plays
from guandan_cli.engine.cards import FACE_NAMES


def test_refused_exactly_when_the_oracle_says_so():
    rng = random.Random(5)
    refused = 0
    for _ in range(3000):
        size = rng.randint(1, 27)
        if rng.random() < 0.5:  # mostly good hands with one flaw planted, or none
            hand = [rng.randrange(54) for _ in range(size)]
        else:
            # faces -108..-55 are not caught (they index the weight table from its end): the
            # check is two int operations, not a pass over the hand; see legal._P4_CHECKED
            hand = [rng.randint(-54, 115) for _ in range(size)]
        if rng.random() < 0.2:
            hand += [hand[0]] * rng.randint(1, 3)
        # the oracle counts copies in a dict: independent of the engine's base-4 digits
        counts = {f: hand.count(f) for f in hand}
        bad = any(not 0 <= f < 54 for f in hand) or max(counts.values()) > 2
        assert (hand_problem(hand) is not None) == bad
        if bad:
            refused += 1
            with pytest.raises(InvalidHandError) as caught:
                legal_plays(hand, 0)
            assert str(caught.value) == hand_problem(hand)
        else:
            legal_plays(hand, 0)
    assert 500 < refused < 2500


def test_four_copies_name_the_card():
    with pytest.raises(
        InvalidHandError, match=f"hand holds 4 copies of {FACE_NAMES[0]}: two decks hold at most 2"
    ):
        legal_plays((0, 0, 0, 0), 5)
    assert isinstance(InvalidHandError("x"), ValueError)


@pytest.mark.parametrize("size", [28, 29, 40, 54])
def test_plays_refuses_a_hand_of_more_than_27_cards_in_one_line(size, capsys):
    """Two decks give a seat 27 cards; ``plays`` listed leads for 29 or 40 (issue 30). Both the
    console script and the app refuse it: one line, exit 2."""
    from click.testing import CliRunner

    from guandan_cli.cli.app import app, main

    hand = " ".join(sorted(FACE_NAMES * 2)[:size])  # at most two copies of each card
    wanted = (
        f"guandan: error: HAND holds {size} cards: a seat is dealt 27 (108 cards to four seats, "
        "rules.md §1), so a hand holds at most 27\n"
    )
    res = CliRunner().invoke(app, ["plays", hand])
    assert (res.exit_code, res.stdout, res.stderr) == (2, "", wanted)
    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    with pytest.raises(SystemExit) as stop:
        main(["plays", hand, "--level", "5"])
    assert stop.value.code == 2
    # guandan run inside this process leaves its signal handlers as it found them
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == before
    assert capsys.readouterr() == ("", wanted)
    res = CliRunner().invoke(app, ["plays", " ".join(sorted(FACE_NAMES * 2)[:27])])
    assert res.exit_code == 0 and res.stdout.startswith("hand: ")
