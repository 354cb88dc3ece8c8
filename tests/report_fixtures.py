"""Small generated runs for report, analyze and notebook tests.

``write_run`` plays a few capped matches in-process and writes a run directory with
``deals-00000.jsonl`` and ``matches-00000.jsonl`` exactly as the log schema builds
them; ``small_run`` is a session-scoped fixture holding one such run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guandan_cli.engine.match import Match, deal_seed
from guandan_cli.engine.play import iter_match
from guandan_cli.engine.rules import get_ruleset
from guandan_cli.engine.seeding import derive_seed
from guandan_cli.logs.schema import deal_record, match_record
from strategies import make_players

STRATEGIES = ["greedy", "random", "greedy", "random"]


def generate_lines(
    matches: int = 4,
    max_deals: int = 6,
    root: int = 1,
    strategies: list[str] | None = None,
    ruleset: str = "cgr2022",
    run_id: str = "test-run",
) -> tuple[list[str], list[str]]:
    """JSON lines (deals, matches) of ``matches`` matches capped at ``max_deals`` deals."""
    strategies = list(strategies or STRATEGIES)
    rules = get_ruleset(ruleset, max_deals=max_deals)
    deal_lines: list[str] = []
    match_lines: list[str] = []
    for i in range(matches):
        seed = derive_seed(root, "match", i)
        m = Match(seed, rules)
        players = make_players(strategies, seed)
        n = 0
        for pd in iter_match(m, players):
            rec = deal_record(
                run_id=run_id,
                match_index=i,
                match_seed=seed,
                deal_index=pd.index,
                deal_seed=deal_seed(seed, pd.index),
                strategies=strategies,
                setup=pd.setup,
                deal=pd.deal,
                update=pd.update,
            )
            deal_lines.append(json.dumps(rec, separators=(",", ":"), ensure_ascii=False))
            n += 1
        rec = match_record(
            run_id=run_id,
            match_index=i,
            match_seed=seed,
            strategies=strategies,
            ruleset=ruleset,
            deals=n,
            final_levels=(m.levels[0], m.levels[1]),
            winner=m.winner,
            capped=m.capped,
        )
        match_lines.append(json.dumps(rec, separators=(",", ":"), ensure_ascii=False))
    return deal_lines, match_lines


def write_run(directory: Path, **kwargs) -> Path:
    """Write a generated run into ``directory`` (created) and return it."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    deals, matches = generate_lines(**kwargs)
    (directory / "deals-00000.jsonl").write_text("\n".join(deals) + "\n", encoding="utf-8")
    (directory / "matches-00000.jsonl").write_text("\n".join(matches) + "\n", encoding="utf-8")
    return directory


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> Path:
    """A run of 4 matches of at most 6 deals (greedy vs random); do not modify it."""
    return write_run(tmp_path_factory.mktemp("run") / "small")
