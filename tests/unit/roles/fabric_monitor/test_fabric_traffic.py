"""fabric_monitor's node sampler (roles/fabric_monitor/files) and its controller side: the rates
(module_utils/fabric.py, filter fabric_traffic) and their plot (plugin_utils/plots.py, action plot)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ansible_collections.scc.training.plugins.module_utils import fabric
from ansible_collections.scc.training.plugins.plugin_utils import plots

FILES = Path(__file__).resolve().parents[4] / "roles" / "fabric_monitor" / "files"


def load(name):
    spec = importlib.util.spec_from_file_location(name, FILES / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rates_from_counter_deltas():
    samples = {
        "node1": [
            {"t": 100.0, "ib": {"mlx5_0:1": [0, 0]}, "net": {"eth0": [1000, 2000]}},
            # 2 s later: 5e9 bytes sent over IB = 20 Gb/s; eth0 +250e6 B tx = 1 Gb/s.
            {"t": 102.0, "ib": {"mlx5_0:1": [5_000_000_000, 2_500_000_000]}, "net": {"eth0": [250_001_000, 2000]}},
            # The counter went backwards (reset): this interval is skipped for eth0 only.
            {"t": 103.0, "ib": {"mlx5_0:1": [5_000_000_000, 2_500_000_000]}, "net": {"eth0": [10, 10]}},
        ],
        "node2": [{"t": 101.0, "ib": {}, "net": {"eth0": [0, 0]}}],
    }
    result = fabric.traffic_rates(samples)
    assert result["t0"] == 100.0
    ib = result["nodes"]["node1"]["counters"]["ib:mlx5_0:1"]
    assert [p["t"] for p in ib["series"]] == [2.0, 3.0]
    assert ib["series"][0]["tx_gbps"] == pytest.approx(20.0)
    assert ib["series"][0]["rx_gbps"] == pytest.approx(10.0)
    assert ib["series"][1]["tx_gbps"] == 0.0
    assert ib["peak_gbps"] == pytest.approx(30.0) and ib["mean_gbps"] == pytest.approx(15.0)
    eth = result["nodes"]["node1"]["counters"]["net:eth0"]
    assert len(eth["series"]) == 1 and eth["series"][0]["tx_gbps"] == pytest.approx(1.0)
    # One sample gives no interval, hence no series.
    assert result["nodes"]["node2"] == {"samples": 1, "counters": {}}


def test_sampler_reads_this_machines_counters_and_stops_on_the_stop_file(tmp_path):
    out, stop = tmp_path / "samples.jsonl", tmp_path / "stop"
    stop.write_text("")  # already there: exactly one sample, then exit
    counter = Path("/sys/class/net/lo/statistics/tx_bytes")
    before = int(counter.read_text())
    proc = subprocess.run(
        [
            sys.executable,
            str(FILES / "fabric_sample.py"),
            "--interval",
            "0.1",
            "--stop-file",
            str(stop),
            "--out",
            str(out),
            "--interfaces",
            "lo",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = out.read_text().splitlines()
    sample = json.loads(line)
    assert set(sample["net"]) == {"lo"}
    tx, rx = sample["net"]["lo"]
    # The sampled value lies between the counter read before and after the sampler ran.
    assert before <= tx <= int(counter.read_text())
    assert isinstance(rx, int) and rx >= 0


def test_plot_writes_a_png(tmp_path):
    samples = {
        "n1": [
            {"t": 0, "ib": {}, "net": {"lo": [0, 0]}},
            {"t": 1, "ib": {}, "net": {"lo": [125_000_000, 125_000_000]}},
        ]
    }
    result = fabric.traffic_rates(samples)
    plots.traffic(result, str(tmp_path / "t.png"))
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result["nodes"]["n1"]["counters"]["net:lo"]["peak_gbps"] == pytest.approx(2.0)


def test_validate_takes_a_results_name_and_rejects_a_path(tmp_path):
    """fabric_monitor_results_name names the files of one window (train_bert.yml: traffic-bert-<run_id>);
    a name with a slash or a space would write outside fabric_monitor_results_dir or break the command."""
    from tests.unit.roles.validate_runner import run_validate

    results = run_validate(
        "fabric_monitor",
        {
            "default": {},
            "per_run": {"fabric_monitor_results_name": "traffic-bert-20261202T163000Z-0a1b"},
            "slash": {"fabric_monitor_results_name": "../traffic"},
            "space": {"fabric_monitor_results_name": "traffic bert"},
            "empty": {"fabric_monitor_results_name": ""},
        },
        tmp_path,
    )
    assert results["default"] is None and results["per_run"] is None, results
    for case in ("slash", "space", "empty"):
        assert results[case] is not None and "fabric_monitor_results_name" in results[case], (case, results[case])
