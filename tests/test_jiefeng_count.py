"""``derived.jiefeng`` counts 接风 as each ruleset defines it (rules.md §7, §12).

The oracle replays each deal action by action and reads the engine's own state at every
lead (who owned the last trick, who had finished by then), independently of the card
counting ``derive_stats`` does from the events.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from guandan_cli.strategies import make_players

from guandan_cli.engine.deal import PLAY, Deal
from guandan_cli.engine.match import Match
from guandan_cli.engine.play import iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.logs.schema import derive_stats


def _leads(deal: Deal) -> list[tuple[int, int, tuple[int, ...]]]:
    """(leader, previous trick's owner, seats finished then) for every lead after the first."""
    again = Deal(deal.setup)
    out = []
    owner = -1
    for _seat, action in deal.actions:
        before = len(again.events)
        finished = tuple(again.finished)
        again.apply(action)
        for ev in again.events[before:]:
            if ev.kind == PLAY:
                if ev.lead and owner >= 0:
                    out.append((ev.seat, owner, finished))
                owner = ev.seat
    return out


def _deals(ruleset: str, matches: int):
    rules = get_ruleset(ruleset, max_deals=8)
    for i in range(matches):
        m = Match(1000 + i, rules)
        for played in iter_match(m, make_players(["greedy", "random", "greedy", "random"], match_seed=i)):
            yield played.deal


@pytest.mark.parametrize("ruleset", ["cgr2022", "jiangsu2017"])
def test_jiefeng_is_counted_as_the_ruleset_defines_it(ruleset):
    first_only = get_ruleset(ruleset).jiefeng == "first_only"
    turn_order_leads = 0
    for deal in _deals(ruleset, 25):
        expected = legacy = 0
        for leader, owner, finished in _leads(deal):
            if owner in finished and leader == owner ^ 2:
                legacy += 1
                if not first_only or owner == finished[0]:
                    expected += 1
                else:  # jiangsu2017: the lead passed in turn order, the owner's next seat being out
                    assert (owner + 1) % 4 in finished
                    turn_order_leads += 1
        assert derive_stats(deal)["jiefeng"] == expected
        assert derive_stats(deal, version=1)["jiefeng"] == legacy
    # the case the schema-1 count got wrong does occur under jiangsu2017, never under cgr2022
    assert (turn_order_leads > 0) == first_only


V1_RUN = Path(__file__).resolve().parent / "data" / "v1-jiangsu2017"


def test_schema_1_logs_still_read_and_verify():
    """A jiangsu2017 run written by schema 1 (before the fix): two of its deals counted a
    turn-order lead as 接风. It verifies clean (old lines are checked with the old count),
    reports read it, and the jiefeng report leaves its deals out."""
    from guandan_cli.logreaders.verify import verify
    from guandan_cli.logs.reader import read_deals
    from guandan_cli.reports import load, run_report

    deals = read_deals(V1_RUN)
    assert deals.height == 12 and set(deals["v"]) == {1}
    report = verify([V1_RUN])
    assert report.ok and report.deals == 12, [str(p) for p in report.problems]
    data = load(V1_RUN)
    assert run_report("deal-length", data.deals, data.matches).height > 0
    assert run_report("jiefeng", data.deals, data.matches).height == 0


def test_a_schema_1_line_with_a_wrong_count_is_still_caught(tmp_path):
    """Old lines are verified with the schema-1 count, not waved through."""
    import gzip
    import json
    import shutil

    from guandan_cli.logreaders.verify import verify

    shutil.copytree(V1_RUN, tmp_path / "run")
    part = tmp_path / "run" / "deals-00000.jsonl.gz"
    lines = gzip.decompress(part.read_bytes()).decode().splitlines(keepends=True)
    rec = json.loads(lines[5])
    rec["derived"]["jiefeng"] += 1
    lines[5] = json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n"
    part.write_bytes(gzip.compress("".join(lines).encode()))
    reasons = [p.reason for p in verify([tmp_path / "run"]).problems]
    assert any("derived.jiefeng" in r for r in reasons), reasons
