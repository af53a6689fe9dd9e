"""README's "Supported instances" table, generated from plugins/module_utils/instance_families.py.

The supported-instance facts live in one place, the module_util that the filter
scc.training.instance_profile reads; the README shows them. The lines between the BEGIN and END
SUPPORTED INSTANCES markers of README.md are replaced with a table of every family (facts that
no vendor source confirms read UNCONFIRMED) and its footnotes (the sources, numbered by first use).

    python tools/instance_table.py            rewrite README.md when its table is stale
    python tools/instance_table.py --check    rewrite nothing; exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".collections"))

# The collection from this checkout (.collections links it), as the unit tests import it.
from ansible_collections.scc.training.plugins.module_utils import hardware_defaults as hardware
from ansible_collections.scc.training.plugins.module_utils import instance_families as table

BEGIN = "<!-- BEGIN SUPPORTED INSTANCES: generated from plugins/module_utils/instance_families.py by tools/instance_table.py -->"
END = "<!-- END SUPPORTED INSTANCES -->"
_SECTION = re.compile(r"^<!-- BEGIN SUPPORTED INSTANCES.*?-->\n.*?^<!-- END SUPPORTED INSTANCES -->$", re.M | re.S)

HEADER = (
    "family (type)",
    "GPUs (compute capability)",
    "NVLink",
    "RDMA",
    "NVIDIA driver",
    "PyTorch CUDA builds",
    "RDMA stack",
    "NCCL settings",
    "status",
    "what the collection does on it",
)
# The tests that back the last column, per family (test ids, relative to tests/unit/).
FAMILY_TESTS = (
    "plugins/module_utils/test_hardware_defaults.py::test_each_family_resolves_its_counts_thresholds_and_nccl_env[%s]",
    "roles/nccl_check/test_nccl_check_validate.py::test_validate[ok_family_%s]",
    "roles/gpu_health/test_gpu_health_validate.py::test_validate[ok_family_%s]",
)
# Families with a nccl_check pass/fail test at their expected busbw (and at half of it).
PASS_FAIL_TESTS = {
    "ebmgn8is": "plugins/module_utils/test_hardware_defaults.py::"
    "test_l20_pcie_and_h20_erdma_nodes_pass_at_expected_and_fail_at_half[ecs.ebmgn8is.32xlarge]",
    "ebmgn8v": "plugins/module_utils/test_hardware_defaults.py::"
    "test_l20_pcie_and_h20_erdma_nodes_pass_at_expected_and_fail_at_half[ecs.ebmgn8v.48xlarge]",
}
_STACKS = {
    "doca-ofed": "DOCA-OFED",
    "erdma-installer": "Alibaba's eRDMA installer",
    "distro": "the distribution's rdma-core",
}


class Footnotes:
    """Source keys numbered by first use: ``mark(keys)`` gives ``[^1][^2]``, ``lines()`` the definitions."""

    def __init__(self):
        self.order = []

    def mark(self, keys):
        marks = []
        for key in keys:
            if key not in self.order:
                self.order.append(key)
            marks.append("[^%d]" % (self.order.index(key) + 1))
        return "".join(marks)

    def lines(self):
        out = []
        for number, key in enumerate(self.order, 1):
            text, url = table.SOURCES[key]
            out.append("[^%d]: %s%s" % (number, text.replace("|", "\\|"), " <%s>" % url if url else ""))
        return out


# Unconfirmed keys as the table names them.
_UNCONFIRMED_WORDS = {
    "gpu": "model",
    "compute_capability": "compute capability",
    "rdma.ports": "ports",
    "rdma.rate_gbps": "rate per port",
    "rdma.mtu": "MTU",
    "rdma.link_layer": "link layer and rate in sysfs",
}


def _unconfirmed(profile, keys):
    """' (UNCONFIRMED: model, ...)' for those of ``keys`` that the profile lists, else ''."""
    words = [_UNCONFIRMED_WORDS[key] for key in keys if key in profile["unconfirmed"]]
    return " (UNCONFIRMED: %s)" % ", ".join(words) if words else ""


def _gpus(profile, facts):
    sizes = sorted(set(facts.get("gpus_by_type", {}).values()))
    count = "/".join(map(str, sizes)) if len(sizes) > 1 else "%d" % profile["gpus_per_node"]
    text = "%s x %s (%s)" % (count, profile["gpu"], profile["compute_capability"])
    return text + _unconfirmed(profile, ("gpu", "compute_capability"))


def _rdma(profile):
    rdma = profile["rdma"]
    kind = "RoCE v2" if rdma["kind"] == "roce_v2" else "eRDMA (iWARP)"
    if rdma["ports"] and rdma["rate_gbps"]:
        text = "%s, `%s`: %d x %d Gb/s" % (kind, rdma["provider"], rdma["ports"], rdma["rate_gbps"])
    elif rdma["total_gbps"]:
        text = "%s, `%s`: %d Gb/s in all" % (kind, rdma["provider"], rdma["total_gbps"])
    else:  # a VM family: its ERIs' rate is not published
        ports = "%d ERI" % rdma["ports"] if rdma["ports"] else "ERIs"
        text = "%s, `%s`: %s, rate not published" % (kind, rdma["provider"], ports)
    if rdma["mtu"]:
        text += "; MTU %(jumbo_frames)d with jumbo frames, else %(standard)d" % rdma["mtu"]
    return text + _unconfirmed(profile, ("rdma.ports", "rdma.rate_gbps", "rdma.mtu", "rdma.link_layer"))


def _driver(profile):
    branch = "R%s (%s)" % (
        profile["driver_branch"],
        "the last for this GPU" if profile["driver_branch_max"] else "long-term branch",
    )
    return "%s, %s kernel modules" % (branch, profile["kernel_modules"])


def _torch(profile):
    return ", ".join(
        "`%s` (torch %s-%s)" % (b["tag"], b["torch_min"], b["torch_max"]) for b in profile["torch_cuda_builds"]
    )


def _stack(profile):
    stack = profile["rdma_stack"]
    text = _STACKS[stack["source"]]
    if stack["installer_url"]:
        text += " (`%s`)" % stack["installer_url"].rsplit("/", 1)[-1]
    gpudirect = "GPUDirect (UNCONFIRMED)" if "rdma_stack.gpudirect" in profile["unconfirmed"] else "GPUDirect"
    return "%s, or %s; %s: %s" % (text, _STACKS[stack["alternative"]], gpudirect, stack["gpudirect"])


def _nccl(profile):
    text = ", ".join("`%s=%s`" % item for item in profile["nccl_env"].items())
    if "NCCL_IB_GID_INDEX" not in profile["nccl_env"]:
        text += "; GID index: the port's RoCE v2 GID"
    if profile["nccl_min_version"]:
        text += "; NCCL >= %s" % profile["nccl_min_version"]
    return text


def _does(family):
    """What the roles do with the family, from the resolver (scc.training.hardware_defaults), and the tests behind it."""
    resolved = hardware.resolve(family)
    intra, rdma, limits = resolved["intra_node"], resolved["rdma"], resolved["thresholds"]
    links = resolved["nvlink_links"]
    nvlinks = "%d NVLinks each" % links if links else "no NVLink"
    if any(key.endswith("nvlink_links") for key in resolved["unconfirmed"]):
        nvlinks += " (UNCONFIRMED count)"
    stack = (
        "`rdma_stack` eRDMA installer, ofed mode, no RoCE v2 GID required in default mode, interface MTU %d (8500 with "
        "jumbo frames); NCCL >= %s enforced" % (resolved["mtu"], resolved["nccl_min_version"])
        if rdma["kind"] == "erdma"
        else "`rdma_stack` DOCA-OFED or rdma-core, a RoCE v2 GID on every port"
    )
    text = (
        "validates `scc_instance_type`; `nvidia_driver` %s kernel modules; builds nccl-tests `%s`; `gpu_health` %d GPUs, %s; `nccl_check` alone >= %s GB/s "
        "(%s of %s, %s GB/s), across nodes %s; %s"
        % (
            resolved["kernel_modules"],
            resolved["nccl_tests_gencode"].rsplit("code=", maxsplit=1)[-1],
            resolved["gpu_count"],
            nvlinks,
            limits["single_node_gbps"],
            hardware.DEFAULT_FRACTIONS["single_fraction" if links else "pcie_fraction"],
            intra["detail"],
            intra["gbs"],
            (
                ">= %s GB/s (%s of %s Gb/s / 8)"
                % (limits["multi_node_gbps"], hardware.DEFAULT_FRACTIONS["multi_fraction"], rdma["total_gbps"])
                if rdma["total_gbps"]
                else "no threshold (no published rate: set `nccl_check_link_rate_gbps`)"
            ),
            stack,
        )
    )
    tests = [test % family for test in FAMILY_TESTS] + ([PASS_FAIL_TESTS[family]] if family in PASS_FAIL_TESTS else [])
    return text + "; tests: " + ", ".join("`%s`" % test for test in tests)


def _status(profile):
    return profile["status"] + ("; UEFI images only" if profile["uefi_only"] else "")


def render_section():
    """The lines between the markers: the table, then its footnotes."""
    notes = Footnotes()
    header = list(HEADER)
    header[4] += notes.mark(table.DRIVER_SOURCES)
    header[5] += notes.mark(table.TORCH_SOURCES)
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for family in table.FAMILIES:
        facts = table.FAMILIES[family]
        profile = table.profile(family)
        sources = facts["sources"]
        nvlink = ("yes: " if facts["nvlink"] else "") + facts["nvlink_detail"]
        cells = [
            "`%s` (%s)" % (family, ", ".join("`%s`" % t for t in facts["instance_types"])),
            _gpus(profile, facts) + notes.mark(sources["gpu"]),
            nvlink + notes.mark(sources["gpu"][:1]),
            _rdma(profile) + notes.mark(sources["rdma"]),
            _driver(profile),
            _torch(profile),
            _stack(profile) + notes.mark(sources["rdma_stack"]),
            _nccl(profile) + notes.mark(sources["nccl_env"]),
            _status(profile) + notes.mark(sources.get("status", ())),
            _does(family),
        ]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return [*rows, "", *notes.lines()]


def replace_section(text):
    """README text with its marked section rendered anew; ValueError without exactly one section."""
    if len(_SECTION.findall(text)) != 1:
        raise ValueError("README.md needs exactly one %s ... %s section" % (BEGIN, END))
    rendered = "\n".join([BEGIN, *render_section(), END])
    return _SECTION.sub(lambda match: rendered, text)


def main(argv=None, readme=ROOT / "README.md"):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if the table is stale")
    args = parser.parse_args(argv)
    text = readme.read_text(encoding="utf-8")
    try:
        wanted = replace_section(text)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    if wanted == text:
        return 0
    if args.check:
        print("%s: the supported-instance table is stale: run python tools/instance_table.py" % readme, file=sys.stderr)
        return 1
    readme.write_text(wanted, encoding="utf-8")
    print("rewrote %s" % readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
