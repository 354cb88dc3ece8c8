"""Small generated runs for report, analyze and notebook tests.

``write_run`` plays a few capped matches in-process and writes a run directory with
``deals-00000.jsonl`` and ``matches-00000.jsonl`` exactly as the log schema builds
them; ``small_run`` is a session-scoped fixture holding one such run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from guandan_cli.runner.tasks import RunSpec, play_match

STRATEGIES = ["greedy", "random", "greedy", "random"]


def generate_lines(
    matches: int = 4,
    max_deals: int = 6,
    root: int = 1,
    strategies: list[str] | None = None,
    ruleset: str = "cgr2022",
    run_id: str = "test-run",
) -> tuple[list[str], list[str]]:
    """JSON lines (deals, matches) of ``matches`` matches capped at ``max_deals`` deals.

    Played by the runner's own ``play_match``, so the lines are what ``simulate`` writes.
    """
    spec = RunSpec(run_id, root, tuple(strategies or STRATEGIES), ruleset, max_deals=max_deals)
    deal_lines: list[str] = []
    match_lines: list[str] = []
    for i in range(matches):
        lines, mline, _facts = play_match(spec, i)
        deal_lines += [line.decode().rstrip("\n") for line in lines]
        match_lines.append(mline.decode().rstrip("\n"))
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
