# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Render cluster-report.json as one self-contained HTML page (controller side).

    python render_report.py cluster-report.json cluster-report.html
    python render_report.py --summary cluster-report.json      (prints the summary of a rendered report)

A verdict card per node (cluster_health: green, amber, red, its failing checks and remedy), tables
for the nodes (GPUs, RDMA ports, shared filesystem, SSH), the NCCL check (busbw per node and across the
nodes, the bisection's rounds), the bandwidth matrices and the traffic, with the PNGs found next to
the JSON (nccl-busbw.png, bandwidth-<tool>.png, traffic.png) embedded as data: URIs.
When BERT results (bert-<run_id>.json, bert_launch) lie next to the JSON, the newest run is summarised
with the traffic sampled during it (traffic-bert-<run_id>.json/.png, train_bert.yml): the summary is
added to REPORT.json as the key "training" (null when there is no run) and shown on the page.
The summary a person reads at the end of a run (what ran where, loss, throughput, the verdict per node,
the page's path) is added as "summary" (lines). The newest ResNet run (resnet-<run_id>.json, resnet_launch) is
added the same way as "image_training"
(images/s, the loss, top-1 on the val shards, the NCCL transport), and the newest tcp-versus-rdma
comparison (compare-transports-<id>.json, playbooks/compare_transports.yml) as "transport_comparison".
The BERT run's loss per step (warm-up shaded, the learning-rate warm-up's end and a resume marked) and its
throughput per logged interval are drawn with matplotlib into training-bert-<run_id>.svg, inlined with its text
(axis labels) kept; a comparison's legs share one such figure (compare-transports-<id>.svg). The ResNet run's own
loss curve is a small inline SVG (no plotting library).
"""

import base64
import glob
import html
import json
import os
import sys

CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222}
h1{margin-bottom:0}.sub{color:#666;margin-top:4px}
table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f2f2f2}.ok{color:#0a7d28;font-weight:600}.bad{color:#c0182b;font-weight:600}.na{color:#888}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ccc;border-radius:6px;padding:8px 14px}
.green{border-left:8px solid #0a7d28}.amber{border-left:8px solid #d48a00}.red{border-left:8px solid #c0182b}
.unjudged{border-left:8px solid #bbb}
img{max-width:100%;border:1px solid #ddd}
figure.plot svg{max-width:100%;height:auto}
"""


def esc(value):
    return html.escape("" if value is None else str(value))


def verdict(ok, yes="OK", no="FAIL", unknown="n/a"):
    if ok is None:
        return '<span class="na">%s</span>' % unknown
    return '<span class="%s">%s</span>' % ("ok" if ok else "bad", yes if ok else no)


def image(directory, name):
    path = os.path.join(directory, name)
    if not os.path.isfile(path):
        return '<p class="na">(%s not found)</p>' % esc(name)
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    return '<img alt="%s" src="data:image/png;base64,%s">' % (esc(name), data)


def loss_curve_svg(losses, resumed_from=0, width=480, height=160):
    """One loss per step (None where it was not finite) -> an inline SVG line chart, steps 1..N on x, the loss on
    y (its range labelled), a dashed line after step ``resumed_from`` when the run resumed from a checkpoint.
    '' when fewer than two losses are finite."""
    points = [(step, loss) for step, loss in enumerate(losses, 1) if isinstance(loss, (int, float))]
    if len(points) < 2:
        return ""
    pad, last = 36, max(len(losses), 2)
    values = [value for _step, value in points]
    low, high = min(values), max(values)
    span = (high - low) or 1.0

    def x(step):
        return pad + (width - 2 * pad) * (step - 1) / (last - 1)

    def y(value):
        return height - pad + (2 * pad - height) * (value - low) / span

    parts = [
        '<svg class="loss" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
        'aria-label="loss per step">' % (width, height),
        '<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="%s"/>'
        % " ".join("%.1f,%.1f" % (x(step), y(value)) for step, value in points),
        '<text x="2" y="%.1f" font-size="10">%.3f</text>' % (y(high) + 4, high),
        '<text x="2" y="%.1f" font-size="10">%.3f</text>' % (y(low) + 4, low),
        '<text x="%.1f" y="%d" font-size="10">step 1</text>' % (x(1), height - 8),
        '<text x="%.1f" y="%d" font-size="10" text-anchor="end">step %d</text>' % (x(last), height - 8, last),
    ]
    if 0 < resumed_from < last:
        parts.append(
            '<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#888" stroke-dasharray="4 3"/>'
            '<text x="%.1f" y="12" font-size="10">resumed after step %d</text>'
            % (x(resumed_from), x(resumed_from), pad // 2, height - pad, x(resumed_from) + 3, resumed_from)
        )
    return "".join(parts) + "</svg>"


def training_figure(runs, dest, unit):
    """Draw ``runs`` (each ``{label, loss (per step, None where not finite), warmup_steps, lr_warmup_steps,
    resumed_from, intervals ([{step, per_s}]), mean_per_s}``) with matplotlib into the SVG file ``dest``: the
    loss per step (the untimed warm-up shaded, the learning-rate warm-up's end and a resume dashed) and the
    throughput in ``unit``/s per logged interval (the run's mean over its timed steps where it logged none).
    Several runs (a comparison's legs) share the two axes. Returns the SVG to inline, '' with nothing to draw.
    The text stays text (svg.fonttype none), so the page carries its axis labels."""
    if not any(len([v for v in run["loss"] if v is not None]) >= 2 for run in runs):
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"
    fig, (loss_ax, speed_ax) = plt.subplots(1, 2, figsize=(11, 3.6))
    for run in runs:
        steps = [step for step, value in enumerate(run["loss"], 1) if value is not None]
        (line,) = loss_ax.plot(steps, [run["loss"][step - 1] for step in steps], label=run["label"])
        intervals = run.get("intervals") or []
        if intervals:
            speed_ax.plot([i["step"] for i in intervals], [i["per_s"] for i in intervals], "o-", label=run["label"])
        elif run.get("mean_per_s"):
            first = max(run.get("warmup_steps") or 0, run.get("resumed_from") or 0) + 1
            speed_ax.plot(
                [first, len(run["loss"])],
                [run["mean_per_s"]] * 2,
                "--",
                color=line.get_color(),
                label="%s (mean of the timed steps)" % run["label"],
            )
    warm = max(run.get("warmup_steps") or 0 for run in runs)
    if warm:
        loss_ax.axvspan(0.5, warm + 0.5, color="#999999", alpha=0.25, label="warm-up, not timed (%d steps)" % warm)
    lr_warm = max(run.get("lr_warmup_steps") or 0 for run in runs)
    if lr_warm:
        loss_ax.axvline(lr_warm, color="#d48a00", linestyle=":", label="end of the learning-rate warm-up")
    resumed = max(run.get("resumed_from") or 0 for run in runs)
    if resumed:
        loss_ax.axvline(resumed, color="#888888", linestyle="--", label="resumed after step %d" % resumed)
    loss_ax.set(xlabel="step", ylabel="training loss (cross-entropy, nats)", title="Loss per step")
    speed_ax.set(xlabel="step (end of each logged interval)", ylabel="%s/s" % unit, title="Throughput")
    speed_ax.set_ylim(bottom=0)
    for ax in (loss_ax, speed_ax):
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dest, format="svg")
    plt.close(fig)
    with open(dest, encoding="utf-8") as f:
        svg = f.read()
    # Inline: from the <svg> element on (the XML prolog and DOCTYPE belong to a file, not to a page).
    return '<figure class="plot">%s<figcaption>%s</figcaption></figure>' % (
        svg[svg.index("<svg") :],
        esc(os.path.basename(dest)),
    )


def table(headers, rows):
    out = ["<table>" + ("<tr>%s</tr>" % "".join("<th>%s</th>" % esc(h) for h in headers) if headers else "")]
    for row in rows:
        out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % cell for cell in row))
    out.append("</table>")
    return "\n".join(out)


def nodes_section(report):
    rows = []
    for n in report["nodes"]:
        gpu, rdma, cpfs, ssh = n["gpu"], n["rdma"], n["cpfs"], n["ssh"]
        gpus = esc(gpu["count"]) + (
            "<br>" + "<br>".join(esc(line) for line in gpu["nvidia_smi"])
            if gpu["nvidia_smi"]
            else ' <span class="na">(no nvidia-smi)</span>'
        )
        ports = (
            "<br>".join(
                "%s %s %s %s"
                % (
                    esc(p["port"]),
                    esc(p["state"]),
                    esc(p["link_layer"]),
                    esc("%s Gb/s" % p["rate_gbps"] if p["rate_gbps"] is not None else ""),
                )
                for p in rdma["ports"]
            )
            or '<span class="na">no RDMA device</span>'
        )
        fs = (
            "%s %s (%s)" % (verdict(True, "mounted"), esc(cpfs["source"]), esc(cpfs["fstype"]))
            if cpfs["mounted"]
            else verdict(False, no="NOT MOUNTED")
        )
        ssh_cell = ("%s &rarr; %s" % (verdict(ssh["ok"]), esc(ssh["target"]))) if ssh["target"] else verdict(None)
        rows.append([esc(n["host"]), gpus, ports, esc(cpfs["path"]) + " " + fs, ssh_cell])
    return "<h2>Nodes</h2>" + table(["node", "GPUs", "RDMA ports", "shared filesystem", "SSH to next node"], rows)


def health_section(report):
    """One card per node from cluster_health's verdict: its status, failing checks and remedy."""
    h = report.get("health")
    if not h:
        return '<h2>Node verdicts</h2><p class="na">not judged in this run</p>'
    cards = []
    for c in h["cards"]:
        gates = ", ".join("%s %s" % (esc(g), esc(s)) for g, s in sorted(c["gates"].items())) or "no gate ran"
        problems = "".join("<li>%s</li>" % esc(p) for p in c["problems"])
        remedy = "<br>remedy: <b>%s</b>" % esc(c["remedy"]) if c["remedy"] else ""
        cards.append(
            "<div class='card %s'><b>%s</b> %s<br><small>%s</small>%s%s</div>"
            % (
                esc(c["status"]),
                esc(c["host"]),
                esc(c["status"].upper()),
                gates,
                remedy,
                "<ul>%s</ul>" % problems if problems else "",
            )
        )
    return "<h2>Node verdicts</h2><p>%s</p><div class='cards'>%s</div>" % (esc(h["summary"][0]), "".join(cards))


def nccl_section(report, directory):
    """nccl_check's cluster results: the run across the nodes, its curve, and the bisection's rounds."""
    n = report.get("nccl")
    if not n:
        return '<h2>NCCL all_reduce</h2><p class="na">not measured in this run</p>'
    multi = n.get("multi_node") or {}
    out = [
        "<h2>NCCL all_reduce %s</h2>" % verdict(n.get("ok"), "at or above threshold", "below threshold"),
        "<p>across %s: %s GB/s bus bandwidth; threshold %s GB/s</p>"
        % (
            esc(", ".join(multi.get("hosts") or [])),
            number(multi.get("busbw_gbps"), "%.2f"),
            number(n.get("threshold_gbps"), "%.2f"),
        ),
        image(directory, "nccl-busbw.png"),
    ]
    bisection = n.get("bisection")
    if bisection:
        rows = [
            [
                esc(r["round"]),
                esc(", ".join(g["hosts"])),
                number(g.get("busbw_gbps"), "%.2f"),
                verdict(g["ok"]),
            ]
            for r in bisection["rounds"]
            for g in r["groups"]
        ]
        out.append(
            "<h3>Bad-node search: %d round(s), found %s</h3>"
            % (len(bisection["rounds"]), esc(", ".join(bisection["bad_nodes"]) or "none"))
        )
        out.append(table(["round", "group", "busbw GB/s", ""], rows))
    return "\n".join(out)


def bandwidth_section(report, directory):
    out = ["<h2>Bandwidth between every pair of nodes</h2>"]
    if not report.get("bandwidth"):
        return out[0] + '<p class="na">not measured in this run</p>'
    for tool, b in sorted(report["bandwidth"].items()):
        s = b["summary"]
        out.append(
            "<h3>%s %s</h3>" % (esc(b["tool"]), verdict(b["ok"], "all pairs above threshold", "pairs below threshold"))
        )
        out.append(
            "<p>%d pairs in %d rounds; min %.2f, mean %.2f, max %.2f Gb/s; threshold %.2f Gb/s = %s &times; %s Gb/s (%s)</p>"
            % (
                s["pairs"],
                len(b["rounds"]),
                s["min"] or 0,
                s["mean"] or 0,
                s["max"] or 0,
                b["min_gbps"],
                esc(b["min_fraction"]),
                esc(b["link_rate_gbps"]),
                esc(b["link_rate_source"]),
            )
        )
        rows = [
            [esc(p["round"]), esc(p["client"]), esc(p["server"]), "%.2f" % p["gbps"], verdict(p["ok"])]
            for p in sorted(b["pairs"], key=lambda p: (int(p["round"]), p["client"]))
        ]
        out.append(table(["round", "client", "server", "Gb/s", ""], rows))
        if b["missing"]:
            out.append('<p class="bad">not measured: %s</p>' % esc(", ".join("-".join(m) for m in b["missing"])))
        out.append(image(directory, "bandwidth-%s.png" % tool))
    return "\n".join(out)


def traffic_section(report, directory):
    t = report.get("traffic")
    if not t:
        return '<h2>Traffic</h2><p class="na">not sampled in this run</p>'
    rows = traffic_rows(t)
    return (
        "<h2>Traffic during the checks (tx+rx)</h2>"
        + table(["node", "counter", "peak Gb/s", "mean Gb/s", "intervals"], rows)
        + image(directory, "traffic.png")
    )


def traffic_rows(traffic):
    """(node, counter, peak, mean, intervals) of every counter that carried traffic (>= 1 Mb/s peak)."""
    rows = []
    for node, data in sorted(traffic["nodes"].items()):
        for name, c in sorted(data["counters"].items()):
            if c["peak_gbps"] >= 0.001:
                rows.append(
                    [esc(node), esc(name), "%.3f" % c["peak_gbps"], "%.3f" % c["mean_gbps"], esc(len(c["series"]))]
                )
    return rows


def training(directory):
    """The newest BERT run in the directory (bert-<run_id>.json, by modification time) with the traffic
    sampled during it (traffic-bert-<run_id>.json), or None when there is no run."""
    runs = glob.glob(os.path.join(glob.escape(directory), "bert-*.json"))
    if not runs:
        return None
    path = max(runs, key=os.path.getmtime)
    with open(path) as f:
        r = json.load(f)
    run_id = r.get("run_id") or os.path.basename(path)[len("bert-") : -len(".json")]
    traffic_name = "traffic-bert-%s" % run_id
    traffic_path = os.path.join(directory, traffic_name + ".json")
    traffic = None
    if os.path.isfile(traffic_path):
        with open(traffic_path) as f:
            traffic = json.load(f)
    nccl = r.get("nccl")
    throughput = r.get("throughput") or {}
    return {
        "results_file": os.path.basename(path),
        "run_id": run_id,
        "status": r.get("status"),
        "world_size": r.get("world_size"),
        "num_hosts": r.get("num_hosts"),
        "hosts": [{"host": h["host"], "num_ranks": h["num_ranks"]} for h in r.get("hosts", [])],
        "model_size": (r.get("model") or {}).get("size"),
        "backend": r.get("backend"),
        "device": r.get("device"),
        "steps": r.get("steps"),
        "sequences_per_s": throughput.get("sequences_per_s"),
        "tokens_per_s": throughput.get("tokens_per_s"),
        "loss_first": r.get("loss_first"),
        "loss_last": r.get("loss_last"),
        "loss": r.get("loss") or [],
        "resumed_from_step": r.get("resumed_from_step") or 0,
        "warmup_steps": r.get("warmup_steps") or 0,
        "lr_warmup_steps": r.get("lr_warmup_steps") or 0,
        "throughput_intervals": throughput.get("intervals") or [],
        # Older results files have no nccl key: unknown, not "did not run".
        "nccl_recorded": "nccl" in r,
        "nccl": nccl,
        "traffic_file": traffic_name + ".json" if traffic is not None else None,
        "traffic_plot": traffic_name + ".png",
        "traffic": (
            {
                node: {
                    name: {"peak_gbps": c["peak_gbps"], "mean_gbps": c["mean_gbps"]}
                    for name, c in data["counters"].items()
                }
                for node, data in traffic["nodes"].items()
            }
            if traffic is not None
            else None
        ),
    }


def nccl_text(t):
    n = t["nccl"]
    if not t["nccl_recorded"]:
        return "not recorded in the results file"
    if n is None:
        return "none: NCCL did not run (backend %s)" % t["backend"]
    text = str(n.get("transport") or "not logged")
    if n.get("roce"):
        text += " (RoCE)"
    devices = [d["name"] if isinstance(d, dict) else str(d) for d in n.get("ib_devices") or []]
    if devices:
        text += " on " + ", ".join(devices)
    return text + ", %s channel(s), connections %s" % (
        n.get("channels"),
        json.dumps(n.get("connections") or {}, sort_keys=True),
    )


def number(value, fmt):
    return fmt % value if isinstance(value, (int, float)) else "n/a"


def run_row(t):
    """The run's row of a training table: its id, results file and status."""
    return [
        "run",
        "%s (%s), %s"
        % (esc(t["run_id"]), esc(t["results_file"]), verdict(t["status"] == "ok", "ok", esc(t["status"]))),
    ]


def training_section(t, directory):
    if not t:
        return '<h2>Training</h2><p class="na">no BERT results (bert-*.json) next to this report</p>'
    hosts = ", ".join("%s &times;%s" % (esc(h["host"]), esc(h["num_ranks"])) for h in t["hosts"])
    rows = [
        run_row(t),
        [
            "model",
            "BERT %s, %s on %s, %s steps"
            % (esc(t["model_size"]), esc(t["backend"]), esc(t["device"]), esc(t["steps"])),
        ],
        ["world size", esc(t["world_size"])],
        ["hosts", "%s: %s" % (esc(t["num_hosts"]), hosts)],
        ["sequences/s", number(t["sequences_per_s"], "%.1f")],
        ["tokens/s", number(t["tokens_per_s"], "%.0f")],
        ["loss", "%s &rarr; %s" % (number(t["loss_first"], "%.3f"), number(t["loss_last"], "%.3f"))],
        ["NCCL transport", esc(nccl_text(t))],
    ]
    out = [
        "<h2>Training: BERT run %s</h2>" % esc(t["run_id"]),
        table(None, rows),
        training_figure(
            [
                {
                    "label": "BERT run %s" % t["run_id"],
                    "loss": t.get("loss") or [],
                    "warmup_steps": t.get("warmup_steps"),
                    "lr_warmup_steps": t.get("lr_warmup_steps"),
                    "resumed_from": t.get("resumed_from_step"),
                    "intervals": [
                        {"step": i["step"], "per_s": i["sequences_per_s"]} for i in t.get("throughput_intervals") or []
                    ],
                    "mean_per_s": t["sequences_per_s"],
                }
            ],
            os.path.join(directory, "training-bert-%s.svg" % t["run_id"]),
            "sequences",
        ),
        "<h3>Traffic during the training (tx+rx)</h3>",
    ]
    if t["traffic_file"] is None:
        out.append('<p class="na">not sampled during this run (%s.json not found)</p>' % esc(t["traffic_plot"][:-4]))
    else:
        with open(os.path.join(directory, t["traffic_file"])) as f:
            out.append(table(["node", "counter", "peak Gb/s", "mean Gb/s", "intervals"], traffic_rows(json.load(f))))
        out.append(image(directory, t["traffic_plot"]))
    return "\n".join(out)


def _newest(directory, prefix):
    """The newest ``<prefix><id>.json`` in the directory (by modification time): (file name, its data) or None."""
    runs = glob.glob(os.path.join(glob.escape(directory), prefix + "*.json"))
    if not runs:
        return None
    path = max(runs, key=os.path.getmtime)
    with open(path) as f:
        return os.path.basename(path), json.load(f)


def image_training(directory):
    """The newest ResNet run (resnet-<run_id>.json), summarised, or None."""
    found = _newest(directory, "resnet-")
    if found is None:
        return None
    name, r = found
    throughput, top1 = r.get("throughput") or {}, r.get("top1") or {}
    return {
        "results_file": name,
        "run_id": r.get("run_id"),
        "status": r.get("status"),
        "model": (r.get("model") or {}).get("name"),
        "params": (r.get("model") or {}).get("params"),
        "world_size": r.get("world_size"),
        "num_hosts": r.get("num_hosts"),
        "backend": r.get("backend"),
        "device": r.get("device"),
        "precision": r.get("precision"),
        "transport": r.get("transport"),
        "steps": r.get("steps"),
        "global_batch": r.get("global_batch"),
        "images_per_s": throughput.get("images_per_s"),
        "loss": r.get("loss") or [],
        "loss_first": r.get("loss_first"),
        "loss_last": r.get("loss_last"),
        "top1": top1.get("accuracy"),
        "top1_images": top1.get("images"),
        "nccl_recorded": "nccl" in r,
        "nccl": r.get("nccl"),
    }


def image_training_section(t):
    if not t:
        return ""
    rows = [
        run_row(t),
        [
            "model",
            "%s (%s parameters), %s on %s (%s), %s steps"
            % (
                esc(t["model"]),
                esc(t["params"]),
                esc(t["backend"]),
                esc(t["device"]),
                esc(t["precision"]),
                esc(t["steps"]),
            ),
        ],
        [
            "ranks",
            "%s on %s host(s), global batch %s" % (esc(t["world_size"]), esc(t["num_hosts"]), esc(t["global_batch"])),
        ],
        ["images/s", number(t["images_per_s"], "%.1f")],
        ["loss", "%s &rarr; %s" % (number(t["loss_first"], "%.3f"), number(t["loss_last"], "%.3f"))],
        ["top-1 (val shards)", "%s of %s images" % (number(t["top1"], "%.3f"), esc(t["top1_images"]))],
        ["transport", "%s; NCCL: %s" % (esc(t["transport"]), esc(nccl_text(t)))],
    ]
    return "\n".join(
        [
            "<h2>Image training: %s run %s</h2>" % (esc(t["model"]), esc(t["run_id"])),
            table(None, rows),
            loss_curve_svg(t["loss"]),
        ]
    )


def transport_comparison(directory):
    """The newest tcp-versus-rdma comparison (compare-transports-<id>.json), or None."""
    found = _newest(directory, "compare-transports-")
    return None if found is None else dict(found[1], results_file=found[0])


def comparison_runs(c, directory):
    """The legs of a comparison whose results (resnet-<run_id>.json) lie in the directory, as training_figure's runs."""
    runs = []
    for transport, leg in sorted((c.get("legs") or {}).items()):
        path = os.path.join(directory, "resnet-%s.json" % leg.get("run_id"))
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            r = json.load(f)
        runs.append(
            {
                "label": "%s (run %s)" % (transport, leg.get("run_id")),
                "loss": r.get("loss") or [],
                "warmup_steps": r.get("warmup_steps"),
                "lr_warmup_steps": r.get("lr_warmup_steps"),
                "mean_per_s": (r.get("throughput") or {}).get("images_per_s"),
            }
        )
    return runs


def transport_section(c, directory):
    if not c:
        return ""
    rows = [
        [
            esc(transport),
            esc(leg.get("run_id")),
            number(leg.get("images_per_s"), "%.1f"),
            esc(leg["proof"]["evidence"]),
            verdict(leg["proof"]["ok"]),
        ]
        for transport, leg in sorted((c.get("legs") or {}).items())
    ]
    problems = "".join("<li>%s</li>" % esc(p) for p in c.get("problems") or [])
    return "\n".join(
        [
            "<h2>Transports compared (%s)</h2>" % esc(c["results_file"]),
            table(["transport", "run", "images/s", "NCCL proof", "proved"], rows),
            training_figure(
                comparison_runs(c, directory),
                os.path.join(directory, c["results_file"][: -len(".json")] + ".svg"),
                "images",
            ),
            "<p>speedup rdma/tcp: %s%s</p>"
            % (
                number(c.get("speedup"), "%.2fx"),
                ""
                if c.get("same_job", True)
                else " (not the same job: %s)" % esc("; ".join(c.get("differences") or [])),
            ),
            "<ul class='bad'>%s</ul>" % problems if problems else "",
        ]
    )


def render(report, directory):
    nodes = report["nodes"]
    health = report.get("health")
    cards = [
        (
            "healthy nodes",
            "%d of %d" % (len(health["healthy"]), len(health["cards"])) if health else "not judged",
        ),
        (
            "nodes",
            "%d reached%s"
            % (len(nodes), (", not reached: " + ", ".join(report["not_reached"])) if report["not_reached"] else ""),
        ),
        ("GPUs", str(sum(int(n["gpu"]["count"]) for n in nodes))),
        (
            "RDMA",
            "%d of %d nodes have an active port" % (sum(1 for n in nodes if n["rdma"]["active_ports"]), len(nodes)),
        ),
        ("shared filesystem", "%d of %d mounted" % (sum(1 for n in nodes if n["cpfs"]["mounted"]), len(nodes))),
        (
            "SSH ring",
            "%d of %d OK"
            % (sum(1 for n in nodes if n["ssh"]["ok"]), sum(1 for n in nodes if n["ssh"]["ok"] is not None)),
        ),
    ]
    for _tool, b in sorted((report.get("bandwidth") or {}).items()):
        cards.append((b["tool"], "OK" if b["ok"] else "%d pairs below threshold" % len(b["below_threshold"])))
    t = report.get("training")
    if t:
        transport = (t["nccl"] or {}).get("transport") or "none (%s)" % t["backend"]
        cards.append(
            (
                "BERT",
                "%s tokens/s on %s ranks, NCCL %s" % (number(t["tokens_per_s"], "%.0f"), t["world_size"], transport),
            )
        )
    image = report.get("image_training")
    if image:
        cards.append(
            (
                "ResNet",
                "%s images/s on %s ranks, top-1 %s"
                % (number(image["images_per_s"], "%.1f"), image["world_size"], number(image["top1"], "%.3f")),
            )
        )
    comparison = report.get("transport_comparison")
    if comparison:
        cards.append(("rdma/tcp", number(comparison.get("speedup"), "%.2fx")))
    return "\n".join(
        [
            "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Cluster report</title><style>%s</style></head><body>"
            % CSS,
            "<h1>Cluster report: %s</h1><p class='sub'>generated %s</p>"
            % (esc(report["group"]), esc(report["generated_at"])),
            "<div class='cards'>%s</div>"
            % "".join("<div class='card'><b>%s</b><br>%s</div>" % (esc(k), esc(v)) for k, v in cards),
            health_section(report),
            nodes_section(report),
            nccl_section(report, directory),
            bandwidth_section(report, directory),
            traffic_section(report, directory),
            training_section(report.get("training"), directory),
            image_training_section(image),
            transport_section(comparison, directory),
            "</body></html>",
        ]
    )


def summary_lines(report, html_path):
    """What a person reads in five seconds at the end of a run: what ran where, its loss and throughput, the
    verdict per node and where the page is (also the JSON's "summary", which the playbook shows)."""
    lines = []
    t = report.get("training")
    if t:
        where = ", ".join("%s (%s rank(s))" % (h["host"], h["num_ranks"]) for h in t["hosts"]) or "no host recorded"
        lines.append(
            "BERT %s run %s: %s, %s rank(s) on %s; %s on %s"
            % (t["model_size"], t["run_id"], t["status"], t["world_size"], where, t["backend"], t["device"])
        )
        lines.append(
            "  loss %s -> %s over %s step(s); %s sequences/s, %s tokens/s"
            % (
                number(t["loss_first"], "%.3f"),
                number(t["loss_last"], "%.3f"),
                len(t.get("loss") or []),
                number(t["sequences_per_s"], "%.1f"),
                number(t["tokens_per_s"], "%.0f"),
            )
        )
    image = report.get("image_training")
    if image:
        lines.append(
            "ResNet %s run %s: %s, %s rank(s) on %s host(s); loss %s -> %s; %s images/s; top-1 %s"
            % (
                image["model"],
                image["run_id"],
                image["status"],
                image["world_size"],
                image["num_hosts"],
                number(image["loss_first"], "%.3f"),
                number(image["loss_last"], "%.3f"),
                number(image["images_per_s"], "%.1f"),
                number(image["top1"], "%.3f"),
            )
        )
    if not t and not image:
        lines.append("no training run in %s yet" % os.path.dirname(html_path))
    health = report.get("health")
    if health:
        lines.append(
            "nodes: %s (%d of %d healthy)"
            % (
                ", ".join(
                    "%s %s%s" % (c["host"], c["status"].upper(), " (%s)" % c["remedy"] if c.get("remedy") else "")
                    for c in health["cards"]
                ),
                len(health["healthy"]),
                len(health["cards"]),
            )
        )
    else:
        lines.append("nodes: %s (not judged in this run)" % ", ".join(n["host"] for n in report["nodes"]))
    lines.append("report: %s" % html_path)
    return lines


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        # The summary of a report rendered earlier (make demo prints it after the playbook).
        with open(argv[2]) as f:
            print("\n".join(json.load(f).get("summary") or ["%s has no summary: render it first" % argv[2]]))
        return 0
    if len(argv) != 3:
        sys.stderr.write("usage: render_report.py REPORT.json OUT.html | render_report.py --summary REPORT.json\n")
        return 2
    directory = os.path.dirname(os.path.abspath(argv[1]))
    with open(argv[1]) as f:
        report = json.load(f)
    report["training"] = training(directory)
    report["image_training"] = image_training(directory)
    report["transport_comparison"] = transport_comparison(directory)
    report["summary"] = summary_lines(report, os.path.abspath(argv[2]))
    with open(argv[1], "w") as f:
        json.dump(report, f, indent=2, sort_keys=True)
        f.write("\n")
    page = render(report, directory)
    with open(argv[2], "w") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
