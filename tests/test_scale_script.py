"""scripts/scale_analyze.py: a large run made by replicating a real one passes every load-time check."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from report_fixtures import small_run  # noqa: F401  (fixture)

from guandan_cli.reports import load, run_report

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "scale_analyze.py"


def _script():
    spec = importlib.util.spec_from_file_location("scale_analyze", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_replicated_run_is_a_valid_run(small_run, tmp_path):  # noqa: F811
    script = _script()
    deals, matches = script.synthesize(tmp_path / "big", 300, small_run, part_size=7)
    assert deals >= 300 and matches > 7  # several parts
    data = load(tmp_path / "big")  # every invariant checked: raises on a bad line
    assert data.deals.collect().height == deals
    assert data.matches.collect().height == matches
    assert data.deals.collect()["match"].n_unique() == matches
    # each copy of a match reports as the original does
    src = load(small_run)
    one = run_report("deal-length", src.deals, src.matches)
    assert one.height and run_report("deal-length", data.deals, data.matches).height == one.height
    first = json.loads((tmp_path / "big" / "matches-00001.jsonl").read_text().splitlines()[0])
    assert first["match"] == 7
