"""``analyze --backend ray`` reduces the chunks on a Ray instance: the same tables as local
workers (skipped when Ray is not installed)."""

from __future__ import annotations

import pytest

from guandan_cli import simulate
from guandan_cli.reports import REPORTS
from guandan_cli.reports.reduce import reduce_runs
from guandan_cli.runner.backends import open_backend

SMALL = {"seed": 4, "strategies": "random,greedy", "max_deals": 4, "progress": False, "part_size": 3}


def test_ray_backend_gives_the_local_tables(tmp_path, monkeypatch):
    # imported here, not at collection: a second of import in every pytest-xdist worker otherwise
    pytest.importorskip(
        "ray.util.multiprocessing", reason="ray is not installed (pip install 'guandan[ray]')"
    )
    import ray

    import guandan_cli.reports.reduce as reduce

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(reduce, "MIN_CHUNK_PARTS", 1)  # several chunks from a small run
    run = simulate(24, out=tmp_path / "run", workers=1, **SMALL).path
    names = list(REPORTS)
    local = reduce_runs([run], names, workers=1).results
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = reduce_runs([run], names, workers=2, open_pool=lambda: open_backend("ray", 2)).results
    finally:
        ray.shutdown()
    for name in names:
        assert remote[name].equals(local[name], null_equal=True), name
