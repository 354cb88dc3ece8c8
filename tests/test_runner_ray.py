"""The Ray backend gives the same bytes as a local run (skipped when Ray is not installed)."""

from __future__ import annotations

import pytest

from guandan_cli import simulate

SMALL = {"seed": 21, "strategies": "random,greedy", "max_deals": 2, "progress": False, "part_size": 2}


def test_ray_backend_same_bytes_as_local(tmp_path, monkeypatch):
    # imported here, not at collection: a second of import in every pytest-xdist worker otherwise
    reason = "ray is not installed (pip install 'guandan[ray]')"
    pytest.importorskip("ray.util.multiprocessing", reason=reason)
    import ray

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local = simulate(5, out=tmp_path / "local", workers=1, **SMALL)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = simulate(5, out=tmp_path / "ray", workers=2, chunk_size=1, backend="ray", **SMALL)
    finally:
        ray.shutdown()
    names = sorted(p.name for p in local.path.iterdir() if p.name != "manifest.json")
    assert names == sorted(p.name for p in remote.path.iterdir() if p.name != "manifest.json")
    for name in names:
        assert (local.path / name).read_bytes() == (remote.path / name).read_bytes()
    assert remote.manifest.options.backend == "ray"
