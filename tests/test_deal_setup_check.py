"""A deal checks its setup unless told the setup is known valid (a Match's own)."""

import dataclasses

import pytest
from guandan_cli.strategies import make_players

from guandan_cli.engine.deal import Deal, DealSetup
from guandan_cli.engine.match import Match
from guandan_cli.engine.play import iter_match


def test_a_bad_setup_is_refused_unless_check_is_off() -> None:
    bad = DealSetup(hands=((0, 0, 0),) + ((1,),) * 3, level=0, first_leader=0)
    with pytest.raises(ValueError, match="faces dealt more than twice"):
        Deal(bad)
    Deal(bad, check=False)  # the caller vouches for it


def test_a_match_subclass_setups_are_still_checked() -> None:
    class Cheating(Match):
        def next_setup(self):
            s = super().next_setup()
            return dataclasses.replace(s, hands=((0, 0, 0),) + s.hands[1:])

    with pytest.raises(ValueError, match="faces dealt more than twice"):
        next(iter_match(Cheating(seed=1), make_players(["random"] * 4, match_seed=1)))
