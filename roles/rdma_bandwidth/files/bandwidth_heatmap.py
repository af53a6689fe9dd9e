# -*- coding: utf-8 -*-
# Copyright: scc.training developers
# Apache License 2.0 (see LICENSE or https://www.apache.org/licenses/LICENSE-2.0)
"""Draw the node-pair bandwidth matrix written by rdma_bandwidth as a heatmap PNG (controller side).

    python bandwidth_heatmap.py bandwidth-tcp.json bandwidth-tcp.png

Cells are Gb/s (the pair's value in both cells, blank on the diagonal and for pairs not measured);
pairs below the threshold are outlined in red.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle


def draw(data, out_path):
    nodes = data["nodes"]
    n = len(nodes)
    matrix = [[float("nan") if v is None else v for v in row] for row in data["matrix_gbps"]]
    vmax = max(
        data.get("link_rate_gbps") or 0,
        max((v for row in data["matrix_gbps"] for v in row if v is not None), default=1),
    )
    size = max(4.0, 1.0 + 0.7 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(matrix, cmap="viridis", vmin=0, vmax=vmax)
    ax.set_xticks(range(n), labels=nodes, rotation=45, ha="right")
    ax.set_yticks(range(n), labels=nodes)
    for i in range(n):
        for j in range(n):
            value = data["matrix_gbps"][i][j]
            if value is None:
                continue
            ax.text(
                j,
                i,
                "%.1f" % value,
                ha="center",
                va="center",
                color="white" if value < 0.6 * vmax else "black",
                fontsize=9,
            )
            if value < data["min_gbps"]:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    fig.colorbar(image, ax=ax, label="Gb/s")
    ax.set_title(
        "%s bandwidth per node pair (Gb/s)\nthreshold %.2f Gb/s = %s x %s Gb/s link"
        % (data.get("tool", ""), data["min_gbps"], data.get("min_fraction"), data.get("link_rate_gbps")),
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(out_path, dpi=100)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: bandwidth_heatmap.py MATRIX.json OUT.png\n")
        return 2
    with open(argv[1]) as f:
        draw(json.load(f), argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
