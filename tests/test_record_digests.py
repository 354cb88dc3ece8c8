"""Byte-identical logs: the deal and match records of fixed small runs, pinned by digest.

The digests were taken from the code as it stood before the speed work of issue 13
(commit 4ecb364). They cover the record lines only, decompressed and in order (not the
part layout, which the durability layer owns): any change to the engine, the bots'
decisions or the record builders that alters a byte of a record fails here.

A change that alters the records on purpose (a schema fix, a new bot rule) regenerates
them in its own commit, saying why: ``python tests/test_record_digests.py`` prints the
table below from the current code.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

#: name -> simulate() arguments (workers=1, progress off, an empty out dir added)
RUNS: dict[str, dict] = {
    "random-cgr2022": {"matches": 3, "seed": 5, "strategies": "random"},
    "random-jiangsu2017": {"matches": 3, "seed": 6, "strategies": "random", "ruleset": "jiangsu2017"},
    "greedy-cgr2022": {"matches": 3, "seed": 7, "strategies": "greedy"},
    "greedy-jiangsu2017": {"matches": 3, "seed": 8, "strategies": "greedy", "ruleset": "jiangsu2017"},
    "heuristic-cgr2022": {"matches": 4, "seed": 5, "strategies": "heuristic"},
    "heuristic-jiangsu2017": {"matches": 4, "seed": 9, "strategies": "heuristic", "ruleset": "jiangsu2017"},
    "heuristic-vs-random-gzip": {
        "matches": 2,
        "seed": 10,
        "strategies": "heuristic,random",
        "compression": "gzip",
        "max_deals": 6,
    },
    "random-afail1-jiangsu2017": {
        "matches": 3,
        "seed": 5,
        "strategies": "random",
        "ruleset": "jiangsu2017",
        "a_fail_limit": 1,
    },
    "mixed-afail1-zstd": {
        "matches": 4,
        "seed": 12,
        "strategies": "greedy,heuristic,random,heuristic",
        "a_fail_limit": 1,
        "compression": "zstd",
        "part_size": 2,
    },
}

#: name -> (deal lines, match lines, sha256 of the deal lines, sha256 of the match lines)
DIGESTS: dict[str, tuple[int, int, str, str]] = {
    "greedy-cgr2022": (
        33,
        3,
        "deba0e0814834d3ed99fbfc29651096007bf27ad495a98c63c095d5476933217",
        "3240f639ab25e099c3faa54db233b43e7f8e8014cd042919353b8367059fe153",
    ),
    "greedy-jiangsu2017": (
        29,
        3,
        "bb5bf20dc77d6295dbe7dc61ab795189ad7f16e13d0a5719ea62a6dedea67b6c",
        "39973df0c44042f8fee4ae8e062d5a8d6a12aecb0e34e6752a30a66eb8af40cb",
    ),
    "heuristic-cgr2022": (
        41,
        4,
        "bd248a8bd1b0dd57599669ba47d3795639613fa6984ed84cce1bcc8d4d22a676",
        "f9b0f3151fb99a399cd0ade13d8ad737a88f110646834c4055d66d5767e19214",
    ),
    "heuristic-jiangsu2017": (
        50,
        4,
        "abaea99ca1c476ba50e150aff7e250c292e33d1d524e83c173daae307b282354",
        "d1f4561a87e75dd0f22a8d1e1e7425d43baf9ee96ccfffcd3c918caaf6a8d6ca",
    ),
    "heuristic-vs-random-gzip": (
        10,
        2,
        "590cc0a64b505628abf6827071dd30c23726589be0701e17a5df414da656f51a",
        "cf35a3d441c5900aac8d58fa9927b84156a9320a20d773a0d4712f773a60e47c",
    ),
    "mixed-afail1-zstd": (
        20,
        4,
        "b8e02008b9492f91994557d8cde440ce1515ef689c42be95993258a058c1ef84",
        "732939087ee55af379abf3f55a7067dc4f3edb36a2aa31a3b4bc1eaa8b1d53cc",
    ),
    "random-afail1-jiangsu2017": (
        56,
        3,
        "8f3b1261f62428b9cb04040a43353ed0e0aa3b38334c95089f0f49334fded97b",
        "50fdfe7e5668591cb0165fb856ea826cfac517f3be02e29163215765fc18d93a",
    ),
    "random-cgr2022": (
        37,
        3,
        "cd592125c0adfcff815ab0d4ca9bfe238c141932f146a604282d5c5595aebc48",
        "470ddbeb5667cf874918a0c391199df25ffea97386bedd4694e35291b9d61595",
    ),
    "random-jiangsu2017": (
        33,
        3,
        "b10e632896b170c177d98cca6e53a205c60c40ec4a025f7be83482bc9eb803d4",
        "bd14f20ffa325cb41eb6829887ca207aa495e5a6750092228b0358c19853c2de",
    ),
}


def record_lines(run_dir: Path, kind: str) -> list[bytes]:
    """Every record line of ``kind`` (``deals`` or ``matches``), decompressed, in part order."""
    from guandan_cli.logs.reader import open_part, part_files

    lines: list[bytes] = []
    for part in part_files(run_dir, kind):
        with open_part(part) as fh:
            lines += fh.read().splitlines(keepends=True)
    return lines


def run_records(name: str, tmp: Path) -> tuple[list[bytes], list[bytes]]:
    from guandan_cli import simulate

    out = tmp / name
    simulate(out=out, workers=1, progress=False, **RUNS[name])
    return record_lines(out, "deals"), record_lines(out, "matches")


def digest_row(deals: list[bytes], matches: list[bytes]) -> tuple[int, int, str, str]:
    return (
        len(deals),
        len(matches),
        hashlib.sha256(b"".join(deals)).hexdigest(),
        hashlib.sha256(b"".join(matches)).hexdigest(),
    )


@pytest.mark.parametrize("name", sorted(RUNS))
def test_records_are_byte_identical(name, tmp_path):
    deals, matches = run_records(name, tmp_path)
    assert digest_row(deals, matches) == DIGESTS[name], (
        f"the records of run {name!r} changed; if on purpose, regenerate DIGESTS "
        "(python tests/test_record_digests.py) in that change's own commit and say why"
    )


def test_runs_cover_what_they_claim(tmp_path):
    """The fixed runs do reach the cases they stand for (so the digests guard them)."""
    deals, _ = run_records("random-afail1-jiangsu2017", tmp_path)
    recs = [json.loads(line) for line in deals]
    # a team failing at its own A goes back to 2 (a_fail_limit = 1)
    assert any(
        r["level"] == "A"
        and r["levels_before"][r["level_team"]] == "A"
        and r["levels_after"][r["level_team"]] == "2"
        for r in recs
    )
    kinds = {r["tribute"]["kind"] for r in recs}
    assert {"none", "single", "double"} <= kinds
    assert {r["ruleset"] for r in recs} == {"jiangsu2017"}


def _print_table() -> None:  # pragma: no cover - a maintenance helper
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print("DIGESTS: dict[str, tuple[int, int, str, str]] = {")
        for name in sorted(RUNS):
            row = digest_row(*run_records(name, Path(tmp)))
            print(f"    {name!r}: {row!r},")
        print("}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_print_table())
