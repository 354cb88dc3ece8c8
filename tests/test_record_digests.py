"""Byte-identical logs: the deal and match records of fixed small runs, pinned by digest.

The digests were first taken from the code as it stood before the speed work of issue 13
(commit 4ecb364), and regenerated once when schema 2 changed every record on purpose
(`"v":2`, and `derived.jiefeng` counted as jiangsu2017 defines 接风): the speed work,
merged on top, gives the same digests as the code of that change without it. They cover
the record lines only, decompressed and in order (not the part layout, which the
durability layer owns): any change to the engine, the bots'
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
        "9e6f963fe0d71a27ab9089e827eea5310230dc7a7542fc16e76d1708ccb2309b",
        "66c2294091c0fab114e324a22cbdee86afd63b2c6d40db67569e89ff954cae91",
    ),
    "greedy-jiangsu2017": (
        29,
        3,
        "60a4a62ed18a3b99dd27f234061d23cd2672a66b729f72e89aa3457f2e40cc62",
        "3b72ce3362d6b4c1b5f78cd69e47c08bbadfc606fdfd4f3cea8b578489c6cfbe",
    ),
    "heuristic-cgr2022": (
        41,
        4,
        "9a6289d874c035f1d9ba08d0d8470b5e2107e610a24305df610324d8f8f14163",
        "3f7e6728a42e107e82fda14808b794ecb2c311590ec1129cf3be5c319038add9",
    ),
    "heuristic-jiangsu2017": (
        50,
        4,
        "321d07a9def78b18c8d67c9f5c0268220e4331e57070e13fe61ea1fe379c0632",
        "59f149c67603ee3e673a6e75d122782b28e5c12cd0053cbffad53489d918d1ac",
    ),
    "heuristic-vs-random-gzip": (
        10,
        2,
        "1f012453b44a2dc292cdf46c285e54986b545472c5ee3ce5f21bf15dcfe3d572",
        "80f8d7ff24dc2231387a6f92ab42b26b14490838265777ae1db4ec8fa496afde",
    ),
    "mixed-afail1-zstd": (
        20,
        4,
        "bca03fd76115407a02801318ed54989810ec9befef60eb26db61e028a5fedfc5",
        "7fc195a774c3f4e131ce5c5fd720489b8fe6d9804523318e7b1f84de20cef571",
    ),
    "random-afail1-jiangsu2017": (
        56,
        3,
        "bf980f9c3bd83be899ec4827033b955b1bbcea6aa653535a16f372d9f22a804e",
        "69182bfb5e86e0639ada5405b80adc025bb7172e837f66b5b9cb625f14e28e71",
    ),
    "random-cgr2022": (
        37,
        3,
        "f041693ae33363e19186c79bed7e40b08ac06ead57674ec69a4973df54717322",
        "efba184dc932c82b63dc2595cc92d6182ea46437a4ed1a1c1af09511d2acba65",
    ),
    "random-jiangsu2017": (
        33,
        3,
        "0a845fbd81e3eeabc0dc894514e6fd641e40ca49b9eb575a3b77f3578fb24129",
        "fccb185b6fa93e6dd0f0231c5f2741c655aa05a59c707948ca3e5e515d7500d1",
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
