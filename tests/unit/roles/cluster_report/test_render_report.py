"""cluster_report's HTML renderer and rdma_bandwidth's heatmap, on the shapes the roles write."""

import base64
import importlib.util
import json
import re
from pathlib import Path

ROLES = Path(__file__).resolve().parents[4] / "roles"


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def matrix():
    pairs = [{"round": "1", "client": "n2", "server": "n3", "gbps": 23.1, "ok": True},
             {"round": "2", "client": "n1", "server": "n3", "gbps": 7.5, "ok": False},
             {"round": "3", "client": "n1", "server": "n2", "gbps": 22.9, "ok": True}]
    return {"tool": "ib_write_bw", "nodes": ["n1", "n2", "n3"], "matrix_gbps": [[None, 22.9, 7.5], [22.9, None, 23.1], [7.5, 23.1, None]],
            "pairs": pairs, "below_threshold": [pairs[1]], "missing": [], "min_gbps": 20.0, "min_fraction": 0.8,
            "link_rate_gbps": 25.0, "link_rate_source": "detected (rdma_info rate_gbps)", "rounds": [[["n2", "n3"]], [["n1", "n3"]], [["n1", "n2"]]],
            "summary": {"pairs": 3, "min": 7.5, "max": 23.1, "mean": 17.83}, "ok": False}


def node(host, mounted=True, ssh_ok=True):
    return {"host": host, "gpu": {"count": 8, "nvidia_smi": ["0, Tesla V100-SXM2-32GB, 470.82.01, Enabled, 0"], "checked": True},
            "rdma": {"present": True, "source": "ibv_devinfo", "active_ports": ["mlx5_0:1"],
                     "ports": [{"port": "mlx5_0:1", "state": "PORT_ACTIVE", "link_layer": "Ethernet", "rate_gbps": 25.0}]},
            "cpfs": {"path": "/mnt/cpfs", "mounted": mounted, "source": "cpfs-x@tcp:/x" if mounted else None, "fstype": "lustre" if mounted else None},
            "ssh": {"target": "n2", "ok": ssh_ok, "detail": ""}}


def test_heatmap_and_report_page(tmp_path):
    heatmap = load(ROLES / "rdma_bandwidth" / "files" / "bandwidth_heatmap.py")
    render = load(ROLES / "cluster_report" / "files" / "render_report.py")
    (tmp_path / "m.json").write_text(json.dumps(matrix()))
    assert heatmap.main(["x", str(tmp_path / "m.json"), str(tmp_path / "bandwidth-rdma.png")]) == 0
    assert (tmp_path / "bandwidth-rdma.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    report = {"generated_at": "2026-12-02T00:00:00Z", "group": "scc_cluster", "not_reached": ["n4"],
              "nodes": [node("n1"), node("n2", mounted=False, ssh_ok=False), node("n3")],
              "bandwidth": {"rdma": matrix()}, "traffic": {}}
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert render.main(["x", str(tmp_path / "r.json"), str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    # The heatmap next to the JSON is embedded; the traffic section says it was not sampled.
    (png,) = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert base64.b64decode(png) == (tmp_path / "bandwidth-rdma.png").read_bytes()
    assert "not sampled in this run" in page
    # The cards count what is wrong, the tables name it.
    assert "3 reached, not reached: n4" in page and "24" in page
    assert "2 of 3 mounted" in page and "2 of 3 OK" in page and "1 pairs below threshold" in page
    assert "NOT MOUNTED" in page and "pairs below threshold" in page
    rows = re.findall(r"<tr><td>(\d)</td><td>(n\d)</td><td>(n\d)</td><td>([\d.]+)</td><td>(.*?)</td></tr>", page)
    assert [r[:4] for r in rows] == [("1", "n2", "n3", "23.10"), ("2", "n1", "n3", "7.50"), ("3", "n1", "n2", "22.90")]
    assert "FAIL" in rows[1][4] and "OK" in rows[0][4]
    # Values from the nodes are escaped.
    assert "Tesla V100-SXM2-32GB" in page and "<script" not in page
