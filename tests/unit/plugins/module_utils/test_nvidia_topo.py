"""nvidia-smi topo -m parsed, and the ranks' placement chosen from it: bound to their GPU's NUMA node only when
Open MPI's ppr mapping lands local rank i on GPU i's node; unbound otherwise, with the reason."""

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.scc.training.plugins.filter.mpi import mpirun_placement
from ansible_collections.scc.training.plugins.module_utils.nvidia_topo import (
    launch_placement,
    parse_topo_matrix,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "nvidia_topo"
RTX4090 = (FIXTURES / "8x4090-2numa-go-gpuallocator-17.txt").read_text()
# The first rows of https://github.com/kubernetes/kubernetes/issues/53497 (2017-11-15) as published: a driver of
# that time prints a CPU Affinity column and no NUMA Affinity one (the rows after GPU4 are cut there).
OLD_DRIVER = """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    mlx4_0  CPU Affinity
GPU0     X      PIX     PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU1    PIX      X      PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU2    PHB     PHB      X      PIX     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU3    PHB     PHB     PIX      X      SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU4    SYS     SYS     SYS     SYS      X      PIX     PHB     PHB     SYS     10-19,30-39
"""


def swap_numa(text, a, b):
    """``text`` with the affinity columns of GPU<a> and GPU<b> swapped."""
    rows = text.splitlines()
    index = {row.split("\t")[0]: i for i, row in enumerate(rows)}
    ra, rb = rows[index["GPU%d" % a]].split("\t"), rows[index["GPU%d" % b]].split("\t")
    ra[11:], rb[11:] = rb[11:], ra[11:]
    rows[index["GPU%d" % a]], rows[index["GPU%d" % b]] = "\t".join(ra), "\t".join(rb)
    return "\n".join(rows) + "\n"


def test_the_published_matrix_parses():
    topology = parse_topo_matrix(RTX4090)
    assert topology["columns"] == [*("GPU%d" % i for i in range(8)), "NIC0", "NIC1"]
    assert topology["has_numa_column"] is True
    gpus = topology["gpus"]
    assert [g["index"] for g in gpus] == list(range(8)) and [g["numa"] for g in gpus] == [0] * 4 + [1] * 4
    assert gpus[6]["links"]["NIC0"] == "PHB" and gpus[6]["links"]["GPU6"] == "X"
    assert gpus[0]["cpu_affinity"] == "0-55,112-167" and gpus[7]["cpu_affinity"] == "56-111,168-223"


def test_a_rank_per_gpu_grouped_by_numa_node_is_bound_to_it():
    placement = launch_placement(RTX4090, 16, 2)
    assert (placement["map_by"], placement["bind_to"]) == ("ppr:4:numa", "numa")
    assert "4 rank(s) per NUMA node" in placement["reason"]


@pytest.mark.parametrize(
    "text, np, nodes, reason",
    [
        ("", 16, 2, "no GPU in nvidia-smi topo -m"),
        (OLD_DRIVER, 5, 1, "names no NUMA node for every GPU"),
        (RTX4090, 8, 2, "4 rank(s) per node for 8 GPU(s)"),
        (RTX4090, 15, 2, "15 ranks on 2 nodes"),
        # Derived from the 4090 fixture, not a real output: GPU0 and GPU4 swap NUMA nodes (interleaved GPUs).
        (swap_numa(RTX4090, 0, 4), 8, 1, "not 4 per node from node 0 up"),
    ],
)
def test_otherwise_the_ranks_stay_unbound_and_the_reason_says_why(text, np, nodes, reason):
    placement = launch_placement(text, np, nodes)
    assert (placement["map_by"], placement["bind_to"]) == ("slot", "none")
    assert reason in placement["reason"], placement["reason"]


def test_what_the_user_set_wins_each_on_its_own():
    assert launch_placement(RTX4090, 16, 2, "core", "node")["reason"] == "set by the launcher's bind_to and map_by"
    mixed = launch_placement(RTX4090, 16, 2, "none", "auto")
    assert (mixed["bind_to"], mixed["map_by"]) == ("none", "ppr:4:numa")


def test_the_filter_names_itself_on_bad_counts():
    with pytest.raises(AnsibleFilterError, match=r"mpirun_placement: np \(0\) and nodes \(2\) must be at least 1"):
        mpirun_placement(RTX4090, 0, 2)


# The bytes a real H200's nvidia-smi (590.48.01) wrote to a file: the header wrapped in ESC[4m ... ESC[0m, tabs,
# an empty cell before GPU NUMA ID, the Legend after (tests/fixtures/nvidia_topo/*.source name the sources).
H200_RAW = (FIXTURES / "h200-1gpu-590.48.01-raw.txt").read_bytes().decode()
EIGHT_GPU_ESCAPES = (FIXTURES / "8gpu-2nic-constructed-escapes.txt").read_bytes().decode()


def test_a_real_h200s_bytes_parse_to_its_gpu_and_numa_node():
    assert "\x1b[4m" in H200_RAW and "\x1b[0m" in H200_RAW  # the fixture is the raw bytes
    topology = parse_topo_matrix(H200_RAW)
    assert topology["columns"] == ["GPU0"] and topology["has_numa_column"] is True
    assert topology["gpus"] == [{"index": 0, "links": {"GPU0": "X"}, "cpu_affinity": "0-23", "numa": 0}]
    placement = launch_placement(H200_RAW, 1, 1)
    assert (placement["map_by"], placement["bind_to"]) == ("ppr:1:numa", "numa"), placement["reason"]


def test_the_header_in_escapes_with_nics_and_legends_parses_like_the_plain_one():
    topology = parse_topo_matrix(EIGHT_GPU_ESCAPES)
    assert topology == parse_topo_matrix(RTX4090)
    assert [g["numa"] for g in topology["gpus"]] == [0] * 4 + [1] * 4
    assert launch_placement(EIGHT_GPU_ESCAPES, 8, 1)["map_by"] == "ppr:4:numa"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x1b[4m\x1b[0m\n",
        "Failed to initialize NVML: Driver/library version mismatch\r\n",
        "\nLegend:\n\n  X    = Self\n",
    ],
    ids=["empty", "only-escapes", "nvml-error", "legend-only"],
)
def test_output_without_a_matrix_is_no_gpu_not_an_error(text):
    assert parse_topo_matrix(text)["gpus"] == []
    assert "no GPU" in launch_placement(text, 8, 1)["reason"]


def _topo(numa_nodes, numa_column="NUMA Affinity"):
    """A matrix of len(numa_nodes) GPUs, each on its NUMA node (a made-up layout: the columns as drivers print them)."""
    count = len(numa_nodes)
    names = ["GPU%d" % i for i in range(count)]
    rows = ["\t" + "\t".join(names + ["CPU Affinity", numa_column])]
    for i, node in enumerate(numa_nodes):
        links = ["X" if j == i else "SYS" for j in range(count)]
        rows.append("\t".join(["GPU%d" % i] + links + ["%d-%d" % (node * 8, node * 8 + 7), str(node)]))
    return "\n".join(rows) + "\n"


def test_three_gpus_on_one_numa_node_and_one_on_the_next_are_bound_three_per_node():
    placement = launch_placement(_topo([0, 0, 0, 1]), 4, 1)
    assert (placement["map_by"], placement["bind_to"]) == ("ppr:3:numa", "numa"), placement


def test_a_gpu_numa_id_column_is_not_the_numa_affinity():
    # "GPU NUMA ID" (the GPU's own memory node on some systems) without "NUMA Affinity": no NUMA node for the ranks.
    topology = parse_topo_matrix(_topo([0, 1], numa_column="GPU NUMA ID"))
    assert topology["has_numa_column"] is False
    assert [(gpu["cpu_affinity"], gpu["numa"]) for gpu in topology["gpus"]] == [("0-7", None), ("8-15", None)]


def test_a_row_cut_before_its_affinity_has_no_numa_node():
    topology = parse_topo_matrix(_topo([0, 1]).replace("\t8-15\t1\n", "\n"))
    assert [(gpu["cpu_affinity"], gpu["numa"]) for gpu in topology["gpus"]] == [("0-7", 0), (None, None)]


def test_a_map_by_set_by_hand_is_kept_and_the_binding_still_chosen():
    placement = launch_placement(_topo([0, 0, 1, 1]), 4, 1, map_by="slot")
    assert (placement["map_by"], placement["bind_to"]) == ("slot", "numa")
    placement = launch_placement(_topo([0, 0, 1, 1]), 4, 1, bind_to="core")
    assert (placement["map_by"], placement["bind_to"]) == ("ppr:2:numa", "core")


@pytest.mark.parametrize("numa_nodes", [[0, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 0]])
def test_gpus_out_of_numa_order_leave_the_ranks_unbound(numa_nodes):
    placement = launch_placement(_topo(numa_nodes), 4, 1)
    assert (placement["map_by"], placement["bind_to"]) == ("slot", "none")
    assert placement["reason"].startswith("the GPUs' NUMA nodes in index order are %s" % numa_nodes)


def test_more_ranks_than_gpus_are_unbound():
    placement = launch_placement(_topo([0, 0, 1, 1]), 8, 1)
    assert (placement["map_by"], placement["bind_to"]) == ("slot", "none")
    assert placement["reason"] == "8 rank(s) per node for 4 GPU(s): ranks unbound (a rank per GPU is bound)"


def test_a_gpu_without_a_numa_node_leaves_the_ranks_unbound():
    for cut in ("\t8-15\t1\n", "\t1\n"):  # the row ends before its affinities, or before its NUMA node
        topology = parse_topo_matrix(_topo([0, 1]).replace(cut, "\n"))
        assert topology["has_numa_column"] is True and [gpu["numa"] for gpu in topology["gpus"]] == [0, None]
        placement = launch_placement(_topo([0, 1]).replace(cut, "\n"), 2, 1)
        assert placement["bind_to"] == "none" and "names no NUMA node for every GPU" in placement["reason"]


def test_no_matrix_is_no_gpu_and_no_numa_column():
    assert parse_topo_matrix("") == {"gpus": [], "columns": [], "has_numa_column": False}
    assert parse_topo_matrix("No devices were found\n")["has_numa_column"] is False


def test_no_node_or_no_rank_is_refused_by_name():
    for np, nodes in ((8, 0), (0, 1)):
        with pytest.raises(ValueError, match=r"^np \(%d\) and nodes \(%d\) must be at least 1" % (np, nodes)):
            launch_placement(_topo([0, 1]), np, nodes)
