# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Turn fabric_monitor's counter samples into rates over time and a plot (controller side).

    python fabric_traffic.py traffic-samples.json traffic.json traffic.png

Input: {node: [sample, ...]} as fabric_sample.py writes them. Output JSON: per node and counter
(ib:<dev>:<port> or net:<if>) the series of {t (s from the first sample of the cluster),
tx_gbps, rx_gbps} and the peak and mean rates; the PNG plots tx+rx Gb/s over time per node and counter.
"""

import json
import sys


def rates(samples_by_node):
    """{node: [samples]} -> {"t0": ..., "nodes": {node: {counter: {series, peak_gbps, mean_gbps}}}}."""
    t0 = min((s[0]["t"] for s in samples_by_node.values() if s), default=0.0)
    nodes = {}
    for node, samples in sorted(samples_by_node.items()):
        counters = {}
        for prev, cur in zip(samples, samples[1:]):
            dt = cur["t"] - prev["t"]
            if dt <= 0:
                continue
            for kind in ("ib", "net"):
                for name, (tx, rx) in cur.get(kind, {}).items():
                    if name not in prev.get(kind, {}):
                        continue
                    ptx, prx = prev[kind][name]
                    # A counter that went backwards was reset (or wrapped): skip that interval.
                    if tx < ptx or rx < prx:
                        continue
                    series = counters.setdefault("%s:%s" % (kind, name), {"series": []})["series"]
                    series.append(
                        {
                            "t": round(cur["t"] - t0, 3),
                            "tx_gbps": (tx - ptx) * 8 / dt / 1e9,
                            "rx_gbps": (rx - prx) * 8 / dt / 1e9,
                        }
                    )
        for counter in counters.values():
            totals = [p["tx_gbps"] + p["rx_gbps"] for p in counter["series"]]
            counter["peak_gbps"] = max(totals) if totals else 0.0
            counter["mean_gbps"] = sum(totals) / len(totals) if totals else 0.0
        nodes[node] = {"samples": len(samples), "counters": counters}
    return {"t0": t0, "nodes": nodes}


def plot(result, out_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for node, data in sorted(result["nodes"].items()):
        for name, counter in sorted(data["counters"].items()):
            # Idle counters (never above 1 Mb/s) would only clutter the plot.
            if counter["peak_gbps"] < 0.001:
                continue
            ts = [p["t"] for p in counter["series"]]
            ax.plot(
                ts, [p["tx_gbps"] + p["rx_gbps"] for p in counter["series"]], marker=".", label="%s %s" % (node, name)
            )
    ax.set_xlabel("seconds since the first sample")
    ax.set_ylabel("tx + rx, Gb/s")
    ax.set_title("Fabric traffic per node and counter")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(out_path, dpi=100)
    plt.close(fig)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: fabric_traffic.py SAMPLES.json OUT.json OUT.png\n")
        return 2
    with open(argv[1]) as f:
        result = rates(json.load(f))
    with open(argv[2], "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    plot(result, argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
