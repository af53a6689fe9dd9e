# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""PNG plots of the verify stage's results, drawn on the controller (the ``scc.training.plot`` action).

- ``bandwidth_heatmap``: rdma_bandwidth's node-pair matrices (``bandwidth_matrix`` plus tool, link
  rate and fraction), one panel per rail (RDMA port), rows sending and columns receiving: Gb/s in
  each cell, the diagonal and pairs not measured blank, measurements below their threshold outlined
  in red.
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


def _panel(ax, plt, cells, nodes, labels, failed, vmax):
    """One heatmap: rows send, columns receive; failed cells (row, column) outlined in red."""
    from matplotlib.patches import Rectangle

    n = len(nodes)
    image = ax.imshow(
        [[float("nan") if v is None else v for v in row] for row in cells], cmap="viridis", vmin=0, vmax=vmax
    )
    ax.set_xticks(range(n), labels=labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels=labels)
    ax.set_xlabel("receiver (server)")
    ax.set_ylabel("sender (client)")
    for i, row in enumerate(cells):
        for j, value in enumerate(row):
            if value is None:
                continue
            color = "white" if value < 0.6 * vmax else "black"
            ax.text(j, i, "%.1f" % value, ha="center", va="center", color=color, fontsize=9)
            if (nodes[i], nodes[j]) in failed:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    return image


def bandwidth_heatmap(data, dest):
    """Draw the pair matrix ``data`` as a heatmap PNG at ``dest``: one panel per rail (RDMA port) when
    ``data`` has ``rails`` (row = sender, column = receiver, each node labelled with its port on that
    rail), else ``matrix_gbps`` alone; measurements below their threshold are outlined in red."""
    plt = _pyplot()
    nodes = data["nodes"]
    n = len(nodes)
    rails = data.get("rails") or [{"rail": None, "ports": {}, "matrix_gbps": data["matrix_gbps"]}]
    values = [v for rail in rails for row in rail["matrix_gbps"] for v in row if v is not None]
    # The colour scale runs to the link rate, or to the highest value when one is above it.
    vmax = max([data.get("link_rate_gbps") or 0] + (values or [1]))
    size = max(4.0, 1.0 + 0.7 * n)
    # Constrained layout places the colour bar shared by the panels (tight_layout cannot).
    fig, axes = plt.subplots(
        1, len(rails), figsize=((size + 1.0) * len(rails) + 1.0, size + 0.5), squeeze=False, layout="constrained"
    )
    for ax, rail in zip(axes[0], rails):
        if rail["rail"] is None:
            failed = {
                (nodes[i], nodes[j])
                for i, row in enumerate(rail["matrix_gbps"])
                for j, v in enumerate(row)
                if v is not None and v < data["min_gbps"]
            }
        else:
            failed = {
                (p["client"], p["server"]) for p in data.get("below_threshold", []) if p.get("rail") == rail["rail"]
            }
        ports = rail.get("ports") or {}
        labels = ["%s\n%s" % (node, ports[node]) if ports.get(node) else node for node in nodes]
        image = _panel(ax, plt, rail["matrix_gbps"], nodes, labels, failed, vmax)
        if rail["rail"] is not None and len(rails) > 1:
            ax.set_title("rail %s" % rail["rail"], fontsize=10)
    fig.colorbar(image, ax=list(axes[0]), label="Gb/s")
    fig.suptitle(
        "%s bandwidth per node pair and direction (Gb/s)\nthreshold %s x the lower link rate of each pair (lowest %.2f Gb/s)"
        % (data.get("tool", ""), data.get("min_fraction"), data["min_gbps"] or 0),
        fontsize=10,
    )
    fig.savefig(dest, dpi=100)
    plt.close(fig)


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
    _line_plot_done(
        plt, fig, ax, dest, ("seconds since the first sample", "tx + rx, Gb/s", "Fabric traffic per node and counter")
    )


def _line_plot_done(plt, fig, ax, dest, texts, legend_loc="upper right"):
    """Axis labels and title (``texts``: x, y, title), grid, a legend when something is labelled; saved."""
    xlabel, ylabel, title = texts
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc=legend_loc)
    _save(plt, fig, dest)


def nccl_busbw(data, dest):
    """Draw nccl_check's busbw-by-size curve (``data``: nccl_check_cluster) and its threshold as a PNG at ``dest``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    multi = data.get("multi_node") or {}
    curve = multi.get("curve") or []
    if curve:
        ax.plot(
            [p["size_bytes"] for p in curve],
            [p["busbw_gbps"] for p in curve],
            marker=".",
            label="all_reduce_perf across %d node(s)" % len(multi.get("hosts") or []),
        )
    if data.get("threshold_gbps") is not None:
        ax.axhline(data["threshold_gbps"], color="#c0182b", linestyle="--", label="threshold")
    ax.set_xscale("log", base=2)
    texts = ("message size, bytes", "bus bandwidth, GB/s", "NCCL all_reduce bus bandwidth by message size")
    _line_plot_done(plt, fig, ax, dest, texts, legend_loc="upper left")


PLOTS = {"bandwidth_heatmap": bandwidth_heatmap, "nccl_busbw": nccl_busbw, "traffic": traffic}
