"""cluster_report's HTML renderer and the plots it embeds (plugin_utils/plots.py), on the shapes the roles write."""

import base64
import importlib.util
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ansible_collections.scc.training.plugins.module_utils import fabric
from ansible_collections.scc.training.plugins.plugin_utils import plots

ROLES = Path(__file__).resolve().parents[4] / "roles"


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RENDER = load(ROLES.parent / "runtime" / "scc_training_runtime" / "render_report.py")


def report_of(nodes, **sections):
    """What collect.yml writes for these nodes: every one reached, no bandwidth or traffic unless given."""
    base = {"generated_at": "2026-12-02T00:00:00Z", "group": "scc_cluster", "not_reached": [], "bandwidth": {}}
    return {**base, "nodes": nodes, "traffic": {}, **sections}


def render(tmp_path, report=None):
    """render_report.py on the report (written to r.json, which it completes; None: r.json as it is): the page."""
    if report is not None:
        (tmp_path / "r.json").write_text(json.dumps(report))
    assert RENDER.main(["x", str(tmp_path / "r.json"), str(tmp_path / "r.html")]) == 0
    return (tmp_path / "r.html").read_text()


def matrix():
    pairs = [
        {"round": "1", "client": "n2", "server": "n3", "gbps": 23.1, "ok": True},
        {"round": "2", "client": "n1", "server": "n3", "gbps": 7.5, "ok": False},
        {"round": "3", "client": "n1", "server": "n2", "gbps": 22.9, "ok": True},
    ]
    return {
        "tool": "ib_write_bw",
        "nodes": ["n1", "n2", "n3"],
        "matrix_gbps": [[None, 22.9, 7.5], [22.9, None, 23.1], [7.5, 23.1, None]],
        "pairs": pairs,
        "below_threshold": [pairs[1]],
        "missing": [],
        "min_gbps": 20.0,
        "min_fraction": 0.8,
        "link_rate_gbps": 25.0,
        "link_rate_source": "detected (rdma_info rate_gbps)",
        "rounds": [[["n2", "n3"]], [["n1", "n3"]], [["n1", "n2"]]],
        "summary": {"pairs": 3, "min": 7.5, "max": 23.1, "mean": 17.83},
        "ok": False,
    }


def node(host, mounted=True, ssh_ok=True):
    return {
        "host": host,
        "gpu": {"count": 8, "nvidia_smi": ["0, Tesla V100-SXM2-32GB, 470.82.01, Enabled, 0"], "checked": True},
        "rdma": {
            "present": True,
            "source": "ibv_devinfo",
            "active_ports": ["mlx5_0:1"],
            "ports": [{"port": "mlx5_0:1", "state": "PORT_ACTIVE", "link_layer": "Ethernet", "rate_gbps": 25.0}],
        },
        "cpfs": {
            "path": "/mnt/cpfs",
            "mounted": mounted,
            "source": "cpfs-x@tcp:/x" if mounted else None,
            "fstype": "lustre" if mounted else None,
        },
        "ssh": {"target": "n2", "ok": ssh_ok, "detail": ""},
    }


def test_heatmap_and_report_page(tmp_path):
    plots.bandwidth_heatmap(matrix(), str(tmp_path / "bandwidth-rdma.png"))
    assert (tmp_path / "bandwidth-rdma.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    nodes = [node("n1"), node("n2", mounted=False, ssh_ok=False), node("n3")]
    page = render(tmp_path, report_of(nodes, not_reached=["n4"], bandwidth={"rdma": matrix()}))
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


def bert_results(run_id, nccl="absent"):
    """The shape bert_launch writes to the controller (bert-<run_id>.json), trimmed to what the report reads."""
    r = {
        "run_id": run_id,
        "status": "ok",
        "world_size": 4,
        "num_hosts": 2,
        "hosts": [{"host": "n1", "ranks": [0, 1], "num_ranks": 2}, {"host": "n2", "ranks": [2, 3], "num_ranks": 2}],
        "backend": "nccl",
        "device": "cuda",
        "model": {"size": "base", "params": 110e6},
        "steps": 20,
        "loss": [7.9, 7.1],
        "loss_first": 7.9,
        "loss_last": 7.1,
        "throughput": {"sequences_per_s": 812.4, "tokens_per_s": 103987.2, "step_time_s": 0.3, "measured_steps": 10},
    }
    if nccl != "absent":
        r["nccl"] = nccl
    return r


def test_report_shows_the_newest_bert_run_with_its_traffic(tmp_path):
    # An older run (gloo, no NCCL) and the newest one (NCCL over RoCE); only the newest is reported.
    old, new = tmp_path / "bert-20261201T000000Z-aaaa.json", tmp_path / "bert-20261202T000000Z-bbbb.json"
    old.write_text(json.dumps(dict(bert_results("20261201T000000Z-aaaa", nccl=None), backend="gloo")))
    nccl = {
        "transport": "IB",
        "roce": True,
        "ib_devices": [{"name": "mlx5_0", "port": 1}, {"name": "mlx5_1", "port": 1}],
        "channels": 4,
        "connections": {"NET/IB": 8},
        "lines": 120,
    }
    # Resumed from a checkpoint after step 2: its loss curve holds the steps before too.
    resumed = dict(
        bert_results("20261202T000000Z-bbbb", nccl=nccl),
        loss=[7.9, 7.6, 7.4, 7.1],
        resumed_from_step=2,
        warmup_steps=1,
        lr_warmup_steps=3,
    )
    # Logged every step after the resume: the throughput of each interval.
    resumed["throughput"] = dict(
        resumed["throughput"],
        intervals=[{"step": 3, "sequences_per_s": 790.0}, {"step": 4, "sequences_per_s": 834.8}],
    )
    new.write_text(json.dumps(resumed))
    os.utime(old, (1000, 1000))
    os.utime(new, (2000, 2000))
    # The traffic sampled during the newest run, as train_bert.yml names it: 3 Gb/s on node n2's port.
    samples = {
        "n1": [
            {"t": 0, "ib": {"mlx5_0:1": [0, 0]}, "net": {}},
            {"t": 1, "ib": {"mlx5_0:1": [250_000_000, 125_000_000]}, "net": {}},
        ],
        "n2": [
            {"t": 0, "ib": {"mlx5_0:1": [0, 0]}, "net": {}},
            {"t": 1, "ib": {"mlx5_0:1": [125_000_000, 250_000_000]}, "net": {}},
        ],
    }
    # What fabric_monitor's stop writes: the rates (filter fabric_traffic) as JSON, and their plot.
    base = str(tmp_path / "traffic-bert-20261202T000000Z-bbbb")
    rates = fabric.traffic_rates(samples)
    Path(base + ".json").write_text(json.dumps(rates))
    plots.traffic(rates, base + ".png")

    page = render(tmp_path, report_of([node("n1"), node("n2")]))

    # The JSON gains the summary of the newest run ...
    t = json.loads((tmp_path / "r.json").read_text())["training"]
    assert t["run_id"] == "20261202T000000Z-bbbb" and t["results_file"] == new.name
    assert (t["world_size"], t["num_hosts"], t["tokens_per_s"]) == (4, 2, 103987.2)
    assert [h["host"] for h in t["hosts"]] == ["n1", "n2"] and t["nccl"]["transport"] == "IB"
    assert (
        t["traffic"]["n1"]["ib:mlx5_0:1"]["peak_gbps"] == 3.0
        and t["traffic_file"] == "traffic-bert-20261202T000000Z-bbbb.json"
    )
    # ... and the page shows it, with the training traffic plot embedded.
    section = page[page.index("Training: BERT run 20261202T000000Z-bbbb") :]
    assert "20261201T000000Z-aaaa" not in page
    assert "<td>world size</td><td>4</td>" in section and "n1 &times;2, n2 &times;2" in section
    assert "<td>sequences/s</td><td>812.4</td>" in section and "<td>tokens/s</td><td>103987</td>" in section
    assert "7.900 &rarr; 7.100" in section
    # The loss and throughput figure (matplotlib): its file next to the report, inlined with its text kept.
    figure = tmp_path / "training-bert-20261202T000000Z-bbbb.svg"
    assert figure.stat().st_size > 0
    svg = section[section.index("<svg") : section.index("</svg>") + len("</svg>")]
    assert svg == figure.read_text()[figure.read_text().index("<svg") :].rstrip()
    texts = {"".join(t.itertext()).strip() for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")}
    assert {"step", "training loss (cross-entropy, nats)", "step (end of each logged interval)", "sequences/s"} <= texts
    assert {"Loss per step", "Throughput", "warm-up, not timed (1 steps)", "resumed after step 2"} <= texts
    assert "end of the learning-rate warm-up" in texts and "BERT run 20261202T000000Z-bbbb" in texts
    assert "IB (RoCE) on mlx5_0, mlx5_1, 4 channel(s)" in section
    assert re.search(r"<td>n2</td><td>ib:mlx5_0:1</td><td>3\.000</td>", section)
    (png,) = re.findall(r'src="data:image/png;base64,([^"]+)"', section)
    assert base64.b64decode(png) == Path(base + ".png").read_bytes()
    assert "103987 tokens/s on 4 ranks, NCCL IB" in page


def test_report_says_when_nccl_did_not_run_and_traffic_was_not_sampled(tmp_path):
    # No BERT results: the key is null and the page says so.
    page = render(tmp_path, report_of([node("n1")]))
    assert json.loads((tmp_path / "r.json").read_text())["training"] is None
    assert "no BERT results" in page
    # A gloo run (nccl: null), no traffic file; then an older results file without the nccl key.
    run = tmp_path / "bert-r1.json"
    run.write_text(json.dumps(dict(bert_results("r1", nccl=None), backend="gloo")))
    page = render(tmp_path)
    assert "none: NCCL did not run (backend gloo)" in page and "on 4 ranks, NCCL none (gloo)" in page
    assert "not sampled during this run (traffic-bert-r1.json not found)" in page
    run.write_text(json.dumps(bert_results("r1")))
    assert "not recorded in the results file" in render(tmp_path)


def test_report_shows_a_verdict_card_per_node_and_the_nccl_check(tmp_path):
    """The cluster_health verdict (a card per node) and nccl_check's results, as the roles publish them."""
    from ansible_collections.scc.training.plugins.module_utils import health

    xid = {
        "status": "red",
        "problems": ["GPU 3 xid: Xid 79 (remedy: reboot)"],
        "verdicts": [{"gpu": 3, "check": "xid", "ok": False, "detail": "Xid 79", "remedy": "reboot"}],
    }
    green = {"status": "green", "problems": []}
    verdict = health.judge(
        ["n1", "n2", "n3"], {"n1": {"gpu_health": green}, "n2": {"gpu_health": xid}, "n3": {}}, ["n1", "n2", "n3"]
    )
    nccl = {
        "ok": False,
        "threshold_gbps": 4.8,
        "multi_node": {
            "hosts": ["n1", "n2", "n3"],
            "busbw_gbps": 1.2,
            "ok": False,
            "curve": [{"size_bytes": 2**k, "busbw_gbps": min(6.0, 0.01 * 2 ** (k - 10))} for k in range(10, 28, 2)],
        },
        "bisection": {
            "rounds": [
                {"round": 1, "groups": [{"hosts": ["n1", "n2"], "busbw_gbps": 1.1, "ok": False}]},
                {"round": 2, "groups": [{"hosts": ["n1", "n3"], "busbw_gbps": 5.9, "ok": True}]},
            ],
            "bad_nodes": ["n2"],
        },
    }
    plots.nccl_busbw(nccl, str(tmp_path / "nccl-busbw.png"))
    page = render(tmp_path, report_of([node("n1"), node("n2"), node("n3")], health=verdict, nccl=nccl))
    assert "1 of 3 node(s) healthy, 1 unjudged (judged by gpu_health)" in page
    cards = dict(re.findall(r"<div class='card (\w+)'><b>(n\d)</b>", page)[i][::-1] for i in range(3))
    assert cards == {"n1": "green", "n2": "red", "n3": "unjudged"}
    assert "remedy: <b>reboot</b>" in page and "gpu_health: GPU 3 xid: Xid 79 (remedy: reboot)" in page
    assert "Bad-node search: 2 round(s), found n2" in page and "below threshold" in page
    rows = re.findall(r"<tr><td>(\d)</td><td>([n\d, ]+)</td><td>([\d.]+)</td>", page)
    assert rows == [("1", "n1, n2", "1.10"), ("2", "n1, n3", "5.90")]
    (png,) = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert base64.b64decode(png) == (tmp_path / "nccl-busbw.png").read_bytes()


def test_the_summary_read_at_a_glance(tmp_path, capsys):
    """What ran where, the loss, the throughput, the verdict per node and the page's path: the JSON's "summary",
    which the playbook shows and ``render_report.py --summary`` prints (make demo's last lines)."""
    from ansible_collections.scc.training.plugins.module_utils import health

    xid = {
        "status": "red",
        "problems": ["GPU 3 xid: Xid 79 (remedy: reboot)"],
        "verdicts": [{"gpu": 3, "check": "xid", "ok": False, "detail": "Xid 79", "remedy": "reboot"}],
    }
    verdict = health.judge(
        ["n1", "n2"],
        {"n1": {"gpu_health": {"status": "green", "problems": []}}, "n2": {"gpu_health": xid}},
        ["n1", "n2"],
    )
    report = report_of([node("n1"), node("n2")])
    (tmp_path / "bert-r9.json").write_text(json.dumps(bert_results("r9", nccl=None)))
    render(tmp_path, dict(report, health=verdict))
    summary = json.loads((tmp_path / "r.json").read_text())["summary"]
    assert summary == [
        "BERT base run r9: ok, 4 rank(s) on n1 (2 rank(s)), n2 (2 rank(s)); nccl on cuda",
        "  loss 7.900 -> 7.100 over 2 step(s); 812.4 sequences/s, 103987 tokens/s",
        "nodes: n1 GREEN, n2 RED (reboot) (1 of 2 healthy)",
        "report: %s" % (tmp_path / "r.html"),
    ]
    assert RENDER.main(["x", "--summary", str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().out.splitlines() == summary
    # Before any training, and without a verdict: it says so.
    (tmp_path / "bert-r9.json").unlink()
    render(tmp_path, report)
    assert json.loads((tmp_path / "r.json").read_text())["summary"][:2] == [
        "no training run in %s yet" % tmp_path,
        "nodes: n1, n2 (not judged in this run)",
    ]
