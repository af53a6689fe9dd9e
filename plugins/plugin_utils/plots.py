# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""PNG plots of the verify stage's results, drawn on the controller (the ``scc.training.plot`` action).

- ``bandwidth_heatmap``: rdma_bandwidth's node-pair matrix (``bandwidth_matrix`` plus tool, link
  rate and fraction): Gb/s in each cell, the diagonal and pairs not measured blank, pairs below the
  threshold outlined in red.
- ``traffic``: fabric_monitor's rates (``fabric_traffic``): tx+rx Gb/s over time per node and counter.

matplotlib (requirements.txt) is imported when a plot is drawn, with its file-only Agg backend.
"""

from __future__ import annotations


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt, fig, dest):
    fig.tight_layout()
    fig.savefig(dest, dpi=100)
    plt.close(fig)


def bandwidth_heatmap(data, dest):
    """Draw the pair matrix ``data`` as a heatmap PNG at ``dest``."""
    plt = _pyplot()
    from matplotlib.patches import Rectangle

    nodes = data["nodes"]
    n = len(nodes)
    cells = data["matrix_gbps"]
    values = [v for row in cells for v in row if v is not None]
    # The colour scale runs to the link rate, or to the highest value when one is above it.
    vmax = max([data.get("link_rate_gbps") or 0] + (values or [1]))
    size = max(4.0, 1.0 + 0.7 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(
        [[float("nan") if v is None else v for v in row] for row in cells], cmap="viridis", vmin=0, vmax=vmax
    )
    ax.set_xticks(range(n), labels=nodes, rotation=45, ha="right")
    ax.set_yticks(range(n), labels=nodes)
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            if value is None:
                continue
            color = "white" if value < 0.6 * vmax else "black"
            ax.text(j, i, "%.1f" % value, ha="center", va="center", color=color, fontsize=9)
            if value < data["min_gbps"]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    fig.colorbar(image, ax=ax, label="Gb/s")
    ax.set_title(
        "%s bandwidth per node pair (Gb/s)\nthreshold %.2f Gb/s = %s x %s Gb/s link"
        % (data.get("tool", ""), data["min_gbps"], data.get("min_fraction"), data.get("link_rate_gbps")),
        fontsize=10,
    )
    _save(plt, fig, dest)


def traffic(data, dest):
    """Draw the rates ``data`` (tx+rx Gb/s per node and counter over time) as a line plot PNG at ``dest``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for node, counters in sorted((node, d["counters"]) for node, d in data["nodes"].items()):
        for name, counter in sorted(counters.items()):
            # Idle counters (never above 1 Mb/s) would only clutter the plot.
            if counter["peak_gbps"] < 0.001:
                continue
            series = counter["series"]
            totals = [p["tx_gbps"] + p["rx_gbps"] for p in series]
            ax.plot([p["t"] for p in series], totals, marker=".", label="%s %s" % (node, name))
    ax.set_xlabel("seconds since the first sample")
    ax.set_ylabel("tx + rx, Gb/s")
    ax.set_title("Fabric traffic per node and counter")
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="upper right")
    _save(plt, fig, dest)


PLOTS = {"bandwidth_heatmap": bandwidth_heatmap, "traffic": traffic}
