# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Render cluster-report.json as one self-contained HTML page (controller side).

    python render_report.py cluster-report.json cluster-report.html

Tables for the nodes (GPUs, RDMA ports, shared filesystem, SSH), the bandwidth matrices and the
traffic, with the PNGs found next to the JSON (bandwidth-<tool>.png, traffic.png) embedded as data: URIs.
"""

import base64
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
img{max-width:100%;border:1px solid #ddd}
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


def table(headers, rows):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % esc(h) for h in headers)]
    for row in rows:
        out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % cell for cell in row))
    out.append("</table>")
    return "\n".join(out)


def nodes_section(report):
    rows = []
    for n in report["nodes"]:
        gpu, rdma, cpfs, ssh = n["gpu"], n["rdma"], n["cpfs"], n["ssh"]
        gpus = esc(gpu["count"]) + ("<br>" + "<br>".join(esc(line) for line in gpu["nvidia_smi"]) if gpu["nvidia_smi"] else
                                    ' <span class="na">(no nvidia-smi)</span>')
        ports = "<br>".join("%s %s %s %s" % (esc(p["port"]), esc(p["state"]), esc(p["link_layer"]),
                                             esc("%s Gb/s" % p["rate_gbps"] if p["rate_gbps"] is not None else ""))
                            for p in rdma["ports"]) or '<span class="na">no RDMA device</span>'
        fs = ("%s %s (%s)" % (verdict(True, "mounted"), esc(cpfs["source"]), esc(cpfs["fstype"])) if cpfs["mounted"]
              else verdict(False, no="NOT MOUNTED"))
        ssh_cell = ("%s &rarr; %s" % (verdict(ssh["ok"]), esc(ssh["target"]))) if ssh["target"] else verdict(None)
        rows.append([esc(n["host"]), gpus, ports, esc(cpfs["path"]) + " " + fs, ssh_cell])
    return "<h2>Nodes</h2>" + table(["node", "GPUs", "RDMA ports", "shared filesystem", "SSH to next node"], rows)


def bandwidth_section(report, directory):
    out = ["<h2>Bandwidth between every pair of nodes</h2>"]
    if not report.get("bandwidth"):
        return out[0] + '<p class="na">not measured in this run</p>'
    for tool, b in sorted(report["bandwidth"].items()):
        s = b["summary"]
        out.append("<h3>%s %s</h3>" % (esc(b["tool"]), verdict(b["ok"], "all pairs above threshold", "pairs below threshold")))
        out.append("<p>%d pairs in %d rounds; min %.2f, mean %.2f, max %.2f Gb/s; threshold %.2f Gb/s = %s &times; %s Gb/s (%s)</p>"
                   % (s["pairs"], len(b["rounds"]), s["min"] or 0, s["mean"] or 0, s["max"] or 0, b["min_gbps"],
                      esc(b["min_fraction"]), esc(b["link_rate_gbps"]), esc(b["link_rate_source"])))
        rows = [[esc(p["round"]), esc(p["client"]), esc(p["server"]), "%.2f" % p["gbps"], verdict(p["ok"])]
                for p in sorted(b["pairs"], key=lambda p: (int(p["round"]), p["client"]))]
        out.append(table(["round", "client", "server", "Gb/s", ""], rows))
        if b["missing"]:
            out.append('<p class="bad">not measured: %s</p>' % esc(", ".join("-".join(m) for m in b["missing"])))
        out.append(image(directory, "bandwidth-%s.png" % tool))
    return "\n".join(out)


def traffic_section(report, directory):
    t = report.get("traffic")
    if not t:
        return '<h2>Traffic</h2><p class="na">not sampled in this run</p>'
    rows = []
    for node, data in sorted(t["nodes"].items()):
        for name, c in sorted(data["counters"].items()):
            if c["peak_gbps"] >= 0.001:
                rows.append([esc(node), esc(name), "%.3f" % c["peak_gbps"], "%.3f" % c["mean_gbps"], esc(len(c["series"]))])
    return ("<h2>Traffic during the checks (tx+rx)</h2>" + table(["node", "counter", "peak Gb/s", "mean Gb/s", "intervals"], rows)
            + image(directory, "traffic.png"))


def render(report, directory):
    nodes = report["nodes"]
    cards = [
        ("nodes", "%d reached%s" % (len(nodes), (", not reached: " + ", ".join(report["not_reached"])) if report["not_reached"] else "")),
        ("GPUs", str(sum(int(n["gpu"]["count"]) for n in nodes))),
        ("RDMA", "%d of %d nodes have an active port" % (sum(1 for n in nodes if n["rdma"]["active_ports"]), len(nodes))),
        ("shared filesystem", "%d of %d mounted" % (sum(1 for n in nodes if n["cpfs"]["mounted"]), len(nodes))),
        ("SSH ring", "%d of %d OK" % (sum(1 for n in nodes if n["ssh"]["ok"]), sum(1 for n in nodes if n["ssh"]["ok"] is not None))),
    ]
    for tool, b in sorted((report.get("bandwidth") or {}).items()):
        cards.append((b["tool"], "OK" if b["ok"] else "%d pairs below threshold" % len(b["below_threshold"])))
    return "\n".join([
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Cluster report</title><style>%s</style></head><body>" % CSS,
        "<h1>Cluster report: %s</h1><p class='sub'>generated %s</p>" % (esc(report["group"]), esc(report["generated_at"])),
        "<div class='cards'>%s</div>" % "".join("<div class='card'><b>%s</b><br>%s</div>" % (esc(k), esc(v)) for k, v in cards),
        nodes_section(report),
        bandwidth_section(report, directory),
        traffic_section(report, directory),
        "</body></html>",
    ])


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: render_report.py REPORT.json OUT.html\n")
        return 2
    with open(argv[1]) as f:
        report = json.load(f)
    page = render(report, os.path.dirname(os.path.abspath(argv[1])))
    with open(argv[2], "w") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
