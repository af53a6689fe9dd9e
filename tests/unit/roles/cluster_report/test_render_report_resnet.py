"""cluster_report shows the newest ResNet run (resnet-<run_id>.json, resnet_launch) and the newest tcp-versus-rdma
comparison (compare-transports-<id>.json, compare_transports.yml) when they lie next to the report."""

import json
import xml.etree.ElementTree as ET

from ansible_collections.scc.training.plugins.module_utils.transports import transport_comparison
from tests.unit.roles.cluster_report.test_render_report import ROLES, load, node

REPORT = {"generated_at": "x", "group": "g", "not_reached": [], "nodes": [node("n1")], "bandwidth": {}, "traffic": {}}


def resnet(run_id, images_per_s=120.0, backend="gloo", nccl=None):
    return {
        "run_id": run_id, "status": "ok", "model": {"name": "resnet18", "params": 11_178_564}, "world_size": 2,
        "num_hosts": 2, "backend": backend, "device": "cpu", "precision": "fp32", "transport": "tcp", "steps": 3,
        "global_batch": 16, "throughput": {"images_per_s": images_per_s}, "loss": [1.5, 1.2, 0.9],
        "loss_first": 1.5, "loss_last": 0.9, "top1": {"accuracy": 0.625, "images": 8}, "nccl": nccl,
    }  # fmt: skip


def test_no_resnet_run_leaves_the_keys_null_and_the_page_without_the_section(tmp_path):
    render = load(ROLES.parent / "runtime" / "scc_training_runtime" / "render_report.py")
    (tmp_path / "r.json").write_text(json.dumps(REPORT))
    assert render.main(["x", str(tmp_path / "r.json"), str(tmp_path / "r.html")]) == 0
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["image_training"] is None and written["transport_comparison"] is None
    assert "Image training" not in (tmp_path / "r.html").read_text()


def test_the_newest_resnet_run_and_the_comparison_are_shown(tmp_path):
    render = load(ROLES.parent / "runtime" / "scc_training_runtime" / "render_report.py")
    (tmp_path / "r.json").write_text(json.dumps(REPORT))
    (tmp_path / "resnet-r1.json").write_text(json.dumps(resnet("r1")))
    comparison = transport_comparison({"tcp": resnet("r1")})
    (tmp_path / "compare-transports-c1.json").write_text(json.dumps(comparison))
    assert render.main(["x", str(tmp_path / "r.json"), str(tmp_path / "r.html")]) == 0
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["image_training"]["images_per_s"] == 120.0 and written["image_training"]["top1"] == 0.625
    page = (tmp_path / "r.html").read_text()
    assert "Image training: resnet18 run r1" in page
    assert "1.500 &rarr; 0.900" in page and "0.625 of 8 images" in page
    # The loss curve, drawn inline: one point per step, the range labelled.
    assert '<svg class="loss"' in page and ">1.500</text>" in page and ">0.900</text>" in page
    assert "none: NCCL did not run (backend gloo)" in page
    assert "120.0 images/s on 2 ranks, top-1 0.625" in page
    assert "Transports compared (compare-transports-c1.json)" in page
    assert "no NCCL line logged (backend gloo)" in page and "speedup rdma/tcp: n/a" in page


def test_a_comparison_draws_its_legs_on_one_figure(tmp_path):
    render = load(ROLES.parent / "runtime" / "scc_training_runtime" / "render_report.py")
    (tmp_path / "r.json").write_text(json.dumps(REPORT))
    legs = {"tcp": dict(resnet("c2-tcp"), warmup_steps=1), "rdma": dict(resnet("c2-rdma", 300.0), warmup_steps=1)}
    legs["rdma"]["loss"] = [1.5, 1.1, 0.8]
    for leg in legs.values():
        (tmp_path / ("resnet-%s.json" % leg["run_id"])).write_text(json.dumps(leg))
    (tmp_path / "compare-transports-c2.json").write_text(json.dumps(transport_comparison(legs)))
    assert render.main(["x", str(tmp_path / "r.json"), str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    section = page[page.index("Transports compared (compare-transports-c2.json)") :]
    figure = tmp_path / "compare-transports-c2.svg"
    assert figure.stat().st_size > 0 and "compare-transports-c2.svg</figcaption>" in section
    svg = ET.fromstring(section[section.index("<svg") : section.index("</svg>") + len("</svg>")])
    texts = {"".join(t.itertext()).strip() for t in svg.iter("{http://www.w3.org/2000/svg}text")}
    # Both legs on the same axes, in the legend of each panel; the throughput is each leg's mean (ResNet logs no
    # interval).
    assert {"tcp (run c2-tcp)", "rdma (run c2-rdma)", "training loss (cross-entropy, nats)", "images/s"} <= texts
    assert {"tcp (run c2-tcp) (mean of the timed steps)", "warm-up, not timed (1 steps)"} <= texts
